// Graph<Dialect>: an arena of immutable nodes addressed by 32-bit NodeIds. Operands are always
// created before their users, so scanning ids upwards is a topological traversal and scanning
// downwards a reverse one; every pass in graphpat is such a scan, never a recursion. Operand
// lists live in one flat array. Nodes are added only through a Builder (builder.hpp), which
// hash-conses pure nodes through the graph's table.
//
//   graphpat::relay::Graph graph;                  // = Graph<relay::Dialect>, a fresh context
//   graphpat::relay::Builder builder(graph);
//   graphpat::NodeId x = builder.var("x");
//   graphpat::NodeId y = builder.call("nn.relu", {x});
//   for (graphpat::NodeId arg : graph.args(y)) fmt::print("{}\n", graph.name(arg));  // x
#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>

#include <cassert>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/ids.hpp"
#include "graphpat/ir/node.hpp"

namespace graphpat {

template <Dialect D>
class Builder;

namespace detail {

/// Raw access to a graph's storage, bypassing every check; defined only by tests that build
/// corrupt graphs on purpose to see verify() reject them.
struct GraphSurgery;

/// What makes two pure nodes the same node: everything but the span and flags.
struct NodeKey {
  NodeKind kind;
  std::array<std::uint32_t, 3> payload;
  TypeId type;
  std::span<const NodeId> operands;
};

struct GraphStorage {
  std::vector<Node> nodes;
  std::vector<NodeId> operands;

  [[nodiscard]] NodeKey key(NodeId id) const {
    const Node& node = nodes[id.index()];
    return {node.kind, node.payload, node.type,
            std::span<const NodeId>(operands.data() + node.first_operand, node.operand_count)};
  }
};

/// The hash-consing table: a set of node ids looked up by NodeKey. Each entry keeps 32 bits
/// of its key's hash beside the id, so growing the table never re-reads the nodes, and a probe
/// reads a node only when the stored hashes agree.
class NodeMemo {
 public:
  explicit NodeMemo(const GraphStorage* storage) : set_(0, Hash{}, Equal{storage}) {}

  /// The hash the table files `key` under.
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] static std::uint32_t hash_of(const NodeKey& key) {
    return static_cast<std::uint32_t>(
        absl::HashOf(key.kind, key.payload[0], key.payload[1], key.payload[2], key.type,
                     absl::MakeSpan(key.operands.data(), key.operands.size())));
  }
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] NodeId find(const NodeKey& key,
                                                          std::uint32_t hash) const {
    auto found = set_.find(Probe{&key, hash});
    return found == set_.end() ? NodeId() : found->id;
  }
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] NodeId find(const NodeKey& key) const {
    return find(key, hash_of(key));
  }
  /// Files node `id`, whose key hashes to `hash`.
  GRAPHPAT_INSTANTIATED_ON_CALL void insert(NodeId id, std::uint32_t hash) {
    set_.insert(Entry{id, hash});
  }
  GRAPHPAT_INSTANTIATED_ON_CALL void reserve(std::size_t count) { set_.reserve(count); }
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] std::size_t size() const { return set_.size(); }
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] std::size_t capacity() const {
    return set_.capacity();
  }
  /// Calls `visit(id, hash)` for every entry.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const Entry& entry : set_) visit(entry.id, entry.hash);
  }

 private:
  struct Entry {
    NodeId id;
    std::uint32_t hash;
  };
  struct Probe {
    const NodeKey* key;
    std::uint32_t hash;
  };
  // The stored 32 bits, spread over a word for the table's bucket and control bits.
  static std::size_t spread(std::uint32_t hash) { return hash * 0x9E3779B97F4A7C15ULL; }
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(const Entry& entry) const { return spread(entry.hash); }
    std::size_t operator()(const Probe& probe) const { return spread(probe.hash); }
  };
  struct Equal {
    using is_transparent = void;
    const GraphStorage* storage;
    bool operator()(const Entry& a, const Entry& b) const { return a.id == b.id; }
    bool operator()(const Entry& entry, const Probe& probe) const {
      if (entry.hash != probe.hash) return false;
      NodeKey stored = storage->key(entry.id);
      const NodeKey& wanted = *probe.key;
      return stored.kind == wanted.kind && stored.payload == wanted.payload &&
             stored.type == wanted.type &&
             std::equal(stored.operands.begin(), stored.operands.end(), wanted.operands.begin(),
                        wanted.operands.end());
    }
    bool operator()(const Probe& probe, const Entry& entry) const { return (*this)(entry, probe); }
  };
  absl::flat_hash_set<Entry, Hash, Equal> set_;
};

}  // namespace detail

