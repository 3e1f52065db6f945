// Interned types, as Relay writes them: tensor types with integer, `?` (Any) or symbolic dims
// and a dtype; tuple types; function types; type variables and type calls (for carried-through
// ADTs); reference types; and an opaque type that keeps the text of anything else. A rank-0
// tensor type is a scalar type (`float32`). Equal types get the same TypeId.
//
//   graphpat::TypeTable& types = context.types;
//   graphpat::TypeId image = types.tensor("float32", {types.dim(1), types.dim(3),
//                                                     types.dim(224), types.dim(224)});
//   graphpat::TypeId pair = types.tuple({image, types.tensor("int64", {})});
//   fmt::print("{}\n", graphpat::show(context, pair));  // (Tensor[(1, 3, 224, 224), float32],
//   int64)
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "graphpat/detail/id_span.hpp"
#include "graphpat/detail/intern_table.hpp"
#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/ids.hpp"
#include "graphpat/ir/strings.hpp"

namespace graphpat {

/// One dimension of a tensor type.
struct Dim {
  enum class Kind : std::uint8_t {
    kInt,     // a known extent; `bits` is the IntImm width (32 prints `3`, 64 prints `3i64`)
    kAny,     // `?`
    kSymbol,  // a symbolic extent (`tir.SizeVar` n, or an expression kept by name)
  };
  Kind kind = Kind::kInt;
  std::uint8_t bits = 32;
  std::int64_t value = 0;
  StringId symbol;           // kSymbol: its name
  StringId symbol_type_key;  // kSymbol: what TVM calls it ("tir.SizeVar", "tir.Var", ...)

  friend bool operator==(const Dim&, const Dim&) = default;
  template <class H>
  friend H AbslHashValue(H state, const Dim& dim) {
    return H::combine(std::move(state), dim.kind, dim.bits, dim.value, dim.symbol,
                      dim.symbol_type_key);
  }
};
using DimId = Id<struct DimTag>;

enum class TypeKind : std::uint8_t {
  kTensor,         // dtype + dims; rank 0 is a scalar type
  kTuple,          // fields
  kFunc,           // type params, params, result
  kTypeVar,        // a type parameter `A`
  kGlobalTypeVar,  // an ADT name `List`
  kTypeCall,       // `List[A]`: callee then args
  kRef,            // `ref(T)`
  kIncomplete,     // an uninferred type
  kOpaque,         // anything else, kept as its text
};

/// The identity of one interned type (its children live in the table).
struct TypeRecord {
  TypeKind kind = TypeKind::kOpaque;
  StringId name;           // tensor: dtype; vars: name; opaque: the text
  std::int32_t extra = 0;  // vars and incomplete: TVM's TypeKind; func: number of type params

  friend bool operator==(const TypeRecord&, const TypeRecord&) = default;
  template <class H>
  friend H AbslHashValue(H state, const TypeRecord& record) {
    return H::combine(std::move(state), record.kind, record.name, record.extra);
  }
};

/// Owns every type of a context. Not thread-safe.
class TypeTable {
 public:
  explicit TypeTable(StringPool& strings) : strings_(strings) {}

  /// A dimension of known extent.
  GRAPHPAT_INSTANTIATED_ON_CALL DimId dim(std::int64_t extent, std::uint8_t bits = 32) {
    return intern_dim({Dim::Kind::kInt, bits, extent, {}, {}});
  }
  /// The unknown dimension `?`.
  GRAPHPAT_INSTANTIATED_ON_CALL DimId any_dim() {
    return intern_dim({Dim::Kind::kAny, 32, 0, {}, {}});
  }
  /// A symbolic dimension named `name`, of TVM type `type_key` (e.g. "tir.SizeVar").
  GRAPHPAT_INSTANTIATED_ON_CALL DimId symbolic_dim(std::string_view name,
                                                   std::string_view type_key = "tir.Var") {
    return intern_dim(
        {Dim::Kind::kSymbol, 32, 0, strings_.intern(name), strings_.intern(type_key)});
  }
  [[nodiscard]] const Dim& get_dim(DimId id) const { return dims_[id.index()]; }

