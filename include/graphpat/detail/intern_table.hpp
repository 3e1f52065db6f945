// The one hash-consing table behind interned types and attribute values: a record (a small
// value with its own == and AbslHashValue) plus a list of 32-bit child slots is stored once and
// named by a 32-bit id. Equal (record, children) pairs always get the same id.
#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>
#include <absl/hash/hash.h>

#include <cstdint>
#include <span>
#include <vector>

namespace graphpat::detail {

/// The child slots of one record while it is built: most have a few (a tensor's dimensions,
/// an attribute struct's fields), kept inline instead of in a heap block allocated and freed
/// per interned value (a TVM JSON load: 360 of them for resnet18).
using ChildSlots = absl::InlinedVector<std::uint32_t, 8>;

template <class Record, class IdType>
class InternTable {
 public:
  InternTable() : index_(0, Hash{this}, Equal{this}) {}
  InternTable(const InternTable&) = delete;
  InternTable& operator=(const InternTable&) = delete;

  /// The id of (record, children), adding it on first use.
  IdType intern(const Record& record, std::span<const std::uint32_t> children) {
    Key key{&record, children, hash_of(record, children)};
    // One probe: the entry is made where the probe found no equal one (the index is not
    // touched until `construct`, as lazy_emplace requires).
    return *index_.lazy_emplace(key, [&](const auto& construct) {
      IdType id(static_cast<std::uint32_t>(entries_.size()));
      entries_.push_back({record, static_cast<std::uint32_t>(slots_.size()),
                          static_cast<std::uint32_t>(children.size()), key.hash});
      for (std::uint32_t child : children) slots_.push_back(child);  // cheaper than insert
      construct(id);
    });
  }

  /// Makes room for `records` entries holding `slots` children in all (the index keeps ids,
  /// rehashed on growth from the hash each entry keeps).
  void reserve(std::size_t records, std::size_t slots = 0) {
    entries_.reserve(records);
    slots_.reserve(slots);
    index_.reserve(records);
  }

  /// The id of (record, children) if it was interned, else an invalid id.
  [[nodiscard]] IdType find(const Record& record, std::span<const std::uint32_t> children) const {
    auto found = index_.find(Key{&record, children, hash_of(record, children)});
    return found == index_.end() ? IdType() : *found;
  }

  [[nodiscard]] const Record& record(IdType id) const { return entries_[id.index()].record; }
  [[nodiscard]] std::span<const std::uint32_t> children(IdType id) const {
    const Entry& entry = entries_[id.index()];
    return {slots_.data() + entry.first, entry.count};
  }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] bool contains(IdType id) const { return id.valid() && id.index() < size(); }

 private:
  struct Entry {
    Record record;
    std::uint32_t first;
    std::uint32_t count;
    std::size_t hash;  // hash_of(record, children), so that neither an insert nor a growth of
                       // the index hashes the entry again
  };
  struct Key {
    const Record* record;
    std::span<const std::uint32_t> children;
    std::size_t hash;
  };
  static std::size_t hash_of(const Record& record, std::span<const std::uint32_t> children) {
    return absl::HashOf(record, absl::MakeSpan(children.data(), children.size()));
  }
  struct Hash {
    using is_transparent = void;
    const InternTable* table;
    std::size_t operator()(IdType id) const { return table->entries_[id.index()].hash; }
    std::size_t operator()(const Key& key) const { return key.hash; }
  };
  struct Equal {
    using is_transparent = void;
    const InternTable* table;
    Key key_of(IdType id) const {
      return {&table->record(id), table->children(id), table->entries_[id.index()].hash};
    }
    static const Key& key_of(const Key& key) { return key; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      Key left = key_of(a);
      Key right = key_of(b);
      return left.hash == right.hash && *left.record == *right.record &&
             std::equal(left.children.begin(), left.children.end(), right.children.begin(),
                        right.children.end());
    }
  };

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;
  absl::flat_hash_set<IdType, Hash, Equal> index_;
};

}  // namespace graphpat::detail
