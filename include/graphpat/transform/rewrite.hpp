// Rewrite: replace every accepted match of a pattern by what a callback builds, repeated to a
// bounded fixed point, as Relay's `rewrite(callbacks, expr)` does (docs/semantics.md §6), over
// one expression or over every function of a module.
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern x = wildcard(), w = wildcard();
//   std::vector<graphpat::RewriteCallback<graphpat::relay::Dialect>> callbacks = {
//       {.name = "add_to_subtract",
//        .pattern = is_op("add")(wildcard(), wildcard()),
//        .rewrite = [](NodeId, NodeId post, const auto&, auto& rewriter) {
//          auto args = rewriter.graph().args(post);
//          return rewriter.builder().call("subtract", {args[0], args[1]});
//        }},
//       {.name = "strided_conv",
//        .pattern = is_op("nn.conv2d")(x, w),
//        .rewrite = [=](NodeId, NodeId post, const auto& bound, auto& rewriter) {
//          AttrTable& attrs = rewriter.attrs();
//          AttrValueId two_by_two = attrs.array({attrs.integer(2), attrs.integer(2)});
//          auto conv = rewriter.call("nn.conv2d", {bound.bound(x), bound.bound(w)},
//                                    {{"strides", two_by_two}});
//          return conv.ok() ? *conv : post;   // a value the field cannot hold: no change
//        },
//        .benefit = 2}};
//   auto result = graphpat::rewrite(callbacks, module);           // every function of `module`
//   if (!result.converged) fmt::print("stopped after {} rewrites\n", result.rewrites);
//   for (const auto& counts : result.callbacks) {
//     fmt::print("{}: {} rewrites\n", counts.name, counts.rewrites);
//   }
//
// Each iteration applies every callback once, in order of decreasing `benefit` (MLIR's
// PatternBenefit, see RewriteCallback), callbacks of equal benefit in list order, so a list
// whose callbacks all keep the default benefit runs in list order. An application finds a
// callback's groups as partition finds them (output side first, no overlap, no interior used
// outside unless post-dominated) and rewrites them in post-order, so outer groups see rewritten
// children. A `rewrite_once` callback stops after the first application that changed the
// expression. The loop stops when an iteration leaves the roots as they were, or at the budget
// (RewriteOptions): it reports instead of aborting. "Changed" is root identity: nodes are
// rebuilt only when an operand changed, so an untouched expression keeps its id and no
// whole-graph comparison is needed.
//
// A callback sees only roots partition would outline (partition.hpp): never a Var (a
// parameter or a let's variable must stay a Var), never a root its pattern bound as its own
// input. So an is_var() or wildcard() callback is called at no variable, call or lifted
// constant, as in TVM v0.14, whose extractor claims no node for such a match and whose
// rewriter then never calls the callback; only the parts of the expression a callback returns
// are its own.
//
// Modules: `rewrite(callbacks, module)` rewrites all functions together, in the module's one
// graph, and returns the module with each name bound to its rewritten function (type
// definitions, attributes and metadata carried over). A call of another function (`@f`) is a
// GlobalVar naming it, so it reads the rewritten `@f`. A function is never itself a group root
// (a definition stays a function, as in partition). Functions carrying one of the dialect's
// opaque_function_keys (Relay's `Compiler`, `Extern`, `SkipOptimization`; MergeComposite's test)
// are carried unchanged: not searched, and not touched by the merge of duplicates either; a node
// an opaque function shares with another function is left alone in both.
//
// Modes: by default rewrite uses graphpat's matcher rules and first merges duplicated pure
// nodes (eliminate_common_subexpr, once, before the first callback; over a module, every
// function but the opaque ones), as partition does; each is an option of its own (`match`,
// `merge_duplicates_first`), and `relay_compat` is the preset that sets both as TVM does (TVM's
// rules, on the input as given). Without the merge, the input's node identity is kept as TVM
// keeps it, and so each call a callback builds with Rewriter::call is a node of its own: two
// relus rewritten into `leaky_relu(%x)` are two calls, as TVM makes them (merged, they would be
// one, as the merge makes every other equal pair).
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/analysis/compact.hpp"
#include "graphpat/analysis/reachability.hpp"
#include "graphpat/transform/merge_composite.hpp"
#include "graphpat/transform/partition.hpp"