/// An arena of nodes of one dialect. Copying a graph copies its nodes (the context is shared);
/// moving is cheap.
template <Dialect D>
class Graph {
 public:
  using DialectType = D;

  /// An empty graph with a new context for the dialect.
  Graph() : Graph(Context::create<D>()) {}
  /// An empty graph sharing `context` (a pass's output shares its input's context).
  explicit Graph(std::shared_ptr<Context> context)
      : context_(std::move(context)),
        storage_(std::make_unique<detail::GraphStorage>()),
        memo_(std::make_unique<detail::NodeMemo>(storage_.get())) {}

  Graph(const Graph& other)
      : context_(other.context_),
        storage_(std::make_unique<detail::GraphStorage>(*other.storage_)),
        memo_(std::make_unique<detail::NodeMemo>(storage_.get())) {
    memo_->reserve(other.memo_->size());
    other.memo_->for_each([&](NodeId id, std::uint32_t hash) { memo_->insert(id, hash); });
  }
  Graph& operator=(const Graph& other) {
    if (this != &other) *this = Graph(other);
    return *this;
  }
  Graph(Graph&&) noexcept = default;
  Graph& operator=(Graph&&) noexcept = default;

  [[nodiscard]] Context& context() const { return *context_; }
  [[nodiscard]] const std::shared_ptr<Context>& shared_context() const { return context_; }

  /// Number of nodes; ids run from 0 to size() - 1 in topological order.
  [[nodiscard]] std::uint32_t size() const {
    return static_cast<std::uint32_t>(storage_->nodes.size());
  }
  [[nodiscard]] bool contains(NodeId id) const { return id.valid() && id.index() < size(); }
  [[nodiscard]] const Node& node(NodeId id) const {
    assert(contains(id));
    return storage_->nodes[id.index()];
  }
  [[nodiscard]] NodeKind kind(NodeId id) const { return node(id).kind; }
  [[nodiscard]] TypeId type(NodeId id) const { return node(id).type; }
  [[nodiscard]] SpanId span(NodeId id) const { return node(id).span; }
  [[nodiscard]] bool is_fresh(NodeId id) const { return (node(id).flags & kNodeFresh) != 0; }
  [[nodiscard]] std::span<const NodeId> operands(NodeId id) const {
    const Node& n = node(id);
    return {storage_->operands.data() + n.first_operand, n.operand_count};
  }

  // Var and GlobalVar
  [[nodiscard]] StringId name_id(NodeId id) const {
    assert(kind(id) == NodeKind::kVar || kind(id) == NodeKind::kGlobalVar);
    return StringId(node(id).payload[0]);
  }
  [[nodiscard]] std::string_view name(NodeId id) const {
    return context_->strings.view(name_id(id));
  }
  /// Var: its type annotation (`%x: Tensor[...]`), or none.
  [[nodiscard]] TypeId annotation(NodeId id) const {
    assert(kind(id) == NodeKind::kVar);
    return TypeId(node(id).payload[1]);
  }

  // Constant
  [[nodiscard]] TensorId tensor_id(NodeId id) const {
    assert(kind(id) == NodeKind::kConstant);
    return TensorId(node(id).payload[0]);
  }
  [[nodiscard]] const Tensor& tensor(NodeId id) const {
    return context_->tensors.get(tensor_id(id));
  }

  // Op node, and the op a call calls
  [[nodiscard]] OpId op(NodeId id) const {
    assert(kind(id) == NodeKind::kOp);
    return OpId(node(id).payload[0]);
  }
  /// Call: the op it calls when its callee is an Op node, else an invalid id.
  [[nodiscard]] OpId called_op(NodeId id) const {
    NodeId target = callee(id);
    return kind(target) == NodeKind::kOp ? op(target) : OpId();
  }

