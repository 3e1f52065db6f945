// What each of the 256 byte values is to a scanner, worked out at compile time from a
// classifier, so that a hot loop tells a byte by one lookup instead of a chain of tests (the
// Relay lexer's token starts and plain texts, the JSON writer's bytes to escape).
//
//   constexpr auto kDigit =
//       graphpat::detail::ByteTable<bool>::of([](char c) { return c >= '0' && c <= '9'; });
//   bool digit = kDigit['7'];  // true
#pragma once

#include <array>
#include <cstddef>

namespace graphpat::detail {

template <class T>
struct ByteTable {
  /// The table whose entry for each byte is `classify(byte)` (`classify` takes a char).
  template <class Classify>
  static constexpr ByteTable of(Classify classify) {
    ByteTable table{};
    for (std::size_t byte = 0; byte < table.entries.size(); ++byte) {
      table.entries[byte] = classify(static_cast<char>(byte));
    }
    return table;
  }
  constexpr T operator[](char byte) const { return entries[static_cast<unsigned char>(byte)]; }

  std::array<T, 256> entries{};
};

}  // namespace graphpat::detail
