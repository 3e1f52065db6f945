// What a partition (or rewrite, or pattern table) did: how many groups became functions, and
// every group that matched but was refused, with the reason and the node at fault.
//
//   for (const graphpat::RejectedGroup& r : result.report.rejected) {
//     fmt::print("{} refused: {} ({} used by {})\n", r.root,
//                graphpat::rejection_reason_name(r.reason), r.node, r.user);
//   }
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "graphpat/ir/ids.hpp"
#include "graphpat/transform/cse.hpp"

namespace graphpat {

/// Why a group was not outlined.
enum class RejectionReason : std::uint8_t {
  kOverlap,      // `node` already belongs to an earlier group
  kUsedOutside,  // interior `node` is used by `user`, outside the group and not post-dominated
  kCheckFailed,  // the check function returned false
};

constexpr std::string_view rejection_reason_name(RejectionReason reason) {
  constexpr std::string_view kNames[] = {"overlap", "used_outside", "check_failed"};
  return kNames[static_cast<std::size_t>(reason)];
}

/// One group that matched but was not outlined; ids are of the partition's input graph (after
/// CSE in the default mode).
struct RejectedGroup {
  NodeId root;
  RejectionReason reason;
  NodeId node;  // kOverlap, kUsedOutside: the interior node at fault
  NodeId user;  // kUsedOutside: its outside user
};

struct PartitionReport {
  std::uint32_t accepted = 0;  // functions created
  std::vector<RejectedGroup> rejected;
  CseReport cse;  // what the default mode merged first
};

}  // namespace graphpat
