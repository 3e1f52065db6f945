// How explanations name graph nodes: short, one line, with the node's name (its graph id
// `%12` unless the caller's NodeNames number it otherwise).
//
//   graphpat::detail::node_words(graph, id, {});   // "%12 = nn.bias_add(...)", "var %x", "op add"
#pragma once

#include <fmt/format.h>

#include <string>

#include "graphpat/ir/format.hpp"
#include "graphpat/ir/graph.hpp"

namespace graphpat::detail {

template <Dialect D>
std::string node_words(const Graph<D>& graph, NodeId id, const NodeNames& names) {
  switch (graph.kind(id)) {
    case NodeKind::kVar:
      return fmt::format("var %{}", graph.name(id));
    case NodeKind::kConstant:
      return fmt::format("constant {}", names(id));
    case NodeKind::kOp:
      return fmt::format("op {}", graph.context().op_name(graph.op(id)));
    case NodeKind::kGlobalVar:
      return fmt::format("@{}", graph.name(id));
    case NodeKind::kCall: {
      NodeId callee = graph.callee(id);
      if (graph.kind(callee) == NodeKind::kOp) {
        return fmt::format("{} = {}(...)", names(id), graph.context().op_name(graph.op(callee)));
      }
      return fmt::format("{} = {}(...)", names(id), names(callee));
    }
    case NodeKind::kTuple:
      return fmt::format("{} = (...)", names(id));
    case NodeKind::kTupleGetItem:
      return fmt::format("{} = {}.{}", names(id), names(graph.tuple(id)), graph.index(id));
    case NodeKind::kFunction:
      return fmt::format("{} = fn (...)", names(id));
    case NodeKind::kLet:
      return fmt::format("{} = let", names(id));
    case NodeKind::kIf:
      return fmt::format("{} = if (...)", names(id));
  }
  return names(id);
}

/// The stored type of a node; a Var without one falls back to its annotation.
template <Dialect D>
TypeId stored_type(const Graph<D>& graph, NodeId id) {
  TypeId type = graph.type(id);
  if (!type.valid() && graph.kind(id) == NodeKind::kVar) type = graph.annotation(id);
  return type;
}

}  // namespace graphpat::detail
