// The field layout of every TVM object a Relay JSON file holds: field names in declaration
// (VisitAttrs) order, which is the order save_json numbers nodes in, and how each field is
// stored (an inline string such as `"groups": "1"`, or a reference to another node). Relay
// attribute structs (relay.attrs.*) take their layout from the op registry's schemas; the other
// types are TVM v0.14's, listed below (docs/relay-formats.md §3.5).
//
//   graphpat::relay::detail::LayoutCache layouts(context);
//   const graphpat::relay::detail::Layout* call = layouts.find("relay.Call");
//   // call->fields[0] is {"op", FieldKind::kRef}; nullptr for a type key nobody knows
#pragma once


#include <algorithm>
#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/detail/text_map.hpp"
#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/relay/attr_fields.hpp"

namespace graphpat::relay::detail {

/// How one field of a TVM object is stored in JSON.
enum class FieldKind : std::uint8_t {
  kRef,       // a node index as a decimal string ("0" is null)
  kInt,       // inline decimal (int, int64_t, enums)
  kBool,      // inline "1" / "0"
  kDouble,    // inline %.17g
  kString,    // inline std::string
  kDataType,  // inline dtype ("float32", "" for void)
  kNDArray,   // inline index into b64ndarrays (relay.Constant.data)
};

/// The word for `kind` in messages ("int", "dtype", ...).
constexpr std::string_view field_kind_name(FieldKind kind) {
  switch (kind) {
    case FieldKind::kRef:
      return "reference";
    case FieldKind::kInt:
      return "int";
    case FieldKind::kBool:
      return "bool";
    case FieldKind::kDouble:
      return "double";
    case FieldKind::kString:
      return "string";
    case FieldKind::kDataType:
      return "dtype";
    case FieldKind::kNDArray:
      return "ndarray";
  }
  return "reference";
}

/// The value an inline field of `kind` reads as: its attribute kind and, for a number, its
/// width (0 for the others). The reader makes every inline field this form whatever the text,
/// so the writer may write a value inline only if it is already in it (`has_inline_form`).
/// A reference field has no inline form: its value is the object it refers to.
struct InlineForm {
  AttrKind kind;
  std::uint8_t bits = 0;
};

constexpr std::optional<InlineForm> inline_form(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt:
      return InlineForm{AttrKind::kInt, 32};
    case FieldKind::kNDArray:
      return InlineForm{AttrKind::kInt, 64};
    case FieldKind::kBool:
      return InlineForm{AttrKind::kBool};
    case FieldKind::kDouble:
      return InlineForm{AttrKind::kFloat, 64};
    case FieldKind::kString:
      return InlineForm{AttrKind::kString};
    case FieldKind::kDataType:
      return InlineForm{AttrKind::kDataType};
    case FieldKind::kRef:
      break;
  }
  return std::nullopt;
}

/// Whether `record`, written inline in a field of `kind`, reads back as itself (a reference
/// field always does).
inline bool has_inline_form(const AttrRecord& record, FieldKind kind) {
  std::optional<InlineForm> form = inline_form(kind);
  if (!form) return true;
  bool is_number = form->kind == AttrKind::kInt || form->kind == AttrKind::kFloat;
  return record.kind == form->kind && (!is_number || record.bits == form->bits) &&
         !record.is_unsigned;
}

struct LayoutField {
  std::string_view name;
  FieldKind kind;
};

/// The fields of one object type, in declaration order.
struct Layout {
  std::string_view type_key;
  std::vector<LayoutField> fields;
  bool is_attrs_struct = false;  // from the op registry (relay.attrs.*)

  /// Whether the type declares a field called `name`.
  [[nodiscard]] bool declares(std::string_view name) const { return kind_of(name).has_value(); }

  /// The declared kind of field `name`; nullopt when the type does not declare it.
  [[nodiscard]] std::optional<FieldKind> kind_of(std::string_view name) const {
    for (const LayoutField& field : fields) {
      if (field.name == name) return field.kind;
    }
    return std::nullopt;
  }

