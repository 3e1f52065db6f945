// The TVM object graph save_json writes, and the writer that turns it into dmlc::JSONWriter's
// exact bytes (docs/relay-formats.md §3.1–3.4): objects are numbered in depth-first pre-order
// from the root, visiting fields in declaration order; `attrs` keys are printed sorted; every
// comma is followed by a space; `data` breaks lines only above ten entries.
//
//   graphpat::relay::detail::ObjectGraph objects;
//   std::uint32_t name = objects.add_repr("runtime.String", "main");
//   std::uint32_t id = objects.add("relay.Id", {objects.ref("name_hint", name)});
//   absl::StatusOr<std::string> json = graphpat::relay::detail::write_json(objects, id, context,
//                                                                           {{"tvm_version",
//                                                                             "0.14.0"}});
#pragma once

#include <absl/status/statusor.h>
#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/byte_table.hpp"
#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/io/relay_json/ndarray.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/strings.hpp"

namespace graphpat::relay::detail {

/// How an output field's value is written.
enum class OutKind : std::uint8_t {
  kRef,             // an object id, written as its number
  kRefUntraversed,  // the same, but not followed when numbering (relay.Let's virtual_device_)
  kInline,          // a text id, written as is
  kInlineByLooks,   // the same, in a field a reader takes as a reference when its text looks
                    // like one (no layout declares it): refused where it would
  kNDArray,         // a tensor slot, written as its b64ndarrays index
};

struct OutField {
  StringId key;
  OutKind kind;
  std::uint32_t value;
};

struct OutObject {
  StringId type_key;
  bool has_repr = false;
  std::uint32_t repr = 0;  // text id
  std::uint32_t first_field = 0;
  std::uint32_t field_count = 0;
  std::uint32_t first_key = 0;  // text ids
  std::uint32_t key_count = 0;
  std::uint32_t first_data = 0;  // object ids
  std::uint32_t data_count = 0;
};

class JsonNames;

/// Objects to write; id 0 is the null object. Fields are kept in traversal order.
class ObjectGraph {
 public:
  ObjectGraph() { objects_.push_back({names.intern("")}); }
  /// Names start from `known`'s pool, whose JSON texts and order write_json takes from `known`
  /// rather than working them out again (`known` must outlive the graph).
  explicit ObjectGraph(const JsonNames& known);

  /// Room for the objects of a graph of `nodes` nodes (a typed call whose type is new is about
  /// seven objects and sixteen fields: the call, its type, the type's shape and dims; a type
  /// written before is one field), so that a large graph's
  /// objects are not copied again and again as the arrays grow. Reserved room a small graph
  /// does not use is never touched.
  void reserve_for_nodes(std::size_t nodes) {
    objects_.reserve(8 * nodes);
    fields_.reserve(20 * nodes);
    data_.reserve(4 * nodes);
    texts_.reserve(4 * nodes);
    arena_.reserve(16 * nodes);
  }

  /// A text of any size (write_json refuses one the reader would: string_too_long).
  std::uint32_t text(std::string_view bytes) {
    texts_.push_back({arena_.size(), bytes.size()});
    arena_.append(bytes);
    return static_cast<std::uint32_t>(texts_.size() - 1);
  }
  [[nodiscard]] std::string_view view(std::uint32_t text_id) const {
    BlobSlice slice = texts_[text_id];
    return std::string_view(arena_).substr(slice.offset, slice.size);
  }

  /// The id of a type key or field name (interned in `names`).
  StringId name(std::string_view text) { return name_ids_.intern(names, text); }

