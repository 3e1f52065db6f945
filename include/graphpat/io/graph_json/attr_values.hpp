// Attribute values in graphpat's graph JSON (docs/graph-json.md): plain JSON for the common
// forms (null, booleans, int32 integers, float64 numbers, strings, arrays) and small tagged
// objects for the rest (`{"int": 5, "bits": 64}`, `{"float": 0.5, "bits": 32}`,
// `{"dtype": "float32"}`, `{"base64": "..."}` for a string that is not UTF-8, `{"map": [[k, v]]}`,
// `{"object": "Key", "fields": {...}}`), so every interned value reads back as the same value,
// bit for bit.
//
//   graphpat::detail::AttrJsonDecoder decoder(context, 256);
//   absl::StatusOr<AttrValueId> value = decoder.decode(json, JsonPath() / "attrs");
//   std::string text;
//   graphpat::detail::append_attr_json(text, context, *value);  // [2, 2]
#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>
#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/ir/attr_syntax.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/ir/strings.hpp"
#include "graphpat/ir/validation.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::detail {

/// The DOM graph JSON is read into: ordered, because attribute fields keep their order.
using GraphJson = nlohmann::ordered_json;

/// A place in a JSON document as a reader descends into it, spelt out as a JSON Pointer only
/// when an error needs it. Each step refers to its parent: keep a step in a variable only when
/// its parent outlives it (`JsonPath inputs = node / "inputs";`, never `a / "b" / "c"`).
class JsonPath {
 public:
  JsonPath() = default;  // the document's root

  [[nodiscard]] JsonPath operator/(std::string_view key) const { return {this, key, 0, false}; }
  [[nodiscard]] JsonPath operator/(std::size_t index) const { return {this, {}, index, true}; }

  /// `/functions/0/nodes/12` (`/` for the root); keys escaped as JSON Pointer tokens.
  [[nodiscard]] std::string str() const {
    std::vector<const JsonPath*> steps;
    for (const JsonPath* step = this; step->parent_ != nullptr; step = step->parent_) {
      steps.push_back(step);
    }
    if (steps.empty()) return "/";
    std::string out;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
      out += '/';
      if ((*it)->is_index_) {
        out += std::to_string((*it)->index_);
      } else {
        for (char c : (*it)->key_) {
          if (c == '~') {
            out += "~0";
          } else if (c == '/') {
            out += "~1";
          } else {
            out += c;
          }
        }
      }
    }
    return out;
  }

 private:
  JsonPath(const JsonPath* parent, std::string_view key, std::size_t index, bool is_index)
      : parent_(parent), key_(key), index_(index), is_index_(is_index) {}

  const JsonPath* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool is_index_ = false;
};

/// `[graphpat.graph_json.<id>] <path>: <problem>`, the path shortened when long.
inline absl::Status graph_json_error(std::string_view id, std::string_view path,
                                     std::string_view problem) {
  return make_error(absl::StatusCode::kInvalidArgument, fmt::format("graph_json.{}", id),
                    fmt::format("{}: {}", short_json_path(path), problem));
}
inline absl::Status graph_json_error(std::string_view id, const JsonPath& path,
                                     std::string_view problem) {
  return graph_json_error(id, path.str(), problem);
}

/// Appends `text` as a JSON string literal; false (and nothing appended) when `text` is not
/// valid UTF-8, which JSON cannot carry.
inline bool append_json_string(std::string& out, std::string_view text) {
  bool plain = std::all_of(text.begin(), text.end(),
                           [](char c) { return c >= 0x20 && c <= 0x7E && c != '"' && c != '\\'; });
  if (plain) {  // the common case, without building a JSON value
    out += '"';
    out += text;
    out += '"';
    return true;
  }
  // invalid_utf8_at refuses exactly the strings dump() would throw on.
  if (invalid_utf8_at(text) != std::string_view::npos) return false;
  out += GraphJson(std::string(text)).dump();
  return true;
}

