// The Relay text parser (docs/relay-formats.md §1.3): recursive descent over RelayLexer tokens,
// building a relay::Module. Every node the text defines is a fresh node (so duplicates in the
// file stay duplicates); `%N` and `%x` references resolve to the node they name. Binding
// sequences (`%0 = ...; %1 = ...;`) and let chains are loops, so a million-line model needs no
// deep recursion; only syntactic nesting recurses, and it is bounded by max_depth.
//
//   detail::RelayTextParser parser(text, options);
//   absl::StatusOr<relay::Module> module = parser.parse_module();
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/literal.hpp"
#include "graphpat/detail/text_map.hpp"
#include "graphpat/io/relay_text/metadata.hpp"
#include "graphpat/io/relay_text/options.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/ir/validation.hpp"
#include "graphpat/relay/dialect.hpp"
#include "graphpat/relay/text/attributes.hpp"
#include "graphpat/relay/text/lexer.hpp"
#include "graphpat/relay/text/literals.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::detail {

class RelayTextParser {
 public:
  /// `context`: the context to read into (parse_type_text reads a type into a caller's
  /// graph); a new one when null.
  RelayTextParser(std::string_view text, const relay::TextParseOptions& options,
                  std::shared_ptr<Context> context = nullptr)
      : options_(options),
        module_(context ? relay::Module(relay::Graph(std::move(context))) : relay::Module()),
        builder_(module_.graph),
        context_(module_.graph.context()),
        cache_(AttrSchemaCache::of(context_)) {
    options_.limits = options.limits.or_defaults(kDefaultLimits);
    // The metadata section runs to the end of the text; it is read first because the
    // `meta[...]` references before it resolve into it.
    std::size_t metadata = find_metadata(text);
    body_ = text.substr(0, metadata);
    if (metadata != std::string_view::npos) metadata_text_ = text.substr(metadata + 11);
    lexer_.emplace(body_);
  }

  absl::StatusOr<relay::Module> parse_module() {
    GRAPHPAT_RETURN_IF_ERROR(read_metadata_section());
    if (lexer().peek().kind == TokenKind::kVersion) {
      Token version = lexer().next();
      if (version.text != "\"0.0.5\"") {
        return text_error("bad_version", version.line, version.column,
                          fmt::format("unsupported text format version {}", version.text));
      }
    } else if (options_.require_version) {
      const Token& token = lexer().peek();
      return text_error("missing_version", token.line, token.column,
                        "expected the text format version header #[version = \"0.0.5\"]");
    }
    while (true) {
      Token token = lexer().next();
      if (token.kind == TokenKind::kEnd) break;
      if (token.is_ident("def")) {
        GRAPHPAT_RETURN_IF_ERROR(parse_def());
      } else if (token.is_ident("type") || token.is_ident("extern")) {
        return unsupported(token, "ADT type definitions");
      } else {
        return unexpected(token, "expected 'def' or the end of the module");
      }
    }
    GRAPHPAT_RETURN_IF_ERROR(lexer().status());
    // TVM's parser refuses a module calling a global it does not define (at type inference).
    for (const Token& use : global_uses_) {
      if (!module_.find(use.text)) {
        return text_error("undefined", use.line, use.column,
                          fmt::format("@{} is not defined in the module", use.text));
      }
    }
    module_.text_metadata = std::string(metadata_text_);
    return std::move(module_);
  }

  /// Reads the whole text as one type (`Tensor[(1, 3), float32]`), interned in the context.
  absl::StatusOr<TypeId> parse_type_text() {
    GRAPHPAT_ASSIGN_OR_RETURN(auto type, parse_type(lexer(), 0));
    Token token = lexer().next();
    if (token.kind != TokenKind::kEnd) return unexpected(token, "expected the end of the type");
    return type;
  }

  absl::StatusOr<relay::ParsedExpression> parse_expression() {
    GRAPHPAT_RETURN_IF_ERROR(read_metadata_section());
    if (lexer().peek().kind == TokenKind::kVersion) lexer().next();
    GRAPHPAT_ASSIGN_OR_RETURN(auto root, parse_sequence(0));
    Token token = lexer().next();
    if (token.kind != TokenKind::kEnd) return unexpected(token, "expected the end of the expression");
    module_.text_metadata = std::string(metadata_text_);
    return relay::ParsedExpression{std::move(module_), root};
  }

 private:
  // The last `#[metadata]` that starts a line, or npos. Searched forwards: find() skips to
  // each '#' with memchr, where rfind() compares the marker at every position from the end.
  static std::size_t find_metadata(std::string_view text) {
    constexpr std::string_view kMarker = "#[metadata]";
    std::size_t last = std::string_view::npos;
    for (std::size_t at = text.find(kMarker); at != std::string_view::npos;
         at = text.find(kMarker, at + kMarker.size())) {
      if (at == 0 || text[at - 1] == '\n') last = at;
    }
    return last;
  }

  RelayLexer& lexer() { return *lexer_; }

  absl::Status read_metadata_section() {
    if (metadata_text_.data() == nullptr) return absl::OkStatus();
    auto section = read_metadata(metadata_text_);
    if (!section.ok()) {
      auto line = static_cast<std::int32_t>(std::count(body_.begin(), body_.end(), '\n') + 1);
      return relocate(section.status(), line, 1);
    }
    metadata_ = std::move(*section);
    return absl::OkStatus();
  }

  // A metadata error (made without a position, by metadata_error or the JSON tensor decoder
  // decode_ndarray) placed at LINE:COL under the same name: `[graphpat.relay_json.bad_base64]
  // b64ndarrays[0]: ...` becomes `[graphpat.relay_text.bad_base64] L:C: b64ndarrays[0]: ...`.
  static absl::Status relocate(const absl::Status& status, std::int32_t line, std::int32_t column) {
    std::string_view id = error_id(status);
    std::string_view problem = error_problem(status);
    if (id == "graphpat.relay_json.bad_base64") {
      return text_error("bad_base64", line, column, problem);
    }
    if (id == "graphpat.relay_json.bad_tensor") {
      return text_error("bad_tensor", line, column, problem);
    }
    if (id == "graphpat.relay_json.bad_shape") {
      return text_error("bad_shape", line, column, problem);
    }
    if (id == "graphpat.relay_json.unsupported_dtype") {
      return text_error("unsupported_dtype", line, column, problem);
    }
    if (id == "graphpat.relay_json.tensor_too_large") {
      return text_error("tensor_too_large", line, column, problem);
    }
    return text_error("bad_metadata", line, column, problem);
  }

  absl::Status unexpected(const Token& token, std::string_view what) {
    GRAPHPAT_RETURN_IF_ERROR(lexer().status());
    return text_error("unexpected_token", token.line, token.column,
                      fmt::format("{}, found {}", what, describe(token)));
  }
  absl::Status unsupported(const Token& token, std::string_view what) {
    return text_error("unsupported", token.line, token.column,
                      fmt::format("{} are not supported by graphpat", what));
  }
  absl::Status expect(char punct, std::string_view where) {
    Token token = lexer().next();
    last_annotation_ = token.annotation;
    if (token.is(punct)) return absl::OkStatus();
    return unexpected(token, fmt::format("expected '{}' {}", punct, where));
  }
  Token take() {
    Token token = lexer().next();
    last_annotation_ = token.annotation;
    return token;
  }
  absl::Status check_depth(std::uint32_t depth, const Token& token) {
    if (depth <= options_.limits.max_depth) return absl::OkStatus();
    return text_error("too_deep", token.line, token.column,
                      too_deep_problem(options_.limits.max_depth));
  }
  absl::Status check_size(const Token& token) {
    if (module_.graph.size() <= options_.limits.max_nodes) return absl::OkStatus();
    return text_error("too_many_nodes", token.line, token.column,
                      too_many_nodes_problem(options_.limits.max_nodes));
  }