  // Each takes a name as its id (see Emitter::name_id) or as text.
  [[gnu::always_inline]] OutField ref(StringId key, std::uint32_t object) {
    return {key, OutKind::kRef, object};
  }
  [[gnu::always_inline]] OutField ref(std::string_view key, std::uint32_t object) {
    return ref(name(key), object);
  }
  [[gnu::always_inline]] OutField inline_text(StringId key, std::string_view value) {
    return {key, OutKind::kInline, text(value)};
  }
  [[gnu::always_inline]] OutField inline_text(std::string_view key, std::string_view value) {
    return inline_text(name(key), value);
  }
  [[gnu::always_inline]] OutField inline_text_by_looks(std::string_view key,
                                                       std::string_view value) {
    return {name(key), OutKind::kInlineByLooks, text(value)};
  }

  std::uint32_t add(StringId type_key, std::span<const OutField> fields,
                    std::span<const std::uint32_t> key_texts = {},
                    std::span<const std::uint32_t> data = {}) {
    // Filled in place: an OutObject built aside and copied in was read back before its stores
    // had landed (a store-forwarding stall on every object).
    OutObject& object = objects_.emplace_back();
    object.type_key = type_key;
    object.first_field = static_cast<std::uint32_t>(fields_.size());
    object.field_count = static_cast<std::uint32_t>(fields.size());
    fields_.insert(fields_.end(), fields.begin(), fields.end());
    object.first_key = static_cast<std::uint32_t>(keys_.size());
    object.key_count = static_cast<std::uint32_t>(key_texts.size());
    keys_.insert(keys_.end(), key_texts.begin(), key_texts.end());
    object.first_data = static_cast<std::uint32_t>(data_.size());
    object.data_count = static_cast<std::uint32_t>(data.size());
    data_.insert(data_.end(), data.begin(), data.end());
    return static_cast<std::uint32_t>(objects_.size() - 1);
  }
  std::uint32_t add(std::string_view type_key, std::span<const OutField> fields,
                    std::span<const std::uint32_t> key_texts = {},
                    std::span<const std::uint32_t> data = {}) {
    return add(name(type_key), fields, key_texts, data);
  }
  std::uint32_t add(StringId type_key, std::initializer_list<OutField> fields) {
    return add(type_key, std::span(fields.begin(), fields.size()));
  }
  std::uint32_t add(std::string_view type_key, std::initializer_list<OutField> fields) {
    return add(name(type_key), fields);
  }
  std::uint32_t add_repr(StringId type_key, std::string_view repr) {
    std::uint32_t id = add(type_key, std::span<const OutField>{});
    objects_[id].has_repr = true;
    objects_[id].repr = text(repr);
    return id;
  }
  std::uint32_t add_repr(std::string_view type_key, std::string_view repr) {
    return add_repr(name(type_key), repr);
  }
  /// A tensor slot for an NDArray field (the caller deduplicates by tensor).
  std::uint32_t add_ndarray(TensorId tensor) {
    ndarrays.push_back(tensor);
    return static_cast<std::uint32_t>(ndarrays.size() - 1);
  }

  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(objects_.size()); }
  [[nodiscard]] const OutObject& object(std::uint32_t id) const { return objects_[id]; }
  [[nodiscard]] std::span<const OutField> fields_of(std::uint32_t id) const {
    return {fields_.data() + objects_[id].first_field, objects_[id].field_count};
  }
  [[nodiscard]] std::span<const std::uint32_t> keys_of(std::uint32_t id) const {
    return {keys_.data() + objects_[id].first_key, objects_[id].key_count};
  }
  [[nodiscard]] std::span<const std::uint32_t> data_of(std::uint32_t id) const {
    return {data_.data() + objects_[id].first_data, objects_[id].data_count};
  }

  StringPool names;               // type keys and field names
  std::vector<TensorId> ndarrays;  // slot → tensor
  const JsonNames* known_names = nullptr;  // names' base pool's table, when it has one

 private:
  std::vector<OutObject> objects_;
  std::vector<OutField> fields_;
  std::vector<std::uint32_t> keys_;
  std::vector<std::uint32_t> data_;
  std::vector<BlobSlice> texts_;
  std::string arena_;
  graphpat::detail::NameCache name_ids_;
};

