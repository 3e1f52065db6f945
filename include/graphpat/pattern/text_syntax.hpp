// The pattern text syntax, part 1: tokens and syntax tree of the Python subset TVM's pattern
// strings are written in. text.hpp evaluates the tree into a Pattern; users call
// parse_pattern() there, not this.
//
//   detail::PatternSyntax syntax(text, InputLimits{.max_depth = 256});
//   absl::StatusOr<std::vector<detail::Statement>> program = syntax.parse();
//
// The subset: statements `name = expr` and bare expressions, one a line (or separated by `;`),
// and `with expr as name:` opening a block of the lines indented past it; newlines inside
// brackets continue the line; `#` comments. Expressions: names, int / float / string literals,
// None / True / False, lists, tuples, dicts, calls with positional and keyword arguments,
// attribute access, subscripts, `lambda x: expr`, unary `-` `~` `!`, and the binary operators
// `|`, `^`, `&`, `>>`, `+`, `-`, `*`, `/` with Python's precedence.
//
// Linear in the text, in time and memory: tokens are cut as the parser needs them; a chain of
// binary operators, calls or attributes is read in a loop and counts as one level of nesting
// (brackets, call arguments, prefix operators and lambdas are the nesting max_depth bounds);
// max_nodes refuses the node that would be one too many, as it is made.
#pragma once

#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/ir/strings.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::detail {

/// `[graphpat.pattern_text.<what>] L:C: message`.
inline absl::Status pattern_text_error(std::string_view what, std::uint32_t line,
                                       std::uint32_t column, std::string_view message) {
  return make_error(absl::StatusCode::kInvalidArgument, fmt::format("pattern_text.{}", what),
                    fmt::format("{}:{}: {}", line, column, message));
}

enum class TokenType : std::uint8_t { kName, kInt, kFloat, kString, kPunct, kNewline, kEnd };

struct PatternToken {
  TokenType type = TokenType::kEnd;
  std::string text;  // name, punctuation, or the decoded string
  std::int64_t integer = 0;
  double floating = 0;
  std::uint32_t line = 1;
  std::uint32_t column = 1;

  [[nodiscard]] bool is(std::string_view punct) const {
    return type == TokenType::kPunct && text == punct;
  }
  [[nodiscard]] std::string describe() const {
    switch (type) {
      case TokenType::kName:
        return fmt::format("name '{}'", text);
      case TokenType::kInt:
      case TokenType::kFloat:
        return "a number";
      case TokenType::kString:
        return "a string";
      case TokenType::kPunct:
        return fmt::format("'{}'", text);
      case TokenType::kNewline:
        return "end of the line";
      case TokenType::kEnd:
        return "end of the text";
    }
    return "?";
  }
};

enum class AstKind : std::uint8_t {
  kName,
  kInt,
  kFloat,
  kString,
  kList,
  kTuple,
  kDict,
  kCall,
  kAttribute,
  kSubscript,
  kBinary,
  kUnary,
  kLambda,
};

struct AstNode {
  AstKind kind = AstKind::kName;
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::string text;  // name, string value, operator, attribute name, lambda parameter
  std::int64_t integer = 0;
  double floating = 0;
  std::vector<std::uint32_t> children;  // call: callee then arguments; dict: key, value, ...
  std::vector<std::string> keywords;    // call: one per argument, "" when positional
};

struct Statement {
  std::string target;  // empty for a bare expression; `with expr as target:`
  std::uint32_t expression = 0;
  bool opens_block = false;  // `with expr as target:`: the lines indented past it follow
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

class PatternSyntax {
 public:
  PatternSyntax(std::string_view text, const InputLimits& limits)
      : text_(text), limits_(limits) {}

