// Turns a graphpat Relay module (or one expression) into the TVM object graph save_json writes.
//
// Every graph node becomes one TVM object. When the graph was loaded from JSON, its provenance
// says which JSON object each node was; a field whose value is unchanged then reuses the
// original object (and with it TVM's sharing: one TensorType object for a param's annotation
// and checked type, per-parameter VirtualDevices, spans, the source map, Map orders), and the
// fields graphpat does not model (virtual_device_, type constraints, ...) are copied as read.
// Nodes without provenance get what TVM gives a module built from Python: one shared
// unconstrained VirtualDevice, null checked types and spans, empty arrays
// (docs/relay-formats.md §3.5); each type is one object wherever it occurs (§3.4). Graph nodes
// are visited in id order (operands first), never recursively.
//
//   graphpat::relay::detail::Emitter emitter(module.graph, provenance_or_null);
//   std::uint32_t root = emitter.emit_module(module);
//   absl::StatusOr<std::string> json = emitter.write(root);
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/io/relay_json/layouts.hpp"
#include "graphpat/io/relay_json/object_graph.hpp"
#include "graphpat/io/relay_json/provenance.hpp"
#include "graphpat/io/relay_json/upgrade.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/validation.hpp"
#include "graphpat/relay/dialect.hpp"

namespace graphpat::relay::detail {

/// The type key of the JSON object for a node kind.
constexpr std::string_view expression_key(NodeKind kind) {
  switch (kind) {
    case NodeKind::kVar:
      return "relay.Var";
    case NodeKind::kConstant:
      return "relay.Constant";
    case NodeKind::kOp:
      return "Op";
    case NodeKind::kCall:
      return "relay.Call";
    case NodeKind::kTuple:
      return "relay.Tuple";
    case NodeKind::kTupleGetItem:
      return "relay.TupleGetItem";
    case NodeKind::kFunction:
      return "relay.Function";
    case NodeKind::kLet:
      return "relay.Let";
    case NodeKind::kIf:
      return "relay.If";
    case NodeKind::kGlobalVar:
      return "GlobalVar";
  }
  return "";
}

/// known_json_names()' JSON texts and order (JsonNames), worked out once per process: every
/// save's names start from them (a small model's save worked them out again each time).
inline const JsonNames& known_json_name_texts() {
  static const JsonNames* const texts = new JsonNames(known_json_names());  // never freed
  return *texts;
}

/// A type key or field name spelled as a template argument: Emitter::name_id<"span">().
template <std::size_t N>
struct KeyLiteral {
  consteval KeyLiteral(const char (&literal)[N]) {  // NOLINT(google-explicit-constructor)
    std::copy_n(literal, N, text);
  }
  [[nodiscard]] constexpr std::string_view view() const { return {text, N - 1}; }
  char text[N];
};

class Emitter {
 public:
  static constexpr std::uint32_t kNone = Id<void>::kNone;

  // An Array's elements, kept off the heap at their usual sizes (a shape has four dims).
  using ObjectIds = absl::InlinedVector<std::uint32_t, 8>;

  /// The emitter's stack of staged fields: `slots[0, top)` are in use, and the slots only grow.
  struct FieldStack {
    std::vector<OutField> slots;
    std::size_t top = 0;
  };

  /// The fields of an object being made, staged on the emitter's stack of fields until the
  /// object is added: the objects its values need are made (and their fields staged above its
  /// own and taken off again) in between. One stack for every object, its slots written in
  /// place, where a vector per object cost an out-of-line call per field and a store-forwarding
  /// stall in it (the call read the OutField back as eight bytes its caller had just stored as
  /// four and four): 10% of lstm's save.
  class OutFields {
   public:
    explicit OutFields(FieldStack& stack) : stack_(stack), start_(stack.top) {}
    OutFields(const OutFields&) = delete;
    OutFields& operator=(const OutFields&) = delete;
    ~OutFields() { stack_.top = start_; }

    void push_back(const OutField& field) {
      if (stack_.top == stack_.slots.size()) stack_.slots.resize(2 * stack_.top + 32);
      stack_.slots[stack_.top++] = field;
    }
    operator std::span<const OutField>() const {  // NOLINT(google-explicit-constructor)
      return std::span<const OutField>(stack_.slots).subspan(start_, stack_.top - start_);
    }

   private:
    FieldStack& stack_;
    std::size_t start_;
  };

  /// `provenance` may be null, or belong to another context (then it is ignored).
  Emitter(const relay::Graph& graph, const ProvenanceData* provenance)
      : graph_(graph),
        context_(graph.context()),
        prov_(provenance != nullptr && provenance->context == &graph.context() ? provenance
                                                                                : nullptr),
        layouts_(context_),
        out_of_node_(graph.size(), kNone) {
    if (prov_ != nullptr) out_of_orig_.assign(prov_->document.size(), kNone);
    objects_.reserve_for_nodes(graph.size());
  }

