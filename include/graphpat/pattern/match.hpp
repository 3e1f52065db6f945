// What the matchers take and give (pattern/matcher.hpp, pattern/graph_matcher.hpp,
// pattern/explain.hpp), and the declarations of their one-call functions: all a caller needs,
// without the matchers. The entry header pattern.hpp includes this instead of them when the entry
// functions come from graphpat::compiled (detail/linkage.hpp).
//
//   graphpat::MatchOptions tvm{.relay_compat = true};
//   if (graphpat::Match m = graphpat::match(pattern, graph, node, tvm)) use(m.bound(conv));
//   absl::StatusOr<std::vector<graphpat::Match>> all =
//       graphpat::find_graph_matches(context, graph, main, {.match = tvm});
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>
#include <absl/status/statusor.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graphpat/ir/conventions.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/graph.hpp"
#include "graphpat/pattern/graph_pattern.hpp"
#include "graphpat/pattern/pattern_graph.hpp"

namespace graphpat {

/// How the matcher behaves.
struct MatchOptions {
  /// Reproduce TVM Relay exactly (pattern/matcher.hpp says how).
  bool relay_compat = false;
  /// The most steps (pattern visits and dominator-path steps) one match attempt at one node
  /// may take. Past it the attempt stops, counts as no match, and is recorded
  /// (Matcher::stopped(), PartitionReport::stopped_matches). Backtracking can take time
  /// exponential in the graph's depth, as in TVM: a recursive pattern re-tried on shared inputs
  /// (`w.redirect_to(is_op('add')(w, w) | is_var())` on a chain of `add(%k, %k)`), or one whose
  /// recursion runs through a dominator. This bounds it, as PCRE's match limit bounds a regex.
  /// 0: 65,536 or 16 per node of the graph and the pattern, whichever is more (real patterns
  /// take tens to hundreds; a recursive one a few per node of the chain it matches, a pattern
  /// without backtracking a few per pattern node), so that a search stops after at most
  /// (nodes tried) x this many steps.
  std::uint64_t max_steps = 0;
};

namespace detail {

/// A pattern prepared for matching in a dialect: a copy of the nodes reachable from its root
/// (not of every node its store holds: stores keep whatever patterns were ever combined with
/// it), in the store's order, with the op of each arithmetic sugar named as the dialect names
/// it, plus, where the dialect asks for them, the retry patterns of Relay's associativity rules
/// (synthetic nodes after the user's, never reported as bindings).
struct CompiledPattern {
  PatternGraph graph;
  PatternId root;
  std::uint32_t user_size = 0;
  absl::flat_hash_map<std::uint64_t, PatternId> by_uid;
  std::vector<PatternId> divide_retry0, divide_retry1, multiply_retry;  // per pattern id
  bool has_dominator = false;

  GRAPHPAT_INSTANTIATED_ON_CALL CompiledPattern(const Pattern& pattern,
                                                const DialectConventions& conventions)
      : CompiledPattern(std::span(&pattern, 1), conventions) {}
  /// Several roots under one pattern graph (a graph pattern's nodes, graph_pattern.hpp): `root`
  /// is the first; find() names the others.
  GRAPHPAT_INSTANTIATED_ON_CALL CompiledPattern(std::span<const Pattern> roots,
                                                const DialectConventions& conventions) {
    copy_reachable(roots, conventions.arithmetic);
    bool retries = false;  // whether a retry can be made: a divide or multiply call is there
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      has_dominator |= graph.kind(PatternId(i)) == PatternKind::kDominator;
      retries |= conventions.associativity_retries &&
                 (binary_op_call(PatternId(i), conventions.arithmetic.divide) ||
                  binary_op_call(PatternId(i), conventions.arithmetic.multiply));
    }
    resize(graph.size());
    if (retries) {
      std::vector<PatternId> root_ids;
      for (const Pattern& pattern : roots) root_ids.push_back(find(pattern));
      add_associativity_retries(graph.post_order(root_ids), conventions.arithmetic);
    }
  }