/// A NaN as graph JSON writes it: "nan" and "-nan" for the quiet NaNs, "nan:0x7ff8000000000001"
/// (the double's bits) for any other, so that a NaN's payload reads back as it was.
inline std::string nan_text(double value) {
  auto bits = std::bit_cast<std::uint64_t>(value);
  if (bits == std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN())) return "nan";
  if (bits == std::bit_cast<std::uint64_t>(-std::numeric_limits<double>::quiet_NaN())) {
    return "-nan";
  }
  return fmt::format("nan:0x{:016x}", bits);
}
/// The NaN of a "nan:0x..." text; nullopt for any other text or bits that are not a NaN's.
inline std::optional<double> nan_of_bits(std::string_view text) {
  if (!text.starts_with("nan:0x") || text.size() != 22) return std::nullopt;
  std::uint64_t bits = 0;
  auto [end, error] = std::from_chars(text.data() + 6, text.data() + text.size(), bits, 16);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  double value = std::bit_cast<double>(bits);
  if (!std::isnan(value)) return std::nullopt;
  return value;
}

/// A finite double (or float) as a JSON number that reads back as the same double (float) and
/// as a floating-point number (a `.0` is added to integral values, which would otherwise read
/// back as integers).
template <class Float>
std::string json_float(Float value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

/// What a plain JSON number in an attribute field is (and so which values a writer may write
/// plain): by default a 32-bit integer (64-bit past the int32 range) or a 64-bit float; in a
/// field a dialect's schema types as 64-bit integers (ONNX's INT, INTS), a 64-bit integer; in
/// one typed as 32-bit floats (FLOAT, FLOATS), a 32-bit float. It holds for every number inside
/// the field's value (array elements, map entries, object fields); tagged numbers
/// (`{"int": 5, "bits": 32}`) are always what they say.
enum class PlainNumbers : std::uint8_t { kDefault, kInt64, kFloat32 };

/// Reads attribute values from graph JSON, nesting bounded by `max_depth`.
class AttrJsonDecoder {
 public:
  AttrJsonDecoder(Context& context, std::uint32_t max_depth)
      : context_(context), max_depth_(max_depth) {}

  // Recursion follows the nesting of one value, bounded by max_depth; never a graph.
  absl::StatusOr<AttrValueId> decode(const GraphJson& value, const JsonPath& path,
                                     std::uint32_t depth = 0,
                                     PlainNumbers plain = PlainNumbers::kDefault) {
    AttrTable& attrs = context_.attrs;
    if (depth > max_depth_) {
      return graph_json_error("too_deep", path, too_deep_problem(max_depth_));
    }
    switch (value.type()) {
      case GraphJson::value_t::null:
        return attrs.null();
      case GraphJson::value_t::boolean:
        return attrs.boolean(value.get<bool>());
      case GraphJson::value_t::number_integer:
      case GraphJson::value_t::number_unsigned: {
        GRAPHPAT_ASSIGN_OR_RETURN(auto integer, signed_integer(value, path));
        if (plain == PlainNumbers::kFloat32) return float32(static_cast<double>(integer), path);
        bool fits32 = integer >= std::numeric_limits<std::int32_t>::min() &&
                      integer <= std::numeric_limits<std::int32_t>::max();
        return attrs.integer(integer, fits32 && plain != PlainNumbers::kInt64 ? 32 : 64);
      }
      case GraphJson::value_t::number_float: {
        double number = value.get<double>();
        if (!std::isfinite(number))
          return graph_json_error("bad_attribute", path, "number out of range");
        if (plain == PlainNumbers::kFloat32) return float32(number, path);
        return attrs.floating(number, 64);
      }
      case GraphJson::value_t::string:
        return attrs.string(value.get_ref<const std::string&>());
      case GraphJson::value_t::array: {
        std::vector<AttrValueId> elements;
        elements.reserve(value.size());
        for (std::size_t i = 0; i < value.size(); ++i) {
          GRAPHPAT_ASSIGN_OR_RETURN(auto element, decode(value[i], path / i, depth + 1, plain));
          elements.push_back(element);
        }
        return attrs.array(elements);
      }
      case GraphJson::value_t::object:
        return decode_tagged(value, path, depth, plain);
      default:
        break;
    }
    return graph_json_error("bad_attribute", path,
                            fmt::format("unexpected {} value", value.type_name()));
  }

  /// The fields of a JSON object, in order, decoded; `plain(key)` says what a plain number in
  /// field `key` is.
  template <class Plain>
  absl::StatusOr<std::vector<AttrField>> decode_fields(const GraphJson& object,
                                                       const JsonPath& path, Plain plain,
                                                       std::uint32_t depth = 0) {
    if (!object.is_object()) {
      return graph_json_error("bad_field", path,
                              fmt::format("expected an object, found {}", object.type_name()));
    }
    std::vector<AttrField> fields;
    fields.reserve(object.size());
    for (const auto& [key, field] : object.items()) {
      GRAPHPAT_ASSIGN_OR_RETURN(auto decoded,
                                decode(field, path / std::string_view(key), depth + 1, plain(key)));
      fields.push_back({context_.strings.intern(key), decoded});
    }
    return fields;
  }
  absl::StatusOr<std::vector<AttrField>> decode_fields(const GraphJson& object,
                                                       const JsonPath& path,
                                                       std::uint32_t depth = 0) {
    return decode_fields(
        object, path, [](std::string_view) { return PlainNumbers::kDefault; }, depth);
  }

 private:
  // A plain number in a float32 field: rounded to float32, as ONNX's text parser reads one.
  absl::StatusOr<AttrValueId> float32(double number, const JsonPath& path) {
    if (auto problem = float_problem(number, {DataType::Code::kFloat, 32, 1})) {
      return graph_json_error("bad_attribute", path, *problem);
    }
    return context_.attrs.floating(static_cast<double>(static_cast<float>(number)), 32);
  }

  static absl::StatusOr<std::int64_t> signed_integer(const GraphJson& value, const JsonPath& path) {
    if (value.is_number_unsigned()) {
      auto number = value.get<std::uint64_t>();
      if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return graph_json_error("bad_attribute", path,
                                fmt::format("integer {} does not fit in 64 bits", number));
      }
      return static_cast<std::int64_t>(number);
    }
    return value.get<std::int64_t>();
  }

  // `least` is 1, or 0 for a float: Relay text's float without a width suffix (`1.5`, as TVM
  // prints a bfloat16 value), which the Relay text reader keeps as width 0.
  static absl::StatusOr<std::uint8_t> bits_of(const GraphJson& object, const JsonPath& path,
                                              std::uint8_t fallback, std::uint8_t least = 1) {
    auto found = object.find("bits");
    if (found == object.end()) return fallback;
    if (!found->is_number_unsigned() || found->get<std::uint64_t>() < least ||
        found->get<std::uint64_t>() > 64) {
      return graph_json_error("bad_attribute", path / "bits",
                              fmt::format("expected a width from {} to 64", least));
    }
    return static_cast<std::uint8_t>(found->get<std::uint64_t>());
  }

  absl::StatusOr<AttrValueId> decode_tagged(const GraphJson& object, const JsonPath& path,
                                            std::uint32_t depth, PlainNumbers plain) {
    AttrTable& attrs = context_.attrs;
    auto only = [&](std::initializer_list<std::string_view> keys) -> absl::Status {
      for (const auto& [key, unused] : object.items()) {
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
          return graph_json_error("bad_attribute", path / std::string_view(key),
                                  "unknown field of a tagged attribute value");
        }
      }
      return absl::OkStatus();
    };
    if (auto found = object.find("int"); found != object.end()) {
      GRAPHPAT_RETURN_IF_ERROR(only({"int", "bits"}));
      if (!found->is_number_integer()) {
        return graph_json_error("bad_attribute", path / "int", "expected an integer");
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto integer, signed_integer(*found, path / "int"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto bits, bits_of(object, path, 32));
      if (auto problem = integer_problem(integer, {DataType::Code::kInt, bits, 1})) {
        return graph_json_error("bad_attribute", path / "int", *problem);
      }
      return attrs.integer(integer, bits);
    }
    if (auto found = object.find("uint"); found != object.end()) {
      GRAPHPAT_RETURN_IF_ERROR(only({"uint", "bits"}));
      if (!found->is_number_unsigned()) {
        return graph_json_error("bad_attribute", path / "uint", "expected a non-negative integer");
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto bits, bits_of(object, path, 32));
      auto value = static_cast<std::int64_t>(found->get<std::uint64_t>());
      if (auto problem = integer_problem(value, {DataType::Code::kUInt, bits, 1})) {
        return graph_json_error("bad_attribute", path / "uint", *problem);
      }
      return attrs.integer(value, bits, true);
    }
    if (auto found = object.find("float"); found != object.end()) {
      GRAPHPAT_RETURN_IF_ERROR(only({"float", "bits"}));
      GRAPHPAT_ASSIGN_OR_RETURN(auto bits, bits_of(object, path, 64, /*least=*/0));
      double number = 0;
      if (found->is_number()) {
        number = found->get<double>();
      } else if (found->is_string() && *found == "nan") {
        number = std::numeric_limits<double>::quiet_NaN();
      } else if (found->is_string() && *found == "-nan") {
        number = -std::numeric_limits<double>::quiet_NaN();
      } else if (found->is_string() && *found == "inf") {
        number = std::numeric_limits<double>::infinity();
      } else if (found->is_string() && *found == "-inf") {
        number = -std::numeric_limits<double>::infinity();
      } else if (std::optional<double> nan = found->is_string()
                                                 ? nan_of_bits(found->get_ref<const std::string&>())
                                                 : std::nullopt) {
        number = *nan;
      } else {
        return graph_json_error("bad_attribute", path / "float",
                                "expected a number, \"nan\", \"-nan\", \"inf\", \"-inf\" or "
                                "\"nan:0x\" and the 16 hex digits of a NaN's bits");
      }
      std::uint16_t checked_bits = bits == 0 ? 64 : bits;  // unsuffixed: as the text reader
      if (auto problem = float_problem(number, {DataType::Code::kFloat, checked_bits, 1})) {
        return graph_json_error("bad_attribute", path / "float", *problem);
      }
      return attrs.floating(number, bits);
    }
    if (auto found = object.find("dtype"); found != object.end()) {
      GRAPHPAT_RETURN_IF_ERROR(only({"dtype"}));
      if (!found->is_string())
        return graph_json_error("bad_attribute", path / "dtype", "expected a string");
      return attrs.data_type(found->get_ref<const std::string&>());
    }
    if (auto found = object.find("base64"); found != object.end()) {
      GRAPHPAT_RETURN_IF_ERROR(only({"base64"}));
      std::string bytes;
      if (!found->is_string() ||
          !absl::Base64Unescape(found->get_ref<const std::string&>(), &bytes)) {
        return graph_json_error("bad_attribute", path / "base64", "expected a base64 string");
      }
      return attrs.string(bytes);
    }
    if (auto found = object.find("map"); found != object.end()) {
      GRAPHPAT_RETURN_IF_ERROR(only({"map"}));
      if (!found->is_array())
        return graph_json_error("bad_attribute", path / "map", "expected an array");
      std::vector<std::pair<AttrValueId, AttrValueId>> entries;
      absl::flat_hash_set<AttrValueId> keys;
      for (std::size_t i = 0; i < found->size(); ++i) {
        const GraphJson& entry = (*found)[i];
        JsonPath map_path = path / "map";
        JsonPath entry_path = map_path / i;
        if (!entry.is_array() || entry.size() != 2) {
          return graph_json_error("bad_attribute", entry_path, "expected a [key, value] pair");
        }
        GRAPHPAT_ASSIGN_OR_RETURN(auto key, decode(entry[0], entry_path / "0", depth + 1, plain));
        // A map holds a key once (Relay text keeps the last of a repeated one).
        if (!keys.insert(key).second) {
          return graph_json_error("duplicate_key", entry_path / "0", "the key appears twice");
        }
        GRAPHPAT_ASSIGN_OR_RETURN(auto mapped,
                                  decode(entry[1], entry_path / "1", depth + 1, plain));
        entries.emplace_back(key, mapped);
      }
      return attrs.map(entries);
    }
    if (auto found = object.find("object"); found != object.end()) {
      GRAPHPAT_RETURN_IF_ERROR(only({"object", "fields"}));
      if (!found->is_string())
        return graph_json_error("bad_attribute", path / "object", "expected a type key string");
      std::vector<AttrField> fields;
      if (auto listed = object.find("fields"); listed != object.end()) {
        GRAPHPAT_ASSIGN_OR_RETURN(
            fields,
            decode_fields(
                *listed, path / "fields", [plain](std::string_view) { return plain; }, depth + 1));
      }
      return attrs.object(found->get_ref<const std::string&>(), fields);
    }
    return graph_json_error(
        "bad_attribute", path,
        "an object attribute value needs one of the fields \"int\", \"uint\", \"float\", "
        "\"dtype\", \"base64\", \"map\" or \"object\"");
  }

  Context& context_;
  std::uint32_t max_depth_;
};