  /// The IRModule object of `module`.
  std::uint32_t emit_module(const relay::Module& module) {
    std::vector<NodeId> roots = module.roots();
    emit_reachable(roots);
    std::uint32_t original =
        prov_ != nullptr && prov_->module_root ? static_cast<std::uint32_t>(prov_->document.root)
                                               : kNone;
    std::vector<std::uint32_t> pairs;
    for (const GlobalFunction& function : module.functions()) {
      pairs.push_back(global_var_object(function.name, function.function));
      pairs.push_back(out_of_node_[function.function.index()]);
    }
    std::uint32_t functions = objects_.add(name_id<"Map">(), {}, {}, pairs);
    auto carried = [&](std::string_view field, auto make_new) {
      std::uint32_t k = original_ref(original, field);
      return k != kNone ? copy(k) : make_new();
    };
    auto empty_map = [&] { return objects_.add(name_id<"Map">(), {}); };
    std::uint32_t definitions = carried("type_definitions", empty_map);
    std::uint32_t global_var_map = kNone;
    std::uint32_t old_map = original_ref(original, "global_var_map_");
    if (old_map != kNone && same_function_names(old_map, module)) {
      global_var_map = copy(old_map);
    } else {
      std::vector<std::uint32_t> names;
      std::vector<std::uint32_t> vars;
      for (const GlobalFunction& function : module.functions()) {
        names.push_back(objects_.text(module.name(function)));
        vars.push_back(global_var_object(function.name, function.function));
      }
      global_var_map = objects_.add(name_id<"Map">(), {}, names, vars);
    }
    std::uint32_t type_var_map = carried("global_type_var_map_", empty_map);
    std::uint32_t source_map = carried("source_map", [&] {
      return objects_.add(name_id<"SourceMap">(),
                          {objects_.ref(name_id<"source_map">(), empty_map())});
    });
    emitting_ = NodeId();
    std::uint32_t attrs = value_field(original, "attrs", module.attrs);
    return objects_.add(name_id<"IRModule">(),
                        {objects_.ref(name_id<"functions">(), functions),
                         objects_.ref(name_id<"type_definitions">(), definitions),
                         objects_.ref(name_id<"global_var_map_">(), global_var_map),
                         objects_.ref(name_id<"global_type_var_map_">(), type_var_map),
                         objects_.ref(name_id<"source_map">(), source_map),
                         objects_.ref(name_id<"attrs">(), attrs)});
  }

  /// The object of a bare expression.
  std::uint32_t emit_expression(NodeId root) {
    emit_reachable(std::span(&root, 1));
    return out_of_node_[root.index()];
  }

  /// The file, with `root` as its root.
  absl::StatusOr<std::string> write(std::uint32_t root) {
    if (!status_.ok()) return status_;
    std::vector<std::pair<std::string, std::string>> top_attrs;
    if (prov_ != nullptr) {
      top_attrs = prov_->document.attrs;
    } else {
      top_attrs.emplace_back("tvm_version", std::string(kTvmVersion));
    }
    return write_json(objects_, root, context_, top_attrs);
  }

 private:
  /// The id in objects_' names of the type key or field name `kName`. A builtin name has the
  /// id it has in known_json_names(), which objects_' names start from: it is found once per
  /// process, where a name given as text is looked up at every use (9% of lstm's save).
  template <KeyLiteral kName>
  StringId name_id() {
    static const StringId builtin = known_json_names().find(kName.view());
    return builtin.valid() ? builtin : objects_.name(kName.view());
  }

  // ----- provenance lookups ------------------------------------------------------------------

  const JsonDocument& doc() const { return prov_->document; }

  /// The JSON index of field `field` of original node `index`, or kNone.
  std::uint32_t original_ref(std::uint32_t index, std::string_view field) const {
    if (prov_ == nullptr || index == kNone) return kNone;
    std::optional<std::string_view> value = doc().field(index, field);
    if (!value) return kNone;
    std::optional<std::uint32_t> target = parse_decimal<std::uint32_t>(*value);
    return target && *target < doc().size() ? *target : kNone;
  }

  /// The original node a reference field of the loaded file names (the reader checked each
  /// one); 0, the null object, for a field the object does not have.
  static std::uint32_t referenced_node(std::optional<std::string_view> value) {
    return value ? parse_decimal<std::uint32_t>(*value).value_or(0) : 0;
  }

  /// The JSON index node `id` was read from, when the graph still holds that node there.
  std::uint32_t provenance_of(NodeId id) const {
    if (prov_ == nullptr) return kNone;
    std::uint32_t index = prov_->index_of(id);
    if (index == kNone || prov_->node_of[index] != id ||
        doc().type_key(index) != expression_key(graph_.kind(id))) {
      return kNone;
    }
    return index;
  }

  /// The graph node standing for original expression `index`, if it can be written now.
  std::uint32_t resolve_expression(std::uint32_t index) {
    NodeId node = prov_->node_of[index];
    if (!node.valid() || !graph_.contains(node) || provenance_of(node) != index) return kNone;
    if (out_of_node_[node.index()] == kNone && graph_.operands(node).empty()) emit_node(node);
    return out_of_node_[node.index()];
  }

  /// The output object for original object `index`: the node it became if that node is
  /// written, else a copy of what the file held (children first, iteratively).
  std::uint32_t copy(std::uint32_t index) {
    if (index == 0) return 0;
    if (out_of_orig_[index] != kNone) return out_of_orig_[index];
    struct Frame {
      std::uint32_t index;
      bool expanded;
    };
    std::vector<Frame> stack{{index, false}};
    std::vector<std::uint32_t> children;
    while (!stack.empty()) {
      Frame& frame = stack.back();
      std::uint32_t current = frame.index;
      if (current == 0 || out_of_orig_[current] != kNone) {
        stack.pop_back();
        continue;
      }
      if (std::uint32_t node = resolve_expression(current); node != kNone) {
        out_of_orig_[current] = node;
        stack.pop_back();
        continue;
      }
      if (!frame.expanded) {
        frame.expanded = true;
        original_children(current, children);
        for (std::uint32_t child : children) {
          if (child != 0 && out_of_orig_[child] == kNone) stack.push_back({child, false});
        }
        continue;
      }
      out_of_orig_[current] = copy_one(current);
      stack.pop_back();
    }
    return out_of_orig_[index];
  }