  // Call
  [[nodiscard]] NodeId callee(NodeId id) const {
    assert(kind(id) == NodeKind::kCall);
    return operands(id).front();
  }
  [[nodiscard]] std::span<const NodeId> args(NodeId id) const {
    assert(kind(id) == NodeKind::kCall);
    return operands(id).subspan(1);
  }
  /// Call: its type arguments as a tuple type (filled by type inference), or none.
  [[nodiscard]] TypeId type_args(NodeId id) const {
    assert(kind(id) == NodeKind::kCall);
    return TypeId(node(id).payload[1]);
  }
  /// Call or Function: its attributes (an object value), or none.
  [[nodiscard]] AttrValueId attrs(NodeId id) const {
    assert(kind(id) == NodeKind::kCall || kind(id) == NodeKind::kFunction);
    return AttrValueId(node(id).payload[0]);
  }

  // Tuple and TupleGetItem
  [[nodiscard]] std::span<const NodeId> fields(NodeId id) const {
    assert(kind(id) == NodeKind::kTuple);
    return operands(id);
  }
  [[nodiscard]] NodeId tuple(NodeId id) const {
    assert(kind(id) == NodeKind::kTupleGetItem);
    return operands(id).front();
  }
  [[nodiscard]] std::uint32_t index(NodeId id) const {
    assert(kind(id) == NodeKind::kTupleGetItem);
    return node(id).payload[0];
  }

  // Function
  [[nodiscard]] std::span<const NodeId> params(NodeId id) const {
    assert(kind(id) == NodeKind::kFunction);
    std::span<const NodeId> all = operands(id);
    return all.first(all.size() - 1);
  }
  /// Function or Let: its body.
  [[nodiscard]] NodeId body(NodeId id) const {
    assert(kind(id) == NodeKind::kFunction || kind(id) == NodeKind::kLet);
    return operands(id).back();
  }
  [[nodiscard]] TypeId result_type(NodeId id) const {
    assert(kind(id) == NodeKind::kFunction);
    return TypeId(node(id).payload[1]);
  }
  /// Function: its type parameters as a tuple type of type vars, or none.
  [[nodiscard]] TypeId type_params(NodeId id) const {
    assert(kind(id) == NodeKind::kFunction);
    return TypeId(node(id).payload[2]);
  }

  // Let
  [[nodiscard]] NodeId let_var(NodeId id) const {
    assert(kind(id) == NodeKind::kLet);
    return operands(id)[0];
  }
  [[nodiscard]] NodeId let_value(NodeId id) const {
    assert(kind(id) == NodeKind::kLet);
    return operands(id)[1];
  }

  // If
  [[nodiscard]] NodeId condition(NodeId id) const {
    assert(kind(id) == NodeKind::kIf);
    return operands(id)[0];
  }
  [[nodiscard]] NodeId then_branch(NodeId id) const {
    assert(kind(id) == NodeKind::kIf);
    return operands(id)[1];
  }
  [[nodiscard]] NodeId else_branch(NodeId id) const {
    assert(kind(id) == NodeKind::kIf);
    return operands(id)[2];
  }

  /// What identifies node `id` in the hash-consing table.
  [[nodiscard]] detail::NodeKey key(NodeId id) const { return storage_->key(id); }
  /// The representative of `key` in the hash-consing table, or an invalid id.
  [[nodiscard]] NodeId find_existing(const detail::NodeKey& key) const { return memo_->find(key); }
  /// Every node id held by the hash-consing table (for verify()).
  [[nodiscard]] const detail::NodeMemo& memo() const { return *memo_; }

  /// The operands of all nodes together (reserve's `operands`).
  [[nodiscard]] std::size_t operand_count() const { return storage_->operands.size(); }
  /// Makes room for `nodes` nodes with `operands` operands in all.
  void reserve(std::size_t nodes, std::size_t operands) {
    storage_->nodes.reserve(nodes);
    storage_->operands.reserve(operands);
    memo_->reserve(nodes);
  }
  /// Bytes held by the node arena, the operand array and the hash-consing table.
  [[nodiscard]] std::size_t memory_bytes() const {
    return storage_->nodes.capacity() * sizeof(Node) +
           storage_->operands.capacity() * sizeof(NodeId) +
           memo_->capacity() * (sizeof(NodeId) + sizeof(std::uint32_t) + 1);
  }

 private:
  friend class Builder<D>;
  friend struct detail::GraphSurgery;

  std::shared_ptr<Context> context_;
  std::unique_ptr<detail::GraphStorage> storage_;  // on the heap: the memo points at it
  std::unique_ptr<detail::NodeMemo> memo_;
};

}  // namespace graphpat
