// Turns a (parsed, upgraded) TVM JSON node table into a graphpat Relay module, recording in a
// ProvenanceData what every JSON index became so that save_json can write the file back byte
// for byte. The representation rules are the ones the Relay text reader follows (see
// relay_json.hpp), so a model loaded from either format gives the same graph.
//
// Nothing here recurses over the graph: references are checked (dangling, cycles) by one
// iterative depth-first walk, expressions are built by an explicit-stack post-order walk, and
// only the nesting of one type or attribute value is followed recursively, bounded by
// InputLimits::max_depth.
//
//   graphpat::relay::detail::JsonReader reader(provenance, module);
//   absl::StatusOr<std::optional<graphpat::NodeId>> root = reader.read();
//   // *root is the bare expression when the file's root was not an IRModule
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/detail/text_map.hpp"
#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/io/relay_json/layouts.hpp"
#include "graphpat/io/relay_json/ndarray.hpp"
#include "graphpat/io/relay_json/provenance.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/ir/validation.hpp"
#include "graphpat/relay/dialect.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::relay::detail {

/// Parses a double as TVM writes it (%.17g, plus inf/-inf/nan).
inline std::optional<double> parse_double(std::string_view text) {
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  // TVM writes NaN as "nan" but cannot read it back; graphpat can (golden attrs_double_formats).
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "-nan") return -std::numeric_limits<double>::quiet_NaN();
  return parse_decimal<double>(text);
}

/// An integer dtype's width and signedness ("int64" → 64, signed); nullopt for other dtypes.
struct IntegerType {
  std::uint8_t bits;
  bool is_unsigned;
};
inline std::optional<IntegerType> integer_type(std::string_view dtype) {
  std::optional<DataType> parsed = parse_dtype(dtype);
  if (!parsed || parsed->lanes != 1 || parsed->bits > 64) return std::nullopt;
  if (parsed->code == DataType::Code::kInt) return IntegerType{static_cast<std::uint8_t>(parsed->bits), false};
  if (parsed->code == DataType::Code::kUInt) return IntegerType{static_cast<std::uint8_t>(parsed->bits), true};
  return std::nullopt;
}

/// Where a reference sits, as an error names it (`root`, `nodes[3]`, `nodes[3].attrs.shape`,
/// `nodes[3].data[2]`): kept in parts and written out only when an error is made, since the
/// reader passes a place along with every reference it follows.
class Place {
 public:
  // Implicit: a place written out (`root`, `b64ndarrays[2]`), which must outlive the Place.
  Place(const char* text) : text_(text) {}
  Place(std::string_view text) : text_(text) {}
  static Place node(std::uint32_t index) { return {Kind::kNode, index, {}, 0}; }
  static Place field(std::uint32_t index, std::string_view name) {
    return {Kind::kField, index, name, 0};
  }
  static Place data(std::uint32_t index, std::size_t position) {
    return {Kind::kData, index, {}, position};
  }

  [[nodiscard]] std::string str() const {
    switch (kind_) {
      case Kind::kNode:
        return fmt::format("nodes[{}]", node_);
      case Kind::kField:
        return fmt::format("nodes[{}].attrs.{}", node_, text_);
      case Kind::kData:
        return fmt::format("nodes[{}].data[{}]", node_, position_);
      case Kind::kText:
        break;
    }
    return std::string(text_);
  }

 private:
  enum class Kind { kText, kNode, kField, kData };
  Place(Kind kind, std::uint32_t node, std::string_view text, std::size_t position)
      : kind_(kind), text_(text), node_(node), position_(position) {}

  Kind kind_ = Kind::kText;
  std::string_view text_;  // kText: the place; kField: the field's name
  std::uint32_t node_ = 0;
  std::size_t position_ = 0;
};

class JsonReader {
 public:
  JsonReader(ProvenanceData& provenance, relay::Module& module, const InputLimits& limits)
      : limits_(limits),
        prov_(provenance),
        doc_(provenance.document),
        module_(module),
        context_(module.graph.context()),
        builder_(module.graph),
        layouts_(context_) {
    std::uint32_t n = doc_.size();
    prov_.context = &context_;
    prov_.node_of.assign(n, NodeId());
    prov_.type_of.assign(n, TypeId());
    prov_.attr_of.assign(n, AttrValueId());
    prov_.span_of.assign(n, SpanId());
    tensors_.assign(doc_.b64ndarrays.size(), TensorId());
    dims_.assign(n, DimId());
    field_targets_.assign(doc_.fields.size(), kNoIndex);
  }

  /// Builds the module; returns the root expression when the file's root is not an IRModule.
  absl::StatusOr<std::optional<NodeId>> read() {
    if (!doc_.type_key(0).empty()) {
      return json_error("unexpected_type", "nodes[0]",
                        fmt::format("node 0 must be the null node {{\"type_key\": \"\"}}, found "
                                    "type_key \"{}\"",
                                    doc_.type_key(0)));
    }
    GRAPHPAT_RETURN_IF_ERROR(check_references());
    auto root = static_cast<std::uint32_t>(doc_.root);
    std::optional<NodeId> expression_root;
    if (doc_.type_key(root) == "IRModule") {
      prov_.module_root = true;
      GRAPHPAT_RETURN_IF_ERROR(read_module(root));
    } else {
      GRAPHPAT_RETURN_IF_ERROR(expect_expression(root, "root"));
      GRAPHPAT_ASSIGN_OR_RETURN(expression_root, expression(root));
    }
    GRAPHPAT_RETURN_IF_ERROR(check_unused_tensors());
    record_provenance();
    return expression_root;
  }

 private:
  // ----- locations and raw field access -------------------------------------------------------

  /// Field `field` of node `index`.
  std::optional<std::string_view> field_text(std::uint32_t index, std::string_view field) {
    return doc_.field(index, field_ids_.find(doc_.names, field));
  }

  absl::StatusOr<std::string_view> text(std::uint32_t index, std::string_view field) {
    std::optional<std::string_view> value = field_text(index, field);
    if (!value) {
      return json_error("missing_field", Place::field(index, field).str(),
                        fmt::format("a {} needs this field", doc_.type_key(index)));
    }
    return *value;
  }

  absl::Status dangling(const Place& where, std::uint64_t target) const {
    return json_error("dangling_reference", where.str(),
                      fmt::format("refers to node {}, but there are {} nodes", target,
                                  doc_.size()));
  }

