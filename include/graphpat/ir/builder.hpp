// Builder<Dialect>: the only way nodes enter a graph. Pure nodes are hash-consed: asking twice
// for the same node (kind, op, attributes, operands and type) returns the same NodeId, so a
// graph built through a builder never holds two copies of one computation. Vars are always
// new; calls of stateful ops (nn.dropout) and requests with `fresh = true` bypass the table, so
// an importer can still represent a graph with deliberate duplicates exactly (two `%20.0` on one
// batch_norm).
//
//   graphpat::relay::Graph graph;
//   graphpat::relay::Builder b(graph);
//   graphpat::Context& ctx = graph.context();
//   auto x = b.var("x", ctx.types.tensor("float32", {ctx.types.dim(1), ctx.types.dim(64)}));
//   auto bn = b.call("nn.batch_norm", {x, b.var("g"), b.var("b"), b.var("m"), b.var("v")});
//   auto first = b.tuple_get_item(bn, 0);
//   assert(b.tuple_get_item(bn, 0) == first);                     // hash-consed
//   assert(b.tuple_get_item(bn, 0, {.fresh = true}) != first);    // a deliberate duplicate
//   auto fused = b.call(b.opaque_op("vendor.fused"), {x});        // an op the dialect lacks
#pragma once

#include <cassert>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "graphpat/ir/graph.hpp"

namespace graphpat {

/// Type, span and sharing of a new node.
struct NodeOptions {
  TypeId type{};       // the node's (checked) type, or none
  SpanId span{};       // where it came from, or none
  bool fresh = false;  // true: a new node even if an identical one exists
};

/// A call's attributes and type arguments, besides NodeOptions.
struct CallOptions {
  AttrValueId attrs{};  // an object value (`relay.attrs.Conv2DAttrs`), or none
  TypeId type_args{};   // a tuple type, or none
  TypeId type{};
  SpanId span{};
  bool fresh = false;
};

/// A function literal's attributes and signature, besides NodeOptions.
struct FunctionOptions {
  AttrValueId attrs{};   // DictAttrs as an object value, or none
  TypeId result_type{};  // the declared `-> R`, or none
  TypeId type_params{};  // a tuple type of type vars, or none
  TypeId type{};
  SpanId span{};
  bool fresh = false;
};

/// How a node copied from another graph is shared (see Builder::copy).
enum class Sharing {
  kAsSource,       // fresh iff it was fresh in the source graph
  kHashCons,       // through the table, whatever the source said (stateful calls stay fresh)
  kFresh,          // a new node, kept out of the table (a node a pass must not merge)
  kHashConsIfNew,  // through the table unless an equal node is already in it, then as kFresh
                   // (a pass that keeps two equal nodes apart: CSE across scopes)
};

template <Dialect D>
class Builder {
 public:
  explicit Builder(Graph<D>& graph) : graph_(graph) {}

  [[nodiscard]] Graph<D>& graph() const { return graph_; }
  [[nodiscard]] Context& context() const { return graph_.context(); }

  /// A new variable; never shared with another var of the same name.
  NodeId var(std::string_view name, TypeId annotation = {}, NodeOptions options = {}) {
    return var(context().strings.intern(name), annotation, options);
  }
  NodeId var(StringId name, TypeId annotation = {}, NodeOptions options = {}) {
    options.fresh = true;
    return add(NodeKind::kVar, {name.value, annotation.value, kNone}, {}, options);
  }
  /// A constant holding `tensor` (see TensorTable::add).
  NodeId constant(TensorId tensor, NodeOptions options = {}) {
    assert(context().tensors.contains(tensor));
    return add(NodeKind::kConstant, {tensor.value, kNone, kNone}, {}, options);
  }
  /// The node standing for op `op` (one per op and graph).
  NodeId op(OpId op) {
    assert(context().ops.contains(op));
    return add(NodeKind::kOp, {op.value, kNone, kNone}, {}, {});
  }
  /// The node standing for the registered op `name`. An op the registry does not have is a
  /// programming error, asserted (TVM's `Op::Get` raises): a typo such as `nn.rleu` would make
  /// an op no pattern and no pass knows. Make such an op on purpose with opaque_op.
  NodeId op(std::string_view name) {
    OpId id = context().ops.find(name);
    assert(id.valid() && "no op of this name is registered; use Builder::opaque_op");
    return id.valid() ? op(id) : opaque_op(name);
  }
  /// The node standing for op `name`, registered first as an opaque op (one the dialect does
  /// not know, carried through unchanged: what the readers make of an op they meet) when the
  /// registry does not have it.
  NodeId opaque_op(std::string_view name) { return op(context().op(name)); }
  NodeId global_var(std::string_view name, NodeOptions options = {}) {
    return add(NodeKind::kGlobalVar, {context().strings.intern(name).value, kNone, kNone}, {},
               options);
  }

