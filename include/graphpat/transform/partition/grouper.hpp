// The grouping half of partition and rewrite (Relay's PatternGrouper): which matches of a
// pattern become groups, with their parameters, body and PartitionedFromPattern name, decided on
// the input graph with the users index and the post-dominator tree. Internal; the public entry
// points are partition.hpp and rewrite.hpp.
//
//   graphpat::detail::PartitionGrouper<D> grouper(pattern, graph, roots, {}, nullptr);
//   std::vector<graphpat::detail::PartitionGroup> groups = grouper.run(report);
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/analysis/post_dominators.hpp"
#include "graphpat/analysis/reachability.hpp"
#include "graphpat/analysis/users.hpp"
#include "graphpat/ir/graph.hpp"
#include "graphpat/pattern/matcher.hpp"
#include "graphpat/transform/partition/report.hpp"

namespace graphpat {

namespace detail {

/// A group found on the input graph: its root, parameters (input nodes in order), and body nodes
/// (everything from the root down to the inputs, in increasing id order).
struct PartitionGroup {
  NodeId root;
  std::uint32_t number = 0;  // the attempt counter `g` of FunctionVar_<g>_<i>
  std::vector<NodeId> inputs;
  std::vector<NodeId> body;
  std::string name;  // the value of the dialect's partitioned_from_key: its body's node words
  Match match;       // what the pattern bound (rewrite callbacks read it)
  std::vector<DuplicatedInterior> duplicated;  // interior nodes also used outside the group
  /// GrouperOptions::outline_outside_uses, when an interior node is also used outside the
  /// group: what the function returns, the root and those nodes, in the body's visiting order
  /// (post-order: a single pattern's root last, a graph pattern's in its context's order).
  /// Empty when only the root is.
  std::vector<NodeId> outputs;
  NodeId output_node, output_user;  // the first interior node used outside, and its user
};

/// The word a node adds to PartitionedFromPattern (Relay's MatchExtractor).
template <Dialect D>
void append_node_word(const Graph<D>& graph, NodeId id, std::string& name) {
  switch (graph.kind(id)) {
    case NodeKind::kCall: {
      OpId op = graph.called_op(id);
      if (op.valid()) {
        name += graph.context().op_name(op);
        name += '_';
      } else {
        name += "Call_";
      }
      break;
    }
    case NodeKind::kTuple: name += "Tuple_"; break;
    case NodeKind::kTupleGetItem: {
      fmt::format_int index(graph.index(id));
      name.append("TupleGetItem").append(index.data(), index.size()) += '_';
      break;
    }
    case NodeKind::kFunction: name += "Function"; break;
    case NodeKind::kLet: name += "Let_"; break;
    case NodeKind::kIf: name += "If_"; break;
    default: break;
  }
}

/// Whether `id` is a function literal made by a partition (it carries the dialect's
/// partitioned_from_key).
template <Dialect D>
bool is_partitioned_function(const Graph<D>& graph, NodeId id) {
  if (graph.kind(id) != NodeKind::kFunction || !graph.attrs(id).valid()) return false;
  const AttrTable& attrs = graph.context().attrs;
  return attrs.kind(graph.attrs(id)) == AttrKind::kObject &&
         attrs.find_field(graph.attrs(id), dialect_conventions<D>().partitioned_from_key)
             .has_value();
}

/// How a PartitionGrouper decides.
struct GrouperOptions {
  MatchOptions match = {};
  /// Refuse a group whose function would compute a stateful call a second time
  /// (kDuplicatesStateful).
  bool refuse_stateful_copies = false;
  /// The roots are a module's definitions, which must stay Functions: never group roots.
  bool roots_are_definitions = false;
  /// An interior node used outside the group by a node the root does not post-dominate is an
  /// output of the group (PartitionGroup::outputs) instead of a reason to refuse it. The group
  /// is still refused (kUsedOutside) when such a user reaches one of the group's inputs (the
  /// function would read its own output) or when another interior node is duplicated (its
  /// outside user reaches an input too).
  bool outline_outside_uses = false;
};

/// Finds the groups of one partition call: Relay's PatternGrouper, on id scans.
///
/// What may become a group (partition.hpp states the rule for users): a match is made a group
/// only if a call can take its root's place. It is not when the pattern bound the root itself
/// as an input (the function would return its parameter; TVM's extractor then claims no node,
/// so the group is never rewritten), when the root is a Var (it may be a function's parameter
/// or a let's variable, slots only a Var can fill; TVM never outlines one, as its patterns
/// always bind a Var by a leaf), or when the root is a module definition (TVM's MergeComposite
/// aborts in Downcast<Function>). Such matches count in `PartitionReport::not_outlined`. A
/// group is refused when a variable bound inside it (by a function or let it contains) is read
/// outside it, as an input or through one (kEscapingVariable): the call would pass a variable
/// out of its scope, which TVM does (e.g. is_let(wildcard(), wildcard(), wildcard())).
template <Dialect D>
class PartitionGrouper {
 public:
  /// Groups under `roots`, except under the roots `opaque_roots` marks (may be null).
  PartitionGrouper(const Pattern& pattern, const Graph<D>& graph, std::span<const NodeId> roots,
                   GrouperOptions options, const std::vector<bool>* opaque_roots)
      : PartitionGrouper(graph, roots, options, opaque_roots) {
    matcher_.emplace(pattern, graph, options.match);
  }
  /// A grouper of matches found elsewhere (a graph pattern's): make_group only.
  PartitionGrouper(const Graph<D>& graph, std::span<const NodeId> roots, GrouperOptions options,
                   const std::vector<bool>* opaque_roots)
      : graph_(graph),
        refuse_stateful_copies_(options.refuse_stateful_copies),
        outline_outside_uses_(options.outline_outside_uses),
        live_(reachable_from(graph, roots)),
        roots_(roots.begin(), roots.end()),
        group_of_(graph.size(), kNoGroup),
        opaque_(graph.size(), false),
        visit_mark_(graph.size(), 0),
        input_mark_(graph.size(), 0),
        outermost_binder_(graph.size()) {
    if (options.roots_are_definitions) definitions_.insert(roots.begin(), roots.end());
    for (std::size_t k = 0; opaque_roots != nullptr && k < roots.size(); ++k) {
      if ((*opaque_roots)[k]) opaque_[roots[k].index()] = true;
    }
    // The function each node belongs to (for the dominator pattern's scope).
    scope_.assign(graph.size(), NodeId());
    for (NodeId root : roots) scope_[root.index()] = root;
    for (std::uint32_t i = graph.size(); i-- > 0;) {
      if (!live_[i]) continue;
      for (NodeId operand : graph.operands(NodeId(i))) {
        if (!scope_[operand.index()].valid()) scope_[operand.index()] = scope_[i];
      }
    }
  }

