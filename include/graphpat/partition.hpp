// Entry point for partitioning and pattern tables (see transform/partition.hpp and
// transform/merge_composite.hpp).
//
//   #include <graphpat/partition.hpp>
//   auto result = graphpat::partition(pattern, module, {.attrs = {{"Composite", "bn"}}});
//   fmt::print("{} functions, {} groups rejected\n", result.report.accepted,
//              result.report.rejected.size());
//   auto tvm = graphpat::partition(pattern, module, {.relay_compat = true});
#pragma once

#include "graphpat/transform/partition.hpp"
#include "graphpat/transform/merge_composite.hpp"
