// Test support: inline_function_calls(module) replaces every call of a function literal that
// partition made (one carrying PartitionedFromPattern) by the function's body with its parameters
// replaced by the call's arguments; other functions are kept. It undoes partition, so
// partition-then-inline gives back partition's input, except that an interior node the report
// lists as computed twice (`report.duplicated`) is there twice. inline_module_functions(module)
// does the same for calls of the module's functions (what the ONNX reader makes of a
// FunctionProto's calls) and keeps main alone.
//
//   auto partitioned = graphpat::partition(pattern, module, {.relay_compat = true});
//   auto inlined = graphpat::testing::inline_function_calls(partitioned.module);
//   CHECK(graphpat::structural_equal(inlined, module));
#pragma once

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <graphpat/analysis/compact.hpp>
#include <graphpat/ir/builder.hpp>
#include <graphpat/ir/module.hpp>
#include <graphpat/transform/partition/grouper.hpp>
#include <vector>

namespace graphpat::testing {

namespace detail {

/// The function a call of `callee` runs, when the inliner replaces such calls.
template <Dialect D>
NodeId inlined_function(const Module<D>& module, NodeId callee, bool module_functions) {
  const Graph<D>& graph = module.graph;
  if (!module_functions) {
    return graphpat::detail::is_partitioned_function(graph, callee) ? callee : NodeId();
  }
  if (graph.kind(callee) != NodeKind::kGlobalVar) return NodeId();
  return module.find(graph.name(callee)).value_or(NodeId());
}

template <Dialect D>
Module<D> inline_calls(const Module<D>& module, bool module_functions) {
  const Graph<D>& graph = module.graph;
  Graph<D> out(graph.shared_context());
  Builder<D> builder(out);
  std::vector<NodeId> map(graph.size());
  // Inside the body being inlined: the copy of each node that reads a parameter.
  std::vector<NodeId> substituted(graph.size());
  std::vector<NodeId> operands;
  std::vector<NodeId> body;
  std::vector<NodeId> stack;
  absl::flat_hash_set<NodeId> seen;
  auto value = [&](NodeId id) {
    return substituted[id.index()].valid() ? substituted[id.index()] : map[id.index()];
  };
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    auto node_operands = graph.operands(id);
    NodeId callee = graph.kind(id) == NodeKind::kCall
                        ? inlined_function(module, node_operands[0], module_functions)
                        : NodeId();
    if (!callee.valid()) {
      operands.clear();
      for (NodeId operand : node_operands) operands.push_back(map[operand.index()]);
      map[i] = builder.copy(graph, id, operands);
      continue;
    }
    auto function = graph.operands(callee);  // the parameters, then the body
    NodeId function_body = function.back();
    for (std::size_t k = 0; k + 1 < function.size(); ++k) {
      substituted[function[k].index()] = map[node_operands[1 + k].index()];
    }
    // The body's nodes in id (topological) order; each is copied iff it reads a parameter.
    body.clear();
    seen.clear();
    stack.assign(1, function_body);
    seen.insert(function_body);
    while (!stack.empty()) {
      NodeId node = stack.back();
      stack.pop_back();
      body.push_back(node);
      for (NodeId operand : graph.operands(node)) {
        if (seen.insert(operand).second) stack.push_back(operand);
      }
    }
    std::sort(body.begin(), body.end());
    for (NodeId node : body) {
      if (substituted[node.index()].valid()) continue;  // a parameter
      operands.clear();
      bool changed = false;
      for (NodeId operand : graph.operands(node)) {
        operands.push_back(value(operand));
        changed |= operands.back() != map[operand.index()];
      }
      if (changed) substituted[node.index()] = builder.copy(graph, node, operands);
    }
    map[i] = value(function_body);
    for (NodeId node : body) substituted[node.index()] = NodeId();
    for (NodeId param : function.first(function.size() - 1)) substituted[param.index()] = NodeId();
  }
  Module<D> inlined =
      module.remapped(std::move(out), [&](NodeId old_id) { return map[old_id.index()]; });
  if (!module_functions) return compact(inlined);
  Module<D> main_only(std::move(inlined.graph));
  main_only.add_function("main", map[module.find("main")->index()]);
  main_only.type_definitions = module.type_definitions;
  main_only.attrs = module.attrs;
  return compact(main_only);
}

}  // namespace detail

template <Dialect D>
Module<D> inline_function_calls(const Module<D>& module) {
  return detail::inline_calls(module, /*module_functions=*/false);
}

template <Dialect D>
Module<D> inline_module_functions(const Module<D>& module) {
  return detail::inline_calls(module, /*module_functions=*/true);
}

}  // namespace graphpat::testing
