// How pattern values meet graph values: has_attr values against attribute values (Relay's
// MatchRetValue rules), has_type / has_dtype / has_shape against a node's stored type, and the
// Python / Relay spellings of pattern values used by describe() and explain().
//
//   bool same = graphpat::detail::value_matches(PatternValue{3, 3}, context, kernel_size);
//   std::string text = graphpat::detail::python_value(PatternValue("NCHW"));  // 'NCHW'
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graphpat/ir/context.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/pattern/pattern_graph.hpp"

namespace graphpat::detail {

/// Relay's MatchRetValue, without its aborts: an int matches an integer or bool attribute of
/// that value, a float a float, a string a string or dtype, a list an array element by element;
/// anything else (None, maps, objects) does not match. Recursion follows the nesting of one
/// value.
inline bool value_matches(const PatternValue& pattern, const Context& context, AttrValueId value) {
  if (!value.valid()) return false;
  const AttrTable& attrs = context.attrs;
  AttrKind kind = attrs.kind(value);
  switch (pattern.kind) {
    case PatternValue::Kind::kBool:
    case PatternValue::Kind::kInt:
      if (kind == AttrKind::kInt) return attrs.as_int(value) == pattern.integer;
      if (kind == AttrKind::kBool) return (attrs.as_bool(value) ? 1 : 0) == pattern.integer;
      return false;
    case PatternValue::Kind::kFloat:
      return kind == AttrKind::kFloat && attrs.as_float(value) == pattern.floating;
    case PatternValue::Kind::kString:
      return (kind == AttrKind::kString || kind == AttrKind::kDataType) &&
             attrs.text(value) == pattern.text;
    case PatternValue::Kind::kArray: {
      if (kind != AttrKind::kArray) return false;
      auto elements = attrs.elements(value);
      if (elements.size() != pattern.elements.size()) return false;
      for (std::size_t i = 0; i < elements.size(); ++i) {
        if (!value_matches(pattern.elements[i], context, elements[i])) return false;
      }
      return true;
    }
    case PatternValue::Kind::kNull:
      return false;
  }
  return false;
}

inline bool dim_matches(const ShapeDim& pattern, const Context& context, DimId dim_id) {
  const Dim& dim = context.types.get_dim(dim_id);
  switch (pattern.kind) {
    case ShapeDim::Kind::kInt:
      return dim.kind == Dim::Kind::kInt && dim.value == pattern.value;
    case ShapeDim::Kind::kAny:
      return dim.kind == Dim::Kind::kAny;
    case ShapeDim::Kind::kSymbol:
      return dim.kind == Dim::Kind::kSymbol && context.strings.view(dim.symbol) == pattern.symbol;
  }
  return false;
}

/// Whether tensor type `type` has exactly the dims `shape`.
inline bool shape_matches(const std::vector<ShapeDim>& shape, const Context& context, TypeId type) {
  auto dims = context.types.dims(type);
  if (dims.size() != shape.size()) return false;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (!dim_matches(shape[i], context, dims[i])) return false;
  }
  return true;
}

/// Structural equality of a pattern type and a stored type. Recursion follows one type.
inline bool type_matches(const PatternType& pattern, const Context& context, TypeId type) {
  if (!type.valid()) return false;
  const TypeTable& types = context.types;
  switch (pattern.kind) {
    case PatternType::Kind::kTensor:
      return types.kind(type) == TypeKind::kTensor &&
             context.strings.view(types.get(type).name) == pattern.dtype &&
             shape_matches(pattern.shape, context, type);
    case PatternType::Kind::kTuple: {
      if (types.kind(type) != TypeKind::kTuple) return false;
      auto fields = types.children(type);
      if (fields.size() != pattern.fields.size()) return false;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!type_matches(pattern.fields[i], context, fields[i])) return false;
      }
      return true;
    }
  }
  return false;
}

// ----- spellings -----------------------------------------------------------------------------

/// A Python string literal in single quotes, as repr() writes it.
inline std::string python_string(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7F) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

/// A float as Python's repr() writes it (shortest round-trip digits, always with a '.' or an
/// exponent so that it reads back as a float).
inline std::string python_float(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

/// A pattern value in Python syntax: None, True, 3, 0.5, 'NCHW', [3, 3].
inline std::string python_value(const PatternValue& value) {
  switch (value.kind) {
    case PatternValue::Kind::kNull:
      return "None";
    case PatternValue::Kind::kBool:
      return value.integer != 0 ? "True" : "False";
    case PatternValue::Kind::kInt:
      return fmt::format("{}", value.integer);
    case PatternValue::Kind::kFloat:
      return python_float(value.floating);
    case PatternValue::Kind::kString:
      return python_string(value.text);
    case PatternValue::Kind::kArray: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.elements.size(); ++i) {
        if (i > 0) out += ", ";
        out += python_value(value.elements[i]);
      }
      return out + "]";
    }
  }
  return "None";
}

inline std::string dim_text(const ShapeDim& dim, bool python) {
  switch (dim.kind) {
    case ShapeDim::Kind::kInt:
      return fmt::format("{}", dim.value);
    case ShapeDim::Kind::kAny:
      return python ? "relay.Any()" : "?";
    case ShapeDim::Kind::kSymbol:
      return python ? python_string(dim.symbol) : dim.symbol;
  }
  return "?";
}

/// `[1, 64, 56, 56]` (Python) or `(1, 64, 56, 56)` (Relay).
inline std::string shape_text(const std::vector<ShapeDim>& shape, bool python) {
  std::string out = python ? "[" : "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += dim_text(shape[i], python);
  }
  if (!python && shape.size() == 1) out += ',';
  return out + (python ? "]" : ")");
}

/// A pattern type in Relay's type syntax: `Tensor[(10, 10), float32]`, `float32`, `(T1, T2)`.
inline std::string relay_type_text(const PatternType& type) {
  if (type.kind == PatternType::Kind::kTuple) {
    std::string out = "(";
    for (std::size_t i = 0; i < type.fields.size(); ++i) {
      if (i > 0) out += ", ";
      out += relay_type_text(type.fields[i]);
    }
    if (type.fields.size() == 1) out += ',';
    return out + ")";
  }
  if (type.shape.empty()) return type.dtype;
  std::string out = "Tensor[(";
  for (std::size_t i = 0; i < type.shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += dim_text(type.shape[i], false);
  }
  return out + "), " + type.dtype + "]";
}

/// A pattern type as TVM's Python writes it: `relay.TensorType([10, 10], 'float32')`.
inline std::string python_type(const PatternType& type) {
  if (type.kind == PatternType::Kind::kTuple) {
    std::string out = "relay.TupleType([";
    for (std::size_t i = 0; i < type.fields.size(); ++i) {
      if (i > 0) out += ", ";
      out += python_type(type.fields[i]);
    }
    return out + "])";
  }
  return fmt::format("relay.TensorType({}, {})", shape_text(type.shape, true),
                     python_string(type.dtype));
}

}  // namespace graphpat::detail
