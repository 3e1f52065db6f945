// The types an ONNX module holds, as text (graph JSON's "type" fields for ONNX modules), and
// read back: exactly the types the ONNX reader makes (conversions.hpp's type_of), one text each.
//
//   Tensor[(1, 3, ?, batch), float32]     dims: a value, `?` (neither set), a dim_param
//   Tensor[(2, "n + 1"), int64]           a dim_param that is not an identifier, quoted
//   Tensor[(), bool]                      rank 0
//   (Tensor[(4), float32], IncompleteType)   a node's outputs; one field `(T,)`, none `()`
//   onnx.TypeProto{sequence_type { elem_type { ... } }}   any other TypeProto, in text format
//
//   std::optional<std::string> text = graphpat::onnx::detail::type_text(context, type);
//   absl::StatusOr<TypeId> again = graphpat::onnx::detail::parse_type_text(context, *text, 256);
//
// A TypeProto in text format is read with protobuf's parser and made a type by type_of, so a
// plain tensor type written that way reads as the Tensor form. Errors: kInvalidArgument with
// the problem, kResourceExhausted when the text nests deeper than `max_depth`.
#pragma once

#include <absl/status/statusor.h>
#include <fmt/format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/io/onnx/conversions.hpp"
#include "graphpat/ir/context.hpp"

namespace graphpat::onnx::detail {

/// Whether a dim_param is written without quotes: an identifier, which cannot be read as a
/// number, `?` or a type.
inline bool plain_dim_param(std::string_view name) {
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  return !name.empty() && start(name.front()) && std::all_of(name.begin(), name.end(), [&](char c) {
    return start(c) || (c >= '0' && c <= '9');
  });
}

/// The text of `type`, or nullopt for a kind no ONNX value has (function and type variables,
/// references, calls of types). The text may still not read back as `type` (a dim of another
/// width, a symbol not of kDimParamKey): writers check that it does.
inline std::optional<std::string> type_text(const Context& context, TypeId id) {
  const TypeTable& types = context.types;
  const TypeRecord& record = types.get(id);
  switch (record.kind) {
    case TypeKind::kTensor: {
      std::string out = "Tensor[(";
      auto dims = types.dims(id);
      for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i > 0) out += ", ";
        const Dim& dim = types.get_dim(dims[i]);
        if (dim.kind == Dim::Kind::kInt) {
          out += fmt::format("{}", dim.value);
        } else if (dim.kind == Dim::Kind::kAny) {
          out += '?';
        } else {
          std::string_view name = context.strings.view(dim.symbol);
          if (plain_dim_param(name)) {
            out += name;
          } else {
            out += '"';
            for (char c : name) {
              if (c == '"' || c == '\\') out += '\\';
              out += c;
            }
            out += '"';
          }
        }
      }
      out += "), ";
      out += context.strings.view(record.name);
      out += ']';
      return out;
    }
    case TypeKind::kTuple: {
      std::string out = "(";
      auto fields = types.children(id);
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out += ", ";
        std::optional<std::string> field = type_text(context, fields[i]);
        if (!field) return std::nullopt;
        out += *field;
      }
      if (fields.size() == 1) out += ',';
      out += ')';
      return out;
    }
    case TypeKind::kIncomplete:
      return std::string("IncompleteType");
    case TypeKind::kOpaque:
      return std::string(context.strings.view(record.name));
    default:
      return std::nullopt;
  }
}

/// Reads type text back into `context` (see the top of this file).
class TypeTextParser {
 public:
  TypeTextParser(Context& context, std::string_view text, std::uint32_t max_depth)
      : context_(context), text_(text), max_depth_(max_depth) {}

  absl::StatusOr<TypeId> parse() {
    absl::StatusOr<TypeId> type = parse_type(0);
    if (!type.ok()) return type;
    skip_spaces();
    if (at_ != text_.size()) return problem("expected the end of the type");
    return type;
  }

 private:
  absl::Status problem(std::string_view what) const {
    return absl::InvalidArgumentError(fmt::format("offset {}: {}", at_, what));
  }
  void skip_spaces() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  bool take(std::string_view word) {
    skip_spaces();
    if (!text_.substr(at_).starts_with(word)) return false;
    at_ += word.size();
    return true;
  }

  // Recursion follows the nesting of one type's text, bounded by max_depth.
  absl::StatusOr<TypeId> parse_type(std::uint32_t depth) {
    if (depth > max_depth_) {
      return absl::ResourceExhaustedError("the type nests too deep");
    }
    skip_spaces();
    if (text_.substr(at_).starts_with(kOpaqueTypePrefix)) return parse_type_proto();
    if (take("Tensor[")) return parse_tensor();
    if (take("IncompleteType")) return context_.types.incomplete();
    if (!take("(")) {
      return problem(
          "expected a type: Tensor[...], a tuple (...), IncompleteType or "
          "onnx.TypeProto{...}");
    }
    std::vector<TypeId> fields;
    bool trailing_comma = false;
    while (!take(")")) {
      if (!fields.empty() && !trailing_comma) return problem("expected ',' or ')' in a tuple type");
      absl::StatusOr<TypeId> field = parse_type(depth + 1);
      if (!field.ok()) return field;
      fields.push_back(*field);
      trailing_comma = take(",");
    }
    if (fields.size() == 1 && !trailing_comma) {
      return problem("a tuple type of one field is written (T,)");
    }
    return context_.types.tuple(fields);
  }

