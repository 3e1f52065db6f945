// Compaction: a new graph holding only the nodes reachable from the roots, renumbered densely
// in the same relative (topological) order, sharing the context. Dead nodes are dropped this
// way, never by mutation in place.
//
//   graphpat::Compacted<graphpat::relay::Dialect> result = graphpat::compact(graph, roots);
//   graphpat::NodeId new_root = result.map(old_root);
//   graphpat::relay::Module smaller = graphpat::compact(module);
#pragma once

#include <span>
#include <vector>

#include "graphpat/analysis/reachability.hpp"
#include "graphpat/ir/builder.hpp"
#include "graphpat/ir/module.hpp"

namespace graphpat {

template <Dialect D>
struct Compacted {
  Graph<D> graph;
  std::vector<NodeId> old_to_new;  // invalid for a dropped node

  [[nodiscard]] NodeId map(NodeId old_id) const { return old_to_new[old_id.index()]; }
};

/// The nodes of `graph` reachable from `roots`, copied into a new graph.
template <Dialect D>
Compacted<D> compact(const Graph<D>& graph, std::span<const NodeId> roots) {
  std::vector<bool> live = reachable_from(graph, roots);
  Compacted<D> result{Graph<D>(graph.shared_context()), std::vector<NodeId>(graph.size())};
  Builder<D> builder(result.graph);
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (live[i]) result.old_to_new[i] = builder.copy_mapped(graph, NodeId(i), result.old_to_new);
  }
  return result;
}

/// The module with every node no function reaches dropped.
template <Dialect D>
Module<D> compact(const Module<D>& module) {
  std::vector<NodeId> roots = module.roots();
  Compacted<D> compacted = compact(module.graph, roots);
  return module.remapped(std::move(compacted.graph),
                         [&](NodeId old_id) { return compacted.map(old_id); });
}

}  // namespace graphpat
