// Pattern nodes and the Pattern handle: what the pattern DSL (dsl.hpp) and the pattern text
// parser (text.hpp) build and what the matcher (matcher.hpp) reads.
//
// A pattern is a small graph of its own, independent of any IR graph or context: op names,
// dtypes, attribute values and types are kept as plain values and resolved against a graph's
// context only when matched; the op of arithmetic sugar (`a * b`) is kept as its role and named
// by the graph's dialect (ir/conventions.hpp). A `Pattern` is a value: a shared handle to one node
// of such a graph. The same handle used twice is the same node, and a pattern node binds at most
// one graph node in a match (identity binding, as in Relay):
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern x = wildcard();
//   graphpat::Pattern p = (x + wildcard()) * x;     // both uses of x must be the same node
//   p.graph().size();                               // 5: x, the other wildcard, add, mul, ...
//
// Handles made separately live in separate graphs until combined: combining merges the smaller
// graph into the larger one and leaves a forwarding note, so every handle keeps meaning the
// same node. Building patterns (combining handles, redirect_to) is not thread-safe when they
// share nodes. A finished pattern is a value: reading it (graph(), id(), matching, describe)
// changes nothing, so any number of threads may read one handle, or copies of it, at once (the
// one thing matching writes, the store's cache of compiled patterns, is locked).
//
// Every handle names a node: there is no default (empty) handle, and a handle moved from keeps
// its node (moving copies), so a pattern can never be built from a handle that names nothing.
// A recursive pattern must consume a node on every way round its cycle (see redirect_to).
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "graphpat/ir/conventions.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/ids.hpp"

namespace graphpat {

/// A node of a PatternGraph.
using PatternId = Id<struct PatternTag>;

/// The kinds of pattern of Relay's dataflow pattern language, plus `&` and `!`.
enum class PatternKind : std::uint8_t {
  kWildcard,        // wildcard(); with a redirect, whatever the target matches
  kExpr,            // is_expr(expression): structurally equal nodes
  kOp,              // is_op("nn.conv2d"): the op node itself
  kVar,             // is_var("x") / is_var()
  kConstant,        // is_constant()
  kCall,            // p(args) / p(None)
  kFunction,        // FunctionPattern(params or None, body)
  kTuple,           // is_tuple([...]) / is_tuple(None)
  kTupleGetItem,    // is_tuple_get_item(p, index or None)
  kIf,              // is_if(cond, then, else)
  kLet,             // is_let(var, value, body)
  kAlt,             // p | q (committed choice)
  kAnd,             // p & q (both)
  kNot,             // !p / ~p
  kAttr,            // p.has_attr({...})
  kType,            // p.has_type(T)
  kDataType,        // p.has_dtype("float32")
  kShape,           // p.has_shape([...])
  kDominator,       // dominates(parent, path, child)
  kUnorderedTuple,  // is_tuple([...], unordered=True): the fields in any order (Relax)
};

/// The most fields an unordered tuple pattern may have (Relax's limit): its search for an
/// assignment of field patterns to fields is backtracking, so the limit keeps one step cheap.
inline constexpr std::size_t kMaxUnorderedFields = 255;

/// The kind as the pattern language's class name ("CallPattern").
constexpr std::string_view pattern_kind_name(PatternKind kind) {
  constexpr std::string_view kNames[] = {
      "WildcardPattern",     "ExprPattern",  "OpPattern",        "VarPattern",
      "ConstantPattern",     "CallPattern",  "FunctionPattern",  "TuplePattern",
      "TupleGetItemPattern", "IfPattern",    "LetPattern",       "AltPattern",
      "AndPattern",          "NotPattern",   "AttrPattern",      "TypePattern",
      "DataTypePattern",     "ShapePattern", "DominatorPattern", "UnorderedTuplePattern"};
  return kNames[static_cast<std::size_t>(kind)];
}

/// One dimension of a shape in has_shape / has_type.
struct ShapeDim {
  enum class Kind : std::uint8_t { kInt, kAny, kSymbol };
  Kind kind = Kind::kInt;
  std::int64_t value = 0;
  std::string symbol;  // kSymbol: its name