  /// Whether an object with `count` fields, `has(i)` telling whether it has fields[i], may be
  /// read and written through this layout: any object of a plain type; an attribute struct
  /// only when its fields are exactly the declared ones (another TVM version's struct is
  /// carried field by field).
  template <class HasField>
  [[nodiscard]] bool fits(std::size_t count, HasField has) const {
    if (!is_attrs_struct) return true;
    if (count != fields.size()) return false;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (!has(i)) return false;
    }
    return true;
  }
};

/// The kind of a relay attribute struct field, from its C++ type (the shared rule of
/// attr_fields.hpp).
constexpr FieldKind kind_of_storage(FieldStorage storage) {
  switch (storage) {
    case FieldStorage::kInt:
      return FieldKind::kInt;
    case FieldStorage::kBool:
      return FieldKind::kBool;
    case FieldStorage::kDouble:
      return FieldKind::kDouble;
    case FieldStorage::kStdString:
      return FieldKind::kString;
    case FieldStorage::kDataType:
      return FieldKind::kDataType;
    case FieldStorage::kObject:
      return FieldKind::kRef;
  }
  return FieldKind::kRef;
}

/// Layouts of the non-attrs TVM types, built once per process.
inline const std::vector<Layout>& builtin_layouts() {
  static const std::vector<Layout> layouts = [] {
    constexpr FieldKind R = FieldKind::kRef;
    constexpr FieldKind I = FieldKind::kInt;
    constexpr FieldKind B = FieldKind::kBool;
    constexpr FieldKind D = FieldKind::kDouble;
    constexpr FieldKind T = FieldKind::kDataType;
    // Every Relay expression ends with these three.
    auto expr = [](std::string_view key, std::vector<LayoutField> fields) {
      fields.push_back({"virtual_device_", FieldKind::kRef});
      fields.push_back({"span", FieldKind::kRef});
      fields.push_back({"_checked_type_", FieldKind::kRef});
      return Layout{key, std::move(fields)};
    };
    std::vector<Layout> all = {
        {"IRModule",
         {{"functions", R},
          {"type_definitions", R},
          {"global_var_map_", R},
          {"global_type_var_map_", R},
          {"source_map", R},
          {"attrs", R}}},
        {"GlobalVar",
         {{"name_hint", R}, {"virtual_device_", R}, {"span", R}, {"_checked_type_", R}}},
        expr("relay.Function",
             {{"params", R}, {"body", R}, {"ret_type", R}, {"type_params", R}, {"attrs", R}}),
        expr("relay.Var", {{"vid", R}, {"type_annotation", R}}),
        {"relay.Id", {{"name_hint", R}}},
        expr("relay.Call", {{"op", R}, {"args", R}, {"attrs", R}, {"type_args", R}}),
        expr("relay.Constant", {{"data", FieldKind::kNDArray}}),
        expr("relay.Tuple", {{"fields", R}}),
        expr("relay.TupleGetItem", {{"tuple_value", R}, {"index", I}}),
        expr("relay.Let", {{"var", R}, {"value", R}, {"body", R}}),
        expr("relay.If", {{"cond", R}, {"true_branch", R}, {"false_branch", R}}),
        expr("relay.Match", {{"data", R}, {"clauses", R}, {"complete", B}}),
        {"relay.Clause", {{"lhs", R}, {"rhs", R}}},
        expr("relay.RefCreate", {{"value", R}}),
        expr("relay.RefRead", {{"ref", R}}),
        expr("relay.RefWrite", {{"ref", R}, {"value", R}}),
        {"relay.TensorType", {{"shape", R}, {"dtype", T}, {"span", R}}},
        {"TupleType", {{"fields", R}, {"span", R}}},
        {"FuncType",
         {{"arg_types", R},
          {"ret_type", R},
          {"type_params", R},
          {"type_constraints", R},
          {"span", R}}},
        {"TypeVar", {{"name_hint", R}, {"kind", I}, {"span", R}}},
        {"GlobalTypeVar", {{"name_hint", R}, {"kind", I}}},
        {"TypeCall", {{"func", R}, {"args", R}, {"span", R}}},
        {"IncompleteType", {{"kind", I}, {"span", R}}},
        {"relay.RefType", {{"value", R}, {"span", R}}},
        {"relay.TypeData",
         {{"header", R}, {"type_vars", R}, {"constructors", R}, {"span", R}}},
        {"relay.Constructor",
         {{"name_hint", R},
          {"inputs", R},
          {"belong_to", R},
          {"tag", I},
          {"span", R},
          {"_checked_type_", R}}},
        {"relay.PatternWildcard", {{"span", R}}},
        {"relay.PatternVar", {{"var", R}, {"span", R}}},
        {"relay.PatternConstructor", {{"constructor", R}, {"patterns", R}, {"span", R}}},
        {"relay.PatternTuple", {{"patterns", R}, {"span", R}}},
        {"IntImm", {{"dtype", T}, {"value", I}, {"span", R}}},
        {"FloatImm", {{"dtype", T}, {"value", D}, {"span", R}}},
        {"tir.Any", {{"dtype", T}, {"span", R}}},
        {"tir.Var", {{"dtype", T}, {"name", R}, {"type_annotation", R}, {"span", R}}},
        {"tir.SizeVar", {{"dtype", T}, {"name", R}, {"type_annotation", R}, {"span", R}}},
        {"PrimType", {{"dtype", T}}},
        {"DictAttrs", {{"__dict__", R}}},
        {"VirtualDevice",
         {{"device_type_int", I}, {"virtual_device_id", I}, {"target", R}, {"memory_scope", R}}},
        {"Span",
         {{"source_name", R}, {"line", I}, {"column", I}, {"end_line", I}, {"end_column", I}}},
        {"SequentialSpan",
         {{"source_name", R},
          {"line", I},
          {"column", I},
          {"end_line", I},
          {"end_column", I},
          {"spans", R}}},
        {"SourceMap", {{"source_map", R}}},
        {"Source", {{"source_name", R}, {"source", R}}},
    };
    // TIR's binary PrimExprs (symbolic shape arithmetic) share one layout.
    for (std::string_view key :
         {"tir.Add", "tir.Sub", "tir.Mul", "tir.Div", "tir.Mod", "tir.FloorDiv", "tir.FloorMod",
          "tir.Min", "tir.Max", "tir.EQ", "tir.NE", "tir.LT", "tir.LE", "tir.GT", "tir.GE",
          "tir.And", "tir.Or"}) {
      all.push_back({key, {{"dtype", T}, {"a", R}, {"b", R}, {"span", R}}});
    }
    return all;
  }();
  return layouts;
}

