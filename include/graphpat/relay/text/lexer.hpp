// The Relay text lexer (docs/relay-formats.md §1.2): turns text into tokens on demand, with a
// small look-ahead window, so a 30 MB model never becomes a token vector. Whitespace and
// comments are skipped, except that a `/* ty=... span=... */` comment right after a token is
// kept on that token (`annotation`), because graphpat keeps types and spans the printer wrote.
//
//   graphpat::detail::RelayLexer lexer("%0 = nn.relu(%x) /* ty=float32 */;");
//   const graphpat::detail::Token& first = lexer.peek();   // kGraph "%0", line 1, column 1
//   lexer.next();
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "graphpat/detail/byte_table.hpp"
#include "graphpat/detail/literal.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/strings.hpp"

namespace graphpat::detail {

enum class TokenKind : std::uint8_t {
  kEnd,
  kPunct,      // one of . , = ; : ( ) + * < > { } [ ] ! @ ? / - (text is the character)
  kNumber,     // a numeric literal as written, sign included (`-1e-05f`, `3i64`, `-inff`)
  kString,     // text is the raw content between the quotes (escapes not yet processed)
  kMeta,       // meta[KEY][I]: text is the whole reference, `meta_key`/`meta_index` its parts
  kGraph,      // %N: text is the digits
  kLocal,      // %name: text is the name (may contain `.` and `::`, see parser)
  kGlobal,     // @name: text is the name
  kIdent,      // identifiers and keywords
  kVersion,    // #[version = "..."]: text is the value
  kMetadata,   // #[metadata]: text is everything after it
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;
  std::int32_t line = 1;
  std::int32_t column = 1;
  std::string_view annotation;  // body of a `/* ty=.. span=.. */` comment following the token
  std::string_view meta_key;
  std::int64_t meta_index = 0;

  [[nodiscard]] bool is(char punct) const {
    return kind == TokenKind::kPunct && text.size() == 1 && text[0] == punct;
  }
  [[nodiscard]] bool is_ident(std::string_view word) const {
    return kind == TokenKind::kIdent && text == word;
  }
};

/// How a token is named in error messages: `';'`, `identifier 'nn'`, `end of input`.
inline std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kPunct:
      return fmt::format("'{}'", token.text);
    case TokenKind::kNumber:
      return fmt::format("number {}", token.text);
    case TokenKind::kString:
      return "a string";
    case TokenKind::kMeta:
      return fmt::format("'{}'", token.text);
    case TokenKind::kGraph:
      return fmt::format("'%{}'", token.text);
    case TokenKind::kLocal:
      return fmt::format("'%{}'", token.text);
    case TokenKind::kGlobal:
      return fmt::format("'@{}'", token.text);
    case TokenKind::kIdent:
      return fmt::format("'{}'", token.text);
    case TokenKind::kVersion:
      return "a version header";
    case TokenKind::kMetadata:
      return "the metadata section";
  }
  return "a token";
}

// ----- how names are spelt (§1.2) ---------------------------------------------------------
// One definition for the lexer, which reads names with these, and the printer, which refuses a
// name they do not accept (printer.hpp), so what is printed always lexes back as the same name.

