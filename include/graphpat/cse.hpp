// Entry point for common-subexpression elimination (see transform/cse.hpp).
//
//   #include <graphpat/cse.hpp>
//   auto result = graphpat::eliminate_common_subexpr(module);              // graphpat's rules
//   auto tvm = graphpat::eliminate_common_subexpr(module, {.relay_compat = true});
//   fmt::print("{} merged\n", result.report.merged);
#pragma once

#include "graphpat/detail/linkage.hpp"
#if GRAPHPAT_ENTRY_DEFINITIONS
#include "graphpat/transform/cse.hpp"
#else
// With graphpat::compiled, the declarations only; a dialect of the user's own includes
// graphpat/transform/cse.hpp, which defines them.
#include "graphpat/transform/cse_interface.hpp"
#endif

#if GRAPHPAT_INSTANTIATIONS
// With graphpat::compiled (detail/linkage.hpp), the library holds these for the Relay dialect.
#include "graphpat/relay/dialect.hpp"

namespace graphpat {
GRAPHPAT_INSTANTIATION CseResult<relay::Dialect> eliminate_common_subexpr(
    const relay::Module&, const CseOptions<relay::Dialect>&);
GRAPHPAT_INSTANTIATION CseFunctionResult<relay::Dialect> eliminate_common_subexpr(
    const relay::Graph&, NodeId, const CseOptions<relay::Dialect>&);
}  // namespace graphpat
#endif  // GRAPHPAT_INSTANTIATIONS
