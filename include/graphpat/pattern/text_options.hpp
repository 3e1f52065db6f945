// The options of parse_pattern and parse_graph_pattern (pattern/text.hpp), and what the latter
// returns, apart from their evaluator.
//
//   graphpat::PatternParseOptions options{.names = {{"zero", graphpat::dsl::is_expr(graph, zero, "zero")}}};
//   auto pattern = graphpat::parse_pattern("is_op('add')(wildcard(), is_expr(zero))", options);
#pragma once

#include <absl/container/flat_hash_map.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graphpat/ir/limits.hpp"
#include "graphpat/pattern/graph_pattern.hpp"
#include "graphpat/pattern/pattern_graph.hpp"

namespace graphpat {

/// Options of parse_pattern.
struct PatternParseOptions {
  /// Names defined before the text runs, e.g. {"zero", dsl::is_expr(graph, node, "zero")} for
  /// `is_expr(zero)`. is_expr of a name gives a new node holding the same expression.
  absl::flat_hash_map<std::string, Pattern> names{};
  /// max_depth bounds the syntactic nesting (and lambdas applied inside lambdas; a flat chain
  /// `a | b | c` or `p.has_attr(..).has_type(..)` is not nesting), max_nodes the syntax tree
  /// and, apart, the nodes evaluated (a lambda's body once per application): a pattern text is
  /// small; a huge one is a mistake or an attack. Each left 0 is kPatternDefaultLimits'.
  InputLimits limits{};
};

/// A graph pattern read from text: its context, and the patterns the text named
/// (`n0 = is_op('nn.relu')(None)`), in the order first named, each with its last value.
struct ParsedGraphPattern {
  PatternContext context;
  std::vector<std::pair<std::string, Pattern>> names;

  /// The pattern the text named `name`, if any.
  [[nodiscard]] std::optional<Pattern> find(std::string_view name) const {
    for (const auto& [named, pattern] : names) {
      if (named == name) return pattern;
    }
    return std::nullopt;
  }
};

/// parse_pattern's defaults: 256 levels of nesting and 1,000,000 syntax nodes.
inline constexpr InputLimits kPatternDefaultLimits =
    InputLimits{.max_depth = 256, .max_nodes = 1'000'000}.or_defaults(kDefaultLimits);

}  // namespace graphpat
