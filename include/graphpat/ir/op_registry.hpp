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
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/detail/linkage.hpp"
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

/// Owns the ops and attribute schemas of a context. A registry made from a prototype copies
/// its op table (a few KB) and looks names and schemas up in the prototype, which must outlive
/// it unchanged. Not thread-safe.
class OpRegistry {
 public:
  explicit OpRegistry(StringPool& strings) : strings_(strings) {}
  /// A registry holding what `prototype` holds, over `strings` (a pool based on the
  /// prototype's, so every StringId it holds means the same there).
  OpRegistry(StringPool& strings, const OpRegistry& prototype)
      : strings_(strings),
        base_(&prototype),
        ops_(prototype.ops_),
        base_schema_count_(prototype.schema_count()) {}

  /// Adds an attribute schema; returns its id.
  GRAPHPAT_INSTANTIATED_ON_CALL AttrSchemaId add_schema(AttrSchema schema) {
    AttrSchemaId id(static_cast<std::uint32_t>(schema_count()));
    schema_index_.try_emplace(schema.type_key, id);
    schemas_.push_back(std::move(schema));
    return id;
  }
  /// Registers an op, or replaces what is known of it; returns its id.
  GRAPHPAT_INSTANTIATED_ON_CALL OpId add(const OpInfo& info) {
    OpId existing = find_interned(info.name);
    if (existing.valid()) {
      ops_[existing.index()] = info;
      return existing;
    }
    OpId id(static_cast<std::uint32_t>(ops_.size()));
    index_.emplace(info.name, id);
    ops_.push_back(info);
    return id;
  }

  /// The op called `name`, or an invalid id.
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] OpId find(std::string_view name) const {
    StringId interned = strings_.find(name);
    return interned.valid() ? find_interned(interned) : OpId();
  }
  /// The op called `name`, registering it as an unknown opaque op on first sight.
  GRAPHPAT_INSTANTIATED_ON_CALL OpId find_or_add(std::string_view name) {
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
    if (!op.schema.valid()) return nullptr;
    std::size_t index = op.schema.index();
    return index < base_schema_count_ ? base_->schema(op) : &schemas_[index - base_schema_count_];
  }
  /// The schema with type key `type_key` ("relay.attrs.Conv2DAttrs"), or nullptr.
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] const AttrSchema* find_schema(
      std::string_view type_key) const {
    if (base_ != nullptr) {
      if (const AttrSchema* in_base = base_->find_schema(type_key)) return in_base;
    }
    StringId interned = strings_.find(type_key);
    auto found = interned.valid() ? schema_index_.find(interned) : schema_index_.end();
    if (found == schema_index_.end()) return nullptr;
    return &schemas_[found->second.index() - base_schema_count_];
  }

  [[nodiscard]] std::size_t size() const { return ops_.size(); }
  [[nodiscard]] std::size_t schema_count() const { return base_schema_count_ + schemas_.size(); }
  [[nodiscard]] bool contains(OpId id) const { return id.valid() && id.index() < size(); }

 private:
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] OpId find_interned(StringId name) const {
    if (base_ != nullptr) {
      OpId in_base = base_->find_interned(name);
      if (in_base.valid()) return in_base;
    }
    auto found = index_.find(name);
    return found == index_.end() ? OpId() : found->second;
  }

  StringPool& strings_;
  const OpRegistry* base_ = nullptr;
  std::vector<OpInfo> ops_;
  absl::flat_hash_map<StringId, OpId> index_;  // ops added since the prototype
  std::size_t base_schema_count_ = 0;
  std::vector<AttrSchema> schemas_;  // schemas added since the prototype
  absl::flat_hash_map<StringId, AttrSchemaId> schema_index_;
};

namespace detail {

/// How graphpat says that the registry does not have an op, whoever asks it by name (the
/// Matcher's warning for is_op, the refusal of relay::call_attrs and Rewriter::call): "no op
/// nn.rleu is registered in dialect relay".
inline std::string unregistered_op_text(std::string_view op_name, std::string_view dialect_name) {
  return fmt::format("no op {} is registered in dialect {}", op_name, dialect_name);
}

}  // namespace detail

}  // namespace graphpat
