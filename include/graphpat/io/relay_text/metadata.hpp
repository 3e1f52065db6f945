// The `#[metadata]` section of Relay text (spec relay-formats.md §1.9, §3): a save_json object
// graph whose root maps type keys to arrays of objects, referenced from the text as
// `meta[KEY][i]`. This header reads what graphpat models from it — constants (tensor bytes
// from the b64ndarrays blobs, §3.6) and attribute structs — and leaves the rest to the caller.
//
//   auto section = graphpat::detail::read_metadata(context, json_text);
//   const graphpat::Tensor* weight = section->constant(0);   // meta[relay.Constant][0]
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/io/relay_text/attributes.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/errors.hpp"

namespace graphpat::detail {

/// Decodes one b64ndarrays blob (§3.6) into a tensor.
inline absl::StatusOr<Tensor> decode_ndarray(Context& context, std::string_view base64) {
  std::string raw;
  auto fail = [](std::string_view why) {
    return make_error(absl::StatusCode::kInvalidArgument, "relay_text.bad_metadata",
                      fmt::format("b64ndarrays: {}", why));
  };
  if (!absl::Base64Unescape(absl::string_view(base64.data(), base64.size()), &raw)) {
    return fail("invalid base64");
  }
  std::size_t at = 0;
  auto read = [&](auto& value) {
    if (at + sizeof(value) > raw.size()) return false;
    std::memcpy(&value, raw.data() + at, sizeof(value));
    at += sizeof(value);
    return true;
  };
  std::uint64_t magic = 0, reserved = 0;
  std::int32_t device_type = 0, device_id = 0, ndim = 0;
  std::uint8_t code = 0, bits = 0;
  std::uint16_t lanes = 0;
  if (!read(magic) || magic != 0xDD5E40F096B4A13FULL) return fail("bad magic");
  if (!read(reserved) || !read(device_type) || !read(device_id) || !read(ndim) || !read(code) ||
      !read(bits) || !read(lanes) || ndim < 0 || ndim > 64) {
    return fail("truncated header");
  }
  Tensor tensor;
  std::uint64_t elements = 1;
  for (std::int32_t i = 0; i < ndim; ++i) {
    std::int64_t extent = 0;
    if (!read(extent) || extent < 0) return fail("bad shape");
    tensor.shape.push_back(extent);
    elements *= static_cast<std::uint64_t>(extent);
  }
  std::int64_t byte_count = 0;
  if (!read(byte_count) || byte_count < 0 ||
      static_cast<std::uint64_t>(byte_count) != elements * ((bits + 7U) / 8U) * lanes ||
      at + static_cast<std::size_t>(byte_count) > raw.size()) {
    return fail("bad data size");
  }
  std::string dtype;
  switch (code) {
    case 0: dtype = fmt::format("int{}", bits); break;
    case 1: dtype = bits == 1 ? "bool" : fmt::format("uint{}", bits); break;
    case 2: dtype = fmt::format("float{}", bits); break;
    case 4: dtype = fmt::format("bfloat{}", bits); break;
    default: return fail("unsupported dtype code");
  }
  if (lanes != 1) dtype += fmt::format("x{}", lanes);
  tensor.dtype = context.strings.intern(dtype);
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(
      raw.begin() + static_cast<std::ptrdiff_t>(at),
      raw.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(byte_count)));
  tensor.data = share_bytes(std::move(bytes));
  return tensor;
}

/// What graphpat reads from a metadata section.
struct MetadataSection {
  std::vector<std::string> keys;  // in the order written
  absl::flat_hash_map<std::string, std::vector<std::uint32_t>> entries;  // key -> node indices
  nlohmann::json nodes;
  std::vector<std::string> blobs;

  [[nodiscard]] std::size_t count(const std::string& key) const {
    auto found = entries.find(key);
    return found == entries.end() ? 0 : found->second.size();
  }
  /// The node of `meta[key][index]`, if present.
  [[nodiscard]] const nlohmann::json* node(const std::string& key, std::int64_t index) const {
    auto found = entries.find(key);
    if (found == entries.end() || index < 0 ||
        static_cast<std::size_t>(index) >= found->second.size()) {
      return nullptr;
    }
    return &nodes[found->second[static_cast<std::size_t>(index)]];
  }
};

inline absl::StatusOr<MetadataSection> read_metadata(std::string_view text) {
  auto fail = [](std::string_view why) {
    return make_error(absl::StatusCode::kInvalidArgument, "relay_text.bad_metadata",
                      fmt::format("#[metadata]: {}", why));
  };
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return fail("not a JSON object");
  MetadataSection section;
  if (!json.contains("nodes") || !json["nodes"].is_array() || !json.contains("root")) {
    return fail("no nodes or root");
  }
  section.nodes = std::move(json["nodes"]);
  if (json.contains("b64ndarrays") && json["b64ndarrays"].is_array()) {
    for (const auto& blob : json["b64ndarrays"]) {
      if (!blob.is_string()) return fail("b64ndarrays entry is not a string");
      section.blobs.push_back(blob.get<std::string>());
    }
  }
  auto node_at = [&](const nlohmann::json& index) -> const nlohmann::json* {
    if (!index.is_number_unsigned() || index.get<std::size_t>() >= section.nodes.size()) {
      return nullptr;
    }
    return &section.nodes[index.get<std::size_t>()];
  };
  const nlohmann::json* root = node_at(json["root"]);
  if (root == nullptr || !root->contains("keys") || !root->contains("data") ||
      (*root)["keys"].size() != (*root)["data"].size()) {
    return fail("root is not a Map");
  }
  for (std::size_t i = 0; i < (*root)["keys"].size(); ++i) {
    const nlohmann::json& key = (*root)["keys"][i];
    const nlohmann::json* array = node_at((*root)["data"][i]);
    if (!key.is_string() || array == nullptr) return fail("bad Map entry");
    std::vector<std::uint32_t> items;
    if (array->contains("data")) {
      for (const auto& item : (*array)["data"]) {
        if (node_at(item) == nullptr) return fail("dangling node index");
        items.push_back(item.get<std::uint32_t>());
      }
    }
    section.keys.push_back(key.get<std::string>());
    section.entries[key.get<std::string>()] = std::move(items);
  }
  return section;
}