  /// The statements of the text; nodes() holds their syntax trees.
  absl::StatusOr<std::vector<Statement>> parse() {
    absl::StatusOr<std::vector<Statement>> statements = parse_statements();
    GRAPHPAT_RETURN_IF_ERROR(lex_error_);
    if (statements.ok()) return statements;
    // A malformed token anywhere is reported before a syntax error (as if the text had been
    // cut into tokens first): the rest is scanned token by token, keeping none.
    while (lex_error_.ok() && peek().type != TokenType::kEnd) skip();
    return lex_error_.ok() ? statements.status() : lex_error_;
  }

  [[nodiscard]] const std::vector<AstNode>& nodes() const { return nodes_; }

 private:
  absl::StatusOr<std::vector<Statement>> parse_statements() {
    std::vector<Statement> statements;
    for (;;) {
      while (peek().type == TokenType::kNewline) skip();
      if (peek().type == TokenType::kEnd) break;
      Statement statement;
      statement.line = peek().line;
      statement.column = peek().column;
      if (peek().type == TokenType::kName && peek().text == "with") {
        skip();
        GRAPHPAT_ASSIGN_OR_RETURN(statement.expression, parse_expression(0));
        PatternToken as = next();
        bool named = peek().type == TokenType::kName;
        if (!(as.type == TokenType::kName && as.text == "as") || !named) {
          return pattern_text_error("unexpected_token", as.line, as.column,
                                    "expected 'as NAME:' after the expression of a with");
        }
        statement.target = next().text;
        GRAPHPAT_RETURN_IF_ERROR(expect(":", "after 'with ... as NAME'"));
        statement.opens_block = true;
        if (peek().type != TokenType::kNewline && peek().type != TokenType::kEnd) {
          return unexpected(peek(), "after 'with ... as NAME:' (the block starts on the next line)");
        }
        statements.push_back(std::move(statement));
        continue;
      }
      if (peek().type == TokenType::kName && peek(1).is("=")) {
        statement.target = peek().text;
        skip(2);
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto expression, parse_expression(0));
      statement.expression = expression;
      const PatternToken& after = peek();
      if (after.is("=")) {
        return pattern_text_error("bad_assignment", after.line, after.column,
                                  "only a plain name can be assigned to");
      }
      if (after.type != TokenType::kNewline && after.type != TokenType::kEnd) {
        return unexpected(after, "after an expression");
      }
      statements.push_back(std::move(statement));
    }
    return statements;
  }

  // ----- tokens -----------------------------------------------------------------------------
  //
  // Tokens are cut on demand, one or two ahead of the parser (tokens_ holds only those not yet
  // consumed), so a text's tokens never all exist at once. A malformed token ends the tokens
  // (an end token takes its place) and leaves its error in lex_error_.