/// Whether a byte is written other than as itself in a JSON string (dmlc's five escapes and the
/// other control bytes), or starts a sequence whose UTF-8 must be checked (0x80 and above).
inline constexpr auto kJsonSpecialByte = graphpat::detail::ByteTable<bool>::of([](char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == '"' || byte == '\\' || byte >= 0x80;
});

/// The length of the start of `text` that a JSON string holds as is (no kJsonSpecialByte).
inline std::size_t plain_json_prefix(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && !kJsonSpecialByte[text[i]]) ++i;
  return i;
}

/// Appends `text` as a JSON string with dmlc's escapes (\r \n \\ \t \" only; other bytes raw),
/// each run of bytes without an escape in one append. One departure: any other control byte
/// (below 0x20) is written `\u00XX`. dmlc writes it raw, which no JSON reader but dmlc's takes
/// (ours included: nlohmann refuses it); such a byte comes only from a file that was not
/// TVM's (a field name or text written with a JSON escape TVM does not know) or from Relay
/// text (`\x01`), so no file TVM wrote changes, and what graphpat writes always reads back.
/// Returns whether `text` is UTF-8 (what it appended is not JSON when not), checked in the same
/// pass: only a string with a byte above 0x7f is validated (graph_json's append_json_string
/// answers the same, with nlohmann's escapes).
inline bool append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t run_start = 0;
  bool ascii = true;
  for (std::size_t i = plain_json_prefix(text); i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (!kJsonSpecialByte[text[i]]) continue;
    ascii = ascii && byte < 0x80;
    std::string_view escaped;
    switch (text[i]) {
      case '\r': escaped = "\\r"; break;
      case '\n': escaped = "\\n"; break;
      case '\\': escaped = "\\\\"; break;
      case '\t': escaped = "\\t"; break;
      case '"': escaped = "\\\""; break;
      default:
        if (byte >= 0x20) continue;
    }
    out.append(text, run_start, i - run_start);
    if (escaped.empty()) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", byte);
    } else {
      out += escaped;
    }
    run_start = i + 1;
  }
  out.append(text, run_start);
  out += '"';
  return ascii || graphpat::detail::invalid_utf8_at(text) == std::string_view::npos;
}

/// What write_json writes for the type keys and field names of a pool: each name's JSON string
/// followed by ": " (with the separator and indent before an `attrs` entry), whether its text is
/// UTF-8, and an order key that sorts names as their texts sort (the `attrs` of an object are
/// written in name order). Worked out once per process for the names most files use (a frozen base
/// pool); a save then works out only the names its graph adds to them.
///
///   JsonNames all(pool);                 // every name of `pool`
///   JsonNames added(known, graph_names);  // known's pool is graph_names' base
class JsonNames {
 public:
  explicit JsonNames(const StringPool& pool) : pool_(&pool) { add_from(0); }
  /// `base` must have no base itself, and its pool must be `pool`'s base pool.
  JsonNames(const JsonNames& base, const StringPool& pool)
      : pool_(&pool), base_(&base), first_(base.json_.size()) {
    assert(base.base_ == nullptr);
    add_from(first_);
  }
  JsonNames(const JsonNames&) = delete;
  JsonNames& operator=(const JsonNames&) = delete;

  [[nodiscard]] const StringPool& pool() const { return *pool_; }
  /// The name's JSON string followed by ": ".
  [[nodiscard]] std::string_view json(StringId name) const {
    return entry(name).substr(kEntryIndent.size());
  }
  /// The name's JSON string.
  [[nodiscard]] std::string_view quoted(StringId name) const {
    std::string_view json_text = json(name);
    return json_text.substr(0, json_text.size() - 2);
  }
  /// What opens an `attrs` entry of this name: json() after ", " unless it is the `first`, and
  /// after a line break and indent when the entries are `multi_line`.
  [[nodiscard]] std::string_view attr_entry(StringId name, bool first, bool multi_line) const {
    return entry(name).substr(multi_line ? (first ? 2 : 0) : kEntryIndent.size());
  }
  [[nodiscard]] bool utf8(StringId name) const {
    return name.index() < first_ ? base_->utf8(name) : utf8_[name.index() - first_] != 0;
  }
  /// Less for a name whose text sorts first.
  [[nodiscard]] std::uint64_t order(StringId name) const {
    return name.index() < first_ ? base_->order(name) : order_[name.index() - first_];
  }

