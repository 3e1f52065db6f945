// A second, tiny dialect for the tests: scalar arithmetic (add and mul commutative, sub and div
// not, `rand` stateful), with conventions of its own (`*` is `mul`, its own function attribute
// keys, no associativity retries). Instantiating the same Graph/Builder/analysis templates with it
// keeps the engines honest about being generic over dialects.
#pragma once

#include <graphpat/ir.hpp>
#include <string_view>

namespace graphpat::testing {

struct ArithDialect {
  static constexpr std::string_view kName = "arith";

  static constexpr std::string_view kOpaqueFunctionKeys[] = {"arith.external"};
  /// Names of its own for everything, so that a test sees whichever dialect's name a pass uses.
  static constexpr DialectConventions kConventions{
      .arithmetic = {.add = "add", .subtract = "sub", .multiply = "mul", .divide = "div"},
      .op_pattern_kind_attr = "arith.kind",
      .op_stateful_attr = "arith.stateful",
      .outlined_function_attrs_type = "arith.FunctionAttrs",
      .partitioned_from_key = "arith.outlined_from",
      .composite_key = "arith.composite",
      .outlined_parameter_prefix = "in",
      .opaque_function_keys = kOpaqueFunctionKeys};

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
