// Interned attribute values, as Relay's attribute structs and DictAttrs hold them: null, bool,
// integers and floats with their bit width, strings, dtypes, arrays, maps, and objects. An
// object is a type key plus named fields in order; it is both how a call's attribute struct
// (`relay.attrs.Conv2DAttrs`) or a function's DictAttrs is stored and the opaque structured
// value for anything graphpat does not model, so nothing read is ever dropped. Equal values get
// the same AttrValueId, so a whole attribute dictionary compares and hashes as one id.
//
//   graphpat::AttrTable& attrs = context.attrs;
//   graphpat::AttrValueId conv_attrs = attrs.object("relay.attrs.Conv2DAttrs", {
//       {"strides", attrs.array({attrs.integer(2), attrs.integer(2)})},
//       {"data_layout", attrs.string("NCHW")},
//   });
//   fmt::print("{}\n", graphpat::show(context, conv_attrs));  // {strides=[2, 2],
//   data_layout="NCHW"}
#pragma once

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/id_span.hpp"
#include "graphpat/detail/intern_table.hpp"
#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/ids.hpp"
#include "graphpat/ir/strings.hpp"

namespace graphpat {

enum class AttrKind : std::uint8_t {
  kNull,      // None
  kBool,      // True / False
  kInt,       // an integer with its width (and signedness)
  kFloat,     // a float with its width
  kString,    // "NCHW"
  kDataType,  // a dtype value (out_dtype="float32"); "" is the void dtype
  kArray,     // [a, b]
  kMap,       // {k=v}: keys and values are values
  kObject,    // a type key and named fields, in order
};

/// The identity of one interned value (its children live in the table).
struct AttrRecord {
  AttrKind kind = AttrKind::kNull;
  std::uint8_t bits = 0;      // int/float width: 1, 8, 16, 32, 64
  bool is_unsigned = false;   // int: unsigned
  StringId text{};            // string / dtype / object type key
  std::uint64_t payload = 0;  // bool, int (two's complement) or float (IEEE bits)

  friend bool operator==(const AttrRecord&, const AttrRecord&) = default;
  template <class H>
  friend H AbslHashValue(H state, const AttrRecord& record) {
    return H::combine(std::move(state), record.kind, record.bits, record.is_unsigned, record.text,
                      record.payload);
  }
};

/// One named field of an object value.
struct AttrField {
  StringId key;
  AttrValueId value;
};

/// Owns every attribute value of a context. Not thread-safe.
class AttrTable {
 public:
  explicit AttrTable(StringPool& strings) : strings_(strings) {}

  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId null() { return intern({AttrKind::kNull}, {}); }
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId boolean(bool value) {
    return intern({AttrKind::kBool, 1, false, {}, value}, {});
  }
  /// An integer of `bits` width (int32 by default; IntImm int64 prints `1i64`).
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId integer(std::int64_t value, std::uint8_t bits = 32,
                                                    bool is_unsigned = false) {
    return intern({AttrKind::kInt, bits, is_unsigned, {}, static_cast<std::uint64_t>(value)}, {});
  }
  /// A float of `bits` width (32 for a Relay `float32` value such as `1f`, 64 for an attribute
  /// field declared `double`, as `epsilon`); the value is kept exactly (as a double, bit for
  /// bit). No default: the width is part of the value, and the readers give most attribute
  /// fields 64 bits.
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId floating(double value, std::uint8_t bits) {
    return intern({AttrKind::kFloat, bits, false, {}, std::bit_cast<std::uint64_t>(value)}, {});
  }
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId string(std::string_view value) {
    return intern({AttrKind::kString, 0, false, strings_.intern(value), 0}, {});
  }
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId data_type(std::string_view dtype) {
    return intern({AttrKind::kDataType, 0, false, strings_.intern(dtype), 0}, {});
  }
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId array(std::span<const AttrValueId> elements) {
    detail::ChildSlots slots;
    slots.reserve(elements.size());
    for (AttrValueId element : elements) slots.push_back(element.value);
    return intern({AttrKind::kArray}, slots);
  }
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId array(std::initializer_list<AttrValueId> elements) {
    return array(std::span(elements.begin(), elements.size()));
  }
  /// A map, entries in the order given (Relay keeps insertion order for printing).
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId
  map(std::span<const std::pair<AttrValueId, AttrValueId>> entries) {
    detail::ChildSlots slots;
    slots.reserve(entries.size() * 2);
    for (auto [key, value] : entries) {
      slots.push_back(key.value);
      slots.push_back(value.value);
    }
    return intern({AttrKind::kMap}, slots);
  }
  /// An object (an attribute struct, DictAttrs, or any structured value) with fields in order.
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId object(std::string_view type_key,
                                                   std::span<const AttrField> fields) {
    detail::ChildSlots slots;
    slots.reserve(fields.size() * 2);
    for (const AttrField& field : fields) {
      slots.push_back(field.key.value);
      slots.push_back(field.value.value);
    }
    return intern({AttrKind::kObject, 0, false, strings_.intern(type_key), 0}, slots);
  }
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId
  object(std::string_view type_key,
         std::initializer_list<std::pair<std::string_view, AttrValueId>> fields) {
    std::vector<AttrField> named;
    named.reserve(fields.size());
    for (auto [key, value] : fields) named.push_back({strings_.intern(key), value});
    return object(type_key, named);
  }