  void resize(std::uint32_t size) {
    divide_retry0.resize(size);
    divide_retry1.resize(size);
    multiply_retry.resize(size);
  }

  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] PatternId find(const Pattern& pattern) const {
    auto found = by_uid.find(pattern.uid());
    return found == by_uid.end() ? PatternId() : found->second;
  }

  /// The call pattern the pattern at `id` is, under attribute, type, `&` and dominator
  /// constraints (a dominator's child), or an invalid id when it is no call.
  [[nodiscard]] PatternId call_under(PatternId id) const {
    for (;;) {
      const PatternNode& node = graph.node(id);
      switch (node.kind) {
        case PatternKind::kAttr:
        case PatternKind::kType:
        case PatternKind::kDataType:
        case PatternKind::kShape:
        case PatternKind::kAnd:
          id = node.operands[0];
          continue;
        case PatternKind::kDominator:
          id = node.operands[2];
          continue;
        case PatternKind::kCall:
          return id;
        default:
          return PatternId();
      }
    }
  }

 private:
  // Copies the nodes reachable from the roots keeping their relative order within each store
  // (roots combined with one another share one), so that bindings, which are sorted by pattern
  // id, come out in the same order as in the store.
  GRAPHPAT_INSTANTIATED_ON_CALL void copy_reachable(std::span<const Pattern> roots,
                                                    const ArithmeticOps& arithmetic) {
    // The roots of each store (a few stores: roots combined with one another share one).
    std::vector<std::pair<const PatternGraph*, std::vector<PatternId>>> stores;
    absl::flat_hash_map<const PatternGraph*, std::size_t> store_of;
    for (const Pattern& pattern : roots) {
      const PatternGraph* source = &pattern.graph();
      auto [slot, added] = store_of.try_emplace(source, stores.size());
      if (added) stores.emplace_back(source, std::vector<PatternId>());
      stores[slot->second].second.push_back(pattern.id());
    }
    std::size_t total = 0;
    for (auto& [source, reachable] : stores) {
      reachable = source->post_order(reachable);
      std::sort(reachable.begin(), reachable.end());
      total += reachable.size();
    }
    by_uid.reserve(total);
    graph.reserve(static_cast<std::uint32_t>(total));
    for (auto& [source, reachable] : stores) {
      const std::uint32_t base = static_cast<std::uint32_t>(by_uid.size());
      for (std::uint32_t i = 0; i < reachable.size(); ++i) {
        by_uid.emplace(source->node(reachable[i]).uid, PatternId(base + i));
      }
    }
    std::vector<PatternId> renumbered;  // per node of the store at hand: its id here
    for (const auto& [source, reachable] : stores) {
      renumbered.assign(source->size(), PatternId());
      for (PatternId id : reachable) renumbered[id.index()] = by_uid.at(source->node(id).uid);
      for (PatternId id : reachable) {
        PatternNode& node = graph.mutable_node(graph.add_copy(source->node(id)));
        for (PatternId& operand : node.operands) operand = renumbered[operand.index()];
        if (node.redirect.valid()) node.redirect = renumbered[node.redirect.index()];
        if (node.role) node.name = arithmetic.of(*node.role);
      }
    }
    root = find(roots.front());
    user_size = graph.size();
  }

  // Whether the pattern at `id` is a call of the binary op named `op` (empty: none).
  [[nodiscard]] bool binary_op_call(PatternId id, std::string_view op) const {
    const PatternNode& node = graph.node(id);
    return !op.empty() && node.kind == PatternKind::kCall && !node.any_arity &&
           node.operands.size() >= 3 && graph.kind(node.operands[0]) == PatternKind::kOp &&
           graph.node(node.operands[0]).name == op;
  }

