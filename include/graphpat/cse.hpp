// Entry point for common-subexpression elimination (see transform/cse.hpp).
//
//   #include <graphpat/cse.hpp>
//   auto result = graphpat::eliminate_common_subexpr(module);              // graphpat's rules
//   auto tvm = graphpat::eliminate_common_subexpr(module, {.relay_compat = true});
//   fmt::print("{} merged\n", result.report.merged);
#pragma once

#include "graphpat/transform/cse.hpp"