  static ShapeDim of(std::int64_t extent) { return {Kind::kInt, extent, {}}; }
  static ShapeDim any() { return {Kind::kAny, 0, {}}; }
  static ShapeDim named(std::string name) { return {Kind::kSymbol, 0, std::move(name)}; }
  friend bool operator==(const ShapeDim&, const ShapeDim&) = default;
};

/// A type in has_type: a tensor type (rank 0 is a scalar) or a tuple of types.
struct PatternType {
  enum class Kind : std::uint8_t { kTensor, kTuple };
  Kind kind = Kind::kTensor;
  std::string dtype;
  std::vector<ShapeDim> shape;
  std::vector<PatternType> fields;

  static PatternType tensor(std::vector<ShapeDim> shape, std::string dtype) {
    return {Kind::kTensor, std::move(dtype), std::move(shape), {}};
  }
  static PatternType tuple(std::vector<PatternType> fields) {
    return {Kind::kTuple, {}, {}, std::move(fields)};
  }
  friend bool operator==(const PatternType&, const PatternType&) = default;
};

/// An attribute value in has_attr, as Python writes it: None, a bool, an int, a float, a
/// string (also what a dtype is compared with) or a list.
struct PatternValue {
  enum class Kind : std::uint8_t { kNull, kBool, kInt, kFloat, kString, kArray };
  Kind kind = Kind::kNull;
  std::int64_t integer = 0;  // kBool (0/1) and kInt
  double floating = 0;
  std::string text;
  std::vector<PatternValue> elements;

  PatternValue() = default;
  PatternValue(int value) : kind(Kind::kInt), integer(value) {}           // NOLINT: literal sugar
  PatternValue(std::int64_t value) : kind(Kind::kInt), integer(value) {}  // NOLINT
  PatternValue(double value) : kind(Kind::kFloat), floating(value) {}     // NOLINT
  PatternValue(const char* value) : kind(Kind::kString), text(value) {}   // NOLINT
  PatternValue(std::string value) : kind(Kind::kString), text(std::move(value)) {}  // NOLINT
  PatternValue(std::initializer_list<PatternValue> list)  // NOLINT: {3, 3}
      : kind(Kind::kArray), elements(list) {}
  static PatternValue boolean(bool value) {
    PatternValue v;
    v.kind = Kind::kBool;
    v.integer = value ? 1 : 0;
    return v;
  }
  static PatternValue array(std::vector<PatternValue> elements) {
    PatternValue v;
    v.kind = Kind::kArray;
    v.elements = std::move(elements);
    return v;
  }
  friend bool operator==(const PatternValue&, const PatternValue&) = default;
  // Agrees with ==: absl hashes 0.0 and -0.0 alike.
  template <typename H>
  friend H AbslHashValue(H state, const PatternValue& value) {
    return H::combine(std::move(state), value.kind, value.integer, value.floating, value.text,
                      value.elements);
  }
};

/// The dictionary of has_attr, in the order written.
using PatternAttrs = std::vector<std::pair<std::string, PatternValue>>;

namespace detail {

/// The expression of an is_expr pattern; the matcher of dialect D reads ExprHolder<D>
/// (expr_pattern.hpp). Patterns themselves stay dialect-free.
struct ExprHolderBase {
  virtual ~ExprHolderBase() = default;
};

inline std::uint64_t next_pattern_uid() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

}  // namespace detail

/// One pattern node. Operands by kind:
///   Call: callee, args...          Function: params..., body      Tuple: fields...
///   TupleGetItem: tuple            If: cond, then, else           Let: var, value, body
///   Alt / And: left, right         Not: the negated pattern       Dominator: parent, path, child
///   Attr / Type / DataType / Shape: the constrained pattern     UnorderedTuple: fields...
struct PatternNode {
  PatternKind kind = PatternKind::kWildcard;
  std::vector<PatternId> operands;
  bool any_arity = false;   // Call p(None), Function params None, Tuple is_tuple(None)
  std::int64_t index = -1;  // TupleGetItem: -1 any index (as TVM); other negatives match none
  std::string name;         // Op: op name; Var: name hint ("" any); Expr: its name; DataType: dtype
  std::optional<ArithmeticRole> role;  // Op of arithmetic sugar: the dialect names it (no name)
  PatternId redirect;       // Wildcard: redirect_to target
  PatternAttrs attrs;       // Attr
  PatternType type;         // Type
  std::vector<ShapeDim> shape;                         // Shape
  std::shared_ptr<const detail::ExprHolderBase> expr;  // Expr
  std::uint64_t uid = 0;                               // identity across graph merges
};

/// A graph of pattern nodes; operands may come after their users (redirects close cycles).
class PatternGraph {
 public:
  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(nodes_.size()); }
  [[nodiscard]] const PatternNode& node(PatternId id) const { return nodes_[id.index()]; }
  [[nodiscard]] PatternNode& mutable_node(PatternId id) { return nodes_[id.index()]; }
  [[nodiscard]] PatternKind kind(PatternId id) const { return node(id).kind; }
  [[nodiscard]] const std::vector<PatternId>& operands(PatternId id) const {
    return node(id).operands;
  }
  /// Makes room for `size` nodes.
  void reserve(std::uint32_t size) { nodes_.reserve(size); }
  PatternId add(PatternNode node) {
    if (node.uid == 0) node.uid = detail::next_pattern_uid();
    nodes_.push_back(std::move(node));
    return PatternId(size() - 1);
  }
  /// Adds a copy of a node of another graph, uid and all (its operands are still the other
  /// graph's ids: the caller renumbers them).
  PatternId add_copy(const PatternNode& node) {
    nodes_.push_back(node);
    return PatternId(size() - 1);
  }