  void original_children(std::uint32_t index, std::vector<std::uint32_t>& out) {
    out.clear();
    std::string_view key = doc().type_key(index);
    if (has_repr_bytes(key)) return;
    // Every child copy_one copies: elements of any object (as the reader's collect_edges
    // checks them), then the fields taken as references.
    for (std::uint64_t element : doc().data_of(index)) out.push_back(static_cast<std::uint32_t>(element));
    ObjectFields object(doc(), layouts_, index);
    for (const JsonField& field : doc().fields_of(index)) {
      std::string_view value = doc().view(field.value);
      if (object.use(field.key, value) == FieldUse::kReference) {
        out.push_back(referenced_node(value));
      }
    }
  }

  /// One original object, its children already copied.
  std::uint32_t copy_one(std::uint32_t index) {
    std::string_view key = doc().type_key(index);
    if (has_repr_bytes(key)) return objects_.add_repr(key, doc().repr(index));
    std::vector<std::uint32_t> data;
    for (std::uint64_t element : doc().data_of(index)) {
      data.push_back(copy(static_cast<std::uint32_t>(element)));
    }
    std::vector<std::uint32_t> keys;
    for (TextSlice slice : doc().keys_of(index)) keys.push_back(objects_.text(doc().view(slice)));
    OutFields fields(staged_fields_);
    ObjectFields object(doc(), layouts_, index);
    if (const Layout* layout = object.trusted()) {
      for (std::size_t i = 0; i < layout->fields.size(); ++i) {
        const LayoutField& field = layout->fields[i];
        std::optional<std::string_view> value = doc().field(index, object.field_id(i));
        if (field.kind == FieldKind::kRef) {
          fields.push_back(objects_.ref(field.name, copy(referenced_node(value))));
        } else if (value) {
          fields.push_back(objects_.inline_text(field.name, *value));
        }
      }
      append_undeclared(index, *layout, fields);
    } else {
      // Field by field, as the reader took them; references in the order the original
      // numbering met them.
      std::vector<std::pair<std::uint32_t, std::string_view>> refs;
      for (const JsonField& field : doc().fields_of(index)) {
        std::string_view name = doc().names.view(field.key);
        std::string_view value = doc().view(field.value);
        switch (object.use(field.key, value)) {
          case FieldUse::kReference:
            refs.emplace_back(referenced_node(value), name);
            break;
          case FieldUse::kText:
            fields.push_back(objects_.inline_text(name, value));
            break;
          case FieldUse::kTextByLooks:
            fields.push_back(objects_.inline_text_by_looks(name, value));
            break;
        }
      }
      std::sort(refs.begin(), refs.end());
      for (auto [target, name] : refs) fields.push_back(objects_.ref(name, copy(target)));
    }
    return objects_.add(key, fields, keys, data);
  }

  // The fields original `index` has that `layout` does not declare, as text (as the reader
  // keeps them).
  void append_undeclared(std::uint32_t index, const Layout& layout, OutFields& fields) {
    for (const JsonField& field : doc().fields_of(index)) {
      std::string_view name = doc().names.view(field.key);
      if (!layout.declares(name)) fields.push_back(objects_.inline_text(name, doc().view(field.value)));
    }
  }

  // Node object `key` with `fields`, and the fields its original `k` (kNone: none) has that
  // the type does not declare: a GlobalVar that attrs also refer to is one object, and an
  // attrs value keeps such fields.
  std::uint32_t add_node(StringId key, std::uint32_t k, OutFields& fields) {
    if (k != kNone) {
      if (const Layout* layout = layouts_.find(objects_.names.view(key))) {
        append_undeclared(k, *layout, fields);
      }
    }
    return objects_.add(key, fields);
  }

  bool same_function_names(std::uint32_t map, const relay::Module& module) const {
    auto keys = doc().keys_of(map);
    if (doc().type_key(map) != "Map" || keys.size() != module.functions().size()) return false;
    for (TextSlice slice : keys) {
      if (!module.find(doc().view(slice))) return false;
    }
    return true;
  }

  // ----- fields with or without provenance --------------------------------------------------

  std::uint32_t type_field(std::uint32_t index, std::string_view field, TypeId type) {
    std::uint32_t k = original_ref(index, field);
    if (k != kNone && (k == 0 ? !type.valid() : prov_->type_of[k] == type && type.valid())) {
      return copy(k);
    }
    return new_type(type);
  }

  std::uint32_t span_field(std::uint32_t index, SpanId span) {
    std::uint32_t k = original_ref(index, "span");
    if (k != kNone && (k == 0 ? !span.valid() : prov_->span_of[k] == span && span.valid())) {
      return copy(k);
    }
    return new_span(span);
  }

  std::uint32_t value_field(std::uint32_t index, std::string_view field, AttrValueId value) {
    std::uint32_t k = original_ref(index, field);
    if (k != kNone && (k == 0 ? !value.valid() : prov_->attr_of[k] == value && value.valid())) {
      return copy(k);
    }
    return value.valid() ? new_value(value) : 0;
  }

  std::uint32_t device_field(std::uint32_t index, NodeKind kind) {
    std::uint32_t k = original_ref(index, "virtual_device_");
    if (k != kNone) return copy(k);
    if (index != kNone || kind == NodeKind::kGlobalVar) return 0;
    if (shared_device_ == kNone) {
      shared_device_ =
          prov_ != nullptr && prov_->shared_virtual_device != 0
              ? copy(prov_->shared_virtual_device)
              : objects_.add(name_id<"VirtualDevice">(),
                             {objects_.inline_text(name_id<"device_type_int">(), "-1"),
                              objects_.inline_text(name_id<"virtual_device_id">(), "-1"),
                              objects_.ref(name_id<"target">(), 0),
                              objects_.ref(name_id<"memory_scope">(),
                                           objects_.add_repr(name_id<"runtime.String">(), ""))});
    }
    return shared_device_;
  }

