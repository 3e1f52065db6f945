// fmt formatters for ids, and Relay-syntax views of types and attribute values.
//
// A NodeId prints as `%12`; other ids print as their kind and index (`type#3`). Types and
// attribute values need their context to be printed, so `show(context, id)` wraps the two:
//
//   fmt::print("{}\n", graphpat::show(context, type));     // Tensor[(1, 64), float32]
//   fmt::print("{}\n", graphpat::show(context, value));    // [1i64, 2i64]
//   std::string text = graphpat::escape_string("a\"b");   // a\"b, as Relay escapes strings
//   graphpat::NodeNames names([&](NodeId id) { return text_numbers.at(id); });
//   std::string name = names(id);                          // "%3" (the text's), not "%12"
//
// Types print as Relay's printer writes them (Tensor[(d0, d1), dtype], a scalar as its dtype
// unless parse_dtype does not know it, (T1, T2), fn (T1) -> R); attribute values as its
// attribute syntax (int32 `1`, int64 `1i64`, float32 `0.5f`, float64 `0.5f64`, True/False,
// None, "string", [a, b], {k=v}).
//
// Messages that name nodes (explanations, reports) take a NodeNames: `%12` by default, or the
// caller's numbering, such as the `%N` of the Relay text a graph was read from.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "graphpat/ir/attr_syntax.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/ids.hpp"

namespace graphpat {

/// Escapes `text` the way Relay writes string attribute values (quotes not included): `"` and
/// `\` are backslashed, TAB/CR/LF become \t \r \n, other bytes outside 0x20-0x7E become \xHH.
inline std::string escape_string(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (byte >= 0x20 && byte <= 0x7E) {
          out += c;
        } else {
          // Not format_to into `out`: that instantiates fmt's formatting loop in every file
          // including this header (0.2 s of each compile).
          out += fmt::format("\\x{:02X}", byte);
        }
    }
  }
  return out;
}

/// A float as Relay prints it: %g with 6 significant digits, then the suffix for its width
/// (`f`, `f16`, `f64`); other widths print std::to_string-style with no suffix, as TVM does.
inline std::string format_float(double value, std::uint8_t bits) {
  std::string digits;
  if (std::isnan(value)) {
    digits = std::signbit(value) ? "-nan" : "nan";
  } else if (bits == 16 || bits == 32 || bits == 64) {
    digits = fmt::format("{:.6g}", value);
  } else {
    return fmt::format("{:f}", value);
  }
  std::string_view suffix = bits == 16 ? "f16" : bits == 64 ? "f64" : "f";
  return digits.append(suffix);
}

/// Appends an integer as Relay prints it: int64 `5i64`, int16 `5i16`, every other width plain.
inline void append_int(std::string& out, std::int64_t value, std::uint8_t bits, bool is_unsigned) {
  using namespace std::string_view_literals;
  fmt::format_int digits =
      is_unsigned ? fmt::format_int(static_cast<std::uint64_t>(value)) : fmt::format_int(value);
  out.append(digits.data(), digits.size());
  if (!is_unsigned && bits == 64) out += "i64"sv;
  if (!is_unsigned && bits == 16) out += "i16"sv;
}
/// The same as a text.
inline std::string format_int(std::int64_t value, std::uint8_t bits, bool is_unsigned) {
  std::string text;
  append_int(text, value, bits, is_unsigned);
  return text;
}

namespace detail {

inline void append_dim(std::string& out, const Context& context, DimId id) {
  const Dim& dim = context.types.get_dim(id);
  switch (dim.kind) {
    case Dim::Kind::kInt:
      append_int(out, dim.value, dim.bits, false);
      break;
    case Dim::Kind::kAny:
      out += '?';
      break;
    case Dim::Kind::kSymbol:
      out += context.strings.view(dim.symbol);
      break;
  }
}

// Recursion here follows the nesting of one type, which parsers bound; never a graph.
inline void append_type(std::string& out, const Context& context, TypeId id) {
  using namespace std::string_view_literals;
  if (!id.valid()) {
    out += "<no type>";
    return;
  }
  const TypeTable& types = context.types;
  const TypeRecord& record = types.get(id);
  auto append_list = [&](auto ids) {
    bool first = true;
    for (TypeId child : ids) {
      if (!first) out += ", "sv;
      first = false;
      append_type(out, context, child);
    }
  };
  switch (record.kind) {
    case TypeKind::kTensor: {
      auto dims = types.dims(id);
      std::string_view dtype = context.strings.view(record.name);
      // A scalar is its dtype, as TVM prints it; a dtype graphpat does not know would read
      // back as a type name, so that scalar keeps the Tensor form (`Tensor[(), o2flat32]`).
      if (dims.empty() && parse_dtype(dtype)) {
        out += dtype;
        return;
      }
      out += "Tensor[("sv;
      for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i > 0) out += ", "sv;
        append_dim(out, context, dims[i]);
      }
      out += "), "sv;
      out += dtype;
      out += ']';
      return;
    }
    case TypeKind::kTuple: {
      auto fields = types.children(id);
      out += '(';
      append_list(fields);
      if (fields.size() == 1) out += ',';
      out += ')';
      return;
    }
    case TypeKind::kFunc: {
      out += "fn ";
      if (record.extra > 0) {
        out += '[';
        append_list(types.func_type_params(id));
        out += ']';
      }
      out += '(';
      append_list(types.func_params(id));
      out += ") -> ";
      append_type(out, context, types.func_result(id));
      return;
    }
    case TypeKind::kTypeVar:
    case TypeKind::kGlobalTypeVar:
    case TypeKind::kOpaque:
      out += context.strings.view(record.name);
      return;
    case TypeKind::kTypeCall: {
      auto children = types.children(id);
      append_type(out, context, children[0]);
      out += '[';
      append_list(children.subspan(1, children.size() - 1));
      out += ']';
      return;
    }
    case TypeKind::kRef:
      out += "ref(";
      append_type(out, context, types.children(id)[0]);
      out += ')';
      return;
    case TypeKind::kIncomplete:
      out += "IncompleteType";
      return;
  }
}

