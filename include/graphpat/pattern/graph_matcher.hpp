// Matching graph patterns (graph_pattern.hpp): every assignment of a PatternContext's patterns
// to graph nodes that satisfies its constraints, in a graph of any dialect.
//
//   absl::StatusOr<graphpat::GraphMatcher<relay::Dialect>> matcher =
//       graphpat::GraphMatcher<relay::Dialect>::make(ctx, graph);
//   std::optional<graphpat::Match> first = matcher->first(main);   // Relax's ctx.match_dfb
//   for (const graphpat::Match& m : matcher->find_all(main)) use(m.bound(q), m.bound(k));
//   matcher->report().stopped;                                    // a limit ended the search
//
// A graph match is a Match (matcher.hpp) whose bindings are those of every context pattern and
// every pattern node under them; root() is the node of the context's first pattern.
//
// The search. Patterns are placed one at a time: first the anchored pattern (one that matches
// calls of one op only) whose op has the fewest calls in the graph, tried at each of them; then,
// while one is left that is tied to a placed pattern, that one, tried only where the tie leads:
// the users of a producer's node, the operands of a consumer's node, or the users of the node a
// shared sub-pattern bound (x in `dense(x, wq)`, `dense(x, wk)`). Each try is one matcher run
// under the memo of the placed patterns, and the search backtracks over every choice. So an
// anchored, connected graph pattern costs the anchor's calls times the few neighbours each
// leads to: linear in the graph. What makes it worse: a pattern with no anchor (a lone
// wildcard or var) is tried at every node; patterns tied by nothing (two unconnected parts) are
// searched as a product of their matches; nodes with many users (a weight shared by thousands
// of calls) widen each step; and a context about as long as the graph is extended from each of
// its anchor's nodes about as far as the graph reaches (k patterns chained along a chain of k
// nodes: k^2 / 2 tries to find every match). GraphMatchOptions bounds it: past max_steps tries
// or max_matches matches the search stops, returns what it found, and report() says so.
//
// find_all reports one assignment per set of nodes, the first the search finds: the three
// `dense(x, _)` patterns of a QKV context match three calls in 3! orders, reported once.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <absl/status/statusor.h>
#include <absl/types/span.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graphpat/analysis/reachability.hpp"
#include "graphpat/analysis/users.hpp"
#include "graphpat/ir/graph.hpp"
#include "graphpat/pattern/graph_pattern.hpp"
#include "graphpat/pattern/matcher.hpp"
#include "graphpat/pattern/node_words.hpp"

namespace graphpat {
namespace detail {

/// Sets of `width` node ids (sorted), each kept once in one flat array: find_all's one report
/// per set of nodes, without an allocation per set.
class NodeSetTable {
 public:
  explicit NodeSetTable(std::size_t width)
      : width_(width), index_(0, Hash{this}, Equal{this}) {}
  NodeSetTable(const NodeSetTable&) = delete;  // the index's functors point at this table
  NodeSetTable& operator=(const NodeSetTable&) = delete;

  /// Adds `set` (sorted, `width` ids); false when it was there already.
  bool insert(std::span<const std::uint32_t> set) {
    const std::size_t old_size = keys_.size();
    keys_.insert(keys_.end(), set.begin(), set.end());
    if (index_.insert(static_cast<std::uint32_t>(old_size / width_)).second) return true;
    keys_.resize(old_size);
    return false;
  }

 private:
  [[nodiscard]] absl::Span<const std::uint32_t> key(std::uint32_t k) const {
    return {keys_.data() + std::size_t{k} * width_, width_};
  }
  struct Hash {
    const NodeSetTable* table;
    std::size_t operator()(std::uint32_t k) const {
      return absl::Hash<absl::Span<const std::uint32_t>>{}(table->key(k));
    }
  };
  struct Equal {
    const NodeSetTable* table;
    bool operator()(std::uint32_t a, std::uint32_t b) const {
      return table->key(a) == table->key(b);
    }
  };