  /// An Array of the operands' objects, reusing the original Array when it held the same nodes.
  std::uint32_t node_list(std::uint32_t index, std::string_view field,
                          std::span<const NodeId> nodes) {
    std::uint32_t k = original_ref(index, field);
    if (k != kNone && k != 0 && doc().type_key(k) == "Array") {
      auto data = doc().data_of(k);
      bool same = data.size() == nodes.size();
      for (std::size_t i = 0; same && i < data.size(); ++i) {
        same = prov_->node_of[data[i]] == nodes[i];
      }
      if (same) return copy(k);
    }
    ObjectIds elements;
    for (NodeId node : nodes) elements.push_back(out_of_node_[node.index()]);
    return objects_.add(name_id<"Array">(), {}, {}, elements);
  }

  /// An Array of types from a tuple type (type args, type params; none is the empty array).
  std::uint32_t type_list(std::uint32_t index, std::string_view field, TypeId tuple) {
    std::vector<TypeId> types;
    if (tuple.valid()) {
      for (TypeId child : context_.types.children(tuple)) types.push_back(child);
    }
    std::uint32_t k = original_ref(index, field);
    if (k != kNone && k != 0 && doc().type_key(k) == "Array") {
      auto data = doc().data_of(k);
      bool same = data.size() == types.size();
      for (std::size_t i = 0; same && i < data.size(); ++i) {
        same = prov_->type_of[data[i]] == types[i];
      }
      if (same) return copy(k);
    }
    ObjectIds elements;
    for (TypeId type : types) elements.push_back(new_type(type));
    return objects_.add(name_id<"Array">(), {}, {}, elements);
  }

  /// A runtime.String for `text`, reusing original string `index` when it says the same.
  std::uint32_t string_field(std::uint32_t index, std::string_view field, std::string_view text) {
    std::uint32_t k = original_ref(index, field);
    if (k != kNone && k != 0 && doc().type_key(k) == "runtime.String" && doc().repr(k) == text) {
      return copy(k);
    }
    return objects_.add_repr(name_id<"runtime.String">(), text);
  }

  // ----- new objects from graphpat values ---------------------------------------------------

  void fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }

  /// Field `key` holding `number` in decimal.
  template <class Integer>
  OutField decimal_field(StringId key, Integer number) {
    fmt::format_int digits(number);
    return objects_.inline_text(key, std::string_view(digits.data(), digits.size()));
  }

  /// An IntImm of the one-lane `dtype` (a model's attributes and shapes hold hundreds of
  /// IntImms of one or two dtypes: each dtype's text is written once per save).
  std::uint32_t int_imm(DataType dtype, std::int64_t value) {
    const auto key = static_cast<std::uint32_t>(dtype.code) << 16 | dtype.bits;
    auto [text, added] = int_dtype_texts_.try_emplace(key, 0);
    if (added) text->second = objects_.text(graphpat::dtype_name(dtype));
    return objects_.add(name_id<"IntImm">(),
                        {{(name_id<"dtype">()), OutKind::kInline, text->second},
                         decimal_field(name_id<"value">(), value),
                         objects_.ref(name_id<"span">(), 0)});
  }

  std::uint32_t new_dim(DimId id) {
    const Dim& dim = context_.types.get_dim(id);
    switch (dim.kind) {
      case Dim::Kind::kInt:
        return int_imm({DataType::Code::kInt, dim.bits, 1}, dim.value);
      case Dim::Kind::kAny:
        return objects_.add(name_id<"tir.Any">(),
                            {objects_.inline_text(name_id<"dtype">(), "int32"),
                             objects_.ref(name_id<"span">(), 0)});
      case Dim::Kind::kSymbol:
        break;
    }
    // One object per symbolic variable, as TVM shares a tir.Var across the types using it.
    if (auto found = symbols_.find(id); found != symbols_.end()) return found->second;
    std::string_view key = context_.strings.view(dim.symbol_type_key);
    if (key != "tir.Var" && key != "tir.SizeVar") {
      fail(json_error("unsupported", "",
                      fmt::format("the symbolic dimension {} ({}) has no JSON form without the "
                                  "file it was read from",
                                  context_.strings.view(dim.symbol), key)));
      return 0;
    }
    std::uint32_t prim =
        objects_.add(name_id<"PrimType">(), {objects_.inline_text(name_id<"dtype">(), "int32")});
    std::uint32_t result = objects_.add(
        key,
        {objects_.inline_text(name_id<"dtype">(), "int32"),
         objects_.ref(name_id<"name">(), objects_.add_repr(name_id<"runtime.String">(),
                                                           context_.strings.view(dim.symbol))),
         objects_.ref(name_id<"type_annotation">(), prim), objects_.ref(name_id<"span">(), 0)});
    symbols_.emplace(id, result);
    return result;
  }

  std::uint32_t new_types(graphpat::detail::IdSpan<TypeId> types) {
    ObjectIds elements;
    for (TypeId type : types) elements.push_back(new_type(type));
    return objects_.add(name_id<"Array">(), {}, {}, elements);
  }

