// Comparing text with a string literal whose length the compiler knows, so that it compares a
// few words in place where `text == "..."` calls memcmp: for readers' hot loops, which compare
// every key or dtype they meet with a handful of literals.
//
//   bool type = graphpat::detail::is_literal(key, "type_key");
//   bool floating = graphpat::detail::starts_with_literal(dtype, "float");
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace graphpat::detail {

/// Whether `text` is `literal`.
template <std::size_t N>
bool is_literal(std::string_view text, const char (&literal)[N]) {
  if constexpr (N == 1) {
    return text.empty();  // an empty view's data may be null, which memcmp may not take
  } else {
    return text.size() == N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
  }
}

/// Whether `text` starts with `literal`.
template <std::size_t N>
bool starts_with_literal(std::string_view text, const char (&literal)[N]) {
  if constexpr (N == 1) {
    return true;
  } else {
    return text.size() >= N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
  }
}

}  // namespace graphpat::detail