/// The types of objects whose JSON entry holds only `repr_str` / `repr_b64`.
inline constexpr std::array<std::string_view, 5> kReprTypeKeys = {
    "runtime.String", "Op", "SourceName", "runtime.NDArray", "runtime.Module"};

inline bool has_repr_bytes(std::string_view type_key) {
  return std::find(kReprTypeKeys.begin(), kReprTypeKeys.end(), type_key) != kReprTypeKeys.end();
}

/// What a reader or writer of one document needs to know of a type key, found once per key:
/// its layout, and each declared field's name as an id of the document's name pool (invalid
/// when no field of the document has that name), so that a node's fields are matched to the
/// layout by id rather than by text.
struct DocLayout {
  const Layout* layout = nullptr;   // nullptr: graphpat does not know the type
  std::vector<StringId> field_ids;  // layout->fields[i].name in the document's pool
  bool container = false;           // Array or Map: every field is text
  bool repr_bytes = false;          // has_repr_bytes
};

/// The type keys and field names of builtin_layouts(), the type keys of kReprTypeKeys and of
/// the two containers (and the null node's empty type key), frozen in a pool built once per
/// process: a reader's JsonDocument starts its name pool from it (ProvenanceData), so that the
/// names every file uses are looked up rather than added at each load (mlp: 2% fewer instructions
/// per load).
inline const StringPool& known_json_names() {
  static const StringPool* const known = [] {
    auto* names = new StringPool;  // never freed: documents read it until exit
    names->intern("");
    for (const Layout& layout : builtin_layouts()) {
      names->intern(layout.type_key);
      for (const LayoutField& field : layout.fields) names->intern(field.name);
    }
    for (std::string_view type_key : kReprTypeKeys) names->intern(type_key);
    names->intern("Array");
    names->intern("Map");
    return names;
  }();
  return *known;
}

