// Common-subexpression elimination: a new module in which structurally identical pure nodes are
// one node, built in one forward scan through a hash-consing table: time linear in the graph,
// where TVM's EliminateCommonSubexpr scans a candidate list per op.
//
//   graphpat::CseResult<graphpat::relay::Dialect> result = graphpat::eliminate_common_subexpr(module);
//   fmt::print("{} nodes merged\n", result.report.merged);   // e.g. two `%20.0` became one
//   auto tvm_like = graphpat::eliminate_common_subexpr(module, {.relay_compat = true});
//
// Two modes:
// - `relay_compat` reproduces TVM v0.14 exactly: only calls of ops with at least one argument
//   that are not stateful, with equal attributes, whose arguments are the same node, equal
//   scalar constants, or tuples of those; and TupleGetItems of the same tuple and index. Tuples
//   themselves, calls of functions or variables, and constants are never merged. One table
//   serves the whole module, across nested functions and if-branches, as in TVM. The first
//   occurrence (in id order, which is TVM's post-order for parsed models) is kept.
// - The default mode also merges tuples, ifs, and constants equal by dtype, shape, type and bytes
//   (constants without bytes are kept apart: nothing says they are equal). Calls of anything but
//   an op are kept apart (the callee may be stateful). Types are not part of the key: an untyped
//   and a typed copy of one computation are one node, which keeps the first one's type.
//
// Scoping (default mode). Merging B into an equal earlier A makes B's users read A, so A is then
// evaluated wherever B was needed. That is only free when A is evaluated anyway: graphpat merges
// B into A only when A's scope encloses B's. A node's scope is the innermost if-branch or
// function body that every path from the roots to it passes through; two equal nodes in the two
// branches of one `if` therefore stay apart (merged, the branch's work would be done before the
// `if`, whichever way it goes), a node in a nested function reuses an equal node of the outer
// function (computed once instead of per call), and an outer node never reuses one from inside
// a function (which may never be called). `relay_compat` ignores scopes, as TVM does.
//
// Everything else of the input is kept: attributes, types, spans and function attributes of the
// nodes that remain, module attributes and type definitions.
#pragma once

#include <fmt/format.h>

#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "graphpat/analysis/reachability.hpp"
#include "graphpat/detail/intern_table.hpp"
#include "graphpat/ir/builder.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/transform/cse_interface.hpp"

namespace graphpat {

namespace detail {

/// What makes two candidates the same, besides their operand classes (their scopes decide
/// whether one may be merged into the other).
struct CseKeyRecord {
  NodeKind kind = NodeKind::kCall;
  std::array<std::uint32_t, 3> payload = {};

  friend bool operator==(const CseKeyRecord&, const CseKeyRecord&) = default;
  template <class H>
  friend H AbslHashValue(H state, const CseKeyRecord& record) {
    return H::combine(std::move(state), record.kind, record.payload);
  }
};
using CseKeyId = Id<struct CseKeyTag>;

/// The scope tree of the default mode: the top level, then one scope per if-branch and per
/// function body, each knowing its parent.
class ScopeTree {
 public:
  static constexpr std::uint32_t kUnset = NodeId::kNone;

  /// The scope of every node reachable from `roots` (kUnset for the others), in one backward
  /// scan: a node's users are final before it is reached.
  template <Dialect D>
  void build(const Graph<D>& graph, std::span<const NodeId> roots, const std::vector<bool>& live) {
    parents_.assign(1, kUnset);
    depths_.assign(1, 0);
    scope_.assign(graph.size(), kUnset);
    for (NodeId root : roots) scope_[root.index()] = 0;
    for (std::uint32_t user = graph.size(); user-- > 0;) {
      if (!live[user]) continue;
      NodeId id(user);
      auto operands = graph.operands(id);
      NodeKind kind = graph.kind(id);
      for (std::size_t i = 0; i < operands.size(); ++i) {
        std::uint32_t incoming = scope_[user];
        bool opens_scope = (kind == NodeKind::kIf && i > 0) ||
                           (kind == NodeKind::kFunction && i + 1 == operands.size());
        if (opens_scope) incoming = add_scope(incoming);
        std::uint32_t& scope = scope_[operands[i].index()];
        scope = scope == kUnset ? incoming : common_ancestor(scope, incoming);
      }
    }
  }