  /// The object of type `id`, one per type in a file: types are values, and TVM itself shares
  /// a type object wherever inference found the same type (a param's checked type is its
  /// annotation object, a call's the callee's return type object) and must share a type
  /// variable's with every type using it. An IncompleteType stays one object per use: each is
  /// its own unknown to TVM's type inference.
  std::uint32_t new_type(TypeId id) {
    if (!id.valid()) return 0;
    if (context_.types.get(id).kind == TypeKind::kIncomplete) return make_type(id);
    if (auto found = type_objects_.find(id); found != type_objects_.end()) return found->second;
    const std::uint32_t object = make_type(id);
    type_objects_.emplace(id, object);
    return object;
  }

  // Recursion follows the nesting of one type, which the readers bound.
  std::uint32_t make_type(TypeId id) {
    const TypeTable& types = context_.types;
    const TypeRecord& record = types.get(id);
    auto name = [&] {
      return objects_.add_repr(name_id<"runtime.String">(), context_.strings.view(record.name));
    };
    auto kind = [&] { return decimal_field(name_id<"kind">(), record.extra); };
    switch (record.kind) {
      case TypeKind::kTensor: {
        ObjectIds dims;
        for (DimId dim : types.dims(id)) dims.push_back(new_dim(dim));
        std::uint32_t shape = objects_.add(name_id<"Array">(), {}, {}, dims);
        return objects_.add(
            name_id<"relay.TensorType">(),
            {objects_.ref(name_id<"shape">(), shape),
             objects_.inline_text(name_id<"dtype">(), context_.strings.view(record.name)),
             objects_.ref(name_id<"span">(), 0)});
      }
      case TypeKind::kTuple:
        return objects_.add(name_id<"TupleType">(),
                            {objects_.ref(name_id<"fields">(), new_types(types.children(id))),
                             objects_.ref(name_id<"span">(), 0)});
      case TypeKind::kFunc: {
        std::uint32_t params = new_types(types.func_params(id));
        std::uint32_t result = new_type(types.func_result(id));
        std::uint32_t type_params = new_types(types.func_type_params(id));
        return objects_.add(
            name_id<"FuncType">(),
            {objects_.ref(name_id<"arg_types">(), params),
             objects_.ref(name_id<"ret_type">(), result),
             objects_.ref(name_id<"type_params">(), type_params),
             objects_.ref(name_id<"type_constraints">(), objects_.add(name_id<"Array">(), {})),
             objects_.ref(name_id<"span">(), 0)});
      }
      case TypeKind::kTypeVar:
        return objects_.add(name_id<"TypeVar">(), {objects_.ref(name_id<"name_hint">(), name()),
                                                   kind(), objects_.ref(name_id<"span">(), 0)});
      case TypeKind::kGlobalTypeVar:
        return objects_.add(name_id<"GlobalTypeVar">(),
                            {objects_.ref(name_id<"name_hint">(), name()), kind()});
      case TypeKind::kTypeCall: {
        auto children = types.children(id);
        std::uint32_t callee = new_type(children[0]);
        std::uint32_t args = new_types(children.subspan(1, children.size() - 1));
        return objects_.add(name_id<"TypeCall">(), {objects_.ref(name_id<"func">(), callee),
                                                    objects_.ref(name_id<"args">(), args),
                                                    objects_.ref(name_id<"span">(), 0)});
      }
      case TypeKind::kRef:
        return objects_.add(name_id<"relay.RefType">(),
                            {objects_.ref(name_id<"value">(), new_type(types.children(id)[0])),
                             objects_.ref(name_id<"span">(), 0)});
      case TypeKind::kIncomplete:
        return objects_.add(name_id<"IncompleteType">(),
                            {kind(), objects_.ref(name_id<"span">(), 0)});
      case TypeKind::kOpaque:
        break;
    }
    fail(json_error("unsupported", "",
                    fmt::format("the type {} has no JSON form without the file it was read from",
                                to_string(context_, id))));
    return 0;
  }

  std::uint32_t new_span(SpanId id) {
    if (!id.valid()) return 0;
    const Span& span = context_.spans.get(id);
    std::uint32_t& source = source_names_[span.source];
    if (source == 0) {
      source = objects_.add_repr(name_id<"SourceName">(), context_.strings.view(span.source));
    }
    return objects_.add("Span", {objects_.ref(name_id<"source_name">(), source),
                                 decimal_field(name_id<"line">(), span.line),
                                 decimal_field(name_id<"column">(), span.column),
                                 decimal_field(name_id<"end_line">(), span.end_line),
                                 decimal_field(name_id<"end_column">(), span.end_column)});
  }

  /// The inline text of field `name` of an object of type `key`, declared of kind `kind`, or a
  /// refusal (`unsupported`) when the value would read back as another.
  std::string declared_inline_text(std::string_view key, std::string_view name,
                                   AttrValueId value, FieldKind kind) {
    if (!has_inline_form(context_.attrs.get(value), kind)) {
      fail(json_error("unsupported", emitting_where(),
                      fmt::format("attrs of {}: field '{}' holds {}, which its inline {} text "
                                  "would read back as another value",
                                  key, name, to_string(context_, value),
                                  field_kind_name(kind))));
    }
    return inline_text(value, kind);
  }

  /// The inline text of a value stored in a field of kind `kind`.
  std::string inline_text(AttrValueId id, FieldKind kind) const {
    const AttrTable& attrs = context_.attrs;
    const AttrRecord& record = attrs.get(id);
    switch (record.kind) {
      case AttrKind::kBool:
        return attrs.as_bool(id) ? "1" : "0";
      case AttrKind::kInt:
        return kind == FieldKind::kDouble ? fmt::format("{:.17g}", static_cast<double>(attrs.as_int(id)))
                                          : fmt::format("{}", attrs.as_int(id));
      case AttrKind::kFloat:
        return fmt::format("{:.17g}", attrs.as_float(id));
      case AttrKind::kString:
      case AttrKind::kDataType:
        return std::string(attrs.text(id));
      default:
        return to_string(context_, id);
    }
  }

