// A second, tiny dialect for the tests: scalar arithmetic (add and mul commutative, sub and div
// not, `rand` stateful). Instantiating the same Graph/Builder/analysis templates with it keeps
// the engines honest about being generic over dialects.
#pragma once

#include <graphpat/ir.hpp>
#include <string_view>

namespace graphpat::testing {

struct ArithDialect {
  static constexpr std::string_view kName = "arith";

  static void register_ops(Context& context) {
    struct Spec {
      std::string_view name;
      bool commutative;
      bool stateful;
    };
    static constexpr Spec kSpecs[] = {{"add", true, false},  {"mul", true, false},
                                      {"sub", false, false}, {"div", false, false},
                                      {"neg", false, false}, {"rand", false, true}};
    for (const Spec& spec : kSpecs) {
      OpInfo info;
      info.name = context.strings.intern(spec.name);
      info.commutative = spec.commutative;
      info.stateful = spec.stateful;
      info.pattern_kind = OpPatternKind::kElemWise;
      context.ops.add(info);
    }
  }
};

using ArithGraph = Graph<ArithDialect>;
using ArithBuilder = Builder<ArithDialect>;

}  // namespace graphpat::testing