  std::size_t width_;
  std::vector<std::uint32_t> keys_;
  absl::flat_hash_set<std::uint32_t, Hash, Equal> index_;
};

}  // namespace detail

template <Dialect D>
class GraphMatcher {
 public:
  /// A matcher of `context` over `graph`; refuses a context validate() refuses.
  static absl::StatusOr<GraphMatcher> make(const PatternContext& context, const Graph<D>& graph,
                                           GraphMatchOptions options = {}) {
    if (absl::Status status = context.validate(); !status.ok()) return status;
    return GraphMatcher(context, graph, options);
  }

  /// The first match among the nodes reachable from `root`, or none (Relax's match_dfb).
  std::optional<Match> first(NodeId root) {
    std::vector<Match> found;
    search(root, true, found);
    if (found.empty()) return std::nullopt;
    return std::move(found.front());
  }
  /// Every match among the nodes reachable from `root`, one per set of matched nodes, in the
  /// order the search finds them.
  std::vector<Match> find_all(NodeId root) {
    std::vector<Match> found;
    search(root, false, found);
    return found;
  }

  [[nodiscard]] const GraphSearchReport& report() const { return report_; }
  /// What compiling the patterns noticed (Matcher::warnings).
  [[nodiscard]] const std::vector<std::string>& warnings() const { return matcher_.warnings(); }

 private:
  // Where a placed pattern's candidates come from.
  enum class Source : std::uint8_t { kScan, kUsersOfProducer, kOperandsOfConsumer, kUsersOfShared };
  struct Level {
    std::size_t pattern = 0;  // position in the context
    Source source = Source::kScan;
    std::size_t tie = 0;      // the placed pattern (context position) or shared pattern id
    // Into the users index, an anchor op's calls (anchor_calls_), or own_candidates.
    std::span<const NodeId> candidates;
    std::vector<NodeId> own_candidates;  // gathered for this level: operands, unanchored scans
    std::size_t next = 0;
    std::size_t watermark = 0;
    NodeId assigned;
  };
  struct Follower {  // a later interchangeable pattern tried among the users of `shared`
    static constexpr std::uint32_t kUnread = std::numeric_limits<std::uint32_t>::max();
    std::size_t pattern = 0;
    PatternId shared;
    std::uint32_t arity = 0;           // of the earlier pattern's call, when `argument` is read
    std::uint32_t argument = kUnread;  // the argument of that call `shared` binds
  };
  static Level make_level(std::size_t pattern, Source source, std::size_t tie) {
    Level level;
    level.pattern = pattern;
    level.source = source;
    level.tie = tie;
    return level;
  }

  GraphMatcher(const PatternContext& context, const Graph<D>& graph, GraphMatchOptions options)
      : context_(context),
        graph_(graph),
        options_(options),
        matcher_(std::span(context.patterns()), graph, options.match) {
    const detail::CompiledPattern& compiled = matcher_.compiled();
    touching_.resize(context_.patterns().size());
    for (std::size_t i = 0; i < context_.patterns().size(); ++i) {
      PatternId id = compiled.find(context_.patterns()[i]);
      ids_.push_back(id);
      anchors_.push_back(matcher_.anchor_of(id));
      for (PatternId argument : call_arguments(id)) argument_of_[argument.index()].push_back(i);
    }
    for (std::size_t c = 0; c < context_.constraints().size(); ++c) {
      touching_[context_.constraints()[c].producer].push_back(c);
      touching_[context_.constraints()[c].consumer].push_back(c);
    }
    find_same_node_patterns();
    find_interchangeable_patterns();
    find_anchor_slots();
    sets_may_repeat_ = may_find_one_set_twice();
    anchor_users_only_ = needs_only_anchor_users();
  }

  // Whether the search needs, of each node's users, only the calls of anchor ops: when every
  // context pattern is anchored (so users taken as candidates or looked ahead at are kept only
  // if they call its op) and no check counts or lists every user (`>>` counts them, ExternUse::
  // kMustNot lists them). The users index then holds a few users per anchor call, not every
  // edge of the graph.
  bool needs_only_anchor_users() const {
    for (std::uint32_t slot : anchor_slot_) {
      if (slot == kNoSlot) return false;
    }
    for (const UseConstraint& c : context_.constraints()) {
      if (c.kind == UseKind::kOnlyUsedBy) return false;
    }
    return context_.extern_use() == ExternUse::kMay;
  }

