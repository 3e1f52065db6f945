// The expression held by an is_expr pattern, and how a matcher compares a graph node with it.
//
// is_expr keeps a compact copy of the expression (only the nodes it reaches), so the pattern
// does not depend on the graph it was taken from staying alive:
//
//   graphpat::relay::Module zero = *graphpat::relay::parse_expression("0f");  // or any graph
//   graphpat::Pattern p = graphpat::dsl::is_expr(zero.module.graph, zero.root, "zero_float");
//
// Comparison follows Relay's StructuralEqual: constants by dtype, shape and value, ops by name,
// sharing counts. Free variables: against the graph the expression was taken from, a Var is
// only itself (identity, as in Relay); against another graph variables pair up by position.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "graphpat/analysis/compact.hpp"
#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/pattern/pattern_graph.hpp"

namespace graphpat::detail {

template <Dialect D>
struct ExprHolder final : ExprHolderBase {
  Graph<D> graph;
  NodeId root;
  const Graph<D>* origin = nullptr;  // compared by address only, never dereferenced
  NodeId origin_node;

  ExprHolder(const Graph<D>& source, NodeId node)
      : graph(source.shared_context()), origin(&source), origin_node(node) {
    std::vector<NodeId> roots{node};
    Compacted<D> copy = compact(source, roots);
    graph = std::move(copy.graph);
    root = copy.map(node);
  }

  /// Whether `node` of `target` equals the held expression.
  [[nodiscard]] bool equals(const Graph<D>& target, NodeId node) const {
    if (&target == origin) {
      if (node == origin_node) return true;
      if (graph.kind(root) == NodeKind::kVar) return false;
    }
    return structural_equal(graph, root, target, node);
  }
};

}  // namespace graphpat::detail