constexpr bool is_relay_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
/// An identifier's start, a digit or `/`: one table lookup (names are most of a model's bytes
/// outside comments).
inline bool is_relay_ident_char(char c) {
  static constexpr auto kIdentChar = ByteTable<bool>::of(
      [](char c) { return is_relay_ident_start(c) || (c >= '0' && c <= '9') || c == '/'; });
  return kIdentChar[c];
}
/// The identifier words the lexer reads as numbers: the printer's `inff`, `nanf16`, ...
inline bool is_number_word(std::string_view word) {
  if (!starts_with_literal(word, "inff") && !starts_with_literal(word, "nanf")) return false;
  std::string_view width = word.substr(4);
  return width.empty() || width == "16" || width == "32" || width == "64";
}
/// Whether `word` lexes as one identifier token (`nn`, `conv2d`, `a/b`; not `inff`).
inline bool is_relay_identifier(std::string_view word) {
  if (word.empty() || !is_relay_ident_start(word[0])) return false;
  for (char c : word) {
    if (!is_relay_ident_char(c)) return false;
  }
  return !is_number_word(word);
}
/// Whether `word` is a keyword the parser reads as such where an expression starts, so that it
/// cannot begin an op name.
inline bool is_relay_keyword(std::string_view word) {
  static constexpr std::string_view kKeywords[] = {
      "let", "fn",       "def",       "if",    "else", "type",  "extern", "free_var",
      "ref", "ref_read", "ref_write", "match", "True", "False", "None",   "nullptr"};
  return std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
}
/// Whether `word` is identifiers joined by single dots (`nn.conv2d`, `relay.reshape_only`),
/// as the parser reassembles op names and function attribute keys.
inline bool is_relay_dotted_name(std::string_view word) {
  while (true) {
    std::size_t dot = word.find('.');
    if (!is_relay_identifier(word.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    word = word.substr(dot + 1);
  }
}
/// Whether `@` + `name` lexes as one global token naming `name`.
inline bool is_relay_global_name(std::string_view name) {
  if (name.empty() || !is_relay_ident_start(name[0])) return false;
  return std::all_of(name.begin(), name.end(), is_relay_ident_char);
}
/// How many bytes of `text` (just after a `%` and starting with an identifier start) a local
/// name takes: identifier characters, plus `.` and `::` inside (ONNX names such as `%input.1`
/// and `%onnx::Conv_0`); a lone `:` is the type separator.
inline std::size_t local_name_length(std::string_view text) {
  auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
  std::size_t end = 0;
  while (true) {
    while (end < text.size() && is_relay_ident_char(text[end])) ++end;
    if (at(end) == '.' && is_relay_ident_char(at(end + 1))) {
      ++end;
    } else if (at(end) == ':' && at(end + 1) == ':' && is_relay_ident_char(at(end + 2))) {
      end += 2;
    } else {
      return end;
    }
  }
}
/// Whether `%` + `name` lexes as one local token naming `name` (`%0` is a graph binding).
inline bool is_relay_local_name(std::string_view name) {
  return !name.empty() && is_relay_ident_start(name[0]) && local_name_length(name) == name.size();
}

/// A located parse error: `[graphpat.relay_text.<id>] LINE:COL: message`.
inline absl::Status text_error(std::string_view id, std::int32_t line, std::int32_t column,
                               std::string_view message) {
  return make_error(absl::StatusCode::kInvalidArgument, fmt::format("relay_text.{}", id),
                    fmt::format("{}:{}: {}", line, column, message));
}

class RelayLexer {
 public:
  explicit RelayLexer(std::string_view text) : text_(text) {}

  /// The most tokens past the current one that peek may look at.
  static constexpr std::size_t kMaxLookahead = 2;

  /// The token `ahead` places after the current one (0 = current; at most kMaxLookahead).
  /// Lexing errors surface as a kEnd token and status() turning non-ok.
  const Token& peek(std::size_t ahead = 0) {
    assert(ahead <= kMaxLookahead);
    while (lexed_ <= ahead) {
      window_[(current_ + lexed_) & kWindowMask] = lex();
      ++lexed_;
    }
    return window_[(current_ + ahead) & kWindowMask];
  }
  Token next() {
    peek();
    Token token = window_[current_];
    current_ = (current_ + 1) & kWindowMask;
    --lexed_;
    return token;
  }
  /// The text of a type starting at the next token, when no token is lexed ahead and the type
  /// is written plainly: a `Tensor[...]` or a tuple `(...)`, its brackets balanced, on one line,
  /// with no comment, of letters, digits, `_`, brackets, commas and spaces only (no sign, `.`,
  /// `?`, `->` or `/`). Empty otherwise. `skip` passes over such a text.
  ///   `Tensor[(1, 64), float32]`, `(Tensor[(1, 64), float32], (Tensor[(2), int8]))`
  [[nodiscard]] std::string_view plain_type_ahead() const {
    std::string_view rest = text_.substr(pos_);
    if (first_ || lexed_ != 0 ||
        !(starts_with_literal(rest, "Tensor[") || starts_with_literal(rest, "(")))
      return {};
    // What each byte is to a plain type's text, by one table lookup (a let chain declares a
    // long tuple type on every line).
    enum class Plain : std::uint8_t { kStop, kPart, kOpen, kClose };
    static constexpr auto kPlain = ByteTable<Plain>::of([](char c) {
      if (c == '(' || c == '[') return Plain::kOpen;
      if (c == ')' || c == ']') return Plain::kClose;
      return is_relay_ident_start(c) || (c >= '0' && c <= '9') || c == ',' || c == ' '
                 ? Plain::kPart
                 : Plain::kStop;
    });
    std::size_t open = 0;
    for (std::size_t i = 0; i < rest.size(); ++i) {
      switch (kPlain[rest[i]]) {
        case Plain::kPart:
          break;
        case Plain::kOpen:
          ++open;
          break;
        case Plain::kClose:
          if (--open == 0) return rest.substr(0, i + 1);
          break;
        case Plain::kStop:
          return {};
      }
    }
    return {};
  }
  /// The text of a call's attributes starting at the next token, when they are written
  /// plainly: `key=` first, up to the `)` closing the call (not included), on one line, with
  /// no comment, of letters, digits, `_`, `=`, `,`, `.`, `-`, `+`, spaces, balanced `[` `]`
  /// and strings holding no `\` or line break. Empty otherwise. `skip` passes over such a
  /// text (and the tokens lexed ahead in it: the key may be).
  ///   `strides=[2, 2], padding=[3, 3, 3, 3], channels=64, kernel_size=[7, 7]`
  [[nodiscard]] std::string_view plain_attrs_ahead() const {
    if (first_ || (lexed_ != 0 && window_[current_].kind != TokenKind::kIdent)) return {};
    std::string_view rest = text_.substr(
        lexed_ == 0 ? pos_
                    : static_cast<std::size_t>(window_[current_].text.data() - text_.data()));
    std::size_t key = 0;
    while (key < rest.size() && is_ident_char(rest[key]) && rest[key] != '/') ++key;
    if (key == 0 || !is_ident_start(rest[0]) || key == rest.size() || rest[key] != '=') return {};
    // What each byte is to a plain attributes text outside its strings, by one table lookup.
    enum class Plain : std::uint8_t { kStop, kPart, kQuote, kOpen, kClose, kEnd };
    static constexpr auto kPlain = ByteTable<Plain>::of([](char c) {
      if (c == '"') return Plain::kQuote;
      if (c == '[') return Plain::kOpen;
      if (c == ']') return Plain::kClose;
      if (c == ')') return Plain::kEnd;
      return is_relay_ident_start(c) || (c >= '0' && c <= '9') ||
                     std::string_view("=,.-+ ").find(c) != std::string_view::npos
                 ? Plain::kPart
                 : Plain::kStop;
    });
    std::size_t open = 0;
    bool quoted = false;
    for (std::size_t i = key + 1; i < rest.size(); ++i) {
      char c = rest[i];
      if (quoted) {
        if (c == '\\' || c == '\n' || c == '\r') return {};
        quoted = c != '"';
        continue;
      }
      switch (kPlain[c]) {
        case Plain::kPart:
          break;
        case Plain::kQuote:
          quoted = true;
          break;
        case Plain::kOpen:
          ++open;
          break;
        case Plain::kClose:
          if (open == 0) return {};
          --open;
          break;
        case Plain::kEnd:
          return open == 0 ? rest.substr(0, i) : std::string_view();
        case Plain::kStop:
          return {};
      }
    }
    return {};
  }
  /// Passes over `ahead` (a text `plain_type_ahead` or `plain_attrs_ahead` returned, on one
  /// line) and the trivia after it, as lexing its tokens would; returns the annotation in that
  /// trivia.
  std::string_view skip(std::string_view ahead) {
    const std::size_t end = static_cast<std::size_t>(ahead.data() - text_.data()) + ahead.size();
    assert(pos_ <= end && end <= text_.size());
    assert(ahead.find('\n') == std::string_view::npos);
    pos_ = end;
    lexed_ = 0;
    return skip_trivia();
  }
  [[nodiscard]] const absl::Status& status() const { return status_; }
  /// 1-based line and column of the end of input (for "unexpected end" errors).
  [[nodiscard]] std::string_view text() const { return text_; }

 private:
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_ident_start(char c) { return is_relay_ident_start(c); }
  static bool is_ident_char(char c) { return is_relay_ident_char(c); }
  // A TVM type key: names of letters, digits and '_' joined by dots (tir.Var,
  // relay.attrs.Conv2DAttrs). Anything else would be printed back as it was written, where it
  // need not lex again.
  static bool is_type_key(std::string_view key) {
    bool name_start = true;
    for (char c : key) {
      if (c == '.' && !name_start) {
        name_start = true;
      } else if (name_start ? is_ident_start(c) : is_ident_start(c) || is_digit(c)) {
        name_start = false;
      } else {
        return false;
      }
    }
    return !name_start;
  }
  // What a token's first byte begins: lex_raw's choice, one table lookup.
  enum class Start : std::uint8_t {
    kBad,
    kPunct,  // one of . , = ; : ( ) + * < > { } [ ] ! ? / '
    kIdent,
    kDigit,
    kMinus,
    kString,
    kAttribute,  // #
    kLocal,      // %
    kGlobal,     // @ (a punctuation mark when no name follows)
  };
  static Start start_of(char c) {
    static constexpr auto kStarts = ByteTable<Start>::of([](char c) {
      if (std::string_view(".,=;:()+*<>{}[]!?/'").find(c) != std::string_view::npos) {
        return Start::kPunct;
      }
      if (is_relay_ident_start(c)) return Start::kIdent;
      if (c >= '0' && c <= '9') return Start::kDigit;
      switch (c) {
        case '-':
          return Start::kMinus;
        case '"':
          return Start::kString;
        case '#':
          return Start::kAttribute;
        case '%':
          return Start::kLocal;
        case '@':
          return Start::kGlobal;
        default:
          return Start::kBad;
      }
    });
    return kStarts[c];
  }
  // The bytes a block comment's scan stops at.
  static bool is_comment_stop(char c) { return c == '*' || c == '/' || c == '\n'; }
  static bool is_number_char(char c) {
    return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  }

  [[nodiscard]] char at(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
  void advance(std::size_t count = 1) {
    for (std::size_t i = 0; i < count && pos_ < text_.size(); ++i) {
      if (text_[pos_] == '\n') {
        ++line_;
        line_start_ = pos_ + 1;
      }
      ++pos_;
    }
  }
  // Passes over characters that are not line feeds while `more` says so.
  template <class More>
  void advance_while(More more) {
    while (pos_ < text_.size() && more(text_[pos_])) ++pos_;
  }
  // 1-based column of the current position (counted in bytes).
  [[nodiscard]] std::int32_t current_column() const {
    return static_cast<std::int32_t>(pos_ - line_start_ + 1);
  }
  void fail(absl::Status error) {
    if (status_.ok()) status_ = std::move(error);
    pos_ = text_.size();
  }

  // Skips whitespace and comments; returns the body of the first annotation comment met.
  std::string_view skip_trivia() {
    std::string_view annotation;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t') {
        ++pos_;
      } else if (c == '\n') {
        advance();
      } else if (c == '\r') {
        if (at(pos_ + 1) != '\n') {
          fail(text_error("bad_character", line_, current_column(),
                          "a carriage return must be followed by a line feed"));
          return {};
        }
        advance();
      } else if (c == '/' && at(pos_ + 1) == '/') {
        advance_while([](char c) { return c != '\n'; });
      } else if (c == '/' && at(pos_ + 1) == '*') {
        std::int32_t line = line_, column = current_column();
        std::size_t body = pos_ + 2;
        std::size_t depth = 0;  // nesting; a size, as a file of `/*` may open billions
        bool nested = false;
        // Block comments nest, as in TVM's lexer. Scanned with a local index from one byte
        // that matters (`*`, `/`, line feed) to the next: comments are most of the bytes of a
        // typed model's text. Line feeds are counted as advance() does.
        const char* const data = text_.data();
        const std::size_t size = text_.size();
        std::size_t i = pos_;
        while (true) {
          while (i < size && !is_comment_stop(data[i])) ++i;
          if (i >= size) {
            fail(text_error("unterminated_comment", line, column, "unterminated block comment"));
            return {};
          }
          char d = data[i];
          char after = i + 1 < size ? data[i + 1] : '\0';
          if (d == '/' && after == '*') {
            ++depth;
            nested = nested || depth > 1;
            i += 2;
          } else if (d == '*' && after == '/') {
            --depth;
            i += 2;
            if (depth == 0) break;
          } else {
            if (d == '\n') {
              ++line_;
              line_start_ = i + 1;
            }
            ++i;
          }
        }
        pos_ = i;
        std::string_view content = text_.substr(body, pos_ - 2 - body);
        std::string_view trimmed = content.substr(std::min(content.find_first_not_of(' '),
                                                           content.size()));
        // TVM never prints a comment inside an annotation; one that holds another is a comment.
        if (annotation.empty() && !nested &&
            (starts_with_literal(trimmed, "ty=") || starts_with_literal(trimmed, "span="))) {
          annotation = content;
        }
      } else {
        break;
      }
    }
    return annotation;
  }

  Token make(TokenKind kind, std::size_t start, std::int32_t line, std::int32_t column) {
    Token token;
    token.kind = kind;
    token.text = std::string_view(text_.data() + start, pos_ - start);
    token.line = line;
    token.column = column;
    return token;
  }

  Token lex() {
    Token token = lex_raw();
    if (token.kind != TokenKind::kEnd && token.kind != TokenKind::kMetadata) {
      token.annotation = skip_trivia();
    }
    return token;
  }

  Token lex_raw() {
    if (first_) {
      first_ = false;
      skip_trivia();
    }
    std::int32_t line = line_, column = current_column();
    std::size_t start = pos_;
    if (pos_ >= text_.size()) return make(TokenKind::kEnd, pos_, line, column);
    const char c = text_[pos_];
    switch (start_of(c)) {
      case Start::kIdent:
        if (c == 'm' && same_text(text_.substr(pos_, 5), "meta[")) return lex_meta(line, column);
        advance_while(is_ident_char);
        // The printer writes infinities and NaNs as `inff`, `nanf16`, ...: read them as numbers.
        if (is_number_word(text_.substr(start, pos_ - start))) {
          return make(TokenKind::kNumber, start, line, column);
        }
        return make(TokenKind::kIdent, start, line, column);
      case Start::kPunct:
        ++pos_;  // not a line feed
        return make(TokenKind::kPunct, start, line, column);
      case Start::kLocal: {
        advance();
        std::size_t name = pos_;
        if (is_digit(at(pos_))) {
          advance_while(is_digit);
          return make_named(TokenKind::kGraph, name, line, column);
        }
        if (!is_ident_start(at(pos_))) {
          fail(text_error("bad_character", line, column, "expected a variable name after '%'"));
          return make(TokenKind::kEnd, pos_, line, column);
        }
        lex_local_name();
        return make_named(TokenKind::kLocal, name, line, column);
      }
      case Start::kDigit:
        lex_number_body();
        return make(TokenKind::kNumber, start, line, column);
      case Start::kMinus: {
        std::size_t run = pos_;
        while (at(run) == '-') ++run;
        std::string_view rest = text_.substr(run);
        if (is_digit(at(run)) || rest.starts_with("inf") || rest.starts_with("nan")) {
          advance(run - pos_);
          lex_number_body();
          return make(TokenKind::kNumber, start, line, column);
        }
        advance();
        return make(TokenKind::kPunct, start, line, column);
      }
      case Start::kString:
        return lex_string(line, column);
      case Start::kAttribute:
        return lex_attribute(line, column);
      case Start::kGlobal: {
        advance();
        std::size_t name = pos_;
        if (!is_ident_start(at(pos_))) return make(TokenKind::kPunct, start, line, column);
        advance_while(is_ident_char);
        return make_named(TokenKind::kGlobal, name, line, column);
      }
      case Start::kBad:
        break;
    }
    fail(text_error(
        "bad_character", line, column,
        fmt::format("unexpected character '{}'", escape_unprintable(std::string_view(&c, 1)))));
    return make(TokenKind::kEnd, pos_, line, column);
  }

  // A string literal at the current `"`.
  Token lex_string(std::int32_t line, std::int32_t column) {
    // Unlike TVM's lexer, escapes are honoured: a `\"` does not end the literal.
    advance();
    std::size_t body = pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') advance(text_[pos_] == '\\' ? 2 : 1);
    if (pos_ >= text_.size()) {
      fail(text_error("unterminated_string", line, column, "unterminated string literal"));
      return make(TokenKind::kEnd, pos_, line, column);
    }
    // Raw bytes must be UTF-8 (escapes may still name any byte, as TVM prints them).
    if (std::size_t bad = invalid_utf8_at(text_.substr(body, pos_ - body));
        bad != std::string_view::npos) {
      std::int32_t bad_line = line, bad_column = column + 1;
      for (std::size_t k = body; k < body + bad; ++k) {
        bad_column = text_[k] == '\n' ? 1 : bad_column + 1;
        bad_line += text_[k] == '\n' ? 1 : 0;
      }
      fail(text_error("bad_string", bad_line, bad_column,
                      fmt::format("byte {:#04x} in a string literal is not valid UTF-8",
                                  static_cast<unsigned char>(text_[body + bad]))));
      return make(TokenKind::kEnd, pos_, line, column);
    }
    Token token = make(TokenKind::kString, body, line, column);
    advance();
    return token;
  }

  Token make_named(TokenKind kind, std::size_t name, std::int32_t line, std::int32_t column) {
    Token token = make(kind, name, line, column);
    return token;
  }

  // A numeric literal: a run of [0-9.eE+-], then an optional `f`/`i` width suffix (§1.2), or
  // the words inf/nan with their `f` suffix.
  void lex_number_body() {
    char first = at(pos_);
    if ((first == 'i' || first == 'n') &&
        (text_.substr(pos_).starts_with("inf") || text_.substr(pos_).starts_with("nan"))) {
      advance(3);
    } else {
      advance_while(is_number_char);
    }
    if (at(pos_) == 'f' || at(pos_) == 'i') {
      advance();
      advance_while(is_digit);
    }
  }

  // %name: see local_name_length (a name holds no line feed, so advance counts columns).
  void lex_local_name() { pos_ += local_name_length(text_.substr(pos_)); }

  Token lex_meta(std::int32_t line, std::int32_t column) {
    // No line feed is passed over here, so the position moves without advance()'s counting.
    std::size_t start = pos_;
    pos_ += 5;  // `meta[`, which the caller saw
    std::size_t key = pos_;
    advance_while([](char c) { return c != ']' && c != '\n'; });
    std::size_t key_end = pos_;
    bool ok = at(pos_) == ']' && at(pos_ + 1) == '[';
    std::string_view digits;
    if (ok) {
      pos_ += 2;
      std::size_t digits_start = pos_;
      advance_while(is_digit);
      digits = text_.substr(digits_start, pos_ - digits_start);
      ok = !digits.empty() && at(pos_) == ']';
    }
    if (!ok || key_end == key) {
      fail(text_error("bad_meta_reference", line, column, "expected meta[TYPE_KEY][INDEX]"));
      return make(TokenKind::kEnd, pos_, line, column);
    }
    std::optional<std::int64_t> index = graphpat::detail::parse_decimal<std::int64_t>(digits);
    if (!index) {
      fail(text_error("bad_meta_reference", line, column,
                      fmt::format("meta index {} does not fit in 64 bits", digits)));
      return make(TokenKind::kEnd, pos_, line, column);
    }
    if (std::string_view type_key = text_.substr(key, key_end - key); !is_type_key(type_key)) {
      fail(text_error("bad_meta_reference", line, column,
                      fmt::format("meta type key '{}' is not a dotted name like relay.Constant",
                                  escape_unprintable(type_key))));
      return make(TokenKind::kEnd, pos_, line, column);
    }
    ++pos_;  // the `]` after the index
    Token token = make(TokenKind::kMeta, start, line, column);
    token.meta_key = text_.substr(key, key_end - key);
    token.meta_index = *index;
    return token;
  }

  Token lex_attribute(std::int32_t line, std::int32_t column) {
    if (at(pos_ + 1) != '[') {
      fail(text_error("bad_character", line, column, "expected '[' after '#'"));
      return make(TokenKind::kEnd, pos_, line, column);
    }
    advance(2);
    std::size_t body = pos_;
    while (pos_ < text_.size() && text_[pos_] != ']') advance();
    if (pos_ >= text_.size()) {
      fail(text_error("bad_header", line, column, "unterminated '#[' attribute"));
      return make(TokenKind::kEnd, pos_, line, column);
    }
    std::string_view content = text_.substr(body, pos_ - body);
    advance();
    auto trim = [](std::string_view s) {
      std::size_t first = s.find_first_not_of(" \t");
      if (first == std::string_view::npos) return std::string_view();
      return s.substr(first, s.find_last_not_of(" \t") - first + 1);
    };
    content = trim(content);
    if (content == "metadata") {
      Token token;
      token.kind = TokenKind::kMetadata;
      token.text = text_.substr(pos_);
      token.line = line;
      token.column = column;
      advance(text_.size() - pos_);
      return token;
    }
    if (content.starts_with("version")) {
      std::string_view rest = trim(content.substr(7));
      if (rest.starts_with("=")) {
        Token token;
        token.kind = TokenKind::kVersion;
        token.text = trim(rest.substr(1));
        token.line = line;
        token.column = column;
        return token;
      }
    }
    fail(text_error("bad_header", line, column, fmt::format("unknown attribute '#[{}]'", content)));
    return make(TokenKind::kEnd, pos_, line, column);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::int32_t line_ = 1;
  std::size_t line_start_ = 0;  // where line_ starts in text_
  bool first_ = true;
  // The tokens lexed ahead: a ring of `lexed_` tokens from `current_` (the current token's),
  // as many slots as the next power of two, so that a slot is found by a mask.
  static constexpr std::size_t kWindowMask = std::bit_ceil(kMaxLookahead + 1) - 1;
  std::array<Token, kWindowMask + 1> window_;
  std::size_t current_ = 0;
  std::size_t lexed_ = 0;
  absl::Status status_;
};

}  // namespace graphpat::detail