/// builtin_layouts() by type key, built once per process (each reader and writer built its own:
/// 3-4% of the instructions of a small model's load, mlp).
inline const graphpat::detail::TextMap<const Layout*>& builtin_layout_index() {
  static const graphpat::detail::TextMap<const Layout*> index = [] {
    graphpat::detail::TextMap<const Layout*> built;
    for (const Layout& layout : builtin_layouts()) built.emplace(layout.type_key, &layout);
    return built;
  }();
  return index;
}

/// Finds layouts by type key: the builtin TVM types, then the op registry's attribute structs.
class LayoutCache {
 public:
  explicit LayoutCache(const Context& context) : ops_(context.ops), strings_(context.strings) {}

  /// The layout of `type_key`, or nullptr when graphpat does not know the type.
  const Layout* find(std::string_view type_key) {
    const auto& builtin = builtin_layout_index();
    if (auto found = builtin.find(type_key); found != builtin.end()) return found->second;
    auto found = index_.find(type_key);
    if (found != index_.end()) return found->second;
    const AttrSchema* schema = ops_.find_schema(type_key);
    if (schema == nullptr) return nullptr;
    auto layout = std::make_unique<Layout>();
    const StringPool& strings = strings_;
    layout->type_key = strings.view(schema->type_key);
    layout->is_attrs_struct = true;
    for (const AttrSchemaField& field : schema->fields) {
      layout->fields.push_back({strings.view(field.name),
                                kind_of_storage(field_storage(strings.view(field.cpp_type)))});
    }
    const Layout* result = owned_.emplace_back(std::move(layout)).get();
    index_.emplace(result->type_key, result);
    return result;
  }

  /// What `doc`'s type key `type_key` (an id of doc.names) is; it stays valid as long as the
  /// cache. The answers hold for one document and one state of its names (a name added later
  /// may be one a layout declares), and are found again when either changes.
  const DocLayout& of(const JsonDocument& doc, StringId type_key) {
    if (doc_names_ != &doc.names || doc_names_size_ != doc.names.size()) {
      doc_names_ = &doc.names;
      doc_names_size_ = doc.names.size();
      by_type_key_.clear();
    }
    if (type_key.index() >= by_type_key_.size()) by_type_key_.resize(type_key.index() + 1);
    const DocLayout*& known = by_type_key_[type_key.index()];
    if (known == nullptr) {
      std::string_view key = doc.names.view(type_key);
      DocLayout& found = doc_layouts_.emplace_back();
      found.repr_bytes = has_repr_bytes(key);
      found.container = key == "Array" || key == "Map";
      found.layout = found.container ? nullptr : find(key);
      if (found.layout != nullptr) {
        for (const LayoutField& field : found.layout->fields) {
          found.field_ids.push_back(doc.names.find(field.name));
        }
      }
      known = &found;
    }
    return *known;
  }

 private:
  const OpRegistry& ops_;
  const StringPool& strings_;
  graphpat::detail::TextMap<const Layout*> index_;  // attrs layouts, from schemas
  std::vector<std::unique_ptr<Layout>> owned_;
  const StringPool* doc_names_ = nullptr;
  std::size_t doc_names_size_ = 0;
  std::deque<DocLayout> doc_layouts_;          // never moved: ObjectFields hold them
  std::vector<const DocLayout*> by_type_key_;  // by type key id in *doc_names_
};

