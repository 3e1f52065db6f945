// The analyses in one include: reachability, users index, post-dominator tree, compaction,
// structural equality and hashing, verify().
//
//   #include <graphpat/analysis.hpp>
//   auto users = graphpat::UsersIndex::build(graph);
//   auto tree = graphpat::PostDominatorTree::build(graph, module.roots());
//   bool same = graphpat::structural_equal(ours, expected);
#pragma once

#include "graphpat/detail/linkage.hpp"
#include "graphpat/analysis/compact.hpp"
#include "graphpat/analysis/post_dominators.hpp"
#include "graphpat/analysis/reachability.hpp"
#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/users.hpp"
#include "graphpat/analysis/value_equality.hpp"
#include "graphpat/analysis/verify.hpp"

#if GRAPHPAT_INSTANTIATIONS
// With graphpat::compiled (detail/linkage.hpp), the library holds these for the Relay dialect.
#include "graphpat/relay/dialect.hpp"

namespace graphpat {
GRAPHPAT_INSTANTIATION absl::Status verify(const relay::Graph&);
GRAPHPAT_INSTANTIATION absl::Status verify(const relay::Module&);
}  // namespace graphpat
#endif  // GRAPHPAT_INSTANTIATIONS
