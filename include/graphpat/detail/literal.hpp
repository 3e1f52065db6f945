// Comparing and copying short texts (field names, type keys, dtypes, attribute values) without
// a call to memcmp or memcpy: for readers' hot loops, which compare every key they meet with a
// handful of names and copy thousands of strings of a few bytes. A text of up to 16 bytes is
// compared or copied as two overlapping words (or half-words, or bytes), in place; the library
// call and its dispatch cost more than the work itself at these sizes (a TVM JSON load: 1.7%
// fewer instructions, 1-2% less time, for the compares).
//
//   bool type = graphpat::detail::is_literal(key, "type_key");
//   bool floating = graphpat::detail::starts_with_literal(dtype, "float");
//   bool same = graphpat::detail::same_text(pool.view(id), name);
//   graphpat::detail::copy_bytes(arena + used, value.data(), value.size());
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace graphpat::detail {

/// The `Word` at `bytes` (unaligned).
template <class Word>
Word load_word(const char* bytes) {
  Word word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

/// Whether the `size` bytes at `a` and `b` are equal.
[[gnu::always_inline]] inline bool same_bytes(const char* a, const char* b, std::size_t size) {
  if (size >= 8) {
    if (size > 16) return std::memcmp(a, b, size) == 0;
    return load_word<std::uint64_t>(a) == load_word<std::uint64_t>(b) &&
           load_word<std::uint64_t>(a + size - 8) == load_word<std::uint64_t>(b + size - 8);
  }
  if (size >= 4) {
    return load_word<std::uint32_t>(a) == load_word<std::uint32_t>(b) &&
           load_word<std::uint32_t>(a + size - 4) == load_word<std::uint32_t>(b + size - 4);
  }
  for (std::size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/// Copies the `size` bytes at `from` to `to`; the two ranges do not overlap.
[[gnu::always_inline]] inline void copy_bytes(char* to, const char* from, std::size_t size) {
  if (size >= 8) {
    if (size > 16) {
      std::memcpy(to, from, size);
      return;
    }
    auto head = load_word<std::uint64_t>(from), tail = load_word<std::uint64_t>(from + size - 8);
    std::memcpy(to, &head, sizeof head);
    std::memcpy(to + size - 8, &tail, sizeof tail);
    return;
  }
  if (size >= 4) {
    auto head = load_word<std::uint32_t>(from), tail = load_word<std::uint32_t>(from + size - 4);
    std::memcpy(to, &head, sizeof head);
    std::memcpy(to + size - 4, &tail, sizeof tail);
    return;
  }
  for (std::size_t i = 0; i < size; ++i) to[i] = from[i];
}

/// Whether `a` and `b` are the same text (`a == b`).
[[gnu::always_inline]] inline bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

/// Whether `text` is `literal`.
template <std::size_t N>
bool is_literal(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && same_bytes(text.data(), literal, N - 1);
}

/// Whether `text` starts with `literal`.
template <std::size_t N>
bool starts_with_literal(std::string_view text, const char (&literal)[N]) {
  return text.size() >= N - 1 && same_bytes(text.data(), literal, N - 1);
}

}  // namespace graphpat::detail
