// What eliminate_common_subexpr (transform/cse.hpp) takes and gives, and its declarations: all
// a caller needs, without the eliminator. The entry header cse.hpp includes only this when the
// entry functions come from graphpat::compiled (detail/linkage.hpp).
//
//   auto result = graphpat::eliminate_common_subexpr(module, {.relay_compat = true});
//   fmt::print("{} nodes merged\n", result.report.merged);
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graphpat/ir/module.hpp"

namespace graphpat {

template <Dialect D>
struct CseOptions {
  /// Reproduce TVM's EliminateCommonSubexpr exactly (transform/cse.hpp says how).
  bool relay_compat = false;
  /// TVM's fskip: a node for which it returns true is neither merged nor merged into.
  std::function<bool(const Graph<D>&, NodeId)> skip = {};
};

/// What CSE merged.
struct CseReport {
  std::uint32_t merged = 0;  // nodes replaced by an equal earlier node
  /// Merged nodes by kind, and by op for calls: "Call nn.relu", "TupleGetItem", "Constant".
  std::map<std::string, std::uint32_t> merged_by;
};

template <Dialect D>
struct CseResult {
  Module<D> module;
  CseReport report;
  /// Each input node's id in `module.graph` (an equal earlier node's when merged into it);
  /// invalid for nodes no function reaches.
  std::vector<NodeId> old_to_new;
};

template <Dialect D>
struct CseFunctionResult {
  Graph<D> graph;
  NodeId root;  // the input's root, in `graph`
  CseReport report;
  std::vector<NodeId> old_to_new;  // as CseResult's; invalid for nodes `root` does not reach
};

/// The expression at `root` (a function, usually) with its common subexpressions merged, in a
/// new graph holding only what `root` reaches.
template <Dialect D>
CseFunctionResult<D> eliminate_common_subexpr(const Graph<D>& graph, NodeId root,
                                              const CseOptions<D>& options = {});

/// The module with common subexpressions of all its functions merged.
template <Dialect D>
CseResult<D> eliminate_common_subexpr(const Module<D>& module, const CseOptions<D>& options = {});

}  // namespace graphpat