  GRAPHPAT_INSTANTIATED_ON_CALL TypeId tensor(std::string_view dtype, std::span<const DimId> dims) {
    return tensor(strings_.intern(dtype), dims);
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId tensor(std::string_view dtype,
                                              std::initializer_list<DimId> dims) {
    return tensor(strings_.intern(dtype), std::span(dims.begin(), dims.size()));
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId tensor(StringId dtype, std::span<const DimId> dims) {
    return intern({TypeKind::kTensor, dtype, 0}, slots_of(dims));
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId tuple(std::span<const TypeId> fields) {
    return intern({TypeKind::kTuple, {}, 0}, slots_of(fields));
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId tuple(std::initializer_list<TypeId> fields) {
    return tuple(std::span(fields.begin(), fields.size()));
  }
  /// `fn [type_params](params) -> result`.
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId func(std::span<const TypeId> params, TypeId result,
                                            std::span<const TypeId> type_params = {}) {
    detail::ChildSlots slots = slots_of(type_params);
    for (TypeId param : params) slots.push_back(param.value);
    slots.push_back(result.value);
    return intern({TypeKind::kFunc, {}, static_cast<std::int32_t>(type_params.size())}, slots);
  }
  /// A type variable; `tvm_kind` is TVM's TypeKind (0 Type, 1 ShapeVar, 5 AdtHandle, ...).
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId type_var(std::string_view name, std::int32_t tvm_kind = 0) {
    return intern({TypeKind::kTypeVar, strings_.intern(name), tvm_kind}, {});
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId global_type_var(std::string_view name,
                                                       std::int32_t tvm_kind = 5) {
    return intern({TypeKind::kGlobalTypeVar, strings_.intern(name), tvm_kind}, {});
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId type_call(TypeId callee, std::span<const TypeId> args) {
    detail::ChildSlots slots{callee.value};
    for (TypeId arg : args) slots.push_back(arg.value);
    return intern({TypeKind::kTypeCall, {}, 0}, slots);
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId ref(TypeId value) {
    return intern({TypeKind::kRef, {}, 0}, std::vector{value.value});
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId incomplete(std::int32_t tvm_kind = 0) {
    return intern({TypeKind::kIncomplete, {}, tvm_kind}, {});
  }
  /// A type graphpat does not model, kept as its text so that it prints back unchanged.
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId opaque(std::string_view text) {
    return intern({TypeKind::kOpaque, strings_.intern(text), 0}, {});
  }

  [[nodiscard]] const TypeRecord& get(TypeId id) const { return table_.record(id); }
  [[nodiscard]] TypeKind kind(TypeId id) const { return get(id).kind; }
  /// Tensor: its dims.
  [[nodiscard]] detail::IdSpan<DimId> dims(TypeId id) const { return slots<DimId>(id); }
  /// Tuple: its fields; func: type params, params, result; type call: callee, args; ref: value.
  [[nodiscard]] detail::IdSpan<TypeId> children(TypeId id) const { return slots<TypeId>(id); }
  /// Function types, split.
  [[nodiscard]] detail::IdSpan<TypeId> func_type_params(TypeId id) const {
    return children(id).subspan(0, static_cast<std::size_t>(get(id).extra));
  }
  [[nodiscard]] detail::IdSpan<TypeId> func_params(TypeId id) const {
    detail::IdSpan<TypeId> all = children(id);
    return all.subspan(static_cast<std::size_t>(get(id).extra),
                       all.size() - 1 - static_cast<std::size_t>(get(id).extra));
  }
  [[nodiscard]] TypeId func_result(TypeId id) const { return children(id).back(); }

  [[nodiscard]] std::size_t size() const { return table_.size(); }
  [[nodiscard]] bool contains(TypeId id) const { return table_.contains(id); }
  [[nodiscard]] const StringPool& strings() const { return strings_; }

 private:
  template <class T>
  static detail::ChildSlots slots_of(std::span<const T> ids) {
    detail::ChildSlots slots;
    slots.reserve(ids.size());
    for (T id : ids) slots.push_back(id.value);
    return slots;
  }
  GRAPHPAT_INSTANTIATED_ON_CALL TypeId intern(const TypeRecord& record,
                                              std::span<const std::uint32_t> slots) {
    return table_.intern(record, slots);
  }
  template <class T>
  detail::IdSpan<T> slots(TypeId id) const {
    return detail::IdSpan<T>(table_.children(id));
  }
  GRAPHPAT_INSTANTIATED_ON_CALL DimId intern_dim(const Dim& dim) {
    auto [slot, inserted] =
        dim_index_.try_emplace(dim, DimId(static_cast<std::uint32_t>(dims_.size())));
    if (inserted) dims_.push_back(dim);
    return slot->second;
  }

  StringPool& strings_;
  detail::InternTable<TypeRecord, TypeId> table_;
  std::vector<Dim> dims_;
  absl::flat_hash_map<Dim, DimId> dim_index_;
};

}  // namespace graphpat
