// TVM's NDArray blob, as `b64ndarrays` entries hold it (docs/relay-formats.md §3.6): base64 of
// a header (magic, device, ndim, dtype code/bits/lanes, shape) followed by the byte count and
// the row-major little-endian data. Decoding checks every header field and keeps the data as
// shared bytes that alias the decoded buffer (one decode per blob, no copy per constant).
//
//   absl::StatusOr<graphpat::relay::detail::DecodedTensor> tensor =
//       graphpat::relay::detail::decode_ndarray(blob, "b64ndarrays[0]");
//   // tensor->dtype == "float32", tensor->shape == {2, 2}, tensor->bytes.size == 16
//   std::string again = graphpat::relay::detail::encode_ndarray("float32", {2, 2}, bytes);
#pragma once

#include <absl/status/statusor.h>
#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/ir/tensor.hpp"

namespace graphpat::relay::detail {

inline constexpr std::uint64_t kNDArrayMagic = 0xDD5E40F096B4A13FULL;
inline constexpr std::int32_t kDLCPU = 1;
/// More dimensions than any real tensor has; a header claiming more is corrupt.
inline constexpr std::int32_t kMaxTensorRank = 64;

/// DLPack type codes as TVM writes them.
enum DLTypeCode : std::uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLHandle = 3,
                                 kDLBfloat = 4 };

struct DecodedTensor {
  std::string dtype;
  std::vector<std::int64_t> shape;
  TensorBytes bytes;
};

/// The TVM dtype string of a DLPack (code, bits, lanes), or nullopt for one graphpat does not
/// store (handles, custom codes, widths that are not whole bytes other than bool).
inline std::optional<std::string> dtype_name(std::uint8_t code, std::uint8_t bits,
                                             std::uint16_t lanes) {
  std::string name;
  bool whole_bytes = bits == 8 || bits == 16 || bits == 32 || bits == 64;
  if (code == kDLUInt && bits == 1) {
    name = "bool";
  } else if (code == kDLInt && whole_bytes) {
    name = fmt::format("int{}", bits);
  } else if (code == kDLUInt && whole_bytes) {
    name = fmt::format("uint{}", bits);
  } else if (code == kDLFloat && (bits == 16 || bits == 32 || bits == 64)) {
    name = fmt::format("float{}", bits);
  } else if (code == kDLBfloat && bits == 16) {
    name = "bfloat16";
  } else {
    return std::nullopt;
  }
  if (lanes == 0) return std::nullopt;
  if (lanes > 1) name += fmt::format("x{}", lanes);
  return name;
}

/// Little-endian reads from a byte string; `ok` turns false on the first read past the end.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  T read() {
    if (bytes_.size() - position_ < sizeof(T) || !ok) {
      ok = false;
      return T{};
    }
    std::uint64_t value = 0;
    for (std::size_t i = sizeof(T); i-- > 0;) {
      value = (value << 8) | static_cast<unsigned char>(bytes_[position_ + i]);
    }
    position_ += sizeof(T);
    return static_cast<T>(value);
  }
  [[nodiscard]] std::size_t position() const { return position_; }
  [[nodiscard]] std::size_t remaining() const { return bytes_.size() - position_; }
  bool ok = true;

 private:
  std::string_view bytes_;
  std::size_t position_ = 0;
};