  // Relay's rules: (a * b) / c is also tried as b * (a / c) and a * (b / c), and a * (b / c)
  // (either argument) as (a * b) / c; `work` holds the user's nodes and grows by the retries'.
  GRAPHPAT_INSTANTIATED_ON_CALL void add_associativity_retries(std::vector<PatternId> work,
                                                               const ArithmeticOps& arithmetic) {
    // Synthetic call patterns are hash-consed, so the retry closure is finite.
    absl::flat_hash_map<std::vector<std::uint32_t>, PatternId> synthetic;
    auto call = [&](PatternId callee, PatternId a, PatternId b) {
      std::vector<std::uint32_t> key{callee.value, a.value, b.value};
      auto [slot, inserted] = synthetic.try_emplace(key, PatternId());
      if (inserted) {
        PatternNode node;
        node.kind = PatternKind::kCall;
        node.operands = {callee, a, b};
        slot->second = graph.add(std::move(node));
        work.push_back(slot->second);
      }
      return slot->second;
    };
    for (std::size_t w = 0; w < work.size(); ++w) {
      PatternId id = work[w];
      resize(graph.size());
      if (binary_op_call(id, arithmetic.divide)) {
        PatternId inner = graph.operands(id)[1];
        if (binary_op_call(inner, arithmetic.multiply)) {
          PatternId div_op = graph.operands(id)[0], c = graph.operands(id)[2];
          PatternId mul_op = graph.operands(inner)[0];
          PatternId a = graph.operands(inner)[1], b = graph.operands(inner)[2];
          PatternId retry0 = call(mul_op, b, call(div_op, a, c));
          PatternId retry1 = call(mul_op, a, call(div_op, b, c));
          resize(graph.size());
          divide_retry0[id.index()] = retry0;
          divide_retry1[id.index()] = retry1;
        }
      }
      if (binary_op_call(id, arithmetic.multiply)) {
        for (std::size_t arg = 0; arg < 2; ++arg) {
          PatternId div = graph.operands(id)[1 + arg];
          if (!binary_op_call(div, arithmetic.divide)) continue;
          PatternId mul_op = graph.operands(id)[0];
          PatternId other = graph.operands(id)[1 + (arg + 1) % 2];
          PatternId div_op = graph.operands(div)[0];
          PatternId retry =
              call(div_op, call(mul_op, graph.operands(div)[1], other), graph.operands(div)[2]);
          resize(graph.size());
          multiply_retry[id.index()] = retry;
          break;
        }
      }
    }
    resize(graph.size());
  }
};

}  // namespace detail

/// The outcome of matching at one node: whether it matched and, on success only, what each
/// pattern node bound. A pattern node binds one node, except the path of a dominator pattern
/// (and a recursive pattern), which bind one node per use; `bound` gives the first.
class Match {
 public:
  Match() = default;

  [[nodiscard]] bool matched() const { return matched_; }
  explicit operator bool() const { return matched_; }
  /// The node the match was tried at.
  [[nodiscard]] NodeId root() const { return root_; }

  /// What `pattern` bound (its first binding), or an invalid id when it bound nothing (a
  /// failed match, an alternative not taken, or a pattern node not in the matched pattern).
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] NodeId bound(const Pattern& pattern) const {
    return compiled_ ? bound(compiled_->find(pattern)) : NodeId();
  }
  [[nodiscard]] NodeId bound(PatternId id) const {
    std::span<const NodeId> all = bindings(id);
    return all.empty() ? NodeId() : all.front();
  }
  /// Every node `pattern` bound, in binding order.
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] std::span<const NodeId> bindings(
      const Pattern& pattern) const {
    return compiled_ ? bindings(compiled_->find(pattern)) : std::span<const NodeId>();
  }
  [[nodiscard]] std::span<const NodeId> bindings(PatternId id) const {
    if (!id.valid()) return {};
    auto first = std::lower_bound(patterns_.begin(), patterns_.end(), id);
    auto last = std::upper_bound(first, patterns_.end(), id);
    return {nodes_.data() + (first - patterns_.begin()), static_cast<std::size_t>(last - first)};
  }
  /// The matched pattern's graph (the ids `bindings(PatternId)` takes) and its root.
  [[nodiscard]] const PatternGraph& pattern_graph() const { return compiled_->graph; }
  [[nodiscard]] PatternId pattern_root() const { return compiled_->root; }
  /// The id of `pattern` in pattern_graph(), or invalid.
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] PatternId pattern_id(const Pattern& pattern) const {
    return compiled_->find(pattern);
  }
  /// Every (pattern node, graph node) binding, sorted by pattern id.
  [[nodiscard]] std::size_t binding_count() const { return nodes_.size(); }
  [[nodiscard]] std::pair<PatternId, NodeId> binding(std::size_t i) const {
    return {patterns_[i], nodes_[i]};
  }

 private:
  template <Dialect D>
  friend class Matcher;

  static constexpr std::size_t kInlineBindings = 8;

  std::shared_ptr<const detail::CompiledPattern> compiled_;
  bool matched_ = false;
  NodeId root_;
  // Inline for a few bindings (a match of a small pattern allocates nothing).
  absl::InlinedVector<PatternId, kInlineBindings> patterns_;  // sorted; parallel to nodes_
  absl::InlinedVector<NodeId, kInlineBindings> nodes_;
};