  /// Every pattern node reachable from `root` (through operands and redirects), in depth-first
  /// post-order: operands before users, except along a redirect cycle. Iterative.
  [[nodiscard]] std::vector<PatternId> post_order(PatternId root) const {
    return post_order(std::span(&root, 1));
  }
  /// The same from several roots in turn, each node once.
  [[nodiscard]] std::vector<PatternId> post_order(std::span<const PatternId> roots) const {
    std::vector<PatternId> order;
    std::vector<std::uint8_t> state(size(), 0);  // 0 new, 1 open, 2 done
    struct Frame {
      PatternId id;
      std::size_t next;
    };
    std::vector<Frame> stack;
    for (PatternId root : roots) {
      if (state[root.index()] != 0) continue;
      stack.push_back({root, 0});
      state[root.index()] = 1;
      while (!stack.empty()) {
        Frame& top = stack.back();
        const PatternNode& n = node(top.id);
        std::size_t edges = n.operands.size() + (n.redirect.valid() ? 1 : 0);
        if (top.next == edges) {
          state[top.id.index()] = 2;
          order.push_back(top.id);
          stack.pop_back();
          continue;
        }
        PatternId next = top.next < n.operands.size() ? n.operands[top.next] : n.redirect;
        ++top.next;
        if (state[next.index()] != 0) continue;
        state[next.index()] = 1;
        stack.push_back({next, 0});
      }
    }
    return order;
  }

 private:
  std::vector<PatternNode> nodes_;
};

class Pattern;

