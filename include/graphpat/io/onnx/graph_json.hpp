// graphpat's graph JSON (docs/graph-json.md) for ONNX modules: the file carries
// `"dialect": "onnx"`, types are ONNX type text (io/onnx/type_text.hpp), constants ONNX's
// element types, and a call's attributes exactly the fields its node has, under the op's (or
// the called function's) name as type key. Node names travel in spans: a call's "span"
// {"source": "Conv_3", "line": 4} is what the ONNX reader gave it.
//
//   absl::StatusOr<graphpat::onnx::LoadedOnnx> loaded = graphpat::onnx::load_file("m.onnx");
//   absl::StatusOr<std::string> json = graphpat::onnx::print_graph_json(loaded->module);
//   absl::StatusOr<graphpat::onnx::Module> again = graphpat::onnx::parse_graph_json(*json);
//   // structurally equal to loaded->module, types, attributes and spans included
#pragma once

#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "graphpat/io/graph_json/dialect.hpp"
#include "graphpat/io/graph_json/reader.hpp"
#include "graphpat/io/graph_json/writer.hpp"
#include "graphpat/io/onnx/conversions.hpp"
#include "graphpat/io/onnx/type_text.hpp"
#include "graphpat/onnx/dialect.hpp"

namespace graphpat::detail {

template <>
struct GraphJsonDialect<onnx::Dialect> {
  static constexpr std::string_view kName = onnx::Dialect::kName;
  static constexpr bool kNameRequired = true;
  static constexpr bool kCarriesSpans = true;
  static constexpr bool kCanonicalAttrs = false;

  /// What the ONNX reader keys a node's attributes by: the op's name, or the model-local
  /// function's the node calls.
  static std::string_view default_attrs_key(const onnx::Graph& graph, NodeId callee) {
    const Context& context = graph.context();
    if (graph.kind(callee) == NodeKind::kOp) return context.op_name(graph.op(callee));
    if (graph.kind(callee) == NodeKind::kGlobalVar) return graph.name(callee);
    return kUnknownAttrsKey;
  }

  /// By the op's schema: INT and INTS fields hold int64, FLOAT and FLOATS float32, so their
  /// numbers are written plain (`"kernel_shape": [3, 3]`, `"alpha": 0.2`).
  static PlainNumbers plain_numbers(const onnx::Graph& graph, NodeId callee,
                                    std::string_view field) {
    if (graph.kind(callee) != NodeKind::kOp) return PlainNumbers::kDefault;
    const Context& context = graph.context();
    const AttrSchema* schema = context.ops.schema(context.ops.info(graph.op(callee)));
    if (schema == nullptr) return PlainNumbers::kDefault;
    for (const AttrSchemaField& declared : schema->fields) {
      if (context.strings.view(declared.name) != field) continue;
      std::string_view type = context.strings.view(declared.cpp_type);
      if (type == "INT" || type == "INTS") return PlainNumbers::kInt64;
      if (type == "FLOAT" || type == "FLOATS") return PlainNumbers::kFloat32;
      return PlainNumbers::kDefault;
    }
    return PlainNumbers::kDefault;
  }

  static std::optional<std::string> type_text(const Context& context, TypeId type) {
    return onnx::detail::type_text(context, type);
  }

  static absl::StatusOr<TypeId> parse_type(const std::shared_ptr<Context>& context,
                                           std::string_view text, std::uint32_t max_depth,
                                           const JsonPath& path) {
    absl::StatusOr<TypeId> type = onnx::detail::parse_type_text(*context, text, max_depth);
    if (type.ok()) return type;
    if (absl::IsResourceExhausted(type.status())) {
      return graph_json_error("too_deep", path, too_deep_problem(max_depth));
    }
    return graph_json_error(
        "bad_type", path,
        fmt::format("cannot read the type '{}': {}", text, std::string(type.status().message())));
  }

  static std::optional<std::string> dtype_problem(std::string_view dtype) {
    if (onnx::detail::data_type_of(dtype) != 0) return std::nullopt;
    return fmt::format("'{}' is not an ONNX element type", dtype);
  }

  static absl::StatusOr<std::uint64_t> element_bytes(std::string_view dtype) {
    std::uint64_t bytes = onnx::detail::element_bytes(onnx::detail::data_type_of(dtype));
    if (bytes == 0) {
      return absl::InvalidArgumentError(
          fmt::format("a constant of dtype {} has no bytes in this format", dtype));
    }
    return bytes;
  }
};

}  // namespace graphpat::detail

namespace graphpat::onnx {

/// Reads a graph JSON file of the ONNX dialect into a module (limits as relay's).
inline absl::StatusOr<Module> parse_graph_json(std::string_view json,
                                               const GraphJsonParseOptions& options = {}) {
  return graphpat::detail::GraphJsonReader<Dialect>(options).read(json);
}

/// Writes `module` as graph JSON, refusing (graph_json.unsupported, at the JSON path) what
/// would not read back structurally equal, types and spans included.
inline absl::StatusOr<std::string> print_graph_json(const Module& module) {
  return graphpat::detail::GraphJsonWriter<Dialect>(module).write();
}

}  // namespace graphpat::onnx
