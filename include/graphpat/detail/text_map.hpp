// Hash maps and sets keyed by std::string_view, hashed by Abseil. Debian's Abseil is built
// with an absl::string_view of its own (ABSL_OPTION_USE_STD_STRING_VIEW is 0), so Abseil's
// default hash of a std::string_view key falls back to std::hash: a call to libstdc++'s
// _Hash_bytes, unseeded, 7.7 ns for a name of 5-7 bytes on this project's machines against
// 4.4 ns for Abseil's own string hash, which is inlined for up to 16 bytes and seeded per
// process (a hostile file cannot choose names that collide in every run). Key any hash table
// by text with these.
//
//   graphpat::detail::TextMap<NodeId> by_name;
//   by_name.emplace("x", node);
//   graphpat::detail::TextSet seen;
//   bool first = seen.insert(name).second;
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <absl/strings/string_view.h>

#include <cstddef>
#include <string_view>

namespace graphpat::detail {

/// Hashes a text as Abseil hashes its own string_view.
struct TextHash {
  [[gnu::always_inline]] std::size_t operator()(std::string_view text) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(text.data(), text.size()));
  }
};

template <class Value>
using TextMap = absl::flat_hash_map<std::string_view, Value, TextHash>;
using TextSet = absl::flat_hash_set<std::string_view, TextHash>;

}  // namespace graphpat::detail
