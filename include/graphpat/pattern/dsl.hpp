// The C++ spelling of Relay's dataflow pattern language: the same names TVM users know from
// `tvm.relay.dataflow_pattern`, plus `&` (both) and `!` / `~` (not).
//
//   using namespace graphpat::dsl;
//   Pattern conv = is_op("nn.conv2d")(wildcard(), wildcard()).has_attr({{"data_layout", "NCHW"}});
//   Pattern bias = conv.optional([](const Pattern& x) { return is_op("nn.bias_add")(x, wildcard());
//   }); Pattern out = is_op("nn.relu")(bias) | is_op("clip")(bias);        // bias: one node, used
//   twice Pattern bn0 = is_tuple_get_item(is_op("nn.batch_norm")(any_args), 0); Pattern any_concat
//   = is_op("concatenate")(is_tuple(any_args)); Pattern diamond = dominates(conv,
//   is_op("nn.relu")(wildcard()), is_op("add")(any_args));
//
// Arithmetic sugar: `p * q` is `is_op(ArithmeticRole::kMultiply)(p, q)`, a call of the op the
// matched graph's dialect names for `*` (Relay's `multiply`, the arith test dialect's `mul`);
// likewise `+`, `-` and `/`. Calling a pattern makes a call pattern with it as the callee;
// `p(any_args)` matches calls of any arity (Python's `p(None)`).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "graphpat/pattern/expr_pattern.hpp"
#include "graphpat/pattern/pattern_graph.hpp"

