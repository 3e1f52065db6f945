// Rewrite: replace every accepted match of a pattern by what a callback builds, repeated to a
// bounded fixed point, as Relay's `rewrite(callbacks, expr)` does (docs/semantics.md §6).
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern add = is_op("add")(wildcard(), wildcard());
//   std::vector<graphpat::RewriteCallback<graphpat::relay::Dialect>> callbacks = {
//       {.pattern = add,
//        .rewrite = [&](NodeId pre, NodeId post, const auto& bindings, auto& rewriter) {
//          auto args = rewriter.graph().args(post);
//          return rewriter.builder().call("subtract", {args[0], args[1]});
//        }}};
//   auto result = graphpat::rewrite(callbacks, graph, root);
//   if (!result.converged) fmt::print("stopped after {} rewrites\n", result.rewrites);
//
// Each iteration runs the callbacks in list order; a callback's groups are found as partition
// finds them (output side first, no overlap, no interior used outside unless post-dominated)
// and rewritten in post-order, so outer callbacks see rewritten children. A `rewrite_once`
// callback stops after the first application that changed the expression. The loop stops when
// an iteration leaves the root as it was, or at the budget (RewriteOptions): it reports instead
// of aborting. "Changed" is root identity: nodes are rebuilt only when an operand changed, so an
// untouched expression keeps its id and no whole-graph comparison is needed.
//
// A callback sees only roots partition would outline (partition.hpp): never a Var (a
// parameter or a let's variable must stay a Var), never a root its pattern bound as its own
// input. So an is_var() or wildcard() callback is called at no variable, call or lifted
// constant, as in TVM v0.14, whose extractor claims no node for such a match and whose
// rewriter then never calls the callback; only the parts of the expression a callback returns
// are its own.
//
// Modes: by default rewrite uses graphpat's matcher rules and first merges duplicated pure
// nodes (eliminate_common_subexpr), as partition does; each is an option of its own (`match`,
// `merge_duplicates_first`), and `relay_compat` is the preset that sets both as TVM does (TVM's
// rules, on the input as given).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "graphpat/analysis/compact.hpp"
#include "graphpat/transform/partition.hpp"

namespace graphpat {

/// What a callback builds with: the graph being rewritten (pre and post nodes both live in it)
/// and a builder appending to it.
template <Dialect D>
class Rewriter {
 public:
  explicit Rewriter(Graph<D>& graph) : builder_(graph) {}
  [[nodiscard]] Graph<D>& graph() const { return builder_.graph(); }
  [[nodiscard]] Builder<D>& builder() { return builder_; }

 private:
  Builder<D> builder_;
};

/// What the pattern nodes bound, as post-rewrite nodes (Relay's node_map).
class RewriteBindings {
 public:
  RewriteBindings(const Match& match, const std::vector<NodeId>& post) : match_(match), post_(post) {}
  /// The post-rewrite node `pattern` bound first, or invalid when it bound nothing.
  [[nodiscard]] NodeId bound(const Pattern& pattern) const {
    NodeId pre = match_.bound(pattern);
    return pre.valid() ? post_[pre.index()] : NodeId();
  }
  /// Every post-rewrite node `pattern` bound, in binding order.
  [[nodiscard]] std::vector<NodeId> all(const Pattern& pattern) const {
    std::vector<NodeId> nodes;
    for (NodeId pre : match_.bindings(pattern)) nodes.push_back(post_[pre.index()]);
    return nodes;
  }
  /// The match itself (pre-rewrite nodes).
  [[nodiscard]] const Match& match() const { return match_; }

