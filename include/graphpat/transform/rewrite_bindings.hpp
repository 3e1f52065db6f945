// Rewriting several nodes at once from a graph pattern (Relax's `rewrite_bindings`): each match
// of a PatternContext (pattern/graph_pattern.hpp) is handed to a callback, which builds
// replacements with a Rewriter and answers which matched nodes they replace; every use of a
// replaced node then reads its replacement.
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern x = wildcard(), wq = wildcard(), wk = wildcard();
//   graphpat::Pattern q = is_op("nn.dense")(x, wq), k = is_op("nn.dense")(x, wk);
//   graphpat::PatternContext qk;
//   qk.add(q).add(k);
//   auto fused = graphpat::rewrite_bindings<graphpat::relay::Dialect>(
//       qk, [&](const graphpat::Match& m, auto& rewriter) -> graphpat::Replacements {
//         ...build one dense of x and the concatenated weights, split it in two...
//         return {{m.bound(q), first_half}, {m.bound(k), second_half}};
//       }, module);
//   fused->report.rewritten;   // matches replaced
//
// The matches of each function are those of GraphMatcher::find_all on the input, taken in
// order; a match that shares a node of a context pattern with one rewritten before it is
// skipped (report.overlapping), as Relax matches again only what earlier rewrites left. An
// empty answer replaces nothing. A replacement may only stand for a node the match bound
// (`graph_pattern.foreign_replacement` otherwise), and must not read the node it replaces, even
// through other replacements (`graph_pattern.replacement_cycle`): a graph has no cycles.
//
// The result is built afresh from the functions' roots, every node after its operands, so
// replacements sit after all their inputs by construction and nothing unreachable is kept;
// functions the dialect marks opaque (partition's rule) are carried unchanged. The callback's
// Rewriter appends to a copy of the input graph, in which the match's nodes are valid.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "graphpat/ir/builder.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/pattern/graph_matcher.hpp"
#include "graphpat/transform/merge_composite.hpp"
#include "graphpat/transform/rewrite.hpp"

namespace graphpat {

/// What a callback answers: (matched node, its replacement) pairs.
using Replacements = std::vector<std::pair<NodeId, NodeId>>;

/// A graph-pattern rewrite: from one match, the replacements (built with the rewriter).
template <Dialect D>
using GraphRewrite = std::function<absl::StatusOr<Replacements>(const Match&, Rewriter<D>&)>;

struct GraphRewriteReport {
  std::size_t matches = 0;      // matches found, in every function
  std::size_t rewritten = 0;    // matches whose callback replaced something
  std::size_t overlapping = 0;  // matches skipped: a node of theirs was rewritten before
  std::size_t replaced = 0;     // nodes replaced
  bool stopped = false;         // a search stopped at a GraphMatchOptions limit
};

template <Dialect D>
struct GraphRewriteResult {
  Module<D> module;
  GraphRewriteReport report;
};

namespace detail {

/// `node` after following the replacements (a replacement of a replacement too); an invalid id
/// when they go round in a circle.
inline NodeId replaced_node(const absl::flat_hash_map<NodeId, NodeId>& replacements, NodeId node) {
  for (std::size_t hops = 0; hops <= replacements.size(); ++hops) {
    auto found = replacements.find(node);
    if (found == replacements.end()) return node;
    node = found->second;
  }
  return NodeId();
}

}  // namespace detail

/// Rewrites every match of `context` in each function of `module` with `rewrite` (see the top
/// of this file).
template <Dialect D>
absl::StatusOr<GraphRewriteResult<D>> rewrite_bindings(const PatternContext& context,
                                                       const GraphRewrite<D>& rewrite,
                                                       const Module<D>& module,
                                                       const GraphMatchOptions& options = {}) {
  absl::StatusOr<GraphMatcher<D>> matcher = GraphMatcher<D>::make(context, module.graph, options);
  if (!matcher.ok()) return matcher.status();
  GraphRewriteReport report;
  Graph<D> work = module.graph;
  Rewriter<D> rewriter(work);
  absl::flat_hash_map<NodeId, NodeId> replacements;
  std::vector<bool> claimed(module.graph.size(), false);
  const std::vector<NodeId> roots = module.roots();
  for (NodeId function : roots) {
    if (detail::skipped_by_merge_composite(module.graph, function)) continue;
    for (const Match& match : matcher->find_all(function)) {
      ++report.matches;
      std::vector<NodeId> nodes;
      for (const Pattern& pattern : context.patterns()) nodes.push_back(match.bound(pattern));
      if (std::any_of(nodes.begin(), nodes.end(),
                      [&](NodeId node) { return claimed[node.index()]; })) {
        ++report.overlapping;
        continue;
      }
      absl::StatusOr<Replacements> answer = rewrite(match, rewriter);
      if (!answer.ok()) return answer.status();
      if (answer->empty()) continue;
      for (const auto& [old_node, new_node] : *answer) {
        bool bound = false;
        for (std::size_t i = 0; i < match.binding_count() && !bound; ++i) {
          bound = match.binding(i).second == old_node;
        }
        if (!bound || !work.contains(new_node)) {
          return make_error(
              absl::StatusCode::kInvalidArgument, "graph_pattern.foreign_replacement",
              fmt::format("%{}: a replacement must stand for a node the match bound, by a node "
                          "of the rewriter's graph{}",
                          old_node.index(),
                          bound ? fmt::format(" (%{} is not one)", new_node.index()) : ""));
        }
        replacements.insert_or_assign(old_node, new_node);
        ++report.replaced;
      }
      for (NodeId node : nodes) claimed[node.index()] = true;
      ++report.rewritten;
    }
    report.stopped |= matcher->report().stopped;
  }
  if (replacements.empty()) return GraphRewriteResult<D>{module, report};

  // The new graph, from the roots, each node after its operands read through the
  // replacements: an iterative depth-first walk that finds a node on its own path (a cycle).
  Graph<D> result(module.graph.shared_context());
  Builder<D> builder(result);
  std::vector<NodeId> copy(work.size());
  std::vector<std::uint8_t> state(work.size(), 0);  // 0 new, 1 on the path, 2 copied
  struct Frame {
    NodeId node;
    std::size_t next;
  };
  std::vector<Frame> path;
  std::vector<NodeId> operands;
  for (NodeId function : roots) {
    NodeId start = detail::replaced_node(replacements, function);
    if (state[start.index()] == 2) continue;
    path.push_back({start, 0});
    state[start.index()] = 1;
    while (!path.empty()) {
      Frame& top = path.back();
      std::span<const NodeId> inputs = work.operands(top.node);
      if (top.next < inputs.size()) {
        NodeId input = detail::replaced_node(replacements, inputs[top.next++]);
        if (!input.valid() || state[input.index()] == 1) {
          return make_error(absl::StatusCode::kInvalidArgument, "graph_pattern.replacement_cycle",
                            fmt::format("%{}: the replacements make it read itself",
                                        inputs[top.next - 1].index()));
        }
        if (state[input.index()] == 0) {
          state[input.index()] = 1;
          path.push_back({input, 0});
        }
        continue;
      }
      operands.clear();
      for (NodeId input : inputs) {
        operands.push_back(copy[detail::replaced_node(replacements, input).index()]);
      }
      copy[top.node.index()] = builder.copy(work, top.node, operands);
      state[top.node.index()] = 2;
      path.pop_back();
    }
  }
  Module<D> rewritten = module.remapped(std::move(result), [&](NodeId function) {
    return copy[detail::replaced_node(replacements, function).index()];
  });
  return GraphRewriteResult<D>{std::move(rewritten), report};
}

}  // namespace graphpat
