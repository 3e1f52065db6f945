// Graph patterns: several patterns matched at once, with constraints between the nodes they
// match, as Relax's PatternContext writes them (`a ^ b`, `a >> b`, fork_to, dup, ExternUse,
// SameShapeConstraint). A PatternContext only describes; GraphMatcher (graph_matcher.hpp)
// matches it in a graph of any dialect.
//
//   using namespace graphpat::dsl;
//   graphpat::PatternContext ctx;
//   graphpat::Pattern x = wildcard();
//   graphpat::Pattern q = is_op("nn.dense")(x, wildcard()), k = is_op("nn.dense")(x, wildcard());
//   ctx.add(q).add(k);                       // two denses of one input: x binds one node
//   graphpat::Pattern squeeze = is_op("nn.relu")(wildcard());
//   graphpat::Pattern e1 = is_op("nn.conv2d")(wildcard(), wildcard());
//   graphpat::Pattern e3 = e1.dup();         // the same shape of pattern, other nodes
//   ctx.fork_to(squeeze, {e1, e3});          // squeeze ^ e1, squeeze ^ e3
//   ctx.only_used_by_chain({conv, bias, relu});   // conv >> bias >> relu
//
// What a match is. The context's patterns (its nodes: those added, and every pattern a
// constraint names, in the order they were first named) are assigned graph nodes, one node
// each and no node twice (Relax's one-to-one assignment: two `is_op("nn.relu")(wildcard())`
// nodes match two different relus), except that a pattern and one that constrains it at the
// same node (`p` and `p.has_attr(...)`, both in the context) take the same node, such that
//   - each pattern matches at its node, by the matcher's rules (matcher.hpp), and all of them
//     under one memo: a pattern node reachable from several context patterns (a shared
//     wildcard, x above) binds one graph node in the whole match;
//   - `used_by(p, c, index)` (`p ^ c`): c's node takes p's node as an operand: its argument
//     `index` for a call (arguments counted without the callee), its operand `index` for any
//     other node, any operand when index is -1;
//   - `only_used_by(p, c, index)` (`p >> c`): the same, and no other node uses p's node (a
//     function returning it uses it too);
//   - `same_shape({a, b, ...})`: the nodes' stored tensor types have the same dims;
//   - with ExternUse::kMustNot, every node of a context pattern that some constraint names as
//     producer is used by nodes of the match only (Relax: "all nodes except outputs only have
//     internal dependencies").
//
// Differences from Relax, on purpose: Relax matches each context pattern with a fresh memo,
// so a wildcard shared by two of them may bind two nodes unless an edge ties them (Relax adds
// `arg ^ call` edges for every call pattern made inside a `with PatternContext()` block, which
// the text syntax does too); here a shared pattern node always binds one node. Relax counts an
// edge's `index` over the consumer's variable operands only; here over its arguments. Relax
// reports the first match only (its search is greedy and may miss one that a different choice
// finds); GraphMatcher searches every choice.
//
// A context is a value: copying one is Relax's `PatternContext(incremental=True)` (the copy
// keeps the constraints and takes new ones of its own).
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/status.h>
#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/pattern/pattern_graph.hpp"

namespace graphpat {

/// How a consumer uses a producer: `^` or `>>`.
enum class UseKind : std::uint8_t { kUsedBy, kOnlyUsedBy };

/// Whether the nodes of a match may be used by nodes outside it (Relax's ExternUse).
enum class ExternUse : std::uint8_t { kMay, kMustNot };

/// One edge constraint between two of the context's patterns (positions in patterns()).
struct UseConstraint {
  std::size_t producer = 0;
  std::size_t consumer = 0;
  UseKind kind = UseKind::kUsedBy;
  std::int64_t index = -1;  // the consumer's argument (operand) position, or -1 for any
  friend bool operator==(const UseConstraint&, const UseConstraint&) = default;
};

class PatternContext {
 public:
  /// Makes `pattern` a node of the context (nothing when it is one already).
  PatternContext& add(const Pattern& pattern) {
    position_of(pattern);
    return *this;
  }
  /// `producer ^ consumer`: consumer's node takes producer's node as an operand (argument
  /// `index`, or any when -1).
  PatternContext& used_by(const Pattern& producer, const Pattern& consumer,
                          std::int64_t index = -1) {
    return constrain(producer, consumer, UseKind::kUsedBy, index);
  }
  /// `producer >> consumer`: the same, and nothing else uses producer's node.
  PatternContext& only_used_by(const Pattern& producer, const Pattern& consumer,
                               std::int64_t index = -1) {
    return constrain(producer, consumer, UseKind::kOnlyUsedBy, index);
  }
  /// `a ^ b ^ c`: each pattern used by the next.
  PatternContext& used_by_chain(const std::vector<Pattern>& chain) {
    return constrain_chain(chain, UseKind::kUsedBy);
  }
  /// `a >> b >> c`: each pattern used only by the next.
  PatternContext& only_used_by_chain(const std::vector<Pattern>& chain) {
    return constrain_chain(chain, UseKind::kOnlyUsedBy);
  }
  /// `producer.fork_to(a, b, ...)`: producer ^ a, producer ^ b, ...
  PatternContext& fork_to(const Pattern& producer, const std::vector<Pattern>& consumers) {
    for (const Pattern& consumer : consumers) used_by(producer, consumer);
    return *this;
  }
  /// `seq.dup()`: a copy of each pattern (Pattern::dup) with a copy of every constraint
  /// between them, added to the context; the copies in the order of `patterns`.
  GRAPHPAT_ENTRY std::vector<Pattern> dup(const std::vector<Pattern>& patterns);
  /// `SameShapeConstraint(a, b, ...)`: the patterns' nodes have tensor types of equal dims.
  PatternContext& same_shape(const std::vector<Pattern>& patterns) {
    std::vector<std::size_t> group;
    for (const Pattern& pattern : patterns) group.push_back(position_of(pattern));
    same_shape_.push_back(std::move(group));
    return *this;
  }
  /// Relax's `allow_extern_use` (kMay by default).
  PatternContext& set_extern_use(ExternUse use) {
    extern_use_ = use;
    return *this;
  }

