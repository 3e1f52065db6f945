// The node table of a TVM JSON file (`tvm.ir.save_json`), read with nlohmann/json's SAX parser
// straight into flat arrays: no DOM, no recursion, memory proportional to the file. This is the
// raw layer under relay_json.hpp: it checks the envelope (root, nodes, b64ndarrays, attrs and
// the keys of each node entry) and leaves the meaning of node attributes to the reader. It is
// the reader that judges a file and words its errors; load_document (fast_document.hpp) reads
// a good file faster with simdjson into the same table and leaves any other to this one.
//
//   graphpat::relay::detail::JsonDocument document;
//   absl::Status status = graphpat::relay::detail::parse_document(text, document);
//   std::string_view key = document.type_key(1);                             // "IRModule"
//   std::optional<std::string_view> functions = document.field(1, "functions");  // "2"
#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/literal.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/ir/strings.hpp"

namespace graphpat::relay::detail {

using graphpat::detail::parse_decimal;

/// Whether `text` would be taken for a reference in a file of `node_count` nodes where no
/// layout says what the field is: TVM writes a reference as a bare decimal node index.
inline bool looks_like_reference(std::size_t node_count, std::string_view text) {
  std::optional<std::uint32_t> target = parse_decimal<std::uint32_t>(text);
  return target && *target < node_count;
}

/// A `relay_json.<what>` error located at `where` (a JSON path such as `nodes[3].attrs.op`,
/// shortened when long).
inline absl::Status json_error(std::string_view what, std::string_view where,
                               std::string_view problem) {
  return make_error(absl::StatusCode::kInvalidArgument, fmt::format("relay_json.{}", what),
                    where.empty()
                        ? std::string(problem)
                        : fmt::format("{}: {}", graphpat::detail::short_json_path(where), problem));
}

/// Bytes of the document's text arena. The offset is kept as two 32-bit halves so that a slice
/// is 12 bytes aligned to 4, not 16 aligned to 8, and a JsonField 16 bytes, not 24: the field
/// table is the largest array a reader fills (1.5 entries per node), and filling it was 5% of a
/// load's time.
struct TextSlice {
  TextSlice() = default;
  TextSlice(std::uint64_t offset, std::uint32_t bytes)
      : offset_low(static_cast<std::uint32_t>(offset)),
        offset_high(static_cast<std::uint32_t>(offset >> 32)),
        size(bytes) {}
  [[nodiscard]] std::uint64_t offset() const {
    return (std::uint64_t{offset_high} << 32) | offset_low;
  }

  std::uint32_t offset_low = 0;
  std::uint32_t offset_high = 0;
  std::uint32_t size = 0;
};

/// Bytes of a `b64ndarrays` entry in the text arena. A constant of 3 GiB or more is a base64
/// string of 4 GiB or more, so an entry's size takes 64 bits, where a TextSlice has 32.
struct BlobSlice {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

/// The longest string of a node entry (a field, a key, a repr): 4 GiB - 1 bytes, as a TextSlice's
/// size is 32 bits. The SAX builder refuses a longer one (`string_too_long`), and write_json
/// will not write one; load_document (fast_document.hpp) never meets one, as simdjson reads
/// documents under 4 GiB only and leaves larger ones to the SAX builder. `b64ndarrays` entries
/// (BlobSlice) and the top-level attrs (strings of their own) may be longer.
inline constexpr std::uint64_t kMaxJsonStringBytes =
    std::numeric_limits<decltype(TextSlice::size)>::max();

/// The error of a string of `bytes` bytes at `where`, longer than `limit` (kMaxJsonStringBytes
/// but in tests of the writer, which refuses what the reader would).
inline absl::Status string_too_long(std::uint64_t bytes, std::string_view where,
                                    std::uint64_t limit = kMaxJsonStringBytes) {
  return json_error("string_too_long", where,
                    fmt::format("a string of {} bytes, longer than the {} bytes a node entry's "
                                "string may hold",
                                bytes, limit));
}

/// One entry of a node's `attrs` object: field name and its (always string) value.
struct JsonField {
  StringId key;
  TextSlice value;
};
static_assert(sizeof(JsonField) == 16);

/// One entry of `nodes`; its fields, keys and data are slices of the document's arrays.
struct JsonNode {
  StringId type_key;
  bool has_repr = false;
  TextSlice repr;  // repr_str, or the decoded bytes of repr_b64 (without its length prefix)
  std::uint32_t first_field = 0;
  std::uint32_t field_count = 0;
  std::uint32_t first_key = 0;
  std::uint32_t key_count = 0;
  std::uint32_t first_data = 0;
  std::uint32_t data_count = 0;
};

/// The bytes of a document's strings, one after another. An append is a bounds check and a copy
/// at a cursor, inlined for a short string, where std::string's append is a call and a call to
/// memcpy per string: a TVM JSON file's strings are 3-4 bytes on average (resnet18: 3,541 of
/// them), and without the calls a load takes 1.7% fewer instructions. The buffer's bytes are
/// made valid (zeroed) when it grows, and it doubles when an append would pass its end.
class TextArena {
 public:
  [[nodiscard]] std::string_view view(std::uint64_t offset, std::uint64_t size) const {
    return std::string_view(bytes_.data() + offset, size);
  }
  void reserve(std::size_t capacity) {
    if (capacity > bytes_.size()) bytes_.resize(capacity);
  }
  void clear() { used_ = 0; }
  /// Appends `bytes`; returns where they start.
  [[gnu::always_inline]] std::uint64_t append(std::string_view bytes) {
    if (bytes_.size() - used_ < bytes.size()) grow(bytes.size());
    graphpat::detail::copy_bytes(bytes_.data() + used_, bytes.data(), bytes.size());
    std::uint64_t offset = used_;
    used_ += bytes.size();
    return offset;
  }

