// Equality and hashing of types, attribute values and tensors by value, also between two
// contexts (two graphs read from two files). Within one context interning makes equality an id
// compare, which is the fast path taken here.
//
//   bool same = graphpat::types_equal(left.context(), t1, right.context(), t2);
//   std::uint64_t h = graphpat::attr_value_hash(context, attrs);  // equal values, equal hashes
#pragma once

#include <absl/hash/hash.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "graphpat/ir/context.hpp"

namespace graphpat {

/// Whether type `a` of context `ca` equals type `b` of context `cb` (both may be "no type").
inline bool types_equal(const Context& ca, TypeId a, const Context& cb, TypeId b) {
  if (&ca == &cb || !a.valid() || !b.valid()) return a == b;
  const TypeRecord& ra = ca.types.get(a);
  const TypeRecord& rb = cb.types.get(b);
  if (ra.kind != rb.kind || ra.extra != rb.extra) return false;
  if (ra.name.valid() != rb.name.valid()) return false;
  if (ra.name.valid() && ca.strings.view(ra.name) != cb.strings.view(rb.name)) return false;
  if (ra.kind == TypeKind::kTensor) {
    auto da = ca.types.dims(a);
    auto db = cb.types.dims(b);
    return std::equal(da.begin(), da.end(), db.begin(), db.end(), [&](DimId x, DimId y) {
      const Dim& dx = ca.types.get_dim(x);
      const Dim& dy = cb.types.get_dim(y);
      if (dx.kind != dy.kind || dx.bits != dy.bits || dx.value != dy.value) return false;
      if (dx.kind != Dim::Kind::kSymbol) return true;
      return ca.strings.view(dx.symbol) == cb.strings.view(dy.symbol) &&
             ca.strings.view(dx.symbol_type_key) == cb.strings.view(dy.symbol_type_key);
    });
  }
  auto ka = ca.types.children(a);
  auto kb = cb.types.children(b);
  return std::equal(ka.begin(), ka.end(), kb.begin(), kb.end(),
                    [&](TypeId x, TypeId y) { return types_equal(ca, x, cb, y); });
}

/// Whether attribute value `a` of `ca` equals `b` of `cb` (both may be "none").
inline bool attr_values_equal(const Context& ca, AttrValueId a, const Context& cb, AttrValueId b) {
  if (&ca == &cb || !a.valid() || !b.valid()) return a == b;
  const AttrRecord& ra = ca.attrs.get(a);
  const AttrRecord& rb = cb.attrs.get(b);
  if (ra.kind != rb.kind || ra.bits != rb.bits || ra.is_unsigned != rb.is_unsigned ||
      ra.payload != rb.payload) {
    return false;
  }
  if (ra.text.valid() != rb.text.valid()) return false;
  if (ra.text.valid() && ca.strings.view(ra.text) != cb.strings.view(rb.text)) return false;
  switch (ra.kind) {
    case AttrKind::kArray: {
      auto ea = ca.attrs.elements(a);
      auto eb = cb.attrs.elements(b);
      return std::equal(
          ea.begin(), ea.end(), eb.begin(), eb.end(),
          [&](AttrValueId x, AttrValueId y) { return attr_values_equal(ca, x, cb, y); });
    }
    case AttrKind::kMap:
    case AttrKind::kObject: {
      std::size_t count = ca.attrs.entry_count(a);
      if (count != cb.attrs.entry_count(b)) return false;
      for (std::size_t i = 0; i < count; ++i) {
        bool keys_equal = ra.kind == AttrKind::kMap ? attr_values_equal(ca, ca.attrs.map_key(a, i),
                                                                        cb, cb.attrs.map_key(b, i))
                                                    : ca.strings.view(ca.attrs.field_key(a, i)) ==
                                                          cb.strings.view(cb.attrs.field_key(b, i));
        if (!keys_equal ||
            !attr_values_equal(ca, ca.attrs.entry_value(a, i), cb, cb.attrs.entry_value(b, i))) {
          return false;
        }
      }
      return true;
    }
    default:
      return true;
  }
}

/// Whether two tensors have the same dtype and shape, and the same bytes when both have bytes.
inline bool tensors_equal(const Context& ca, const Tensor& a, const Context& cb, const Tensor& b) {
  if (ca.strings.view(a.dtype) != cb.strings.view(b.dtype) || a.shape != b.shape) return false;
  if (!a.has_data() || !b.has_data()) return true;
  auto va = a.data->view();
  auto vb = b.data->view();
  return va.size() == vb.size() &&
         (va.data() == vb.data() || std::memcmp(va.data(), vb.data(), va.size()) == 0);
}

/// A hash of a type by value: equal types (in any contexts) hash equally.
inline std::uint64_t type_hash(const Context& context, TypeId id) {
  if (!id.valid()) return 0x9e3779b97f4a7c15ULL;
  const TypeRecord& record = context.types.get(id);
  std::uint64_t hash =
      absl::HashOf(record.kind, record.extra,
                   record.name.valid() ? context.strings.view(record.name) : std::string_view());
  if (record.kind == TypeKind::kTensor) {
    for (DimId dim_id : context.types.dims(id)) {
      const Dim& dim = context.types.get_dim(dim_id);
      hash =
          absl::HashOf(hash, dim.kind, dim.bits, dim.value,
                       dim.symbol.valid() ? context.strings.view(dim.symbol) : std::string_view());
    }
    return hash;
  }
  for (TypeId child : context.types.children(id))
    hash = absl::HashOf(hash, type_hash(context, child));
  return hash;
}

/// A hash of an attribute value by value.
inline std::uint64_t attr_value_hash(const Context& context, AttrValueId id) {
  if (!id.valid()) return 0x51ed27a9c3ab5f1dULL;
  const AttrRecord& record = context.attrs.get(id);
  std::uint64_t hash =
      absl::HashOf(record.kind, record.bits, record.is_unsigned, record.payload,
                   record.text.valid() ? context.strings.view(record.text) : std::string_view());
  switch (record.kind) {
    case AttrKind::kArray:
      for (AttrValueId element : context.attrs.elements(id)) {
        hash = absl::HashOf(hash, attr_value_hash(context, element));
      }
      return hash;
    case AttrKind::kMap:
    case AttrKind::kObject:
      for (std::size_t i = 0; i < context.attrs.entry_count(id); ++i) {
        std::uint64_t key =
            record.kind == AttrKind::kMap
                ? attr_value_hash(context, context.attrs.map_key(id, i))
                : absl::HashOf(context.strings.view(context.attrs.field_key(id, i)));
        hash = absl::HashOf(hash, key, attr_value_hash(context, context.attrs.entry_value(id, i)));
      }
      return hash;
    default:
      return hash;
  }
}

}  // namespace graphpat
