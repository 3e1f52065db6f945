// The options of parse_graph_json (io/graph_json.hpp, io/onnx.hpp), apart from its reader.
//
//   graphpat::GraphJsonParseOptions options{.limits = {.max_nodes = 100'000}};
//   auto module = graphpat::relay::parse_graph_json(text, options);
#pragma once

#include "graphpat/ir/limits.hpp"

namespace graphpat {

/// Limits of parse_graph_json (relay:: and onnx::).
struct GraphJsonParseOptions {
  /// max_nodes bounds the nodes the file defines, max_depth the nesting of one attribute value
  /// and of one type's text, max_tensor_bytes each constant that carries its bytes. Each left
  /// 0 is kGraphJsonDefaultLimits'.
  InputLimits limits{};
};

/// parse_graph_json's defaults: 256 levels of nesting, else kDefaultLimits.
inline constexpr InputLimits kGraphJsonDefaultLimits =
    InputLimits{.max_depth = 256}.or_defaults(kDefaultLimits);

namespace relay {
using graphpat::GraphJsonParseOptions;
using graphpat::kGraphJsonDefaultLimits;
}  // namespace relay

}  // namespace graphpat
