// Test-only raw access to a graph's storage (graph.hpp declares detail::GraphSurgery as a
// friend): appends nodes without any check, so tests can build the corrupt graphs that
// verify() must reject.
#pragma once

#include <graphpat/ir/graph.hpp>
#include <span>

namespace graphpat::detail {

struct GraphSurgery {
  /// Appends `node` with `operands`; records it in the hash-consing table when `memoize`.
  template <Dialect D>
  static NodeId append(Graph<D>& graph, Node node, std::span<const NodeId> operands, bool memoize) {
    GraphStorage& storage = *graph.storage_;
    NodeId id(static_cast<std::uint32_t>(storage.nodes.size()));
    node.first_operand = static_cast<std::uint32_t>(storage.operands.size());
    node.operand_count = static_cast<std::uint32_t>(operands.size());
    storage.operands.insert(storage.operands.end(), operands.begin(), operands.end());
    storage.nodes.push_back(node);
    if (memoize) graph.memo_->insert(id, NodeMemo::hash_of(storage.key(id)));
    return id;
  }
};

}  // namespace graphpat::detail