/// Graph JSON's spelling of attribute values (the tagged forms at the top of this file).
class JsonAttrSyntax : public AttrSyntax {
 public:
  /// `plain`: what a plain number reads as where the value goes; a number of another kind is
  /// written tagged.
  explicit JsonAttrSyntax(PlainNumbers plain = PlainNumbers::kDefault)
      : AttrSyntax({.open = "{\"map\": [",
                    .close = "]}",
                    .entry_open = "[",
                    .entry_between = ", ",
                    .entry_close = "]"}),
        plain_(plain) {}

  bool scalar(std::string& out, const Context& context, AttrValueId id) const override {
    const AttrTable& attrs = context.attrs;
    const AttrRecord& record = attrs.get(id);
    switch (record.kind) {
      case AttrKind::kNull:
        out += "null";
        return true;
      case AttrKind::kBool:
        out += attrs.as_bool(id) ? "true" : "false";
        return true;
      case AttrKind::kInt:
        if (record.is_unsigned) {
          fmt::format_to(std::back_inserter(out), "{{\"uint\": {}, \"bits\": {}}}",
                         record.payload, record.bits);
        } else if (record.bits == (plain_ == PlainNumbers::kInt64 ? 64 : 32) &&
                   plain_ != PlainNumbers::kFloat32) {
          fmt::format_to(std::back_inserter(out), "{}", attrs.as_int(id));
        } else {
          fmt::format_to(std::back_inserter(out), "{{\"int\": {}, \"bits\": {}}}",
                         attrs.as_int(id), record.bits);
        }
        return true;
      case AttrKind::kFloat: {
        double value = attrs.as_float(id);
        std::string number = std::isnan(value)   ? fmt::format("\"{}\"", nan_text(value))
                             : std::isinf(value) ? (value < 0 ? "\"-inf\"" : "\"inf\"")
                                                 : json_float(value);
        if (plain_ == PlainNumbers::kFloat32 && record.bits == 32 && std::isfinite(value)) {
          // Read back rounded to float32: the float's own shortest digits do.
          out += json_float(static_cast<float>(value));
        } else if (plain_ == PlainNumbers::kDefault && record.bits == 64 && std::isfinite(value)) {
          out += number;
        } else {
          fmt::format_to(std::back_inserter(out), "{{\"float\": {}, \"bits\": {}}}", number,
                         record.bits);
        }
        return true;
      }
      case AttrKind::kDataType:
        out += "{\"dtype\": ";
        if (!append_json_string(out, attrs.text(id))) return false;
        out += '}';
        return true;
      default: {  // a string: bytes that are not UTF-8 (an ONNX tensor's proto) in base64
        std::string_view text = attrs.text(id);
        if (append_json_string(out, text)) return true;
        out += "{\"base64\": \"";
        out += absl::Base64Escape(absl::string_view(text.data(), text.size()));
        out += "\"}";
        return true;
      }
    }
  }
  bool open_object(std::string& out, const Context& context, AttrValueId id) const override {
    out += "{\"object\": ";
    if (!append_json_string(out, context.attrs.text(id))) return false;
    if (context.attrs.entry_count(id) > 0) out += ", \"fields\": {";
    return true;
  }
  bool field_key(std::string& out, std::string_view key) const override {
    if (!append_json_string(out, key)) return false;
    out += ": ";
    return true;
  }
  void close_object(std::string& out, const Context& context, AttrValueId id) const override {
    out += context.attrs.entry_count(id) > 0 ? "}}" : "}";
  }