 private:
  [[gnu::noinline]] void grow(std::size_t bytes) {
    reserve(std::max(2 * bytes_.size(), used_ + bytes));
  }

  std::string bytes_;  // the first used_ bytes are the strings
  std::size_t used_ = 0;
};

/// A parsed TVM JSON file.
struct JsonDocument {
  JsonDocument() = default;
  /// A document whose name pool starts from `known_names` (a frozen pool that outlives it), so
  /// that the names it holds are found there instead of added at each reading.
  explicit JsonDocument(const StringPool& known_names) : names(&known_names) {}

  std::uint64_t root = 0;
  std::vector<JsonNode> nodes;
  std::vector<JsonField> fields;
  std::vector<TextSlice> keys;
  std::vector<std::uint64_t> data;
  std::vector<BlobSlice> b64ndarrays;
  std::vector<std::pair<std::string, std::string>> attrs;  // top-level, in file order
  TextArena text;                                          // every string above
  StringPool names;                                        // type keys and field names

  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(nodes.size()); }
  [[nodiscard]] std::string_view view(TextSlice slice) const {
    return text.view(slice.offset(), slice.size);
  }
  [[nodiscard]] std::string_view view(BlobSlice slice) const {
    return text.view(slice.offset, slice.size);
  }
  /// Appends `bytes`, of any size, to the text arena.
  [[gnu::always_inline]] BlobSlice store_blob(std::string_view bytes) {
    return {text.append(bytes), bytes.size()};
  }
  /// Appends `bytes` (at most kMaxJsonStringBytes) to the text arena.
  [[gnu::always_inline]] TextSlice store(std::string_view bytes) {
    BlobSlice slice = store_blob(bytes);
    return {slice.offset, static_cast<std::uint32_t>(slice.size)};
  }
  [[nodiscard]] std::string_view type_key(std::uint32_t index) const {
    return names.view(nodes[index].type_key);
  }
  [[nodiscard]] std::string_view repr(std::uint32_t index) const {
    return view(nodes[index].repr);
  }
  [[nodiscard]] std::span<const JsonField> fields_of(std::uint32_t index) const {
    const JsonNode& node = nodes[index];
    return {fields.data() + node.first_field, node.field_count};
  }
  [[nodiscard]] std::span<const TextSlice> keys_of(std::uint32_t index) const {
    const JsonNode& node = nodes[index];
    return {keys.data() + node.first_key, node.key_count};
  }
  [[nodiscard]] std::span<const std::uint64_t> data_of(std::uint32_t index) const {
    const JsonNode& node = nodes[index];
    return {data.data() + node.first_data, node.data_count};
  }
  /// The value of attribute `name` of node `index`, if the node has it.
  [[nodiscard]] std::optional<std::string_view> field(std::uint32_t index,
                                                      std::string_view name) const {
    return field(index, names.find(name));
  }
  /// The value of the attribute whose name has id `key` in `names`, if node `index` has it.
  [[nodiscard]] std::optional<std::string_view> field(std::uint32_t index, StringId key) const {
    std::optional<std::uint32_t> position = field_position(index, key);
    if (!position) return std::nullopt;
    return view(fields[*position].value);
  }
  /// Where in `fields` the attribute of node `index` whose name has id `key` is, if it has it.
  [[nodiscard]] std::optional<std::uint32_t> field_position(std::uint32_t index,
                                                            StringId key) const {
    if (!key.valid()) return std::nullopt;
    const JsonNode& node = nodes[index];
    for (std::uint32_t i = node.first_field; i < node.first_field + node.field_count; ++i) {
      if (fields[i].key == key) return i;
    }
    return std::nullopt;
  }
  /// Reserves the arrays from the input's size (TVM writes about 120 bytes per node, 60 per
  /// field and 12 of JSON per byte of string, measured on the corpus), so that a big file's
  /// arrays are not grown and copied as it is read; a file denser than that still grows them.
  void reserve_for(std::size_t json_size) {
    nodes.reserve(json_size / 100);
    fields.reserve(json_size / 48);
    text.reserve(json_size / 10);
  }
  /// Empties the table for another reading of the same file; `names` keeps its strings (a pool
  /// only grows, and an id still names the same string).
  void clear_table() {
    root = 0;
    nodes.clear();
    fields.clear();
    keys.clear();
    data.clear();
    b64ndarrays.clear();
    attrs.clear();
    text.clear();
  }
  /// Whether `other` holds the same table (each string compared by its text, so two documents
  /// with pools of their own compare equal when they read the same file).
  [[nodiscard]] bool same_table(const JsonDocument& other) const {
    auto same_texts = [&](const auto& mine, const auto& theirs) {  // TextSlices or BlobSlices
      return std::equal(mine.begin(), mine.end(), theirs.begin(), theirs.end(),
                        [&](auto a, auto b) { return view(a) == other.view(b); });
    };
    if (root != other.root || size() != other.size() || attrs != other.attrs ||
        !same_texts(b64ndarrays, other.b64ndarrays)) {
      return false;
    }
    for (std::uint32_t i = 0; i < size(); ++i) {
      std::span<const JsonField> mine = fields_of(i), theirs = other.fields_of(i);
      bool same_fields = std::equal(
          mine.begin(), mine.end(), theirs.begin(), theirs.end(),
          [&](const JsonField& a, const JsonField& b) {
            return names.view(a.key) == other.names.view(b.key) &&
                   view(a.value) == other.view(b.value);
          });
      std::span<const std::uint64_t> my_data = data_of(i), their_data = other.data_of(i);
      if (type_key(i) != other.type_key(i) || nodes[i].has_repr != other.nodes[i].has_repr ||
          repr(i) != other.repr(i) || !same_fields || !same_texts(keys_of(i), other.keys_of(i)) ||
          !std::equal(my_data.begin(), my_data.end(), their_data.begin(), their_data.end())) {
        return false;
      }
    }
    return true;
  }
  /// Replaces node `index`'s fields (appended to the field array; the old slice is left unused).
  void set_fields(std::uint32_t index, std::span<const JsonField> replacement) {
    JsonNode& node = nodes[index];
    node.first_field = static_cast<std::uint32_t>(fields.size());
    node.field_count = static_cast<std::uint32_t>(replacement.size());
    fields.insert(fields.end(), replacement.begin(), replacement.end());
  }
};

/// Decodes a `repr_b64` value: base64 of (uint64 little-endian length ‖ bytes).
inline std::optional<std::string> decode_repr_b64(std::string_view base64) {
  std::string raw;
  if (!absl::Base64Unescape(absl::string_view(base64.data(), base64.size()), &raw)) {
    return std::nullopt;
  }
  if (raw.size() < 8) return std::nullopt;
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(raw[i]);
  if (length != raw.size() - 8) return std::nullopt;
  return raw.substr(8);
}

/// The SAX handler that fills a JsonDocument. The file's shape is fixed (four levels at most),
/// so every value is checked against where it appears and anything else stops the parse.
class DocumentBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  DocumentBuilder(JsonDocument& document, std::uint64_t max_nodes)
      : doc_(document), max_nodes_(max_nodes) {}

