// The op registry of a context: for every operator its name, its attribute struct (field order
// and declared defaults, which the printers need) and the properties graphpat's engines read
// (commutative, stateful, op pattern kind). A dialect fills it; ops met in input files that the
// dialect does not know are added on the fly as opaque, never rejected.
//
//   const graphpat::OpInfo& conv = context.ops.info(context.op("nn.conv2d"));
//   if (conv.pattern_kind == graphpat::OpPatternKind::kOutEWiseFusable) { ... }
//   const graphpat::AttrSchema* schema = context.ops.schema(conv);  // relay.attrs.Conv2DAttrs
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "graphpat/ir/ids.hpp"
#include "graphpat/ir/strings.hpp"

namespace graphpat {

/// Relay's TOpPattern, the fusion class of an op.
enum class OpPatternKind : std::int8_t {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};

/// One field of an attribute struct, in declaration order.
struct AttrSchemaField {
  StringId name;
  StringId cpp_type;  // TVM's field type ("Array<IndexExpr>", "double", "DataType", ...)
  bool has_default = false;
  StringId default_value;  // Relay attribute text of the declared default ("[1, 1]", "None")
};

/// An attribute struct such as relay.attrs.Conv2DAttrs.
struct AttrSchema {
  StringId type_key;
  std::vector<AttrSchemaField> fields;
};
using AttrSchemaId = Id<struct AttrSchemaTag>;

/// What the registry knows of one op.
struct OpInfo {
  StringId name;
  AttrSchemaId schema;  // invalid when the op takes no attribute struct
  bool commutative = false;
  bool stateful = false;
  OpPatternKind pattern_kind = OpPatternKind::kOpaque;
  bool known = true;  // false for an op first met in an input file
};

/// Owns the ops and attribute schemas of a context. Not thread-safe.
class OpRegistry {
 public:
  explicit OpRegistry(StringPool& strings) : strings_(strings) {}

  /// Adds an attribute schema; returns its id.
  AttrSchemaId add_schema(AttrSchema schema) {
    AttrSchemaId id(static_cast<std::uint32_t>(schemas_.size()));
    schema_index_.try_emplace(schema.type_key, id);
    schemas_.push_back(std::move(schema));
    return id;
  }
  /// Registers an op, or replaces what is known of it; returns its id.
  OpId add(const OpInfo& info) {
    auto [slot, inserted] =
        index_.try_emplace(info.name, OpId(static_cast<std::uint32_t>(ops_.size())));
    if (inserted) {
      ops_.push_back(info);
    } else {
      ops_[slot->second.index()] = info;
    }
    return slot->second;
  }

  /// The op called `name`, or an invalid id.
  [[nodiscard]] OpId find(std::string_view name) const {
    StringId interned = strings_.find(name);
    if (!interned.valid()) return OpId();
    auto found = index_.find(interned);
    return found == index_.end() ? OpId() : found->second;
  }
  /// The op called `name`, registering it as an unknown opaque op on first sight.
  OpId find_or_add(std::string_view name) {
    OpId found = find(name);
    if (found.valid()) return found;
    OpInfo unknown;
    unknown.name = strings_.intern(name);
    unknown.known = false;
    return add(unknown);
  }

  [[nodiscard]] const OpInfo& info(OpId id) const { return ops_[id.index()]; }
  [[nodiscard]] std::string_view name(OpId id) const { return strings_.view(info(id).name); }
  /// The op's attribute schema, or nullptr.
  [[nodiscard]] const AttrSchema* schema(const OpInfo& op) const {
    return op.schema.valid() ? &schemas_[op.schema.index()] : nullptr;
  }
  /// The schema with type key `type_key` ("relay.attrs.Conv2DAttrs"), or nullptr.
  [[nodiscard]] const AttrSchema* find_schema(std::string_view type_key) const {
    StringId interned = strings_.find(type_key);
    auto found = interned.valid() ? schema_index_.find(interned) : schema_index_.end();
    return found == schema_index_.end() ? nullptr : &schemas_[found->second.index()];
  }

  [[nodiscard]] std::size_t size() const { return ops_.size(); }
  [[nodiscard]] std::size_t schema_count() const { return schemas_.size(); }
  [[nodiscard]] bool contains(OpId id) const { return id.valid() && id.index() < size(); }

 private:
  StringPool& strings_;
  std::vector<OpInfo> ops_;
  absl::flat_hash_map<StringId, OpId> index_;
  std::vector<AttrSchema> schemas_;
  absl::flat_hash_map<StringId, AttrSchemaId> schema_index_;
};

}  // namespace graphpat