  /// The nodes the roots reach (reachable_from).
  [[nodiscard]] const std::vector<bool>& live() const { return live_; }
  /// Whether `id` is a function a partition made or a node inside one: never grouped (run()
  /// finds them as it goes; this is for groups made from matches found elsewhere).
  bool in_partitioned_function(NodeId id) {
    if (!opaque_marked_) {
      opaque_marked_ = true;
      for (std::uint32_t i = graph_.size(); i-- > 0;) {
        if (live_[i] && (opaque_[i] || is_partitioned_function(graph_, NodeId(i)))) {
          for (NodeId operand : graph_.operands(NodeId(i))) opaque_[operand.index()] = true;
        }
      }
    }
    return opaque_[id.index()] || is_partitioned_function(graph_, id);
  }

  /// Every accepted group, output side first; rejections go to `report`.
  std::vector<PartitionGroup> run(PartitionReport& report) {
    std::vector<PartitionGroup> groups;
    std::vector<bool>& opaque = opaque_;
    for (std::uint32_t i = graph_.size(); i-- > 0;) {
      if (!live_[i]) continue;
      NodeId id(i);
      if (opaque[i] || is_partitioned_function(graph_, id)) {
        for (NodeId operand : graph_.operands(id)) opaque[operand.index()] = true;
        continue;
      }
      if (!matcher_->may_match(id)) continue;
      if (group_of_[i] != kNoGroup) {
        // Refused whatever the match binds: whether it matches is all the report needs.
        if (matcher_->matches(id, scope_[i])) refuse_claimed_root(id, report);
        continue;
      }
      Match match = matcher_->match(id, scope_[i]);
      if (!match) continue;
      PatternId pattern_root = match.pattern_root();
      PartitionGroup group = make_group(std::move(match), std::span(&pattern_root, 1), report);
      if (group.root.valid()) groups.push_back(std::move(group));
    }
    report.stopped_matches += static_cast<std::uint32_t>(matcher_->stopped().size());
    return groups;
  }

