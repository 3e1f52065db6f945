// Structural equality and hashing of expressions, functions and modules, also between graphs
// with different contexts, modulo variable names (TVM's StructuralEqual with map_free_vars):
// variables are equal when they are paired consistently (a bijection), wherever they are bound.
//
// Sharing counts by default: `add(%0, %0)` with one `%0 = relu(%x)` differs from
// `add(relu(%x), relu(%x))`, because a pass such as CSE is judged by exactly that. Ops,
// constants and global vars are compared by value wherever they appear. Types and spans are
// ignored unless asked for. Iterative, linear in the two graphs.
//
//   auto difference = graphpat::first_difference(ours.graph, ours_root, expected.graph, root);
//   if (difference) fmt::print("{}\n", difference->reason);  // "op nn.relu vs nn.sigmoid"
//   if (difference && difference->attribute) {               // which field, both values
//     fmt::print("{}: {} vs {}\n", difference->attribute->field, difference->attribute->lhs,
//                difference->attribute->rhs);                 // "strides: [1, 1] vs [2, 2]"
//   }
//   bool same = graphpat::structural_equal(ours, expected);   // two modules
//   std::uint64_t h = graphpat::structural_hash(graph, root); // equal graphs, equal hashes
#pragma once

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graphpat/analysis/reachability.hpp"
#include "graphpat/analysis/value_equality.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/module.hpp"

namespace graphpat {

struct EqualityOptions {
  bool compare_types = false;   // node types, var annotations, result types, type args
  bool compare_sharing = true;  // false: compare as trees (only variables must pair up)
};

/// One step on the way from the roots to a difference.
struct DifferenceStep {
  NodeId lhs;
  NodeId rhs;
  std::uint32_t operand;  // which operand of the previous step led here
};

/// Which attribute of two calls or functions differs: the first field (in the left object's
/// order, then the right's) whose value differs or that one side lacks, with both values as
/// Relay attribute text ("none" for a side without it). `field` is empty when the two values
/// are not objects of one type with the same fields (a side without attributes, another type
/// key): then `lhs` and `rhs` are the whole values.
struct AttributeDifference {
  std::string field;  // "strides"
  std::string lhs;    // "[1, 1]"
  std::string rhs;    // "[2, 2]"
};

/// Where two graphs first differ, in depth-first operand order from the roots.
struct Difference {
  NodeId lhs;
  NodeId rhs;
  std::string reason;                // "op nn.relu vs nn.sigmoid"
  std::vector<DifferenceStep> path;  // from the root pair to (lhs, rhs), both included
  std::string function;              // for modules: the global function it is in
  /// Set when the attributes of lhs and rhs differ (reason "attrs ... vs ...").
  std::optional<AttributeDifference> attribute = std::nullopt;
  /// When sharing differs (reason "sharing differs: ..."): the node of the right graph that
  /// lhs is already paired with, and the node of the left graph that rhs is already paired
  /// with; one of the two is NodeId() when that side is not paired yet.
  NodeId lhs_paired_with = NodeId();
  NodeId rhs_paired_with = NodeId();
};

namespace detail {

template <Dialect D>
class StructuralComparer {
 public:
  StructuralComparer(const Graph<D>& lhs, const Graph<D>& rhs, EqualityOptions options)
      : lhs_(lhs),
        rhs_(rhs),
        options_(options),
        lhs_to_rhs_(lhs.size(), kUnpaired),
        rhs_to_lhs_(rhs.size(), kUnpaired) {}

  std::optional<Difference> compare(NodeId lhs_root, NodeId rhs_root) {
    frames_.clear();
    detail_ = {};
    frames_.push_back({lhs_root, rhs_root, kNoParent, 0});
    std::vector<std::uint32_t> stack{0};
    while (!stack.empty()) {
      std::uint32_t frame_index = stack.back();
      stack.pop_back();
      Frame frame = frames_[frame_index];
      std::optional<std::string> reason = visit(frame.lhs, frame.rhs);
      if (reason) return make_difference(frame_index, std::move(*reason));
      if (!descend_) continue;
      auto lhs_operands = lhs_.operands(frame.lhs);
      auto rhs_operands = rhs_.operands(frame.rhs);
      for (std::size_t i = lhs_operands.size(); i-- > 0;) {
        frames_.push_back(
            {lhs_operands[i], rhs_operands[i], frame_index, static_cast<std::uint32_t>(i)});
        stack.push_back(static_cast<std::uint32_t>(frames_.size() - 1));
      }
    }
    return std::nullopt;
  }

