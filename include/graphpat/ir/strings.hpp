// Interned strings: names, dtypes, attribute keys and string values are stored once per
// context, so comparing two of them is comparing two StringIds. A pool may sit on a frozen
// base pool (a dialect's op and attribute names) whose strings keep their ids and are shared,
// not copied, by every context of the dialect.
//
//   graphpat::StringPool strings;
//   graphpat::StringId a = strings.intern("nn.conv2d");
//   assert(strings.intern("nn.conv2d") == a && strings.view(a) == "nn.conv2d");
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/detail/literal.hpp"
#include "graphpat/detail/text_map.hpp"
#include "graphpat/ir/ids.hpp"

namespace graphpat {

/// Owns each distinct string once; views stay valid for the pool's lifetime.
class StringPool {
 public:
  StringPool() = default;
  /// A pool that starts with every string of `base`, under the same ids. `base` must outlive
  /// this pool and must not change while it lives.
  explicit StringPool(const StringPool* base)
      : base_(base), base_size_(base->size()), control_bytes_(base->control_bytes_) {}
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  /// The id of `text`, adding it on first use.
  GRAPHPAT_INSTANTIATED_ON_CALL StringId intern(std::string_view text) {
    StringId found = find(text);
    if (found.valid()) return found;
    StringId id(static_cast<std::uint32_t>(size()));
    const std::string_view stored = store(text);
    views_.push_back(stored);
    index_.emplace(stored, id);
    for (char c : stored) {
      if (int bit = control_bit(static_cast<unsigned char>(c)); bit >= 0) {
        control_bytes_ |= std::uint64_t{1} << bit;
      }
    }
    return id;
  }

  /// The id of `text` if it was interned, else an invalid id.
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] StringId find(std::string_view text) const {
    return find(text, index_.hash_function()(text));
  }

  [[nodiscard]] std::string_view view(StringId id) const {
    return id.index() < base_size_ ? base_->view(id) : views_[id.index() - base_size_];
  }
  [[nodiscard]] std::size_t size() const { return base_size_ + views_.size(); }
  [[nodiscard]] bool contains(StringId id) const { return id.valid() && id.index() < size(); }

  /// Whether some string of the pool holds the ASCII control byte `byte` (below 0x20, or
  /// 0x7F); false for any other byte. Answered without scanning the strings.
  [[nodiscard]] bool holds_control_byte(unsigned char byte) const {
    int bit = control_bit(byte);
    return bit >= 0 && (control_bytes_ >> bit & 1) != 0;
  }

 private:
  // Bit 0-31 for bytes 0x00-0x1F, bit 32 for 0x7F, -1 for a byte that is not a control byte.
  static int control_bit(unsigned char byte) { return byte < 0x20 ? byte : byte == 0x7F ? 32 : -1; }

  // find() with the text hashed once for this pool and its base (their indexes hash alike).
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] StringId find(std::string_view text,
                                                            std::size_t hash) const {
    if (base_ != nullptr) {
      StringId in_base = base_->find(text, hash);
      if (in_base.valid()) return in_base;
    }
    auto found = index_.find(text, hash);
    return found == index_.end() ? StringId() : found->second;
  }

  // A copy of `text` in the pool's blocks, which never move: the strings one after another,
  // with one allocation per block instead of one per string longer than std::string holds
  // inline (most names of a model are), each block twice the last, up to kMaxBlock bytes.
  std::string_view store(std::string_view text) {
    if (text.empty()) return {};
    if (text.size() > block_left_) {
      next_block_ = std::min(2 * next_block_, kMaxBlock);
      const std::size_t size = std::max(next_block_, text.size());
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
      block_free_ = blocks_.back().get();
      block_left_ = size;
    }
    char* stored = block_free_;
    graphpat::detail::copy_bytes(stored, text.data(), text.size());
    block_free_ += text.size();
    block_left_ -= text.size();
    return {stored, text.size()};
  }
  static constexpr std::size_t kMaxBlock = std::size_t{64} << 10;

  const StringPool* base_ = nullptr;
  std::size_t base_size_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_free_ = nullptr;
  std::size_t block_left_ = 0;
  std::size_t next_block_ = 256;         // half the first block's size
  std::vector<std::string_view> views_;  // each string, by id less base_size_
  detail::TextMap<StringId> index_;
  std::uint64_t control_bytes_ = 0;  // the control bytes some string holds, by control_bit()
};

namespace detail {

/// The ids of the few names a reader or writer asks one pool for again and again (literals such
/// as "span" or "relay.Call"): each id is remembered by the address of the name's text, so that
/// a hit costs a compare of the name instead of hashing it. Another name in the same slot is
/// looked up in the pool and takes the slot.
///
///   graphpat::detail::NameCache cache;
///   graphpat::StringId span = cache.intern(pool, "span");  // pool.intern("span")
class NameCache {
 public:
  /// `pool.intern(name)`; `pool` is the same pool at every call.
  GRAPHPAT_INSTANTIATED_ON_CALL StringId intern(StringPool& pool, std::string_view name) {
    StringId& known = slot(name);
    if (!known.valid() || !graphpat::detail::same_text(pool.view(known), name))
      known = pool.intern(name);
    return known;
  }
  /// `pool.find(name)`; `pool` is the same pool at every call.
  GRAPHPAT_INSTANTIATED_ON_CALL [[gnu::always_inline]] StringId find(const StringPool& pool,
                                                                     std::string_view name) {
    StringId& known = slot(name);
    if (!known.valid() || !graphpat::detail::same_text(pool.view(known), name))
      known = pool.find(name);
    return known;
  }

 private:
  StringId& slot(std::string_view name) {
    // Fibonacci hashing of the address: literals lie a few bytes apart.
    const std::uint64_t address = reinterpret_cast<std::uintptr_t>(name.data());
    return ids_[(address * 0x9E3779B97F4A7C15ULL) >> (64 - kSlotBits)];
  }

  static constexpr int kSlotBits = 9;
  std::array<StringId, std::size_t{1} << kSlotBits> ids_{};
};

/// Parses a whole decimal string into a number of type T (no sign for unsigned T); nullopt for
/// anything else, including a value T cannot hold.
///
///   std::optional<std::uint32_t> index = graphpat::detail::parse_decimal<std::uint32_t>("54");
template <class T>
std::optional<T> parse_decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
    // 19 digits or fewer cannot overflow 64 bits: read in place, where from_chars checks for
    // overflow at every digit (a reader's references and indices are a few digits each).
    if (text.size() <= 19) {
      std::uint64_t value = 0;
      for (char c : text) {
        const auto digit = static_cast<unsigned>(c - '0');
        if (digit > 9) return std::nullopt;
        value = value * 10 + digit;
      }
      if (value > std::numeric_limits<T>::max()) return std::nullopt;
      return static_cast<T>(value);
    }
  }
  T value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// The offset of the first byte of `text` that is not part of a well-formed UTF-8 sequence
/// (overlong forms, surrogates and code points past U+10FFFF included), or npos. Readers
/// refuse such strings: they could not be written back as JSON.
inline std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    auto byte = [&](std::size_t at) { return static_cast<unsigned char>(text[at]); };
    unsigned char lead = byte(i);
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2
                         : lead >= 0xE0 && lead <= 0xEF                 ? 3
                         : lead >= 0xF0 && lead <= 0xF4                 ? 4
                                                                        : 0;
    if (length == 0 || i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xC0) != 0x80) return i;
    }
    unsigned char second = length > 1 ? byte(i + 1) : 0;
    if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) ||
        (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F)) {
      return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

}  // namespace detail
}  // namespace graphpat
