// The options and results of the Relay text reader and printer (io/relay_text.hpp), apart from
// their code so that the entry header declares parse_text and print_text with nothing else.
//
//   graphpat::relay::TextParseOptions options{.require_version = true};
//   auto module = graphpat::relay::parse_text(text, options);
//   auto str = graphpat::relay::print_text(*module, graphpat::relay::TextEnvelope::kStr);
#pragma once

#include "graphpat/ir/limits.hpp"
#include "graphpat/relay/dialect.hpp"

namespace graphpat::relay {

/// Limits and switches of parse_text / parse_expression.
struct TextParseOptions {
  /// max_depth bounds syntactic nesting (calls in calls, fn in fn, types, attribute values),
  /// max_nodes the nodes the parse creates (variables and lets included, refused where the
  /// first node over the limit is made), max_tensor_bytes each `#[metadata]` constant;
  /// each left 0 is kDefaultLimits'.
  InputLimits limits{};
  bool require_version = false;  // refuse a module without `#[version = "0.0.5"]`
};

/// A bare expression read by parse_expression: its graph (in a module holding any `def`s
/// that came with it) and its root.
struct ParsedExpression {
  Module module;
  NodeId root;
};

/// The three forms TVM prints (§1.1).
enum class TextEnvelope {
  kAstext,         // astext(): header, `#[metadata]` JSON when the meta table is not empty
  kAstextNoMeta,   // astext(show_meta_data=False): header, "metadata omitted" trailer
  kStr,            // str(mod) / PrettyPrint: no header, one extra LF when there is metadata
};

}  // namespace graphpat::relay