  [[nodiscard]] std::uint32_t scope(NodeId id) const { return scope_[id.index()]; }
  [[nodiscard]] std::uint32_t parent(std::uint32_t scope) const { return parents_[scope]; }

 private:
  std::uint32_t add_scope(std::uint32_t parent) {
    parents_.push_back(parent);
    depths_.push_back(depths_[parent] + 1);
    return static_cast<std::uint32_t>(parents_.size() - 1);
  }
  std::uint32_t common_ancestor(std::uint32_t a, std::uint32_t b) const {
    while (depths_[a] > depths_[b]) a = parents_[a];
    while (depths_[b] > depths_[a]) b = parents_[b];
    while (a != b) {
      a = parents_[a];
      b = parents_[b];
    }
    return a;
  }

  std::vector<std::uint32_t> parents_;
  std::vector<std::uint32_t> depths_;
  std::vector<std::uint32_t> scope_;
};

template <Dialect D>
class CommonSubexprEliminator {
 public:
  CommonSubexprEliminator(const Graph<D>& input, const CseOptions<D>& options)
      : input_(input), options_(options), output_(input.shared_context()), builder_(output_) {}

  /// Copies the nodes reachable from `roots` into output(), merging as the options say.
  void run(std::span<const NodeId> roots) {
    std::vector<bool> live = reachable_from(input_, roots);
    if (!options_.relay_compat) scopes_.build(input_, roots, live);
    // At most every live node is copied and keyed; growing the tables would hash them again.
    std::size_t live_nodes = 0, live_operands = 0;
    for (std::uint32_t i = 0; i < input_.size(); ++i) {
      if (!live[i]) continue;
      ++live_nodes;
      live_operands += input_.operands(NodeId(i)).size();
    }
    output_.reserve(live_nodes, live_operands);
    keys_.reserve(live_nodes, live_operands);  // a call's key holds its operands' classes
    first_representative_.reserve(live_nodes);
    old_to_new_.assign(input_.size(), NodeId());
    value_class_.assign(options_.relay_compat ? live_nodes : 0, kNoClass);
    std::vector<NodeId> operands;
    for (std::uint32_t i = 0; i < input_.size(); ++i) {
      if (!live[i]) continue;
      NodeId old_id(i);
      operands.clear();
      for (NodeId operand : input_.operands(old_id)) operands.push_back(old_to_new_[operand.index()]);
      old_to_new_[i] = rebuild(old_id, operands);
    }
  }

  [[nodiscard]] NodeId map(NodeId old_id) const { return old_to_new_[old_id.index()]; }
  [[nodiscard]] Graph<D>& output() { return output_; }
  [[nodiscard]] CseReport& report() { return report_; }
  [[nodiscard]] std::vector<NodeId>& old_to_new() { return old_to_new_; }

 private:
  NodeId rebuild(NodeId old_id, std::span<const NodeId> operands) {
    bool skipped = options_.skip && options_.skip(input_, old_id);
    if (skipped) return remember(builder_.copy(input_, old_id, operands, Sharing::kFresh));
    if (!build_key(old_id, operands)) {
      // Kept as it is; a non-fresh node must not fall into an equal one through the builder's
      // table now that its operands may have been merged.
      return remember(
          builder_.copy(input_, old_id, operands,
                        input_.is_fresh(old_id) ? Sharing::kFresh : Sharing::kHashConsIfNew));
    }
    std::uint32_t scope = options_.relay_compat ? 0 : scopes_.scope(old_id);
    CseKeyId key = keys_.intern(key_, key_operands_);
    const bool new_key = key.index() == first_representative_.size();
    if (!new_key) {
      if (NodeId found = representative(key, scope); found.valid()) {
        count_merge(old_id);
        return found;
      }
    }
    // The first of its kind in its scope joins the builder's table unless an equal node is
    // already there (one of a scope that does not enclose this one), so the output stays
    // hash-consed wherever that is sound.
    NodeId created = remember(builder_.copy(input_, old_id, operands, Sharing::kHashConsIfNew));
    if (new_key) {
      first_representative_.push_back({created, scope});
    } else {
      later_representatives_.emplace(std::pair(key.index(), scope), created);
    }
    return created;
  }