namespace detail {

/// Calls `visit(operand)` for each operand of `node` that the matcher tries at the same graph
/// node as `node` itself (consuming nothing): a redirect's target, both sides of `|` and `&`,
/// what `!`, has_attr, has_type, has_dtype and has_shape constrain, a dominator's child. Every
/// other operand (a call's callee and arguments, tuple fields, a tuple item's tuple, function
/// params and body, if / let parts, a dominator's parent and path) is matched at an operand of
/// the graph node, which the graph made before it.
template <class Visit>
void for_each_same_node_operand(const PatternNode& node, Visit&& visit) {
  switch (node.kind) {
    case PatternKind::kWildcard:
      if (node.redirect.valid()) visit(node.redirect);
      return;
    case PatternKind::kAlt:
    case PatternKind::kAnd:
      visit(node.operands[0]);
      visit(node.operands[1]);
      return;
    case PatternKind::kNot:
    case PatternKind::kAttr:
    case PatternKind::kType:
    case PatternKind::kDataType:
    case PatternKind::kShape:
      visit(node.operands[0]);
      return;
    case PatternKind::kDominator:
      visit(node.operands[2]);
      return;
    default:
      return;
  }
}

/// The way from `from` to `to` through same-node operands only (for_each_same_node_operand),
/// `from` first and `to` last, or empty when there is none. Iterative.
inline std::vector<PatternId> same_node_path(const PatternGraph& graph, PatternId from,
                                             PatternId to) {
  std::vector<PatternId> parent(graph.size());
  std::vector<bool> seen(graph.size(), false);
  std::vector<PatternId> stack{from};
  seen[from.index()] = true;
  while (!stack.empty()) {
    PatternId id = stack.back();
    stack.pop_back();
    if (id == to) {
      std::vector<PatternId> path{to};
      while (path.back() != from) path.push_back(parent[path.back().index()]);
      return {path.rbegin(), path.rend()};
    }
    for_each_same_node_operand(graph.node(id), [&](PatternId next) {
      if (seen[next.index()]) return;
      seen[next.index()] = true;
      parent[next.index()] = id;
      stack.push_back(next);
    });
  }
  return {};
}

struct CompiledPattern;  // matcher.hpp

/// The patterns of one store compiled for matching (matcher.hpp's CompiledPattern, one per root
/// and dialect conventions), so that matching a pattern again, as every call of the free
/// find_matches() and partition() does, copies nothing. An entry stays right while the store's
/// nodes stay as they are: adding nodes (combining handles, merging a smaller store in) changes
/// nothing reachable from an existing root; redirect_to, which changes a node, clears the cache.
/// Bounded: at most kMaxEntries entries of at most kMaxNodes nodes (a larger pattern is compiled
/// each time, a cost small beside matching it). Thread-safe.
class CompiledCache {
 public:
  static constexpr std::size_t kMaxEntries = 16;
  static constexpr std::uint32_t kMaxNodes = 4096;

  /// The entry for `root` under `conventions` (compared by address), or `compile()`'s result,
  /// kept when small enough.
  template <class Compile>
  std::shared_ptr<const CompiledPattern> get(PatternId root, const void* conventions,
                                             Compile&& compile) {
    std::lock_guard lock(mutex_);
    for (const Entry& entry : entries_) {
      if (entry.root == root && entry.conventions == conventions) return entry.compiled;
    }
    auto compiled = compile();  // a shared_ptr<const CompiledPattern>, complete where called
    if (compiled->graph.size() <= kMaxNodes) {
      if (entries_.size() == kMaxEntries) entries_.erase(entries_.begin());
      entries_.push_back({root, conventions, compiled});
    }
    return compiled;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
  }

 private:
  struct Entry {
    PatternId root;
    const void* conventions;
    std::shared_ptr<const CompiledPattern> compiled;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;  // oldest first
};

/// The storage behind Pattern handles; merged stores forward to the store they joined.
struct PatternStore {
  PatternGraph graph;
  std::shared_ptr<PatternStore> forward;
  std::vector<PatternId> forward_ids;  // this store's ids in `forward`
  CompiledCache compiled;
};

/// The compiled-pattern cache of the store holding `pattern`'s node (matcher.hpp), and the
/// node's id there.
std::pair<CompiledCache*, PatternId> compiled_cache(const Pattern& pattern);

}  // namespace detail

/// A handle to one pattern node. Copying a handle copies the reference, not the node.
class Pattern {
 public:
  // Copy only: a move would leave a handle naming nothing.
  Pattern(const Pattern&) = default;
  Pattern& operator=(const Pattern&) = default;
  ~Pattern() = default;
  /// The graph holding this node (and every node reachable from it).
  [[nodiscard]] const PatternGraph& graph() const { return (*locate().store)->graph; }
  [[nodiscard]] PatternId id() const { return locate().id; }
  [[nodiscard]] const PatternNode& node() const { return graph().node(id()); }
  [[nodiscard]] PatternKind kind() const { return node().kind; }
  /// What identifies the node across graph merges (and in Match::bound).
  [[nodiscard]] std::uint64_t uid() const { return node().uid; }
  /// Whether two handles are the same pattern node.
  [[nodiscard]] bool same_as(const Pattern& other) const { return uid() == other.uid(); }

