// Which nodes a set of roots depends on. One backward scan over the ids (operands have smaller
// ids than their users), no recursion, linear in the graph.
//
//   std::vector<bool> live = graphpat::reachable_from(graph, module.roots());
//   if (!live[node.index()]) { /* dead: compaction drops it */ }
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "graphpat/ir/graph.hpp"

namespace graphpat {

namespace detail {

/// Sets `live[i]` for every node i reachable from `roots` through operands, in one backward scan
/// from the highest root; `live` is a mask of the caller's choice (bits, bytes) with an entry
/// for every id up to that root, all false.
template <Dialect D, class Mask>
void mark_reachable(const Graph<D>& graph, std::span<const NodeId> roots, Mask& live) {
  std::uint32_t highest = 0;
  for (NodeId root : roots) {
    live[root.index()] = true;
    highest = std::max(highest, root.index() + 1);
  }
  for (std::uint32_t i = highest; i-- > 0;) {
    if (!live[i]) continue;
    for (NodeId operand : graph.operands(NodeId(i))) live[operand.index()] = true;
  }
}

}  // namespace detail

/// A mask over node ids: true for every node reachable from `roots` through operands.
template <Dialect D>
std::vector<bool> reachable_from(const Graph<D>& graph, std::span<const NodeId> roots) {
  std::vector<bool> live(graph.size(), false);
  detail::mark_reachable(graph, roots, live);
  return live;
}

}  // namespace graphpat