  // Recursion follows the nesting of one value, which the readers bound.
  std::uint32_t new_value(AttrValueId id) {
    const AttrTable& attrs = context_.attrs;
    const AttrRecord& record = attrs.get(id);
    switch (record.kind) {
      case AttrKind::kNull:
        return 0;
      case AttrKind::kBool:
        return int_imm({DataType::Code::kBool, 1, 1}, attrs.as_bool(id) ? 1 : 0);
      case AttrKind::kInt:
        return int_imm(
            {record.is_unsigned ? DataType::Code::kUInt : DataType::Code::kInt, record.bits, 1},
            attrs.as_int(id));
      case AttrKind::kFloat:
        if (record.bits == 0) {  // Relay text's `1.5`, read without a width (literals.hpp)
          fail(json_error("unsupported", emitting_where(),
                          fmt::format("the float {} was written without a width suffix, and a "
                                      "FloatImm needs a dtype",
                                      to_string(context_, id))));
          return 0;
        }
        return objects_.add(
            name_id<"FloatImm">(),
            {objects_.inline_text(name_id<"dtype">(), fmt::format("float{}", record.bits)),
             objects_.inline_text(name_id<"value">(), fmt::format("{:.17g}", attrs.as_float(id))),
             objects_.ref(name_id<"span">(), 0)});
      case AttrKind::kString:
      case AttrKind::kDataType:
        return objects_.add_repr(name_id<"runtime.String">(), attrs.text(id));
      case AttrKind::kArray: {
        ObjectIds elements;
        for (AttrValueId element : attrs.elements(id)) elements.push_back(new_value(element));
        return objects_.add(name_id<"Array">(), {}, {}, elements);
      }
      case AttrKind::kMap: {
        bool string_keys = true;
        for (std::size_t i = 0; i < attrs.entry_count(id); ++i) {
          string_keys = string_keys && attrs.kind(attrs.map_key(id, i)) == AttrKind::kString;
        }
        std::vector<std::uint32_t> keys;
        std::vector<std::uint32_t> data;
        for (std::size_t i = 0; i < attrs.entry_count(id); ++i) {
          if (string_keys) {
            keys.push_back(objects_.text(attrs.text(attrs.map_key(id, i))));
          } else {
            data.push_back(new_value(attrs.map_key(id, i)));
          }
          data.push_back(new_value(attrs.entry_value(id, i)));
        }
        return objects_.add(name_id<"Map">(), {}, keys, data);
      }
      case AttrKind::kObject:
        return new_object(id);
    }
    return 0;
  }

  std::uint32_t new_object(AttrValueId id) {
    const AttrTable& attrs = context_.attrs;
    std::string_view key = attrs.text(id);
    std::size_t count = attrs.entry_count(id);
    auto field_name = [&](std::size_t i) { return context_.strings.view(attrs.field_key(id, i)); };
    if (key == "DictAttrs") {
      std::vector<std::uint32_t> keys;
      std::vector<std::uint32_t> data;
      for (std::size_t i = 0; i < count; ++i) {
        keys.push_back(objects_.text(field_name(i)));
        data.push_back(new_value(attrs.entry_value(id, i)));
      }
      return objects_.add(
          name_id<"DictAttrs">(),
          {objects_.ref(name_id<"__dict__">(), objects_.add(name_id<"Map">(), {}, keys, data))});
    }
    if (has_repr_bytes(key)) {
      std::optional<AttrValueId> repr = attrs.find_field(id, "repr");
      return objects_.add_repr(key, repr ? attrs.text(*repr) : std::string_view());
    }
    OutFields fields(staged_fields_);
    // As the reader takes the object (ObjectFields): through its type's layout when it fits,
    // else field by field, a declared field by its declared kind and any other as read (text
    // inline, anything else as an object).
    const Layout* layout = layouts_.find(key);
    // An attribute struct's object normally holds its declared fields in declaration order (the
    // readers make it so): then field i is layout field i, found without looking names up.
    bool in_order = layout != nullptr && count == layout->fields.size();
    for (std::size_t i = 0; in_order && i < count; ++i) {
      in_order = field_name(i) == layout->fields[i].name;
    }
    bool fits = in_order || (layout != nullptr && layout->fits(count, [&](std::size_t position) {
                  return attrs.find_field(id, layout->fields[position].name).has_value();
                }));
    // The reader keeps the fields of an object no layout orders in name order, the order they
    // are written in: any other order would read back as another object.
    for (std::size_t i = 1; !fits && i < count; ++i) {
      if (field_name(i - 1) < field_name(i)) continue;
      fail(json_error("unsupported", emitting_where(),
                      fmt::format("attrs of {}: field '{}' comes after '{}', but TVM JSON keeps "
                                  "the fields of a struct {} in name order",
                                  key, field_name(i), field_name(i - 1),
                                  layout == nullptr ? "graphpat does not know"
                                                    : "that does not fit its layout")));
      break;
    }
    if (fits) {
      for (std::size_t position = 0; position < layout->fields.size(); ++position) {
        const LayoutField& field = layout->fields[position];
        std::optional<AttrValueId> value =
            in_order ? attrs.entry_value(id, position) : attrs.find_field(id, field.name);
        if (field.kind == FieldKind::kRef) {
          fields.push_back(objects_.ref(field.name, value ? new_value(*value) : 0));
        } else if (value) {
          fields.push_back(objects_.inline_text(
              field.name, declared_inline_text(key, field.name, *value, field.kind)));
        }
      }
    }
    // The fields the layout did not write (none when they were in order).
    for (std::size_t i = 0; !in_order && i < count; ++i) {
      std::string_view name = field_name(i);
      std::optional<FieldKind> declared = layout != nullptr ? layout->kind_of(name) : std::nullopt;
      if (fits && declared) continue;
      AttrValueId value = attrs.entry_value(id, i);
      if (declared) {
        fields.push_back(*declared == FieldKind::kRef
                             ? objects_.ref(name, new_value(value))
                             : objects_.inline_text(
                                   name, declared_inline_text(key, name, value, *declared)));
      } else if (attrs.kind(value) != AttrKind::kString) {
        fields.push_back(objects_.ref(name, new_value(value)));
      } else if (fits) {
        fields.push_back(objects_.inline_text(name, attrs.text(value)));
      } else {
        fields.push_back(objects_.inline_text_by_looks(name, attrs.text(value)));
      }
    }
    return objects_.add(key, fields);
  }