  /// A new node of `node.kind` whose operands are `operands` (handles from any graphs); a
  /// redirect is made by redirect_to only, so `node.redirect` is not taken.
  static Pattern make(PatternNode node, const std::vector<Pattern>& operands) {
    node.redirect = PatternId();
    std::vector<const Pattern*> pointers;
    pointers.reserve(operands.size());
    for (const Pattern& operand : operands) pointers.push_back(&operand);
    std::shared_ptr<detail::PatternStore> store = unify(pointers);
    for (const Pattern* operand : pointers) node.operands.push_back(operand->id());
    PatternId id = store->graph.add(std::move(node));
    return Pattern(std::move(store), id);
  }

  /// Makes this wildcard stand for `target` (Relay's `redirect_to`), which may contain this
  /// wildcard: that is how recursive patterns are written.
  ///   Pattern w = wildcard();
  ///   Pattern cast = is_op("cast")(w);
  ///   Status s = w.redirect_to(cast | is_op("nn.dense")(wildcard(), wildcard()));
  /// Refused, leaving the pattern as it was: a handle that is not a wildcard
  /// (`pattern.redirect_not_wildcard`), and a target that leads back to this wildcard without
  /// consuming a node (`pattern.unconsumed_cycle`: `w.redirect_to(w)`,
  /// `w.redirect_to(w | is_op("nn.relu")(w))`, a → b → a), which would be tried at the same
  /// graph node for ever. A cycle through a call argument, a tuple field or any other operand
  /// matched at an operand of the node (`w.redirect_to(is_op("add")(w, wildcard()) | wildcard())`)
  /// moves down the graph on each turn and ends.
  [[nodiscard]] absl::Status redirect_to(const Pattern& target) {
    if (kind() != PatternKind::kWildcard) {
      return make_error(
          absl::StatusCode::kInvalidArgument, "pattern.redirect_not_wildcard",
          fmt::format("only a wildcard can be redirected, not {}", pattern_kind_name(kind())));
    }
    std::shared_ptr<detail::PatternStore> store = unify({this, &target});
    const PatternGraph& graph = store->graph;
    std::vector<PatternId> cycle = detail::same_node_path(graph, target.id(), id());
    if (!cycle.empty()) {
      std::string way = "WildcardPattern";
      for (PatternId step : cycle)
        way += fmt::format(" -> {}", pattern_kind_name(graph.kind(step)));
      return make_error(absl::StatusCode::kInvalidArgument, "pattern.unconsumed_cycle",
                        fmt::format("the redirect closes a cycle that consumes no node ({}): "
                                    "each turn would match the same node again",
                                    way));
    }
    store->graph.mutable_node(id()).redirect = target.id();
    store->compiled.clear();
    return absl::OkStatus();
  }

  /// A copy of this pattern made of new nodes (Relax's `dup()`): the same structure, recursive
  /// redirects included, sharing no node with this one, so in a graph pattern
  /// (graph_pattern.hpp) the copy binds nodes of its own. The result lives in a store of its
  /// own; nothing is written to this pattern's store.
  [[nodiscard]] Pattern dup() const {
    const PatternGraph& source = graph();
    std::vector<PatternId> reachable = source.post_order(id());
    std::sort(reachable.begin(), reachable.end());
    std::vector<PatternId> renumbered(source.size());
    for (std::uint32_t i = 0; i < reachable.size(); ++i) renumbered[reachable[i].index()] = PatternId(i);
    auto store = std::make_shared<detail::PatternStore>();
    for (PatternId old_id : reachable) {
      PatternNode copy = source.node(old_id);
      copy.uid = 0;
      for (PatternId& operand : copy.operands) operand = renumbered[operand.index()];
      if (copy.redirect.valid()) copy.redirect = renumbered[copy.redirect.index()];
      store->graph.add(std::move(copy));
    }
    return Pattern(std::move(store), renumbered[id().index()]);
  }

