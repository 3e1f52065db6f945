// Entry point for partitioning and pattern tables (see transform/partition.hpp and
// transform/merge_composite.hpp).
//
//   #include <graphpat/partition.hpp>
//   auto result = graphpat::partition(pattern, module, {.attrs = {{"Composite", "bn"}}});
//   fmt::print("{} functions, {} groups rejected\n", result.report.accepted,
//              result.report.rejected.size());
//   auto tvm = graphpat::partition(pattern, module, {.relay_compat = true});
#pragma once

#include "graphpat/detail/linkage.hpp"
#if GRAPHPAT_ENTRY_DEFINITIONS
#include "graphpat/transform/graph_partition.hpp"
#include "graphpat/transform/merge_composite.hpp"
#include "graphpat/transform/partition.hpp"
#else
// With graphpat::compiled, the declarations only; a dialect of the user's own includes the
// three headers above, which define them.
#include "graphpat/transform/partition_interface.hpp"
#endif

#if GRAPHPAT_INSTANTIATIONS
// With graphpat::compiled (detail/linkage.hpp), the library holds these for the Relay dialect.
#include "graphpat/relay/dialect.hpp"

namespace graphpat {
GRAPHPAT_INSTANTIATION PartitionResult<relay::Dialect> partition(
    const Pattern&, const relay::Module&, const PartitionOptions<relay::Dialect>&);
GRAPHPAT_INSTANTIATION PartitionedExpression<relay::Dialect> partition(
    const Pattern&, const relay::Graph&, NodeId, const PartitionOptions<relay::Dialect>&);
GRAPHPAT_INSTANTIATION PartitionResult<relay::Dialect> merge_composite(
    const std::vector<CompositePattern<relay::Dialect>>&, const relay::Module&,
    const MergeCompositeOptions&);
GRAPHPAT_INSTANTIATION absl::StatusOr<PartitionResult<relay::Dialect>> partition(
    const PatternContext&, const relay::Module&, PartitionOptions<relay::Dialect>,
    const GraphMatchOptions&);
}  // namespace graphpat
#endif  // GRAPHPAT_INSTANTIATIONS
