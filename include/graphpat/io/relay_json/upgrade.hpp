// Upgrades the node table of a JSON file written by an older TVM to the v0.14 field set, as
// TVM's python/tvm/ir/json_compact.py does for the node types Relay uses
// (docs/relay-formats.md §3.7): 0.7 → 0.8 adds `IRModule.attrs`, 0.8 → 0.9 adds
// `virtual_device_` to GlobalVar and every Relay expression. Files from 0.9 on need nothing
// (later updaters touch only Relax/TIR).
// The 0.6 -> 0.7 renames are not implemented: such files are refused with a located error.
//
//   absl::Status status = graphpat::relay::detail::upgrade_document(document);
//   // a "0.8.0" file now has virtual_device_ = "0" everywhere and tvm_version "0.14.0"
#pragma once

#include <absl/status/status.h>

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/io/relay_json/layouts.hpp"

namespace graphpat::relay::detail {

/// The version graphpat writes, and what an upgraded file claims to be.
inline constexpr std::string_view kTvmVersion = "0.14.0";

/// Adds `name = "0"` (null) to every node whose type key satisfies `applies` and lacks it.
template <class Predicate>
void add_null_field(JsonDocument& doc, std::string_view name, Predicate applies) {
  StringId key = doc.names.intern(name);
  std::vector<JsonField> fields;
  for (std::uint32_t index = 0; index < doc.size(); ++index) {
    if (!applies(doc.type_key(index)) || doc.field(index, name)) continue;
    auto existing = doc.fields_of(index);
    fields.assign(existing.begin(), existing.end());
    fields.push_back({key, doc.store("0")});
    doc.set_fields(index, fields);
  }
}

/// Brings `doc` to the v0.14 layout; refuses versions older than 0.7.
inline absl::Status upgrade_document(JsonDocument& doc) {
  std::string* version = nullptr;
  for (auto& [key, value] : doc.attrs) {
    if (key == "tvm_version") version = &value;
  }
  if (version == nullptr || !version->starts_with("0.")) return absl::OkStatus();
  int minor = 0;
  std::string_view rest = std::string_view(*version).substr(2);
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), minor);
  if (error != std::errc() || minor >= 9) return absl::OkStatus();
  if (minor < 7) {
    return json_error("unsupported", "attrs.tvm_version",
                      fmt::format("files from TVM {} need json_compact.py's 0.6 -> 0.7 renames, "
                                  "which graphpat does not implement; re-save them with TVM 0.7+",
                                  *version));
  }
  if (minor == 7) {
    add_null_field(doc, "attrs", [](std::string_view key) { return key == "IRModule"; });
  }
  add_null_field(doc, "virtual_device_", [](std::string_view key) {
    return key == "GlobalVar" ||
           (key.starts_with("relay.") && key != "relay.Constructor" && is_expression_key(key));
  });
  *version = std::string(kTvmVersion);
  return absl::OkStatus();
}

}  // namespace graphpat::relay::detail