 private:
  PlainNumbers plain_;
};

/// The first field key that an object inside value `id` (`id` itself included) holds twice, if
/// any: a JSON object holds a key once, so such a value has no graph JSON form. Iterative, each
/// interned value looked at once however often it is shared.
inline std::optional<std::string_view> repeated_field_key(const Context& context,
                                                          AttrValueId id) {
  const AttrTable& attrs = context.attrs;
  std::vector<AttrValueId> stack{id};
  absl::flat_hash_set<AttrValueId> seen{id};
  absl::flat_hash_set<StringId> keys;
  auto visit = [&](AttrValueId value) {
    if (seen.insert(value).second) stack.push_back(value);
  };
  while (!stack.empty()) {
    AttrValueId value = stack.back();
    stack.pop_back();
    switch (attrs.kind(value)) {
      case AttrKind::kArray:
        for (AttrValueId element : attrs.elements(value)) visit(element);
        break;
      case AttrKind::kMap:
        for (std::size_t i = 0; i < attrs.entry_count(value); ++i) {
          visit(attrs.map_key(value, i));
          visit(attrs.entry_value(value, i));
        }
        break;
      case AttrKind::kObject:
        keys.clear();
        for (std::size_t i = 0; i < attrs.entry_count(value); ++i) {
          if (!keys.insert(attrs.field_key(value, i)).second) {
            return context.strings.view(attrs.field_key(value, i));
          }
          visit(attrs.entry_value(value, i));
        }
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

/// Appends value `id` in graph JSON form; false when a string is not valid UTF-8.
inline bool append_attr_json(std::string& out, const Context& context, AttrValueId id) {
  return append_attr(out, context, id, JsonAttrSyntax());
}

/// Appends the fields of object value `id` as a JSON object (`{"key": value, ...}`):
/// `skip(i)` leaves field i out, `plain(i)` writes a dtype value of field i as a plain string,
/// `numbers(i)` says what a plain number in field i reads as (PlainNumbers). Returns false, at
/// the first string that is not valid UTF-8, when there is one.
template <class Skip, class Plain, class Numbers>
bool append_attr_fields(std::string& out, const Context& context, AttrValueId object, Skip skip,
                        Plain plain, Numbers numbers) {
  const AttrTable& attrs = context.attrs;
  out += '{';
  bool first = true;
  for (std::size_t i = 0; i < attrs.entry_count(object); ++i) {
    if (skip(i)) continue;
    if (!first) out += ", ";
    first = false;
    JsonAttrSyntax syntax(numbers(i));
    if (!syntax.field_key(out, context.strings.view(attrs.field_key(object, i)))) return false;
    AttrValueId value = attrs.entry_value(object, i);
    if (plain(i) && attrs.kind(value) == AttrKind::kDataType) {
      if (!append_json_string(out, attrs.text(value))) return false;
    } else if (!append_attr(out, context, value, syntax)) {
      return false;
    }
  }
  out += '}';
  return true;
}
template <class Skip, class Plain>
bool append_attr_fields(std::string& out, const Context& context, AttrValueId object, Skip skip,
                        Plain plain) {
  auto numbers = [](std::size_t) { return PlainNumbers::kDefault; };
  return append_attr_fields(out, context, object, skip, plain, numbers);
}
/// Every field, each value in graph JSON form.
inline bool append_attr_fields(std::string& out, const Context& context, AttrValueId object) {
  auto never = [](std::size_t) { return false; };
  return append_attr_fields(out, context, object, never, never);
}

}  // namespace graphpat::detail

#include "graphpat/detail/status_macros_undef.hpp"