  /// A call of `callee` (an Op, GlobalVar, Function, Var or any expression). A call of a
  /// stateful op is always a new node. The overloads taking an op's name call op(name): the op
  /// must be registered (`call(opaque_op("vendor.fused"), args)` for one that is not).
  NodeId call(NodeId callee, std::span<const NodeId> args, CallOptions options = {}) {
    std::vector<NodeId>& operands = scratch(1 + args.size());
    operands.push_back(callee);
    operands.insert(operands.end(), args.begin(), args.end());
    bool stateful =
        graph_.kind(callee) == NodeKind::kOp && context().ops.info(graph_.op(callee)).stateful;
    return add(NodeKind::kCall, {options.attrs.value, options.type_args.value, kNone}, operands,
               {options.type, options.span, options.fresh || stateful});
  }
  NodeId call(NodeId callee, std::initializer_list<NodeId> args, CallOptions options = {}) {
    return call(callee, std::span(args.begin(), args.size()), options);
  }
  NodeId call(std::string_view op_name, std::span<const NodeId> args, CallOptions options = {}) {
    return call(op(op_name), args, options);
  }
  NodeId call(std::string_view op_name, std::initializer_list<NodeId> args,
              CallOptions options = {}) {
    return call(op(op_name), std::span(args.begin(), args.size()), options);
  }

  NodeId tuple(std::span<const NodeId> fields, NodeOptions options = {}) {
    return add(NodeKind::kTuple, {kNone, kNone, kNone}, fields, options);
  }
  NodeId tuple(std::initializer_list<NodeId> fields, NodeOptions options = {}) {
    return tuple(std::span(fields.begin(), fields.size()), options);
  }
  NodeId tuple_get_item(NodeId tuple, std::uint32_t index, NodeOptions options = {}) {
    return add(NodeKind::kTupleGetItem, {index, kNone, kNone}, std::span(&tuple, 1), options);
  }

  /// A function literal `fn (params) { body }`; every param must be a Var.
  NodeId function(std::span<const NodeId> params, NodeId body, FunctionOptions options = {}) {
    std::vector<NodeId>& operands = scratch(params.size() + 1);
    for (NodeId param : params) {
      assert(graph_.kind(param) == NodeKind::kVar);
      operands.push_back(param);
    }
    operands.push_back(body);
    return add(NodeKind::kFunction,
               {options.attrs.value, options.result_type.value, options.type_params.value},
               operands, {options.type, options.span, options.fresh});
  }
  NodeId function(std::initializer_list<NodeId> params, NodeId body, FunctionOptions options = {}) {
    return function(std::span(params.begin(), params.size()), body, options);
  }
  /// `let %var = value; body`; `var` must be a Var.
  NodeId let(NodeId var, NodeId value, NodeId body, NodeOptions options = {}) {
    assert(graph_.kind(var) == NodeKind::kVar);
    NodeId operands[] = {var, value, body};
    return add(NodeKind::kLet, {kNone, kNone, kNone}, operands, options);
  }
  NodeId if_then_else(NodeId condition, NodeId then_branch, NodeId else_branch,
                      NodeOptions options = {}) {
    NodeId operands[] = {condition, then_branch, else_branch};
    return add(NodeKind::kIf, {kNone, kNone, kNone}, operands, options);
  }