  /// The group `match` makes, whose patterns are those under `pattern_roots`, the nodes they
  /// bind that are not inputs its outputs' sources (the root is the last of them by id); or a
  /// group with an invalid root, when refused (the reason goes to `report`). An accepted group
  /// claims its nodes: a later group that holds one is refused (kOverlap).
  PartitionGroup make_group(Match match, std::span<const PatternId> pattern_roots,
                            PartitionReport& report) {
    PartitionGroup group = make_group_unclaimed(std::move(match), pattern_roots, report);
    if (group.root.valid()) {
      for (NodeId member : group.body) group_of_[member.index()] = 0;
    }
    return group;
  }

 private:
  static constexpr std::uint32_t kNoGroup = NodeId::kNone;

  // A match at a root an earlier group holds. Relay's grouper visits no node already grouped
  // (of any kind: an op or a constant an earlier group holds is not outlined again), so this
  // costs no attempt number.
  static void refuse_claimed_root(NodeId root, PartitionReport& report) {
    report.rejected.push_back({root, RejectionReason::kOverlap, root, {}});
  }

  // Whether `node` is an input of the group being made.
  [[nodiscard]] bool is_input(NodeId node) const { return input_mark_[node.index()] == attempts_; }

  // Relay's EmbedConst: a constant bound by is_constant() or is_expr(constant) stays in the body.
  bool embedded_constant(NodeId node, const PatternGraph& patterns, PatternId leaf) const {
    if (graph_.kind(node) != NodeKind::kConstant) return false;
    const PatternNode& p = patterns.node(leaf);
    return p.kind == PatternKind::kConstant || p.kind == PatternKind::kExpr;
  }

  // Nodes a dominator's parent or path bound, and everything inside a matched function pattern:
  // never parameters.
  absl::flat_hash_set<NodeId> fuzzy_nodes(const Match& match,
                                          const std::vector<PatternId>& order) const {
    absl::flat_hash_set<NodeId> fuzzy;
    const PatternGraph& patterns = match.pattern_graph();
    for (PatternId id : order) {
      const PatternNode& p = patterns.node(id);
      if (p.kind == PatternKind::kDominator) {
        for (std::size_t k = 0; k < 2; ++k) {
          for (NodeId bound : match.bindings(p.operands[k])) fuzzy.insert(bound);
        }
      } else if (p.kind == PatternKind::kFunction) {
        for (NodeId function : match.bindings(id)) {
          std::vector<NodeId> stack{graph_.body(function)};
          while (!stack.empty()) {
            NodeId top = stack.back();
            stack.pop_back();
            if (!fuzzy.insert(top).second) continue;
            for (NodeId operand : graph_.operands(top)) stack.push_back(operand);
          }
        }
      }
    }
    return fuzzy;
  }