  // ----- annotations: `/* ty=T span=NAME:L:C */` ------------------------------------------
  struct Annotation {
    TypeId type;
    SpanId span;
  };
  absl::StatusOr<Annotation> read_annotation(std::string_view body, const Token& at) {
    Annotation result;
    auto trim = [](std::string_view s) {
      auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
      while (!s.empty() && blank(s.front())) s.remove_prefix(1);
      while (!s.empty() && blank(s.back())) s.remove_suffix(1);
      return s;
    };
    body = trim(body);
    if (body.empty()) return result;
    std::string_view span_text;
    if (same_text(body.substr(0, 5), "span=")) {
      span_text = body.substr(5);
    } else {
      // The first " span=" (after `ty=`): its `=` is the first one after the `ty=` unless the
      // type text holds one (no type TVM prints does), so one memchr finds it.
      std::size_t span_at = body.find('=', 3);
      if (span_at != std::string_view::npos) {
        span_at = span_at >= 5 && same_text(body.substr(span_at - 5, 6), " span=")
                      ? span_at - 5
                      : body.find(" span=");
      }
      std::string_view type_text = body.substr(3, span_at == std::string_view::npos
                                                      ? std::string_view::npos
                                                      : span_at - 3);
      if (span_at != std::string_view::npos) span_text = body.substr(span_at + 6);
      result.type = annotation_type(type_text);
    }
    if (!span_text.empty()) {
      span_text = trim(span_text);
      std::size_t column_colon = span_text.rfind(':');
      std::size_t line_colon = column_colon == std::string_view::npos || column_colon == 0
                                   ? std::string_view::npos
                                   : span_text.rfind(':', column_colon - 1);
      Span span;
      auto number = [](std::string_view digits, std::int32_t& out) {
        auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
        return error == std::errc() && end == digits.data() + digits.size();
      };
      if (line_colon == std::string_view::npos ||
          !number(span_text.substr(line_colon + 1, column_colon - line_colon - 1), span.line) ||
          !number(span_text.substr(column_colon + 1), span.column)) {
        auto [line, column] = place_of(span_text.data(), at);
        return text_error("bad_annotation", line, column,
                          fmt::format("cannot read the span in annotation '{}'", span_text));
      }
      span.source = context_.strings.intern(span_text.substr(0, line_colon));
      result.span = context_.spans.intern(span);
    }
    return result;
  }
  // Makes (text, type) the one-entry memo of the type text last read; returns the type. Text
  // and type are set together, after any reading of the text is done.
  TypeId remember(std::string_view text, TypeId type) {
    last_type_text_ = text;
    return last_type_ = type;
  }
  // The type a `ty=` annotation's text reads as; none for text that does not read as a type,
  // which leaves the comment a comment, as for TVM (which ignores them all). A model repeats a
  // few type texts on every line (a parameter's declared type again in its annotation), so
  // each is read once, while no type parameter is in scope (then a name may be a type
  // variable, and the same text another type).
  TypeId annotation_type(std::string_view text) {
    bool cached = type_params_.empty();
    if (cached) {
      // Half of a model's annotations repeat the type text read before (a layer's ops keep
      // its shape, an annotation repeats the declared type before it): those cost a compare,
      // not a hash of the text.
      if (same_text(text, last_type_text_)) return last_type_;
      if (auto found = type_texts_.find(text); found != type_texts_.end()) {
        return remember(text, found->second);
      }
    }
    TypeId result;
    if (std::optional<TypeId> plain = printed_type(text, 0)) {
      result = *plain;
    } else {
      RelayLexer sub(text);
      absl::StatusOr<TypeId> type = parse_type(sub, 0);
      result = type.ok() && sub.peek().kind == TokenKind::kEnd ? *type : TypeId();
    }
    if (cached) type_texts_.emplace(text, remember(text, result));
    return result;
  }
  // The type of `text` (at `depth`) when it is written exactly as TVM prints a tensor type, a
  // scalar dtype or a tuple of those: `Tensor[(1, 64), float32]`, `float32`, `(Tensor[(1, 64),
  // float32], (int8))`. nullopt for anything else, which parse_type then reads (and reports),
  // so both give one type for one text. A model's text is mostly such types, each read once;
  // this reads one without a lexer's tokens, in one pass over the text.
  std::optional<TypeId> printed_type(std::string_view text, std::uint32_t depth) {
    std::size_t at = 0;
    std::optional<TypeId> type = printed_type_at(text, at, depth);
    return at == text.size() ? type : std::nullopt;
  }
  // The printed type starting at text[at], `at` moved past it; nullopt when there is none.
  std::optional<TypeId> printed_type_at(std::string_view text, std::size_t& at,
                                        std::uint32_t depth) {
    if (depth > options_.limits.max_depth) return std::nullopt;
    std::string_view rest = text.substr(at);
    if (starts_with_literal(rest, "Tensor[(")) return printed_tensor_type_at(text, at);
    TypeTable& types = context_.types;
    if (rest.starts_with('(')) {
      ++at;
      absl::InlinedVector<TypeId, 8> fields;
      while (!text.substr(at).starts_with(')')) {  // `()` has no field
        if (!fields.empty()) {
          if (!starts_with_literal(text.substr(at), ", ")) return std::nullopt;
          at += 2;
        }
        std::optional<TypeId> field = printed_type_at(text, at, depth + 1);
        if (!field) return std::nullopt;
        fields.push_back(*field);
      }
      ++at;
      return types.tuple(fields);
    }
    // A dtype alone is a scalar tensor type, unless a type parameter takes its name.
    std::string_view dtype = rest.substr(0, word_length(rest));
    if (type_params_.empty() && is_relay_identifier(dtype) && parse_dtype(dtype) &&
        !dtype_problem(dtype)) {
      at += dtype.size();
      return types.tensor(dtype_id(dtype), {});
    }
    return std::nullopt;
  }
  // `Tensor[(1, 64), float32]` at text[at]: dimensions in plain decimal (no sign, no leading
  // zero, at most 18 digits; `()` for none), `, ` between them, a dtype word parse_type accepts.
  std::optional<TypeId> printed_tensor_type_at(std::string_view text, std::size_t& at) {
    at += std::string_view("Tensor[(").size();
    absl::InlinedVector<std::int64_t, 8> extents;
    while (!text.substr(at).starts_with(')')) {
      if (!extents.empty()) {
        if (!starts_with_literal(text.substr(at), ", ")) return std::nullopt;
        at += 2;
      }
      std::size_t end = at;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
      std::size_t length = end - at;
      if (length == 0 || length > 18 || (text[at] == '0' && length > 1)) return std::nullopt;
      extents.push_back(*parse_decimal<std::int64_t>(text.substr(at, length)));
      at = end;
    }
    if (!starts_with_literal(text.substr(at), "), ")) return std::nullopt;
    at += 3;
    std::string_view dtype = text.substr(at, word_length(text.substr(at)));
    at += dtype.size();
    if (!text.substr(at).starts_with(']') || !is_relay_identifier(dtype) || dtype_problem(dtype)) {
      return std::nullopt;
    }
    ++at;
    TypeTable& types = context_.types;
    absl::InlinedVector<DimId, 8> dims;
    for (std::int64_t extent : extents) {
      // read_number's width for an unsuffixed integer: int32 when it fits, else int64.
      std::uint8_t bits = extent > std::numeric_limits<std::int32_t>::max() ? 64 : 32;
      dims.push_back(types.dim(extent, bits));
    }
    return types.tensor(dtype_id(dtype), dims);
  }
  // The pool's id of a dtype's text. A model's types share a dtype or two, so the last one is
  // kept (its text the pool's, which outlives any text read).
  StringId dtype_id(std::string_view text) {
    if (!same_text(text, last_dtype_text_)) {
      last_dtype_ = context_.strings.intern(text);
      last_dtype_text_ = context_.strings.view(last_dtype_);
    }
    return last_dtype_;
  }
  // How many bytes at the start of `text` are identifier characters (a dtype word's).
  static std::size_t word_length(std::string_view text) {
    std::size_t length = 0;
    while (length < text.size() && is_relay_ident_char(text[length])) ++length;
    return length;
  }
  // A declared type (a parameter's, a let variable's, a function's result), `depth` nested. A
  // model declares a few type texts over and over, so each plainly written one is read once
  // (while no type parameter is in scope, as for annotations) and passed over after that; the
  // annotation after it is kept. Reading a text nests at most once per byte, so a text passed
  // over at `depth` would not have been too deep when `depth` + its size is within the limit.
  absl::StatusOr<TypeId> parse_declared_type(std::uint32_t depth) {
    std::string_view text = type_params_.empty() ? lexer().plain_type_ahead() : "";
    if (!text.empty() && depth + text.size() <= options_.limits.max_depth) {
      // The annotation after a declared type repeats it: the memo answers it without a hash.
      if (same_text(text, last_type_text_) && last_type_.valid()) {
        last_annotation_ = lexer().skip(text);
        return last_type_;
      }
      // A text an annotation did not read as a type is read again here, to be refused.
      auto found = type_texts_.find(text);
      if (found != type_texts_.end() && found->second.valid()) {
        last_annotation_ = lexer().skip(text);
        return remember(text, found->second);
      }
      if (found == type_texts_.end()) {
        if (std::optional<TypeId> printed = printed_type(text, depth)) {
          last_annotation_ = lexer().skip(text);
          type_texts_.emplace(text, *printed);
          return remember(text, *printed);
        }
      }
    }
    GRAPHPAT_ASSIGN_OR_RETURN(TypeId type, parse_type(lexer(), depth));
    if (!text.empty()) type_texts_.emplace(text, type);
    return type;
  }
  // The line and column of `where` when it points into the text, else those of `fallback`
  // (only errors ask, so the scan from the start costs nothing on good input).
  std::pair<std::int32_t, std::int32_t> place_of(const char* where, const Token& fallback) const {
    std::less<const char*> before;
    if (before(where, body_.data()) || before(body_.data() + body_.size(), where)) {
      return {fallback.line, fallback.column};
    }
    std::int32_t line = 1, column = 1;
    for (const char* c = body_.data(); c < where; ++c) {
      column = *c == '\n' ? 1 : column + 1;
      line += *c == '\n' ? 1 : 0;
    }
    return {line, column};
  }
  // The annotation after the token consumed last.
  absl::StatusOr<Annotation> last_annotation(const Token& at) {
    return read_annotation(last_annotation_, at);
  }