  [[nodiscard]] const AttrRecord& get(AttrValueId id) const { return table_.record(id); }
  [[nodiscard]] AttrKind kind(AttrValueId id) const { return get(id).kind; }
  [[nodiscard]] bool as_bool(AttrValueId id) const { return get(id).payload != 0; }
  [[nodiscard]] std::int64_t as_int(AttrValueId id) const {
    return static_cast<std::int64_t>(get(id).payload);
  }
  [[nodiscard]] double as_float(AttrValueId id) const {
    return std::bit_cast<double>(get(id).payload);
  }
  /// String / dtype: the text; object: the type key.
  [[nodiscard]] std::string_view text(AttrValueId id) const { return strings_.view(get(id).text); }
  /// Array: the elements.
  [[nodiscard]] detail::IdSpan<AttrValueId> elements(AttrValueId id) const {
    return detail::IdSpan<AttrValueId>(table_.children(id));
  }
  /// Map and object: number of entries / fields.
  [[nodiscard]] std::size_t entry_count(AttrValueId id) const {
    return table_.children(id).size() / 2;
  }
  /// Map: the i-th key; object: use field_key.
  [[nodiscard]] AttrValueId map_key(AttrValueId id, std::size_t i) const {
    return AttrValueId(table_.children(id)[2 * i]);
  }
  [[nodiscard]] StringId field_key(AttrValueId id, std::size_t i) const {
    return StringId(table_.children(id)[2 * i]);
  }
  /// Map or object: the i-th value.
  [[nodiscard]] AttrValueId entry_value(AttrValueId id, std::size_t i) const {
    return AttrValueId(table_.children(id)[2 * i + 1]);
  }
  /// Object: the value of field `key`, if present.
  GRAPHPAT_INSTANTIATED_ON_CALL [[nodiscard]] std::optional<AttrValueId> find_field(
      AttrValueId id, std::string_view key) const {
    StringId wanted = strings_.find(key);
    if (!wanted.valid()) return std::nullopt;
    for (std::size_t i = 0; i < entry_count(id); ++i) {
      if (field_key(id, i) == wanted) return entry_value(id, i);
    }
    return std::nullopt;
  }

  [[nodiscard]] std::size_t size() const { return table_.size(); }
  [[nodiscard]] bool contains(AttrValueId id) const { return table_.contains(id); }
  [[nodiscard]] const StringPool& strings() const { return strings_; }

 private:
  GRAPHPAT_INSTANTIATED_ON_CALL AttrValueId intern(const AttrRecord& record,
                                                   std::span<const std::uint32_t> slots) {
    return table_.intern(record, slots);
  }

  StringPool& strings_;
  detail::InternTable<AttrRecord, AttrValueId> table_;
};

}  // namespace graphpat