  // Method sugar of the pattern language; dsl.hpp defines them.
  template <class... Args>
  Pattern operator()(const Args&... args) const;
  Pattern call(const std::vector<Pattern>& args) const;
  Pattern optional(const Pattern& callee) const;
  template <class F>
  requires std::is_invocable_r_v<Pattern, F, const Pattern&> Pattern optional(F&& make)
  const { return alternative(make(*this)); }
  Pattern has_attr(PatternAttrs attrs) const;
  Pattern has_type(PatternType type) const;
  Pattern has_dtype(std::string dtype) const;
  Pattern has_shape(std::vector<ShapeDim> shape) const;
  Pattern has_shape(std::initializer_list<std::int64_t> shape) const;
  Pattern dominates(const Pattern& parent, const Pattern& path) const;
  Pattern dominates(const Pattern& parent) const;
  Pattern alternative(const Pattern& other) const;

 private:
  friend std::pair<detail::CompiledCache*, PatternId> detail::compiled_cache(const Pattern&);

  Pattern(std::shared_ptr<detail::PatternStore> store, PatternId id)
      : store_(std::move(store)), id_(id) {}

  // Where this handle's node lives now. The forwarding notes are written only while handles
  // are combined and read-only afterwards, so a handle is never updated in place. The chain is
  // short by construction: a store is only ever merged into one at least as large, so each hop
  // at least doubles the size of the store holding the node (at most log2(nodes) hops).
  struct Location {
    const std::shared_ptr<detail::PatternStore>* store;
    PatternId id;
  };
  [[nodiscard]] Location locate() const {
    Location at{&store_, id_};
    while ((*at.store)->forward) {
      at.id = (*at.store)->forward_ids[at.id.index()];
      at.store = &(*at.store)->forward;
    }
    return at;
  }

  // Merges the stores of `patterns` into one (the largest) and returns it.
  static std::shared_ptr<detail::PatternStore> unify(const std::vector<const Pattern*>& patterns) {
    std::shared_ptr<detail::PatternStore> target;
    for (const Pattern* p : patterns) {
      const std::shared_ptr<detail::PatternStore>& store = *p->locate().store;
      if (!target || store->graph.size() > target->graph.size()) target = store;
    }
    if (!target) return std::make_shared<detail::PatternStore>();
    for (const Pattern* p : patterns) {
      detail::PatternStore& store = **p->locate().store;
      if (&store != target.get()) merge_into(store, target);
    }
    return target;
  }

  static void merge_into(detail::PatternStore& source,
                         const std::shared_ptr<detail::PatternStore>& target) {
    const std::uint32_t base = target->graph.size();
    source.forward_ids.resize(source.graph.size());
    for (std::uint32_t i = 0; i < source.graph.size(); ++i)
      source.forward_ids[i] = PatternId(base + i);
    for (std::uint32_t i = 0; i < source.graph.size(); ++i) {
      PatternNode copy = source.graph.node(PatternId(i));
      for (PatternId& operand : copy.operands) operand = source.forward_ids[operand.index()];
      if (copy.redirect.valid()) copy.redirect = source.forward_ids[copy.redirect.index()];
      target->graph.add(std::move(copy));
    }
    source.graph = PatternGraph();
    source.compiled.clear();
    source.forward = target;
  }

  std::shared_ptr<detail::PatternStore> store_;
  PatternId id_;
};

inline std::pair<detail::CompiledCache*, PatternId> detail::compiled_cache(const Pattern& pattern) {
  Pattern::Location at = pattern.locate();
  return {&(*at.store)->compiled, at.id};
}

}  // namespace graphpat
