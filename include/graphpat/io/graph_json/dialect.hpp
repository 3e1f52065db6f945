// What graph JSON spells differently per dialect (docs/graph-json.md, "Dialects"): the file's
// "dialect" field, type text, the dtypes of constants and their byte widths, and how a call's
// attributes are read. The reader and writer are templates over a dialect and ask its
// GraphJsonDialect specialization; Relay's is here, ONNX's in io/onnx/graph_json.hpp.
//
//   using Spelling = graphpat::detail::GraphJsonDialect<graphpat::relay::Dialect>;
//   absl::StatusOr<TypeId> type = Spelling::parse_type(context, "Tensor[(1, 3), float32]", 256,
//                                                      JsonPath() / "type");
//
// A specialization provides:
// - kName, the "dialect" field's value, and kNameRequired: whether a file must carry it (Relay
//   files need not: the format began with Relay alone);
// - kCarriesSpans: whether nodes' spans are written (ONNX keeps node names in them; Relay's
//   are places in a text, not carried); the reader reads a "span" in any dialect;
// - kCanonicalAttrs: whether a call of an op with an attribute schema has its attributes
//   completed with the schema's defaults (Relay's readers do; an ONNX node has the attributes
//   its file gives, and no others);
// - default_attrs_key(graph, callee): the type key of a call's attributes when "attrs_type" is
//   not written (and canonical attributes do not apply); plain_numbers(graph, callee, field):
//   what a plain JSON number in that field of the call's attributes is (attr_values.hpp);
// - type_text(context, type) (nullopt: no text) and parse_type(context, text, max_depth, path),
//   whose errors are graph_json.bad_type and graph_json.too_deep at `path`;
// - dtype_problem(dtype): why a constant's dtype is refused, if it is; element_bytes(dtype), or
//   the problem of checking bytes of that dtype.
#pragma once

#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "graphpat/io/graph_json/attr_values.hpp"
#include "graphpat/io/relay_text/parser.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/tensor.hpp"
#include "graphpat/ir/validation.hpp"
#include "graphpat/relay/dialect.hpp"
#include "graphpat/relay/text/attributes.hpp"

namespace graphpat::detail {

template <class Dialect>
struct GraphJsonDialect;

template <>
struct GraphJsonDialect<relay::Dialect> {
  static constexpr std::string_view kName = relay::Dialect::kName;
  static constexpr bool kNameRequired = false;
  static constexpr bool kCarriesSpans = false;
  static constexpr bool kCanonicalAttrs = true;

  static std::string_view default_attrs_key(const relay::Graph&, NodeId) {
    return kUnknownAttrsKey;
  }

  /// Relay's plain numbers are the format's defaults; its schemas convert them (canonical).
  static PlainNumbers plain_numbers(const relay::Graph&, NodeId, std::string_view) {
    return PlainNumbers::kDefault;
  }

  static std::optional<std::string> type_text(const Context& context, TypeId type) {
    return to_string(context, type);
  }

  /// Relay type text, read by the Relay text parser.
  static absl::StatusOr<TypeId> parse_type(const std::shared_ptr<Context>& context,
                                           std::string_view text, std::uint32_t max_depth,
                                           const JsonPath& path) {
    relay::TextParseOptions options;
    options.limits.max_depth = max_depth;
    RelayTextParser parser(text, options, context);
    absl::StatusOr<TypeId> type = parser.parse_type_text();
    if (type.ok()) return type;
    if (error_id(type.status()) == "graphpat.relay_text.too_deep") {
      return graph_json_error("too_deep", path, too_deep_problem(max_depth));
    }
    return graph_json_error(
        "bad_type", path,
        fmt::format("cannot read the type '{}': {}", text, error_problem(type.status())));
  }

  /// "" is the unknown dtype of a constant known by neither bytes nor type (as written).
  static std::optional<std::string> dtype_problem(std::string_view dtype) {
    return dtype.empty() ? std::nullopt : graphpat::dtype_problem(dtype);
  }

  static absl::StatusOr<std::uint64_t> element_bytes(std::string_view dtype) {
    std::optional<DataType> element = parse_dtype(dtype);
    if (!element) {
      return absl::InvalidArgumentError(
          fmt::format("unknown dtype '{}': the bytes cannot be checked", dtype));
    }
    return element->element_bytes();
  }
};

}  // namespace graphpat::detail
