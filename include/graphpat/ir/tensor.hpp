// Constant tensors: a dtype, a shape and (optionally) the bytes. The bytes are shared, never
// copied: a graph produced by a pass points at the same buffer as its input, and an importer
// can alias into the buffer it decoded. A constant read from Relay text without its metadata
// section has a dtype and shape but no bytes.
//
//   auto bytes = std::make_shared<std::vector<std::uint8_t>>(16);
//   graphpat::Tensor weights{.dtype = strings.intern("float32"), .shape = {2, 2},
//                            .data = graphpat::share_bytes(bytes)};
//   graphpat::TensorId id = context.tensors.add(std::move(weights));
#pragma once

#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/detail/literal.hpp"
#include "graphpat/ir/ids.hpp"

namespace graphpat {

/// A TVM/DLPack dtype split into its parts: "float32x4" is {kFloat, 32, 4}; "bool" is
/// {kBool, 1, 1}.
struct DataType {
  enum class Code : std::uint8_t { kInt, kUInt, kFloat, kBFloat, kHandle, kBool };
  Code code = Code::kFloat;
  std::uint16_t bits = 32;
  std::uint16_t lanes = 1;

  /// Bytes one element takes in a tensor's buffer (a bool takes one byte).
  [[nodiscard]] std::uint32_t element_bytes() const {
    return static_cast<std::uint32_t>((bits + 7) / 8) * lanes;
  }
  friend bool operator==(const DataType&, const DataType&) = default;
};

/// Parses a dtype string ("float32", "int8", "uint1", "bool", "bfloat16", "float16x4",
/// "handle"); nullopt for anything else, including the void dtype "".
inline std::optional<DataType> parse_dtype(std::string_view text) {
  using detail::is_literal;
  using detail::starts_with_literal;
  if (is_literal(text, "bool")) return DataType{DataType::Code::kBool, 1, 1};
  if (is_literal(text, "handle")) return DataType{DataType::Code::kHandle, 64, 1};
  DataType type{DataType::Code::kInt, 0, 1};
  std::string_view rest;
  if (starts_with_literal(text, "bfloat")) {
    type.code = DataType::Code::kBFloat;
    rest = text.substr(6);
  } else if (starts_with_literal(text, "float")) {
    type.code = DataType::Code::kFloat;
    rest = text.substr(5);
  } else if (starts_with_literal(text, "uint")) {
    type.code = DataType::Code::kUInt;
    rest = text.substr(4);
  } else if (starts_with_literal(text, "int")) {
    rest = text.substr(3);
  } else {
    return std::nullopt;
  }
  auto parse_number = [](std::string_view digits, std::uint16_t& out) {
    if (digits.empty()) return false;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return error == std::errc() && end == digits.data() + digits.size() && out > 0;
  };
  std::size_t x = rest.find('x');
  if (!parse_number(rest.substr(0, x), type.bits)) return std::nullopt;
  if (x != std::string_view::npos && !parse_number(rest.substr(x + 1), type.lanes)) {
    return std::nullopt;
  }
  return type;
}

/// The bytes a tensor of `shape` with `element_bytes`-byte elements takes, checked: nullopt
/// when the count is 2^64 or more or an extent is negative. An extent of 0 makes it 0 whatever
/// the other extents are (`{2^62, 4}` of 4-byte elements is nullopt, `{2^62, 4, 0}` is 0).
inline std::optional<std::uint64_t> checked_tensor_bytes(std::span<const std::int64_t> shape,
                                                         std::uint64_t element_bytes) {
  for (std::int64_t extent : shape) {
    if (extent < 0) return std::nullopt;
    if (extent == 0) return 0;
  }
  std::uint64_t bytes = element_bytes;
  for (std::int64_t extent : shape) {
    if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(extent), &bytes)) {
      return std::nullopt;
    }
  }
  return bytes;
}

/// Shared, immutable bytes of a tensor.
struct TensorBytes {
  std::shared_ptr<const std::uint8_t> data;  // may alias into a larger buffer
  std::size_t size = 0;

  [[nodiscard]] std::span<const std::uint8_t> view() const { return {data.get(), size}; }
};

/// Shares a whole byte vector as tensor bytes, without copying it.
inline TensorBytes share_bytes(std::shared_ptr<const std::vector<std::uint8_t>> buffer) {
  std::size_t size = buffer->size();
  const std::uint8_t* first = buffer->data();
  return TensorBytes{std::shared_ptr<const std::uint8_t>(std::move(buffer), first), size};
}

/// Shares a whole decoded string (base64 output) as tensor bytes, without copying it.
inline TensorBytes share_bytes(std::shared_ptr<const std::string> buffer) {
  std::size_t size = buffer->size();
  const auto* first = reinterpret_cast<const std::uint8_t*>(buffer->data());
  return TensorBytes{std::shared_ptr<const std::uint8_t>(std::move(buffer), first), size};
}

/// A constant's value. `data` is empty when only the type is known.
struct Tensor {
  StringId dtype;
  std::vector<std::int64_t> shape;
  std::optional<TensorBytes> data;

  [[nodiscard]] bool has_data() const { return data.has_value(); }
};

/// The tensors of a context, addressed by TensorId. Tensors are not interned: two constants
/// with equal bytes are different constants until a pass (CSE) decides otherwise.
class TensorTable {
 public:
  TensorId add(Tensor tensor) {
    tensors_.push_back(std::move(tensor));
    return TensorId(static_cast<std::uint32_t>(tensors_.size() - 1));
  }
  [[nodiscard]] const Tensor& get(TensorId id) const { return tensors_[id.index()]; }
  [[nodiscard]] std::size_t size() const { return tensors_.size(); }
  [[nodiscard]] bool contains(TensorId id) const { return id.valid() && id.index() < size(); }

 private:
  std::vector<Tensor> tensors_;
};

}  // namespace graphpat
