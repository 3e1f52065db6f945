// One validation of dtypes, shapes and scalar values, shared by every reader (Relay text, TVM
// JSON, graph JSON) so that they agree on what a type or a value may be: each check answers the
// problem in words, or nothing, and the reader places it (line:column, JSON path).
//
//   if (auto problem = graphpat::dtype_problem("int1024")) {
//     // *problem == "'int1024' is not a dtype: an integer has 1 to 64 bits"
//   }
//   graphpat::integer_problem(300, {graphpat::DataType::Code::kInt, 8, 1});
//   // "300 is out of range of int8"
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/tensor.hpp"

namespace graphpat {

/// The name of `dtype` ("int8", "uint1", "float16x4", "bool").
inline std::string dtype_name(const DataType& dtype) {
  std::string name;
  auto append_number = [&name](unsigned number) {
    fmt::format_int digits(number);
    name.append(digits.data(), digits.size());
  };
  switch (dtype.code) {
    case DataType::Code::kInt:
      name = "int";
      append_number(dtype.bits);
      break;
    case DataType::Code::kUInt:
      name = "uint";
      append_number(dtype.bits);
      break;
    case DataType::Code::kFloat:
      name = "float";
      append_number(dtype.bits);
      break;
    case DataType::Code::kBFloat:
      name = "bfloat";
      append_number(dtype.bits);
      break;
    case DataType::Code::kHandle:
      name = "handle";
      break;
    case DataType::Code::kBool:
      name = "bool";
      break;
  }
  if (dtype.lanes != 1) {
    name += 'x';
    append_number(dtype.lanes);
  }
  return name;
}

/// What is wrong with `dtype` as the dtype of a tensor type, a constant or a scalar value;
/// nullopt when it is one. A dtype of TVM's families (int, uint, float, bfloat, bool, handle)
/// has a width TVM can compute with: an integer 1 to 64 bits, a float 16, 32 or 64, a bfloat
/// 16, and at least one lane ("uint0", "float32x0", "int1024", "float8", "bool8" are not
/// dtypes). A name of no family ("o2flat32", a vendor's dtype) is not checked: it is kept as
/// written, and only a reader that must decode bytes of it refuses it.
inline std::optional<std::string> dtype_problem(std::string_view dtype) {
  std::optional<DataType> parsed = parse_dtype(dtype);
  if (!parsed) {
    for (std::string_view family : {"bfloat", "float", "uint", "int", "bool"}) {
      if (dtype.starts_with(family) && dtype.size() > family.size() &&
          dtype[family.size()] >= '0' && dtype[family.size()] <= '9') {
        return fmt::format("'{}' is not a dtype", detail::escape_unprintable(dtype));
      }
    }
    return std::nullopt;
  }
  auto not_one = [&](std::string_view why) {
    return fmt::format("'{}' is not a dtype: {}", dtype, why);
  };
  switch (parsed->code) {
    case DataType::Code::kInt:
    case DataType::Code::kUInt:
      if (parsed->bits > 64) return not_one("an integer has 1 to 64 bits");
      break;
    case DataType::Code::kFloat:
      if (parsed->bits != 16 && parsed->bits != 32 && parsed->bits != 64) {
        return not_one("a float has 16, 32 or 64 bits");
      }
      break;
    case DataType::Code::kBFloat:
      if (parsed->bits != 16) return not_one("a bfloat has 16 bits");
      break;
    case DataType::Code::kHandle:
    case DataType::Code::kBool:
      break;
  }
  return std::nullopt;
}

/// "WRITTEN is out of range of DTYPE": the one wording of a value its dtype cannot hold.
inline std::string out_of_range_problem(std::string_view written, std::string_view dtype) {
  return fmt::format("{} is out of range of {}", written, dtype);
}

/// Whether `dtype` is a dtype of one lane that dtype_problem accepts by its name: decided on
/// the fields, since readers ask for every scalar they read and naming it would format a string.
inline bool accepted_scalar_dtype(const DataType& dtype) {
  if (dtype.lanes != 1) return false;
  switch (dtype.code) {
    case DataType::Code::kInt:
    case DataType::Code::kUInt:
      return dtype.bits >= 1 && dtype.bits <= 64;
    case DataType::Code::kFloat:
      return dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64;
    case DataType::Code::kBFloat:
      return dtype.bits == 16;
    case DataType::Code::kHandle:
    case DataType::Code::kBool:
      return true;
  }
  return false;
}

/// What is wrong with `dtype` as the dtype of one scalar value: a dtype of one lane.
inline std::optional<std::string> scalar_dtype_problem(const DataType& dtype) {
  if (accepted_scalar_dtype(dtype)) return std::nullopt;
  if (auto problem = dtype_problem(dtype_name(dtype))) return problem;
  if (dtype.lanes != 1) return fmt::format("a scalar cannot be a {}", dtype_name(dtype));
  return std::nullopt;
}

/// What is wrong with `extent` as a known dimension of a tensor type or a constant's shape.
inline std::optional<std::string> extent_problem(std::int64_t extent) {
  if (extent < 0) return fmt::format("dimension {} is negative", extent);
  return std::nullopt;
}

/// What is wrong with the integer `value` as a scalar of `dtype` (an int or uint of its bits,
/// or a bool: 0 or 1); a value of a uint64 is its bits read as an int64.
inline std::optional<std::string> integer_problem(std::int64_t value, const DataType& dtype) {
  if (auto problem = scalar_dtype_problem(dtype)) return problem;
  auto out_of_range = [&] {
    return dtype.code == DataType::Code::kUInt
               ? out_of_range_problem(fmt::format("{}", static_cast<std::uint64_t>(value)),
                                      dtype_name(dtype))
               : out_of_range_problem(fmt::format("{}", value), dtype_name(dtype));
  };
  switch (dtype.code) {
    case DataType::Code::kInt:
      if (dtype.bits < 64) {
        std::int64_t limit = std::int64_t{1} << (dtype.bits - 1);
        if (value < -limit || value >= limit) return out_of_range();
      }
      return std::nullopt;
    case DataType::Code::kUInt:
      if (dtype.bits < 64 && (value < 0 || value >= (std::int64_t{1} << dtype.bits))) {
        return out_of_range();
      }
      return std::nullopt;
    case DataType::Code::kBool:
      if (value != 0 && value != 1) return out_of_range();
      return std::nullopt;
    default:
      return fmt::format("an integer cannot be a {}", dtype_name(dtype));
  }
}

/// What is wrong with the float `value` as a scalar of `dtype`: a finite value whose magnitude
/// rounds to infinity at that width (1e39 as a float32, 70000 as a float16) is out of its
/// range. NaN and the infinities, written as such, are values of every float dtype.
inline std::optional<std::string> float_problem(double value, const DataType& dtype) {
  if (auto problem = scalar_dtype_problem(dtype)) return problem;
  // The least magnitude that rounds to infinity: the largest finite value plus half its ulp.
  double overflow = 0;
  switch (dtype.code) {
    case DataType::Code::kFloat:
      overflow = dtype.bits == 16   ? 65520.0
                 : dtype.bits == 32 ? std::ldexp(1.0, 128) - std::ldexp(1.0, 103)
                                    : 0;
      break;
    case DataType::Code::kBFloat:
      overflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 119);
      break;
    default:
      return fmt::format("a float cannot be a {}", dtype_name(dtype));
  }
  if (overflow != 0 && std::isfinite(value) && std::fabs(value) >= overflow) {
    return out_of_range_problem(fmt::format("{}", value), dtype_name(dtype));
  }
  return std::nullopt;
}

}  // namespace graphpat