  absl::StatusOr<TypeId> parse_tensor() {
    TypeTable& types = context_.types;
    if (!take("(")) return problem("expected '(' after Tensor[");
    std::vector<DimId> dims;
    while (!take(")")) {
      if (!dims.empty() && !take(",")) return problem("expected ',' or ')' after a dimension");
      skip_spaces();
      if (take("?")) {
        dims.push_back(types.any_dim());
      } else if (at_ < text_.size() && text_[at_] == '"') {
        absl::StatusOr<std::string> name = quoted();
        if (!name.ok()) return name.status();
        dims.push_back(types.symbolic_dim(*name, kDimParamKey));
      } else if (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
        std::int64_t value = 0;
        auto [end, error] = std::from_chars(text_.data() + at_, text_.data() + text_.size(), value);
        if (error != std::errc()) return problem("a dimension past the int64 range");
        at_ = static_cast<std::size_t>(end - text_.data());
        dims.push_back(types.dim(value));
      } else {
        std::size_t start = at_;
        while (at_ < text_.size() && text_[at_] != ',' && text_[at_] != ')' && text_[at_] != ' ') {
          ++at_;
        }
        std::string_view name = text_.substr(start, at_ - start);
        if (!plain_dim_param(name)) {
          at_ = start;
          return problem("expected a dimension: an extent, ?, a name or a quoted name");
        }
        dims.push_back(types.symbolic_dim(name, kDimParamKey));
      }
    }
    if (!take(",")) return problem("expected ', dtype]' after the dimensions");
    skip_spaces();
    std::size_t start = at_;
    while (at_ < text_.size() && text_[at_] != ']') ++at_;
    std::string_view dtype = text_.substr(start, at_ - start);
    if (data_type_of(dtype) == 0) {
      at_ = start;
      return problem(fmt::format("'{}' is not an ONNX element type", dtype));
    }
    if (!take("]")) return problem("expected ']'");
    return types.tensor(dtype, dims);
  }

  // A dim_param in quotes, with \" and \\ escaped.
  absl::StatusOr<std::string> quoted() {
    std::string name;
    for (++at_; at_ < text_.size(); ++at_) {
      char c = text_[at_];
      if (c == '"') {
        ++at_;
        return name;
      }
      if (c == '\\') {
        if (++at_ == text_.size() || (text_[at_] != '"' && text_[at_] != '\\')) {
          return problem("expected \\\" or \\\\ in a quoted dimension");
        }
        c = text_[at_];
      }
      name += c;
    }
    return problem("a quoted dimension without its closing quote");
  }

  // `onnx.TypeProto{...}`: to the brace that closes the opening one, outside quoted strings.
  absl::StatusOr<TypeId> parse_type_proto() {
    std::size_t start = at_;
    at_ += kOpaqueTypePrefix.size();
    std::size_t open = 1;
    char quote = 0;
    for (; at_ < text_.size() && open > 0; ++at_) {
      char c = text_[at_];
      if (quote != 0) {
        if (c == '\\') {
          ++at_;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '{') {
        if (++open > max_depth_) return absl::ResourceExhaustedError("the type nests too deep");
      } else if (c == '}') {
        --open;
      }
    }
    if (open > 0) {
      at_ = start;
      return problem("onnx.TypeProto{ without its closing brace");
    }
    std::string_view body =
        text_.substr(start + kOpaqueTypePrefix.size(), at_ - 1 - start - kOpaqueTypePrefix.size());
    FirstError error;
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(&error);
    ::onnx::TypeProto proto;
    if (!parser.ParseFromString(std::string(body), &proto)) {
      at_ = start;
      return problem(
          fmt::format("not an onnx.TypeProto in protobuf text format: {}", error.message));
    }
    return type_of(context_, proto);
  }

  // Keeps protobuf's first complaint (instead of its logging it).
  struct FirstError : google::protobuf::io::ErrorCollector {
    std::string message;
    void AddError(int line, int column, const std::string& text) override {
      if (message.empty()) message = fmt::format("{}:{}: {}", line + 1, column + 1, text);
    }
  };

  Context& context_;
  std::string_view text_;
  std::uint32_t max_depth_;
  std::size_t at_ = 0;
};

/// Reads type text made by type_text (see the top of this file).
inline absl::StatusOr<TypeId> parse_type_text(Context& context, std::string_view text,
                                              std::uint32_t max_depth) {
  return TypeTextParser(context, text, max_depth).parse();
}

}  // namespace graphpat::onnx::detail
