// Relay numeric literals (docs/relay-formats.md §1.2, §1.5): reading `1e-05f`, `3i64`, `-inff`,
// `nanf64` into a value with its width, and the scalar constants they denote (0-d tensors with
// little-endian bytes), plus the reverse: a 0-d tensor's literal text, or nothing when TVM would
// print it as a meta reference.
//
//   auto literal = graphpat::detail::read_number("-0.5f16");  // float, 16 bits, -0.5
//   std::optional<std::string> text = graphpat::detail::scalar_literal(context, tensor);  // "3i64"
#pragma once

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/ir/context.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/validation.hpp"

namespace graphpat::detail {

/// A numeric literal as written: an integer or a float, with its width. `bits` 0 on a float
/// means "no suffix" (only attribute values accept that: TVM prints bfloat16 FloatImms so).
struct NumberLiteral {
  bool is_float = false;
  std::uint8_t bits = 32;
  std::int64_t integer = 0;
  double floating = 0;
};

/// Reads a literal token's text; nullopt with `error` set when it is malformed.
inline std::optional<NumberLiteral> read_number(std::string_view text, std::string& error,
                                                bool allow_unsuffixed_float = false) {
  // Most literals are small decimal integers (`1`, `-1`, `64`): nine digits or fewer, with at
  // most one sign, fit int32, which is what the general reading below gives them.
  std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
  if (digits.size() <= 9) {
    if (std::optional<std::uint32_t> magnitude = parse_decimal<std::uint32_t>(digits)) {
      std::int64_t value = *magnitude;
      return NumberLiteral{
          .is_float = false, .bits = 32, .integer = text.starts_with('-') ? -value : value};
    }
  }
  bool negative = false;
  while (!text.empty() && text.front() == '-') {
    negative = !negative;
    text.remove_prefix(1);
  }
  std::size_t suffix_at = text.find_first_of("fi");
  if (text.starts_with("inf") || text.starts_with("nan")) suffix_at = 3;
  std::string_view body = text.substr(0, suffix_at);
  std::string_view suffix =
      suffix_at == std::string_view::npos ? std::string_view() : text.substr(suffix_at);
  // The width a suffix names, or -1 (an int, not an optional: GCC 12 warns falsely about
  // optional<uint8_t> here).
  auto width = [&](std::string_view digits, int fallback) -> int {
    if (digits.empty()) return fallback;
    if (digits == "8") return 8;
    if (digits == "16") return 16;
    if (digits == "32") return 32;
    if (digits == "64") return 64;
    return -1;
  };
  NumberLiteral literal;
  bool looks_float = body.find_first_of(".eE") != std::string_view::npos;
  if (suffix.starts_with("f") || (allow_unsuffixed_float && suffix.empty() && looks_float)) {
    literal.is_float = true;
    int bits = suffix.empty() ? 0 : width(suffix.substr(1), 32);
    if (bits < 0 || bits == 8) {
      error = "bad float width";
      return std::nullopt;
    }
    literal.bits = static_cast<std::uint8_t>(bits);
    if (body == "inf") {
      literal.floating = std::numeric_limits<double>::infinity();
    } else if (body == "nan") {
      literal.floating = std::numeric_limits<double>::quiet_NaN();
    } else {
      std::string copy(body);
      char* end = nullptr;
      literal.floating = std::strtod(copy.c_str(), &end);
      if (copy.empty() || end != copy.c_str() + copy.size() ||
          copy.find_first_not_of("0123456789.eE+-") != std::string::npos) {
        error = "malformed float literal";
        return std::nullopt;
      }
      // Written finite and read as infinite, it is beyond a double and so every float dtype.
      DataType dtype{DataType::Code::kFloat, static_cast<std::uint16_t>(bits == 0 ? 64 : bits), 1};
      if (std::isinf(literal.floating) || float_problem(literal.floating, dtype)) {
        error =
            out_of_range_problem(fmt::format("{}{}", negative ? "-" : "", body), dtype_name(dtype));
        return std::nullopt;
      }
    }
    if (negative) literal.floating = -literal.floating;
    return literal;
  }
  int bits = suffix.empty() ? 32 : width(suffix.substr(1), 32);
  if (!suffix.empty() && !suffix.starts_with("i")) bits = -1;
  std::uint64_t magnitude = 0;
  auto [end, status] = std::from_chars(body.data(), body.data() + body.size(), magnitude);
  bool beyond_64_bits = status == std::errc::result_out_of_range ||
                        magnitude > (std::uint64_t{1} << 63) - (negative ? 0 : 1);
  if (body.empty() || (status != std::errc() && !beyond_64_bits) ||
      end != body.data() + body.size() || bits < 0) {
    error = looks_float && suffix.empty()         ? "a float literal needs an 'f' suffix"
            : bits < 0 && suffix.starts_with("i") ? "bad integer width"
                                                  : "malformed integer literal";
    return std::nullopt;
  }
  // Too big for int32 and no suffix: int64, as TVM does.
  if (suffix.empty() &&
      (beyond_64_bits || magnitude > (std::uint64_t{1} << 31) - (negative ? 0 : 1))) {
    bits = 64;
  }
  DataType dtype{DataType::Code::kInt, static_cast<std::uint16_t>(bits), 1};
  if (beyond_64_bits) {
    error = out_of_range_problem(fmt::format("{}{}", negative ? "-" : "", body), dtype_name(dtype));
    return std::nullopt;
  }
  literal.bits = static_cast<std::uint8_t>(bits);
  // Unlike TVM, INT64_MIN is readable: the magnitude is read apart from its sign.
  literal.integer = negative ? static_cast<std::int64_t>(0 - magnitude)
                             : static_cast<std::int64_t>(magnitude);
  if (auto problem = integer_problem(literal.integer, dtype)) {
    error = *problem;
    return std::nullopt;
  }
  return literal;
}

/// IEEE half precision from a double, rounding to nearest even.
inline std::uint16_t to_half(double value) {
  float f = static_cast<float>(value);
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (bits >> 16) & 0x8000U;
  std::uint32_t exponent = (bits >> 23) & 0xFFU;
  std::uint32_t mantissa = bits & 0x7FFFFFU;
  if (exponent == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00U | (mantissa ? 0x200U : 0));
  int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00U);
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000U;
    std::uint32_t shift = static_cast<std::uint32_t>(14 - e);
    std::uint32_t half = mantissa >> shift;
    std::uint32_t rest = mantissa & ((1U << shift) - 1);
    std::uint32_t midpoint = 1U << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1U))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  std::uint32_t rest = mantissa & 0x1FFFU;
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U))) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