  /// A reference field; a missing `virtual_device_` or IRModule `attrs` reads as null, as
  /// json_compact.py makes it for files from before those fields existed.
  absl::StatusOr<std::uint32_t> ref(std::uint32_t index, std::string_view field) {
    std::optional<std::uint32_t> position =
        doc_.field_position(index, field_ids_.find(doc_.names, field));
    if (!position) {
      if (field == "virtual_device_" || field == "attrs" || field == "span") return 0u;
      return json_error("missing_field", Place::field(index, field).str(),
                        fmt::format("a {} needs this field", doc_.type_key(index)));
    }
    if (field_targets_[*position] != kNoIndex) return field_targets_[*position];
    return ref_of_text(index, field, doc_.view(doc_.fields[*position].value));
  }

  /// Reference field `field` of `index` whose text the caller holds as `value` (a walk over
  /// all of a node's fields passes it rather than scanning the node's fields for it again).
  absl::StatusOr<std::uint32_t> ref_of_text(std::uint32_t index, std::string_view field,
                                            std::string_view value) const {
    std::optional<std::uint64_t> target = parse_decimal<std::uint64_t>(value);
    if (!target) {
      return json_error("bad_value", Place::field(index, field).str(),
                        fmt::format("\"{}\" is not a node index", value));
    }
    if (*target >= doc_.size()) return dangling(Place::field(index, field), *target);
    return static_cast<std::uint32_t>(*target);
  }