 private:
  const Match& match_;
  const std::vector<NodeId>& post_;
};

template <Dialect D>
struct RewriteCallback {
  Pattern pattern;
  /// (pre, post, bindings, rewriter) -> the replacement; returning `post` means no change.
  std::function<NodeId(NodeId, NodeId, const RewriteBindings&, Rewriter<D>&)> rewrite;
  bool rewrite_once = false;
};

struct RewriteOptions {
  /// The preset: reproduce TVM v0.14, giving each of the two fields below its value when it is
  /// left unset; a field that is set wins over the preset.
  bool relay_compat = false;
  /// The matcher's rules. Unset: TVM's under `relay_compat`, graphpat's otherwise.
  std::optional<MatchOptions> match = {};
  /// Merge duplicated pure nodes before the first callback (PartitionOptions); without it, a
  /// rewrite that changes nothing returns the input graph itself. Unset: `!relay_compat`.
  std::optional<bool> merge_duplicates_first = {};
  /// Budget of callback applications (one callback over the whole expression); TVM's is 100.
  std::uint32_t max_applications = 100;
  /// Budget of iterations (one pass of every callback); bounded even when max_applications is
  /// raised, so a rewrite that never settles always stops with `converged == false`.
  std::uint32_t max_iterations = 100;
};

template <Dialect D>
struct RewriteResult {
  Graph<D> graph;
  NodeId root;
  bool converged = false;        // the last iteration changed nothing
  std::uint32_t iterations = 0;  // passes over the callback list
  std::uint32_t applications = 0;
  std::uint32_t rewrites = 0;    // group roots replaced by a different node
  PartitionReport report;        // groups handed to callbacks (accepted) and refused, over all
                                 // applications
};

namespace detail {

/// One application of `callback` to the expression at `root` of `graph`, appending to the
/// graph; returns the new root (`root` itself when nothing changed).
template <Dialect D>
NodeId apply_rewrite(const RewriteCallback<D>& callback, Graph<D>& graph, NodeId root,
                     MatchOptions match_options, RewriteResult<D>& result) {
  std::vector<PartitionGroup> groups;
  {
    PartitionGrouper<D> grouper(callback.pattern, graph, std::span(&root, 1),
                                {.match = match_options}, nullptr);
    groups = grouper.run(result.report);
  }
  result.report.accepted += static_cast<std::uint32_t>(groups.size());
  if (groups.empty()) return root;
  std::vector<std::uint32_t> group_at(graph.size(), NodeId::kNone);
  for (std::uint32_t g = 0; g < groups.size(); ++g) group_at[groups[g].root.index()] = g;
  const std::uint32_t size = graph.size();
  std::vector<bool> live = reachable_from(graph, std::span(&root, 1));
  std::vector<NodeId> post(size);
  Rewriter<D> rewriter(graph);
  std::vector<NodeId> operands;
  for (std::uint32_t i = 0; i < size; ++i) {
    if (!live[i]) continue;
    NodeId id(i);
    operands.clear();
    bool changed = false;
    for (NodeId operand : graph.operands(id)) {
      operands.push_back(post[operand.index()]);
      changed |= operands.back() != operand;
    }
    post[i] = changed ? rewriter.builder().copy(graph, id, operands) : id;
    if (group_at[i] == NodeId::kNone) continue;
    RewriteBindings bindings(groups[group_at[i]].match, post);
    NodeId replacement = callback.rewrite(id, post[i], bindings, rewriter);
    if (replacement != post[i]) ++result.rewrites;
    post[i] = replacement;
  }
  return post[root.index()];
}

}  // namespace detail

/// Rewrites the expression at `root` of `graph` with `callbacks` to a bounded fixed point.
template <Dialect D>
RewriteResult<D> rewrite(const std::vector<RewriteCallback<D>>& callbacks, const Graph<D>& graph,
                         NodeId root, const RewriteOptions& options = {}) {
  std::optional<CseFunctionResult<D>> merged = detail::merged_input(options, graph, root);
  RewriteResult<D> result{.graph = merged ? std::move(merged->graph) : graph,
                          .root = merged ? merged->root : root,
                          .report = {}};
  if (merged) result.report.cse = std::move(merged->report);
  const MatchOptions match_options = detail::match_rules(options);
  std::vector<bool> done(callbacks.size(), false);
  bool changed = true;
  bool any_change = false;
  while (changed && result.applications < options.max_applications &&
         result.iterations < options.max_iterations) {
    ++result.iterations;
    NodeId last = result.root;
    for (std::size_t k = 0; k < callbacks.size(); ++k) {
      if (done[k] || result.applications >= options.max_applications) continue;
      NodeId before = result.root;
      result.root = detail::apply_rewrite(callbacks[k], result.graph, before, match_options, result);
      ++result.applications;
      if (callbacks[k].rewrite_once && result.root != before) done[k] = true;
    }
    changed = result.root != last;
    any_change |= changed;
    if (changed) {  // drop what the iteration left behind
      Compacted<D> compacted = compact(result.graph, std::span(&result.root, 1));
      result.root = compacted.map(result.root);
      result.graph = std::move(compacted.graph);
    }
  }
  result.converged = !changed;
  if (!any_change && !detail::merges_duplicates_first(options)) {
    result.graph = graph;  // the input itself, without what the callbacks built and dropped
  }
  return result;
}

}  // namespace graphpat