inline double from_half(std::uint16_t half) {
  std::uint32_t sign = (half & 0x8000U) << 16;
  std::uint32_t exponent = (half >> 10) & 0x1FU;
  std::uint32_t mantissa = half & 0x3FFU;
  std::uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000U | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    double value = std::ldexp(static_cast<double>(mantissa), -24);
    return sign ? -value : value;
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

/// The 0-d tensor a scalar literal denotes (`True`/`False` are bool scalars).
inline Tensor scalar_tensor(Context& context, const NumberLiteral& literal) {
  auto bytes = std::make_shared<std::vector<std::uint8_t>>();
  auto put = [&](auto value) {
    bytes->resize(sizeof(value));
    std::memcpy(bytes->data(), &value, sizeof(value));  // little-endian hosts only, as TVM
  };
  std::string_view dtype;
  if (literal.is_float) {
    switch (literal.bits) {
      case 16:
        dtype = "float16";
        put(to_half(literal.floating));
        break;
      case 64:
        dtype = "float64";
        put(literal.floating);
        break;
      default:
        dtype = "float32";
        put(static_cast<float>(literal.floating));
    }
  } else {
    switch (literal.bits) {
      case 8:
        dtype = "int8";
        put(static_cast<std::int8_t>(literal.integer));
        break;
      case 16:
        dtype = "int16";
        put(static_cast<std::int16_t>(literal.integer));
        break;
      case 64:
        dtype = "int64";
        put(literal.integer);
        break;
      default:
        dtype = "int32";
        put(static_cast<std::int32_t>(literal.integer));
    }
  }
  return Tensor{context.strings.intern(dtype), {}, share_bytes(std::move(bytes))};
}

inline Tensor bool_tensor(Context& context, bool value) {
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(1, value ? 1 : 0);
  return Tensor{context.strings.intern("bool"), {}, share_bytes(std::move(bytes))};
}

/// The literal TVM prints for a 0-d constant of an inlinable dtype (§1.5), or nullopt when it
/// prints the constant as `meta[relay.Constant][i]` instead (other dtypes, any rank, no bytes).
inline std::optional<std::string> scalar_literal(const Context& context, const Tensor& tensor) {
  if (!tensor.shape.empty() || !tensor.has_data()) return std::nullopt;
  std::string_view dtype = context.strings.view(tensor.dtype);
  auto bytes = tensor.data->view();
  auto get = [&](auto value) -> std::optional<decltype(value)> {
    if (bytes.size() != sizeof(value)) return std::nullopt;
    std::memcpy(&value, bytes.data(), sizeof(value));
    return value;
  };
  if (dtype == "int32") {
    if (auto v = get(std::int32_t{})) return format_int(*v, 32, false);
  } else if (dtype == "int64") {
    if (auto v = get(std::int64_t{})) return format_int(*v, 64, false);
  } else if (dtype == "int16") {
    if (auto v = get(std::int16_t{})) return format_int(*v, 16, false);
  } else if (dtype == "float32") {
    if (auto v = get(float{})) return format_float(*v, 32);
  } else if (dtype == "float64") {
    if (auto v = get(double{})) return format_float(*v, 64);
  } else if (dtype == "float16") {
    if (auto v = get(std::uint16_t{})) return format_float(from_half(*v), 16);
  } else if (dtype == "bool") {
    if (auto v = get(std::uint8_t{})) return std::string(*v ? "True" : "False");
  }
  return std::nullopt;
}

}  // namespace graphpat::detail
