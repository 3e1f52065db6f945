// The ONNX dialect: Graph, Builder and Module instantiated for ONNX, whose op registry holds
// every operator of libonnx's schema registry (the latest version of each, 200 in ONNX 1.12),
// named by op_name.hpp's rule (`Conv`, `ai.onnx.ml.LinearClassifier`), each with a schema of
// its attributes, and the properties of op_properties.hpp. Ops libonnx does not know (custom
// domains such as `com.microsoft.FusedConv`, newer opsets) are never refused: the registry
// adds them on first sight as opaque, `known == false`.
//
//   graphpat::onnx::Module module;                     // a fresh ONNX context
//   graphpat::onnx::Builder b(module.graph);
//   auto x = b.var("x");
//   auto y = b.call("Relu", {x});
//   module.add_function("main", b.function({x}, y));
//   const graphpat::OpInfo& add = module.graph.context().ops.info(module.graph.context().op("Add"));
//   // add.commutative == true, add.pattern_kind == graphpat::OpPatternKind::kBroadcast
//
// An op's AttrSchema has the op's name as type key and one field per attribute in libonnx's
// order (by name): `cpp_type` is the AttributeProto type name ("INT", "FLOATS", "STRING",
// "TENSOR", "GRAPH", ...), and an attribute with a default in the schema has it as ONNX text
// syntax (the spelling of onnx/defs/parser.h): `1`, `-1`, `1e-05` and `0.0` (a float always
// with a `.` or an exponent, in its shortest round-trip form), `"NOTSET"` (quoted, `\` and `"`
// escaped), lists `[0, 2, 3]` and `["Tanh", "Tanh"]`. `has_default == false` covers both a
// required attribute and an optional one without default (Conv's `dilations`); libonnx's
// OpSchema tells them apart. Every known op has a schema, empty for one without attributes.
//
// No `canonical_call_attrs`: an ONNX node carries the attributes written in its file and no
// others (a writer must give back the same bytes), so there is no canonical object to fill
// with defaults, and Rewriter::call, which needs one, is not offered for ONNX graphs; rewrite
// callbacks build with Rewriter::builder().
#pragma once

#include <fmt/format.h>
#include <onnx/defs/schema.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/builder.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/onnx/op_name.hpp"
#include "graphpat/onnx/op_properties.hpp"

namespace graphpat::onnx {

namespace detail {

/// `value` as the ONNX text syntax writes a float: shortest round trip, with a `.` or an
/// exponent so that it does not read back as an integer.
inline std::string float_text(float value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEni") == std::string::npos) text += ".0";  // not 1e-05, nan, inf
  return text;
}

/// `value` quoted as ONNX text writes a string.
inline std::string string_text(std::string_view value) {
  std::string text = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') text.push_back('\\');
    text.push_back(c);
  }
  text.push_back('"');
  return text;
}

/// The ONNX text of a schema's default, for the types ONNX gives defaults (INT, FLOAT, STRING
/// and their lists); empty for any other.
inline std::string default_text(const ::onnx::AttributeProto& value) {
  using Proto = ::onnx::AttributeProto;
  auto list = [](const auto& items, auto&& text_of) {
    std::string text = "[";
    for (int i = 0; i < items.size(); ++i) {
      if (i > 0) text += ", ";
      text += text_of(items[i]);
    }
    return text + "]";
  };
  switch (value.type()) {
    case Proto::INT:
      return fmt::format("{}", value.i());
    case Proto::FLOAT:
      return float_text(value.f());
    case Proto::STRING:
      return string_text(value.s());
    case Proto::INTS:
      return list(value.ints(), [](std::int64_t i) { return fmt::format("{}", i); });
    case Proto::FLOATS:
      return list(value.floats(), float_text);
    case Proto::STRINGS:
      return list(value.strings(), [](const std::string& s) { return string_text(s); });
    default:
      return {};
  }
}

/// The registry's schema of `op`: its attributes, named, typed and with their defaults.
inline AttrSchema attr_schema(StringPool& strings, std::string_view name,
                              const ::onnx::OpSchema& op) {
  AttrSchema schema;
  schema.type_key = strings.intern(name);
  for (const auto& [attr_name, attr] : op.attributes()) {
    std::string default_value = attr.default_value.has_type() ? default_text(attr.default_value)
                                                              : std::string();
    schema.fields.push_back({strings.intern(attr_name),
                             strings.intern(::onnx::AttributeProto::AttributeType_Name(attr.type)),
                             !default_value.empty(), strings.intern(default_value)});
  }
  return schema;
}

}  // namespace detail

struct Dialect {
  static constexpr std::string_view kName = "onnx";

  /// ONNX's names for the DSL's arithmetic. No associativity retries: ONNX's Mul and Div are
  /// floating-point (and integer) arithmetic, where (a * b) / c and a * (b / c) differ by
  /// rounding (and, for integers, by truncation), so a pattern written one way must not match
  /// the other. Op properties answer has_attr under graphpat's neutral names; the function
  /// attributes keep graphpat's defaults (ir/conventions.hpp).
  static constexpr DialectConventions kConventions{
      .arithmetic = {.add = "Add", .subtract = "Sub", .multiply = "Mul", .divide = "Div"},
      .associativity_retries = false,
      .op_pattern_kind_attr = "graphpat.op_pattern_kind",
      .op_stateful_attr = "graphpat.stateful",
  };

  /// Registers every op of libonnx's schema registry, latest version each, with its attribute
  /// schema and the properties of op_properties.hpp.
  GRAPHPAT_INSTANTIATED_ON_CALL static void register_ops(Context& context) {
    StringPool& strings = context.strings;
    for (const ::onnx::OpSchema& op : ::onnx::OpSchemaRegistry::get_all_schemas()) {
      std::string name = op_name(op.domain(), op.Name());
      OpInfo info;
      info.name = strings.intern(name);
      info.schema = context.ops.add_schema(detail::attr_schema(strings, name, op));
      context.ops.add(info);
    }
    for (const detail::OpPropertyRow& row : detail::kOpProperties) {
      OpId id = context.ops.find(row.op);
      if (!id.valid()) continue;  // an op newer than the installed libonnx: left unknown
      OpInfo info = context.ops.info(id);
      info.commutative = row.commutative;
      info.stateful = row.stateful;
      info.pattern_kind = row.pattern_kind;
      context.ops.add(info);
    }
  }
};

using Graph = graphpat::Graph<Dialect>;
using Builder = graphpat::Builder<Dialect>;
using Module = graphpat::Module<Dialect>;

}  // namespace graphpat::onnx