  absl::Status status = absl::OkStatus();
  bool seen_root = false;
  bool seen_nodes = false;

  bool null() override { return unexpected("null"); }
  bool boolean(bool) override { return unexpected("a boolean"); }
  bool number_integer(number_integer_t value) override {
    if (value < 0) return unexpected("a negative number");
    return number(static_cast<std::uint64_t>(value));
  }
  bool number_unsigned(number_unsigned_t value) override { return number(value); }
  bool number_float(number_float_t, const string_t& text) override {
    // nlohmann reads an integer too large for 64 bits as a float; its text has no '.' or 'e'.
    if (text.find_first_of(".eE") == std::string::npos) {
      return unexpected("an integer that does not fit in 64 bits");
    }
    return unexpected("a fractional number");
  }
  bool binary(binary_t&) override { return unexpected("binary data"); }

  bool string(string_t& value) override {
    if (value.size() > kMaxJsonStringBytes && state_ != State::kB64 && state_ != State::kTopAttrs) {
      return fail(string_too_long(value.size(), path()));
    }
    switch (state_) {
      case State::kNodeMember:
        if (member_ == "type_key") {
          doc_.nodes.back().type_key = doc_.names.intern(value);
        } else if (member_ == "repr_str" || member_ == "global_key") {
          // global_key is TVM 0.6's spelling of repr_str (json_compact.py renames it)
          set_repr(value);
        } else if (member_ == "repr_b64") {
          std::optional<std::string> bytes = decode_repr_b64(value);
          if (!bytes) {
            return fail(json_error("bad_base64", path(),
                                   "not base64 of an 8-byte length followed by that many bytes"));
          }
          set_repr(*bytes);
        } else {
          return unexpected("a string");
        }
        state_ = State::kNode;
        return true;
      case State::kNodeAttrs:
        doc_.fields.push_back({attr_key_, doc_.store(value)});
        ++doc_.nodes.back().field_count;
        return true;
      case State::kNodeKeys:
        doc_.keys.push_back(doc_.store(value));
        ++doc_.nodes.back().key_count;
        return true;
      case State::kB64:
        doc_.b64ndarrays.push_back(doc_.store_blob(value));
        return true;
      case State::kTopAttrs:
        doc_.attrs.emplace_back(std::move(top_attr_key_), value);
        return true;
      default:
        return unexpected("a string");
    }
  }

