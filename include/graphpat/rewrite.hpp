// Entry point for pattern rewriting (see transform/rewrite.hpp).
//
//   #include <graphpat/rewrite.hpp>
//   auto result = graphpat::rewrite(callbacks, graph, root, {.max_applications = 100});
//   auto all = graphpat::rewrite(callbacks, module);   // every function of a module
//   fmt::print("{} rewrites in {} iterations{}\n", result.rewrites, result.iterations,
//              result.converged ? "" : " (budget reached)");
#pragma once

#include "graphpat/transform/rewrite.hpp"