/// The tensor of a relay.Constant metadata node.
inline absl::StatusOr<Tensor> metadata_constant(Context& context, const MetadataSection& section,
                                                const nlohmann::json& node) {
  const nlohmann::json* attrs = node.contains("attrs") ? &node["attrs"] : nullptr;
  if (attrs == nullptr || !attrs->contains("data") || !(*attrs)["data"].is_string()) {
    return make_error(absl::StatusCode::kInvalidArgument, "relay_text.bad_metadata",
                      "#[metadata]: relay.Constant without data");
  }
  std::size_t blob = 0;
  const std::string& index = (*attrs)["data"].get_ref<const std::string&>();
  auto [end, error] = std::from_chars(index.data(), index.data() + index.size(), blob);
  if (error != std::errc() || blob >= section.blobs.size()) {
    return make_error(absl::StatusCode::kInvalidArgument, "relay_text.bad_metadata",
                      "#[metadata]: relay.Constant data index out of range");
  }
  return decode_ndarray(context, section.blobs[blob]);
}

/// An attribute value from a metadata object node (IntImm, FloatImm, String, Array, null).
inline std::optional<AttrValueId> metadata_value(Context& context, const MetadataSection& section,
                                                 std::string_view reference, int depth = 0) {
  AttrTable& attrs = context.attrs;
  std::size_t index = 0;
  auto [end, error] = std::from_chars(reference.data(), reference.data() + reference.size(), index);
  if (error != std::errc() || index >= section.nodes.size() || depth > 64) return std::nullopt;
  if (index == 0) return attrs.null();
  const nlohmann::json& node = section.nodes[index];
  std::string type_key = node.value("type_key", "");
  const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json& fields = node.contains("attrs") ? node["attrs"] : empty;
  auto field = [&](const char* name) { return fields.value(name, std::string()); };
  if (type_key == "runtime.String") return attrs.string(node.value("repr_str", ""));
  if (type_key == "IntImm") {
    auto dtype = parse_dtype(field("dtype"));
    std::int64_t value = std::stoll(field("value").empty() ? "0" : field("value"));
    if (dtype && dtype->code == DataType::Code::kBool) return attrs.boolean(value != 0);
    return attrs.integer(value, dtype ? static_cast<std::uint8_t>(dtype->bits) : 32);
  }
  if (type_key == "FloatImm") {
    auto dtype = parse_dtype(field("dtype"));
    return attrs.floating(std::stod(field("value").empty() ? "0" : field("value")),
                          dtype ? static_cast<std::uint8_t>(dtype->bits) : 32);
  }
  if (type_key == "Array") {
    std::vector<AttrValueId> elements;
    if (node.contains("data")) {
      for (const auto& item : node["data"]) {
        auto element = metadata_value(context, section, std::to_string(item.get<std::size_t>()),
                                      depth + 1);
        if (!element) return std::nullopt;
        elements.push_back(*element);
      }
    }
    return attrs.array(elements);
  }
  return std::nullopt;
}

/// A call attrs struct stored in the metadata section, as the canonical object of its schema.
inline std::optional<AttrValueId> metadata_attrs(Context& context, AttrSchemaCache& cache,
                                                 const MetadataSection& section,
                                                 const nlohmann::json& node) {
  const AttrSchema* schema = context.ops.find_schema(node.value("type_key", ""));
  if (schema == nullptr || !node.contains("attrs")) return std::nullopt;
  std::vector<AttrField> fields;
  for (const AttrSchemaField& declared : schema->fields) {
    std::string name(context.strings.view(declared.name));
    if (!node["attrs"].contains(name)) return std::nullopt;
    std::string raw = node["attrs"][name].get<std::string>();
    std::optional<AttrValueId> value;
    AttrTable& attrs = context.attrs;
    switch (cache.storage(declared)) {
      case relay::FieldStorage::kInt: value = attrs.integer(std::stoll(raw), 32); break;
      case relay::FieldStorage::kBool: value = attrs.boolean(raw != "0"); break;
      case relay::FieldStorage::kDouble: value = attrs.floating(std::stod(raw), 64); break;
      case relay::FieldStorage::kStdString: value = attrs.string(raw); break;
      case relay::FieldStorage::kDataType: value = attrs.data_type(raw); break;
      case relay::FieldStorage::kObject: value = metadata_value(context, section, raw); break;
    }
    if (!value) return std::nullopt;
    fields.push_back({declared.name, *value});
  }
  return context.attrs.object(context.strings.view(schema->type_key), fields);
}

}  // namespace graphpat::detail