  bool start_object(std::size_t) override {
    switch (state_) {
      case State::kStart:
        state_ = State::kTop;
        return true;
      case State::kNodes:
        if (doc_.nodes.size() >= max_nodes_) {
          return fail(json_error("too_many_nodes", path(),
                                 graphpat::detail::too_many_nodes_problem(max_nodes_)));
        }
        doc_.nodes.emplace_back();
        doc_.nodes.back().first_field = static_cast<std::uint32_t>(doc_.fields.size());
        doc_.nodes.back().first_key = static_cast<std::uint32_t>(doc_.keys.size());
        doc_.nodes.back().first_data = static_cast<std::uint32_t>(doc_.data.size());
        seen_type_key_ = false;
        node_members_.clear();
        state_ = State::kNode;
        return true;
      case State::kNodeMember:
        if (member_ != "attrs") return unexpected("an object");
        state_ = State::kNodeAttrs;
        return true;
      case State::kTopMember:
        if (member_ != "attrs") return unexpected("an object");
        state_ = State::kTopAttrs;
        return true;
      default:
        return unexpected("an object");
    }
  }

  bool key(string_t& name) override {
    switch (state_) {
      case State::kTop:
        if (name != "root" && name != "nodes" && name != "b64ndarrays" && name != "attrs") {
          return fail(json_error("unknown_key", name,
                                 "not a key of a TVM JSON file (root, nodes, b64ndarrays, attrs)"));
        }
        if (std::find(top_members_.begin(), top_members_.end(), name) != top_members_.end()) {
          return fail(json_error("duplicate_key", name, "appears twice"));
        }
        top_members_.push_back(name);
        member_ = name;
        state_ = State::kTopMember;
        return true;
      case State::kNode:
        if (name != "type_key" && name != "repr_str" && name != "repr_b64" && name != "attrs" &&
            name != "keys" && name != "data" && name != "global_key") {
          return fail(
              json_error("unknown_key", fmt::format("{}.{}", node_path(), name),
                         "not a key of a node entry (type_key, repr_str, repr_b64, attrs, keys, "
                         "data)"));
        }
        if (std::find(node_members_.begin(), node_members_.end(), name) != node_members_.end()) {
          return fail(json_error("duplicate_key", fmt::format("{}.{}", node_path(), name),
                                 "appears twice"));
        }
        node_members_.push_back(name);
        if (name == "type_key") seen_type_key_ = true;
        member_ = name;
        state_ = State::kNodeMember;
        return true;
      case State::kNodeAttrs: {
        attr_key_ = doc_.names.intern(name);
        // Which node last used each field name, so a duplicate is found in constant time.
        std::uint32_t slot = attr_key_.index();
        if (slot >= key_last_node_.size()) key_last_node_.resize(slot + 1);
        if (key_last_node_[slot] == doc_.nodes.size()) {
          return fail(json_error("duplicate_key", fmt::format("{}.attrs.{}", node_path(), name),
                                 "appears twice"));
        }
        key_last_node_[slot] = doc_.nodes.size();
        return true;
      }
      case State::kTopAttrs:
        if (!top_attr_keys_.insert(name).second) {
          return fail(json_error("duplicate_key", fmt::format("attrs.{}", name), "appears twice"));
        }
        top_attr_key_ = name;
        return true;
      default:
        return unexpected("a key");
    }
  }