  // ----- types ------------------------------------------------------------------------------
  absl::StatusOr<TypeId> parse_type(RelayLexer& lex, std::uint32_t depth) {
    TypeTable& types = context_.types;
    Token token = lex.next();
    last_annotation_ = token.annotation;
    if (depth > options_.limits.max_depth) return check_depth(depth, token);
    auto expect_in = [&](char punct, std::string_view where) -> absl::Status {
      Token next = lex.next();
      last_annotation_ = next.annotation;
      if (next.is(punct)) return absl::OkStatus();
      GRAPHPAT_RETURN_IF_ERROR(lex.status());
      return text_error("unexpected_token", next.line, next.column,
                        fmt::format("expected '{}' {}, found {}", punct, where, describe(next)));
    };
    if (token.is('(')) {
      std::vector<TypeId> fields;
      while (!lex.peek().is(')')) {
        GRAPHPAT_ASSIGN_OR_RETURN(auto field, parse_type(lex, depth + 1));
        fields.push_back(field);
        if (!lex.peek().is(',')) break;
        lex.next();
      }
      GRAPHPAT_RETURN_IF_ERROR(expect_in(')', "after tuple type fields"));
      return types.tuple(fields);
    }
    if (token.is_ident("fn")) {
      std::vector<TypeId> type_params;
      if (lex.peek().is('[')) {
        lex.next();
        while (lex.peek().kind == TokenKind::kIdent) {
          type_params.push_back(types.type_var(lex.next().text));
          if (lex.peek().is(',')) lex.next();
        }
        GRAPHPAT_RETURN_IF_ERROR(expect_in(']', "after type parameters"));
      }
      GRAPHPAT_RETURN_IF_ERROR(expect_in('(', "before function type parameters"));
      std::vector<TypeId> params;
      while (!lex.peek().is(')')) {
        GRAPHPAT_ASSIGN_OR_RETURN(auto param, parse_type(lex, depth + 1));
        params.push_back(param);
        if (!lex.peek().is(',')) break;
        lex.next();
      }
      GRAPHPAT_RETURN_IF_ERROR(expect_in(')', "after function type parameters"));
      GRAPHPAT_RETURN_IF_ERROR(expect_in('-', "in '->'"));
      GRAPHPAT_RETURN_IF_ERROR(expect_in('>', "in '->'"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto result, parse_type(lex, depth + 1));
      return types.func(params, result, type_params);
    }
    if (token.is_ident("Tensor")) {
      GRAPHPAT_RETURN_IF_ERROR(expect_in('[', "after Tensor"));
      GRAPHPAT_RETURN_IF_ERROR(expect_in('(', "before the shape"));
      std::vector<DimId> dims;
      while (!lex.peek().is(')')) {
        Token dim = lex.next();
        if (dim.is('?')) {
          dims.push_back(types.any_dim());
        } else if (dim.kind == TokenKind::kMeta) {
          dims.push_back(types.symbolic_dim(dim.text, dim.meta_key));
        } else if (dim.kind == TokenKind::kNumber) {
          std::string error;
          auto literal = read_number(dim.text, error, /*allow_unsuffixed_float=*/true);
          if (!literal) {
            return text_error("bad_type", dim.line, dim.column,
                              fmt::format("bad dimension {}: {}", describe(dim), error));
          }
          if (literal->is_float) {
            return text_error("bad_type", dim.line, dim.column,
                              fmt::format("expected an integer dimension, found {}",
                                          describe(dim)));
          }
          if (auto problem = extent_problem(literal->integer)) {
            return text_error("bad_type", dim.line, dim.column, *problem);
          }
          dims.push_back(types.dim(literal->integer, literal->bits));
        } else {
          GRAPHPAT_RETURN_IF_ERROR(lex.status());
          return text_error("bad_type", dim.line, dim.column,
                            fmt::format("expected a dimension, found {}", describe(dim)));
        }
        if (!lex.peek().is(',')) break;
        lex.next();
      }
      GRAPHPAT_RETURN_IF_ERROR(expect_in(')', "after the shape"));
      GRAPHPAT_RETURN_IF_ERROR(expect_in(',', "after the shape"));
      Token dtype = lex.next();
      if (dtype.kind != TokenKind::kIdent) {
        GRAPHPAT_RETURN_IF_ERROR(lex.status());
        return text_error("bad_type", dtype.line, dtype.column,
                          fmt::format("expected a dtype, found {}", describe(dtype)));
      }
      if (auto problem = dtype_problem(dtype.text)) {
        return text_error("bad_type", dtype.line, dtype.column, *problem);
      }
      GRAPHPAT_RETURN_IF_ERROR(expect_in(']', "after the dtype"));
      return types.tensor(dtype.text, dims);
    }
    if (token.is_ident("_")) return types.incomplete();
    if (token.kind == TokenKind::kMeta) return types.opaque(token.text);
    if (token.is_ident("ref") && lex.peek().is('(')) {
      lex.next();
      GRAPHPAT_ASSIGN_OR_RETURN(auto value, parse_type(lex, depth + 1));
      GRAPHPAT_RETURN_IF_ERROR(expect_in(')', "after a reference type"));
      return types.ref(value);
    }
    if (token.kind == TokenKind::kIdent) {
      for (auto it = type_params_.rbegin(); it != type_params_.rend(); ++it) {
        if (context_.types.get(*it).name == context_.strings.find(token.text)) {
          if (lex.peek().is('[')) break;
          return *it;
        }
      }
      if (parse_dtype(token.text) && !lex.peek().is('[')) {
        if (auto problem = dtype_problem(token.text)) {
          return text_error("bad_type", token.line, token.column, *problem);
        }
        return types.tensor(token.text, {});
      }
      return text_error("unsupported", token.line, token.column,
                        fmt::format("type '{}': ADT types are not supported by graphpat",
                                    token.text));
    }
    GRAPHPAT_RETURN_IF_ERROR(lex.status());
    return text_error("bad_type", token.line, token.column,
                      fmt::format("expected a type, found {}", describe(token)));
  }

  // ----- variables --------------------------------------------------------------------------
  // What a name in scopes_ stands for while the value of its `let` is read: TVM binds the let's
  // variable before reading its value, so a use there reads the variable being bound.
  static constexpr NodeId kBeingBound = NodeId(NodeId::kNone - 1);

  void declare(NodeId var) {
    enter_name(module_.graph.name_id(var), var);
    declared_.push_back(var);
  }
  std::size_t scope_mark() const { return declared_.size(); }
  void pop_scope(std::size_t mark) {
    while (declared_.size() > mark) {
      leave_name(module_.graph.name_id(declared_.back()));
      declared_.pop_back();
    }
  }
  void enter_name(StringId name, NodeId meaning) {
    scopes_[name].push_back(meaning);
    std::string_view text = context_.strings.view(name);
    if (trailing_index_at(text) != text.size()) ++indexed_names_[name_hash(text)];
  }
  void leave_name(StringId name) {
    scopes_.find(name)->second.pop_back();
    std::string_view text = context_.strings.view(name);
    if (trailing_index_at(text) == text.size()) return;
    auto counted = indexed_names_.find(name_hash(text));
    if (--counted->second == 0) indexed_names_.erase(counted);
  }
  NodeId lookup(std::string_view name) const {
    StringId id = context_.strings.find(name);
    if (!id.valid()) return NodeId();
    auto found = scopes_.find(id);
    if (found == scopes_.end() || found->second.empty()) return NodeId();
    return found->second.back();
  }

  // Where the `.N.M…` indices at the end of `name` begin (name.size() when there are none):
  // `x.0.1` → 1, `input.1` → 5.
  static std::size_t trailing_index_at(std::string_view name) {
    std::size_t end = name.size();
    if (end == 0 || name[end - 1] < '0' || name[end - 1] > '9') return end;  // most names
    while (true) {
      std::size_t dot = name.rfind('.', end == 0 ? 0 : end - 1);
      if (dot == std::string_view::npos || dot + 1 == end ||
          name.substr(dot + 1, end - dot - 1).find_first_not_of("0123456789") !=
              std::string_view::npos) {
        return end;
      }
      end = dot;
    }
  }
  // A polynomial hash, extended one character at a time, so the hashes of all prefixes of a
  // name cost its length (two names with one hash only cost a lookup: lookup decides).
  static std::uint64_t extend_hash(std::uint64_t hash, char c) {
    return hash * 0x100000001B3ULL + static_cast<unsigned char>(c) + 1;
  }
  static std::uint64_t name_hash(std::string_view name) {
    std::uint64_t hash = 0;
    for (char c : name) hash = extend_hash(hash, c);
    return hash;
  }

  absl::StatusOr<NodeId> declare_var(const Token& name, bool allow_type) {
    TypeId annotation;
    if (allow_type && lexer().peek().is(':')) {
      take();
      GRAPHPAT_ASSIGN_OR_RETURN(annotation, parse_declared_type(0));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(auto note, last_annotation(name));
    return bind_var(name, annotation, note);
  }

  // Variable `name` made, declared in the current scope and counted toward max_nodes.
  absl::StatusOr<NodeId> bind_var(const Token& name, TypeId annotation, const Annotation& note) {
    NodeId var = builder_.var(name.text, annotation, {note.type, note.span, true});
    declare(var);
    GRAPHPAT_RETURN_IF_ERROR(check_size(name));
    return var;
  }

  // ----- definitions and functions -----------------------------------------------------------
  absl::Status parse_def() {
    Token name = take();
    if (name.kind != TokenKind::kGlobal) return unexpected(name, "expected a global name after 'def'");
    if (module_.find(name.text)) {
      return text_error("duplicate_definition", name.line, name.column,
                        fmt::format("@{} is defined twice", name.text));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(auto function, parse_function(name, 0, /*nested=*/false));
    module_.add_function(name.text, function);
    return absl::OkStatus();
  }

  absl::StatusOr<NodeId> parse_function(const Token& start, std::uint32_t depth, bool nested) {
    GRAPHPAT_RETURN_IF_ERROR(check_depth(depth, start));
    std::size_t type_param_mark = type_params_.size();
    TypeId type_params;
    if (lexer().peek().is('[')) {
      take();
      std::vector<TypeId> vars;
      while (lexer().peek().kind == TokenKind::kIdent) {
        vars.push_back(context_.types.type_var(take().text));
        type_params_.push_back(vars.back());
        if (lexer().peek().is(',')) take();
      }
      GRAPHPAT_RETURN_IF_ERROR(expect(']', "after type parameters"));
      type_params = context_.types.tuple(vars);
    }
    GRAPHPAT_RETURN_IF_ERROR(expect('(', "before the parameters"));
    std::size_t mark = scope_mark();
    std::vector<NodeId> params;
    graphpat::detail::TextSet param_names;
    std::vector<AttrField> attrs;
    bool has_attrs = false;
    while (!lexer().peek().is(')')) {
      const Token& next = lexer().peek();
      if (next.kind == TokenKind::kLocal && !has_attrs) {
        Token name = take();
        if (!param_names.insert(name.text).second) {
          return text_error("duplicate_parameter", name.line, name.column,
                            fmt::format("%{} is a parameter twice", name.text));
        }
        if (lexer().peek().is('{') && lexer().peek(1).is_ident("virtual_device")) {
          return unsupported(lexer().peek(), "parameter virtual devices");
        }
        GRAPHPAT_ASSIGN_OR_RETURN(auto var, declare_var(name, true));
        params.push_back(var);
      } else if (next.kind == TokenKind::kIdent &&
                 (lexer().peek(1).is('=') || lexer().peek(1).is('.'))) {
        has_attrs = true;
        GRAPHPAT_ASSIGN_OR_RETURN(auto field, parse_attr_pair(depth));
        attrs.push_back(field);
      } else {
        return unexpected(take(), "expected a parameter or a function attribute");
      }
      if (!lexer().peek().is(',')) break;
      take();
    }
    GRAPHPAT_RETURN_IF_ERROR(expect(')', "after the parameters"));
    TypeId result_type;
    if (lexer().peek().is('-')) {
      take();
      GRAPHPAT_RETURN_IF_ERROR(expect('>', "in '->'"));
      GRAPHPAT_ASSIGN_OR_RETURN(result_type, parse_declared_type(0));
    }
    GRAPHPAT_RETURN_IF_ERROR(expect('{', "before the function body"));
    GRAPHPAT_ASSIGN_OR_RETURN(auto body, parse_sequence(depth + 1));
    GRAPHPAT_RETURN_IF_ERROR(expect('}', "after the function body"));
    Annotation note;
    if (nested) {
      GRAPHPAT_ASSIGN_OR_RETURN(note, last_annotation(start));
    } else {
      // TVM prints no `/* ty= */` after a `def`; a fully typed signature is its checked type.
      note.type = signature_type(params, result_type, type_params);
    }
    pop_scope(mark);
    type_params_.resize(type_param_mark);
    keep_last_of_each_key(attrs, [](const AttrField& field) { return field.key; });
    AttrValueId dict = has_attrs ? context_.attrs.object("DictAttrs", attrs) : AttrValueId();
    NodeId function = builder_.function(
        params, body, {dict, result_type, type_params, note.type, note.span, true});
    GRAPHPAT_RETURN_IF_ERROR(check_size(start));
    return function;
  }

  // `fn [type_params](params) -> result` when every param is annotated and the result type is
  // given (what InferType gives the function), else no type.
  TypeId signature_type(std::span<const NodeId> params, TypeId result_type, TypeId type_params) {
    if (!result_type.valid()) return TypeId();
    std::vector<TypeId> param_types;
    for (NodeId param : params) {
      TypeId annotation = builder_.graph().annotation(param);
      if (!annotation.valid()) return TypeId();
      param_types.push_back(annotation);
    }
    std::vector<TypeId> vars;
    if (type_params.valid()) {
      for (TypeId var : context_.types.children(type_params)) vars.push_back(var);
    }
    return context_.types.func(param_types, result_type, vars);
  }

  // `key=value`; keys may be dotted (`relay.reshape_only=1`).
  absl::StatusOr<AttrField> parse_attr_pair(std::uint32_t depth) {
    Token first = take();
    std::string key(first.text);
    while (lexer().peek().is('.') && lexer().peek(1).kind == TokenKind::kIdent) {
      take();
      key += '.';
      key += take().text;
    }
    if (!lexer().peek().is('=')) {
      GRAPHPAT_RETURN_IF_ERROR(expect('=', fmt::format("after attribute name '{}'", key)));
    }
    take();
    // A `meta[KEY][i]` value stays a reference (printed back as written); only a whole attrs
    // argument is resolved from the metadata section (see meta_attr).
    AttrValueReader reader(context_, lexer(), options_.limits.max_depth);
    GRAPHPAT_ASSIGN_OR_RETURN(auto value, reader.read(depth));
    return AttrField{context_.strings.intern(key), value};
  }

  absl::StatusOr<AttrValueId> meta_attr(const Token& token) {
    std::string key(token.meta_key);
    if (metadata_) {
      if (const nlohmann::json* node = metadata_->node(key, token.meta_index)) {
        if (auto value = metadata_attrs(context_, cache_, *metadata_, *node)) return *value;
      }
    }
    return context_.attrs.object(token.meta_key,
                                 {{kMetaIndexField, context_.attrs.integer(token.meta_index, 64)}});
  }

  // ----- expressions -----------------------------------------------------------------------
  // A `;`-separated sequence: graph bindings, lets, free_var declarations and `e1; e2`, then
  // the result. Lets nest to the right, so they are collected and built from the back.
  absl::StatusOr<NodeId> parse_sequence(std::uint32_t depth) {
    const Token& first = lexer().peek();
    GRAPHPAT_RETURN_IF_ERROR(check_depth(depth, first));
    struct Binding {
      NodeId var;
      NodeId value;
      Token start;  // where the binding begins: the place named when its let is one too many
    };
    std::vector<Binding> lets;
    std::size_t mark = scope_mark();
    std::optional<NodeId> result;
    while (!result) {
      const Token& token = lexer().peek();
      Token start = token;
      if (token.kind == TokenKind::kGraph && lexer().peek(1).is('=') && !lexer().peek(2).is('=')) {
        Token name = take();
        take();
        GRAPHPAT_ASSIGN_OR_RETURN(auto value, parse_binop(depth));
        GRAPHPAT_RETURN_IF_ERROR(expect(';', "after a binding"));
        graph_bindings_.bind(name.text, {value, declared_.empty() ? NodeId() : declared_.back()});
      } else if (token.is_ident("let")) {
        take();
        Token name = take();
        if (name.kind != TokenKind::kLocal) return unexpected(name, "expected a variable after 'let'");
        TypeId annotation;
        if (lexer().peek().is(':')) {
          take();
          GRAPHPAT_ASSIGN_OR_RETURN(annotation, parse_declared_type(depth));
        }
        GRAPHPAT_ASSIGN_OR_RETURN(auto note, last_annotation(name));
        GRAPHPAT_RETURN_IF_ERROR(expect('=', "after the let variable"));
        StringId bound = context_.strings.intern(name.text);
        enter_name(bound, kBeingBound);
        GRAPHPAT_ASSIGN_OR_RETURN(auto value, parse_binop(depth));
        leave_name(bound);
        GRAPHPAT_RETURN_IF_ERROR(expect(';', "after a let binding"));
        GRAPHPAT_ASSIGN_OR_RETURN(auto var, bind_var(name, annotation, note));
        lets.push_back({var, value, start});
      } else if (token.is_ident("free_var")) {
        take();
        Token name = take();
        if (name.kind != TokenKind::kLocal) {
          return unexpected(name, "expected a variable after 'free_var'");
        }
        GRAPHPAT_RETURN_IF_ERROR(declare_var(name, true).status());
        GRAPHPAT_RETURN_IF_ERROR(expect(';', "after a free_var declaration"));
      } else if (token.is_ident("match") || token.is_ident("match?")) {
        return unsupported(token, "match expressions");
      } else if (token.is('{')) {
        take();
        GRAPHPAT_ASSIGN_OR_RETURN(auto block, parse_sequence(depth + 1));
        GRAPHPAT_RETURN_IF_ERROR(expect('}', "after a block"));
        if (lexer().peek().is(';')) {
          take();
          lets.push_back({builder_.var(""), block, start});
        } else {
          result = block;
        }
      } else {
        GRAPHPAT_ASSIGN_OR_RETURN(auto value, parse_binop(depth));
        if (lexer().peek().is(';')) {
          take();
          lets.push_back({builder_.var(""), value, start});
        } else {
          result = value;
        }
      }
    }
    pop_scope(mark);
    NodeId body = *result;
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
      body = builder_.let(it->var, it->value, body, {{}, {}, true});
      GRAPHPAT_RETURN_IF_ERROR(check_size(it->start));
    }
    return body;
  }

  struct BinaryOp {
    std::string_view op;
    int precedence;
    std::size_t tokens;
  };
  std::optional<BinaryOp> peek_binary() {
    const Token& a = lexer().peek();
    if (a.kind != TokenKind::kPunct) return std::nullopt;
    bool eq_next = lexer().peek(1).is('=');
    switch (a.text[0]) {
      case '*': return BinaryOp{"multiply", 12, 1};
      case '/': return BinaryOp{"divide", 12, 1};
      case '+': return BinaryOp{"add", 10, 1};
      case '-': return BinaryOp{"subtract", 10, 1};
      case '<': return eq_next ? BinaryOp{"less_equal", 8, 2} : BinaryOp{"less", 8, 1};
      case '>': return eq_next ? BinaryOp{"greater_equal", 8, 2} : BinaryOp{"greater", 8, 1};
      case '=': if (eq_next) return BinaryOp{"equal", 7, 2}; return std::nullopt;
      case '!': if (eq_next) return BinaryOp{"not_equal", 7, 2}; return std::nullopt;
      default: return std::nullopt;
    }
  }

  // Infix operators by precedence climbing, with explicit stacks.
  absl::StatusOr<NodeId> parse_binop(std::uint32_t depth) {
    GRAPHPAT_ASSIGN_OR_RETURN(auto first, parse_call(depth));
    std::optional<BinaryOp> op = peek_binary();
    if (!op) return first;  // most expressions have no operator: nothing to set up
    std::vector<NodeId> operands{first};
    std::vector<BinaryOp> ops;
    auto reduce = [&] {
      NodeId rhs = operands.back();
      operands.pop_back();
      NodeId lhs = operands.back();
      operands.back() = builder_.call(ops.back().op, {lhs, rhs}, {.fresh = true});
      ops.pop_back();
    };
    for (; op; op = peek_binary()) {
      for (std::size_t i = 0; i < op->tokens; ++i) take();
      while (!ops.empty() && ops.back().precedence >= op->precedence) reduce();
      ops.push_back(*op);
      GRAPHPAT_ASSIGN_OR_RETURN(auto operand, parse_call(depth));
      operands.push_back(operand);
    }
    while (!ops.empty()) reduce();
    return operands.back();
  }

  absl::StatusOr<NodeId> parse_call(std::uint32_t depth) {
    GRAPHPAT_ASSIGN_OR_RETURN(NodeId node, parse_atomic(depth));
    while (true) {
      if (lexer().peek().is('(')) {
        Token open = take();
        GRAPHPAT_ASSIGN_OR_RETURN(node, parse_call_rest(node, open, depth));
      } else if (lexer().peek().is('.') && lexer().peek(1).kind == TokenKind::kNumber) {
        take();
        GRAPHPAT_ASSIGN_OR_RETURN(node, project(node, take()));
      } else {
        return node;
      }
    }
  }

  absl::StatusOr<NodeId> project(NodeId tuple, const Token& index_token) {
    std::string error;
    auto index = read_number(index_token.text, error);
    if (!index || index->is_float || index->integer < 0 ||
        index->integer > std::numeric_limits<std::int32_t>::max()) {
      return text_error("bad_literal", index_token.line, index_token.column,
                        fmt::format("expected a tuple index, found {}", describe(index_token)));
    }
    const auto& graph = module_.graph;
    TypeId type = graph.kind(tuple) == NodeKind::kVar ? graph.annotation(tuple) : TypeId();
    if (!type.valid()) type = graph.type(tuple);
    if (type.valid() && context_.types.kind(type) == TypeKind::kTuple &&
        static_cast<std::uint64_t>(index->integer) >= context_.types.children(type).size()) {
      return text_error("bad_index", index_token.line, index_token.column,
                        fmt::format("tuple index {} is out of range: the tuple has {} fields",
                                    index->integer, context_.types.children(type).size()));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(auto note, read_annotation(index_token.annotation, index_token));
    return builder_.tuple_get_item(tuple, static_cast<std::uint32_t>(index->integer),
                                   {note.type, note.span, true});
  }

  absl::StatusOr<NodeId> parse_call_rest(NodeId callee, const Token& open, std::uint32_t depth) {
    GRAPHPAT_RETURN_IF_ERROR(check_depth(depth + 1, open));
    absl::InlinedVector<NodeId, 8> args;
    AttrPairs pairs;
    KeyPlaces places;  // of each pair's key
    std::optional<AttrValueId> meta_attrs;
    // A model writes a few attribute texts over and over (every 3x3 convolution of a stage
    // alike), so the attributes of an op's call written plainly are read once per text and
    // passed over after that. Reading them nests at most once per byte, as for declared types.
    std::string_view written;  // the attributes as plain_attrs_ahead found them
    const char* pairs_start = nullptr;
    const bool op_call = module_.graph.kind(callee) == NodeKind::kOp;
    while (true) {
      if (op_call && pairs.empty() && !meta_attrs) {
        written = lexer().plain_attrs_ahead();
        if (depth + written.size() > options_.limits.max_depth) written = {};
        if (!written.empty()) {
          if (auto found = call_attrs_read_.find(CallAttrsText{callee, written});
              found != call_attrs_read_.end()) {
            lexer().skip(written);
            return finish_call(callee, args, found->second, open);
          }
        }
      }
      if (lexer().peek().is(')')) break;
      const Token& next = lexer().peek();
      if (next.kind == TokenKind::kIdent && lexer().peek(1).is('=')) {
        if (pairs.empty()) pairs_start = next.text.data();
        places.emplace_back(next.line, next.column);
        GRAPHPAT_ASSIGN_OR_RETURN(auto pair, parse_attr_pair(depth));
        pairs.push_back(pair);
        if (lexer().peek().is(',')) take();
        continue;
      }
      if (!pairs.empty()) return unexpected(take(), "expected an attribute after attributes");
      if (next.kind == TokenKind::kMeta && next.meta_key.starts_with("relay.attrs.")) {
        GRAPHPAT_ASSIGN_OR_RETURN(meta_attrs, meta_attr(take()));
      } else {
        GRAPHPAT_ASSIGN_OR_RETURN(auto arg, parse_sequence(depth + 1));
        args.push_back(arg);
      }
      if (!lexer().peek().is(',')) break;
      take();
    }
    // The pairs were all of `written` when they began at its start and ended at its end.
    const bool read_written = !written.empty() && pairs_start == written.data() &&
                              lexer().peek().text.data() == written.data() + written.size();
    keep_last_of_each_key(pairs, [](const AttrField& field) { return field.key; }, &places);
    GRAPHPAT_ASSIGN_OR_RETURN(auto attrs, call_attrs(callee, pairs, places, meta_attrs, open));
    if (read_written) call_attrs_read_.emplace(CallAttrsText{callee, written}, attrs);
    return finish_call(callee, args, attrs, open);
  }
  // The call of `callee` on `args` with `attrs`, its `)` next.
  absl::StatusOr<NodeId> finish_call(NodeId callee, std::span<const NodeId> args, AttrValueId attrs,
                                     const Token& open) {
    GRAPHPAT_RETURN_IF_ERROR(expect(')', "after call arguments"));
    GRAPHPAT_ASSIGN_OR_RETURN(auto note, last_annotation(open));
    NodeId call = builder_.call(callee, args, {attrs, {}, note.type, note.span, true});
    GRAPHPAT_RETURN_IF_ERROR(check_size(open));
    return call;
  }

  // A call's attribute pairs and the line and column of each key: a call has a few, kept
  // inline.
  using AttrPairs = absl::InlinedVector<AttrField, 8>;
  using KeyPlaces = absl::InlinedVector<std::pair<std::int32_t, std::int32_t>, 8>;
  absl::StatusOr<AttrValueId> call_attrs(NodeId callee, AttrPairs& pairs, KeyPlaces& places,
                                         std::optional<AttrValueId> meta_attrs, const Token& at) {
    if (meta_attrs) return *meta_attrs;
    const AttrSchema* schema = nullptr;
    std::string_view op_name = "the call";
    if (!type_key_field_.valid()) type_key_field_ = context_.strings.intern("attrs_type_key");
    const StringId type_key_field = type_key_field_;
    std::optional<std::string> named_struct;
    // The last attrs_type_key names the struct, as the last of any repeated pair wins, and none
    // stays a field (fuzz_relay_text, session 9: a second one was kept as a field, printed
    // before the struct's name, and named the struct when read back).
    for (std::size_t i = 0; i < pairs.size();) {
      if (pairs[i].key != type_key_field) {
        ++i;
        continue;
      }
      if (context_.attrs.kind(pairs[i].value) != AttrKind::kString) {
        return text_error("bad_attribute", places[i].first, places[i].second,
                          "attrs_type_key must be a string naming an attrs struct");
      }
      named_struct = std::string(context_.attrs.text(pairs[i].value));
      pairs.erase(pairs.begin() + static_cast<std::ptrdiff_t>(i));
      places.erase(places.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (named_struct) {
      schema = context_.ops.find_schema(*named_struct);
      // A struct the registry does not know (DictAttrs, a vendor's attrs) is carried through
      // with the fields as written.
      if (schema == nullptr) return context_.attrs.object(*named_struct, pairs);
    }
    const graphpat::Graph<relay::Dialect>& graph = module_.graph;
    if (schema == nullptr && graph.kind(callee) == NodeKind::kOp) {
      const OpInfo& info = context_.ops.info(graph.op(callee));
      schema = context_.ops.schema(info);
      op_name = context_.strings.view(info.name);
    }
    if (schema != nullptr) {
      return cache_.canonical(*schema, pairs, op_name, at.line, at.column, places);
    }
    if (pairs.empty()) return AttrValueId();
    return context_.attrs.object(kUnknownAttrsKey, pairs);
  }

  absl::StatusOr<NodeId> parse_atomic(std::uint32_t depth) {
    Token token = take();
    GRAPHPAT_RETURN_IF_ERROR(check_depth(depth, token));
    switch (token.kind) {
      case TokenKind::kNumber: {
        std::string error;
        auto literal = read_number(token.text, error);
        if (!literal) return text_error("bad_literal", token.line, token.column, error);
        return constant(scalar_tensor(context_, *literal), token);
      }
      case TokenKind::kLocal:
        return reference_local(token);
      case TokenKind::kGraph:
        return reference_graph_binding(token);
      case TokenKind::kGlobal:
        if (global_names_used_.insert(token.text).second) global_uses_.push_back(token);
        return builder_.global_var(token.text);
      case TokenKind::kMeta:
        return meta_constant(token);
      case TokenKind::kIdent:
        return parse_keyword_or_op(token, depth);
      case TokenKind::kPunct:
        if (token.is('(')) return parse_parenthesised(token, depth);
        break;
      default:
        break;
    }
    return unexpected(token, "expected an expression");
  }

  // A `/* ty= */` on a constant must describe its tensor: a tensor type of the same dtype and
  // rank whose known extents are the tensor's (a symbolic or `?` extent matches any).
  absl::Status check_constant_type(const Tensor& tensor, TypeId type, const Token& token) {
    const TypeTable& types = context_.types;
    if (!type.valid()) return absl::OkStatus();
    auto tensor_text = [](std::string_view dtype, const std::vector<std::string>& dims) {
      if (dims.empty()) return std::string(dtype);
      return fmt::format("Tensor[({}), {}]", fmt::join(dims, ", "), dtype);
    };
    std::vector<std::string> have;
    for (std::int64_t extent : tensor.shape) have.push_back(std::to_string(extent));
    std::string_view dtype = context_.strings.view(tensor.dtype);
    bool matches = types.kind(type) == TypeKind::kTensor &&
                   types.get(type).name == tensor.dtype &&
                   types.dims(type).size() == tensor.shape.size();
    std::vector<std::string> said;
    if (types.kind(type) == TypeKind::kTensor) {
      auto dims = types.dims(type);
      for (std::size_t i = 0; i < dims.size(); ++i) {
        const Dim& dim = types.get_dim(dims[i]);
        said.push_back(dim.kind == Dim::Kind::kInt ? std::to_string(dim.value) : "?");
        matches &= dim.kind != Dim::Kind::kInt || i >= tensor.shape.size() ||
                   dim.value == tensor.shape[i];
      }
    }
    if (matches) return absl::OkStatus();
    std::string annotation = types.kind(type) == TypeKind::kTensor
                                 ? tensor_text(context_.strings.view(types.get(type).name), said)
                                 : "not a tensor type";
    return text_error("type_mismatch", token.line, token.column,
                      fmt::format("the constant is {}, but its annotation says {}",
                                  tensor_text(dtype, have), annotation));
  }

  absl::StatusOr<NodeId> constant(Tensor tensor, const Token& token) {
    GRAPHPAT_ASSIGN_OR_RETURN(auto note, read_annotation(token.annotation, token));
    GRAPHPAT_RETURN_IF_ERROR(check_constant_type(tensor, note.type, token));
    TensorId id = context_.tensors.add(std::move(tensor));
    NodeId node = builder_.constant(id, {note.type, note.span, true});
    GRAPHPAT_RETURN_IF_ERROR(check_size(token));
    return node;
  }

  // `%N`: its bound value, if every variable that value reads is still in scope (a binding made
  // in a function or block that has ended, or in another definition, may read one that is not).
  absl::StatusOr<NodeId> reference_graph_binding(const Token& token) {
    const GraphBinding* found = graph_bindings_.find(token.text);
    if (found == nullptr) {
      return text_error("undefined", token.line, token.column,
                        fmt::format("%{} is used before it is bound", token.text));
    }
    const GraphBinding& binding = *found;
    if (!binding.innermost.valid()) return binding.value;  // no variable was in scope to read
    // declared_ is in creation order, so the variables still in scope from the binding's time
    // are those up to its innermost; if that one is, the scope is the binding's or within it.
    auto kept_end = std::upper_bound(
        declared_.begin(), declared_.end(), binding.innermost.index(),
        [](std::uint32_t index, NodeId var) { return index < var.index(); });
    NodeId kept = kept_end == declared_.begin() ? NodeId() : *std::prev(kept_end);
    if (kept == binding.innermost) return binding.value;
    // A node made before `kept` cannot read a variable made after it: only newer ones are read.
    std::uint32_t newer_than = kept.valid() ? kept.index() + 1 : 0;
    if (NodeId var = variable_out_of_scope(binding.value, newer_than); var.valid()) {
      return text_error("undefined", token.line, token.column,
                        fmt::format("%{} reads %{}, which is not in scope here", token.text,
                                    module_.graph.name(var)));
    }
    return binding.value;
  }

  // Whether `var` is in scope (declared_ is in creation order, so sorted by index).
  bool in_scope(NodeId var) const {
    return std::binary_search(declared_.begin(), declared_.end(), var);
  }

  // A variable `value` reads, not bound within it, that is not in scope; none if there is none.
  // Nodes below index `first` are not looked into.
  NodeId variable_out_of_scope(NodeId value, std::uint32_t first) const {
    const auto& graph = module_.graph;
    absl::flat_hash_set<std::uint32_t> seen{value.index()};
    absl::flat_hash_set<std::uint32_t> bound_within;
    std::vector<NodeId> read_vars;
    std::vector<NodeId> stack{value};
    while (!stack.empty()) {
      NodeId node = stack.back();
      stack.pop_back();
      NodeKind kind = graph.kind(node);
      if (kind == NodeKind::kVar) read_vars.push_back(node);
      if (kind == NodeKind::kFunction) {
        for (NodeId param : graph.params(node)) bound_within.insert(param.index());
      }
      if (kind == NodeKind::kLet) bound_within.insert(graph.let_var(node).index());
      for (NodeId operand : graph.operands(node)) {
        if (operand.index() >= first && seen.insert(operand.index()).second) stack.push_back(operand);
      }
    }
    for (NodeId var : read_vars) {
      if (!bound_within.contains(var.index()) && !in_scope(var)) return var;
    }
    return NodeId();
  }

  // `%x.0.1` is `%x` projected twice unless a variable is really called `x.0` or `x.0.1` (ONNX
  // names): the longest such prefix in scope is the variable. A prefix is looked up only when a
  // name in scope with `.N` indices has its hash (one pass over the token finds them all), so a
  // million indices cost a million steps, not a million lookups of a million characters.
  absl::StatusOr<NodeId> reference_local(const Token& token) {
    std::string_view name = token.text;
    std::size_t base = trailing_index_at(name);
    NodeId var;
    std::size_t end = base;
    if (base != name.size() && !indexed_names_.empty()) {
      std::vector<std::size_t> ends;  // where each prefix that may name a variable ends
      std::vector<std::uint64_t> hashes;
      std::uint64_t hash = 0;
      for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i > base && (i == name.size() || name[i] == '.')) {
          ends.push_back(i);
          hashes.push_back(hash);
        }
        if (i < name.size()) hash = extend_hash(hash, name[i]);
      }
      for (std::size_t k = ends.size(); k-- > 0 && !var.valid();) {
        if (indexed_names_.contains(hashes[k])) {
          var = lookup(name.substr(0, ends[k]));
          end = ends[k];
        }
      }
    }
    if (!var.valid()) {
      end = base;
      var = lookup(name.substr(0, base));
    }
    if (var == kBeingBound) {
      return text_error("recursive_let", token.line, token.column,
                        fmt::format("%{} reads the variable its let binds: a recursive let, which "
                                    "graphpat does not support",
                                    name.substr(0, end)));
    }
    if (!var.valid()) {
      return text_error("undefined", token.line, token.column,
                        fmt::format("%{} is not a variable in scope", token.text));
    }
    return project_all(var, token, end + 1);
  }

  // `node` projected by the `.`-separated indices of the `%name` token from `first` on (none when
  // `first` is past its end); the token's annotation is the last projection's.
  absl::StatusOr<NodeId> project_all(NodeId node, const Token& token, std::size_t first) {
    std::string_view text = token.text;
    if (first > text.size()) return node;
    while (true) {
      std::size_t dot = std::min(text.find('.', first), text.size());
      Token index = token;
      index.kind = TokenKind::kNumber;
      index.text = text.substr(first, dot - first);
      index.column = token.column + 1 + static_cast<std::int32_t>(first);  // after the `%`
      index.annotation = dot == text.size() ? token.annotation : std::string_view();
      GRAPHPAT_ASSIGN_OR_RETURN(node, project(node, index));
      if (dot == text.size()) return node;
      first = dot + 1;
    }
  }

  absl::StatusOr<NodeId> meta_constant(const Token& token) {
    if (token.meta_key != "relay.Constant") {
      return unsupported(token, fmt::format("meta[{}] expressions", token.meta_key));
    }
    auto memo = meta_constants_.find(token.meta_index);
    if (memo != meta_constants_.end()) return memo->second;
    GRAPHPAT_ASSIGN_OR_RETURN(auto note, read_annotation(token.annotation, token));
    Tensor tensor;
    if (metadata_) {
      const nlohmann::json* node = metadata_->node("relay.Constant", token.meta_index);
      if (node == nullptr) {
        return text_error("bad_meta_reference", token.line, token.column,
                          fmt::format("{} is not in the metadata section", token.text));
      }
      auto decoded =
          metadata_constant(context_, *metadata_, *node, options_.limits.max_tensor_bytes);
      if (!decoded.ok()) return relocate(decoded.status(), token.line, token.column);
      tensor = std::move(*decoded);
      GRAPHPAT_RETURN_IF_ERROR(check_constant_type(tensor, note.type, token));
    } else {
      // No metadata section (the str() / show_meta_data=False form): the constant keeps the
      // dtype and shape of its annotation and has no bytes; without an annotation its dtype
      // is "" (unknown) and its shape empty.
      const TypeTable& types = context_.types;
      tensor.dtype = context_.strings.intern("");
      if (note.type.valid() && types.kind(note.type) == TypeKind::kTensor) {
        tensor.dtype = types.get(note.type).name;
        for (DimId dim : types.dims(note.type)) {
          const Dim& d = types.get_dim(dim);
          tensor.shape.push_back(d.kind == Dim::Kind::kInt ? d.value : -1);
        }
      }
    }
    TensorId id = context_.tensors.add(std::move(tensor));
    NodeId node = builder_.constant(id, {note.type, note.span, true});
    meta_constants_.emplace(token.meta_index, node);
    return node;
  }

  absl::StatusOr<NodeId> parse_keyword_or_op(const Token& token, std::uint32_t depth) {
    if (token.text == "True" || token.text == "False") {
      return constant(bool_tensor(context_, token.text == "True"), token);
    }
    if (token.text == "fn") return parse_function(token, depth + 1, /*nested=*/true);
    if (token.text == "if") {
      GRAPHPAT_RETURN_IF_ERROR(expect('(', "after 'if'"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto condition, parse_sequence(depth + 1));
      GRAPHPAT_RETURN_IF_ERROR(expect(')', "after the condition"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto then_branch, parse_block(depth));
      Token keyword = take();
      if (!keyword.is_ident("else")) return unexpected(keyword, "expected 'else'");
      GRAPHPAT_ASSIGN_OR_RETURN(auto else_branch, parse_block(depth));
      return builder_.if_then_else(condition, then_branch, else_branch, {{}, {}, true});
    }
    if (token.text == "ref" || token.text == "ref_read" || token.text == "ref_write") {
      return unsupported(token, "references (ref, ref_read, ref_write)");
    }
    if (token.text == "match" || token.text == "match?") return unsupported(token, "match expressions");
    // The other keywords (lexer.hpp's list, which the printer checks op names against).
    if (is_relay_keyword(token.text)) return unexpected(token, "expected an expression");
    std::string name(token.text);
    while (lexer().peek().is('.') && lexer().peek(1).kind == TokenKind::kIdent) {
      take();
      name += '.';
      name += take().text;
    }
    return builder_.opaque_op(name);
  }

  absl::StatusOr<NodeId> parse_block(std::uint32_t depth) {
    GRAPHPAT_RETURN_IF_ERROR(expect('{', "before a branch"));
    GRAPHPAT_ASSIGN_OR_RETURN(auto body, parse_sequence(depth + 1));
    GRAPHPAT_RETURN_IF_ERROR(expect('}', "after a branch"));
    return body;
  }

  absl::StatusOr<NodeId> parse_parenthesised(const Token& open, std::uint32_t depth) {
    if (lexer().peek().is(')')) {
      take();
      GRAPHPAT_ASSIGN_OR_RETURN(auto note, last_annotation(open));
      return builder_.tuple({}, {note.type, note.span, true});
    }
    std::vector<NodeId> fields;
    bool is_tuple = false;
    while (true) {
      GRAPHPAT_ASSIGN_OR_RETURN(auto field, parse_sequence(depth + 1));
      fields.push_back(field);
      if (!lexer().peek().is(',')) break;
      take();
      is_tuple = true;
      if (lexer().peek().is(')')) break;
    }
    GRAPHPAT_RETURN_IF_ERROR(expect(')', is_tuple ? "after tuple fields" : "after an expression"));
    if (!is_tuple) return fields.front();
    GRAPHPAT_ASSIGN_OR_RETURN(auto note, last_annotation(open));
    NodeId tuple = builder_.tuple(fields, {note.type, note.span, true});
    GRAPHPAT_RETURN_IF_ERROR(check_size(open));
    return tuple;
  }

  relay::TextParseOptions options_;
  relay::Module module_;
  relay::Builder builder_;
  Context& context_;
  AttrSchemaCache& cache_;
  std::string_view body_;
  std::string_view metadata_text_;
  std::optional<RelayLexer> lexer_;
  std::optional<MetadataSection> metadata_;
  std::string_view last_annotation_;
  // The type each text read while no type parameter was in scope reads as, declared or in an
  // annotation (none: an annotation's text that is not a type); keys: views of the text.
  graphpat::detail::TextMap<TypeId> type_texts_;
  // The type text last read or found through type_texts_, and its type (none: an annotation's
  // text that is not a type).
  std::string_view last_type_text_;
  TypeId last_type_;
  std::string_view last_dtype_text_;  // dtype_id's memo
  StringId last_dtype_;
  // The attributes of an op's call read from a plainly written text (parse_call_rest).
  struct CallAttrsText {
    NodeId op;  // the callee, an op's node
    std::string_view text;
    friend bool operator==(const CallAttrsText&, const CallAttrsText&) = default;
    template <class H>
    friend H AbslHashValue(H state, const CallAttrsText& key) {
      return H::combine(std::move(state), key.op.value,
                        absl::string_view(key.text.data(), key.text.size()));
    }
  };
  absl::flat_hash_map<CallAttrsText, AttrValueId> call_attrs_read_;
  // A `%N = value;` binding, with the innermost variable in scope where it was made (while that
  // one is in scope, every variable in scope then is).
  struct GraphBinding {
    NodeId value;
    NodeId innermost;
  };
  // A text's `%N = value;` bindings by their names' text. TVM numbers them 0, 1, ... in each
  /// function, so a name in plain decimal is looked up in a vector by its number, while the
  /// vector stays within twice the bindings made (plus a margin); any other name, such as `%007`
  /// or a number far past the others, in a hash map by its text.
  class GraphBindingTable {
   public:
    [[nodiscard]] const GraphBinding* find(std::string_view name) const {
      if (std::optional<std::size_t> number = plain_number(name);
          number && *number < numbered_.size() && numbered_[*number]) {
        return &*numbered_[*number];
      }
      auto found = named_.find(name);
      return found == named_.end() ? nullptr : &found->second;
    }
    /// Binds `name` (a view of text that outlives the table), replacing an earlier binding.
    void bind(std::string_view name, const GraphBinding& binding) {
      ++bound_;
      std::optional<std::size_t> number = plain_number(name);
      if (number && *number < 2 * bound_ + kMargin) {
        if (*number >= numbered_.size()) numbered_.resize(*number + 1);
        numbered_[*number] = binding;
      } else {
        named_[name] = binding;
      }
    }

   private:
    static constexpr std::size_t kMargin = 1024;
    // The number `name` writes in plain decimal (no leading zero), if it has at most 9 digits.
    static std::optional<std::size_t> plain_number(std::string_view name) {
      if (name.empty() || name.size() > 9 || (name[0] == '0' && name.size() > 1)) return {};
      std::size_t number = 0;
      for (char c : name) {
        if (c < '0' || c > '9') return {};
        number = number * 10 + static_cast<std::size_t>(c - '0');
      }
      return number;
    }
    std::vector<std::optional<GraphBinding>> numbered_;
    graphpat::detail::TextMap<GraphBinding> named_;  // keys: views of the text
    std::size_t bound_ = 0;
  };
  GraphBindingTable graph_bindings_;
  absl::flat_hash_map<std::int64_t, NodeId> meta_constants_;
  graphpat::detail::TextSet global_names_used_;
  std::vector<Token> global_uses_;  // the first use of each global name, in text order
  absl::flat_hash_map<StringId, std::vector<NodeId>> scopes_;
  // name_hash of each name in scopes_ with `.N` indices at its end, and how many entries have it.
  absl::flat_hash_map<std::uint64_t, std::uint32_t> indexed_names_;
  std::vector<NodeId> declared_;  // the variables in scope, innermost last (so in creation order)
  std::vector<TypeId> type_params_;
  StringId type_key_field_;  // `attrs_type_key`, interned at the first call read
};

}  // namespace graphpat::detail

#include "graphpat/detail/status_macros_undef.hpp"
