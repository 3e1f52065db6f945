// The evaluator behind parse_pattern and parse_graph_pattern (pattern/text.hpp): runs the
// statements PatternSyntax reads, building the Pattern with the dsl and applying lambdas, within
// the options' limits; for a graph pattern, it also builds the PatternContext the constraints
// (`^`, `>>`, used_by, only_used_by, fork_to, dup, same_shape_as) and Relax's `arg ^ call`
// edges of each call pattern made inside the context go to.
//
//   absl::StatusOr<graphpat::Pattern> pattern = graphpat::detail::PatternEvaluator(text, options).run();
//   auto graph_pattern = graphpat::detail::PatternEvaluator(text, options).run_graph();
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/pattern/dsl.hpp"
#include "graphpat/pattern/graph_pattern.hpp"
#include "graphpat/pattern/pattern_graph.hpp"
#include "graphpat/pattern/text_options.hpp"
#include "graphpat/pattern/text_syntax.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat {

namespace detail {

struct TextValue {
  enum class Kind : std::uint8_t {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kList,
    kTuple,
    kDict,
    kPattern,
    kType,
    kAnyDim,
    kLambda,
    kBuiltin,
    kMethod,
    kModule,
    kSequence,  // Relax's PatternSeq: the patterns of `a >> b ^ c`, in `elements`
    kContext,   // PatternContext(incremental)
  };
  Kind kind = Kind::kNone;
  std::int64_t integer = 0;
  double floating = 0;
  std::string text;                 // string; builtin, method or lambda parameter name
  std::vector<TextValue> elements;  // list / tuple / sequence; dict: key, value, ...; a method
                                    // of a sequence: its receiver
  std::optional<Pattern> handle;    // pattern; method receiver
  PatternType type;
  std::uint32_t body = 0;  // lambda

  static TextValue of_pattern(Pattern p) {
    TextValue v;
    v.kind = Kind::kPattern;
    v.handle = std::move(p);
    return v;
  }
  [[nodiscard]] const Pattern& pattern() const { return *handle; }
  static TextValue named(Kind kind, std::string text) {
    TextValue v;
    v.kind = kind;
    v.text = std::move(text);
    return v;
  }
  [[nodiscard]] std::string_view what() const {
    switch (kind) {
      case Kind::kNone:
        return "None";
      case Kind::kBool:
        return "a bool";
      case Kind::kInt:
        return "an int";
      case Kind::kFloat:
        return "a float";
      case Kind::kString:
        return "a string";
      case Kind::kList:
        return "a list";
      case Kind::kTuple:
        return "a tuple";
      case Kind::kDict:
        return "a dict";
      case Kind::kPattern:
        return "a pattern";
      case Kind::kType:
        return "a type";
      case Kind::kAnyDim:
        return "relay.Any()";
      case Kind::kLambda:
        return "a lambda";
      case Kind::kBuiltin:
        return "a function";
      case Kind::kMethod:
        return "a method";
      case Kind::kModule:
        return "a module";
      case Kind::kSequence:
        return "a pattern sequence";
      case Kind::kContext:
        return "a PatternContext";
    }
    return "?";
  }
};

/// A builtin's parameters (Python names, in order) and how many are required.
struct Signature {
  std::string_view name;
  std::vector<std::string_view> params;
  std::size_t required;
};

inline const std::vector<Signature>& builtin_signatures() {
  static const std::vector<Signature> kSignatures = {
      {"wildcard", {}, 0},
      {"WildcardPattern", {}, 0},
      {"is_op", {"op_name"}, 1},
      {"is_var", {"name"}, 0},
      {"VarPattern", {"name_hint"}, 0},
      {"is_constant", {}, 0},
      {"ConstantPattern", {}, 0},
      {"is_expr", {"expr"}, 1},
      {"ExprPattern", {"expr"}, 1},
      {"is_tuple", {"fields", "unordered"}, 1},
      {"TuplePattern", {"fields"}, 1},
      {"UnorderedTuplePattern", {"fields"}, 1},
      {"is_tuple_get_item", {"tuple_value", "index"}, 1},
      {"TupleGetItemPattern", {"tuple_value", "index"}, 1},
      {"is_if", {"cond", "true_branch", "false_branch"}, 3},
      {"IfPattern", {"cond", "true_branch", "false_branch"}, 3},
      {"is_let", {"var", "value", "body"}, 3},
      {"LetPattern", {"var", "value", "body"}, 3},
      {"FunctionPattern", {"params", "body"}, 2},
      {"CallPattern", {"op", "args"}, 2},
      {"AltPattern", {"left", "right"}, 2},
      {"has_attr", {"attrs", "pattern"}, 1},
      {"has_type", {"ttype", "pattern"}, 1},
      {"has_dtype", {"dtype", "pattern"}, 1},
      {"has_shape", {"shape", "pattern"}, 1},
      {"dominates", {"parent", "path", "child"}, 3},
      {"DominatorPattern", {"parent", "path", "child"}, 3},
      {"relay.TensorType", {"shape", "dtype"}, 1},
      {"relay.TupleType", {"fields"}, 1},
      {"relay.Any", {}, 0},
      {"relay.scalar_type", {"dtype"}, 1},
      {"PatternContext", {"incremental"}, 0},
      // methods: the receiver is not a parameter
      {".has_attr", {"attrs"}, 1},
      {".has_type", {"ttype"}, 1},
      {".has_dtype", {"dtype"}, 1},
      {".has_shape", {"shape"}, 1},
      {".optional", {"option_constructor"}, 1},
      {".dominates", {"parent", "path"}, 1},
      {".redirect_to", {"pat"}, 1},
      // graph patterns; fork_to and same_shape_as take any number of arguments
      {".used_by", {"other", "index"}, 1},
      {".only_used_by", {"other", "index"}, 1},
      {".dup", {}, 0},
      {".fork_to", {}, 0},
      {".same_shape_as", {}, 0},
  };
  return kSignatures;
}

inline const Signature* find_signature(std::string_view name) {
  for (const Signature& signature : builtin_signatures()) {
    if (signature.name == name) return &signature;
  }
  return nullptr;
}

/// Reads a Relay type (`Tensor[(1, 3), float32]`, `float32`, `(T1, T2)`) from `text`.
class RelayTypeReader {
 public:
  explicit RelayTypeReader(std::string_view text) : text_(text) {}