  // The node of `key` a node in `scope` merges into: the representative of the innermost scope
  // enclosing it (itself included) that has one, else none.
  NodeId representative(CseKeyId key, std::uint32_t scope) const {
    const Representative& first = first_representative_[key.index()];
    for (std::uint32_t s = scope; s != ScopeTree::kUnset; s = scopes_parent(s)) {
      if (first.scope == s) return first.node;
      if (later_representatives_.empty()) continue;
      auto later = later_representatives_.find(std::pair(key.index(), s));
      if (later != later_representatives_.end()) return later->second;
    }
    return NodeId();
  }

  std::uint32_t scopes_parent(std::uint32_t scope) const {
    return options_.relay_compat ? ScopeTree::kUnset : scopes_.parent(scope);
  }

  // Fills key_/key_operands_ for a node that may be merged; false when it may not.
  bool build_key(NodeId old_id, std::span<const NodeId> operands) {
    const Node& node = input_.node(old_id);
    const Context& context = input_.context();
    key_ = {node.kind, node.payload};
    key_operands_.clear();
    switch (node.kind) {
      case NodeKind::kCall: {
        if (output_.kind(operands.front()) != NodeKind::kOp) return false;
        if (context.ops.info(output_.op(operands.front())).stateful) return false;
        if (options_.relay_compat && operands.size() < 2) return false;
        key_.payload[1] = 0;  // type args are not part of what a call computes
        key_operands_.push_back(operands.front().value);
        for (NodeId arg : operands.subspan(1)) key_operands_.push_back(argument_class(arg));
        return true;
      }
      case NodeKind::kTupleGetItem:
        key_operands_.push_back(operands.front().value);
        return true;
      case NodeKind::kTuple:
      case NodeKind::kIf:
        if (options_.relay_compat) return false;
        for (NodeId operand : operands) key_operands_.push_back(operand.value);
        return true;
      case NodeKind::kConstant: {
        if (options_.relay_compat) return false;
        const Tensor& tensor = input_.tensor(old_id);
        if (!tensor.has_data()) return false;
        key_.payload = {tensor.dtype.value, node.type.value, 0};
        for (std::int64_t extent : tensor.shape) {
          key_operands_.push_back(static_cast<std::uint32_t>(extent));
          key_operands_.push_back(static_cast<std::uint32_t>(static_cast<std::uint64_t>(extent) >> 32));
        }
        key_operands_.push_back(static_cast<std::uint32_t>(tensor.shape.size()));
        append_bytes(tensor.data->view());
        return true;
      }
      default: return false;
    }
  }

  void append_bytes(std::span<const std::uint8_t> bytes) {
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
      std::uint32_t word = 0;
      for (std::size_t j = 0; j < 4 && i + j < bytes.size(); ++j) {
        word |= static_cast<std::uint32_t>(bytes[i + j]) << (8 * j);
      }
      key_operands_.push_back(word);
    }
    key_operands_.push_back(static_cast<std::uint32_t>(bytes.size()));
  }

  // relay_compat: an argument is itself, unless it is a scalar constant (equal scalars are one
  // class, TVM's IsEqualScalar) or a tuple of such (#14169). The default mode merges constants
  // and tuples themselves, so the argument's own id is its class there.
  std::uint32_t argument_class(NodeId arg) {
    if (!options_.relay_compat) return arg.value;
    std::uint32_t value_class = class_of(arg);
    return value_class == kNoClass ? arg.value : value_class;
  }

  NodeId remember(NodeId created) {
    if (options_.relay_compat) {
      NodeKind kind = output_.kind(created);
      if (kind == NodeKind::kConstant || kind == NodeKind::kTuple) classify(created, kind);
    }
    return created;
  }

