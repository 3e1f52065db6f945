// What a partition (or rewrite, or pattern table) did: how many groups became functions, every
// group that matched but was refused, with the reason and the node at fault, and every interior
// node an outlined function computes a second time. Every id names a node of the graph the
// caller passed in, and every line says which table entry (or rewrite callback) it comes from;
// transform/partition/describe.hpp words a line.
//
//   for (const graphpat::RejectedGroup& r : result.report.rejected) {
//     fmt::print("{}\n", graphpat::describe(r, module.graph));   // module: the input
//   }
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "graphpat/ir/ids.hpp"
#include "graphpat/transform/cse_interface.hpp"

namespace graphpat {

/// Why a group was not outlined.
enum class RejectionReason : std::uint8_t {
  kOverlap,      // `node` already belongs to an earlier group
  kUsedOutside,  // interior `node` is used by `user`, outside the group and not post-dominated
  kCheckFailed,  // the check function returned false
  kDuplicatesStateful,  // default-mode partition: an interior node used by `user` outside would
                        // be computed twice, and so would the stateful call `node` it reads
  kEscapingVariable,    // `node` (a function or let in the group) binds a variable that `user`,
                        // outside the group (an input, or under one), reads
};

constexpr std::string_view rejection_reason_name(RejectionReason reason) {
  constexpr std::string_view kNames[] = {"overlap", "used_outside", "check_failed",
                                         "duplicates_stateful", "escaping_variable"};
  return kNames[static_cast<std::size_t>(reason)];
}

/// One group that matched but was not outlined. Ids are of the graph the caller passed. Where
/// the pass grouped another graph, each id is translated to the input node it stands for:
/// - the default mode groups the graph eliminate_common_subexpr made, where one node stands for
///   every input node merged into it: the id is the first of those in id order (the one CSE
///   kept, whose text comes first);
/// - a pattern table's later entries group the graph its earlier entries made: a node copied
///   from the input is that input node (a copy inside a function made is the node it copies),
///   the call and the function made for an earlier group stand for that group's root, and a
///   parameter for the input it receives.
struct RejectedGroup {
  NodeId root;
  RejectionReason reason;
  NodeId node;  // kOverlap, kUsedOutside, kDuplicatesStateful, kEscapingVariable: the interior
                // node at fault (kOverlap: the root itself when the root is already claimed)
  NodeId user;  // kUsedOutside, kDuplicatesStateful, kEscapingVariable: the outside user
  /// What produced the group: the index of the pattern table's entry (merge_composite; in the
  /// table as given, whatever order `by_benefit` applies it in) or of the rewrite callback;
  /// 0 for partition's single pattern.
  std::uint32_t entry = 0;
};

/// An interior node of an outlined group that a node outside the group also uses, accepted
/// because the group's root post-dominates that user (tvm#11616): the function computes its own
/// copy of `node` and `user` keeps reading the original, so `node` is computed twice. Ids and
/// `entry` are as in RejectedGroup.
struct DuplicatedInterior {
  NodeId root;
  NodeId node;
  NodeId user;
  std::uint32_t entry = 0;
};

struct PartitionReport {
  std::uint32_t accepted = 0;  // functions created
  /// Matches made no group because a call cannot take their root's place: the pattern bound
  /// the root itself as an input, or the root is a Var or a module definition (partition.hpp).
  std::uint32_t not_outlined = 0;
  /// Match attempts stopped at MatchOptions::max_steps (matcher.hpp), each taken as no match:
  /// the pattern backtracks exponentially on this graph.
  std::uint32_t stopped_matches = 0;
  /// PartitionOptions::outline_outside_uses and graph patterns: the interior values the
  /// functions made return beside their roots.
  std::uint32_t outputs = 0;
  std::vector<RejectedGroup> rejected;
  std::vector<DuplicatedInterior> duplicated;  // partition and pattern tables only; a rewrite
                                               // replaces the root and leaves the rest
  CseReport cse;  // what the default mode merged first
};

}  // namespace graphpat
