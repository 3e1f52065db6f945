// Interned strings: names, dtypes, attribute keys and string values are stored once per
// context, so comparing two of them is comparing two StringIds.
//
//   graphpat::StringPool strings;
//   graphpat::StringId a = strings.intern("nn.conv2d");
//   assert(strings.intern("nn.conv2d") == a && strings.view(a) == "nn.conv2d");
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "graphpat/ir/ids.hpp"

namespace graphpat {

/// Owns each distinct string once; views stay valid for the pool's lifetime.
class StringPool {
 public:
  StringPool() = default;
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  /// The id of `text`, adding it on first use.
  StringId intern(std::string_view text) {
    auto found = index_.find(text);
    if (found != index_.end()) return found->second;
    StringId id(static_cast<std::uint32_t>(storage_.size()));
    const std::string& stored = storage_.emplace_back(text);
    index_.emplace(std::string_view(stored), id);
    return id;
  }

  /// The id of `text` if it was interned, else an invalid id.
  [[nodiscard]] StringId find(std::string_view text) const {
    auto found = index_.find(text);
    return found == index_.end() ? StringId() : found->second;
  }

  [[nodiscard]] std::string_view view(StringId id) const { return storage_[id.index()]; }
  [[nodiscard]] std::size_t size() const { return storage_.size(); }
  [[nodiscard]] bool contains(StringId id) const { return id.valid() && id.index() < size(); }

 private:
  std::deque<std::string> storage_;  // a deque never moves its elements
  absl::flat_hash_map<std::string_view, StringId> index_;
};

}  // namespace graphpat
