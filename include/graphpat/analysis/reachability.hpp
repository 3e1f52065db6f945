// Which nodes a set of roots depends on. One backward scan over the ids (operands have smaller
// ids than their users), no recursion, linear in the graph.
//
//   std::vector<bool> live = graphpat::reachable_from(graph, module.roots());
//   if (!live[node.index()]) { /* dead: compaction drops it */ }
#pragma once

#include <span>
#include <vector>

#include "graphpat/ir/graph.hpp"

namespace graphpat {

/// A mask over node ids: true for every node reachable from `roots` through operands.
template <Dialect D>
std::vector<bool> reachable_from(const Graph<D>& graph, std::span<const NodeId> roots) {
  std::vector<bool> live(graph.size(), false);
  std::uint32_t highest = 0;
  for (NodeId root : roots) {
    live[root.index()] = true;
    highest = std::max(highest, root.index() + 1);
  }
  for (std::uint32_t i = highest; i-- > 0;) {
    if (!live[i]) continue;
    for (NodeId operand : graph.operands(NodeId(i))) live[operand.index()] = true;
  }
  return live;
}

}  // namespace graphpat