 private:
  // ", " and the indent of an `attrs` entry on its own line.
  static constexpr std::string_view kEntryIndent = ", \n        ";

  [[nodiscard]] std::string_view entry(StringId name) const {
    return name.index() < first_ ? base_->entry(name) : entries_[name.index() - first_];
  }

  // The names of ids `first` on. With no base, the name of rank r gets ((r + 1) << 32) - 1.
  // With a base, a name k base names sort before gets (k << 32) plus its rank among the added
  // names (less than 2^32 - 1, as ids are 32-bit): after the base's name of rank k - 1, before
  // the one of rank k.
  void add_from(std::size_t first) {
    const std::size_t count = pool_->size() - first;
    json_.resize(count);
    utf8_.resize(count);
    order_.resize(count);
    std::vector<std::uint32_t> by_text(count);
    for (std::size_t i = 0; i < count; ++i) {
      by_text[i] = static_cast<std::uint32_t>(first + i);
      json_[i] = kEntryIndent;
      utf8_[i] = append_json_string(json_[i], pool_->view(StringId(by_text[i])));
      json_[i] += ": ";
    }
    entries_.assign(json_.begin(), json_.end());
    auto text_of = [&](std::uint32_t id) { return pool_->view(StringId(id)); };
    std::sort(by_text.begin(), by_text.end(),
              [&](std::uint32_t a, std::uint32_t b) { return text_of(a) < text_of(b); });
    for (std::size_t rank = 0; rank < count; ++rank) {
      std::uint64_t key = rank;
      if (base_ == nullptr) {
        key = ((key + 1) << 32) - 1;
      } else {
        auto before = std::partition_point(
            base_->by_text_.begin(), base_->by_text_.end(),
            [&](std::uint32_t id) { return text_of(id) < text_of(by_text[rank]); });
        key |= static_cast<std::uint64_t>(before - base_->by_text_.begin()) << 32;
      }
      order_[by_text[rank] - first] = key;
    }
    by_text_ = std::move(by_text);
  }

  const StringPool* pool_;
  const JsonNames* base_ = nullptr;
  std::size_t first_ = 0;  // the first id this table holds (the base's hold the others)
  std::vector<std::string> json_;  // kEntryIndent, the JSON string, ": "
  std::vector<std::string_view> entries_;  // json_'s texts, read without a string's indirection
  std::vector<std::uint8_t> utf8_;
  std::vector<std::uint64_t> order_;
  std::vector<std::uint32_t> by_text_;  // this table's ids in text order
};

/// The order write_json writes an object's fields in: by name, as dmlc's writer writes a
/// std::map. The objects of one type key mostly list the same fields in the same order (a
/// layout's), so the order of the last field list seen per type key is remembered, and an object
/// listing those fields again costs a compare instead of a sort.
///
///   FieldOrder order(names);
///   for (const OutField* field : order.sorted(object.type_key, graph.fields_of(id))) ...
class FieldOrder {
 public:
  explicit FieldOrder(const JsonNames& names) : names_(names), memos_(kSlots) {}

  /// `fields` sorted by name (stably: fields of one name keep their order); valid until the
  /// next call.
  std::span<const OutField* const> sorted(StringId type_key, std::span<const OutField> fields) {
    const std::size_t count = fields.size();
    sorted_.resize(count);
    if (count > kMaxRemembered) {
      for (std::size_t i = 0; i < count; ++i) sorted_[i] = &fields[i];
      std::stable_sort(sorted_.begin(), sorted_.end(), [&](const OutField* a, const OutField* b) {
        return names_.order(a->key) < names_.order(b->key);
      });
      return sorted_;
    }
    Memo& memo = memos_[type_key.index() % kSlots];
    bool same = memo.type_key == type_key && memo.count == count;
    for (std::size_t i = 0; same && i < count; ++i) same = memo.keys[i] == fields[i].key;
    if (!same) remember(memo, type_key, fields);
    for (std::size_t i = 0; i < count; ++i) sorted_[i] = &fields[memo.position[i]];
    return sorted_;
  }

