// What partition and merge_composite (transform/partition.hpp, transform/merge_composite.hpp,
// transform/graph_partition.hpp) take and give, and their declarations: all a caller needs,
// without the grouper and the outliner. The entry header partition.hpp includes this instead of
// them when the entry functions come from graphpat::compiled (detail/linkage.hpp).
//
//   auto result = graphpat::partition(pattern, module, {.attrs = {{"Composite", "conv_bias"}}});
//   for (const graphpat::RejectedGroup& r : result.report.rejected) {
//     fmt::print("{}\n", graphpat::describe(r, module.graph));
//   }
#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graphpat/ir/module.hpp"
#include "graphpat/pattern/graph_pattern.hpp"
#include "graphpat/pattern/match.hpp"
#include "graphpat/pattern/pattern_graph.hpp"
#include "graphpat/transform/partition/describe.hpp"
#include "graphpat/transform/partition/report.hpp"

namespace graphpat {

template <Dialect D>
struct PartitionOptions {
  /// String attributes added to every created function (`{"Composite", "conv_bias"}`), after
  /// PartitionedFromPattern.
  std::vector<std::pair<std::string, std::string>> attrs = {};
  /// Whether a group is outlined; sees the input graph and the group's original root (Relay's
  /// `check(pre)`), or with `check_sees_group_only` the created function's body. A group whose
  /// check fails keeps its nodes claimed (Relay's quirk: no overlapping group replaces it).
  std::function<bool(const Graph<D>&, NodeId)> check = {};
  /// The preset: reproduce TVM v0.14. It gives each of the three behaviours below its value
  /// when that field is left unset (TVM's matcher rules, no CSE first, stateful copies
  /// accepted); a field that is set wins over the preset, so no two fields can disagree.
  bool relay_compat = false;
  /// The matcher's rules (pattern/matcher.hpp). Unset: TVM's rules under `relay_compat`,
  /// graphpat's otherwise.
  std::optional<MatchOptions> match = {};
  /// Merge duplicated pure nodes (eliminate_common_subexpr, default mode) before grouping, so
  /// that two `%20.0` on one batch_norm are one node (apache/tvm#5928); the report's `cse` says
  /// what merged. Unset: `!relay_compat`.
  std::optional<bool> merge_duplicates_first = {};
  /// Refuse a group whose function would compute a stateful call (nn.dropout) a second time
  /// (`duplicates_stateful`: two dropouts draw two masks), which TVM accepts. Unset:
  /// `!relay_compat`.
  std::optional<bool> refuse_stateful_copies = {};
  /// tvm#9767: `check` gets the graph being built and the body of the group's function, whose
  /// free variables are the FunctionVar parameters: nothing outside the group is visible.
  bool check_sees_group_only = false;
  /// tvm#14097: an input used twice gets a parameter per use (`f(x, x)` keeps two parameters),
  /// as a BYOC codegen matching operand positions needs. Off: one parameter per input (#12901).
  bool separate_duplicate_inputs = false;
  /// Multi-output groups (TVM refuses them): an interior node used outside the group by a node
  /// the root does not post-dominate is returned too. The function's body is then a tuple of
  /// the root and those nodes in the body's post-order (the root last), and every use reads
  /// its item of the call.
  /// A group stays refused (`used_outside`) when such a use leads back into one of the group's
  /// inputs (the call would read its own result), alone or through other multi-output groups.
  bool outline_outside_uses = false;
};

template <Dialect D>
struct PartitionResult {
  Module<D> module;
  PartitionReport report;
};

template <Dialect D>
struct PartitionedExpression {
  Graph<D> graph;
  NodeId root;  // the input root, partitioned
  PartitionReport report;
};

/// One entry of a pattern table.
template <Dialect D>
struct CompositePattern {
  std::string name;
  Pattern pattern;
  std::function<bool(const Graph<D>&, NodeId)> check = {};  // sees the original root
  int benefit = 0;  // with MergeCompositeOptions::by_benefit: higher first
};

struct MergeCompositeOptions {
  /// The preset: reproduce TVM v0.14, giving each of the three fields below its value when it
  /// is left unset; a field that is set wins over the preset.
  bool relay_compat = false;
  /// The matcher's rules. Unset: TVM's under `relay_compat`, graphpat's otherwise.
  std::optional<MatchOptions> match = {};
  /// Merge duplicated pure nodes once, before the first entry (PartitionOptions). Unset:
  /// `!relay_compat`.
  std::optional<bool> merge_duplicates_first = {};
  /// Refuse a group whose function would compute a stateful call a second time
  /// (PartitionOptions). Unset: `!relay_compat`.
  std::optional<bool> refuse_stateful_copies = {};
  /// Apply entries by decreasing benefit (ties keep table order) instead of table order.
  bool by_benefit = false;
};

/// Partitions the expression at `root` of `graph` (an expression or a function). Without
/// groups the result is a copy of `graph` with the same root id (default mode: of the graph
/// duplicates merged into).
template <Dialect D>
PartitionedExpression<D> partition(const Pattern& pattern, const Graph<D>& graph, NodeId root,
                                   const PartitionOptions<D>& options = {});

/// Partitions every function of `module`.
template <Dialect D>
PartitionResult<D> partition(const Pattern& pattern, const Module<D>& module,
                             const PartitionOptions<D>& options = {});

/// Outlines every match of `context` in each function of `module` (transform/graph_partition.hpp).
/// Refuses a context that GraphMatcher::make refuses.
template <Dialect D>
absl::StatusOr<PartitionResult<D>> partition(const PatternContext& context, const Module<D>& module,
                                             PartitionOptions<D> options = {},
                                             const GraphMatchOptions& search = {});

/// Partitions `module` with every entry of `table`, as MergeComposite does.
template <Dialect D>
PartitionResult<D> merge_composite(const std::vector<CompositePattern<D>>& table,
                                   const Module<D>& module,
                                   const MergeCompositeOptions& options = {});

}  // namespace graphpat