  // ----- graph nodes ---------------------------------------------------------------------------

  /// The GlobalVar object for function `name`: the one the graph or the file already has for
  /// that name, else a new one (TVM keeps one GlobalVar per name in a module).
  std::uint32_t global_var_object(StringId name, NodeId function) {
    if (auto found = globals_.find(name); found != globals_.end()) return found->second;
    std::string_view text = context_.strings.view(name);
    std::uint32_t result = kNone;
    if (prov_ != nullptr) {
      auto original = prov_->global_vars.find(std::string(text));
      if (original != prov_->global_vars.end()) result = copy(original->second);
    }
    if (result == kNone) {
      // A function's GlobalVar carries the function's type object, as after InferType.
      std::uint32_t checked = 0;
      std::uint32_t function_object = out_of_node_[function.index()];
      for (const OutField& field : objects_.fields_of(function_object)) {
        if (objects_.names.view(field.key) == "_checked_type_") checked = field.value;
      }
      result = objects_.add(
          name_id<"GlobalVar">(),
          {objects_.ref(name_id<"name_hint">(),
                        objects_.add_repr(name_id<"runtime.String">(), text)),
           objects_.ref(name_id<"virtual_device_">(), 0), objects_.ref(name_id<"span">(), 0),
           objects_.ref(name_id<"_checked_type_">(), checked)});
    }
    globals_.emplace(name, result);
    return result;
  }

  void emit_reachable(std::span<const NodeId> roots) {
    std::vector<bool> needed(graph_.size(), false);
    for (NodeId root : roots) needed[root.index()] = true;
    for (std::uint32_t i = graph_.size(); i-- > 0;) {
      if (!needed[i]) continue;
      for (NodeId operand : graph_.operands(NodeId(i))) needed[operand.index()] = true;
    }
    for (std::uint32_t i = 0; i < graph_.size(); ++i) {
      if (needed[i] && out_of_node_[i] == kNone) emit_node(NodeId(i));
    }
  }

  std::uint32_t object_of(NodeId id) const { return out_of_node_[id.index()]; }

  /// Where the value being written belongs: the node, or the module's attributes.
  std::string emitting_where() const {
    return emitting_.valid() ? fmt::format("node {}", emitting_) : std::string("module attrs");
  }

