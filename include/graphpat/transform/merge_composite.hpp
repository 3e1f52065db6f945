// Pattern tables: Relay's MergeComposite (docs/semantics.md §5). Each table entry is a
// named pattern with an optional check; entries are partitioned one after the other, in table
// order (earlier entries win: later patterns cannot look inside the functions already made),
// and every function made carries `Composite=<name>` and `PartitionedFromPattern` (Relay's names:
// the dialect's composite_key and partitioned_from_key, ir/conventions.hpp).
//
//   std::vector<graphpat::CompositePattern<graphpat::relay::Dialect>> table = {
//       {.name = "conv_bias_relu", .pattern = conv_bias_relu},
//       {.name = "add_relu", .pattern = add_relu, .check = batch_is_one}};
//   auto result = graphpat::merge_composite(table, module, {.relay_compat = true});
//   fmt::print("{} composites\n", result.report.accepted);
//
// Functions carrying one of the dialect's opaque_function_keys (Relay's `Compiler`, `Extern`,
// `SkipOptimization`) are left alone, as in TVM. The options are partition's (partition.hpp):
// merging duplicated nodes first happens once, before the first entry. The report's ids are of
// `module`, whichever entry's graph they were found on, and each line's `entry` is its entry's
// index in `table` (report.hpp):
//
//   for (const graphpat::RejectedGroup& r : result.report.rejected) {
//     fmt::print("{}\n", graphpat::describe(r, module.graph, {}, table[r.entry].name));
//   }
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graphpat/transform/partition.hpp"

namespace graphpat {

namespace detail {

/// Whether a module function is left alone (Relay's optimizable-function filter): it carries
/// one of the dialect's opaque_function_keys.
template <Dialect D>
bool skipped_by_merge_composite(const Graph<D>& graph, NodeId function) {
  if (graph.kind(function) != NodeKind::kFunction || !graph.attrs(function).valid()) return false;
  const AttrTable& attrs = graph.context().attrs;
  if (attrs.kind(graph.attrs(function)) != AttrKind::kObject) return false;
  for (std::string_view key : dialect_conventions<D>().opaque_function_keys) {
    if (attrs.find_field(graph.attrs(function), key).has_value()) return true;
  }
  return false;
}

}  // namespace detail

template <Dialect D>
PartitionResult<D> merge_composite(const std::vector<CompositePattern<D>>& table,
                                   const Module<D>& module, const MergeCompositeOptions& options) {
  std::vector<const CompositePattern<D>*> order;
  for (const CompositePattern<D>& entry : table) order.push_back(&entry);
  if (options.by_benefit) {
    std::stable_sort(order.begin(), order.end(),
                     [](const auto* a, const auto* b) { return a->benefit > b->benefit; });
  }
  std::optional<CseResult<D>> merged = detail::merged_input(options, module);
  // Per node of result.module, the node of `module` it stands for (RejectedGroup's rule).
  std::vector<NodeId> origins =
      merged ? detail::first_origins(merged->old_to_new, merged->module.graph.size())
             : detail::identity_origins(module.graph.size());
  PartitionResult<D> result{merged ? std::move(merged->module) : module, {}};
  if (merged) result.report.cse = std::move(merged->report);
  for (const CompositePattern<D>* entry : order) {
    const std::size_t rejected_before = result.report.rejected.size();
    const std::size_t duplicated_before = result.report.duplicated.size();
    std::vector<NodeId> roots = result.module.roots();
    std::vector<bool> skipped(roots.size());
    for (std::size_t k = 0; k < roots.size(); ++k) {
      skipped[k] = detail::skipped_by_merge_composite(result.module.graph, roots[k]);
    }
    PartitionOptions<D> partition_options{
        .attrs = {{std::string(dialect_conventions<D>().composite_key), entry->name}},
        .check = entry->check,
        .match = detail::match_rules(options),
        .refuse_stateful_copies = detail::refuses_stateful_copies(options)};
    std::vector<NodeId> step_origins;
    std::optional<Module<D>> partitioned = detail::partition_module(
        entry->pattern, result.module, partition_options, result.report, &skipped, &step_origins);
    if (partitioned) result.module = std::move(*partitioned);
    detail::restate_lines(result.report, rejected_before, duplicated_before, origins,
                          static_cast<std::uint32_t>(entry - table.data()));
    origins = detail::compose_origins(origins, std::move(step_origins));
  }
  return result;
}

}  // namespace graphpat