  [[nodiscard]] const std::vector<Pattern>& patterns() const { return patterns_; }
  [[nodiscard]] const std::vector<UseConstraint>& constraints() const { return constraints_; }
  [[nodiscard]] const std::vector<std::vector<std::size_t>>& same_shape_groups() const {
    return same_shape_;
  }
  [[nodiscard]] ExternUse extern_use() const { return extern_use_; }
  /// The position of `pattern` in patterns(), or -1.
  [[nodiscard]] GRAPHPAT_ENTRY std::ptrdiff_t find(const Pattern& pattern) const;

  /// Whether the context can be matched: refused are an empty context
  /// (`graph_pattern.empty`), an index below -1 (`graph_pattern.bad_index`) and a pattern used
  /// by itself (`graph_pattern.self_use`: no node of a dataflow graph uses itself).
  [[nodiscard]] absl::Status validate() const {
    if (patterns_.empty()) {
      return make_error(absl::StatusCode::kInvalidArgument, "graph_pattern.empty",
                        "the pattern context has no pattern");
    }
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
      const UseConstraint& c = constraints_[i];
      if (c.index < -1) {
        return make_error(absl::StatusCode::kInvalidArgument, "graph_pattern.bad_index",
                          fmt::format("constraint {} ({}): index {} is neither -1 (any operand) "
                                      "nor an operand position",
                                      i, constraint_text(c), c.index));
      }
      if (c.producer == c.consumer) {
        return make_error(absl::StatusCode::kInvalidArgument, "graph_pattern.self_use",
                          fmt::format("constraint {} ({}): a pattern cannot use its own node", i,
                                      constraint_text(c)));
      }
    }
    return absl::OkStatus();
  }

  /// `#0 ^ #1` or `#0 >> #1 (index 1)`: a constraint in words, patterns named by position.
  [[nodiscard]] static std::string constraint_text(const UseConstraint& c) {
    std::string text = fmt::format("#{} {} #{}", c.producer,
                                   c.kind == UseKind::kUsedBy ? "^" : ">>", c.consumer);
    if (c.index != -1) text += fmt::format(" (index {})", c.index);
    return text;
  }

 private:
  GRAPHPAT_ENTRY std::size_t position_of(const Pattern& pattern);
  GRAPHPAT_ENTRY PatternContext& constrain(const Pattern& producer, const Pattern& consumer,
                                           UseKind kind, std::int64_t index);
  PatternContext& constrain_chain(const std::vector<Pattern>& chain, UseKind kind) {
    for (std::size_t i = 0; i < chain.size(); ++i) {
      if (i == 0) {
        add(chain[i]);
      } else {
        constrain(chain[i - 1], chain[i], kind, -1);
      }
    }
    return *this;
  }

  std::vector<Pattern> patterns_;
  absl::flat_hash_map<std::uint64_t, std::size_t> position_;  // Pattern::uid -> position
  std::vector<UseConstraint> constraints_;
  absl::flat_hash_set<std::tuple<std::size_t, std::size_t, UseKind, std::int64_t>> constraint_set_;
  std::vector<std::vector<std::size_t>> same_shape_;
  ExternUse extern_use_ = ExternUse::kMay;
};

#if GRAPHPAT_ENTRY_DEFINITIONS
GRAPHPAT_ENTRY std::vector<Pattern> PatternContext::dup(const std::vector<Pattern>& patterns) {
  absl::flat_hash_map<std::size_t, std::size_t> copy_of;  // context position -> copy
  std::vector<Pattern> copies;
  for (const Pattern& pattern : patterns) {
    copy_of.try_emplace(position_of(pattern), copies.size());
    copies.push_back(pattern.dup());
  }
  const std::size_t existing = constraints_.size();
  for (std::size_t i = 0; i < existing; ++i) {
    const UseConstraint c = constraints_[i];
    auto producer = copy_of.find(c.producer), consumer = copy_of.find(c.consumer);
    if (producer == copy_of.end() || consumer == copy_of.end()) continue;
    constrain(copies[producer->second], copies[consumer->second], c.kind, c.index);
  }
  for (const Pattern& copy : copies) add(copy);
  return copies;
}

GRAPHPAT_ENTRY std::ptrdiff_t PatternContext::find(const Pattern& pattern) const {
  auto found = position_.find(pattern.uid());
  return found == position_.end() ? -1 : static_cast<std::ptrdiff_t>(found->second);
}

GRAPHPAT_ENTRY std::size_t PatternContext::position_of(const Pattern& pattern) {
  auto [slot, added] = position_.try_emplace(pattern.uid(), patterns_.size());
  if (added) patterns_.push_back(pattern);
  return slot->second;
}

GRAPHPAT_ENTRY PatternContext& PatternContext::constrain(const Pattern& producer,
                                                         const Pattern& consumer, UseKind kind,
                                                         std::int64_t index) {
  UseConstraint c{position_of(producer), position_of(consumer), kind, index};
  if (constraint_set_.insert({c.producer, c.consumer, c.kind, c.index}).second) {
    constraints_.push_back(c);
  }
  return *this;
}
#endif  // GRAPHPAT_ENTRY_DEFINITIONS

}  // namespace graphpat
