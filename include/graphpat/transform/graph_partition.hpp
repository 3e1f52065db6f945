// Partition by a graph pattern: every match of a PatternContext (pattern/graph_pattern.hpp) is
// outlined into one function, which returns a tuple when the match has several values used
// outside it: a QKV block (three matmuls of one input) becomes one function with three outputs.
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern x = wildcard();
//   graphpat::Pattern q = is_op("nn.dense")(x, wildcard()), k = is_op("nn.dense")(x, wildcard());
//   graphpat::PatternContext qk;
//   qk.add(q).add(k);
//   auto result = graphpat::partition(qk, module, {.attrs = {{"Composite", "qk"}}});
//   result->report.accepted;   // functions made; report.outputs: the values returned beside roots
//
// A match's group is every node its context's patterns bound but the inputs (leaf bindings, by
// partition's rules, transform/partition.hpp); its root is the last of them by id. Every node of
// the group used outside it is returned (PartitionOptions::outline_outside_uses, which graph
// patterns always take): the function's body is the tuple of them in the body's visiting order,
// the context's patterns in the context's order (q, k, v), and each use reads its item of the
// call; a group with one such node returns it alone. The matches of each function
// are GraphMatcher::find_all's, taken in order; a match that holds a node of an earlier group is
// refused (`overlap`), as are one used outside in a way no call can serve (`used_outside`: an
// outside use that leads back into the group's inputs) and the other refusals of partition.
// Nodes inside a function a partition made are never grouped. The options' `attrs`, `check`,
// `check_sees_group_only`, `separate_duplicate_inputs`, `merge_duplicates_first` and
// `refuse_stateful_copies` mean what they mean for partition; the search's are `search`.
#pragma once

#include <absl/status/statusor.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "graphpat/pattern/graph_matcher.hpp"
#include "graphpat/transform/partition.hpp"

namespace graphpat {

template <Dialect D>
absl::StatusOr<PartitionResult<D>> partition(const PatternContext& context, const Module<D>& module,
                                             PartitionOptions<D> options,
                                             const GraphMatchOptions& search) {
  options.outline_outside_uses = true;
  std::optional<CseResult<D>> merged = detail::merged_input(options, module);
  const Module<D>& input = merged ? merged->module : module;
  absl::StatusOr<GraphMatcher<D>> matcher = GraphMatcher<D>::make(context, input.graph, search);
  if (!matcher.ok()) return matcher.status();
  PartitionReport report;
  if (merged) report.cse = std::move(merged->report);
  const std::vector<NodeId> roots = input.roots();
  detail::PartitionGrouper<D> grouper(
      input.graph, roots,
      {.match = search.match,
       .refuse_stateful_copies = detail::refuses_stateful_copies(options),
       .roots_are_definitions = true,
       .outline_outside_uses = true},
      nullptr);
  std::vector<detail::PartitionGroup> groups;
  std::vector<PatternId> pattern_roots;
  for (NodeId function : roots) {
    if (detail::is_partitioned_function(input.graph, function)) continue;
    for (Match& match : matcher->find_all(function)) {
      pattern_roots.clear();
      bool opaque = false;
      for (const Pattern& pattern : context.patterns()) {
        pattern_roots.push_back(match.pattern_id(pattern));
        opaque |= grouper.in_partitioned_function(match.bound(pattern));
      }
      if (opaque) continue;
      detail::PartitionGroup group = grouper.make_group(std::move(match), pattern_roots, report);
      if (group.root.valid()) groups.push_back(std::move(group));
    }
  }
  std::sort(groups.begin(), groups.end(),  // output side first, as the grouper makes them
            [](const detail::PartitionGroup& a, const detail::PartitionGroup& b) {
              return b.root < a.root;
            });
  std::vector<NodeId> new_roots;
  std::optional<Graph<D>> graph =
      groups.empty() ? std::nullopt
                     : detail::outline_groups(input.graph, roots, grouper.live(), groups, options,
                                              new_roots, report, nullptr);
  if (merged) {
    detail::restate_lines(
        report, 0, 0, detail::first_origins(merged->old_to_new, merged->module.graph.size()), 0);
  }
  std::optional<Module<D>> partitioned;
  if (graph) partitioned = input.remapped(std::move(*graph), new_roots);
  return PartitionResult<D>{
      detail::partition_output(std::move(partitioned), merged ? &merged->module : nullptr, module),
      std::move(report)};
}

}  // namespace graphpat