 private:
  static constexpr std::uint32_t kUnpaired = NodeId::kNone;
  static constexpr std::uint32_t kNoParent = NodeId::kNone;
  struct Frame {
    NodeId lhs;
    NodeId rhs;
    std::uint32_t parent;
    std::uint32_t operand;
  };

  static bool compared_by_value(NodeKind kind) {
    return kind == NodeKind::kOp || kind == NodeKind::kConstant || kind == NodeKind::kGlobalVar;
  }

  // Compares one pair; sets descend_ when its operands still need comparing.
  std::optional<std::string> visit(NodeId lhs, NodeId rhs) {
    descend_ = false;
    NodeKind kind = lhs_.kind(lhs);
    if (kind != rhs_.kind(rhs)) {
      return fmt::format("kind {} vs {}", node_kind_name(kind), node_kind_name(rhs_.kind(rhs)));
    }
    bool pairs = kind == NodeKind::kVar || (options_.compare_sharing && !compared_by_value(kind));
    if (pairs) {
      std::uint32_t lhs_partner = lhs_to_rhs_[lhs.index()];
      std::uint32_t rhs_partner = rhs_to_lhs_[rhs.index()];
      if (lhs_partner == rhs.index() && rhs_partner == lhs.index()) return std::nullopt;
      if (lhs_partner != kUnpaired || rhs_partner != kUnpaired) {
        detail_.lhs_paired_with = NodeId(lhs_partner);
        detail_.rhs_paired_with = NodeId(rhs_partner);
        return fmt::format("sharing differs: {} is paired with {} and {} with {}", lhs,
                           NodeId(lhs_partner), rhs, NodeId(rhs_partner));
      }
    } else if (!compared_by_value(kind)) {
      if (!visited_.insert({lhs.index(), rhs.index()}).second) return std::nullopt;
    }
    if (std::optional<std::string> reason = compare_local(lhs, rhs)) return reason;
    if (pairs) {
      lhs_to_rhs_[lhs.index()] = rhs.index();
      rhs_to_lhs_[rhs.index()] = lhs.index();
    }
    descend_ = true;
    return std::nullopt;
  }

  std::optional<std::string> compare_types(std::string_view what, TypeId a, TypeId b) const {
    if (!options_.compare_types || types_equal(lhs_.context(), a, rhs_.context(), b)) {
      return std::nullopt;
    }
    return fmt::format("{} {} vs {}", what, show(lhs_.context(), a), show(rhs_.context(), b));
  }

  static std::string attr_text(const Context& context, AttrValueId id) {
    return id.valid() ? to_string(context, id) : std::string("none");
  }

  std::optional<std::string> compare_attrs(AttrValueId a, AttrValueId b) {
    const Context& lc = lhs_.context();
    const Context& rc = rhs_.context();
    if (attr_values_equal(lc, a, rc, b)) return std::nullopt;
    detail_.attribute = differing_field(a, b);
    if (!detail_.attribute) {
      detail_.attribute = AttributeDifference{"", attr_text(lc, a), attr_text(rc, b)};
    }
    return fmt::format("attrs {} vs {}", attr_text(lc, a), attr_text(rc, b));
  }