  void emit_node(NodeId id) {
    emitting_ = id;
    std::uint32_t k = provenance_of(id);
    NodeKind kind = graph_.kind(id);
    OutFields fields(staged_fields_);
    auto common = [&] {
      fields.push_back(objects_.ref(name_id<"virtual_device_">(), device_field(k, kind)));
      fields.push_back(objects_.ref(name_id<"span">(), span_field(k, graph_.span(id))));
      fields.push_back(objects_.ref(name_id<"_checked_type_">(),
                                    type_field(k, "_checked_type_", graph_.type(id))));
    };
    std::uint32_t result = kNone;
    switch (kind) {
      case NodeKind::kOp:
        // The loader refuses an Op without a name (an empty repr_str).
        if (context_.op_name(graph_.op(id)).empty()) {
          fail(json_error("unsupported", fmt::format("node {}", id), "an op with an empty name"));
        }
        result = objects_.add_repr(name_id<"Op">(), context_.op_name(graph_.op(id)));
        break;
      case NodeKind::kGlobalVar: {
        StringId name = graph_.name_id(id);
        if (k == kNone) {
          auto found = globals_.find(name);
          if (found != globals_.end()) {
            result = found->second;
            break;
          }
          if (prov_ != nullptr) {
            auto original = prov_->global_vars.find(std::string(graph_.name(id)));
            NodeId same = original == prov_->global_vars.end() ? NodeId()
                                                                 : prov_->node_of[original->second];
            if (same.valid() && graph_.contains(same) && same != id &&
                provenance_of(same) == original->second) {
              if (object_of(same) == kNone) emit_node(same);
              result = object_of(same);
              break;
            }
          }
        }
        fields.push_back(
            objects_.ref(name_id<"name_hint">(), string_field(k, "name_hint", graph_.name(id))));
        common();
        result = add_node(name_id<"GlobalVar">(), k, fields);
        globals_.try_emplace(name, result);
        break;
      }
      case NodeKind::kVar: {
        std::uint32_t vid = original_ref(k, "vid");
        std::string_view name = graph_.name(id);
        if (vid == kNone || vid == 0 || doc().type_key(vid) != "relay.Id" ||
            original_ref(vid, "name_hint") == kNone ||
            doc().repr(original_ref(vid, "name_hint")) != name) {
          vid = objects_.add(name_id<"relay.Id">(),
                             {objects_.ref(name_id<"name_hint">(),
                                           objects_.add_repr(name_id<"runtime.String">(), name))});
        } else {
          vid = copy(vid);
        }
        fields.push_back(objects_.ref(name_id<"vid">(), vid));
        fields.push_back(objects_.ref(name_id<"type_annotation">(),
                                      type_field(k, "type_annotation", graph_.annotation(id))));
        common();
        result = add_node(name_id<"relay.Var">(), k, fields);
        break;
      }
      case NodeKind::kConstant: {
        TensorId tensor = graph_.tensor_id(id);
        auto [slot, inserted] = tensor_slots_.try_emplace(tensor, 0);
        if (inserted) slot->second = objects_.add_ndarray(tensor);
        fields.push_back({name_id<"data">(), OutKind::kNDArray, slot->second});
        common();
        result = add_node(name_id<"relay.Constant">(), k, fields);
        break;
      }
      case NodeKind::kCall:
        fields.push_back(objects_.ref(name_id<"op">(), object_of(graph_.callee(id))));
        fields.push_back(objects_.ref(name_id<"args">(), node_list(k, "args", graph_.args(id))));
        fields.push_back(
            objects_.ref(name_id<"attrs">(), value_field(k, "attrs", graph_.attrs(id))));
        fields.push_back(
            objects_.ref(name_id<"type_args">(), type_list(k, "type_args", graph_.type_args(id))));
        common();
        result = add_node(name_id<"relay.Call">(), k, fields);
        break;
      case NodeKind::kTuple:
        fields.push_back(
            objects_.ref(name_id<"fields">(), node_list(k, "fields", graph_.fields(id))));
        common();
        result = add_node(name_id<"relay.Tuple">(), k, fields);
        break;
      case NodeKind::kTupleGetItem:
        fields.push_back(objects_.ref(name_id<"tuple_value">(), object_of(graph_.tuple(id))));
        fields.push_back(decimal_field(name_id<"index">(), graph_.index(id)));
        common();
        result = add_node(name_id<"relay.TupleGetItem">(), k, fields);
        break;
      case NodeKind::kFunction:
        fields.push_back(
            objects_.ref(name_id<"params">(), node_list(k, "params", graph_.params(id))));
        fields.push_back(objects_.ref(name_id<"body">(), object_of(graph_.body(id))));
        fields.push_back(
            objects_.ref(name_id<"ret_type">(), type_field(k, "ret_type", graph_.result_type(id))));
        fields.push_back(objects_.ref(name_id<"type_params">(),
                                      type_list(k, "type_params", graph_.type_params(id))));
        fields.push_back(
            objects_.ref(name_id<"attrs">(), value_field(k, "attrs", graph_.attrs(id))));
        common();
        result = add_node(name_id<"relay.Function">(), k, fields);
        break;
      case NodeKind::kLet: {
        // TVM walks let chains iteratively: var, value, span, checked type, then the body;
        // virtual_device_ is not visited from a Let (§3.4).
        std::uint32_t device = device_field(k, kind);
        fields.push_back(objects_.ref(name_id<"var">(), object_of(graph_.let_var(id))));
        fields.push_back(objects_.ref(name_id<"value">(), object_of(graph_.let_value(id))));
        fields.push_back(objects_.ref(name_id<"span">(), span_field(k, graph_.span(id))));
        fields.push_back(objects_.ref(name_id<"_checked_type_">(),
                                      type_field(k, "_checked_type_", graph_.type(id))));
        fields.push_back(objects_.ref(name_id<"body">(), object_of(graph_.body(id))));
        fields.push_back({(name_id<"virtual_device_">()), OutKind::kRefUntraversed, device});
        result = add_node(name_id<"relay.Let">(), k, fields);
        break;
      }
      case NodeKind::kIf:
        fields.push_back(objects_.ref(name_id<"cond">(), object_of(graph_.condition(id))));
        fields.push_back(objects_.ref(name_id<"true_branch">(), object_of(graph_.then_branch(id))));
        fields.push_back(
            objects_.ref(name_id<"false_branch">(), object_of(graph_.else_branch(id))));
        common();
        result = add_node(name_id<"relay.If">(), k, fields);
        break;
    }
    out_of_node_[id.index()] = result;
    if (k != kNone) out_of_orig_[k] = result;
  }

  const relay::Graph& graph_;
  const Context& context_;
  const ProvenanceData* prov_;
  LayoutCache layouts_;
  ObjectGraph objects_{known_json_name_texts()};
  FieldStack staged_fields_;  // OutFields' stack
  std::vector<std::uint32_t> out_of_node_;
  std::vector<std::uint32_t> out_of_orig_;
  std::uint32_t shared_device_ = kNone;
  absl::flat_hash_map<StringId, std::uint32_t> globals_;
  absl::flat_hash_map<DimId, std::uint32_t> symbols_;
  absl::flat_hash_map<TypeId, std::uint32_t> type_objects_;  // new_type's objects
  absl::flat_hash_map<StringId, std::uint32_t> source_names_;
  absl::flat_hash_map<TensorId, std::uint32_t> tensor_slots_;
  absl::flat_hash_map<std::uint32_t, std::uint32_t> int_dtype_texts_;  // int_imm's, by dtype
  absl::Status status_ = absl::OkStatus();
  NodeId emitting_;  // the node emit_node writes (invalid before the first)
};

}  // namespace graphpat::relay::detail
