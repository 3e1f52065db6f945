// A dialect's conventions: the names the generic engines (pattern/, transform/) need from a
// dialect but must not spell themselves. The DSL's arithmetic sugar (`a * b`) names a role that
// is resolved to the dialect's op when the pattern is matched; the matcher answers op
// properties under the dialect's attribute names; partition and MergeComposite write and read
// the dialect's function attributes.
//
//   struct MyDialect {
//     static constexpr std::string_view kName = "my";
//     static constexpr std::string_view kOpaqueKeys[] = {"my.external"};
//     static constexpr graphpat::DialectConventions kConventions{
//         .arithmetic = {.add = "Add", .subtract = "Sub", .multiply = "Mul", .divide = "Div"},
//         .composite_key = "my.composite",
//         .opaque_function_keys = kOpaqueKeys};
//     static void register_ops(graphpat::Context& context);
//   };
//   graphpat::dialect_conventions<MyDialect>().arithmetic.of(graphpat::ArithmeticRole::kMultiply);
//   // "Mul"
//
// `kConventions` is optional: a dialect without it gets `DialectConventions{}`, whose defaults
// name nothing of any dialect. With an empty arithmetic name the sugar matches nothing (and
// describe() prints `is_op('')`); with empty op-property names has_attr on an op answers
// nothing; the function keys below default to neutral names of graphpat's own.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>

namespace graphpat {

/// What the DSL's arithmetic operators stand for: `+`, `-`, `*`, `/`.
enum class ArithmeticRole : std::uint8_t { kAdd, kSubtract, kMultiply, kDivide };

/// The operator that writes `role` in the DSL and the pattern text ("*").
constexpr std::string_view arithmetic_symbol(ArithmeticRole role) {
  constexpr std::string_view kSymbols[] = {"+", "-", "*", "/"};
  return kSymbols[static_cast<std::size_t>(role)];
}

/// The dialect's op for each arithmetic role; empty when the dialect has none.
struct ArithmeticOps {
  std::string_view add, subtract, multiply, divide;

  [[nodiscard]] constexpr std::string_view of(ArithmeticRole role) const {
    switch (role) {
      case ArithmeticRole::kAdd:
        return add;
      case ArithmeticRole::kSubtract:
        return subtract;
      case ArithmeticRole::kMultiply:
        return multiply;
      case ArithmeticRole::kDivide:
        return divide;
    }
    return {};
  }
};

/// Everything a dialect names for the engines; see the top of this file.
struct DialectConventions {
  /// The ops of the DSL's `+ - * /`.
  ArithmeticOps arithmetic = {};
  /// Whether the matcher also tries Relay's two associativity rewrites of `arithmetic.multiply`
  /// and `arithmetic.divide` ((a * b) / c as a * (b / c) or b * (a / c), and back); sound only
  /// where these ops are exact arithmetic, which is why a dialect opts in.
  bool associativity_retries = false;
  /// The attribute names under which has_attr on an op reads the registry's OpInfo: its
  /// OpPatternKind and whether it is stateful. Empty: not answered.
  std::string_view op_pattern_kind_attr = {};
  std::string_view op_stateful_attr = {};
  /// The type key of the attribute object a partition gives each function it outlines.
  std::string_view outlined_function_attrs_type = "graphpat.FunctionAttrs";
  /// The attribute, on an outlined function, naming what it was outlined from; a function
  /// carrying it is opaque to later partitions.
  std::string_view partitioned_from_key = "graphpat.partitioned_from";
  /// The attribute MergeComposite sets to the table entry's name.
  std::string_view composite_key = "graphpat.composite";
  /// The outlined function's parameters are `<prefix><g>_<i>` (attempt g, parameter i).
  std::string_view outlined_parameter_prefix = "p";
  /// Attributes that make a module function opaque to MergeComposite.
  std::span<const std::string_view> opaque_function_keys = {};
};

/// Whether `D` declares its conventions.
template <class D>
concept DeclaresConventions = requires {
  { D::kConventions } -> std::convertible_to<DialectConventions>;
};

/// The conventions of dialect `D`: its `kConventions`, or the neutral defaults.
template <class D>
constexpr DialectConventions dialect_conventions() {
  if constexpr (DeclaresConventions<D>) {
    return D::kConventions;
  } else {
    return {};
  }
}

}  // namespace graphpat
