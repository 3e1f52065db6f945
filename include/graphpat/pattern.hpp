// Entry point for the pattern language: the DSL, the text syntax, the matcher, explanations.
//
//   #include <graphpat/pattern.hpp>
//   using namespace graphpat::dsl;
//   graphpat::Pattern bn0 = is_tuple_get_item(is_op("nn.batch_norm")(any_args), 0);
//   auto same = graphpat::parse_pattern("is_tuple_get_item(is_op('nn.batch_norm')(None), 0)");
//   for (const graphpat::Match& m : graphpat::find_matches(bn0, graph, main)) { ... }
//   fmt::print("{}\n", graphpat::explain(bn0, graph, node));  // why not, in words
//   fmt::print("{}\n", graphpat::describe(bn0));              // back to text (Relay's sugar)
//   graphpat::PatternContext ctx;                              // several patterns at once
//   ctx.fork_to(is_op("nn.relu")(wildcard()), {conv1x1, conv3x3});
//   auto matches = graphpat::find_graph_matches(ctx, graph, main);
#pragma once

#include "graphpat/detail/linkage.hpp"
#include "graphpat/pattern/describe.hpp"
#include "graphpat/pattern/dsl.hpp"
#include "graphpat/pattern/graph_pattern.hpp"
#include "graphpat/pattern/match.hpp"
#include "graphpat/pattern/pattern_graph.hpp"
#include "graphpat/pattern/text.hpp"
#include "graphpat/relay/pattern_text.hpp"
#if GRAPHPAT_ENTRY_DEFINITIONS
#include "graphpat/pattern/explain.hpp"
#include "graphpat/pattern/graph_matcher.hpp"
#include "graphpat/pattern/matcher.hpp"
#endif
// With graphpat::compiled, match.hpp's declarations only: a dialect of the user's own, or a
// Matcher or GraphMatcher kept across calls, includes the three headers above.

#if GRAPHPAT_INSTANTIATIONS
// With graphpat::compiled (detail/linkage.hpp), the library holds these for the Relay dialect.
#include "graphpat/relay/dialect.hpp"

namespace graphpat {
GRAPHPAT_INSTANTIATION Match match(const Pattern&, const relay::Graph&, NodeId, MatchOptions);
GRAPHPAT_INSTANTIATION std::vector<Match> find_matches(const Pattern&, const relay::Graph&, NodeId,
                                                       MatchOptions);
GRAPHPAT_INSTANTIATION std::string explain(const Pattern&, const relay::Graph&, NodeId,
                                           MatchOptions, const NodeNames&);
GRAPHPAT_INSTANTIATION absl::StatusOr<std::vector<Match>> find_graph_matches(const PatternContext&,
                                                                             const relay::Graph&,
                                                                             NodeId,
                                                                             GraphMatchOptions);
GRAPHPAT_INSTANTIATION absl::StatusOr<std::optional<Match>> match_graph(const PatternContext&,
                                                                        const relay::Graph&, NodeId,
                                                                        GraphMatchOptions);
}  // namespace graphpat
#endif  // GRAPHPAT_INSTANTIATIONS