  PartitionGroup make_group_unclaimed(Match match, std::span<const PatternId> pattern_roots,
                                      PartitionReport& report) {
    PartitionGroup group;
    const PatternGraph& patterns = match.pattern_graph();
    const bool graph_pattern = pattern_roots.size() > 1;
    NodeId root = match.root();
    if (!graph_pattern && group_of_[root.index()] != kNoGroup) {
      refuse_claimed_root(root, report);
      return {};
    }
    group.number = attempts_++;  // marks of this attempt hold attempts_: none is set yet
    const std::vector<PatternId>& order = post_order(patterns, pattern_roots);
    absl::flat_hash_set<NodeId> fuzzy = fuzzy_nodes(match, order);
    // Inputs and body are gathered in arrays kept from group to group and copied once, at their
    // size: no growth step by step, no spare capacity kept by the groups.
    std::vector<NodeId>& inputs = inputs_scratch_;
    inputs.clear();
    auto make_input = [&](NodeId node, PatternId leaf) {
      NodeKind kind = graph_.kind(node);
      if (fuzzy.contains(node) || kind == NodeKind::kOp || kind == NodeKind::kFunction ||
          embedded_constant(node, patterns, leaf)) {
        return;
      }
      if (!is_input(node)) {
        input_mark_[node.index()] = attempts_;
        inputs.push_back(node);
      }
    };
    for (PatternId id : order) {
      const PatternNode& p = patterns.node(id);
      if (p.any_arity && (p.kind == PatternKind::kTuple || p.kind == PatternKind::kCall)) {
        // The items of is_tuple(None) / p(None); such a tuple pattern is not a leaf.
        for (NodeId bound : match.bindings(id)) {
          auto items = p.kind == PatternKind::kTuple ? graph_.fields(bound) : graph_.args(bound);
          for (NodeId item : items) make_input(item, id);
        }
      } else if (p.operands.empty() && !p.redirect.valid()) {  // a redirect is not a leaf
        for (NodeId bound : match.bindings(id)) make_input(bound, id);
      }
    }
    group.inputs.assign(inputs.begin(), inputs.end());
    if (graph_pattern) {  // the root: the last node its patterns bound that is not an input
      root = NodeId();
      for (PatternId id : pattern_roots) {
        NodeId bound = match.bound(id);
        if (!is_input(bound) && (!root.valid() || root < bound)) root = bound;
      }
      if (!root.valid()) {
        ++report.not_outlined;
        return {};
      }
    }
    if (is_input(root) || graph_.kind(root) == NodeKind::kVar || definitions_.contains(root)) {
      ++report.not_outlined;  // a call cannot take the root's place (see the class comment)
      return {};
    }

    // The body: everything from the root down to the inputs, named in Relay's visiting order
    // (operands in order, post-order, each node once).
    std::vector<BodyFrame>& stack = body_stack_;
    std::vector<NodeId>& body = body_scratch_;
    body.clear();
    auto enter = [&](NodeId node) {
      if (is_input(node) || visit_mark_[node.index()] == attempts_) return;
      visit_mark_[node.index()] = attempts_;
      stack.push_back({node, 0});
    };
    auto walk = [&](NodeId start) {
      enter(start);
      while (!stack.empty()) {
        BodyFrame& top = stack.back();
        auto operands = graph_.operands(top.node);
        if (top.next < operands.size()) {
          enter(operands[top.next++]);
          continue;
        }
        append_node_word(graph_, top.node, group.name);
        body.push_back(top.node);
        stack.pop_back();
      }
    };
    if (!graph_pattern) {
      walk(root);
    } else {  // a graph pattern's nodes, in the context's order
      for (PatternId id : pattern_roots) walk(match.bound(id));
    }
    group.body.assign(body.begin(), body.end());

    // Validity: no interior node in an earlier group, none used outside unless the root
    // post-dominates that use or (outline_outside_uses) the node becomes an output.
    for (NodeId node : group.body) {
      NodeKind kind = graph_.kind(node);
      if (kind == NodeKind::kOp || kind == NodeKind::kFunction || kind == NodeKind::kConstant) {
        continue;
      }
      if (group_of_[node.index()] != kNoGroup) {
        report.rejected.push_back({root, RejectionReason::kOverlap, node, {}});
        return {};
      }
      if (node == root) {
        if (outline_outside_uses_) group.outputs.push_back(root);
        continue;
      }
      for (NodeId user : users().users(node)) {
        if (visit_mark_[user.index()] == attempts_ && !is_input(user)) continue;
        if (post_dominators().post_dominates(root, user)) {
          group.duplicated.push_back({root, node, user});
        } else if (!outline_outside_uses_) {
          report.rejected.push_back({root, RejectionReason::kUsedOutside, node, user});
          return {};
        } else if (group.outputs.empty() || group.outputs.back() != node) {
          if (!group.output_node.valid()) {
            group.output_node = node;
            group.output_user = user;
          }
          group.outputs.push_back(node);
        }
      }
    }
    if (!group.output_node.valid()) group.outputs.clear();  // the root alone
    std::sort(group.body.begin(), group.body.end());
    if (!group.outputs.empty()) {
      // An output's outside user must not reach an input (nor may a duplicated node's, which
      // always does): the call would read what it returns.
      if (!group.duplicated.empty()) {
        report.rejected.push_back(
            {root, RejectionReason::kUsedOutside, group.output_node, group.output_user});
        return {};
      }
      NodeId lowest = *std::min_element(group.outputs.begin(), group.outputs.end());
      if (auto [node, user] = output_read_by_input(lowest, group.inputs); node.valid()) {
        report.rejected.push_back({root, RejectionReason::kUsedOutside, node, user});
        return {};
      }
    }
    if (auto [binder, reader] = escaping_variable(group.body); binder.valid()) {
      report.rejected.push_back({root, RejectionReason::kEscapingVariable, binder, reader});
      return {};
    }
    if (refuse_stateful_copies_) {
      for (const DuplicatedInterior& duplicated : group.duplicated) {
        NodeId stateful = stateful_call_under(duplicated.node);
        if (stateful.valid()) {
          report.rejected.push_back(
              {root, RejectionReason::kDuplicatesStateful, stateful, duplicated.user});
          return {};
        }
      }
    }
    group.root = root;
    group.match = std::move(match);
    return group;
  }