  // The value class of output node `id`, or kNoClass.
  [[nodiscard]] std::uint32_t class_of(NodeId id) const {
    return id.index() < value_class_.size() ? value_class_[id.index()] : kNoClass;
  }

  // Records the value class of a scalar constant or of a tuple of classes (`kind`), for
  // argument_class.
  void classify(NodeId id, NodeKind kind) {
    if (class_of(id) != kNoClass) return;
    if (id.index() >= value_class_.size()) value_class_.resize(id.index() + 1, kNoClass);
    if (kind == NodeKind::kConstant) {
      const Tensor& tensor = output_.tensor(id);
      if (!tensor.shape.empty() || !tensor.has_data()) return;
      auto bytes = tensor.data->view();
      std::string key(output_.context().strings.view(tensor.dtype));
      key.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      auto [slot, inserted] = scalar_classes_.try_emplace(std::move(key), id.value);
      value_class_[id.index()] = slot->second;
    } else {
      std::vector<std::uint32_t> fields;
      for (NodeId field : output_.fields(id)) {
        std::uint32_t value_class = class_of(field);
        bool scalar = value_class != kNoClass && output_.kind(field) == NodeKind::kConstant;
        fields.push_back(scalar ? value_class : field.value);
      }
      auto [slot, inserted] = tuple_classes_.try_emplace(std::move(fields), id.value);
      value_class_[id.index()] = slot->second;
    }
  }

  void count_merge(NodeId old_id) {
    ++report_.merged;
    std::string what(node_kind_name(input_.kind(old_id)));
    if (input_.kind(old_id) == NodeKind::kCall) {
      what = fmt::format("Call {}", input_.context().op_name(input_.called_op(old_id)));
    }
    ++report_.merged_by[what];
  }

  const Graph<D>& input_;
  const CseOptions<D>& options_;
  Graph<D> output_;
  Builder<D> builder_;
  ScopeTree scopes_;
  std::vector<NodeId> old_to_new_;
  // A key's representatives, one per scope that has one (a scope's first node of the key):
  // the first scope's by CseKeyId, any other's by (key, scope), so that a key met in many
  // sibling scopes (if-branches) costs one probe per enclosing scope, not a walk of them all.
  struct Representative {
    NodeId node;
    std::uint32_t scope;
  };
  InternTable<CseKeyRecord, CseKeyId> keys_;
  std::vector<Representative> first_representative_;
  absl::flat_hash_map<std::pair<std::uint32_t, std::uint32_t>, NodeId> later_representatives_;
  CseKeyRecord key_;
  std::vector<std::uint32_t> key_operands_;
  // relay_compat: the value class of each output node (a scalar constant's or a tuple's), else
  // kNoClass.
  static constexpr std::uint32_t kNoClass = Id<void>::kNone;
  std::vector<std::uint32_t> value_class_;
  absl::flat_hash_map<std::string, std::uint32_t> scalar_classes_;
  absl::flat_hash_map<std::vector<std::uint32_t>, std::uint32_t> tuple_classes_;
  CseReport report_;
};

}  // namespace detail

template <Dialect D>
CseFunctionResult<D> eliminate_common_subexpr(const Graph<D>& graph, NodeId root,
                                              const CseOptions<D>& options) {
  detail::CommonSubexprEliminator<D> eliminator(graph, options);
  eliminator.run(std::span(&root, 1));
  NodeId new_root = eliminator.map(root);
  return {std::move(eliminator.output()), new_root, std::move(eliminator.report()),
          std::move(eliminator.old_to_new())};
}

template <Dialect D>
CseResult<D> eliminate_common_subexpr(const Module<D>& module, const CseOptions<D>& options) {
  detail::CommonSubexprEliminator<D> eliminator(module.graph, options);
  std::vector<NodeId> roots = module.roots();
  eliminator.run(roots);
  return {module.remapped(std::move(eliminator.output()),
                          [&](NodeId old_id) { return eliminator.map(old_id); }),
          std::move(eliminator.report()), std::move(eliminator.old_to_new())};
}

}  // namespace graphpat