 private:
  static constexpr std::size_t kSlots = 64;
  static constexpr std::size_t kMaxRemembered = 16;
  struct Memo {
    StringId type_key;
    std::size_t count = 0;
    std::array<StringId, kMaxRemembered> keys;
    std::array<std::uint8_t, kMaxRemembered> position;  // the i-th field written
  };

  // Sorts the positions of `fields` by name into `memo` (an insertion sort: a few fields).
  void remember(Memo& memo, StringId type_key, std::span<const OutField> fields) {
    memo.type_key = type_key;
    memo.count = fields.size();
    std::array<std::uint64_t, kMaxRemembered> order;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      memo.keys[i] = fields[i].key;
      const std::uint64_t key = names_.order(fields[i].key);
      std::size_t at = i;
      for (; at > 0 && order[at - 1] > key; --at) {
        order[at] = order[at - 1];
        memo.position[at] = memo.position[at - 1];
      }
      order[at] = key;
      memo.position[at] = static_cast<std::uint8_t>(i);
    }
  }

  const JsonNames& names_;
  std::vector<Memo> memos_;
  std::vector<const OutField*> sorted_;
};

inline ObjectGraph::ObjectGraph(const JsonNames& known)
    : names(&known.pool()), known_names(&known) {
  objects_.push_back({names.intern("")});
}

/// The bytes of the file write_json writes, in one buffer: an append is a bounds check and a
/// copy at a cursor, where std::string's append is a call per piece. The buffer's bytes are made
/// valid (zeroed) a chunk at a time ahead of the cursor, within the capacity asked for, and the
/// capacity doubles when an append would pass it.
class JsonOut {
 public:
  explicit JsonOut(std::size_t capacity) {
    buffer_.reserve(capacity);
    cursor_ = end_ = buffer_.data();
  }

  // Always inlined: write_json is too large for GCC to inline these by itself, and inlined, a
  // literal's copy is a few moves instead of a call to memcpy.
  [[gnu::always_inline]] void put(std::string_view bytes) {
    if (bytes.empty()) return;  // an empty view's data may be null, which memcpy may not take
    if (static_cast<std::size_t>(end_ - cursor_) < bytes.size()) grow(bytes.size());
    std::memcpy(cursor_, bytes.data(), bytes.size());
    cursor_ += bytes.size();
  }
  [[gnu::always_inline]] void put(char byte) {
    if (cursor_ == end_) grow(1);
    *cursor_++ = byte;
  }
  /// `number` in decimal, quoted when `quoted` (a reference is written as a string).
  void put_number(std::uint32_t number, bool quoted) {
    constexpr std::size_t kMost = 12;  // ten digits and two quotes
    if (static_cast<std::size_t>(end_ - cursor_) < kMost) grow(kMost);
    if (quoted) *cursor_++ = '"';
    const fmt::format_int digits(number);
    std::memcpy(cursor_, digits.data(), digits.size());
    cursor_ += digits.size();
    if (quoted) *cursor_++ = '"';
  }
  /// `text` as append_json_string writes it, and whether it is UTF-8.
  bool put_string(std::string_view text) {
    if (plain_json_prefix(text) == text.size()) {
      put('"');
      put(text);
      put('"');
      return true;
    }
    std::string escaped;
    bool utf8 = append_json_string(escaped, text);
    put(escaped);
    return utf8;
  }
  std::string take() && {
    buffer_.resize(static_cast<std::size_t>(cursor_ - buffer_.data()));
    return std::move(buffer_);
  }