namespace graphpat {

/// Whether dialect `D` puts a call's `k=v` attribute fields into the canonical attributes of
/// the op's schema (its registry's AttrSchema, defaults filled in), as its readers do: a static
/// `canonical_call_attrs(context, op_name, fields)` answering the attributes or an error, the
/// error too for an op the context's registry does not have (which it must not register).
template <class D>
concept CanonicalisesCallAttrs =
    requires(Context& context, std::string_view op_name, std::span<const AttrField> fields) {
      {
        D::canonical_call_attrs(context, op_name, fields)
      } -> std::same_as<absl::StatusOr<AttrValueId>>;
    };

/// What a callback builds with: the graph being rewritten (pre and post nodes both live in it)
/// and a builder appending to it.
template <Dialect D>
class Rewriter {
 public:
  /// With `fresh_calls`, every call `call` builds is a node of its own, never merged with an
  /// equal one: what rewrite gives callbacks when duplicates are not merged (TVM's mode, where
  /// two callbacks building `leaky_relu(%x)` make two calls).
  explicit Rewriter(Graph<D>& graph, bool fresh_calls = false)
      : builder_(graph), fresh_calls_(fresh_calls) {}
  [[nodiscard]] Graph<D>& graph() const { return builder_.graph(); }
  [[nodiscard]] Builder<D>& builder() { return builder_; }
  /// The attribute values of the graph's context (for the fields of `call`).
  [[nodiscard]] AttrTable& attrs() const { return graph().context().attrs; }
  /// Whether the calls built here are nodes of their own (a callback building through
  /// builder() passes it as CallOptions::fresh to be built alike).
  [[nodiscard]] bool fresh_calls() const { return fresh_calls_; }

  /// A call of `op_name` with attributes written as `k=v` fields, which the dialect makes the
  /// canonical object of the op's schema (every other field at its declared default), so the
  /// call equals the one its readers read from text. Errors are the dialect's (Relay's:
  /// `relay_text.unregistered_op` for an op the graph's registry does not have, such as the
  /// typo `nn.rleu`; `relay_text.bad_attribute` for a value a field cannot hold,
  /// `relay_text.missing_attribute` for a required field left out); nothing is built then, and
  /// no op registered. A call of an op the dialect does not know is built on purpose with the
  /// builder: `builder().call(builder().opaque_op("vendor.fused"), args, {.attrs = ...})`
  /// (opaque_op registers the op, so `call` takes its name after that).
  absl::StatusOr<NodeId> call(std::string_view op_name, std::span<const NodeId> args,
                              std::span<const std::pair<std::string_view, AttrValueId>> fields)
    requires CanonicalisesCallAttrs<D>
  {
    Context& context = graph().context();
    std::vector<AttrField> written;
    written.reserve(fields.size());
    for (const auto& [key, value] : fields) written.push_back({context.strings.intern(key), value});
    absl::StatusOr<AttrValueId> attrs = D::canonical_call_attrs(context, op_name, written);
    if (!attrs.ok()) return attrs.status();
    return builder_.call(op_name, args, {.attrs = *attrs, .fresh = fresh_calls_});
  }
  absl::StatusOr<NodeId> call(
      std::string_view op_name, std::initializer_list<NodeId> args,
      std::initializer_list<std::pair<std::string_view, AttrValueId>> fields)
    requires CanonicalisesCallAttrs<D>
  {
    return call(op_name, std::span(args.begin(), args.size()),
                std::span(fields.begin(), fields.size()));
  }

