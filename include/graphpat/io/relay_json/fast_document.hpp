// The fast way into a TVM JSON file's node table: simdjson's DOM parser (SIMD, chosen for the
// running CPU, over 1 GB/s) walked into the same JsonDocument that document.hpp's nlohmann SAX
// reader builds, in the same order, so the two tables are equal byte for byte. The fast reader
// only ever accepts: a file it does not take exactly as the SAX reader would (any JSON error,
// an unexpected shape or type, a duplicate key, too many nodes, a byte-order mark, a file
// simdjson cannot hold) is read again by parse_document, which finds and words the error, so
// every message stays the SAX reader's; so is a file over kFastReaderMaxBytes (memory).
//
//   graphpat::relay::detail::JsonDocument document;
//   absl::Status status = graphpat::relay::detail::load_document(text, document);
#pragma once

#include <simdjson.h>

#include <absl/status/status.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/detail/literal.hpp"
#include "graphpat/detail/text_map.hpp"
#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/ir/limits.hpp"

namespace graphpat::relay::detail {

/// Fills a JsonDocument from a well-formed file, or says it did not (the document then holds
/// part of a table: load_document clears it).
class FastDocumentReader {
 public:
  FastDocumentReader(JsonDocument& document, std::uint64_t max_nodes)
      : doc_(document), max_nodes_(max_nodes) {}

  /// Whether `json` is a TVM JSON file the SAX reader accepts, read into the document.
  bool read(std::string_view json) {
    simdjson::dom::parser parser;
    simdjson::dom::object top;
    if (parser.parse(json.data(), json.size()).get(top) != simdjson::SUCCESS) return false;
    constexpr unsigned kRoot = 1, kNodes = 2, kB64 = 4;  // bits of `seen` (attrs: 8)
    unsigned seen = 0;
    for (simdjson::dom::key_value_pair member : top) {
      unsigned which = member_bit(member.key, "root", "nodes", "b64ndarrays", "attrs");
      if (which == 0 || (seen & which) != 0) return false;
      seen |= which;
      bool ok = which == kRoot    ? member.value.get_uint64().get(doc_.root) == simdjson::SUCCESS
                : which == kNodes ? read_nodes(member.value)
                : which == kB64   ? read_strings(member.value,
                                                 [&](std::string_view blob) {
                                                 doc_.b64ndarrays.push_back(doc_.store_blob(blob));
                                               })
                                  : read_top_attrs(member.value);
      if (!ok) return false;
    }
    // What parse_document checks after its parse; its messages say what is wrong.
    return (seen & kRoot) != 0 && (seen & kNodes) != 0 && !doc_.nodes.empty() &&
           doc_.root < doc_.nodes.size();
  }

 private:
  /// The bit of `key` in a `seen` mask: 1 << its position among `names`, or 0 if not there.
  template <std::size_t... N>
  static unsigned member_bit(std::string_view key, const char (&... names)[N]) {
    unsigned bit = 1;
    unsigned found = 0;
    // For each name in turn: take its bit if none matched before, then move to the next bit.
    ((found = (found == 0 && graphpat::detail::is_literal(key, names)) ? bit : found, bit <<= 1),
     ...);
    return found;
  }

  bool read_nodes(simdjson::dom::element value) {
    simdjson::dom::array nodes;
    if (value.get(nodes) != simdjson::SUCCESS) return false;
    for (simdjson::dom::element entry : nodes) {
      if (!read_node(entry)) return false;
    }
    return true;
  }

  bool read_node(simdjson::dom::element value) {
    simdjson::dom::object members;
    if (value.get(members) != simdjson::SUCCESS || doc_.nodes.size() >= max_nodes_) return false;
    JsonNode& node = doc_.nodes.emplace_back();
    node.first_field = static_cast<std::uint32_t>(doc_.fields.size());
    node.first_key = static_cast<std::uint32_t>(doc_.keys.size());
    node.first_data = static_cast<std::uint32_t>(doc_.data.size());
    // bits of `seen` (data: 32, read by the default case)
    constexpr unsigned kTypeKey = 1, kReprStr = 2, kReprB64 = 4, kAttrs = 8, kKeys = 16,
                       kGlobalKey = 64;
    unsigned seen = 0;
    for (simdjson::dom::key_value_pair member : members) {
      unsigned which = member_bit(member.key, "type_key", "repr_str", "repr_b64", "attrs", "keys",
                                  "data", "global_key");
      if (which == 0 || (seen & which) != 0) return false;
      seen |= which;
      bool ok = false;
      switch (which) {
        case kTypeKey: {
          std::string_view type_key;
          ok = member.value.get_string().get(type_key) == simdjson::SUCCESS;
          if (ok) doc_.nodes.back().type_key = type_key_id(type_key);
          break;
        }
        case kReprStr:
        case kGlobalKey: {  // TVM 0.6's spelling of repr_str, as in the SAX reader
          std::string_view repr;
          ok = member.value.get_string().get(repr) == simdjson::SUCCESS;
          if (ok) set_repr(repr);
          break;
        }
        case kReprB64: {
          std::string_view base64;
          std::optional<std::string> bytes;
          ok = member.value.get_string().get(base64) == simdjson::SUCCESS &&
               (bytes = decode_repr_b64(base64)).has_value();
          if (ok) set_repr(*bytes);
          break;
        }
        case kAttrs:
          ok = read_node_attrs(member.value);
          break;
        case kKeys: {
          std::size_t before = doc_.keys.size();
          ok = read_strings(member.value,
                            [&](std::string_view key) { doc_.keys.push_back(doc_.store(key)); });
          doc_.nodes.back().key_count = static_cast<std::uint32_t>(doc_.keys.size() - before);
          break;
        }
        default:
          ok = read_data(member.value);
          break;
      }
      if (!ok) return false;
    }
    return (seen & kTypeKey) != 0;
  }