  std::optional<PatternType> read() {
    std::optional<PatternType> type = read_type(0);
    skip_spaces();
    if (!type || pos_ != text_.size()) return std::nullopt;
    return type;
  }

 private:
  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string word() {
    skip_spaces();
    std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '.' || text_[pos_] == '-')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  std::optional<PatternType> read_type(int depth) {
    if (depth > 64) return std::nullopt;
    if (eat('(')) {
      std::vector<PatternType> fields;
      while (!eat(')')) {
        std::optional<PatternType> field = read_type(depth + 1);
        if (!field) return std::nullopt;
        fields.push_back(std::move(*field));
        if (!eat(',')) {
          if (!eat(')')) return std::nullopt;
          break;
        }
      }
      return PatternType::tuple(std::move(fields));
    }
    std::string name = word();
    if (name.empty()) return std::nullopt;
    if (name != "Tensor") return PatternType::tensor({}, name);
    if (!eat('[') || !eat('(')) return std::nullopt;
    std::vector<ShapeDim> shape;
    while (!eat(')')) {
      if (eat('?')) {
        shape.push_back(ShapeDim::any());
      } else {
        std::string dim = word();
        if (dim.empty()) return std::nullopt;
        if (std::isdigit(static_cast<unsigned char>(dim[0]))) {
          std::size_t digits = 0;
          while (digits < dim.size() && std::isdigit(static_cast<unsigned char>(dim[digits])))
            ++digits;
          std::string_view suffix = std::string_view(dim).substr(digits);
          if (!suffix.empty() && suffix != "i64" && suffix != "i32") return std::nullopt;
          shape.push_back(ShapeDim::of(std::stoll(dim.substr(0, digits))));
        } else {
          shape.push_back(ShapeDim::named(dim));
        }
      }
      if (!eat(',')) {
        if (!eat(')')) return std::nullopt;
        break;
      }
    }
    if (!eat(',')) return std::nullopt;
    std::string dtype = word();
    if (dtype.empty() || !eat(']')) return std::nullopt;
    return PatternType::tensor(std::move(shape), std::move(dtype));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

class PatternEvaluator {
 public:
  PatternEvaluator(std::string_view text, const PatternParseOptions& options)
      : limits_(options.limits.or_defaults(kPatternDefaultLimits)), syntax_(text, limits_) {
    for (const auto& [name, pattern] : options.names)
      globals_[name] = TextValue::of_pattern(pattern);
  }

  absl::StatusOr<Pattern> run() {
    GRAPHPAT_ASSIGN_OR_RETURN(auto statements, syntax_.parse());
    if (statements.empty()) {
      return pattern_text_error("no_pattern", 1, 1, "the text holds no pattern");
    }
    std::optional<TextValue> last;
    for (const Statement& statement : statements) {
      if (statement.opens_block) {
        return pattern_text_error("no_context", statement.line, statement.column,
                                  "a with block makes a graph pattern: read the text with "
                                  "parse_graph_pattern");
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto value, evaluate(statement.expression, nullptr));
      if (statement.target.empty()) {
        last = std::move(value);
      } else {
        globals_[statement.target] = std::move(value);
        last.reset();
      }
    }
    const Statement& final_statement = statements.back();
    if (!last) {
      return pattern_text_error("no_pattern", final_statement.line, final_statement.column,
                                "the last line must be the pattern expression, not an assignment");
    }
    if (last->kind != TextValue::Kind::kPattern) {
      return pattern_text_error("not_a_pattern", final_statement.line, final_statement.column,
                                fmt::format("the last line is {}, not a pattern", last->what()));
    }
    return last->pattern();
  }

  /// The graph pattern of the text: that of its `with PatternContext() as ctx:` block, or,
  /// when it has none, of the whole text.
  absl::StatusOr<ParsedGraphPattern> run_graph() {
    GRAPHPAT_ASSIGN_OR_RETURN(auto statements, syntax_.parse());
    ParsedGraphPattern parsed;
    bool has_block = std::any_of(statements.begin(), statements.end(),
                                 [](const Statement& s) { return s.opens_block; });
    context_ = has_block ? nullptr : &parsed.context;
    std::optional<std::uint32_t> block_column;
    bool block_done = false;
    absl::flat_hash_map<std::string, std::size_t> name_index;  // position in parsed.names
    for (const Statement& statement : statements) {
      if (block_column && statement.column <= *block_column) {
        context_ = nullptr;
        block_column.reset();
        block_done = true;
      }
      if (statement.opens_block) {
        if (block_column || block_done) {
          return pattern_text_error(
              "unsupported", statement.line, statement.column,
              block_column ? "a PatternContext block inside another is not supported: write "
                             "the inner one as a text of its own"
                           : "one PatternContext block per text: write the other as a text "
                             "of its own");
        }
        GRAPHPAT_ASSIGN_OR_RETURN(auto value, evaluate(statement.expression, nullptr));
        if (value.kind != TextValue::Kind::kContext || value.integer != 0) {
          return error_at(node(statement.expression), "no_context",
                          value.kind != TextValue::Kind::kContext
                              ? fmt::format("a with block takes PatternContext(), got {}",
                                            value.what())
                              : std::string("PatternContext(incremental=True) needs an "
                                            "enclosing context, and blocks do not nest here"));
        }
        globals_[statement.target] = value;
        block_column = statement.column;
        context_ = &parsed.context;
        continue;
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto value, evaluate(statement.expression, nullptr));
      if (statement.target.empty()) continue;
      if (value.kind == TextValue::Kind::kPattern) {
        auto [slot, added] = name_index.try_emplace(statement.target, parsed.names.size());
        if (added) {
          parsed.names.emplace_back(statement.target, value.pattern());
        } else {
          parsed.names[slot->second].second = value.pattern();
        }
      }
      globals_[statement.target] = std::move(value);
    }
    context_ = nullptr;
    GRAPHPAT_RETURN_IF_ERROR(parsed.context.validate());
    return parsed;
  }

 private:
  // The names a lambda's body sees beyond the globals: its parameter, then the parameters of
  // the lambdas it was applied in (a chain on the stack, never a copy of the globals).
  struct Scope {
    const Scope* outer;
    std::string_view name;
    const TextValue* value;
  };
  using Env = const Scope*;  // nullptr: the globals alone
  using Args = std::vector<std::optional<TextValue>>;

  const AstNode& node(std::uint32_t id) const { return syntax_.nodes()[id]; }

  static absl::Status error_at(const AstNode& at, std::string_view what, std::string_view message) {
    return pattern_text_error(what, at.line, at.column, message);
  }

  // A chain `a | b | c`, `p.has_attr(..).has_type(..)`, `f(a)(b)` or `~~~p` is a tree as deep
  // as it is long along its first children: it is walked down in a loop and evaluated back up,
  // so only brackets, arguments and lambdas recurse. Every node evaluated counts against
  // max_nodes, which bounds what a lambda applied many times can build.
  absl::StatusOr<TextValue> evaluate(std::uint32_t id, Env env) {
    std::vector<std::uint32_t> chain;
    auto in_chain = [&](AstKind kind) {
      return kind == AstKind::kBinary || kind == AstKind::kCall || kind == AstKind::kAttribute ||
             kind == AstKind::kUnary;
    };
    for (; in_chain(node(id).kind); id = node(id).children[0]) {
      GRAPHPAT_RETURN_IF_ERROR(count_node(node(id)));
      chain.push_back(id);
    }
    GRAPHPAT_RETURN_IF_ERROR(count_node(node(id)));
    auto value = evaluate_node(node(id), env);
    for (auto link = chain.rbegin(); link != chain.rend() && value.ok(); ++link) {
      const AstNode& n = node(*link);
      switch (n.kind) {
        case AstKind::kBinary:
          value = binary(n, *std::move(value), env);
          break;
        case AstKind::kCall:
          value = call(n, *std::move(value), env);
          break;
        case AstKind::kUnary:
          value = unary(n, *std::move(value));
          break;
        default:
          value = attribute(n, *std::move(value));
      }
    }
    return value;
  }

  absl::Status count_node(const AstNode& n) {
    if (++evaluated_ <= limits_.max_nodes) return absl::OkStatus();
    return error_at(n, "too_many_nodes", too_many_nodes_problem(limits_.max_nodes));
  }

  // A node that is not a link of a chain (see evaluate).
  absl::StatusOr<TextValue> evaluate_node(const AstNode& n, Env env) {
    switch (n.kind) {
      case AstKind::kName:
        return lookup(n, env);
      case AstKind::kInt: {
        TextValue v;
        v.kind = TextValue::Kind::kInt;
        v.integer = n.integer;
        return v;
      }
      case AstKind::kFloat: {
        TextValue v;
        v.kind = TextValue::Kind::kFloat;
        v.floating = n.floating;
        return v;
      }
      case AstKind::kString:
        return TextValue::named(TextValue::Kind::kString, n.text);
      case AstKind::kList:
      case AstKind::kTuple:
      case AstKind::kDict: {
        TextValue v;
        v.kind = n.kind == AstKind::kList    ? TextValue::Kind::kList
                 : n.kind == AstKind::kTuple ? TextValue::Kind::kTuple
                                             : TextValue::Kind::kDict;
        for (std::uint32_t child : n.children) {
          GRAPHPAT_ASSIGN_OR_RETURN(auto element, evaluate(child, env));
          v.elements.push_back(std::move(element));
        }
        return v;
      }
      case AstKind::kLambda: {
        TextValue v = TextValue::named(TextValue::Kind::kLambda, n.text);
        v.body = n.children[0];
        return v;
      }
      case AstKind::kSubscript:
        return error_at(n, "unsupported", "subscripts are not part of the pattern syntax");
      default:
        break;  // the links of a chain, which evaluate() applies
    }
    return error_at(n, "unsupported", "unsupported syntax");
  }

  // The chain's links take the value so far by value, moved: a sequence `a >> b >> c ...` grows
  // in place, link by link, instead of being copied at each.
  absl::StatusOr<TextValue> attribute(const AstNode& n, TextValue object) {
    if (object.kind == TextValue::Kind::kModule) {
      std::string name = object.text + "." + n.text;
      if (!find_signature(name)) {
        return error_at(n, "unknown_name", fmt::format("unknown name '{}'", name));
      }
      return TextValue::named(TextValue::Kind::kBuiltin, name);
    }
    if (object.kind == TextValue::Kind::kSequence) {
      if (n.text != "used_by" && n.text != "only_used_by" && n.text != "dup") {
        return error_at(n, "unknown_method",
                        fmt::format("pattern sequences have no method '{}'", n.text));
      }
      TextValue method = TextValue::named(TextValue::Kind::kMethod, "." + n.text);
      method.elements.push_back(std::move(object));
      return method;
    }
    if (object.kind != TextValue::Kind::kPattern) {
      return error_at(n, "unknown_method",
                      fmt::format("{} has no method '{}'", object.what(), n.text));
    }
    if (!find_signature("." + n.text)) {
      return error_at(n, "unknown_method", fmt::format("patterns have no method '{}'", n.text));
    }
    TextValue method = TextValue::named(TextValue::Kind::kMethod, "." + n.text);
    method.handle = object.handle;
    return method;
  }

  absl::StatusOr<TextValue> lookup(const AstNode& n, Env env) {
    for (Env scope = env; scope != nullptr; scope = scope->outer) {
      if (scope->name == n.text) return *scope->value;
    }
    if (auto found = globals_.find(n.text); found != globals_.end()) return found->second;
    if (n.text == "None") return TextValue();
    if (n.text == "True" || n.text == "False") {
      TextValue v;
      v.kind = TextValue::Kind::kBool;
      v.integer = n.text == "True" ? 1 : 0;
      return v;
    }
    if (n.text == "relay") return TextValue::named(TextValue::Kind::kModule, "relay");
    if (find_signature(n.text)) return TextValue::named(TextValue::Kind::kBuiltin, n.text);
    return error_at(n, "unknown_name", fmt::format("unknown name '{}'", n.text));
  }

  absl::StatusOr<TextValue> unary(const AstNode& n, TextValue operand) {
    if (n.text == "-" || n.text == "+") {
      double sign = n.text == "-" ? -1 : 1;
      if (operand.kind == TextValue::Kind::kInt) {
        operand.integer *= static_cast<std::int64_t>(sign);
        return operand;
      }
      if (operand.kind == TextValue::Kind::kFloat) {
        operand.floating *= sign;
        return operand;
      }
      return error_at(n, "bad_operand",
                      fmt::format("unary '{}' needs a number, got {}", n.text, operand.what()));
    }
    if (operand.kind != TextValue::Kind::kPattern) {
      return error_at(n, "bad_operand",
                      fmt::format("'{}' needs a pattern, got {}", n.text, operand.what()));
    }
    return TextValue::of_pattern(!operand.pattern());
  }

  absl::StatusOr<TextValue> binary(const AstNode& n, TextValue left, Env env) {
    GRAPHPAT_ASSIGN_OR_RETURN(auto right, evaluate(n.children[1], env));
    if (n.text == "^" || n.text == ">>") {
      return chain(n, std::move(left), right,
                   n.text == "^" ? UseKind::kUsedBy : UseKind::kOnlyUsedBy, -1);
    }
    if (left.kind != TextValue::Kind::kPattern || right.kind != TextValue::Kind::kPattern) {
      return error_at(
          n, "bad_operand",
          fmt::format("'{}' needs two patterns, got {} and {}", n.text, left.what(), right.what()));
    }
    const Pattern& a = left.pattern();
    const Pattern& b = right.pattern();
    switch (n.text[0]) {
      case '|':
        return TextValue::of_pattern(a | b);
      case '&':
        return TextValue::of_pattern(a & b);
      default: {
        ArithmeticRole role = n.text == "+"   ? ArithmeticRole::kAdd
                              : n.text == "-" ? ArithmeticRole::kSubtract
                              : n.text == "*" ? ArithmeticRole::kMultiply
                                              : ArithmeticRole::kDivide;
        return TextValue::of_pattern(call_with_edges(dsl::is_op(role), {a, b}));  // `a + b`
      }
    }
  }

  // ----- graph patterns -------------------------------------------------------------------------

  // The patterns of a pattern or a sequence.
  static absl::StatusOr<std::vector<Pattern>> sequence_of(const TextValue& v, const AstNode& at,
                                                          std::string_view role) {
    if (v.kind == TextValue::Kind::kPattern) return std::vector<Pattern>{v.pattern()};
    if (v.kind == TextValue::Kind::kSequence) {
      std::vector<Pattern> patterns;
      for (const TextValue& element : v.elements) patterns.push_back(element.pattern());
      return patterns;
    }
    return error_at(at, "bad_operand",
                    fmt::format("{} must be a pattern or a pattern sequence, got {}", role,
                                v.what()));
  }
  static TextValue sequence(const std::vector<Pattern>& patterns) {
    TextValue v;
    v.kind = TextValue::Kind::kSequence;
    for (const Pattern& pattern : patterns) v.elements.push_back(TextValue::of_pattern(pattern));
    return v;
  }
  absl::Status need_context(const AstNode& at, std::string_view what) const {
    if (context_ != nullptr) return absl::OkStatus();
    return error_at(at, "no_context",
                    fmt::format("{} adds a constraint to a PatternContext: write it inside a "
                                "`with PatternContext() as ctx:` block and read the text with "
                                "parse_graph_pattern",
                                what));
  }
  // `a ^ b`, `a >> b`, a.used_by(b, index), a.only_used_by(b, index): the last pattern of the
  // left used by the first of the right; the two sequences joined.
  absl::StatusOr<TextValue> chain(const AstNode& at, TextValue left, const TextValue& right,
                                  UseKind kind, std::int64_t index) {
    std::string_view what = kind == UseKind::kUsedBy ? "'^' (used_by)" : "'>>' (only_used_by)";
    GRAPHPAT_RETURN_IF_ERROR(need_context(at, what));
    if (left.kind != TextValue::Kind::kSequence) {
      GRAPHPAT_ASSIGN_OR_RETURN(auto producers, sequence_of(left, at, "the producer"));
      left = sequence(producers);
    }
    GRAPHPAT_ASSIGN_OR_RETURN(auto consumers, sequence_of(right, at, "the consumer"));
    if (kind == UseKind::kUsedBy) {
      context_->used_by(left.elements.back().pattern(), consumers.front(), index);
    } else {
      context_->only_used_by(left.elements.back().pattern(), consumers.front(), index);
    }
    for (const Pattern& consumer : consumers) left.elements.push_back(TextValue::of_pattern(consumer));
    return left;
  }
  absl::StatusOr<TextValue> graph_method(const AstNode& n, TextValue& callee, Args& args,
                                         std::vector<TextValue>& variadic) {
    std::string_view name = callee.text;
    TextValue receiver = callee.elements.empty() ? TextValue::of_pattern(callee.pattern())
                                                 : std::move(callee.elements[0]);
    auto at = [&](std::size_t i) -> const AstNode& {
      return i + 1 < n.children.size() ? node(n.children[i + 1]) : n;
    };
    if (name == ".used_by" || name == ".only_used_by") {
      std::int64_t index = -1;
      if (args[1]) {
        if (args[1]->kind != TextValue::Kind::kInt) {
          return error_at(at(1), "bad_argument",
                          fmt::format("the index must be an int, got {}", args[1]->what()));
        }
        index = args[1]->integer;
      }
      return chain(n, std::move(receiver), *args[0],
                   name == ".used_by" ? UseKind::kUsedBy : UseKind::kOnlyUsedBy, index);
    }
    if (name == ".dup") {
      if (receiver.kind == TextValue::Kind::kPattern) {
        return TextValue::of_pattern(receiver.pattern().dup());
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto patterns, sequence_of(receiver, n, "the receiver"));
      if (context_ == nullptr) {
        for (Pattern& pattern : patterns) pattern = pattern.dup();
        return sequence(patterns);
      }
      return sequence(context_->dup(patterns));
    }
    if (name == ".fork_to") {
      for (std::size_t i = 0; i < variadic.size(); ++i) {
        GRAPHPAT_RETURN_IF_ERROR(
            chain(at(i), receiver, variadic[i], UseKind::kUsedBy, -1).status());
      }
      return TextValue();
    }
    // .same_shape_as
    GRAPHPAT_RETURN_IF_ERROR(need_context(n, "same_shape_as"));
    std::vector<Pattern> group = {receiver.pattern()};
    for (std::size_t i = 0; i < variadic.size(); ++i) {
      GRAPHPAT_ASSIGN_OR_RETURN(auto pattern, as_pattern(variadic[i], at(i), "an argument"));
      group.push_back(pattern);
    }
    context_->same_shape(group);
    return TextValue();
  }

  absl::StatusOr<TextValue> call(const AstNode& n, TextValue callee, Env env) {
    std::vector<TextValue> values;
    for (std::size_t i = 1; i < n.children.size(); ++i) {
      GRAPHPAT_ASSIGN_OR_RETURN(auto value, evaluate(n.children[i], env));
      values.push_back(std::move(value));
    }
    switch (callee.kind) {
      case TextValue::Kind::kPattern: {
        for (const std::string& keyword : n.keywords) {
          if (!keyword.empty()) {
            return error_at(n, "bad_argument", "a pattern call takes no keyword arguments");
          }
        }
        if (values.size() == 1 && values[0].kind == TextValue::Kind::kNone) {
          return TextValue::of_pattern(callee.pattern()(any_args));
        }
        std::vector<Pattern> args;
        for (std::size_t i = 0; i < values.size(); ++i) {
          GRAPHPAT_ASSIGN_OR_RETURN(
              auto pattern, as_pattern(values[i], node(n.children[i + 1]), "a call argument"));
          args.push_back(pattern);
        }
        return TextValue::of_pattern(call_with_edges(callee.pattern(), args));
      }
      case TextValue::Kind::kLambda:
        return apply(callee, n, values, env);
      case TextValue::Kind::kBuiltin:
      case TextValue::Kind::kMethod: {
        bool variadic = callee.text == ".fork_to" || callee.text == ".same_shape_as";
        if (variadic) {
          for (const std::string& keyword : n.keywords) {
            if (!keyword.empty()) {
              return error_at(n, "bad_argument",
                              fmt::format("{}() takes no keyword arguments", callee.text.substr(1)));
            }
          }
          Args none;
          return graph_method(n, callee, none, values);
        }
        GRAPHPAT_ASSIGN_OR_RETURN(auto args, bind(n, *find_signature(callee.text), values));
        if (callee.text == ".used_by" || callee.text == ".only_used_by" || callee.text == ".dup") {
          return graph_method(n, callee, args, values);
        }
        return builtin(n, callee, args, env);
      }
      default:
        return error_at(n, "not_callable", fmt::format("{} cannot be called", callee.what()));
    }
  }

  absl::StatusOr<TextValue> apply(const TextValue& lambda, const AstNode& at,
                                  const std::vector<TextValue>& values, Env env) {
    if (values.size() != 1) {
      return error_at(at, "bad_lambda",
                      fmt::format("the lambda takes 1 argument, got {}", values.size()));
    }
    if (++lambda_depth_ > limits_.max_depth) {
      return error_at(at, "too_deep",
                      fmt::format("lambdas {}", too_deep_problem(limits_.max_depth)));
    }
    Scope inner{env, lambda.text, &values[0]};
    auto result = evaluate(lambda.body, &inner);
    --lambda_depth_;
    return result;
  }

  absl::StatusOr<Args> bind(const AstNode& n, const Signature& signature,
                            std::vector<TextValue>& values) {
    Args args(signature.params.size());
    std::string_view name = signature.name;
    if (name.starts_with('.')) name.remove_prefix(1);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const AstNode& at = node(n.children[i + 1]);
      std::size_t slot = i;
      if (!n.keywords[i].empty()) {
        slot = signature.params.size();
        for (std::size_t p = 0; p < signature.params.size(); ++p) {
          if (signature.params[p] == n.keywords[i]) slot = p;
        }
        if (slot == signature.params.size()) {
          return error_at(at, "bad_argument",
                          fmt::format("{}() has no parameter '{}'", name, n.keywords[i]));
        }
      }
      if (slot >= signature.params.size()) {
        return error_at(
            at, "argument_count",
            fmt::format("{}() takes {} argument{}, got {}", name, signature.params.size(),
                        signature.params.size() == 1 ? "" : "s", values.size()));
      }
      if (args[slot]) {
        return error_at(at, "bad_argument",
                        fmt::format("{}() got '{}' twice", name, signature.params[slot]));
      }
      args[slot] = std::move(values[i]);
    }
    for (std::size_t p = 0; p < signature.required; ++p) {
      if (!args[p]) {
        return error_at(
            n, "argument_count",
            fmt::format("{}() is missing its argument '{}'", name, signature.params[p]));
      }
    }
    return args;
  }

  // ----- conversions ----------------------------------------------------------------------------

  static absl::StatusOr<Pattern> as_pattern(const TextValue& v, const AstNode& at,
                                            std::string_view role) {
    if (v.kind == TextValue::Kind::kPattern) return v.pattern();
    return error_at(at, "not_a_pattern",
                    fmt::format("{} must be a pattern, got {}", role, v.what()));
  }
  // A list or tuple of patterns; None gives nullopt (any arity).
  static absl::StatusOr<std::optional<std::vector<Pattern>>> as_pattern_list(
      const TextValue& v, const AstNode& at, std::string_view role) {
    if (v.kind == TextValue::Kind::kNone) return std::optional<std::vector<Pattern>>();
    if (v.kind != TextValue::Kind::kList && v.kind != TextValue::Kind::kTuple) {
      return error_at(at, "bad_argument",
                      fmt::format("{} must be a list of patterns or None, got {}", role, v.what()));
    }
    std::vector<Pattern> patterns;
    for (const TextValue& element : v.elements) {
      if (element.kind != TextValue::Kind::kPattern) {
        return error_at(at, "not_a_pattern",
                        fmt::format("{} must hold patterns, got {}", role, element.what()));
      }
      patterns.push_back(element.pattern());
    }
    return std::optional<std::vector<Pattern>>(std::move(patterns));
  }
  static absl::StatusOr<std::string> as_string(const TextValue& v, const AstNode& at,
                                               std::string_view role) {
    if (v.kind == TextValue::Kind::kString) return v.text;
    return error_at(at, "bad_argument", fmt::format("{} must be a string, got {}", role, v.what()));
  }
  // Where element `i` of a value written at `at` was written: the start of its own expression
  // when `at` is the list, tuple or dict literal itself, else `at` (a name bound to the value).
  const AstNode& element_at(const AstNode& at, std::size_t i, std::size_t count) const {
    bool literal = at.kind == AstKind::kList || at.kind == AstKind::kTuple ||
                   at.kind == AstKind::kDict;
    if (!literal || at.children.size() != count) return at;
    const AstNode* start = &node(at.children[i]);
    while ((start->kind == AstKind::kCall || start->kind == AstKind::kAttribute ||
            start->kind == AstKind::kSubscript || start->kind == AstKind::kBinary) &&
           !start->children.empty()) {
      start = &node(start->children.front());  // `f(x)`, `a.b`, `a[i]`, `a | b` start at a
    }
    return *start;
  }
  absl::StatusOr<PatternValue> as_value(const TextValue& v, const AstNode& at) const {
    switch (v.kind) {
      case TextValue::Kind::kNone:
        return PatternValue();
      case TextValue::Kind::kBool:
        return PatternValue::boolean(v.integer != 0);
      case TextValue::Kind::kInt:
        return PatternValue(v.integer);
      case TextValue::Kind::kFloat:
        return PatternValue(v.floating);
      case TextValue::Kind::kString:
        return PatternValue(v.text);
      case TextValue::Kind::kList:
      case TextValue::Kind::kTuple: {
        std::vector<PatternValue> elements;
        for (std::size_t i = 0; i < v.elements.size(); ++i) {
          GRAPHPAT_ASSIGN_OR_RETURN(auto value,
                                    as_value(v.elements[i], element_at(at, i, v.elements.size())));
          elements.push_back(std::move(value));
        }
        return PatternValue::array(std::move(elements));
      }
      default:
        return error_at(at, "bad_attribute",
                        fmt::format("an attribute value cannot be {}", v.what()));
    }
  }
  absl::StatusOr<PatternAttrs> as_attrs(const TextValue& v, const AstNode& at) const {
    if (v.kind != TextValue::Kind::kDict) {
      return error_at(at, "bad_attribute", fmt::format("has_attr takes a dict, got {}", v.what()));
    }
    PatternAttrs attrs;
    for (std::size_t i = 0; i < v.elements.size(); i += 2) {
      if (v.elements[i].kind != TextValue::Kind::kString) {
        return error_at(element_at(at, i, v.elements.size()), "bad_attribute",
                        "attribute names must be strings");
      }
      GRAPHPAT_ASSIGN_OR_RETURN(
          auto value, as_value(v.elements[i + 1], element_at(at, i + 1, v.elements.size())));
      attrs.emplace_back(v.elements[i].text, std::move(value));
    }
    return attrs;
  }
  static absl::StatusOr<std::vector<ShapeDim>> as_shape(const TextValue& v, const AstNode& at) {
    if (v.kind != TextValue::Kind::kList && v.kind != TextValue::Kind::kTuple) {
      return error_at(at, "bad_shape", fmt::format("a shape is a list of dims, got {}", v.what()));
    }
    std::vector<ShapeDim> shape;
    for (const TextValue& dim : v.elements) {
      if (dim.kind == TextValue::Kind::kInt) {
        shape.push_back(ShapeDim::of(dim.integer));
      } else if (dim.kind == TextValue::Kind::kAnyDim) {
        shape.push_back(ShapeDim::any());
      } else if (dim.kind == TextValue::Kind::kString) {
        shape.push_back(ShapeDim::named(dim.text));
      } else {
        return error_at(at, "bad_shape",
                        fmt::format("a dim is an int, relay.Any() or a name, got {}", dim.what()));
      }
    }
    return shape;
  }
  static absl::StatusOr<PatternType> as_type(const TextValue& v, const AstNode& at) {
    if (v.kind == TextValue::Kind::kType) return v.type;
    if (v.kind == TextValue::Kind::kString) {
      std::optional<PatternType> type = RelayTypeReader(v.text).read();
      if (!type) {
        return error_at(at, "bad_type", fmt::format("'{}' is not a Relay type", v.text));
      }
      return *type;
    }
    return error_at(at, "bad_type", fmt::format("expected a type, got {}", v.what()));
  }

  // ----- builtins -------------------------------------------------------------------------------

  absl::StatusOr<TextValue> builtin(const AstNode& n, const TextValue& callee, Args& args,
                                    Env env) {
    std::string_view name = callee.text;
    auto at = [&](std::size_t i) -> const AstNode& {
      // The argument's own node when given positionally, else the call.
      return i + 1 < n.children.size() ? node(n.children[i + 1]) : n;
    };
    auto pattern_arg = [&](std::size_t i, std::string_view role) -> absl::StatusOr<Pattern> {
      if (!args[i] || args[i]->kind == TextValue::Kind::kNone) return dsl::wildcard();
      return as_pattern(*args[i], at(i), role);
    };
    auto result = [](absl::StatusOr<Pattern> p) -> absl::StatusOr<TextValue> {
      if (!p.ok()) return p.status();
      return TextValue::of_pattern(*p);
    };
    if (name == "wildcard" || name == "WildcardPattern") return result(dsl::wildcard());
    if (name == "is_constant" || name == "ConstantPattern") return result(dsl::is_constant());
    if (name == "is_op") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto op, as_string(*args[0], at(0), "the op name"));
      if (op.empty()) return error_at(at(0), "bad_argument", "the op name is empty");
      return result(dsl::is_op(op));
    }
    if (name == "is_var" || name == "VarPattern") {
      if (!args[0] || args[0]->kind == TextValue::Kind::kNone) return result(dsl::is_var());
      GRAPHPAT_ASSIGN_OR_RETURN(auto var, as_string(*args[0], at(0), "the var name"));
      return result(dsl::is_var(var));
    }
    if (name == "is_expr" || name == "ExprPattern") {
      if (args[0]->kind != TextValue::Kind::kPattern ||
          args[0]->pattern().kind() != PatternKind::kExpr) {
        return error_at(at(0), "bad_expr",
                        "is_expr takes an expression given in PatternParseOptions::names");
      }
      PatternNode copy = args[0]->pattern().node();
      copy.uid = 0;
      return result(Pattern::make(std::move(copy), {}));
    }
    if (name == "is_tuple" || name == "TuplePattern" || name == "UnorderedTuplePattern") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto fields, as_pattern_list(*args[0], at(0), "the tuple fields"));
      bool unordered = name == "UnorderedTuplePattern";
      if (name == "is_tuple" && args[1]) {
        if (args[1]->kind != TextValue::Kind::kBool) {
          return error_at(at(1), "bad_argument",
                          fmt::format("unordered must be a bool, got {}", args[1]->what()));
        }
        unordered = args[1]->integer != 0;
      }
      if (!unordered) return result(fields ? dsl::is_tuple(*fields) : dsl::is_tuple(any_args));
      if (!fields) {
        return error_at(at(0), "bad_argument",
                        "an unordered tuple takes a list of fields, not None");
      }
      if (fields->size() > kMaxUnorderedFields) {
        return error_at(at(0), "bad_argument",
                        fmt::format("an unordered tuple has at most {} fields, got {}",
                                    kMaxUnorderedFields, fields->size()));
      }
      return result(dsl::is_unordered_tuple(*fields));
    }
    if (name == "is_tuple_get_item" || name == "TupleGetItemPattern") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto tuple, as_pattern(*args[0], at(0), "the tuple"));
      std::int64_t index = -1;
      if (args[1] && args[1]->kind != TextValue::Kind::kNone) {
        if (args[1]->kind != TextValue::Kind::kInt) {
          return error_at(at(1), "bad_argument",
                          fmt::format("the index must be an int or None, got {}", args[1]->what()));
        }
        index = args[1]->integer;
        if (index < -1) {
          return error_at(at(1), "bad_index",
                          fmt::format("a tuple index is 0 or more, or -1 or None for any index, "
                                      "got {}",
                                      index));
        }
      }
      return result(dsl::is_tuple_get_item(tuple, index));
    }
    if (name == "is_if" || name == "IfPattern" || name == "is_let" || name == "LetPattern" ||
        name == "dominates" || name == "DominatorPattern" || name == "AltPattern") {
      std::vector<Pattern> parts;
      for (std::size_t i = 0; i < args.size(); ++i) {
        GRAPHPAT_ASSIGN_OR_RETURN(
            auto part, as_pattern(*args[i], at(i),
                                  fmt::format("argument '{}'", find_signature(name)->params[i])));
        parts.push_back(part);
      }
      if (name == "AltPattern") return result(parts[0] | parts[1]);
      if (name == "is_if" || name == "IfPattern")
        return result(dsl::is_if(parts[0], parts[1], parts[2]));
      if (name == "is_let" || name == "LetPattern")
        return result(dsl::is_let(parts[0], parts[1], parts[2]));
      return result(dsl::dominates(parts[0], parts[1], parts[2]));
    }
    if (name == "FunctionPattern") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto params,
                                as_pattern_list(*args[0], at(0), "the function params"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto body, as_pattern(*args[1], at(1), "the function body"));
      return result(params ? dsl::function_pattern(*params, body)
                           : dsl::function_pattern(any_args, body));
    }
    if (name == "CallPattern") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto op, as_pattern(*args[0], at(0), "the callee"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto call_args,
                                as_pattern_list(*args[1], at(1), "the call arguments"));
      return result(call_args ? call_with_edges(op, *call_args) : op(any_args));
    }
    if (name == "has_attr" || name == "has_type" || name == "has_dtype" || name == "has_shape" ||
        name.starts_with(".has_")) {
      bool method = name.starts_with('.');
      GRAPHPAT_ASSIGN_OR_RETURN(auto inner, method ? absl::StatusOr<Pattern>(callee.pattern())
                                                   : pattern_arg(1, "the pattern"));
      std::string_view what = method ? name.substr(1) : name;
      if (what == "has_attr") {
        GRAPHPAT_ASSIGN_OR_RETURN(auto attrs, as_attrs(*args[0], at(0)));
        return result(inner.has_attr(std::move(attrs)));
      }
      if (what == "has_type") {
        GRAPHPAT_ASSIGN_OR_RETURN(auto type, as_type(*args[0], at(0)));
        return result(inner.has_type(std::move(type)));
      }
      if (what == "has_dtype") {
        GRAPHPAT_ASSIGN_OR_RETURN(auto dtype, as_string(*args[0], at(0), "the dtype"));
        return result(inner.has_dtype(std::move(dtype)));
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto shape, as_shape(*args[0], at(0)));
      return result(inner.has_shape(std::move(shape)));
    }
    if (name == ".optional") {
      const TextValue& option = *args[0];
      if (option.kind == TextValue::Kind::kPattern)
        return result(callee.pattern().optional(option.pattern()));
      if (option.kind != TextValue::Kind::kLambda) {
        return error_at(at(0), "bad_argument",
                        fmt::format("optional takes a lambda or a pattern, got {}", option.what()));
      }
      GRAPHPAT_ASSIGN_OR_RETURN(
          auto made, apply(option, at(0), {TextValue::of_pattern(callee.pattern())}, env));
      GRAPHPAT_ASSIGN_OR_RETURN(auto pattern, as_pattern(made, at(0), "the lambda's result"));
      return result(callee.pattern() | pattern);
    }
    if (name == ".dominates") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto parent, as_pattern(*args[0], at(0), "the parent"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto path, pattern_arg(1, "the path"));
      return result(callee.pattern().dominates(parent, path));
    }
    if (name == ".redirect_to") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto target, as_pattern(*args[0], at(0), "the redirect target"));
      Pattern wildcard = callee.pattern();
      // The DSL's refusal (pattern.redirect_not_wildcard, pattern.unconsumed_cycle), placed at
      // the method.
      if (absl::Status status = wildcard.redirect_to(target); !status.ok()) {
        if (error_id(status) == "graphpat.pattern.unconsumed_cycle") {
          return error_at(n, "unconsumed_cycle", error_problem(status));
        }
        return error_at(n, "redirect_not_wildcard", error_problem(status));
      }
      return TextValue();
    }
    if (name == "PatternContext") {
      TextValue context;
      context.kind = TextValue::Kind::kContext;
      if (args[0]) {
        if (args[0]->kind != TextValue::Kind::kBool) {
          return error_at(at(0), "bad_argument",
                          fmt::format("incremental must be a bool, got {}", args[0]->what()));
        }
        context.integer = args[0]->integer;
      }
      return context;
    }
    if (name == "relay.Any") {
      TextValue v;
      v.kind = TextValue::Kind::kAnyDim;
      return v;
    }
    TextValue type;
    type.kind = TextValue::Kind::kType;
    if (name == "relay.TensorType" || name == "relay.scalar_type") {
      std::vector<ShapeDim> shape;
      std::size_t dtype_slot = name == "relay.TensorType" ? 1 : 0;
      if (name == "relay.TensorType") {
        GRAPHPAT_ASSIGN_OR_RETURN(shape, as_shape(*args[0], at(0)));
      }
      std::string dtype = "float32";
      if (args[dtype_slot]) {
        GRAPHPAT_ASSIGN_OR_RETURN(dtype, as_string(*args[dtype_slot], at(dtype_slot), "the dtype"));
      }
      type.type = PatternType::tensor(std::move(shape), std::move(dtype));
      return type;
    }
    // relay.TupleType
    if (args[0]->kind != TextValue::Kind::kList && args[0]->kind != TextValue::Kind::kTuple) {
      return error_at(at(0), "bad_type", "relay.TupleType takes a list of types");
    }
    std::vector<PatternType> fields;
    for (const TextValue& field : args[0]->elements) {
      GRAPHPAT_ASSIGN_OR_RETURN(auto parsed, as_type(field, at(0)));
      fields.push_back(std::move(parsed));
    }
    type.type = PatternType::tuple(std::move(fields));
    return type;
  }

  // `callee(args...)`, with Relax's `arg ^ call` edges inside a context.
  Pattern call_with_edges(const Pattern& callee, const std::vector<Pattern>& args) {
    Pattern call = callee.call(args);
    if (context_ != nullptr) {
      for (std::size_t i = 0; i < args.size(); ++i) {
        context_->used_by(args[i], call, static_cast<std::int64_t>(i));
      }
    }
    return call;
  }

  InputLimits limits_;
  PatternSyntax syntax_;
  PatternContext* context_ = nullptr;  // the context being built, in run_graph() only
  absl::flat_hash_map<std::string, TextValue> globals_;
  std::uint64_t evaluated_ = 0;  // nodes evaluated so far, lambda bodies once per application
  std::uint32_t lambda_depth_ = 0;
};

}  // namespace detail

}  // namespace graphpat

#include "graphpat/detail/status_macros_undef.hpp"