 private:
  Builder<D> builder_;
  bool fresh_calls_;
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
  /// Names the callback in RewriteResult::callbacks (MLIR's debug name); may be empty.
  std::string name = {};
  Pattern pattern;
  /// (pre, post, bindings, rewriter) -> the replacement; returning `post` means no change.
  std::function<NodeId(NodeId, NodeId, const RewriteBindings&, Rewriter<D>&)> rewrite;
  bool rewrite_once = false;
  /// Which callback goes first within an iteration, after MLIR's PatternBenefit (MLIR's
  /// "Pattern Rewriting" document, mlir.llvm.org/docs/PatternRewriter): a number saying how much
  /// applying the pattern is expected to gain, fixed when the pattern is made, and where
  /// several patterns could apply MLIR's applicator tries the one of higher benefit first.
  /// Here: higher benefit first, equal benefits in list order, so a list that sets no benefit
  /// runs exactly in list order, as before benefits existed. What it orders is the callbacks'
  /// applications within each iteration (each application rewrites the whole expression, and
  /// every callback is still applied once per iteration): when two callbacks match the same
  /// node, the one applied first rewrites it and the other sees its replacement.
  int benefit = 0;
};

struct RewriteOptions {
  /// The preset: reproduce TVM v0.14, giving each of the two fields below its value when it is
  /// left unset; a field that is set wins over the preset.
  bool relay_compat = false;
  /// The matcher's rules. Unset: TVM's under `relay_compat`, graphpat's otherwise.
  std::optional<MatchOptions> match = {};
  /// Merge duplicated pure nodes before the first callback (PartitionOptions); without it, a
  /// rewrite that changes nothing returns the input graph (or module) itself. Unset:
  /// `!relay_compat`.
  std::optional<bool> merge_duplicates_first = {};
  /// Budget of callback applications (one callback over the whole expression); TVM's is 100.
  /// As TVM's count, it is checked between iterations: an iteration applies every callback, so
  /// a list longer than the budget runs one whole iteration and stops there, with `converged`
  /// false unless that iteration changed nothing.
  std::uint32_t max_applications = 100;
  /// Budget of iterations (one pass of every callback); bounded even when max_applications is
  /// raised, so a rewrite that never settles always stops with `converged == false`.
  std::uint32_t max_iterations = 100;
};

/// What one callback did over a whole rewrite.
struct RewriteCallbackCounts {
  std::string name;                // the callback's name, as given (empty when unnamed)
  std::uint32_t applications = 0;  // times it was applied to the whole expression
  std::uint32_t rewrites = 0;      // group roots it replaced by a different node
};

/// What a rewrite did, over all its iterations.
struct RewriteCounts {
  bool converged = false;        // the last iteration changed nothing
  std::uint32_t iterations = 0;  // passes over the callback list
  std::uint32_t applications = 0;
  std::uint32_t rewrites = 0;    // group roots replaced by a different node
  /// One entry per callback, in the order of the list given (index k is callbacks[k], whatever
  /// its benefit); their applications and rewrites add up to the totals above.
  std::vector<RewriteCallbackCounts> callbacks;
  /// Groups handed to callbacks (accepted) and refused, over all applications. A refusal's
  /// `entry` is the index of its callback in the list given; its ids are of the graph as that
  /// application found it, which each iteration that changes something renumbers (compacts),
  /// so they name nodes of the input only when the refusal comes from the first iteration and
  /// no duplicates were merged first.
  PartitionReport report;
};

template <Dialect D>
struct RewriteResult : RewriteCounts {
  Graph<D> graph;
  NodeId root;
};

template <Dialect D>
struct ModuleRewriteResult : RewriteCounts {
  Module<D> module;
};

namespace detail {

/// One application of `callback` to the expressions at `roots` of `graph`, appending to the
/// graph: each root is replaced by its rewritten id. Groups are found as `grouping` says,
/// except under the roots `opaque_roots` marks (may be null). Returns the group roots replaced
/// by a different node.
template <Dialect D>
std::uint32_t apply_rewrite(const RewriteCallback<D>& callback, Graph<D>& graph,
                            std::vector<NodeId>& roots, const GrouperOptions& grouping,
                            const std::vector<bool>* opaque_roots, bool fresh_calls,
                            PartitionReport& report) {
  std::vector<PartitionGroup> groups;
  {
    PartitionGrouper<D> grouper(callback.pattern, graph, roots, grouping, opaque_roots);
    groups = grouper.run(report);
  }
  report.accepted += static_cast<std::uint32_t>(groups.size());
  if (groups.empty()) return 0;
  std::vector<std::uint32_t> group_at(graph.size(), NodeId::kNone);
  for (std::uint32_t g = 0; g < groups.size(); ++g) group_at[groups[g].root.index()] = g;
  const std::uint32_t size = graph.size();
  std::vector<bool> live = reachable_from(graph, std::span<const NodeId>(roots));
  std::vector<NodeId> post(size);
  Rewriter<D> rewriter(graph, fresh_calls);
  std::vector<NodeId> operands;
  std::uint32_t rewrites = 0;
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
    if (replacement != post[i]) ++rewrites;
    post[i] = replacement;
  }
  for (NodeId& root : roots) root = post[root.index()];
  return rewrites;
}

/// The order callbacks are applied in within an iteration: decreasing benefit, ties in list
/// order.
template <Dialect D>
std::vector<std::size_t> benefit_order(const std::vector<RewriteCallback<D>>& callbacks) {
  std::vector<std::size_t> order(callbacks.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return callbacks[a].benefit > callbacks[b].benefit;
  });
  return order;
}