namespace graphpat {

/// Stands for Python's `None` as an argument list: any number of arguments / fields / params.
struct AnyArgs {};
inline constexpr AnyArgs any_args{};

namespace detail {

inline Pattern make_leaf(PatternKind kind, std::string name = {}) {
  PatternNode node;
  node.kind = kind;
  node.name = std::move(name);
  return Pattern::make(std::move(node), {});
}

inline Pattern make_unary(PatternKind kind, const Pattern& inner) {
  PatternNode node;
  node.kind = kind;
  return Pattern::make(std::move(node), {inner});
}

inline Pattern make_call(const Pattern& callee, const std::vector<Pattern>& args, bool any) {
  PatternNode node;
  node.kind = PatternKind::kCall;
  node.any_arity = any;
  std::vector<Pattern> operands{callee};
  operands.insert(operands.end(), args.begin(), args.end());
  return Pattern::make(std::move(node), operands);
}

}  // namespace detail

namespace dsl {

using graphpat::any_args;
using graphpat::Pattern;
using graphpat::PatternAttrs;
using graphpat::PatternType;
using graphpat::PatternValue;
using graphpat::ShapeDim;

/// Matches anything (Relay `wildcard()`).
inline Pattern wildcard() { return detail::make_leaf(PatternKind::kWildcard); }
/// Matches the op node `name` itself; call it to match calls of the op: `is_op("add")(a, b)`.
inline Pattern is_op(std::string name) {
  return detail::make_leaf(PatternKind::kOp, std::move(name));
}
/// Matches the op the matched graph's dialect names for `role` (`is_op(ArithmeticRole::kMultiply)`
/// is Relay's multiply, ONNX's Mul); nothing where the dialect names none.
inline Pattern is_op(ArithmeticRole role) {
  PatternNode node;
  node.kind = PatternKind::kOp;
  node.role = role;
  return Pattern::make(std::move(node), {});
}
/// Matches a Var named `name`, or any Var when `name` is empty.
inline Pattern is_var(std::string name = {}) {
  return detail::make_leaf(PatternKind::kVar, std::move(name));
}
/// Matches any Constant.
inline Pattern is_constant() { return detail::make_leaf(PatternKind::kConstant); }
/// Matches nodes structurally equal to `node` of `graph`; `name` is how describe() prints it
/// (`is_expr(name)`) and how parse_pattern finds it again (PatternParseOptions::names).
template <Dialect D>
Pattern is_expr(const Graph<D>& graph, NodeId node, std::string name = "expr") {
  PatternNode pattern;
  pattern.kind = PatternKind::kExpr;
  pattern.name = std::move(name);
  pattern.expr = std::make_shared<detail::ExprHolder<D>>(graph, node);
  return Pattern::make(std::move(pattern), {});
}
/// Matches tuples whose fields match `fields` pairwise.
inline Pattern is_tuple(const std::vector<Pattern>& fields) {
  PatternNode node;
  node.kind = PatternKind::kTuple;
  return Pattern::make(std::move(node), fields);
}
/// Matches tuples with as many fields as `fields`, each field pattern taking a field of its own
/// in whatever order (Relax's `is_tuple(fields, unordered=True)`); the first assignment found
/// wins (docs/semantics.md). At most kMaxUnorderedFields fields: a longer one matches nothing.
inline Pattern is_unordered_tuple(const std::vector<Pattern>& fields) {
  PatternNode node;
  node.kind = PatternKind::kUnorderedTuple;
  return Pattern::make(std::move(node), fields);
}
/// Matches tuples of any arity.
inline Pattern is_tuple(AnyArgs) {
  PatternNode node;
  node.kind = PatternKind::kTuple;
  node.any_arity = true;
  return Pattern::make(std::move(node), {});
}
/// Matches `t.index` where t matches `tuple`; index -1 (the default) is any index, as TVM's
/// `IsTupleGetItem(p, -1)` and Python's `index=None`. Any other negative index matches no
/// node (TVM compares it with the item's index, never negative); the text syntax refuses it.
inline Pattern is_tuple_get_item(const Pattern& tuple, std::int64_t index = -1) {
  PatternNode node;
  node.kind = PatternKind::kTupleGetItem;
  node.index = index;
  return Pattern::make(std::move(node), {tuple});
}
/// Matches `if (cond) { then } else { otherwise }`.
inline Pattern is_if(const Pattern& cond, const Pattern& then, const Pattern& otherwise) {
  PatternNode node;
  node.kind = PatternKind::kIf;
  return Pattern::make(std::move(node), {cond, then, otherwise});
}
/// Matches `let var = value; body`.
inline Pattern is_let(const Pattern& var, const Pattern& value, const Pattern& body) {
  PatternNode node;
  node.kind = PatternKind::kLet;
  return Pattern::make(std::move(node), {var, value, body});
}
/// Matches function literals whose params match `params` pairwise and whose body matches
/// `body` (Relay `FunctionPattern(params, body)`).
inline Pattern function_pattern(const std::vector<Pattern>& params, const Pattern& body) {
  PatternNode node;
  node.kind = PatternKind::kFunction;
  std::vector<Pattern> operands = params;
  operands.push_back(body);
  return Pattern::make(std::move(node), operands);
}
/// Matches function literals with any number of params (`FunctionPattern(None, body)`).
inline Pattern function_pattern(AnyArgs, const Pattern& body) {
  PatternNode node;
  node.kind = PatternKind::kFunction;
  node.any_arity = true;
  return Pattern::make(std::move(node), {body});
}
/// `pattern.has_attr(attrs)`; the default pattern is a wildcard.
inline Pattern has_attr(PatternAttrs attrs, const Pattern& pattern = wildcard()) {
  return pattern.has_attr(std::move(attrs));
}
inline Pattern has_type(PatternType type, const Pattern& pattern = wildcard()) {
  return pattern.has_type(std::move(type));
}
inline Pattern has_dtype(std::string dtype, const Pattern& pattern = wildcard()) {
  return pattern.has_dtype(std::move(dtype));
}
inline Pattern has_shape(std::vector<ShapeDim> shape, const Pattern& pattern = wildcard()) {
  return pattern.has_shape(std::move(shape));
}
inline Pattern has_shape(std::initializer_list<std::int64_t> shape,
                         const Pattern& pattern = wildcard()) {
  return pattern.has_shape(shape);
}
/// A node matching `child` all of whose inputs reach `parent` through nodes matching `path`,
/// and which post-dominates `parent` (Relay DominatorPattern).
inline Pattern dominates(const Pattern& parent, const Pattern& path, const Pattern& child) {
  PatternNode node;
  node.kind = PatternKind::kDominator;
  return Pattern::make(std::move(node), {parent, path, child});
}
/// `Tensor[(shape), dtype]` for has_type; an empty shape is a scalar type.
inline PatternType tensor_type(std::vector<ShapeDim> shape, std::string dtype) {
  return PatternType::tensor(std::move(shape), std::move(dtype));
}
inline PatternType tensor_type(std::initializer_list<std::int64_t> shape, std::string dtype) {
  std::vector<ShapeDim> dims;
  for (std::int64_t extent : shape) dims.push_back(ShapeDim::of(extent));
  return PatternType::tensor(std::move(dims), std::move(dtype));
}
inline PatternType tuple_type(std::vector<PatternType> fields) {
  return PatternType::tuple(std::move(fields));
}

}  // namespace dsl

// ----- Pattern members and operators (ADL finds the operators without a using-directive) -----

template <class... Args>
Pattern Pattern::operator()(const Args&... args) const {
  if constexpr (sizeof...(Args) == 1 && (std::is_same_v<Args, AnyArgs> && ...)) {
    return detail::make_call(*this, {}, true);
  } else {
    static_assert((std::is_convertible_v<Args, Pattern> && ...),
                  "call a pattern with patterns, or with any_args alone");
    return detail::make_call(*this, std::vector<Pattern>{Pattern(args)...}, false);
  }
}
inline Pattern Pattern::call(const std::vector<Pattern>& args) const {
  return detail::make_call(*this, args, false);
}
/// `p | callee(p)`: Python's `p.optional(is_op("nn.relu"))`.
inline Pattern Pattern::optional(const Pattern& callee) const { return alternative(callee(*this)); }
inline Pattern Pattern::alternative(const Pattern& other) const {
  PatternNode node;
  node.kind = PatternKind::kAlt;
  return Pattern::make(std::move(node), {*this, other});
}
inline Pattern Pattern::has_attr(PatternAttrs attrs) const {
  PatternNode node;
  node.kind = PatternKind::kAttr;
  node.attrs = std::move(attrs);
  return Pattern::make(std::move(node), {*this});
}
inline Pattern Pattern::has_type(PatternType type) const {
  PatternNode node;
  node.kind = PatternKind::kType;
  node.type = std::move(type);
  return Pattern::make(std::move(node), {*this});
}
inline Pattern Pattern::has_dtype(std::string dtype) const {
  PatternNode node;
  node.kind = PatternKind::kDataType;
  node.name = std::move(dtype);
  return Pattern::make(std::move(node), {*this});
}
inline Pattern Pattern::has_shape(std::vector<ShapeDim> shape) const {
  PatternNode node;
  node.kind = PatternKind::kShape;
  node.shape = std::move(shape);
  return Pattern::make(std::move(node), {*this});
}
inline Pattern Pattern::has_shape(std::initializer_list<std::int64_t> shape) const {
  std::vector<ShapeDim> dims;
  for (std::int64_t extent : shape) dims.push_back(ShapeDim::of(extent));
  return has_shape(std::move(dims));
}
/// `child.dominates(parent, path)`: this pattern is the child.
inline Pattern Pattern::dominates(const Pattern& parent, const Pattern& path) const {
  return dsl::dominates(parent, path, *this);
}
inline Pattern Pattern::dominates(const Pattern& parent) const {
  return dsl::dominates(parent, dsl::wildcard(), *this);
}

/// Either (committed choice: the right side is tried only when the left fails).
inline Pattern operator|(const Pattern& left, const Pattern& right) {
  return left.alternative(right);
}
/// Both, on the same node.
inline Pattern operator&(const Pattern& left, const Pattern& right) {
  PatternNode node;
  node.kind = PatternKind::kAnd;
  return Pattern::make(std::move(node), {left, right});
}
/// Anything `pattern` does not match.
inline Pattern operator!(const Pattern& pattern) {
  return detail::make_unary(PatternKind::kNot, pattern);
}
inline Pattern operator~(const Pattern& pattern) { return !pattern; }
/// Arithmetic sugar: a call of the op the dialect names for the role (ir/conventions.hpp).
inline Pattern operator+(const Pattern& a, const Pattern& b) {
  return dsl::is_op(ArithmeticRole::kAdd)(a, b);
}
inline Pattern operator-(const Pattern& a, const Pattern& b) {
  return dsl::is_op(ArithmeticRole::kSubtract)(a, b);
}
inline Pattern operator*(const Pattern& a, const Pattern& b) {
  return dsl::is_op(ArithmeticRole::kMultiply)(a, b);
}
inline Pattern operator/(const Pattern& a, const Pattern& b) {
  return dsl::is_op(ArithmeticRole::kDivide)(a, b);
}

}  // namespace graphpat
