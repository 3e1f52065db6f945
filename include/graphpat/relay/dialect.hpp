// The Relay dialect: Graph, Builder and Module instantiated for TVM Relay, whose op registry
// holds all 288 ops TVM v0.14 registers, with their attribute structs (fields in declaration
// order, declared defaults) and properties (commutative, stateful, op pattern kind), and TVM's
// conventions (ir/conventions.hpp): `*` is `multiply`, outlined functions carry `DictAttrs` with
// `PartitionedFromPattern` and `Composite`, their parameters are `FunctionVar_<g>_<i>`.
//
//   graphpat::relay::Module module;                    // a fresh Relay context
//   graphpat::relay::Builder b(module.graph);
//   auto x = b.var("x");
//   auto y = b.call("nn.relu", {x});
//   module.add_function("main", b.function({x}, y));
//   const graphpat::OpInfo& add =
//   module.graph.context().ops.info(module.graph.context().op("add"));
//   // add.commutative == true, add.pattern_kind == graphpat::OpPatternKind::kBroadcast
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/builder.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/relay/call_attrs.hpp"
#include "graphpat/relay/op_table.hpp"

namespace graphpat::relay {

struct Dialect {
  static constexpr std::string_view kName = "relay";

  /// TVM's optimizable-function filter: functions carrying one of these are left alone.
  static constexpr std::string_view kOpaqueFunctionKeys[] = {"Compiler", "Extern",
                                                             "SkipOptimization"};
  /// TVM's names: the Python DPL's arithmetic sugar, its associativity retries, the op
  /// attributes `TOpPattern` / `TOpIsStateful`, and what PartitionGraph and MergeComposite write.
  static constexpr DialectConventions kConventions{
      .arithmetic = {.add = "add",
                     .subtract = "subtract",
                     .multiply = "multiply",
                     .divide = "divide"},
      .associativity_retries = true,
      .op_pattern_kind_attr = "TOpPattern",
      .op_stateful_attr = "TOpIsStateful",
      .outlined_function_attrs_type = "DictAttrs",
      .partitioned_from_key = "PartitionedFromPattern",
      .composite_key = "Composite",
      .outlined_parameter_prefix = "FunctionVar_",
      .opaque_function_keys = kOpaqueFunctionKeys,
  };

  /// A call's `k=v` attribute fields as the readers canonicalise them (relay::call_attrs): what
  /// Rewriter::call builds with.
  static absl::StatusOr<AttrValueId> canonical_call_attrs(Context& context,
                                                          std::string_view op_name,
                                                          std::span<const AttrField> fields) {
    return call_attrs(context, op_name, fields);
  }

  /// Loads the generated op table into `context`'s registry.
  GRAPHPAT_INSTANTIATED_ON_CALL static void register_ops(Context& context) {
    StringPool& strings = context.strings;
    std::vector<AttrSchemaId> schema_ids;
    schema_ids.reserve(std::size(detail::kAttrStructs));
    for (const detail::AttrStructSpec& spec : detail::kAttrStructs) {
      AttrSchema schema;
      schema.type_key = strings.intern(spec.type_key);
      for (std::uint32_t i = 0; i < spec.field_count; ++i) {
        const detail::AttrFieldSpec& field = detail::kAttrFields[spec.first_field + i];
        schema.fields.push_back({strings.intern(field.name), strings.intern(field.cpp_type),
                                 field.has_default, strings.intern(field.default_value)});
      }
      schema_ids.push_back(context.ops.add_schema(std::move(schema)));
    }
    for (const detail::OpSpec& spec : detail::kOps) {
      OpInfo info;
      info.name = strings.intern(spec.name);
      if (spec.attrs_struct >= 0)
        info.schema = schema_ids[static_cast<std::size_t>(spec.attrs_struct)];
      info.commutative = spec.commutative;
      info.stateful = spec.stateful;
      info.pattern_kind = static_cast<OpPatternKind>(spec.pattern_kind);
      context.ops.add(info);
    }
  }
};

using Graph = graphpat::Graph<Dialect>;
using Builder = graphpat::Builder<Dialect>;
using Module = graphpat::Module<Dialect>;

}  // namespace graphpat::relay