/// Rewrites the expressions at `roots` of `graph` with `callbacks` to a bounded fixed point,
/// compacting `graph` after each iteration that changed a root; `roots` follow. Returns whether
/// any iteration changed a root.
template <Dialect D>
bool rewrite_to_fixed_point(const std::vector<RewriteCallback<D>>& callbacks, Graph<D>& graph,
                            std::vector<NodeId>& roots, const GrouperOptions& grouping,
                            const std::vector<bool>* opaque_roots, const RewriteOptions& options,
                            RewriteCounts& counts) {
  for (const RewriteCallback<D>& callback : callbacks) counts.callbacks.push_back({callback.name});
  const std::vector<std::size_t> order = benefit_order(callbacks);
  std::vector<bool> done(callbacks.size(), false);
  bool changed = true;
  bool any_change = false;
  while (changed && counts.applications < options.max_applications &&
         counts.iterations < options.max_iterations) {
    ++counts.iterations;
    const std::vector<NodeId> last = roots;
    for (std::size_t k : order) {
      if (done[k]) continue;
      const std::vector<NodeId> before = roots;
      const std::size_t rejected_before = counts.report.rejected.size();
      std::uint32_t rewrites =
          apply_rewrite(callbacks[k], graph, roots, grouping, opaque_roots,
                        /*fresh_calls=*/!merges_duplicates_first(options), counts.report);
      for (std::size_t r = rejected_before; r < counts.report.rejected.size(); ++r) {
        counts.report.rejected[r].entry = static_cast<std::uint32_t>(k);
      }
      counts.rewrites += rewrites;
      counts.callbacks[k].rewrites += rewrites;
      ++counts.applications;
      ++counts.callbacks[k].applications;
      if (callbacks[k].rewrite_once && roots != before) done[k] = true;
    }
    changed = roots != last;
    any_change |= changed;
    if (changed) {  // drop what the iteration left behind
      Compacted<D> compacted = compact(graph, std::span<const NodeId>(roots));
      for (NodeId& root : roots) root = compacted.map(root);
      graph = std::move(compacted.graph);
    }
  }
  counts.converged = !changed;
  return any_change;
}

}  // namespace detail

/// Rewrites the expression at `root` of `graph` with `callbacks` to a bounded fixed point.
template <Dialect D>
RewriteResult<D> rewrite(const std::vector<RewriteCallback<D>>& callbacks, const Graph<D>& graph,
                         NodeId root, const RewriteOptions& options = {}) {
  std::optional<CseFunctionResult<D>> merged = detail::merged_input(options, graph, root);
  RewriteCounts counts;
  if (merged) counts.report.cse = std::move(merged->report);
  Graph<D> rewritten = merged ? std::move(merged->graph) : graph;
  std::vector<NodeId> roots{merged ? merged->root : root};
  bool any_change = detail::rewrite_to_fixed_point(
      callbacks, rewritten, roots, {.match = detail::match_rules(options)}, nullptr, options,
      counts);
  if (!any_change && !detail::merges_duplicates_first(options)) {
    rewritten = graph;  // the input itself, without what the callbacks built and dropped
  }
  return {std::move(counts), std::move(rewritten), roots.front()};
}

/// Rewrites every function of `module` with `callbacks` to a bounded fixed point, all in one
/// graph; functions the dialect marks opaque are carried unchanged (see the top of this file).
template <Dialect D>
ModuleRewriteResult<D> rewrite(const std::vector<RewriteCallback<D>>& callbacks,
                               const Module<D>& module, const RewriteOptions& options = {}) {
  const std::vector<NodeId> input_roots = module.roots();
  std::vector<bool> opaque;  // per function, in module order (which CSE keeps)
  std::vector<NodeId> opaque_functions;
  for (NodeId function : input_roots) {
    opaque.push_back(detail::skipped_by_merge_composite(module.graph, function));
    if (opaque.back()) opaque_functions.push_back(function);
  }
  // Merging duplicates first leaves the opaque functions' nodes as they are.
  const std::vector<bool> in_opaque =
      reachable_from(module.graph, std::span<const NodeId>(opaque_functions));
  CseOptions<D> cse_options{
      .skip = [&in_opaque](const Graph<D>&, NodeId id) { return in_opaque[id.index()]; }};
  std::optional<CseResult<D>> merged = detail::merged_input(options, module, cse_options);
  RewriteCounts counts;
  if (merged) counts.report.cse = std::move(merged->report);
  std::vector<NodeId> roots = merged ? merged->module.roots() : input_roots;
  Graph<D> rewritten = merged ? std::move(merged->module.graph) : module.graph;
  bool any_change = detail::rewrite_to_fixed_point(
      callbacks, rewritten, roots,
      {.match = detail::match_rules(options), .roots_are_definitions = true}, &opaque, options,
      counts);
  if (!any_change && !detail::merges_duplicates_first(options)) {
    return {std::move(counts), module};  // the input itself, without what the callbacks built
  }
  // CSE keeps the functions, their order and everything else of the module: the input's
  // remapped is the merged module's.
  return {std::move(counts), module.remapped(std::move(rewritten), roots)};
}

}  // namespace graphpat