/// Relay's attribute syntax: int32 `1`, int64 `1i64`, float32 `0.5f`, True/False, None,
/// "string" (a dtype too), [a, b], {k=v} for an object's fields and for a map's entries.
class RelayAttrSyntax : public AttrSyntax {
 public:
  RelayAttrSyntax()
      : AttrSyntax({.open = "{", .close = "}", .entry_open = "", .entry_between = "=",
                    .entry_close = ""}) {}

  bool scalar(std::string& out, const Context& context, AttrValueId id) const override {
    const AttrTable& attrs = context.attrs;
    const AttrRecord& record = attrs.get(id);
    switch (record.kind) {
      case AttrKind::kNull:
        out += "None";
        break;
      case AttrKind::kBool:
        out += attrs.as_bool(id) ? "True" : "False";
        break;
      case AttrKind::kInt:
        append_int(out, attrs.as_int(id), record.bits, record.is_unsigned);
        break;
      case AttrKind::kFloat:
        out += format_float(attrs.as_float(id), record.bits);
        break;
      default:  // a string or a dtype
        out += '"';
        out += escape_string(attrs.text(id));
        out += '"';
        break;
    }
    return true;
  }
  bool open_object(std::string& out, const Context&, AttrValueId) const override {
    out += '{';
    return true;
  }
  bool field_key(std::string& out, std::string_view key) const override {
    out += key;
    out += '=';
    return true;
  }
  void close_object(std::string& out, const Context&, AttrValueId) const override { out += '}'; }
};

}  // namespace detail

/// A type with its context, for printing.
struct TypeView {
  const Context* context;
  TypeId id;
};
/// An attribute value with its context, for printing.
struct AttrValueView {
  const Context* context;
  AttrValueId id;
};

inline TypeView show(const Context& context, TypeId id) { return {&context, id}; }
inline AttrValueView show(const Context& context, AttrValueId id) { return {&context, id}; }

/// The Relay text of a type.
inline std::string to_string(const Context& context, TypeId id) {
  constexpr std::size_t kMostTypes = 48;  // `Tensor[(1, 64, 56, 56), float32]` without growing
  std::string out;
  out.reserve(kMostTypes);
  detail::append_type(out, context, id);
  return out;
}
/// The Relay attribute text of a value.
inline std::string to_string(const Context& context, AttrValueId id) {
  std::string out;
  detail::append_attr(out, context, id, detail::RelayAttrSyntax());
  return out;
}

}  // namespace graphpat

template <>
struct fmt::formatter<graphpat::NodeId> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(graphpat::NodeId id, FormatContext& ctx) const {
    std::string text = id.valid() ? fmt::format("%{}", id.index()) : std::string("%none");
    return fmt::formatter<std::string_view>::format(text, ctx);
  }
};

template <class Tag>
struct fmt::formatter<graphpat::Id<Tag>> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(graphpat::Id<Tag> id, FormatContext& ctx) const {
    std::string text = id.valid() ? fmt::format("#{}", id.index()) : std::string("#none");
    return fmt::formatter<std::string_view>::format(text, ctx);
  }
};

template <>
struct fmt::formatter<graphpat::TypeView> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(const graphpat::TypeView& view, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(graphpat::to_string(*view.context, view.id),
                                                    ctx);
  }
};

template <>
struct fmt::formatter<graphpat::AttrValueView> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(const graphpat::AttrValueView& view, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(graphpat::to_string(*view.context, view.id),
                                                    ctx);
  }
};

namespace graphpat {

/// How a message names a node: by its graph id (`%12`), or by a numbering the caller gives.
class NodeNames {
 public:
  NodeNames() = default;
  explicit NodeNames(std::function<std::string(NodeId)> name) : name_(std::move(name)) {}
  [[nodiscard]] std::string operator()(NodeId id) const {
    return name_ ? name_(id) : fmt::format("{}", id);
  }

 private:
  std::function<std::string(NodeId)> name_;
};

}  // namespace graphpat