  // A binder of the group's body (a function or let in `body`, sorted by id) whose variable a
  // node outside the body reads, with that node (an input, or a node under one); or none. A node
  // reads a variable bound in the body iff its `outermost_binder_` is valid: the outermost such
  // binder among its operands' that is not the node itself (a binder's operand that reads only
  // its own variables yields it, one that reads an outer one yields that outer one, since the
  // binders whose variables a node reads enclose each other, the outer with the larger id).
  std::pair<NodeId, NodeId> escaping_variable(const std::vector<NodeId>& body) {
    bool binds = false;
    for (NodeId node : body) {
      outermost_binder_[node.index()] = NodeId();
      NodeKind kind = graph_.kind(node);
      binds |= kind == NodeKind::kFunction || kind == NodeKind::kLet;
    }
    if (!binds) return {};
    for (NodeId node : body) {
      NodeKind kind = graph_.kind(node);
      if (kind != NodeKind::kFunction && kind != NodeKind::kLet) continue;
      auto variables = kind == NodeKind::kFunction ? graph_.params(node)
                                                   : graph_.operands(node).first(1);
      for (NodeId variable : variables) {
        if (is_input(variable)) return {node, variable};
        outermost_binder_[variable.index()] = node;
      }
    }
    for (NodeId node : body) {
      if (graph_.kind(node) == NodeKind::kVar) continue;
      NodeId outermost;
      for (NodeId operand : graph_.operands(node)) {
        if (visit_mark_[operand.index()] != attempts_) continue;  // not in the body
        NodeId binder = outermost_binder_[operand.index()];
        if (binder.valid() && binder != node && (!outermost.valid() || outermost < binder)) {
          outermost = binder;
        }
      }
      outermost_binder_[node.index()] = outermost;
    }
    for (NodeId node : body) {
      NodeId binder = outermost_binder_[node.index()];
      if (!binder.valid()) continue;
      for (NodeId user : users().users(node)) {
        if (visit_mark_[user.index()] != attempts_ || is_input(user)) {
          return {binder, user};
        }
      }
    }
    return {};
  }