  // Cuts the next token into tokens_; false (and no token) at a newline or ';' that ends no
  // line, a space or a comment: the caller calls again.
  bool lex_one() {
    auto column_of = [&](std::size_t at) {
      return static_cast<std::uint32_t>(at - line_start_ + 1);
    };
    std::size_t& i = offset_;
    if (i >= text_.size() || !lex_error_.ok()) {
      tokens_.push_back({TokenType::kEnd, "", 0, 0, line_, column_of(i)});
      return true;
    }
    char c = text_[i];
    if (c == '\n' || c == ';') {
      bool token = nesting_ == 0 && !after_newline_;
      if (token) {
        tokens_.push_back({TokenType::kNewline, std::string(1, c), 0, 0, line_, column_of(i)});
        after_newline_ = true;
      }
      if (c == '\n') {
        ++line_;
        line_start_ = i + 1;
      }
      ++i;
      return token;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      return false;
    }
    if (c == '\\' && i + 1 < text_.size() && text_[i + 1] == '\n') {
      i += 2;
      ++line_;
      line_start_ = i;
      return false;
    }
    if (c == '#') {
      while (i < text_.size() && text_[i] != '\n') ++i;
      return false;
    }
    PatternToken token;
    token.line = line_;
    token.column = column_of(i);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = i;
      while (i < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) {
        ++i;
      }
      token.type = TokenType::kName;
      token.text = std::string(text_.substr(start, i - start));
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < text_.size() &&
                std::isdigit(static_cast<unsigned char>(text_[i + 1])))) {
      lex_error_ = read_number(i, token);
    } else if (c == '"' || c == '\'') {
      lex_error_ = read_string(i, token);
    } else if (c == '>' && i + 1 < text_.size() && text_[i + 1] == '>') {
      token.type = TokenType::kPunct;
      token.text = ">>";
      i += 2;
    } else if (std::string_view("()[]{},:.=|^&~!+-*/").find(c) != std::string_view::npos) {
      token.type = TokenType::kPunct;
      token.text = std::string(1, c);
      if (c == '(' || c == '[' || c == '{') ++nesting_;
      if ((c == ')' || c == ']' || c == '}') && nesting_ > 0) --nesting_;
      ++i;
    } else {
      lex_error_ = pattern_text_error("unexpected_character", token.line, token.column,
                                      fmt::format("unexpected character '{}'", c));
    }
    if (!lex_error_.ok()) return false;  // the next call gives the end token
    after_newline_ = false;
    tokens_.push_back(std::move(token));
    return true;
  }

  absl::Status read_number(std::size_t& i, PatternToken& token) {
    std::size_t start = i;
    bool is_float = false;
    while (i < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[i])) || text_[i] == '_'))
      ++i;
    if (i < text_.size() && text_[i] == '.') {
      is_float = true;
      ++i;
      while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
    }
    if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
      std::size_t exponent = i + 1;
      if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-')) ++exponent;
      if (exponent < text_.size() && std::isdigit(static_cast<unsigned char>(text_[exponent]))) {
        is_float = true;
        i = exponent;
        while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
      }
    }
    std::string digits;
    for (char d : text_.substr(start, i - start)) {
      if (d != '_') digits += d;
    }
    if (i < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) {
      return pattern_text_error("bad_number", token.line, token.column,
                                fmt::format("malformed number '{}{}'", digits, text_[i]));
    }
    try {
      if (is_float) {
        token.type = TokenType::kFloat;
        token.floating = std::stod(digits);
      } else {
        token.type = TokenType::kInt;
        token.integer = std::stoll(digits);
      }
    } catch (const std::exception&) {
      return pattern_text_error("bad_number", token.line, token.column,
                                fmt::format("number '{}' is out of range", digits));
    }
    token.text = digits;
    return absl::OkStatus();
  }

  absl::Status read_string(std::size_t& i, PatternToken& token) {
    char quote = text_[i++];
    std::size_t body = i;
    std::string value;
    while (i < text_.size() && text_[i] != quote) {
      char c = text_[i];
      if (c == '\n') break;
      if (c == '\\' && i + 1 < text_.size()) {
        char escaped = text_[i + 1];
        i += 2;
        switch (escaped) {
          case 'n':
            value += '\n';
            break;
          case 't':
            value += '\t';
            break;
          case 'r':
            value += '\r';
            break;
          case '0':
            value += '\0';
            break;
          case 'x': {
            if (i + 2 > text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[i])) ||
                !std::isxdigit(static_cast<unsigned char>(text_[i + 1]))) {
              return pattern_text_error("bad_string", token.line, token.column,
                                        "\\x needs two hex digits");
            }
            // Python's '\xHH' is the code point U+00HH, stored as UTF-8.
            auto code =
                static_cast<unsigned>(std::stoi(std::string(text_.substr(i, 2)), nullptr, 16));
            if (code >= 0x80) {
              value += static_cast<char>(0xC0 | (code >> 6));
              code = 0x80 | (code & 0x3F);
            }
            value += static_cast<char>(code);
            i += 2;
            break;
          }
          default:
            value += escaped;
        }
        continue;
      }
      value += c;
      ++i;
    }
    if (i >= text_.size() || text_[i] != quote) {
      return pattern_text_error("unterminated_string", token.line, token.column,
                                "string is not closed on its line");
    }
    std::size_t bad = invalid_utf8_at(text_.substr(body, i - body));
    if (bad != std::string_view::npos) {
      return pattern_text_error("bad_string", token.line,
                                token.column + 1 + static_cast<std::uint32_t>(bad),
                                fmt::format("byte {:#04x} is not valid UTF-8",
                                            static_cast<unsigned char>(text_[body + bad])));
    }
    ++i;
    token.type = TokenType::kString;
    token.text = std::move(value);
    return absl::OkStatus();
  }

  // ----- expressions ------------------------------------------------------------------------

  // The token `ahead` tokens after the current one (0 or 1); the end token repeats at the end.
  const PatternToken& peek(std::size_t ahead = 0) {
    while (tokens_.size() <= ahead) {
      if (!tokens_.empty() && tokens_.back().type == TokenType::kEnd) return tokens_.back();
      while (!lex_one()) {
      }
    }
    return tokens_[ahead];
  }
  // Consumes the current token; the copy returned stays valid after further peeks.
  PatternToken next() {
    PatternToken token = peek();
    if (token.type != TokenType::kEnd) tokens_.erase(tokens_.begin());
    return token;
  }
  void skip(std::size_t count = 1) {
    for (std::size_t i = 0; i < count; ++i) next();
  }

  // `message` placed at `token`: pattern_text.unexpected_end at the end of the text,
  // pattern_text.unexpected_token anywhere else.
  static absl::Status unexpected_at(const PatternToken& token, std::string_view message) {
    if (token.type == TokenType::kEnd) {
      return pattern_text_error("unexpected_end", token.line, token.column, message);
    }
    return pattern_text_error("unexpected_token", token.line, token.column, message);
  }
  absl::Status unexpected(const PatternToken& token, std::string_view where) const {
    return unexpected_at(token, fmt::format("unexpected {} {}", token.describe(), where));
  }
  absl::Status expect(std::string_view punct, std::string_view where) {
    const PatternToken& token = peek();
    if (token.is(punct)) {
      skip();
      return absl::OkStatus();
    }
    return unexpected_at(token,
                         fmt::format("expected '{}' {}, found {}", punct, where, token.describe()));
  }

  // Checked before every node is parsed (in parse_unary, a lambda, each binary or postfix
  // link): the nesting stays within max_depth.
  absl::Status check_limits(std::uint32_t depth) {
    if (depth > limits_.max_depth) {
      return pattern_text_error("too_deep", peek().line, peek().column,
                                too_deep_problem(limits_.max_depth));
    }
    return absl::OkStatus();
  }

  // The syntax tree stays within max_nodes: the node that would be one more is refused, at its
  // place, as it is made.
  absl::StatusOr<std::uint32_t> add(AstNode node) {
    if (nodes_.size() >= limits_.max_nodes) {
      return pattern_text_error("too_many_nodes", node.line, node.column,
                                too_many_nodes_problem(limits_.max_nodes));
    }
    nodes_.push_back(std::move(node));
    return static_cast<std::uint32_t>(nodes_.size() - 1);
  }
  AstNode at(const PatternToken& token, AstKind kind) const {
    AstNode node;
    node.kind = kind;
    node.line = token.line;
    node.column = token.column;
    return node;
  }

  // A non-lambda expression's limits are checked by parse_unary, before anything is consumed.
  absl::StatusOr<std::uint32_t> parse_expression(std::uint32_t depth) {
    if (peek().type == TokenType::kName && peek().text == "lambda") {
      GRAPHPAT_RETURN_IF_ERROR(check_limits(depth));
      AstNode lambda = at(next(), AstKind::kLambda);
      const PatternToken& param = next();
      if (param.type != TokenType::kName) {
        return pattern_text_error("bad_lambda", param.line, param.column,
                                  "a lambda takes exactly one parameter name");
      }
      lambda.text = param.text;
      GRAPHPAT_RETURN_IF_ERROR(expect(":", "after the lambda parameter"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto body, parse_expression(depth + 1));
      lambda.children.push_back(body);
      return add(std::move(lambda));
    }
    return parse_binary(0, depth);
  }

  // Levels: 0 `|`, 1 `^`, 2 `&`, 3 `>>`, 4 `+ -`, 5 `* /`. A chain `a | b | c` is not nesting: it is read in
  // a loop into a left-deep tree, which the evaluator walks down its left side in a loop too
  // (as a postfix chain `p.has_attr(..).has_type(..)` or `f(a)(b)`), so a link adds no depth.
  absl::StatusOr<std::uint32_t> parse_binary(int level, std::uint32_t depth) {
    static constexpr std::string_view kOperators[][2] = {{"|", ""}, {"^", ""}, {"&", ""},
                                                          {">>", ""}, {"+", "-"}, {"*", "/"}};
    if (level == 6) return parse_unary(depth);
    GRAPHPAT_ASSIGN_OR_RETURN(auto left, parse_binary(level + 1, depth));
    auto at_operator = [&] {
      return peek().type == TokenType::kPunct &&
             (peek().text == kOperators[level][0] || peek().text == kOperators[level][1]);
    };
    while (at_operator()) {
      GRAPHPAT_RETURN_IF_ERROR(check_limits(depth));
      AstNode binary = at(peek(), AstKind::kBinary);
      binary.text = next().text;
      GRAPHPAT_ASSIGN_OR_RETURN(auto right, parse_binary(level + 1, depth));
      binary.children = {left, right};
      GRAPHPAT_ASSIGN_OR_RETURN(left, add(std::move(binary)));
    }
    return left;
  }

  // Prefix operators nest (each is one more level for max_depth) but are read in a loop, and
  // the evaluator applies them in a loop too.
  absl::StatusOr<std::uint32_t> parse_unary(std::uint32_t depth) {
    std::vector<AstNode> prefixes;
    for (;; ++depth) {
      GRAPHPAT_RETURN_IF_ERROR(check_limits(depth));
      if (!(peek().is("-") || peek().is("~") || peek().is("!") || peek().is("+"))) break;
      AstNode unary = at(peek(), AstKind::kUnary);
      unary.text = next().text;
      prefixes.push_back(std::move(unary));
    }
    auto operand = parse_postfix(depth);
    for (auto prefix = prefixes.rbegin(); prefix != prefixes.rend() && operand.ok(); ++prefix) {
      prefix->children = {*operand};
      operand = add(std::move(*prefix));
    }
    return operand;
  }

  absl::StatusOr<std::uint32_t> parse_postfix(std::uint32_t depth) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t current, parse_primary(depth));
    for (;;) {
      if (peek().is("(") || peek().is(".") || peek().is("[")) {
        GRAPHPAT_RETURN_IF_ERROR(check_limits(depth));
      }
      if (peek().is("(")) {
        AstNode call = at(peek(), AstKind::kCall);
        call.line = nodes_[current].line;  // a call is where its callee is
        call.column = nodes_[current].column;
        skip();
        call.children.push_back(current);
        while (!peek().is(")")) {
          std::string keyword;
          if (peek().type == TokenType::kName && peek(1).is("=")) {
            keyword = peek().text;
            skip(2);
          } else if (!call.keywords.empty() && !call.keywords.back().empty()) {
            return pattern_text_error("bad_argument", peek().line, peek().column,
                                      "positional argument after a keyword argument");
          }
          GRAPHPAT_ASSIGN_OR_RETURN(auto argument, parse_expression(depth + 1));
          call.children.push_back(argument);
          call.keywords.push_back(std::move(keyword));
          if (!peek().is(",")) break;
          skip();
        }
        GRAPHPAT_RETURN_IF_ERROR(expect(")", "after call arguments"));
        GRAPHPAT_ASSIGN_OR_RETURN(current, add(std::move(call)));
      } else if (peek().is(".")) {
        AstNode attribute = at(peek(), AstKind::kAttribute);
        skip();
        const PatternToken& name = next();
        if (name.type != TokenType::kName) return unexpected(name, "after '.'");
        attribute.text = name.text;
        attribute.line = name.line;
        attribute.column = name.column;
        attribute.children = {current};
        GRAPHPAT_ASSIGN_OR_RETURN(current, add(std::move(attribute)));
      } else if (peek().is("[")) {
        AstNode subscript = at(peek(), AstKind::kSubscript);
        skip();
        GRAPHPAT_ASSIGN_OR_RETURN(auto index, parse_expression(depth + 1));
        GRAPHPAT_RETURN_IF_ERROR(expect("]", "after a subscript"));
        subscript.children = {current, index};
        GRAPHPAT_ASSIGN_OR_RETURN(current, add(std::move(subscript)));
      } else {
        return current;
      }
    }
  }

  // Only reached through parse_unary, which has checked the limits at this depth and token.
  absl::StatusOr<std::uint32_t> parse_primary(std::uint32_t depth) {
    const PatternToken token = peek();
    switch (token.type) {
      case TokenType::kName: {
        AstNode name = at(next(), AstKind::kName);
        name.text = token.text;
        return add(std::move(name));
      }
      case TokenType::kInt: {
        AstNode number = at(next(), AstKind::kInt);
        number.integer = token.integer;
        return add(std::move(number));
      }
      case TokenType::kFloat: {
        AstNode number = at(next(), AstKind::kFloat);
        number.floating = token.floating;
        return add(std::move(number));
      }
      case TokenType::kString: {
        AstNode string = at(next(), AstKind::kString);
        string.text = token.text;
        // Adjacent literals concatenate, as in Python.
        while (peek().type == TokenType::kString) string.text += next().text;
        return add(std::move(string));
      }
      default:
        break;
    }
    if (token.is("(") || token.is("[")) {
      bool list = token.is("[");
      AstNode sequence = at(next(), list ? AstKind::kList : AstKind::kTuple);
      std::string_view close = list ? "]" : ")";
      bool trailing_comma = false;
      while (!peek().is(close)) {
        GRAPHPAT_ASSIGN_OR_RETURN(auto element, parse_expression(depth + 1));
        sequence.children.push_back(element);
        trailing_comma = false;
        if (!peek().is(",")) break;
        skip();
        trailing_comma = true;
      }
      GRAPHPAT_RETURN_IF_ERROR(
          expect(close, list ? "to close the list" : "to close the parenthesis"));
      if (!list && sequence.children.size() == 1 && !trailing_comma) {
        return sequence.children.front();  // (expr) is just expr
      }
      return add(std::move(sequence));
    }
    if (token.is("{")) {
      AstNode dict = at(next(), AstKind::kDict);
      while (!peek().is("}")) {
        GRAPHPAT_ASSIGN_OR_RETURN(auto key, parse_expression(depth + 1));
        GRAPHPAT_RETURN_IF_ERROR(expect(":", "after a dictionary key"));
        GRAPHPAT_ASSIGN_OR_RETURN(auto value, parse_expression(depth + 1));
        dict.children.push_back(key);
        dict.children.push_back(value);
        if (!peek().is(",")) break;
        skip();
      }
      GRAPHPAT_RETURN_IF_ERROR(expect("}", "to close the dictionary"));
      return add(std::move(dict));
    }
    return unexpected(token, "where an expression should start");
  }

  std::string_view text_;
  InputLimits limits_;
  std::vector<PatternToken> tokens_;  // cut, not yet consumed (at most two)
  std::size_t offset_ = 0;            // where the next token's cut begins
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  int nesting_ = 0;  // open brackets: a newline inside them continues the line
  bool after_newline_ = false;
  absl::Status lex_error_;
  std::vector<AstNode> nodes_;
};

}  // namespace graphpat::detail

#include "graphpat/detail/status_macros_undef.hpp"
