// explain(pattern, graph, node): why a pattern does not match at a node, in words, the way
// XLA's pattern matcher explains itself: the first failure met, then the path from it up to
// the node matched, innermost first.
//
//   graphpat::explain(is_op("nn.bias_add")(is_op("nn.conv2d")(wildcard(), wildcard()), wildcard()),
//                     graph, node);
//   // "expected op nn.conv2d, got nn.dense; in operand 0 of %12 = nn.bias_add(...)"
//
// "matched" when the pattern matches. Nodes are named by their graph ids (`%12`), or as the
// caller's NodeNames (ir/format.hpp) number them, vars by name.
// The words are collected only when explain() is called: match() and find_matches() do not
// build any of them.
#pragma once

#include <string>

#include "graphpat/pattern/matcher.hpp"

namespace graphpat {

template <Dialect D>
std::string explain(const Pattern& pattern, const Graph<D>& graph, NodeId node,
                    MatchOptions options, const NodeNames& names) {
  return Matcher<D>(pattern, graph, options).explain(node, names);
}

}  // namespace graphpat