 private:
  static constexpr std::size_t kChunk = 64 * 1024;

  void grow(std::size_t bytes) {
    const auto used = static_cast<std::size_t>(cursor_ - buffer_.data());
    buffer_.resize(std::max(used + bytes, std::min(buffer_.capacity(), buffer_.size() + kChunk)));
    cursor_ = buffer_.data() + used;
    end_ = buffer_.data() + buffer_.size();
  }

  std::string buffer_;
  char* cursor_;  // where the next byte goes
  char* end_;     // the end of buffer_'s valid bytes
};

/// Numbers the objects reachable from `root` and writes the file. A node entry's string longer
/// than `max_string_bytes` is refused (string_too_long), as the reader would refuse it; the
/// bound is kMaxJsonStringBytes but in tests.
inline absl::StatusOr<std::string> write_json(
    const ObjectGraph& graph, std::uint32_t root, const Context& context,
    std::span<const std::pair<std::string, std::string>> top_attrs,
    std::uint64_t max_string_bytes = kMaxJsonStringBytes) {
  constexpr std::uint32_t kUnnumbered = Id<void>::kNone;
  std::vector<std::uint32_t> number(graph.size(), kUnnumbered);
  std::vector<std::uint32_t> order{0};
  number[0] = 0;
  std::vector<std::uint32_t> blob_of_slot(graph.ndarrays.size(), kUnnumbered);
  std::vector<std::uint32_t> blobs;  // slots in b64ndarrays order

  // Pre-order depth-first numbering with an explicit stack: (object, next child).
  struct Frame {
    std::uint32_t object;
    std::uint32_t next;
  };
  std::vector<Frame> stack;
  // The output's size, estimated from above for every object but the rarest (a long key or
  // text, many escapes), so that the file is written into one allocation: growing it would copy
  // and touch the bytes again (a third of save_json's time on the corpus models before).
  std::size_t estimate = 64;
  auto visit = [&](std::uint32_t object) {
    number[object] = static_cast<std::uint32_t>(order.size());
    order.push_back(object);
    const auto fields = graph.fields_of(object);
    estimate += 64 + 40 * fields.size() + 20 * graph.data_of(object).size();
    for (std::uint32_t key : graph.keys_of(object)) estimate += 24 + graph.view(key).size();
    if (graph.object(object).has_repr) {
      estimate += 24 + graph.view(graph.object(object).repr).size();
    }
    for (const OutField& field : fields) {
      if (field.kind == OutKind::kInline || field.kind == OutKind::kInlineByLooks) {
        estimate += graph.view(field.value).size();
      }
      if (field.kind == OutKind::kNDArray && blob_of_slot[field.value] == kUnnumbered) {
        blob_of_slot[field.value] = static_cast<std::uint32_t>(blobs.size());
        blobs.push_back(field.value);
      }
    }
    stack.push_back({object, 0});
  };
  auto number_from = [&](std::uint32_t start) {
    if (number[start] != kUnnumbered) return;
    visit(start);
    while (!stack.empty()) {
      // The top object's next child not numbered yet: it is visited (pushed), or the object is
      // done when it has none left.
      Frame& frame = stack.back();
      const auto fields = graph.fields_of(frame.object);
      const auto data = graph.data_of(frame.object);
      std::uint32_t child = kUnnumbered;
      while (child == kUnnumbered && frame.next < fields.size() + data.size()) {
        const std::uint32_t position = frame.next++;
        std::uint32_t next = kUnnumbered;
        if (position < fields.size()) {
          if (fields[position].kind == OutKind::kRef) next = fields[position].value;
        } else {
          next = data[position - fields.size()];
        }
        if (next != kUnnumbered && number[next] == kUnnumbered) child = next;
      }
      if (child == kUnnumbered) {
        stack.pop_back();
      } else {
        visit(child);  // pushes: `frame` is not used after this
      }
    }
  };
  number_from(root);
  // Fields TVM does not traverse (a Let's virtual_device_) normally point at an object numbered
  // elsewhere; any that does not is numbered after everything else, so the file stays valid.
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (const OutField& field : graph.fields_of(order[i])) {
      if (field.kind == OutKind::kRefUntraversed) number_from(field.value);
    }
  }

  // TVM writes a string's bytes raw; bytes that are not UTF-8 would make a file no JSON reader
  // but TVM's takes (graph_json's writer refuses them alike).
  auto not_utf8 = [](std::string_view where) {
    return json_error("unsupported", where,
                      "a string that is not valid UTF-8 cannot be written as JSON");
  };
  auto too_long = [&](std::string_view text) { return text.size() > max_string_bytes; };
  auto refuse_long = [&](std::string_view text, std::string_view where) {
    return string_too_long(text.size(), where, max_string_bytes);
  };
  for (std::uint32_t slot : blobs) {
    const Tensor& tensor = context.tensors.get(graph.ndarrays[slot]);
    const std::size_t raw =
        48 + 8 * tensor.shape.size() + (tensor.has_data() ? tensor.data->view().size() : 0);
    estimate += 16 + (raw + 2) / 3 * 4;
  }
  for (const auto& [key, value] : top_attrs) estimate += 16 + key.size() + value.size();

  // Type keys and field names are few: each one's JSON text (followed by ": "), whether it is
  // UTF-8, and its order are worked out once, not at every object (those of the names' base pool
  // once per process).
  const JsonNames names = graph.known_names != nullptr ? JsonNames(*graph.known_names, graph.names)
                                                       : JsonNames(graph.names);

  using namespace std::string_view_literals;
  JsonOut out(estimate);
  out.put("{\n  \"root\": "sv);
  out.put_number(number[root], /*quoted=*/false);
  out.put(", \n  \"nodes\": ["sv);
  FieldOrder field_order(names);
  for (std::size_t position = 0; position < order.size(); ++position) {
    std::uint32_t id = order[position];
    const OutObject& object = graph.object(id);
    out.put(position == 0 ? "\n    {\n      \"type_key\": "sv
                          : ", \n    {\n      \"type_key\": "sv);
    out.put(names.quoted(object.type_key));
    if (object.has_repr && !graph.view(object.repr).empty()) {
      std::string_view repr = graph.view(object.repr);
      bool printable = std::all_of(repr.begin(), repr.end(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) <= 0x7E;
      });
      if (printable) {
        if (too_long(repr)) {
          return refuse_long(repr, fmt::format("nodes[{}].repr_str", position));
        }
        out.put(", \n      \"repr_str\": "sv);
        out.put_string(repr);
      } else {
        std::string raw;
        for (int i = 0; i < 8; ++i) {
          raw.push_back(static_cast<char>((static_cast<std::uint64_t>(repr.size()) >> (8 * i)) & 0xFF));
        }
        raw.append(repr);
        std::string encoded;
        absl::Base64Escape(absl::string_view(raw), &encoded);
        if (too_long(encoded)) {
          return refuse_long(encoded, fmt::format("nodes[{}].repr_b64", position));
        }
        out.put(", \n      \"repr_b64\": "sv);
        out.put_string(encoded);
      }
    }
    auto fields = graph.fields_of(id);
    if (!fields.empty()) {
      std::span<const OutField* const> sorted = field_order.sorted(object.type_key, fields);
      bool multi_line = sorted.size() > 1;
      out.put(", \n      \"attrs\": {"sv);
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        const OutField& field = *sorted[i];
        auto field_not_utf8 = [&] {
          return not_utf8(
              fmt::format("nodes[{}].attrs.{}", position, graph.names.view(field.key)));
        };
        if (!names.utf8(field.key)) return field_not_utf8();
        if ((field.kind == OutKind::kInline || field.kind == OutKind::kInlineByLooks) &&
            too_long(graph.view(field.value))) {
          return refuse_long(graph.view(field.value), fmt::format("nodes[{}].attrs.{}", position,
                                                                  graph.names.view(field.key)));
        }
        out.put(names.attr_entry(field.key, i == 0, multi_line));
        switch (field.kind) {
          case OutKind::kRef:
          case OutKind::kRefUntraversed:
            out.put_number(number[field.value], /*quoted=*/true);
            break;
          case OutKind::kNDArray:
            out.put_number(blob_of_slot[field.value], /*quoted=*/true);
            break;
          case OutKind::kInline:
            if (!out.put_string(graph.view(field.value))) return field_not_utf8();
            break;
          case OutKind::kInlineByLooks:
            if (looks_like_reference(order.size(), graph.view(field.value))) {
              return json_error(
                  "ambiguous_text",
                  fmt::format("nodes[{}].attrs.{}", position, graph.names.view(field.key)),
                  fmt::format("the text \"{}\" would read back as a reference to node {} (no "
                              "layout graphpat knows declares this field of a {}, and TVM JSON "
                              "does not mark references)",
                              graph.view(field.value), graph.view(field.value),
                              graph.names.view(object.type_key)));
            }
            if (!out.put_string(graph.view(field.value))) return field_not_utf8();
            break;
        }
      }
      out.put(multi_line ? "\n      }"sv : "}"sv);
    }
    auto keys = graph.keys_of(id);
    if (!keys.empty()) {
      out.put(", \n      \"keys\": ["sv);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        out.put(i > 0 ? ", \n        "sv : "\n        "sv);
        if (too_long(graph.view(keys[i]))) {
          return refuse_long(graph.view(keys[i]), fmt::format("nodes[{}].keys[{}]", position, i));
        }
        if (!out.put_string(graph.view(keys[i]))) {
          return not_utf8(fmt::format("nodes[{}].keys[{}]", position, i));
        }
      }
      out.put("\n      ]"sv);
    }
    auto data = graph.data_of(id);
    if (!data.empty()) {
      bool multi_line = data.size() > 10;
      out.put(", \n      \"data\": ["sv);
      for (std::size_t i = 0; i < data.size(); ++i) {
        if (i > 0) out.put(", "sv);
        if (multi_line) out.put("\n        "sv);
        out.put_number(number[data[i]], /*quoted=*/false);
      }
      out.put(multi_line ? "\n      ]"sv : "]"sv);
    }
    out.put("\n    }"sv);
  }
  out.put("\n  ], \n  \"b64ndarrays\": ["sv);
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    const Tensor& tensor = context.tensors.get(graph.ndarrays[blobs[i]]);
    std::string_view dtype = context.strings.view(tensor.dtype);
    auto type = dlpack_type(dtype);
    if (!type) {
      return json_error("unsupported_dtype", fmt::format("b64ndarrays[{}]", i),
                        fmt::format("dtype \"{}\" cannot be stored in an NDArray", dtype));
    }
    if (!tensor.has_data()) {
      return json_error("missing_tensor_data", fmt::format("b64ndarrays[{}]", i),
                        "a constant read without its data (Relay text without its metadata "
                        "section) cannot be written to JSON");
    }
    out.put(i > 0 ? ", \n    \""sv : "\n    \""sv);
    out.put(encode_ndarray(*type, tensor.shape, tensor.data->view()));
    out.put('"');
  }
  out.put(blobs.empty() ? "]"sv : "\n  ]"sv);
  out.put(", \n  \"attrs\": {"sv);
  for (std::size_t i = 0; i < top_attrs.size(); ++i) {
    if (i > 0) out.put(", "sv);
    if (top_attrs.size() > 1) out.put("\n    "sv);
    out.put_string(top_attrs[i].first);
    out.put(": "sv);
    out.put_string(top_attrs[i].second);
  }
  out.put(top_attrs.size() > 1 ? "\n  }\n}"sv : "}\n}"sv);
  return std::move(out).take();
}

}  // namespace graphpat::relay::detail