  bool read_node_attrs(simdjson::dom::element value) {
    simdjson::dom::object attrs;
    if (value.get(attrs) != simdjson::SUCCESS) return false;
    std::size_t position = 0;
    for (simdjson::dom::key_value_pair attr : attrs) {
      std::string_view text;
      if (attr.value.get_string().get(text) != simdjson::SUCCESS) return false;
      StringId key = field_name(doc_.nodes.back().type_key, position++, attr.key);
      // Which node last used each field name, as the SAX reader finds a duplicate.
      std::uint32_t slot = key.index();
      if (slot >= key_last_node_.size()) key_last_node_.resize(slot + 1);
      if (key_last_node_[slot] == doc_.nodes.size()) return false;
      key_last_node_[slot] = doc_.nodes.size();
      doc_.fields.push_back({key, doc_.store(text)});
      ++doc_.nodes.back().field_count;
    }
    return true;
  }

  /// The id of type key `key`. A file names a few dozen types, so the id last met for the
  /// key's length and last letter is compared with it before the key is hashed.
  [[gnu::always_inline]] StringId type_key_id(std::string_view key) {
    if (key.empty()) return doc_.names.intern(key);
    StringId& recent =
        recent_type_keys_[(key.size() * 31 + static_cast<unsigned char>(key.back())) %
                          recent_type_keys_.size()];
    if (!recent.valid() || !graphpat::detail::same_text(doc_.names.view(recent), key)) {
      recent = doc_.names.intern(key);
    }
    return recent;
  }

  /// The id of `name`, field `position` of a node of type `type` (invalid when the node's
  /// type_key comes after its attrs). Nodes of one type name their fields alike and in the
  /// same order (TVM writes them sorted), so the name is compared with the one the last such
  /// node had there before it is hashed.
  [[gnu::always_inline]] StringId field_name(StringId type, std::size_t position,
                                             std::string_view name) {
    if (!type.valid()) return doc_.names.intern(name);
    if (type.index() >= names_by_type_.size()) names_by_type_.resize(type.index() + 1);
    std::vector<KnownName>& names = names_by_type_[type.index()];
    if (position < names.size() && graphpat::detail::same_text(names[position].text, name)) {
      return names[position].id;
    }
    StringId id = doc_.names.intern(name);
    if (position >= names.size()) names.resize(position + 1);
    names[position] = {id, doc_.names.view(id)};
    return id;
  }

  bool read_data(simdjson::dom::element value) {
    simdjson::dom::array data;
    if (value.get(data) != simdjson::SUCCESS) return false;
    for (simdjson::dom::element entry : data) {
      std::uint64_t number = 0;
      if (entry.get_uint64().get(number) != simdjson::SUCCESS) return false;
      doc_.data.push_back(number);
      ++doc_.nodes.back().data_count;
    }
    return true;
  }

  /// Gives each string of the array `value` to `keep`; false if `value` is not an array of
  /// strings.
  template <class Keep>
  bool read_strings(simdjson::dom::element value, Keep&& keep) {
    simdjson::dom::array strings;
    if (value.get(strings) != simdjson::SUCCESS) return false;
    for (simdjson::dom::element entry : strings) {
      std::string_view text;
      if (entry.get_string().get(text) != simdjson::SUCCESS) return false;
      keep(text);
    }
    return true;
  }

  bool read_top_attrs(simdjson::dom::element value) {
    simdjson::dom::object attrs;
    if (value.get(attrs) != simdjson::SUCCESS) return false;
    graphpat::detail::TextSet names;
    for (simdjson::dom::key_value_pair attr : attrs) {
      std::string_view text;
      if (attr.value.get_string().get(text) != simdjson::SUCCESS) return false;
      if (!names.insert(attr.key).second) return false;
      doc_.attrs.emplace_back(std::string(attr.key), std::string(text));
    }
    return true;
  }

  void set_repr(std::string_view bytes) {
    doc_.nodes.back().has_repr = true;
    doc_.nodes.back().repr = doc_.store(bytes);
  }

  JsonDocument& doc_;
  std::uint64_t max_nodes_;
  std::vector<std::size_t> key_last_node_;  // by field name id: 1 + the last node using it
  struct KnownName {
    StringId id;
    std::string_view text;  // doc_.names.view(id), kept to compare without looking it up
  };
  std::vector<std::vector<KnownName>> names_by_type_;  // by type key id: its fields' last names
  std::array<StringId, 64> recent_type_keys_{};       // see type_key_id
};

/// The largest file the fast reader reads. simdjson's DOM holds about three times its input
/// while it reads (measured: 142 MB of JSON, peak 423 MB with the SAX reader, 829 MB with the
/// fast one), which a program reading a file of gigabytes beside other work may not have; a
/// larger file is read by the SAX reader, in memory proportional to its table.
inline constexpr std::size_t kFastReaderMaxBytes = std::size_t{256} << 20;

/// Reads the envelope of a TVM JSON file into `document` (a fresh one), as parse_document does
/// and with its errors: the fast reader first, the SAX reader for a file the fast one refuses
/// or one larger than kFastReaderMaxBytes.
inline absl::Status load_document(std::string_view json, JsonDocument& document,
                                  std::uint64_t max_nodes = kDefaultLimits.max_nodes) {
  document.reserve_for(json.size());
  if (json.size() <= kFastReaderMaxBytes &&
      FastDocumentReader(document, max_nodes).read(json)) {
    return absl::OkStatus();
  }
  document.clear_table();
  return parse_document(json, document, max_nodes);
}

}  // namespace graphpat::relay::detail