  // One slot per op some context pattern is anchored on: the search lists each such op's live
  // calls once (anchor_calls_), the candidates of a pattern tried everywhere.
  void find_anchor_slots() {
    for (auto [anchored, op] : anchors_) {
      std::uint32_t slot = kNoSlot;
      if (anchored && op.valid()) {
        auto known = std::find(anchor_ops_.begin(), anchor_ops_.end(), op);
        slot = static_cast<std::uint32_t>(known - anchor_ops_.begin());
        if (known == anchor_ops_.end()) anchor_ops_.push_back(op);
      }
      anchor_slot_.push_back(slot);
    }
    anchor_calls_.resize(anchor_ops_.size());
  }

  // Whether two assignments the search makes may hold one set of nodes (so find_all keeps a
  // table of the sets reported). They cannot when every two patterns that could take one node
  // (one anchor op, or either unanchored) are interchangeable: then each takes nodes only of
  // its own op, no two hold one node (no same-node patterns), and within an op in_order fixes
  // which pattern takes which node.
  bool may_find_one_set_twice() const {
    if (ids_.size() > 64) return true;  // interchangeable_ is not worked out
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      for (std::size_t j = i + 1; j < ids_.size(); ++j) {
        const bool apart = anchors_[i].first && anchors_[j].first &&
                           anchors_[i].second != anchors_[j].second;
        if (!apart && std::find(interchangeable_[i].begin(), interchangeable_[i].end(), j) ==
                          interchangeable_[i].end()) {
          return true;
        }
      }
    }
    return false;
  }