  // A body node of the current group (marked in visit_mark_) that one of its `inputs` reads,
  // through nodes outside the group, with the outside node that reads it; or none. Only paths
  // down to an output matter (a cycle goes out of the group through one), so the walk stays
  // above `lowest`, the first output by id, and visits the nodes between it and the inputs
  // once each.
  std::pair<NodeId, NodeId> output_read_by_input(NodeId lowest,
                                                 const std::vector<NodeId>& inputs) {
    absl::flat_hash_set<NodeId> seen(inputs.begin(), inputs.end());
    std::vector<NodeId> stack(inputs.begin(), inputs.end());
    while (!stack.empty()) {
      NodeId top = stack.back();
      stack.pop_back();
      for (NodeId operand : graph_.operands(top)) {
        NodeKind kind = graph_.kind(operand);
        if (operand < lowest || kind == NodeKind::kOp || kind == NodeKind::kFunction ||
            kind == NodeKind::kConstant) {
          continue;  // below the body, or shared freely (as the validity check has it)
        }
        if (visit_mark_[operand.index()] == attempts_) return {operand, top};
        if (seen.insert(operand).second) stack.push_back(operand);
      }
    }
    return {};
  }

  // A stateful call among `node` and the body nodes it reads (the current group's: marked in
  // visit_mark_, inputs never are), or none: what a copy of `node` would compute again.
  NodeId stateful_call_under(NodeId node) const {
    absl::flat_hash_set<NodeId> seen{node};
    std::vector<NodeId> stack{node};
    while (!stack.empty()) {
      NodeId top = stack.back();
      stack.pop_back();
      if (graph_.kind(top) == NodeKind::kCall && graph_.called_op(top).valid() &&
          graph_.context().ops.info(graph_.called_op(top)).stateful) {
        return top;
      }
      for (NodeId operand : graph_.operands(top)) {
        if (visit_mark_[operand.index()] == attempts_ && seen.insert(operand).second) {
          stack.push_back(operand);
        }
      }
    }
    return {};
  }

  // The pattern nodes under `roots` in post-order: the same for every match of one alternative
  // (or of one graph pattern), so computed once per first root.
  const std::vector<PatternId>& post_order(const PatternGraph& patterns,
                                           std::span<const PatternId> roots) {
    auto [at, made] = post_orders_.try_emplace(roots.front());
    if (made) at->second = patterns.post_order(roots);
    return at->second;
  }

  // The users of each live node, built on first use: by the first match that makes a group.
  const UsersIndex& users() {
    if (!users_) users_ = UsersIndex::build(graph_, &live_);
    return *users_;
  }

  // The post-dominator tree, built on first use: only a group with an interior node used
  // outside it asks, and most partitions have none.
  const PostDominatorTree& post_dominators() {
    if (!post_dominators_) post_dominators_ = PostDominatorTree::build(graph_, roots_);
    return *post_dominators_;
  }

  const Graph<D>& graph_;
  bool refuse_stateful_copies_;
  bool outline_outside_uses_;
  std::optional<Matcher<D>> matcher_;  // the pattern's, for run()
  std::vector<bool> live_;
  std::optional<UsersIndex> users_;
  std::vector<NodeId> roots_;
  std::optional<PostDominatorTree> post_dominators_;
  absl::flat_hash_map<PatternId, std::vector<PatternId>> post_orders_;  // of matcher_'s patterns
  std::vector<NodeId> scope_;
  std::vector<std::uint32_t> group_of_;
  std::vector<bool> opaque_;  // not searched: in a partitioned function or an opaque root
  bool opaque_marked_ = false;  // whether in_partitioned_function has filled opaque_
  // Per node, the attempt (attempts_ then) whose body holds it, and the one whose input it is.
  std::vector<std::uint32_t> visit_mark_;
  std::vector<std::uint32_t> input_mark_;
  std::vector<NodeId> outermost_binder_;  // escaping_variable's, for the current group's body
  absl::flat_hash_set<NodeId> definitions_;
  // make_group's scratch, kept between groups so that a group allocates only what it keeps.
  struct BodyFrame {
    NodeId node;
    std::uint32_t next;
  };
  std::vector<BodyFrame> body_stack_;
  std::vector<NodeId> inputs_scratch_, body_scratch_;  // make_group_unclaimed's, reused
  std::uint32_t attempts_ = 0;
};

}  // namespace detail
}  // namespace graphpat