  bool end_object() override {
    switch (state_) {
      case State::kTop:
        state_ = State::kDone;
        return true;
      case State::kNode:
        if (!seen_type_key_) {
          return fail(json_error("missing_field", fmt::format("{}.type_key", node_path()),
                                 "a node entry needs a type_key"));
        }
        state_ = State::kNodes;
        return true;
      case State::kNodeAttrs:
        state_ = State::kNode;
        return true;
      case State::kTopAttrs:
        state_ = State::kTop;
        return true;
      default:
        return unexpected("the end of an object");
    }
  }

  bool start_array(std::size_t) override {
    if (state_ == State::kTopMember && member_ == "nodes") {
      seen_nodes = true;
      state_ = State::kNodes;
      return true;
    }
    if (state_ == State::kTopMember && member_ == "b64ndarrays") {
      state_ = State::kB64;
      return true;
    }
    if (state_ == State::kNodeMember && member_ == "keys") {
      state_ = State::kNodeKeys;
      return true;
    }
    if (state_ == State::kNodeMember && member_ == "data") {
      state_ = State::kNodeData;
      return true;
    }
    return unexpected("an array");
  }

  bool end_array() override {
    switch (state_) {
      case State::kNodes:
      case State::kB64:
        state_ = State::kTop;
        return true;
      case State::kNodeKeys:
      case State::kNodeData:
        state_ = State::kNode;
        return true;
      default:
        return unexpected("the end of an array");
    }
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    // out_of_range.406: a number past the range of a double, where only integers belong.
    if (error.id == 406) return unexpected("a number out of the range of a 64-bit float");
    // nlohmann quotes the bytes it read last, which need not be UTF-8: make_error escapes them.
    status = json_error("not_json", fmt::format("byte {}", position), error.what());
    return false;
  }

 private:
  enum class State {
    kStart,
    kTop,
    kTopMember,
    kNodes,
    kNode,
    kNodeMember,
    kNodeAttrs,
    kNodeKeys,
    kNodeData,
    kB64,
    kTopAttrs,
    kDone,
  };

  bool number(std::uint64_t value) {
    if (state_ == State::kTopMember && member_ == "root") {
      doc_.root = value;
      seen_root = true;
      state_ = State::kTop;
      return true;
    }
    if (state_ == State::kNodeData) {
      doc_.data.push_back(value);
      ++doc_.nodes.back().data_count;
      return true;
    }
    return unexpected("a number");
  }

  void set_repr(std::string_view bytes) {
    doc_.nodes.back().has_repr = true;
    doc_.nodes.back().repr = doc_.store(bytes);
  }