  // The first field of two unequal objects of one type key that differs or that one lacks;
  // nullopt when they are not two such objects, or differ only in field order.
  [[nodiscard]] std::optional<AttributeDifference> differing_field(AttrValueId a,
                                                                   AttrValueId b) const {
    const Context& lc = lhs_.context();
    const Context& rc = rhs_.context();
    if (!a.valid() || !b.valid() || lc.attrs.kind(a) != AttrKind::kObject ||
        rc.attrs.kind(b) != AttrKind::kObject || lc.attrs.text(a) != rc.attrs.text(b)) {
      return std::nullopt;
    }
    auto value_text = [](const Context& context, std::optional<AttrValueId> value) {
      return value ? to_string(context, *value) : std::string("none");
    };
    for (std::size_t i = 0; i < lc.attrs.entry_count(a); ++i) {
      std::string_view key = lc.strings.view(lc.attrs.field_key(a, i));
      AttrValueId value = lc.attrs.entry_value(a, i);
      std::optional<AttrValueId> other = rc.attrs.find_field(b, key);
      if (!other || !attr_values_equal(lc, value, rc, *other)) {
        return AttributeDifference{std::string(key), to_string(lc, value), value_text(rc, other)};
      }
    }
    for (std::size_t i = 0; i < rc.attrs.entry_count(b); ++i) {
      std::string_view key = rc.strings.view(rc.attrs.field_key(b, i));
      if (!lc.attrs.find_field(a, key)) {
        return AttributeDifference{std::string(key), "none",
                                   to_string(rc, rc.attrs.entry_value(b, i))};
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> compare_local(NodeId lhs, NodeId rhs) {
    const Context& lc = lhs_.context();
    const Context& rc = rhs_.context();
    if (auto reason = compare_types("type", lhs_.type(lhs), rhs_.type(rhs))) return reason;
    if (lhs_.operands(lhs).size() != rhs_.operands(rhs).size()) {
      return fmt::format("{} operands vs {}", lhs_.operands(lhs).size(), rhs_.operands(rhs).size());
    }
    switch (lhs_.kind(lhs)) {
      case NodeKind::kVar:
        return compare_types("annotation", lhs_.annotation(lhs), rhs_.annotation(rhs));
      case NodeKind::kConstant: {
        const Tensor& a = lhs_.tensor(lhs);
        const Tensor& b = rhs_.tensor(rhs);
        if (tensors_equal(lc, a, rc, b)) return std::nullopt;
        return fmt::format("constant {}{} vs {}{}", lc.strings.view(a.dtype), a.shape,
                           rc.strings.view(b.dtype), b.shape);
      }
      case NodeKind::kOp:
        if (lc.op_name(lhs_.op(lhs)) == rc.op_name(rhs_.op(rhs))) return std::nullopt;
        return fmt::format("op {} vs {}", lc.op_name(lhs_.op(lhs)), rc.op_name(rhs_.op(rhs)));
      case NodeKind::kGlobalVar:
        if (lhs_.name(lhs) == rhs_.name(rhs)) return std::nullopt;
        return fmt::format("global @{} vs @{}", lhs_.name(lhs), rhs_.name(rhs));
      case NodeKind::kCall:
        if (auto reason = compare_attrs(lhs_.attrs(lhs), rhs_.attrs(rhs))) return reason;
        return compare_types("type args", lhs_.type_args(lhs), rhs_.type_args(rhs));
      case NodeKind::kTupleGetItem:
        if (lhs_.index(lhs) == rhs_.index(rhs)) return std::nullopt;
        return fmt::format("tuple index {} vs {}", lhs_.index(lhs), rhs_.index(rhs));
      case NodeKind::kFunction:
        if (auto reason = compare_attrs(lhs_.attrs(lhs), rhs_.attrs(rhs))) return reason;
        if (auto reason =
                compare_types("result type", lhs_.result_type(lhs), rhs_.result_type(rhs))) {
          return reason;
        }
        return compare_types("type params", lhs_.type_params(lhs), rhs_.type_params(rhs));
      case NodeKind::kTuple:
      case NodeKind::kLet:
      case NodeKind::kIf:
        return std::nullopt;
    }
    return std::nullopt;
  }

  Difference make_difference(std::uint32_t frame_index, std::string reason) const {
    Difference difference = detail_;
    difference.lhs = frames_[frame_index].lhs;
    difference.rhs = frames_[frame_index].rhs;
    difference.reason = std::move(reason);
    for (std::uint32_t i = frame_index; i != kNoParent; i = frames_[i].parent) {
      difference.path.push_back({frames_[i].lhs, frames_[i].rhs, frames_[i].operand});
    }
    std::reverse(difference.path.begin(), difference.path.end());
    return difference;
  }

  const Graph<D>& lhs_;
  const Graph<D>& rhs_;
  EqualityOptions options_;
  std::vector<std::uint32_t> lhs_to_rhs_;
  std::vector<std::uint32_t> rhs_to_lhs_;
  absl::flat_hash_set<std::pair<std::uint32_t, std::uint32_t>> visited_;
  std::vector<Frame> frames_;
  bool descend_ = false;
  Difference detail_;  // what the failing visit adds to its reason (attribute, partners)
};

}  // namespace detail

/// Where expression `lhs_root` of `lhs` and `rhs_root` of `rhs` first differ, or nullopt when
/// they are structurally equal.
template <Dialect D>
std::optional<Difference> first_difference(const Graph<D>& lhs, NodeId lhs_root,
                                           const Graph<D>& rhs, NodeId rhs_root,
                                           EqualityOptions options = {}) {
  return detail::StructuralComparer<D>(lhs, rhs, options).compare(lhs_root, rhs_root);
}

template <Dialect D>
bool structural_equal(const Graph<D>& lhs, NodeId lhs_root, const Graph<D>& rhs, NodeId rhs_root,
                      EqualityOptions options = {}) {
  return !first_difference(lhs, lhs_root, rhs, rhs_root, options).has_value();
}

/// Where two modules first differ: a function missing on one side, or the first difference
/// inside the function of the same name. Function order does not matter.
template <Dialect D>
std::optional<Difference> first_difference(const Module<D>& lhs, const Module<D>& rhs,
                                           EqualityOptions options = {}) {
  detail::StructuralComparer<D> comparer(lhs.graph, rhs.graph, options);
  for (const GlobalFunction& function : lhs.functions()) {
    std::string_view name = lhs.name(function);
    std::optional<NodeId> other = rhs.find(name);
    if (!other) {
      return Difference{.lhs = function.function,
                        .rhs = NodeId(),
                        .reason = fmt::format("function @{} is missing on the right", name),
                        .path = {},
                        .function = std::string(name)};
    }
    if (auto difference = comparer.compare(function.function, *other)) {
      difference->function = name;
      return difference;
    }
  }
  for (const GlobalFunction& function : rhs.functions()) {
    if (!lhs.find(rhs.name(function))) {
      return Difference{
          .lhs = NodeId(),
          .rhs = function.function,
          .reason = fmt::format("function @{} is missing on the left", rhs.name(function)),
          .path = {},
          .function = std::string(rhs.name(function))};
    }
  }
  return std::nullopt;
}

template <Dialect D>
bool structural_equal(const Module<D>& lhs, const Module<D>& rhs, EqualityOptions options = {}) {
  return !first_difference(lhs, rhs, options).has_value();
}

/// A hash of the expression at `root` that ignores variable names, sharing and spans (and
/// types unless `options.compare_types`): structurally equal expressions hash equally.
template <Dialect D>
std::uint64_t structural_hash(const Graph<D>& graph, NodeId root, EqualityOptions options = {}) {
  std::vector<bool> live = reachable_from(graph, std::span(&root, 1));
  std::vector<std::uint64_t> hashes(root.index() + 1, 0);
  const Context& context = graph.context();
  for (std::uint32_t i = 0; i <= root.index(); ++i) {
    if (!live[i]) continue;
    NodeId id(i);
    std::uint64_t hash = absl::HashOf(graph.kind(id), graph.operands(id).size());
    if (options.compare_types) hash = absl::HashOf(hash, type_hash(context, graph.type(id)));
    switch (graph.kind(id)) {
      case NodeKind::kVar:
        if (options.compare_types)
          hash = absl::HashOf(hash, type_hash(context, graph.annotation(id)));
        break;
      case NodeKind::kConstant: {
        const Tensor& tensor = graph.tensor(id);
        hash = absl::HashOf(hash, context.strings.view(tensor.dtype), tensor.shape);
        break;
      }
      case NodeKind::kOp:
        hash = absl::HashOf(hash, context.op_name(graph.op(id)));
        break;
      case NodeKind::kGlobalVar:
        hash = absl::HashOf(hash, graph.name(id));
        break;
      case NodeKind::kCall:
      case NodeKind::kFunction:
        hash = absl::HashOf(hash, attr_value_hash(context, graph.attrs(id)));
        break;
      case NodeKind::kTupleGetItem:
        hash = absl::HashOf(hash, graph.index(id));
        break;
      case NodeKind::kTuple:
      case NodeKind::kLet:
      case NodeKind::kIf:
        break;
    }
    for (NodeId operand : graph.operands(id)) hash = absl::HashOf(hash, hashes[operand.index()]);
    hashes[i] = hash;
  }
  return hashes[root.index()];
}

}  // namespace graphpat