/// Decodes one `b64ndarrays` entry; `where` names it in errors. A tensor of more than
/// `max_bytes` bytes is refused (`tensor_too_large`) before its data is looked at.
inline absl::StatusOr<DecodedTensor> decode_ndarray(
    std::string_view base64, std::string_view where,
    std::uint64_t max_bytes = kDefaultLimits.max_tensor_bytes) {
  auto raw = std::make_shared<std::string>();
  if (!absl::Base64Unescape(absl::string_view(base64.data(), base64.size()), raw.get())) {
    return json_error("bad_base64", where, "not valid base64");
  }
  ByteReader reader(*raw);
  auto truncated = [&](std::string_view part) {
    return json_error("bad_tensor", where,
                      fmt::format("truncated: the blob ends inside its {} ({} bytes in all)",
                                  part, raw->size()));
  };
  std::uint64_t magic = reader.read<std::uint64_t>();
  reader.read<std::uint64_t>();  // reserved
  auto device_type = reader.read<std::int32_t>();
  reader.read<std::int32_t>();  // device id
  auto ndim = reader.read<std::int32_t>();
  auto code = reader.read<std::uint8_t>();
  auto bits = reader.read<std::uint8_t>();
  auto lanes = reader.read<std::uint16_t>();
  if (!reader.ok) return truncated("header");
  if (magic != kNDArrayMagic) {
    return json_error("bad_tensor", where,
                      fmt::format("magic number {:#018x} is not TVM's NDArray magic {:#018x}",
                                  magic, kNDArrayMagic));
  }
  if (device_type != kDLCPU) {
    return json_error("bad_tensor", where,
                      fmt::format("device type {} is not CPU (1)", device_type));
  }
  std::optional<std::string> dtype = dtype_name(code, bits, lanes);
  if (!dtype) {
    return json_error("unsupported_dtype", where,
                      fmt::format("dtype code {} with {} bits and {} lanes", code, bits, lanes));
  }
  if (ndim < 0 || ndim > kMaxTensorRank) {
    return json_error("bad_shape", where,
                      fmt::format("rank {} is outside 0..{}", ndim, kMaxTensorRank));
  }
  DecodedTensor tensor;
  tensor.dtype = std::move(*dtype);
  std::uint64_t elements = 1;
  for (std::int32_t i = 0; i < ndim; ++i) {
    auto extent = reader.read<std::int64_t>();
    if (!reader.ok) return truncated("shape");
    if (extent < 0) {
      return json_error("bad_shape", where, fmt::format("dimension {} is {}", i, extent));
    }
    auto extent_u = static_cast<std::uint64_t>(extent);
    if (extent_u != 0 && elements > std::numeric_limits<std::uint32_t>::max() / extent_u) {
      return json_error("bad_shape", where,
                        "the shape has more than 2^32 elements, more than any real constant");
    }
    elements *= extent_u;
    tensor.shape.push_back(extent);
  }
  auto byte_count = reader.read<std::int64_t>();
  if (!reader.ok) return truncated("byte count");
  std::uint64_t element_bytes = static_cast<std::uint64_t>((bits + 7) / 8) * lanes;
  std::uint64_t expected = elements * element_bytes;
  if (expected > max_bytes) {
    return json_error("tensor_too_large", where,
                      graphpat::detail::tensor_too_large_problem("the array", expected, max_bytes));
  }
  if (byte_count < 0 || static_cast<std::uint64_t>(byte_count) != expected) {
    return json_error("bad_tensor", where,
                      fmt::format("byte count {} does not match the shape ({} elements of {} "
                                  "bytes = {})",
                                  byte_count, elements, element_bytes, expected));
  }
  if (reader.remaining() != expected) {
    return json_error("bad_tensor", where,
                      fmt::format("{} data bytes follow the header, the byte count says {}",
                                  reader.remaining(), expected));
  }
  const auto* first = reinterpret_cast<const std::uint8_t*>(raw->data() + reader.position());
  tensor.bytes = TensorBytes{std::shared_ptr<const std::uint8_t>(raw, first),
                             static_cast<std::size_t>(expected)};
  return tensor;
}

/// The DLPack (code, bits, lanes) of a dtype string; nullopt for one TVM cannot store.
inline std::optional<std::array<std::uint32_t, 3>> dlpack_type(std::string_view dtype) {
  std::optional<DataType> parsed = parse_dtype(dtype);
  if (!parsed) return std::nullopt;
  std::uint32_t code = 0;
  switch (parsed->code) {
    case DataType::Code::kInt:
      code = kDLInt;
      break;
    case DataType::Code::kUInt:
    case DataType::Code::kBool:
      code = kDLUInt;
      break;
    case DataType::Code::kFloat:
      code = kDLFloat;
      break;
    case DataType::Code::kBFloat:
      code = kDLBfloat;
      break;
    case DataType::Code::kHandle:
      code = kDLHandle;
      break;
  }
  return std::array<std::uint32_t, 3>{code, parsed->bits, parsed->lanes};
}

/// The base64 blob of a tensor (always saved as a CPU array, as TVM does).
inline std::string encode_ndarray(std::array<std::uint32_t, 3> type,
                                  std::span<const std::int64_t> shape,
                                  std::span<const std::uint8_t> data) {
  std::string raw;
  auto put = [&raw](std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) raw.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  };
  put(kNDArrayMagic, 8);
  put(0, 8);
  put(static_cast<std::uint32_t>(kDLCPU), 4);
  put(0, 4);
  put(shape.size(), 4);
  put(type[0], 1);
  put(type[1], 1);
  put(type[2], 2);
  for (std::int64_t extent : shape) put(static_cast<std::uint64_t>(extent), 8);
  put(data.size(), 8);
  raw.append(reinterpret_cast<const char*>(data.data()), data.size());
  std::string out;
  absl::Base64Escape(absl::string_view(raw), &out);
  return out;
}

}  // namespace graphpat::relay::detail