  absl::StatusOr<std::int64_t> integer(std::uint32_t index, std::string_view field) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::string_view value, text(index, field));
    std::optional<std::int64_t> parsed = parse_decimal<std::int64_t>(value);
    if (!parsed) {
      return json_error("bad_value", Place::field(index, field).str(),
                        fmt::format("\"{}\" is not a decimal integer", value));
    }
    return *parsed;
  }

  /// An inline integer field TVM declares `int`: 32 bits, never truncated.
  absl::StatusOr<std::int32_t> integer32(std::uint32_t index, std::string_view field) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::int64_t value, integer(index, field));
    if (value < std::numeric_limits<std::int32_t>::min() ||
        value > std::numeric_limits<std::int32_t>::max()) {
      return json_error("bad_value", Place::field(index, field).str(),
                        fmt::format("{} does not fit in a 32-bit int", value));
    }
    return static_cast<std::int32_t>(value);
  }

  absl::StatusOr<bool> boolean(std::uint32_t index, std::string_view field) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::string_view value, text(index, field));
    if (value != "0" && value != "1") {
      return json_error("bad_value", Place::field(index, field).str(),
                        fmt::format("\"{}\" is not a boolean (\"0\" or \"1\")", value));
    }
    return value == "1";
  }

  absl::StatusOr<double> real(std::uint32_t index, std::string_view field) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::string_view value, text(index, field));
    std::optional<double> parsed = parse_double(value);
    if (!parsed) {
      return json_error("bad_value", Place::field(index, field).str(),
                        fmt::format("\"{}\" is not a number", value));
    }
    return *parsed;
  }

  absl::Status expect_key(std::uint32_t index, const Place& where,
                          std::string_view expected) const {
    if (graphpat::detail::same_text(doc_.type_key(index), expected)) return absl::OkStatus();
    return json_error("unexpected_type", where.str(),
                      fmt::format("refers to node {}, a {}, where a {} is required", index,
                                  describe(index), expected));
  }

  std::string describe(std::uint32_t index) const {
    return index == 0 ? std::string("null") : fmt::format("{}", doc_.type_key(index));
  }

  /// The elements of the Array that field `field` of `index` refers to.
  absl::StatusOr<std::span<const std::uint64_t>> array(std::uint32_t index,
                                                       std::string_view field) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t target, ref(index, field));
    GRAPHPAT_RETURN_IF_ERROR(expect_key(target, Place::field(index, field), "Array"));
    return doc_.data_of(target);
  }

  /// The text of a runtime.String node (the reference is checked by the caller's location).
  absl::StatusOr<std::string_view> string_field(std::uint32_t index, std::string_view field) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t target, ref(index, field));
    GRAPHPAT_RETURN_IF_ERROR(expect_key(target, Place::field(index, field), "runtime.String"));
    return doc_.repr(target);
  }

  // ----- the reference walk -----------------------------------------------------------------

  struct Edge {
    std::uint32_t target;
    std::uint32_t label;  // the field's name id, or the data position
    bool in_data;
  };

  absl::Status collect_edges(std::uint32_t index, std::vector<Edge>& edges) {
    ObjectFields object(doc_, layouts_, index);
    if (object.repr_bytes()) return absl::OkStatus();
    // Elements: an Array's or a Map's, and those of any other object that has them (TVM reads
    // them for containers only, but a save with provenance copies them, so they are checked
    // for dangling references and cycles as the copy will follow them: original_children).
    auto data = doc_.data_of(index);
    for (std::size_t i = 0; i < data.size(); ++i) {
      if (data[i] >= doc_.size()) return dangling(Place::data(index, i), data[i]);
      edges.push_back({static_cast<std::uint32_t>(data[i]), static_cast<std::uint32_t>(i), true});
    }
    const JsonNode& node = doc_.nodes[index];
    for (std::uint32_t i = node.first_field; i < node.first_field + node.field_count; ++i) {
      const JsonField& field = doc_.fields[i];
      std::string_view text_value = doc_.view(field.value);
      if (object.use(field.key, text_value) != FieldUse::kReference) continue;
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t target,
                                ref_of_text(index, doc_.names.view(field.key), text_value));
      field_targets_[i] = target;  // ref() reads it instead of parsing the text again
      edges.push_back({target, field.key.value, false});
    }
    return absl::OkStatus();
  }

  /// One depth-first walk over every reference reachable from the root: dangling references
  /// and cycles are reported here, so the builders below can rely on a finite DAG.
  absl::Status check_references() {
    enum : std::uint8_t { kUnseen, kOnPath, kDone };
    std::vector<std::uint8_t> state(doc_.size(), kUnseen);
    struct Frame {
      std::uint32_t node;
      std::uint32_t begin;
      std::uint32_t next;
    };
    std::vector<Edge> edges;
    std::vector<Frame> stack;
    auto enter = [&](std::uint32_t node) -> absl::Status {
      state[node] = kOnPath;
      auto begin = static_cast<std::uint32_t>(edges.size());
      GRAPHPAT_RETURN_IF_ERROR(collect_edges(node, edges));
      stack.push_back({node, begin, begin});
      return absl::OkStatus();
    };
    GRAPHPAT_RETURN_IF_ERROR(enter(static_cast<std::uint32_t>(doc_.root)));
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next == edges.size()) {
        state[frame.node] = kDone;
        edges.resize(frame.begin);
        stack.pop_back();
        continue;
      }
      Edge edge = edges[frame.next++];
      std::uint32_t from = frame.node;
      if (edge.target == 0 || state[edge.target] == kDone) continue;
      if (state[edge.target] == kOnPath) {
        Place where = edge.in_data ? Place::data(from, edge.label)
                                   : Place::field(from, doc_.names.view(StringId(edge.label)));
        return json_error("cyclic_reference", where.str(),
                          fmt::format("refers to node {}, which refers back to node {}: node {} "
                                      "is reachable from itself",
                                      edge.target, from, edge.target));
      }
      GRAPHPAT_RETURN_IF_ERROR(enter(edge.target));
    }
    return absl::OkStatus();
  }

  // ----- module ----------------------------------------------------------------------------

  absl::Status read_module(std::uint32_t index) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t functions, ref(index, "functions"));
    GRAPHPAT_RETURN_IF_ERROR(expect_key(functions, Place::field(index, "functions"), "Map"));
    if (!doc_.keys_of(functions).empty()) {
      return json_error("unexpected_type", Place::node(functions).str(),
                        "IRModule.functions must be keyed by GlobalVars, not strings");
    }
    auto data = doc_.data_of(functions);
    if (data.size() % 2 != 0) {
      return json_error("bad_value", Place::node(functions).str(),
                        "a Map's data must hold key, value pairs (odd length)");
    }
    for (std::size_t i = 0; i < data.size(); i += 2) {
      auto key = static_cast<std::uint32_t>(data[i]);
      auto value = static_cast<std::uint32_t>(data[i + 1]);
      GRAPHPAT_RETURN_IF_ERROR(expect_key(key, Place::data(functions, i), "GlobalVar"));
      GRAPHPAT_RETURN_IF_ERROR(expect_key(value, Place::data(functions, i + 1), "relay.Function"));
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, string_field(key, "name_hint"));
      if (module_.find(name)) {
        return json_error("duplicate_definition", Place::data(functions, i).str(),
                          fmt::format("@{} is defined twice", name));
      }
      GRAPHPAT_ASSIGN_OR_RETURN(NodeId function, expression(value));
      GRAPHPAT_RETURN_IF_ERROR(expression(key).status());
      module_.add_function(name, function);
      prov_.global_vars.try_emplace(std::string(name), key);
    }
    GRAPHPAT_RETURN_IF_ERROR(check_global_var_map(index));
    GRAPHPAT_RETURN_IF_ERROR(check_globals_defined());
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t definitions, ref(index, "type_definitions"));
    if (definitions != 0 && !doc_.data_of(definitions).empty()) {
      return json_error("unsupported", Place::field(index, "type_definitions").str(),
                        "type definitions (ADTs) are not supported by graphpat's IR");
    }
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t attrs, ref(index, "attrs"));
    GRAPHPAT_ASSIGN_OR_RETURN(module_.attrs, object_value(attrs, Place::field(index, "attrs")));
    return absl::OkStatus();
  }

  /// IRModule.global_var_map_ (name → GlobalVar), which TVM keeps in step with `functions`:
  /// each entry must be the GlobalVar of a function of that name, and each function must have
  /// one. A missing map (files written by hand) is not checked.
  absl::Status check_global_var_map(std::uint32_t module) {
    if (!doc_.field(module, "global_var_map_")) return absl::OkStatus();
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t map, ref(module, "global_var_map_"));
    if (map == 0) return absl::OkStatus();
    GRAPHPAT_RETURN_IF_ERROR(expect_key(map, Place::field(module, "global_var_map_"), "Map"));
    auto keys = doc_.keys_of(map);
    auto data = doc_.data_of(map);
    if (keys.size() != data.size()) {
      return json_error("unexpected_type", Place::node(map).str(),
                        "IRModule.global_var_map_ must be keyed by strings");
    }
    graphpat::detail::TextSet names;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto target = static_cast<std::uint32_t>(data[i]);
      if (!names.insert(doc_.view(keys[i])).second) {
        return json_error("duplicate_key", fmt::format("{}.keys[{}]", Place::node(map).str(), i),
                          "appears twice");
      }
      GRAPHPAT_RETURN_IF_ERROR(expect_key(target, Place::data(map, i), "GlobalVar"));
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, string_field(target, "name_hint"));
      std::string_view key = doc_.view(keys[i]);
      if (name != key || !module_.find(key)) {
        return json_error("bad_value", Place::data(map, i).str(),
                          name != key ? fmt::format("maps \"{}\" to the GlobalVar @{}", key, name)
                                      : fmt::format("maps \"{}\", but the module has no function "
                                                    "@{}",
                                                    key, key));
      }
    }
    if (keys.size() != module_.functions().size()) {
      return json_error("bad_value", Place::node(map).str(),
                        fmt::format("IRModule.global_var_map_ has {} entries, but the module "
                                    "has {} functions",
                                    keys.size(), module_.functions().size()));
    }
    return absl::OkStatus();
  }

  /// Every GlobalVar an expression uses names a function of the module (TVM's type checker
  /// refuses a call of an undefined global).
  absl::Status check_globals_defined() {
    for (std::uint32_t index = 0; index < doc_.size(); ++index) {
      if (!prov_.node_of[index].valid() || doc_.type_key(index) != "GlobalVar") continue;
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, string_field(index, "name_hint"));
      if (!module_.find(name)) {
        return json_error("undefined_global", Place::field(index, "name_hint").str(),
                          fmt::format("@{} is not a function of the module", name));
      }
    }
    return absl::OkStatus();
  }

  // ----- expressions -------------------------------------------------------------------------

  /// Checks that `index`, referred to from `where`, is an expression graphpat can hold.
  absl::Status expect_expression(std::uint32_t index, const Place& where) const {
    std::string_view key = doc_.type_key(index);
    if (index == 0) {
      return json_error("null_reference", where.str(), "is null where a Relay expression is required");
    }
    if (!is_expression_key(key)) {
      return json_error("unexpected_type", where.str(),
                        fmt::format("refers to node {}, a {}, where a Relay expression is "
                                    "required",
                                    index, key));
    }
    if (key == "relay.Match" || key.starts_with("relay.Ref") || key == "relay.Constructor") {
      return json_error("unsupported", Place::node(index).str(),
                        fmt::format("{} (ADTs and references) has no graphpat node kind", key));
    }
    return absl::OkStatus();
  }

  absl::Status child(std::uint32_t index, std::string_view field, std::vector<std::uint32_t>& out,
                     std::string_view required = {}) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t target, ref(index, field));
    GRAPHPAT_RETURN_IF_ERROR(expect_expression(target, Place::field(index, field)));
    if (!required.empty())
      GRAPHPAT_RETURN_IF_ERROR(expect_key(target, Place::field(index, field), required));
    out.push_back(target);
    return absl::OkStatus();
  }

  absl::Status children(std::uint32_t index, std::string_view field,
                        std::vector<std::uint32_t>& out, std::string_view required = {}) {
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t list, ref(index, field));
    GRAPHPAT_RETURN_IF_ERROR(expect_key(list, Place::field(index, field), "Array"));
    auto data = doc_.data_of(list);
    for (std::size_t i = 0; i < data.size(); ++i) {
      auto target = static_cast<std::uint32_t>(data[i]);
      GRAPHPAT_RETURN_IF_ERROR(expect_expression(target, Place::data(list, i)));
      if (!required.empty())
        GRAPHPAT_RETURN_IF_ERROR(expect_key(target, Place::data(list, i), required));
      out.push_back(target);
    }
    return absl::OkStatus();
  }

  /// A function binds each of its parameters once: `params` lists no Var twice.
  absl::Status expect_distinct_params(std::uint32_t function,
                                      std::span<const std::uint32_t> params) {
    absl::flat_hash_map<std::uint32_t, std::size_t> first;
    for (std::size_t i = 0; i < params.size(); ++i) {
      auto [seen, inserted] = first.try_emplace(params[i], i);
      if (inserted) continue;
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t list, ref(function, "params"));
      return json_error("duplicate_param", Place::data(list, i).str(),
                        fmt::format("refers to node {}, the Var of parameter {} again (a "
                                    "function binds a Var once)",
                                    params[i], seen->second));
    }
    return absl::OkStatus();
  }

  /// The expression operands of node `index`, in operand order.
  absl::Status operands_of(std::uint32_t index, std::vector<std::uint32_t>& out) {
    out.clear();
    std::string_view key = doc_.type_key(index);
    if (key == "relay.Call") {
      GRAPHPAT_RETURN_IF_ERROR(child(index, "op", out));
      return children(index, "args", out);
    }
    if (key == "relay.Tuple") return children(index, "fields", out);
    if (key == "relay.TupleGetItem") return child(index, "tuple_value", out);
    if (key == "relay.Function") {
      GRAPHPAT_RETURN_IF_ERROR(children(index, "params", out, "relay.Var"));
      GRAPHPAT_RETURN_IF_ERROR(expect_distinct_params(index, out));
      return child(index, "body", out);
    }
    if (key == "relay.Let") {
      GRAPHPAT_RETURN_IF_ERROR(child(index, "var", out, "relay.Var"));
      GRAPHPAT_RETURN_IF_ERROR(child(index, "value", out));
      return child(index, "body", out);
    }
    if (key == "relay.If") {
      GRAPHPAT_RETURN_IF_ERROR(child(index, "cond", out));
      GRAPHPAT_RETURN_IF_ERROR(child(index, "true_branch", out));
      return child(index, "false_branch", out);
    }
    return absl::OkStatus();  // leaves: Var, GlobalVar, Op, Constant
  }

  /// The graph node of expression `root`, building it and everything under it in post-order
  /// with an explicit stack (a 1,000,000-deep call chain is fine).
  absl::StatusOr<NodeId> expression(std::uint32_t root) {
    struct Frame {
      std::uint32_t index;
      bool expanded;
    };
    std::vector<Frame> stack{{root, false}};
    std::vector<std::uint32_t> operands;
    while (!stack.empty()) {
      Frame& frame = stack.back();
      std::uint32_t index = frame.index;
      if (prov_.node_of[index].valid()) {
        stack.pop_back();
        continue;
      }
      if (!frame.expanded) {
        frame.expanded = true;
        GRAPHPAT_RETURN_IF_ERROR(operands_of(index, operands));
        for (std::size_t i = operands.size(); i-- > 0;) {
          if (!prov_.node_of[operands[i]].valid()) stack.push_back({operands[i], false});
        }
        continue;
      }
      GRAPHPAT_RETURN_IF_ERROR(operands_of(index, operands));
      GRAPHPAT_ASSIGN_OR_RETURN(prov_.node_of[index], build(index, operands));
      stack.pop_back();
    }
    return prov_.node_of[root];
  }

  absl::StatusOr<NodeOptions> node_options(std::uint32_t index) {
    NodeOptions options;
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t checked, ref(index, "_checked_type_"));
    GRAPHPAT_ASSIGN_OR_RETURN(options.type,
                              type(checked, Place::field(index, "_checked_type_"), 0));
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t span_index, ref(index, "span"));
    GRAPHPAT_ASSIGN_OR_RETURN(options.span, span(span_index, Place::field(index, "span")));
    options.fresh = true;
    return options;
  }

  /// A tuple type of the types in Array field `field`, or none when the array is empty.
  absl::StatusOr<TypeId> type_list(std::uint32_t index, std::string_view field) {
    GRAPHPAT_ASSIGN_OR_RETURN(auto elements, array(index, field));
    if (elements.empty()) return TypeId();
    std::vector<TypeId> types;
    for (std::uint64_t element : elements) {
      GRAPHPAT_ASSIGN_OR_RETURN(TypeId element_type, type(static_cast<std::uint32_t>(element),
                                                          Place::field(index, field), 0));
      if (!element_type.valid()) {
        return json_error("null_reference", Place::field(index, field).str(), "holds a null type");
      }
      types.push_back(element_type);
    }
    return context_.types.tuple(types);
  }

  absl::StatusOr<NodeId> build(std::uint32_t index, const std::vector<std::uint32_t>& operand_indices) {
    std::string_view key = doc_.type_key(index);
    std::vector<NodeId> operands;
    operands.reserve(operand_indices.size());
    for (std::uint32_t operand : operand_indices) operands.push_back(prov_.node_of[operand]);
    if (key == "Op") {
      if (doc_.repr(index).empty()) {
        return json_error("bad_value", Place::node(index).str(),
                          "an Op needs its name as repr_str");
      }
      return builder_.opaque_op(doc_.repr(index));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(NodeOptions options, node_options(index));
    if (key == "relay.Var") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t vid, ref(index, "vid"));
      GRAPHPAT_RETURN_IF_ERROR(expect_key(vid, Place::field(index, "vid"), "relay.Id"));
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, string_field(vid, "name_hint"));
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t annotation, ref(index, "type_annotation"));
      GRAPHPAT_ASSIGN_OR_RETURN(TypeId annotation_type,
                                type(annotation, Place::field(index, "type_annotation"), 0));
      return builder_.var(name, annotation_type, options);
    }
    if (key == "GlobalVar") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, string_field(index, "name_hint"));
      return builder_.global_var(name, options);
    }
    if (key == "relay.Constant") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::int64_t blob, integer(index, "data"));
      GRAPHPAT_ASSIGN_OR_RETURN(TensorId tensor_id, tensor(blob, Place::field(index, "data")));
      return builder_.constant(tensor_id, options);
    }
    if (key == "relay.Call") {
      CallOptions call{.type = options.type, .span = options.span, .fresh = true};
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t attrs, ref(index, "attrs"));
      GRAPHPAT_ASSIGN_OR_RETURN(call.attrs, object_value(attrs, Place::field(index, "attrs")));
      GRAPHPAT_ASSIGN_OR_RETURN(call.type_args, type_list(index, "type_args"));
      return builder_.call(operands[0], std::span(operands).subspan(1), call);
    }
    if (key == "relay.Tuple") return builder_.tuple(operands, options);
    if (key == "relay.TupleGetItem") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::int64_t item, integer(index, "index"));
      if (item < 0 || item >= std::numeric_limits<std::uint32_t>::max()) {
        return json_error("bad_value", Place::field(index, "index").str(),
                          fmt::format("{} is not a tuple index", item));
      }
      return builder_.tuple_get_item(operands[0], static_cast<std::uint32_t>(item), options);
    }
    if (key == "relay.Function") {
      FunctionOptions function{.type = options.type, .span = options.span, .fresh = true};
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t attrs, ref(index, "attrs"));
      GRAPHPAT_ASSIGN_OR_RETURN(function.attrs, object_value(attrs, Place::field(index, "attrs")));
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t result, ref(index, "ret_type"));
      GRAPHPAT_ASSIGN_OR_RETURN(function.result_type,
                                type(result, Place::field(index, "ret_type"), 0));
      GRAPHPAT_ASSIGN_OR_RETURN(function.type_params, type_list(index, "type_params"));
      return builder_.function(std::span(operands).first(operands.size() - 1), operands.back(),
                               function);
    }
    if (key == "relay.Let") return builder_.let(operands[0], operands[1], operands[2], options);
    if (key == "relay.If") {
      return builder_.if_then_else(operands[0], operands[1], operands[2], options);
    }
    return json_error("unexpected_type", Place::node(index).str(),
                      fmt::format("{} is not a Relay expression", key));
  }

  // ----- types ---------------------------------------------------------------------------------

  [[nodiscard]] bool over_depth(int depth) const {
    return static_cast<std::uint32_t>(depth) > limits_.max_depth;
  }
  absl::Status too_deep(std::uint32_t index) const {
    return json_error("too_deep", Place::node(index).str(),
                      graphpat::detail::too_deep_problem(limits_.max_depth));
  }

  /// The type node `index` denotes (none for null); `where` is the referring field.
  absl::StatusOr<TypeId> type(std::uint32_t index, const Place& where, int depth) {
    if (index == 0) return TypeId();
    if (prov_.type_of[index].valid()) return prov_.type_of[index];
    if (over_depth(depth)) return too_deep(index);
    std::string_view key = doc_.type_key(index);
    TypeTable& types = context_.types;
    auto list = [&](std::string_view field) -> absl::StatusOr<absl::InlinedVector<TypeId, 8>> {
      GRAPHPAT_ASSIGN_OR_RETURN(auto elements, array(index, field));
      absl::InlinedVector<TypeId, 8> result;
      for (std::uint64_t element : elements) {
        GRAPHPAT_ASSIGN_OR_RETURN(TypeId element_type, type(static_cast<std::uint32_t>(element),
                                                            Place::field(index, field), depth + 1));
        if (!element_type.valid()) {
          return json_error("null_reference", Place::field(index, field).str(),
                            "holds a null type");
        }
        result.push_back(element_type);
      }
      return result;
    };
    auto single = [&](std::string_view field) -> absl::StatusOr<TypeId> {
      GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t target, ref(index, field));
      GRAPHPAT_ASSIGN_OR_RETURN(TypeId result, type(target, Place::field(index, field), depth + 1));
      if (!result.valid()) {
        return json_error("null_reference", Place::field(index, field).str(),
                          "is null where a type is required");
      }
      return result;
    };
    TypeId result;
    if (key == "relay.TensorType") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view dtype, text(index, "dtype"));
      if (auto problem = dtype_problem(dtype)) {
        return json_error("bad_value", Place::field(index, "dtype").str(), *problem);
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto shape, array(index, "shape"));
      absl::InlinedVector<DimId, 8> dims;
      for (std::uint64_t element : shape) {
        GRAPHPAT_ASSIGN_OR_RETURN(DimId dim_id, dim(static_cast<std::uint32_t>(element),
                                                    Place::field(index, "shape"), depth + 1));
        dims.push_back(dim_id);
      }
      result = types.tensor(dtype, dims);
    } else if (key == "TupleType") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto fields, list("fields"));
      result = types.tuple(fields);
    } else if (key == "FuncType") {
      GRAPHPAT_ASSIGN_OR_RETURN(auto params, list("arg_types"));
      GRAPHPAT_ASSIGN_OR_RETURN(TypeId ret, single("ret_type"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto type_params, list("type_params"));
      result = types.func(params, ret, type_params);
    } else if (key == "TypeVar" || key == "GlobalTypeVar") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, string_field(index, "name_hint"));
      GRAPHPAT_ASSIGN_OR_RETURN(std::int32_t kind, integer32(index, "kind"));
      result = key == "TypeVar" ? types.type_var(name, kind) : types.global_type_var(name, kind);
    } else if (key == "TypeCall") {
      GRAPHPAT_ASSIGN_OR_RETURN(TypeId callee, single("func"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto args, list("args"));
      result = types.type_call(callee, args);
    } else if (key == "relay.RefType") {
      GRAPHPAT_ASSIGN_OR_RETURN(TypeId value, single("value"));
      result = types.ref(value);
    } else if (key == "IncompleteType") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::int32_t kind, integer32(index, "kind"));
      result = types.incomplete(kind);
    } else if (is_expression_key(key) || key == "Array" || key == "Map" || has_repr_bytes(key) ||
               key.starts_with("relay.attrs.")) {
      return json_error("unexpected_type", where.str(),
                        fmt::format("refers to node {}, a {}, where a type is required", index, key));
    } else {
      // A type graphpat does not model (PrimType, TypeRelation, ...): carried through by
      // provenance, named by its type key in graphpat.
      result = types.opaque(key);
    }
    prov_.type_of[index] = result;
    return result;
  }

  /// A textual name for a symbolic shape expression (`n`, `(n * 2)`).
  absl::StatusOr<std::string> render_dim(std::uint32_t index, int depth) {
    if (over_depth(depth)) return too_deep(index);
    std::string_view key = doc_.type_key(index);
    if (key == "IntImm") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::int64_t value, integer(index, "value"));
      return fmt::format("{}", value);
    }
    if (key == "tir.Var" || key == "tir.SizeVar") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view name, string_field(index, "name"));
      return std::string(name);
    }
    const Layout* layout = layouts_.find(key);
    if (layout == nullptr || !key.starts_with("tir.") || !doc_.field(index, "a")) {
      return json_error("unexpected_type", Place::node(index).str(),
                        fmt::format("a {} is not a shape dimension", key));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t a, ref(index, "a"));
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t b, ref(index, "b"));
    GRAPHPAT_ASSIGN_OR_RETURN(std::string left, render_dim(a, depth + 1));
    GRAPHPAT_ASSIGN_OR_RETURN(std::string right, render_dim(b, depth + 1));
    return fmt::format("{}({}, {})", key.substr(4), left, right);
  }

  absl::StatusOr<DimId> dim(std::uint32_t index, const Place& where, int depth) {
    if (dims_[index].valid()) return dims_[index];
    std::string_view key = doc_.type_key(index);
    TypeTable& types = context_.types;
    DimId result;
    if (key == "IntImm") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view dtype, text(index, "dtype"));
      GRAPHPAT_ASSIGN_OR_RETURN(std::int64_t value, integer(index, "value"));
      std::optional<IntegerType> width = integer_type(dtype);
      if (!width) {
        return json_error("bad_value", Place::field(index, "dtype").str(),
                          fmt::format("\"{}\" is not an integer dtype", dtype));
      }
      // A dimension keeps only its width (Relay text has no unsigned literal), so an unsigned
      // one would come back signed.
      if (width->is_unsigned) {
        return json_error("bad_value", Place::field(index, "dtype").str(),
                          fmt::format("a shape dimension of dtype \"{}\": dimensions are "
                                      "signed integers",
                                      dtype));
      }
      DataType dim_type{DataType::Code::kInt, width->bits, 1};
      if (auto problem = integer_problem(value, dim_type)) {
        return json_error("bad_value", Place::field(index, "value").str(), *problem);
      }
      if (auto problem = extent_problem(value)) {
        return json_error("bad_value", Place::field(index, "value").str(), *problem);
      }
      result = types.dim(value, width->bits);
    } else if (key == "tir.Any") {
      result = types.any_dim();
    } else if (key.starts_with("tir.")) {
      GRAPHPAT_ASSIGN_OR_RETURN(std::string name, render_dim(index, depth));
      result = types.symbolic_dim(name, key);
    } else {
      return json_error("unexpected_type", where.str(),
                        fmt::format("refers to node {}, a {}, where a shape dimension is "
                                    "required",
                                    index, describe(index)));
    }
    dims_[index] = result;
    return result;
  }

  // ----- spans -------------------------------------------------------------------------------

  absl::StatusOr<SpanId> span(std::uint32_t index, const Place& where) {
    if (index == 0) return SpanId();
    if (prov_.span_of[index].valid()) return prov_.span_of[index];
    std::string_view key = doc_.type_key(index);
    if (key != "Span" && key != "SequentialSpan") {
      return json_error("unexpected_type", where.str(),
                        fmt::format("refers to node {}, a {}, where a Span is required", index,
                                    key));
    }
    Span result;
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t source, ref(index, "source_name"));
    if (source != 0) {
      GRAPHPAT_RETURN_IF_ERROR(
          expect_key(source, Place::field(index, "source_name"), "SourceName"));
    }
    result.source = context_.strings.intern(source == 0 ? "" : doc_.repr(source));
    std::int32_t* slots[] = {&result.line, &result.column, &result.end_line, &result.end_column};
    std::string_view names[] = {"line", "column", "end_line", "end_column"};
    for (int i = 0; i < 4; ++i) {
      GRAPHPAT_ASSIGN_OR_RETURN(*slots[i], integer32(index, names[i]));
    }
    prov_.span_of[index] = context_.spans.intern(result);
    return prov_.span_of[index];
  }

  // ----- tensors -------------------------------------------------------------------------------

  absl::StatusOr<TensorId> tensor(std::int64_t blob, const Place& where) {
    if (blob < 0 || static_cast<std::uint64_t>(blob) >= tensors_.size()) {
      return json_error("dangling_reference", where.str(),
                        fmt::format("refers to b64ndarrays[{}], but there are {} arrays", blob,
                                    tensors_.size()));
    }
    TensorId& slot = tensors_[static_cast<std::size_t>(blob)];
    if (slot.valid()) return slot;
    GRAPHPAT_ASSIGN_OR_RETURN(
        DecodedTensor decoded,
        decode_ndarray(doc_.view(doc_.b64ndarrays[static_cast<std::size_t>(blob)]),
                       fmt::format("b64ndarrays[{}]", blob), limits_.max_tensor_bytes));
    slot = context_.tensors.add(Tensor{context_.strings.intern(decoded.dtype),
                                       std::move(decoded.shape), std::move(decoded.bytes)});
    return slot;
  }

  /// TVM's loader decodes every b64ndarrays entry, used or not, and refuses the file when one
  /// does not decode; so does this one (an unused entry is decoded and dropped).
  absl::Status check_unused_tensors() const {
    for (std::size_t blob = 0; blob < tensors_.size(); ++blob) {
      if (tensors_[blob].valid()) continue;
      GRAPHPAT_RETURN_IF_ERROR(decode_ndarray(doc_.view(doc_.b64ndarrays[blob]),
                                               fmt::format("b64ndarrays[{}]", blob),
                                               limits_.max_tensor_bytes)
                                    .status());
    }
    return absl::OkStatus();
  }

  // ----- attribute values ----------------------------------------------------------------------

  /// An attrs object (call attrs, function DictAttrs, module attrs), or none for null.
  absl::StatusOr<AttrValueId> object_value(std::uint32_t index, const Place& where) {
    if (index == 0) return AttrValueId();
    GRAPHPAT_ASSIGN_OR_RETURN(AttrValueId result, value(index, 0));
    if (context_.attrs.kind(result) != AttrKind::kObject) {
      return json_error("unexpected_type", where.str(),
                        fmt::format("refers to node {}, a {}, where an attributes object is "
                                    "required",
                                    index, doc_.type_key(index)));
    }
    return result;
  }

  /// An inline field of kind `kind` as a value, in the kind's inline form (layouts.hpp).
  absl::StatusOr<AttrValueId> inline_value(std::uint32_t index, std::string_view field,
                                           FieldKind kind) {
    AttrTable& attrs = context_.attrs;
    switch (kind) {
      case FieldKind::kInt: {
        GRAPHPAT_ASSIGN_OR_RETURN(std::int32_t value, integer32(index, field));
        return attrs.integer(value, inline_form(kind)->bits);
      }
      case FieldKind::kNDArray: {
        GRAPHPAT_ASSIGN_OR_RETURN(std::int64_t value, integer(index, field));
        return attrs.integer(value, inline_form(kind)->bits);
      }
      case FieldKind::kBool: {
        GRAPHPAT_ASSIGN_OR_RETURN(bool value, boolean(index, field));
        return attrs.boolean(value);
      }
      case FieldKind::kDouble: {
        GRAPHPAT_ASSIGN_OR_RETURN(double value, real(index, field));
        return attrs.floating(value, 64);
      }
      case FieldKind::kString: {
        GRAPHPAT_ASSIGN_OR_RETURN(std::string_view value, text(index, field));
        return attrs.string(value);
      }
      case FieldKind::kDataType: {
        GRAPHPAT_ASSIGN_OR_RETURN(std::string_view value, text(index, field));
        return attrs.data_type(value);
      }
      case FieldKind::kRef:
        break;
    }
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t target, ref(index, field));
    return value(target, 1);
  }

  /// The value object `index` denotes, by the rules of relay_json.hpp.
  absl::StatusOr<AttrValueId> value(std::uint32_t index, int depth) {
    AttrTable& attrs = context_.attrs;
    if (index == 0) return attrs.null();
    if (prov_.attr_of[index].valid()) return prov_.attr_of[index];
    if (over_depth(depth)) return too_deep(index);
    std::string_view key = doc_.type_key(index);
    AttrValueId result;
    if (key == "IntImm" || key == "FloatImm") {
      GRAPHPAT_ASSIGN_OR_RETURN(std::string_view dtype, text(index, "dtype"));
      std::optional<DataType> parsed = parse_dtype(dtype);
      if (!parsed) {
        return json_error("bad_value", Place::field(index, "dtype").str(),
                          dtype_problem(dtype).value_or(
                              fmt::format("'{}' is not a scalar dtype of {}", dtype, key)));
      }
      if (auto problem = scalar_dtype_problem(*parsed)) {
        return json_error("bad_value", Place::field(index, "dtype").str(), *problem);
      }
      auto bits = static_cast<std::uint8_t>(parsed->bits);
      if (key == "FloatImm") {
        GRAPHPAT_ASSIGN_OR_RETURN(double number, real(index, "value"));
        if (auto problem = float_problem(number, *parsed)) {
          return json_error("bad_value", Place::field(index, "value").str(), *problem);
        }
        result = attrs.floating(number, bits);
      } else {
        GRAPHPAT_ASSIGN_OR_RETURN(std::int64_t number, integer(index, "value"));
        if (auto problem = integer_problem(number, *parsed)) {
          return json_error("bad_value", Place::field(index, "value").str(), *problem);
        }
        result = parsed->code == DataType::Code::kBool
                     ? attrs.boolean(number != 0)
                     : attrs.integer(number, bits, parsed->code == DataType::Code::kUInt);
      }
    } else if (key == "runtime.String") {
      result = attrs.string(doc_.repr(index));
    } else if (key == "Array") {
      absl::InlinedVector<AttrValueId, 8> elements;
      for (std::uint64_t element : doc_.data_of(index)) {
        GRAPHPAT_ASSIGN_OR_RETURN(AttrValueId element_value,
                                   value(static_cast<std::uint32_t>(element), depth + 1));
        elements.push_back(element_value);
      }
      result = attrs.array(elements);
    } else if (key == "Map" || key == "DictAttrs") {
      std::uint32_t map = index;
      if (key == "DictAttrs") {
        GRAPHPAT_ASSIGN_OR_RETURN(map, ref(index, "__dict__"));
        GRAPHPAT_RETURN_IF_ERROR(expect_key(map, Place::field(index, "__dict__"), "Map"));
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto entries, map_entries(map, depth));
      if (key == "Map") {
        result = attrs.map(entries);
      } else {
        std::vector<AttrField> fields;
        for (auto [entry_key, entry_value] : entries) {
          if (attrs.kind(entry_key) != AttrKind::kString) {
            return json_error("unexpected_type", Place::node(map).str(),
                              "DictAttrs keys must be strings");
          }
          fields.push_back({context_.strings.intern(attrs.text(entry_key)), entry_value});
        }
        result = attrs.object("DictAttrs", fields);
      }
    } else if (has_repr_bytes(key)) {
      AttrField field{context_.strings.intern("repr"), attrs.string(doc_.repr(index))};
      result = attrs.object(key, std::span(&field, 1));
    } else {
      std::vector<AttrField> fields;
      std::size_t declared = 0;  // fields in the layout's order, before the others
      ObjectFields object(doc_, layouts_, index);
      if (const Layout* layout = object.trusted()) {
        for (std::size_t i = 0; i < layout->fields.size(); ++i) {
          const LayoutField& field = layout->fields[i];
          if (!doc_.field(index, object.field_id(i))) {
            // A missing reference is a null one, which is how the writer writes it back.
            if (field.kind == FieldKind::kRef) {
              fields.push_back({context_.strings.intern(field.name), attrs.null()});
            }
            continue;
          }
          GRAPHPAT_ASSIGN_OR_RETURN(AttrValueId field_value,
                                     inline_value(index, field.name, field.kind));
          fields.push_back({context_.strings.intern(field.name), field_value});
        }
        declared = fields.size();
        // A field the layout does not declare is kept as its text (the reference walk did not
        // follow it either), and written back so.
        for (const JsonField& field : doc_.fields_of(index)) {
          if (!object.declared_kind(field.key)) {
            fields.push_back({context_.strings.intern(doc_.names.view(field.key)),
                              attrs.string(doc_.view(field.value))});
          }
        }
      } else {
        for (const JsonField& field : doc_.fields_of(index)) {
          std::string_view name = doc_.names.view(field.key);
          std::string_view text_value = doc_.view(field.value);
          AttrValueId field_value;
          std::optional<FieldKind> declared = object.declared_kind(field.key);
          if (declared && *declared != FieldKind::kRef) {
            // A field the layout declares is read as declared, even among others it does not.
            GRAPHPAT_ASSIGN_OR_RETURN(field_value, inline_value(index, name, *declared));
          } else if (object.use(field.key, text_value) == FieldUse::kReference) {
            GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t target, ref_of_text(index, name, text_value));
            GRAPHPAT_ASSIGN_OR_RETURN(field_value, value(target, depth + 1));
          } else {
            field_value = attrs.string(text_value);
          }
          fields.push_back({context_.strings.intern(name), field_value});
        }
      }
      // Fields no layout orders are kept in name order, the order TVM's writer (and ours)
      // prints them in, so that what is read, written and read again is the same.
      std::sort(fields.begin() + static_cast<std::ptrdiff_t>(declared), fields.end(),
                [&](const AttrField& a, const AttrField& b) {
        return context_.strings.view(a.key) < context_.strings.view(b.key);
      });
      result = attrs.object(key, fields);
    }
    prov_.attr_of[index] = result;
    return result;
  }

  absl::StatusOr<std::vector<std::pair<AttrValueId, AttrValueId>>> map_entries(std::uint32_t map,
                                                                               int depth) {
    std::vector<std::pair<AttrValueId, AttrValueId>> entries;
    auto keys = doc_.keys_of(map);
    auto data = doc_.data_of(map);
    if (!keys.empty()) {
      if (keys.size() != data.size()) {
        return json_error(
            "bad_value", Place::node(map).str(),
            fmt::format("a Map with {} keys and {} values", keys.size(), data.size()));
      }
      absl::flat_hash_set<AttrValueId> seen;  // a Map holds a key once
      for (std::size_t i = 0; i < keys.size(); ++i) {
        AttrValueId entry_key = context_.attrs.string(doc_.view(keys[i]));
        if (!seen.insert(entry_key).second) {
          return json_error("duplicate_key", fmt::format("{}.keys[{}]", Place::node(map).str(), i),
                            "appears twice");
        }
        GRAPHPAT_ASSIGN_OR_RETURN(AttrValueId entry_value,
                                   value(static_cast<std::uint32_t>(data[i]), depth + 1));
        entries.emplace_back(entry_key, entry_value);
      }
      return entries;
    }
    if (data.size() % 2 != 0) {
      return json_error("bad_value", Place::node(map).str(),
                        "a Map's data must hold key, value pairs (odd length)");
    }
    absl::flat_hash_set<AttrValueId> seen;
    for (std::size_t i = 0; i < data.size(); i += 2) {
      GRAPHPAT_ASSIGN_OR_RETURN(AttrValueId entry_key,
                                 value(static_cast<std::uint32_t>(data[i]), depth + 1));
      if (!seen.insert(entry_key).second) {
        return json_error("duplicate_key", Place::data(map, i).str(), "appears twice");
      }
      GRAPHPAT_ASSIGN_OR_RETURN(AttrValueId entry_value,
                                 value(static_cast<std::uint32_t>(data[i + 1]), depth + 1));
      entries.emplace_back(entry_key, entry_value);
    }
    return entries;
  }

  // ----- provenance ---------------------------------------------------------------------------

  void record_provenance() {
    prov_.index_of_node.assign(module_.graph.size(), kNoIndex);
    for (std::uint32_t index = 0; index < doc_.size(); ++index) {
      NodeId node = prov_.node_of[index];
      if (node.valid() && prov_.index_of_node[node.index()] == kNoIndex) {
        prov_.index_of_node[node.index()] = index;
      }
    }
    // TVM's unconstrained VirtualDevice singleton: what a Call (never a parser-made param)
    // points at. Nodes graphpat adds to a loaded module share it too.
    for (std::uint32_t index = 0; index < doc_.size(); ++index) {
      if (!prov_.node_of[index].valid() || doc_.type_key(index) != "relay.Call") continue;
      std::optional<std::string_view> device = doc_.field(index, "virtual_device_");
      std::optional<std::uint32_t> target =
          device ? parse_decimal<std::uint32_t>(*device) : std::nullopt;
      if (target && *target != 0 && *target < doc_.size() &&
          doc_.type_key(*target) == "VirtualDevice") {
        prov_.shared_virtual_device = *target;
        break;
      }
    }
  }

  InputLimits limits_;
  ProvenanceData& prov_;
  JsonDocument& doc_;
  relay::Module& module_;
  Context& context_;
  relay::Builder builder_;
  LayoutCache layouts_;
  std::vector<TensorId> tensors_;
  std::vector<DimId> dims_;                // by JSON index: the dimension read there, or none yet
  std::vector<std::uint32_t> field_targets_;  // by field: its reference's target, once checked
  graphpat::detail::NameCache field_ids_;  // field_text's ids of field names (literals)
};

}  // namespace graphpat::relay::detail

#include "graphpat/detail/status_macros_undef.hpp"
