// verify(): re-derives a graph's invariants from scratch, for tests and for checking what an
// importer or a pass produced. It checks that every operand precedes its user (so the id order
// is topological), that each kind has the operands and payload it must have, that every id
// points into its table, and that the hash-consing table is consistent: each entry is a
// non-fresh node, and every non-fresh node is the entry for its own key.
//
//   absl::Status status = graphpat::verify(graph);
//   // e.g. "[graphpat.verify.operand_order] %7: operand 0 is %9, which is not created before it"
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <string>

#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/graph.hpp"
#include "graphpat/ir/module.hpp"

namespace graphpat {

namespace detail {

inline absl::Status verify_error(std::string_view what, NodeId node, std::string_view problem) {
  return make_error(absl::StatusCode::kInternal, fmt::format("verify.{}", what),
                    fmt::format("{}: {}", node, problem));
}

template <Dialect D>
absl::Status verify_node(const Graph<D>& graph, NodeId id) {
  const Context& context = graph.context();
  const Node& node = graph.node(id);
  auto operands = graph.operands(id);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].valid() || operands[i].index() >= id.index()) {
      return verify_error(
          "operand_order", id,
          fmt::format("operand {} is {}, which is not created before it", i, operands[i]));
    }
  }
  auto expect_operands = [&](bool ok, std::string_view rule) {
    return ok ? absl::OkStatus()
              : verify_error("operand_count", id,
                             fmt::format("{} node must have {}, it has {} operands",
                                         node_kind_name(node.kind), rule, operands.size()));
  };
  auto payload = [&](int slot) { return node.payload[static_cast<std::size_t>(slot)]; };
  auto check_type = [&](std::uint32_t raw, std::string_view what) {
    TypeId type(raw);
    return !type.valid() || context.types.contains(type)
               ? absl::OkStatus()
               : verify_error("dangling_id", id, fmt::format("{} is not a type", what));
  };
  auto check_attrs = [&](std::uint32_t raw) {
    AttrValueId attrs(raw);
    if (!attrs.valid()) return absl::OkStatus();
    if (!context.attrs.contains(attrs))
      return verify_error("dangling_id", id, "attrs are not a value");
    return context.attrs.kind(attrs) == AttrKind::kObject
               ? absl::OkStatus()
               : verify_error("attrs_kind", id, "attrs must be an object value");
  };
  if (absl::Status status = check_type(node.type.value, "its type"); !status.ok()) return status;
  if (node.span.valid() && !context.spans.contains(node.span)) {
    return verify_error("dangling_id", id, "its span does not exist");
  }
  if (node.kind == NodeKind::kVar && (node.flags & kNodeFresh) == 0) {
    return verify_error("shared_var", id, "a Var must be fresh");
  }
  switch (node.kind) {
    case NodeKind::kVar:
      if (!context.strings.contains(StringId(payload(0)))) {
        return verify_error("dangling_id", id, "its name is not a string");
      }
      if (auto s = expect_operands(operands.empty(), "no operands"); !s.ok()) return s;
      return check_type(payload(1), "its annotation");
    case NodeKind::kGlobalVar:
      if (!context.strings.contains(StringId(payload(0)))) {
        return verify_error("dangling_id", id, "its name is not a string");
      }
      return expect_operands(operands.empty(), "no operands");
    case NodeKind::kConstant:
      if (!context.tensors.contains(TensorId(payload(0)))) {
        return verify_error("dangling_id", id, "its tensor does not exist");
      }
      return expect_operands(operands.empty(), "no operands");
    case NodeKind::kOp:
      if (!context.ops.contains(OpId(payload(0)))) {
        return verify_error("dangling_id", id, "its op is not registered");
      }
      return expect_operands(operands.empty(), "no operands");
    case NodeKind::kCall:
      if (auto s = expect_operands(!operands.empty(), "a callee"); !s.ok()) return s;
      if (auto s = check_attrs(payload(0)); !s.ok()) return s;
      return check_type(payload(1), "its type args");
    case NodeKind::kTuple:
      return absl::OkStatus();
    case NodeKind::kTupleGetItem:
      return expect_operands(operands.size() == 1, "one operand");
    case NodeKind::kFunction:
      if (auto s = expect_operands(!operands.empty(), "a body"); !s.ok()) return s;
      for (NodeId param : graph.params(id)) {
        if (graph.kind(param) != NodeKind::kVar) {
          return verify_error("param_kind", id, fmt::format("param {} is not a Var", param));
        }
      }
      if (auto s = check_attrs(payload(0)); !s.ok()) return s;
      if (auto s = check_type(payload(1), "its result type"); !s.ok()) return s;
      return check_type(payload(2), "its type params");
    case NodeKind::kLet:
      if (auto s = expect_operands(operands.size() == 3, "var, value and body"); !s.ok()) return s;
      return graph.kind(operands[0]) == NodeKind::kVar
                 ? absl::OkStatus()
                 : verify_error("let_var_kind", id, "its bound variable is not a Var");
    case NodeKind::kIf:
      return expect_operands(operands.size() == 3, "condition, then and else");
  }
  return absl::OkStatus();
}

}  // namespace detail

/// Checks every invariant of `graph`; the first violation is returned as an error.
template <Dialect D>
absl::Status verify(const Graph<D>& graph) {
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (absl::Status status = detail::verify_node(graph, NodeId(i)); !status.ok()) return status;
  }
  std::size_t shared_nodes = 0;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (graph.is_fresh(id)) continue;
    ++shared_nodes;
    NodeId representative = graph.find_existing(graph.key(id));
    if (representative != id) {
      return detail::verify_error(
          "memo", id,
          representative.valid()
              ? fmt::format("it duplicates {} but was not created fresh", representative)
              : std::string("it is missing from the hash-consing table"));
    }
  }
  if (shared_nodes != graph.memo().size()) {
    return make_error(absl::StatusCode::kInternal, "verify.memo",
                      fmt::format("the hash-consing table holds {} nodes, the graph {} non-fresh",
                                  graph.memo().size(), shared_nodes));
  }
  return absl::OkStatus();
}

/// Checks the module's graph and that every function root is a Function node of it.
template <Dialect D>
absl::Status verify(const Module<D>& module) {
  if (absl::Status status = verify(module.graph); !status.ok()) return status;
  for (const GlobalFunction& function : module.functions()) {
    if (!module.graph.contains(function.function) ||
        module.graph.kind(function.function) != NodeKind::kFunction) {
      return detail::verify_error("global_function", function.function,
                                  fmt::format("@{} is not a Function node", module.name(function)));
    }
  }
  return absl::OkStatus();
}

}  // namespace graphpat
