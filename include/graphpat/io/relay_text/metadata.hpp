// The `#[metadata]` section of Relay text (docs/relay-formats.md §1.9, §3): a save_json object
// graph whose root maps type keys to arrays of objects, referenced from the text as
// `meta[KEY][i]`. This header reads what graphpat models from it — constants (tensor bytes
// from the b64ndarrays blobs, §3.6) and attribute structs — and leaves the rest to the caller.
//
//   auto section = graphpat::detail::read_metadata(context, json_text);
//   const graphpat::Tensor* weight = section->constant(0);   // meta[relay.Constant][0]
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/io/relay_json/ndarray.hpp"
#include "graphpat/relay/text/attributes.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/validation.hpp"

namespace graphpat::detail {

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

/// A `relay_text.bad_metadata` error: "#[metadata]: <why>".
inline absl::Status metadata_error(std::string_view why) {
  return make_error(absl::StatusCode::kInvalidArgument, "relay_text.bad_metadata",
                    fmt::format("#[metadata]: {}", why));
}

inline absl::StatusOr<MetadataSection> read_metadata(std::string_view text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return metadata_error("not a JSON object");
  if (std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return metadata_error(fmt::format("byte {} of the section: {}", nul,
                                      graphpat::detail::kJsonNulByteProblem));
  }
  MetadataSection section;
  if (!json.contains("nodes") || !json["nodes"].is_array() || !json.contains("root")) {
    return metadata_error("no nodes or root");
  }
  section.nodes = std::move(json["nodes"]);
  if (json.contains("b64ndarrays") && json["b64ndarrays"].is_array()) {
    for (const auto& blob : json["b64ndarrays"]) {
      if (!blob.is_string()) return metadata_error("b64ndarrays entry is not a string");
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
      !(*root)["keys"].is_array() || !(*root)["data"].is_array() ||
      (*root)["keys"].size() != (*root)["data"].size()) {
    return metadata_error("root is not a Map");
  }
  for (std::size_t i = 0; i < (*root)["keys"].size(); ++i) {
    const nlohmann::json& key = (*root)["keys"][i];
    const nlohmann::json* array = node_at((*root)["data"][i]);
    if (!key.is_string() || array == nullptr) return metadata_error("bad Map entry");
    std::vector<std::uint32_t> items;
    if (array->contains("data")) {
      for (const auto& item : (*array)["data"]) {
        if (node_at(item) == nullptr) return metadata_error("dangling node index");
        items.push_back(item.get<std::uint32_t>());
      }
    }
    section.keys.push_back(key.get<std::string>());
    section.entries[key.get<std::string>()] = std::move(items);
  }
  return section;
}

/// The tensor of a relay.Constant metadata node; its blob is decoded as the JSON loader does
/// (errors name it `b64ndarrays[i]`), refusing one of more than `max_bytes` bytes.
inline absl::StatusOr<Tensor> metadata_constant(
    Context& context, const MetadataSection& section, const nlohmann::json& node,
    std::uint64_t max_bytes = kDefaultLimits.max_tensor_bytes) {
  const nlohmann::json* attrs = node.contains("attrs") ? &node["attrs"] : nullptr;
  if (attrs == nullptr || !attrs->contains("data") || !(*attrs)["data"].is_string()) {
    return metadata_error("relay.Constant without data");
  }
  const std::string& index = (*attrs)["data"].get_ref<const std::string&>();
  std::optional<std::size_t> parsed = relay::detail::parse_decimal<std::size_t>(index);
  if (!parsed) {
    return metadata_error(
        fmt::format("relay.Constant data \"{}\" is not an index of b64ndarrays", index));
  }
  std::size_t blob = *parsed;
  if (blob >= section.blobs.size()) {
    return metadata_error(fmt::format(
        "relay.Constant data refers to b64ndarrays[{}], but there are {} arrays", blob,
        section.blobs.size()));
  }
  auto decoded = relay::detail::decode_ndarray(section.blobs[blob],
                                               fmt::format("b64ndarrays[{}]", blob), max_bytes);
  if (!decoded.ok()) return decoded.status();
  return Tensor{context.strings.intern(decoded->dtype), std::move(decoded->shape),
                std::move(decoded->bytes)};
}

/// The string member `name` of a metadata JSON object; "" when it is absent or not a string.
inline std::string_view metadata_string(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return {};
  auto found = object.find(name);
  if (found == object.end() || !found->is_string()) return {};
  return found->get_ref<const std::string&>();
}

/// An attribute value from the metadata object node at `index` (IntImm, FloatImm, String,
/// Array, null); nullopt for anything else or anything malformed.
inline std::optional<AttrValueId> metadata_value(Context& context, const MetadataSection& section,
                                                 std::size_t index, int depth = 0) {
  AttrTable& attrs = context.attrs;
  if (index >= section.nodes.size() || depth > 64) return std::nullopt;
  if (index == 0) return attrs.null();
  const nlohmann::json& node = section.nodes[index];
  std::string_view type_key = metadata_string(node, "type_key");
  const nlohmann::json* fields = node.is_object() && node.contains("attrs") ? &node["attrs"] : &node;
  auto number = [&]<class T>(T zero) -> std::optional<T> {
    std::string_view text = metadata_string(*fields, "value");
    return text.empty() ? zero : relay::detail::parse_decimal<T>(text);
  };
  if (type_key == "runtime.String") return attrs.string(metadata_string(node, "repr_str"));
  // A value its dtype cannot hold (ir/validation.hpp) is malformed, as for the JSON reader.
  if (type_key == "IntImm") {
    DataType dtype = parse_dtype(metadata_string(*fields, "dtype"))
                         .value_or(DataType{DataType::Code::kInt, 32, 1});
    std::optional<std::int64_t> value = number(std::int64_t{0});
    if (!value || integer_problem(*value, dtype)) return std::nullopt;
    if (dtype.code == DataType::Code::kBool) return attrs.boolean(*value != 0);
    return attrs.integer(*value, static_cast<std::uint8_t>(dtype.bits));
  }
  if (type_key == "FloatImm") {
    DataType dtype = parse_dtype(metadata_string(*fields, "dtype"))
                         .value_or(DataType{DataType::Code::kFloat, 32, 1});
    std::optional<double> value = number(0.0);
    if (!value || float_problem(*value, dtype)) return std::nullopt;
    return attrs.floating(*value, static_cast<std::uint8_t>(dtype.bits));
  }
  if (type_key == "Array") {
    std::vector<AttrValueId> elements;
    if (node.contains("data")) {
      for (const auto& item : node["data"]) {
        if (!item.is_number_unsigned()) return std::nullopt;
        auto element = metadata_value(context, section, item.get<std::size_t>(), depth + 1);
        if (!element) return std::nullopt;
        elements.push_back(*element);
      }
    }
    return attrs.array(elements);
  }
  return std::nullopt;
}

/// The same, for a node index written as a decimal string (an attrs field's value).
inline std::optional<AttrValueId> metadata_value(Context& context, const MetadataSection& section,
                                                 std::string_view reference, int depth = 0) {
  auto index = relay::detail::parse_decimal<std::size_t>(reference);
  if (!index) return std::nullopt;
  return metadata_value(context, section, *index, depth);
}

/// A call attrs struct stored in the metadata section, as the canonical object of its schema;
/// nullopt when the node is not one, or is malformed.
inline std::optional<AttrValueId> metadata_attrs(Context& context, AttrSchemaCache& cache,
                                                 const MetadataSection& section,
                                                 const nlohmann::json& node) {
  const AttrSchema* schema = context.ops.find_schema(metadata_string(node, "type_key"));
  if (schema == nullptr || !node.contains("attrs")) return std::nullopt;
  const nlohmann::json& members = node["attrs"];
  std::vector<AttrField> fields;
  for (const AttrSchemaField& declared : schema->fields) {
    std::string name(context.strings.view(declared.name));
    if (!members.is_object() || !members.contains(name) || !members[name].is_string()) {
      return std::nullopt;
    }
    std::string_view raw = metadata_string(members, name.c_str());
    std::optional<AttrValueId> value;
    AttrTable& attrs = context.attrs;
    switch (cache.storage(declared)) {
      case relay::FieldStorage::kInt:
        if (auto integer = relay::detail::parse_decimal<std::int64_t>(raw)) {
          value = attrs.integer(*integer, 32);
        }
        break;
      case relay::FieldStorage::kBool: value = attrs.boolean(raw != "0"); break;
      case relay::FieldStorage::kDouble:
        if (auto floating = relay::detail::parse_decimal<double>(raw)) {
          value = attrs.floating(*floating, 64);
        }
        break;
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