  // Interchangeable context patterns: two that no constraint, same-shape group or same-node
  // rule names, and whose patterns are the same shape up to their private nodes (the
  // projections of a QKV context: `dense(x, wq)`, `dense(x, wk)`, x shared). Swapping their
  // nodes in a match gives a match of the same nodes, so the search takes only the order in
  // which their nodes increase with their positions: a QKV context is searched once per block,
  // not 3! times. Worked out for contexts of up to 64 patterns (each pattern walked once per
  // context pattern); larger ones are searched without it.
  void find_interchangeable_patterns() {
    const std::size_t n = ids_.size();
    interchangeable_.assign(n, {});
    if (n < 2 || n > 64) return;
    const PatternGraph& patterns = matcher_.compiled().graph;
    std::vector<std::uint8_t> reached(patterns.size(), 0);  // by how many context patterns, to 2
    for (PatternId root : ids_) {
      for (PatternId id : patterns.post_order(root)) {
        if (reached[id.index()] < 2) ++reached[id.index()];
      }
    }
    std::vector<bool> free(n, true);
    for (const UseConstraint& c : context_.constraints()) free[c.producer] = free[c.consumer] = false;
    for (const std::vector<std::size_t>& group : context_.same_shape_groups()) {
      for (std::size_t i : group) free[i] = false;
    }
    for (std::size_t i = 0; i < n; ++i) {
      free[i] = free[i] && same_node_[i].empty() && reached[ids_[i].index()] == 1;
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (free[i] && free[j] && same_up_to_private_nodes(ids_[i], ids_[j], reached)) {
          interchangeable_[i].push_back(j);
          interchangeable_[j].push_back(i);
        }
      }
    }
  }
  bool same_up_to_private_nodes(PatternId a, PatternId b,
                                const std::vector<std::uint8_t>& reached) const {
    const PatternGraph& patterns = matcher_.compiled().graph;
    absl::flat_hash_map<std::uint32_t, std::uint32_t> forward, backward;
    std::vector<std::pair<PatternId, PatternId>> stack{{a, b}};
    while (!stack.empty()) {
      auto [x, y] = stack.back();
      stack.pop_back();
      if (reached[x.index()] >= 2 || reached[y.index()] >= 2) {
        if (x == y) continue;  // one shared node
        return false;
      }
      auto [to, added] = forward.try_emplace(x.index(), y.index());
      auto [from, added_back] = backward.try_emplace(y.index(), x.index());
      if (to->second != y.index() || from->second != x.index()) return false;
      if (!added) continue;
      const PatternNode& p = patterns.node(x);
      const PatternNode& q = patterns.node(y);
      if (p.kind != q.kind || p.any_arity != q.any_arity || p.index != q.index ||
          p.name != q.name || p.role != q.role || p.attrs != q.attrs || p.type != q.type ||
          p.shape != q.shape || p.expr != q.expr || p.redirect.valid() || q.redirect.valid() ||
          p.operands.size() != q.operands.size()) {
        return false;
      }
      for (std::size_t k = 0; k < p.operands.size(); ++k) stack.push_back({p.operands[k], q.operands[k]});
    }
    return true;
  }

  // A context pattern that constrains another one at the same node (`p.has_attr(..)` when both
  // it and p are in the context, as a Relax block makes them: the call's arguments are tied to
  // p, the fork to the has_attr) matches the same node as that one, not another: each lists
  // the other in same_node_.
  void find_same_node_patterns() {
    const PatternGraph& patterns = matcher_.compiled().graph;
    absl::flat_hash_map<std::uint32_t, std::size_t> position;
    for (std::size_t i = 0; i < ids_.size(); ++i) position.emplace(ids_[i].index(), i);
    same_node_.resize(ids_.size());
    std::vector<PatternId> stack;
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      stack.assign(1, ids_[i]);
      for (std::size_t steps = 0; !stack.empty() && steps < patterns.size(); ++steps) {
        PatternId id = stack.back();
        stack.pop_back();
        if (auto found = position.find(id.index()); found != position.end() && found->second != i) {
          same_node_[i].push_back(found->second);
          same_node_[found->second].push_back(i);
        }
        const PatternNode& node = patterns.node(id);
        switch (node.kind) {
          case PatternKind::kAttr:
          case PatternKind::kType:
          case PatternKind::kDataType:
          case PatternKind::kShape:
            stack.push_back(node.operands[0]);
            break;
          case PatternKind::kAnd:
            stack.insert(stack.end(), node.operands.begin(), node.operands.end());
            break;
          case PatternKind::kDominator:
            stack.push_back(node.operands[2]);
            break;
          default:
            break;
        }
      }
    }
  }

  // Whether pattern `i` may take `node`: no other pattern holds it, or only those that match
  // the same node as `i` (same_node_).
  bool free_for(std::size_t i, NodeId node) const {
    std::uint32_t holders = holders_[node.index()];
    if (holders == 0) return true;
    std::uint32_t related = 0;
    for (std::size_t j : same_node_[i]) related += assigned_[j] == node;
    return related == holders;
  }

  // The direct arguments of the call a pattern is (CompiledPattern::call_under), or none.
  std::vector<PatternId> call_arguments(PatternId id) const {
    const detail::CompiledPattern& compiled = matcher_.compiled();
    PatternId call = compiled.call_under(id);
    if (!call.valid()) return {};
    const std::vector<PatternId>& operands = compiled.graph.operands(call);
    return {operands.begin() + 1, operands.end()};
  }

  // The order patterns are placed in and where each one's candidates come from: after a
  // pattern is placed, the unplaced ones a constraint ties to it (first come, first placed),
  // then those with a call argument under a placed pattern, and when none is left, the
  // cheapest unplaced one, tried everywhere. Linear in the context: each constraint and call
  // argument is looked at a bounded number of times, each pattern node owned once.
  void plan() {
    const std::size_t n = ids_.size();
    const std::vector<UseConstraint>& constraints = context_.constraints();
    const PatternGraph& patterns = matcher_.compiled().graph;
    std::vector<bool> placed(n, false), owned(patterns.size(), false);
    std::deque<Level> by_edge, by_shared;
    auto scan_cost = [&](std::size_t i) -> std::uint64_t {
      if (!anchors_[i].first) return std::numeric_limits<std::uint64_t>::max();
      return anchor_slot_[i] == kNoSlot ? 0 : anchor_calls_[anchor_slot_[i]].size();
    };
    std::vector<std::size_t> scan_order(n);
    for (std::size_t i = 0; i < n; ++i) scan_order[i] = i;
    std::stable_sort(scan_order.begin(), scan_order.end(),
                     [&](std::size_t a, std::size_t b) { return scan_cost(a) < scan_cost(b); });
    std::size_t scan_next = 0;
    std::vector<PatternId> stack;
    levels_.clear();
    level_of_.assign(n, 0);
    while (levels_.size() < n) {
      std::optional<Level> next;
      for (std::deque<Level>* queue : {&by_edge, &by_shared}) {
        while (!next && !queue->empty()) {
          if (!placed[queue->front().pattern]) next = std::move(queue->front());
          queue->pop_front();
        }
      }
      while (!next) {
        std::size_t i = scan_order[scan_next++];
        if (!placed[i]) next = make_level(i, Source::kScan, 0);
      }
      const std::size_t p = next->pattern;
      placed[p] = true;
      level_of_[p] = levels_.size();
      levels_.push_back(std::move(*next));
      for (std::size_t c : touching_[p]) {
        if (constraints[c].producer == p && !placed[constraints[c].consumer]) {
          by_edge.push_back(make_level(constraints[c].consumer, Source::kUsersOfProducer, p));
        } else if (constraints[c].consumer == p && !placed[constraints[c].producer]) {
          by_edge.push_back(make_level(constraints[c].producer, Source::kOperandsOfConsumer, p));
        }
      }
      stack.assign(1, ids_[p]);
      while (!stack.empty()) {
        PatternId id = stack.back();
        stack.pop_back();
        if (owned[id.index()]) continue;
        owned[id.index()] = true;
        if (auto tied = argument_of_.find(id.index()); tied != argument_of_.end()) {
          for (std::size_t j : tied->second) {
            if (!placed[j]) by_shared.push_back(make_level(j, Source::kUsersOfShared, id.index()));
          }
        }
        const PatternNode& node = patterns.node(id);
        stack.insert(stack.end(), node.operands.begin(), node.operands.end());
        if (node.redirect.valid()) stack.push_back(node.redirect);
      }
    }
    followers_.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j : interchangeable_[i]) {
        const Level& later = levels_[level_of_[j]];
        if (j > i && later.source == Source::kUsersOfShared) {
          PatternId shared(static_cast<std::uint32_t>(later.tie));
          followers_[i].push_back(make_follower(i, j, shared));
        }
      }
    }
  }

  // Whether the pattern at context position `i` may match at `node` (its anchor's op).
  bool may_match(std::size_t i, NodeId node) const {
    auto [anchored, op] = anchors_[i];
    return !anchored || (op.valid() && graph_.kind(node) == NodeKind::kCall &&
                         graph_.called_op(node) == op);
  }

  std::span<const NodeId> arguments_of(NodeId node) const {
    return graph_.kind(node) == NodeKind::kCall ? graph_.args(node) : graph_.operands(node);
  }

  bool holds(const UseConstraint& c) const {
    NodeId producer = assigned_[c.producer], consumer = assigned_[c.consumer];
    std::span<const NodeId> arguments = arguments_of(consumer);
    bool uses = false;
    if (c.index >= 0) {
      uses = static_cast<std::size_t>(c.index) < arguments.size() &&
             arguments[static_cast<std::size_t>(c.index)] == producer;
    } else {
      std::span<const NodeId> operands = graph_.operands(consumer);
      uses = std::find(operands.begin(), operands.end(), producer) != operands.end();
    }
    return uses && (c.kind == UseKind::kUsedBy || users_.user_count(producer) == 1);
  }

  // Every constraint between the pattern just placed and those placed before it.
  bool constraints_hold(std::size_t pattern) const {
    for (std::size_t i : touching_[pattern]) {
      const UseConstraint& c = context_.constraints()[i];
      if (!assigned_[c.producer].valid() || !assigned_[c.consumer].valid()) continue;
      if (!holds(c)) return false;
    }
    return true;
  }

  // Interchangeable patterns take increasing nodes (find_interchangeable_patterns).
  bool in_order(std::size_t pattern, NodeId node) const {
    for (std::size_t j : interchangeable_[pattern]) {
      if (assigned_[j].valid() && (j < pattern) != (assigned_[j] < node)) return false;
    }
    return true;
  }

  // Whether the unplaced patterns interchangeable with `pattern` that come after it can still
  // take nodes above `node` (in_order), counted where their candidates are known before the
  // try: the users of a shared pattern's node, bound already or read off `node`'s arguments
  // (make_follower). Patterns drawing on one users list need as many of its users above
  // `node` that their anchor admits; the list is in id order, so these are looked for from its
  // end, passing over at most kLookAhead others (past them, assume they are there: the cost
  // per try stays bounded). A look ahead that spares the tries that could not complete (a QKV
  // block tried from its second or third projection); it only drops choices that in_order
  // would refuse further on. Sets followers_known_: whether every list was known, so that
  // asking again once `pattern` is placed would tell nothing new.
  bool later_may_follow(std::size_t pattern, NodeId node) {
    constexpr std::size_t kLookAhead = 16;
    needs_.clear();
    followers_known_ = true;
    for (const Follower& later : followers_[pattern]) {
      if (assigned_[later.pattern].valid()) continue;
      NodeId from = matcher_.first_binding(later.shared);
      if (!from.valid() && later.argument != Follower::kUnread) {
        std::span<const NodeId> args = graph_.args(node);
        if (args.size() == later.arity) from = args[later.argument];
      }
      if (!from.valid()) {
        followers_known_ = false;
        continue;
      }
      auto same = std::find_if(needs_.begin(), needs_.end(),
                               [from](const Need& need) { return need.from == from; });
      if (same == needs_.end()) {
        needs_.push_back({.from = from, .pattern = later.pattern, .count = 1});
      } else {
        ++same->count;  // interchangeable patterns have one anchor: same->pattern's serves
      }
    }
    for (const Need& need : needs_) {
      std::span<const NodeId> users = users_.users(need.from);
      std::size_t found = 0, passed = 0;
      for (auto user = users.end(); user != users.begin() && found < need.count;) {
        --user;
        if (!(node < *user)) break;
        if (may_match(need.pattern, *user)) {
          ++found;
        } else if (++passed > kLookAhead) {
          found = need.count;
        }
      }
      if (found < need.count) return false;
    }
    return true;
  }

  // Pattern j, interchangeable with i and placed later among the users of `shared`. Where i's
  // call has `shared` as a direct argument and matches calls of one op in argument order
  // (anchored, no commutative swap), the node `shared` binds when i matches at a node can be
  // read off that node's arguments before trying it (later_may_follow).
  Follower make_follower(std::size_t i, std::size_t j, PatternId shared) const {
    Follower follower{.pattern = j, .shared = shared, .arity = 0, .argument = Follower::kUnread};
    auto [anchored, op] = anchors_[i];
    if (!anchored || matcher_.swaps_arguments(op)) return follower;
    const detail::CompiledPattern& compiled = matcher_.compiled();
    const std::vector<PatternId>& operands = compiled.graph.operands(compiled.call_under(ids_[i]));
    auto argument = std::find(operands.begin() + 1, operands.end(), shared);
    if (argument == operands.end()) return follower;
    follower.arity = static_cast<std::uint32_t>(operands.size() - 1);
    follower.argument = static_cast<std::uint32_t>(argument - operands.begin() - 1);
    return follower;
  }

  // The checks that need every pattern placed: same shapes and external uses.
  bool complete_match_holds() const {
    const Context& context = graph_.context();
    for (const std::vector<std::size_t>& group : context_.same_shape_groups()) {
      std::optional<detail::IdSpan<DimId>> first;
      for (std::size_t i : group) {
        TypeId type = detail::stored_type(graph_, assigned_[i]);
        if (!type.valid() || context.types.kind(type) != TypeKind::kTensor) return false;
        detail::IdSpan<DimId> dims = context.types.dims(type);
        if (!first) {
          first = dims;
        } else if (!std::equal(first->begin(), first->end(), dims.begin(), dims.end())) {
          return false;
        }
      }
    }
    if (context_.extern_use() == ExternUse::kMustNot) {
      for (const UseConstraint& c : context_.constraints()) {
        for (NodeId user : users_.users(assigned_[c.producer])) {
          if (holders_[user.index()] == 0) return false;
        }
      }
    }
    return true;
  }

  void fill_candidates(Level& level) {
    level.next = 0;
    switch (level.source) {
      case Source::kScan:
        if (anchors_[level.pattern].first) {
          const std::uint32_t slot = anchor_slot_[level.pattern];
          level.candidates = slot == kNoSlot ? std::span<const NodeId>() : anchor_calls_[slot];
          return;
        }
        level.own_candidates.clear();
        for (std::uint32_t i = 0; i < live_.size(); ++i) {
          if (live_[i]) level.own_candidates.push_back(NodeId(i));
        }
        level.candidates = level.own_candidates;
        return;
      case Source::kUsersOfProducer:
        level.candidates = users_.users(assigned_[level.tie]);
        return;
      case Source::kOperandsOfConsumer: {
        level.own_candidates.clear();
        for (NodeId operand : graph_.operands(assigned_[level.tie])) {
          if (std::find(level.own_candidates.begin(), level.own_candidates.end(), operand) ==
              level.own_candidates.end()) {
            level.own_candidates.push_back(operand);
          }
        }
        level.candidates = level.own_candidates;
        return;
      }
      case Source::kUsersOfShared: {
        NodeId shared = matcher_.first_binding(PatternId(static_cast<std::uint32_t>(level.tie)));
        if (!shared.valid()) {  // bound by an alternative not taken: try every node
          level.source = Source::kScan;
          fill_candidates(level);
          level.source = Source::kUsersOfShared;
          return;
        }
        level.candidates = users_.users(shared);
        return;
      }
    }
  }

  bool out_of_steps() {
    if (report_.steps < step_limit_) return false;
    report_.stopped = true;
    report_.stop_reason = fmt::format(
        "stopped at GraphMatchOptions::max_steps = {} tries, with {} matches found", step_limit_,
        report_.matches);
    return true;
  }

  void search(NodeId root, bool first_only, std::vector<Match>& found) {
    report_ = {};
    const std::uint32_t size = graph_.size();
    live_ = reachable_from(graph_, std::span(&root, 1));
    std::vector<std::uint32_t> slot_of_op(graph_.context().ops.size(), kNoSlot);
    for (std::uint32_t slot = 0; slot < anchor_ops_.size(); ++slot) {
      slot_of_op[anchor_ops_[slot].index()] = slot;
      anchor_calls_[slot].clear();
    }
    std::vector<bool> anchor_call(anchor_users_only_ ? size : 0, false);
    for (std::uint32_t i = 0; i < size; ++i) {
      if (!live_[i] || graph_.kind(NodeId(i)) != NodeKind::kCall) continue;
      OpId op = graph_.called_op(NodeId(i));
      if (op.valid() && slot_of_op[op.index()] != kNoSlot) {
        anchor_calls_[slot_of_op[op.index()]].push_back(NodeId(i));
        if (anchor_users_only_) anchor_call[i] = true;
      }
    }
    users_ = UsersIndex::build(graph_, anchor_users_only_ ? &anchor_call : &live_);
    step_limit_ = options_.max_steps != 0
                      ? options_.max_steps
                      : std::max<std::uint64_t>(
                            1u << 20, 64 * (std::uint64_t{size} + matcher_.compiled().graph.size()));
    match_limit_ = options_.max_matches != 0
                       ? options_.max_matches
                       : std::max<std::size_t>(65'536, 4 * std::size_t{size});
    plan();
    assigned_.assign(ids_.size(), NodeId());
    holders_.assign(size, 0);
    detail::NodeSetTable seen(ids_.size());
    std::vector<std::uint32_t> key;
    matcher_.forget_bindings(root);

    std::size_t depth = 0;
    fill_candidates(levels_[0]);
    for (;;) {
      Level& level = levels_[depth];
      if (level.assigned.valid()) {  // undo the choice made at this level
        matcher_.retract(level.watermark);
        --holders_[level.assigned.index()];
        assigned_[level.pattern] = NodeId();
        level.assigned = NodeId();
        if (depth == 0) matcher_.forget_bindings(root);
      }
      bool advanced = false;
      while (level.next < level.candidates.size()) {
        if (out_of_steps()) return;
        NodeId node = level.candidates[level.next++];
        if (!free_for(level.pattern, node) || !may_match(level.pattern, node) ||
            !in_order(level.pattern, node) || !later_may_follow(level.pattern, node)) {
          continue;
        }
        ++report_.steps;
        std::size_t watermark = matcher_.trail_size();
        if (!matcher_.extend(ids_[level.pattern], node)) continue;
        assigned_[level.pattern] = node;
        if (!constraints_hold(level.pattern) ||
            (!followers_known_ && !later_may_follow(level.pattern, node))) {
          assigned_[level.pattern] = NodeId();
          matcher_.retract(watermark);
          continue;
        }
        ++holders_[node.index()];
        level.assigned = node;
        level.watermark = watermark;
        advanced = true;
        break;
      }
      if (!advanced) {
        if (depth == 0) return;
        --depth;
        continue;
      }
      if (depth + 1 < levels_.size()) {
        ++depth;
        fill_candidates(levels_[depth]);
        continue;
      }
      if (!complete_match_holds()) continue;
      if (sets_may_repeat_) {
        key.clear();
        for (NodeId node : assigned_) key.push_back(node.index());
        std::sort(key.begin(), key.end());
        if (!seen.insert(key)) continue;
      }
      found.push_back(matcher_.snapshot(assigned_[0]));
      ++report_.matches;
      if (first_only) return;
      if (report_.matches == match_limit_) {
        report_.stopped = true;
        report_.stop_reason =
            fmt::format("stopped at GraphMatchOptions::max_matches = {}", match_limit_);
        return;
      }
    }
  }

  PatternContext context_;
  const Graph<D>& graph_;
  GraphMatchOptions options_;
  Matcher<D> matcher_;
  std::vector<PatternId> ids_;                  // per context pattern: its compiled id
  std::vector<std::pair<bool, OpId>> anchors_;  // per context pattern: Matcher::anchor_of
  std::vector<std::vector<std::size_t>> touching_;  // per context pattern: its constraints
  // per compiled pattern id: the context patterns with it as a direct call argument
  absl::flat_hash_map<std::uint32_t, std::vector<std::size_t>> argument_of_;
  std::vector<Level> levels_;
  std::vector<std::size_t> level_of_;  // per context pattern: its level
  struct Need {  // later patterns drawing on the users of `from` (later_may_follow)
    NodeId from;
    std::size_t pattern = 0;  // one of them
    std::size_t count = 0;    // how many
  };
  std::vector<Need> needs_;  // later_may_follow's scratch
  std::vector<std::vector<Follower>> followers_;  // per context pattern, set by plan()
  bool followers_known_ = false;                  // set by later_may_follow
  std::vector<NodeId> assigned_;  // per context pattern
  std::vector<std::uint32_t> holders_;  // per graph node: the context patterns assigned it
  std::vector<std::vector<std::size_t>> same_node_;  // per context pattern: see free_for
  std::vector<std::vector<std::size_t>> interchangeable_;  // per context pattern: see in_order
  static constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max();
  std::vector<OpId> anchor_ops_;                   // per slot: an op patterns are anchored on
  std::vector<std::uint32_t> anchor_slot_;         // per context pattern: its op's, or kNoSlot
  std::vector<std::vector<NodeId>> anchor_calls_;  // per slot: the op's live calls, in id order
  bool sets_may_repeat_ = true;                    // see may_find_one_set_twice
  bool anchor_users_only_ = false;                 // see needs_only_anchor_users
  std::vector<bool> live_;                         // per graph node: reachable from the root
  UsersIndex users_;
  std::uint64_t step_limit_ = 0;
  std::size_t match_limit_ = 0;
  GraphSearchReport report_;
};

template <Dialect D>
absl::StatusOr<std::vector<Match>> find_graph_matches(const PatternContext& context,
                                                      const Graph<D>& graph, NodeId root,
                                                      GraphMatchOptions options) {
  absl::StatusOr<GraphMatcher<D>> matcher = GraphMatcher<D>::make(context, graph, options);
  if (!matcher.ok()) return matcher.status();
  return matcher->find_all(root);
}

template <Dialect D>
absl::StatusOr<std::optional<Match>> match_graph(const PatternContext& context,
                                                 const Graph<D>& graph, NodeId root,
                                                 GraphMatchOptions options) {
  absl::StatusOr<GraphMatcher<D>> matcher = GraphMatcher<D>::make(context, graph, options);
  if (!matcher.ok()) return matcher.status();
  return matcher->first(root);
}

}  // namespace graphpat
