// The pattern text syntax is TVM's Python DPL, where `a * b` is `is_op("multiply")(a, b)`: so
// describe(pattern) without a dialect spells arithmetic sugar as Relay does. Describing for
// another dialect is describe<D>(pattern) (pattern/describe.hpp).
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern x = wildcard();
//   graphpat::describe(x * x);            // p0 = wildcard()\nis_op('multiply')(p0, p0)
//   graphpat::describe<OnnxDialect>(x * x);  // p0 = wildcard()\nis_op('Mul')(p0, p0)
#pragma once

#include <string>

#include "graphpat/pattern/describe.hpp"
#include "graphpat/relay/dialect.hpp"

namespace graphpat {

/// The pattern in the text syntax of parse_pattern, arithmetic sugar spelled as Relay's ops.
inline std::string describe(const PatternGraph& graph, PatternId root) {
  return describe<relay::Dialect>(graph, root);
}
inline std::string describe(const Pattern& pattern) { return describe<relay::Dialect>(pattern); }

}  // namespace graphpat