/// Whether `pattern` matches at `node` of `graph` (Relay's `pattern.match(expr)`), with the
/// bindings on success. Makes a Matcher (and, for a dominator pattern, builds a
/// post-dominator tree) on each call: to match many nodes, keep a Matcher.
///   if (graphpat::Match m = graphpat::match(pattern, graph, node)) use(m.bound(conv));
template <Dialect D>
Match match(const Pattern& pattern, const Graph<D>& graph, NodeId node, MatchOptions options = {});

/// Every node reachable from `root` where `pattern` matches, in increasing id order. Makes a
/// Matcher on each call: to search several roots of one graph, keep a Matcher.
///   for (const graphpat::Match& m : graphpat::find_matches(pattern, graph, main)) ...
template <Dialect D>
std::vector<Match> find_matches(const Pattern& pattern, const Graph<D>& graph, NodeId root,
                                MatchOptions options = {});

/// The first failing path of matching `pattern` at `node`, or "matched". Builds a Matcher per
/// call (matcher.hpp's cost model): to explain many nodes, keep one and call Matcher::explain.
template <Dialect D>
std::string explain(const Pattern& pattern, const Graph<D>& graph, NodeId node,
                    MatchOptions options = {}, const NodeNames& names = {});

struct GraphMatchOptions {
  /// How each pattern matches at a node (MatchOptions::max_steps bounds each try).
  MatchOptions match;
  /// The most tries (a pattern at a candidate node) one search may take; 0: 2^20 or 64 per node
  /// of the graph and of the context's patterns, whichever is more (linear in the input: a
  /// connected context takes a few tries per anchor call).
  std::uint64_t max_steps = 0;
  /// The most matches find_all returns; 0: 65,536 or 4 per node of the graph, whichever is
  /// more, so that the matches kept stay linear in the graph (two unconnected wildcards would
  /// otherwise keep one per try).
  std::size_t max_matches = 0;
};

/// What the last search did.
struct GraphSearchReport {
  std::uint64_t steps = 0;  // tries
  std::size_t matches = 0;  // matches found (reported)
  bool stopped = false;     // a limit ended the search before every choice was tried
  std::string stop_reason;  // which, in words ("" when not stopped)
};

/// Every match of `context` among the nodes reachable from `root` (GraphMatcher::find_all).
template <Dialect D>
absl::StatusOr<std::vector<Match>> find_graph_matches(const PatternContext& context,
                                                      const Graph<D>& graph, NodeId root,
                                                      GraphMatchOptions options = {});

/// The first match of `context` among the nodes reachable from `root`, or none (Relax's
/// `ctx.match_dfb(block)`).
template <Dialect D>
absl::StatusOr<std::optional<Match>> match_graph(const PatternContext& context,
                                                 const Graph<D>& graph, NodeId root,
                                                 GraphMatchOptions options = {});

}  // namespace graphpat