  /// A node like `source_node` of `source` (a graph sharing this builder's context) with new
  /// operands: how a pass re-creates the nodes it keeps. Vars stay fresh whatever `sharing` says.
  NodeId copy(const Graph<D>& source, NodeId source_node, std::span<const NodeId> operands,
              Sharing sharing = Sharing::kAsSource) {
    assert(&source.context() == &context());
    const Node& node = source.node(source_node);
    bool fresh = node.kind == NodeKind::kVar || sharing == Sharing::kFresh ||
                 (sharing == Sharing::kAsSource && (node.flags & kNodeFresh) != 0);
    if (sharing == Sharing::kHashCons && node.kind == NodeKind::kCall &&
        graph_.kind(operands.front()) == NodeKind::kOp &&
        context().ops.info(graph_.op(operands.front())).stateful) {
      fresh = true;
    }
    return add(node.kind, node.payload, operands, {node.type, node.span, fresh},
               /*reuse_equal=*/sharing != Sharing::kHashConsIfNew);
  }

  /// copy() of `source_node` (kept as its source is: Sharing::kAsSource) with each operand `o`
  /// replaced by `map[o.index()]`, a node of this graph: how a pass re-creates the nodes it
  /// keeps when only their ids change. A fresh node is appended as it is, without a look-up in
  /// the table or a list of operands made first.
  NodeId copy_mapped(const Graph<D>& source, NodeId source_node, std::span<const NodeId> map) {
    Node node = source.node(source_node);
    std::span<const NodeId> source_operands = source.operands(source_node);
    const bool fresh = node.kind == NodeKind::kVar || (node.flags & kNodeFresh) != 0;
    if (!fresh || &source == &graph_) {
      std::vector<NodeId>& operands = scratch(source_operands.size());
      for (NodeId operand : source_operands) operands.push_back(map[operand.index()]);
      return copy(source, source_node, operands);
    }
    detail::GraphStorage& storage = *graph_.storage_;
    NodeId id(static_cast<std::uint32_t>(storage.nodes.size()));
    node.flags = kNodeFresh;
    node.first_operand = static_cast<std::uint32_t>(storage.operands.size());
    for (NodeId operand : source_operands) {
      assert(graph_.contains(map[operand.index()]));
      storage.operands.push_back(map[operand.index()]);
    }
    storage.nodes.push_back(node);
    return id;
  }

 private:
  static constexpr std::uint32_t kNone = Id<void>::kNone;

  std::vector<NodeId>& scratch(std::size_t capacity) {
    scratch_.clear();
    scratch_.reserve(capacity);
    return scratch_;
  }

  // A new node, or with `reuse_equal` an equal one already in the table; without it, a node
  // equal to one in the table is made fresh.
  NodeId add(NodeKind kind, std::array<std::uint32_t, 3> payload, std::span<const NodeId> operands,
             NodeOptions options, bool reuse_equal = true) {
    detail::GraphStorage& storage = *graph_.storage_;
    for ([[maybe_unused]] NodeId operand : operands) assert(graph_.contains(operand));
    std::uint32_t hash = 0;
    if (!options.fresh) {
      detail::NodeKey key{kind, payload, options.type, operands};
      hash = detail::NodeMemo::hash_of(key);
      NodeId existing = graph_.memo_->find(key, hash);
      if (existing.valid()) {
        if (reuse_equal) return existing;
        options.fresh = true;
      }
    }
    const NodeId* storage_begin = storage.operands.data();
    if (!operands.empty() && operands.data() >= storage_begin &&
        operands.data() < storage_begin + storage.operands.size()) {
      // The operands are a slice of this graph's own array, which the insert below may move.
      aliased_.assign(operands.begin(), operands.end());
      operands = aliased_;
    }
    NodeId id(static_cast<std::uint32_t>(storage.nodes.size()));
    Node node;
    node.kind = kind;
    node.flags = options.fresh ? kNodeFresh : 0;
    node.first_operand = static_cast<std::uint32_t>(storage.operands.size());
    node.operand_count = static_cast<std::uint32_t>(operands.size());
    node.payload = payload;
    node.type = options.type;
    node.span = options.span;
    // One push_back per operand: a node has a few, and vector::insert's general path cost
    // about 50 instructions a node (7% of CSE's time).
    for (NodeId operand : operands) storage.operands.push_back(operand);
    storage.nodes.push_back(node);
    if (!options.fresh) graph_.memo_->insert(id, hash);
    return id;
  }

  Graph<D>& graph_;
  std::vector<NodeId> scratch_;
  std::vector<NodeId> aliased_;
};

}  // namespace graphpat
