// The options of parse_pattern (pattern/text.hpp), apart from its evaluator.
//
//   graphpat::PatternParseOptions options{.names = {{"zero", graphpat::dsl::is_expr(graph, zero, "zero")}}};
//   auto pattern = graphpat::parse_pattern("is_op('add')(wildcard(), is_expr(zero))", options);
#pragma once

#include <absl/container/flat_hash_map.h>

#include <string>

#include "graphpat/ir/limits.hpp"
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

/// parse_pattern's defaults: 256 levels of nesting and 1,000,000 syntax nodes.
inline constexpr InputLimits kPatternDefaultLimits =
    InputLimits{.max_depth = 256, .max_nodes = 1'000'000}.or_defaults(kDefaultLimits);

}  // namespace graphpat