/// Relay expression type keys (what may stand where a Relay expression is required).
inline bool is_expression_key(std::string_view type_key) {
  static constexpr std::array<std::string_view, 15> kKeys = {
      "relay.Var",         "GlobalVar",        "Op",         "relay.Constant", "relay.Call",
      "relay.Tuple",       "relay.TupleGetItem", "relay.Function", "relay.Let",   "relay.If",
      "relay.Match",       "relay.RefCreate",  "relay.RefRead", "relay.RefWrite",
      "relay.Constructor"};
  for (std::string_view key : kKeys) {
    if (graphpat::detail::same_text(key, type_key)) return true;
  }
  return false;
}

/// How one field of an object is taken when read.
enum class FieldUse : std::uint8_t {
  kReference,    // a node index
  kText,         // inline text, whatever it looks like
  kTextByLooks,  // inline text only because it does not look like a reference (see below)
};

/// How the fields of original node `index` of `doc` are taken: the one rule the reader's
/// reference walk, its value reader and the provenance copy follow (a field of a saved object
/// must be read back as it was read).
/// - An object that fits its type's layout (trusted()) is read through it.
/// - A field a layout declares is taken by its declared kind even when the object does not fit
///   the layout (an attribute struct of another TVM version): a declared reference must
///   resolve, a declared inline field stays text whatever it looks like.
/// - The fields of a container (Array, Map: TVM's have none) and any other field of a plain
///   known type are text.
/// - Any other field (of an unknown type, or undeclared in a struct that does not fit) is a
///   reference when it looks like one — TVM marks no reference, it writes a bare decimal
///   index — and text otherwise (kTextByLooks: a saved file must not make it look like one).
///
///   ObjectFields fields(doc, layouts, index);
///   if (fields.use(field.key, text) == FieldUse::kReference) {
///     follow(*parse_decimal<std::uint32_t>(text));
///   }
class ObjectFields {
 public:
  ObjectFields(const JsonDocument& doc, LayoutCache& layouts, std::uint32_t index)
      : doc_(doc), type_(layouts.of(doc, doc.nodes[index].type_key)) {
    const Layout* layout = type_.layout;
    if (layout == nullptr) return;
    std::span<const JsonField> fields = doc.fields_of(index);
    fits_ = layout->fits(fields.size(), [&](std::size_t position) {
      StringId name = type_.field_ids[position];
      return name.valid() && std::any_of(fields.begin(), fields.end(),
                                         [&](const JsonField& field) { return field.key == name; });
    });
  }

  /// The layout the object is read and written through, or nullptr: it is then carried
  /// through field by field, each taken by use().
  [[nodiscard]] const Layout* trusted() const { return fits_ ? type_.layout : nullptr; }

  /// Whether the object's type keeps its value as repr bytes (has_repr_bytes).
  [[nodiscard]] bool repr_bytes() const { return type_.repr_bytes; }

  /// The id of the layout's field `position` in the document's names (invalid when no field
  /// of the document has that name).
  [[nodiscard]] StringId field_id(std::size_t position) const { return type_.field_ids[position]; }

  /// The kind the layout declares for field `name` (an id of the document's names), fitting or
  /// not (nullopt: no layout, or a field it does not declare).
  [[nodiscard]] std::optional<FieldKind> declared_kind(StringId name) const {
    if (!name.valid()) return std::nullopt;
    for (std::size_t i = 0; i < type_.field_ids.size(); ++i) {
      if (type_.field_ids[i] == name) return type_.layout->fields[i].kind;
    }
    return std::nullopt;
  }

  /// How field `name` (an id of the document's names), whose JSON text is `value`, is taken.
  [[nodiscard]] FieldUse use(StringId name, std::string_view value) const {
    if (type_.container) return FieldUse::kText;
    if (type_.layout != nullptr) {
      if (std::optional<FieldKind> kind = declared_kind(name)) {
        return *kind == FieldKind::kRef ? FieldUse::kReference : FieldUse::kText;
      }
      if (fits_) return FieldUse::kText;
    }
    return looks_like_reference(doc_.size(), value) ? FieldUse::kReference
                                                    : FieldUse::kTextByLooks;
  }

 private:
  const JsonDocument& doc_;
  const DocLayout& type_;
  bool fits_ = false;
};

}  // namespace graphpat::relay::detail
