// Entry point for pattern rewriting (see transform/rewrite.hpp), for rewriting graph patterns
// several nodes at once (transform/rewrite_bindings.hpp) and for rewrite rules as text
// (transform/rewrite_rules.hpp).
//
//   #include <graphpat/rewrite.hpp>
//   auto result = graphpat::rewrite(callbacks, graph, root, {.max_applications = 100});
//   auto all = graphpat::rewrite(callbacks, module);   // every function of a module
//   fmt::print("{} rewrites in {} iterations{}\n", result.rewrites, result.iterations,
//              result.converged ? "" : " (budget reached)");
//   auto fused = graphpat::rewrite_bindings<graphpat::relay::Dialect>(qkv, fuse, module);
//   auto ruled = graphpat::apply_rewrite_rules(*graphpat::parse_rewrite_rules(text), module);
#pragma once

#include "graphpat/detail/linkage.hpp"
#include "graphpat/transform/rewrite.hpp"
#include "graphpat/transform/rewrite_bindings.hpp"
#include "graphpat/transform/rewrite_rules.hpp"

#if GRAPHPAT_INSTANTIATIONS
// With graphpat::compiled (detail/linkage.hpp), the library holds these for the Relay dialect.
#include "graphpat/relay/dialect.hpp"

namespace graphpat {
GRAPHPAT_INSTANTIATION RewriteResult<relay::Dialect> rewrite(
    const std::vector<RewriteCallback<relay::Dialect>>&, const relay::Graph&, NodeId,
    const RewriteOptions&);
GRAPHPAT_INSTANTIATION ModuleRewriteResult<relay::Dialect> rewrite(
    const std::vector<RewriteCallback<relay::Dialect>>&, const relay::Module&,
    const RewriteOptions&);
}  // namespace graphpat
#endif  // GRAPHPAT_INSTANTIATIONS