  [[nodiscard]] std::string node_path() const {
    return fmt::format("nodes[{}]", doc_.nodes.size() - 1);
  }
  /// Where the value being read sits.
  [[nodiscard]] std::string path() const {
    switch (state_) {
      case State::kStart:
        return "";
      case State::kTop:
      case State::kTopMember:
        return member_;
      case State::kNodes:
        return fmt::format("nodes[{}]", doc_.nodes.size());
      case State::kNode:
        return node_path();
      case State::kNodeMember:
        return fmt::format("{}.{}", node_path(), member_);
      case State::kNodeAttrs:
        return fmt::format("{}.attrs.{}", node_path(), doc_.names.view(attr_key_));
      case State::kNodeKeys:
        return fmt::format("{}.keys[{}]", node_path(), doc_.nodes.back().key_count);
      case State::kNodeData:
        return fmt::format("{}.data[{}]", node_path(), doc_.nodes.back().data_count);
      case State::kB64:
        return fmt::format("b64ndarrays[{}]", doc_.b64ndarrays.size());
      case State::kTopAttrs:
        return fmt::format("attrs.{}", top_attr_key_);
      case State::kDone:
        return "(after the end)";
    }
    return "";
  }

  bool unexpected(std::string_view what) {
    std::string expected;
    switch (state_) {
      case State::kStart:
        expected = "an object";
        break;
      case State::kTopMember:
        expected = member_ == "root"    ? "a non-negative integer"
                   : member_ == "nodes" ? "an array of node objects"
                   : member_ == "attrs" ? "an object of strings"
                                        : "an array of base64 strings";
        break;
      case State::kNodes:
        expected = "a node object";
        break;
      case State::kNodeMember:
        expected = member_ == "attrs"  ? "an object of strings"
                   : member_ == "keys" ? "an array of strings"
                   : member_ == "data" ? "an array of non-negative integers"
                                       : "a string";
        break;
      case State::kNodeData:
        expected = "a non-negative integer";
        break;
      default:
        expected = "a string";
    }
    return fail(
        json_error("wrong_type", path(), fmt::format("expected {}, found {}", expected, what)));
  }

  bool fail(absl::Status error) {
    status = std::move(error);
    return false;
  }

  JsonDocument& doc_;
  std::uint64_t max_nodes_;
  State state_ = State::kStart;
  std::string member_;
  std::vector<std::string> top_members_;
  std::vector<std::string> node_members_;
  bool seen_type_key_ = false;
  StringId attr_key_;
  std::string top_attr_key_;
  absl::flat_hash_set<std::string> top_attr_keys_;
  std::vector<std::size_t> key_last_node_;  // by field name id: 1 + the last node using it
};

/// Parses the envelope of a TVM JSON file into `document` (a fresh one: StringPool does not
/// move, so the caller owns where the table lives); a file of more than `max_nodes` nodes is
/// refused at the first node over.
inline absl::Status parse_document(std::string_view json, JsonDocument& document,
                                   std::uint64_t max_nodes = kDefaultLimits.max_nodes) {
  DocumentBuilder builder(document, max_nodes);
  document.reserve_for(json.size());
  bool ok = nlohmann::json::sax_parse(json.begin(), json.end(), &builder);
  if (!ok || !builder.status.ok()) {
    if (!builder.status.ok()) return builder.status;
    return json_error("not_json", "", "the parser stopped");
  }
  if (std::size_t nul = json.find('\0'); nul != std::string_view::npos) {
    return json_error("not_json", fmt::format("byte {}", nul), graphpat::detail::kJsonNulByteProblem);
  }
  if (!builder.seen_root) return json_error("missing_field", "root", "the file has no root");
  if (!builder.seen_nodes) return json_error("missing_field", "nodes", "the file has no nodes");
  if (document.nodes.empty()) {
    return json_error("missing_field", "nodes", "the node list is empty (node 0 is the null)");
  }
  if (document.root >= document.nodes.size()) {
    return json_error("dangling_reference", "root",
                      fmt::format("refers to node {}, but there are {} nodes", document.root,
                                  document.nodes.size()));
  }
  return absl::OkStatus();
}

}  // namespace graphpat::relay::detail
