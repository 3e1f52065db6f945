// The graph JSON reader (docs/graph-json.md): reads each function's flat node list in one
// forward pass while the JSON is parsed (json_stream.hpp, which never throws), every node a
// fresh node of one module graph, keeping no more than one node's JSON in memory. Node ids
// must increase through the file and every reference must name a node already read, so the
// file is a topological order by construction and no cycle can be written. Types are the
// dialect's type text and constants' dtypes the dialect's (graph_json/dialect.hpp); a Relay
// call's attributes go through the same canonical form as the Relay readers
// (relay/text/attributes.hpp).
//
//   graphpat::detail::GraphJsonReader<graphpat::relay::Dialect> reader(options);
//   absl::StatusOr<graphpat::relay::Module> module = reader.read(text);
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>
#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/io/graph_json/attr_values.hpp"
#include "graphpat/io/graph_json/dialect.hpp"
#include "graphpat/io/graph_json/json_stream.hpp"
#include "graphpat/io/graph_json/options.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/ir/tensor.hpp"
#include "graphpat/ir/validation.hpp"
#include "graphpat/relay/text/attributes.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat {

}  // namespace graphpat

namespace graphpat::detail {

/// The value of "format" in every graph JSON file, and the version this code reads and writes.
inline constexpr std::string_view kGraphJsonFormat = "graphpat.graph";
inline constexpr std::uint64_t kGraphJsonVersion = 1;
/// The attribute type key a function's attributes get when "attrs_type" is not given.
inline constexpr std::string_view kFunctionAttrsKey = "DictAttrs";

template <class Dialect>
class GraphJsonReader {
  using Spelling = GraphJsonDialect<Dialect>;

 public:
  explicit GraphJsonReader(const GraphJsonParseOptions& options)
      : options_{options.limits.or_defaults(kGraphJsonDefaultLimits)},
        builder_(module_.graph),
        context_(module_.graph.context()),
        cache_(AttrSchemaCache::of(context_)),
        decoder_(context_, options_.limits.max_depth) {}

  absl::StatusOr<Module<Dialect>> read(std::string_view text) {
    // A node line is about 70 bytes: room for the nodes, their ops and their operands.
    module_.graph.reserve(text.size() / 64, text.size() / 32);
    // The envelope (root object, functions array, function object, nodes array, node object,
    // attrs object) nests 6 levels above an attribute value, whose own nesting the decoder
    // bounds: the parse stops a file nested deeper than both early, before building it.
    constexpr std::uint32_t kEnvelopeDepth = 6;
    std::uint32_t max_depth = options_.limits.max_depth;
    GRAPHPAT_ASSIGN_OR_RETURN(
        const GraphJson root,
        parse_json_stream(
            text, max_depth > UINT32_MAX - kEnvelopeDepth ? UINT32_MAX : max_depth + kEnvelopeDepth,
            max_depth, [this](int depth, JsonEvent event, GraphJson& value) {
              return on_event(depth, event, value);
            }));
    JsonPath top;
    if (!root.is_object()) {
      return graph_json_error("bad_format", top,
                              fmt::format("expected an object, found {}", root.type_name()));
    }
    GRAPHPAT_RETURN_IF_ERROR(check_keys(
        root, top, {"format", "version", "dialect", "attrs", "type_definitions", "functions"},
        "a graph file"));
    for (std::string_view key : {"format", "version", "dialect"}) {
      auto found = root.find(key);
      if (found != root.end()) {
        GRAPHPAT_RETURN_IF_ERROR(check_envelope(key, *found));
      } else if (key != "dialect" || Spelling::kNameRequired) {
        return check_envelope(key, GraphJson());
      }
    }
    if (auto attrs = root.find("attrs"); attrs != root.end()) {
      GRAPHPAT_ASSIGN_OR_RETURN(module_.attrs, decoder_.decode(*attrs, top / "attrs"));
    }
    GRAPHPAT_RETURN_IF_ERROR(read_type_definitions(root));
    auto functions = root.find("functions");
    if (functions == root.end())
      return graph_json_error("bad_field", top, "missing field \"functions\"");
    if (!functions->is_array()) return wrong_type(*functions, top / "functions", "an array");
    // A global names a function of the module, which may come later in the file.
    for (const auto& [name, where] : global_uses_) {
      if (!module_.find(name)) {
        return graph_json_error("undefined_global", where,
                                fmt::format("@{} is not a function of the module", name));
      }
    }
    return std::move(module_);
  }

 private:
  // ----- streaming ---------------------------------------------------------------------------
  // The document is parsed with a callback that reads each node object as soon as it is
  // complete and drops it, so memory holds one node's JSON at a time, not the whole file's.
  // Depths count enclosing containers: the root object's members are at depth 1, a function
  // object at 2, its members at 3, a node object at 4.
  absl::StatusOr<bool> on_event(int depth, JsonEvent event, GraphJson& parsed) {
    bool completes = event == JsonEvent::kValue || event == JsonEvent::kObjectEnd ||
                     event == JsonEvent::kArrayEnd;
    JsonPath top;
    JsonPath functions_path = top / "functions";
    if (event == JsonEvent::kKey && depth == 1) root_key_ = parsed.get_ref<const std::string&>();
    if (event == JsonEvent::kKey && depth == 3) {
      function_key_ = parsed.get_ref<const std::string&>();
    }
    if (depth == 1 && completes &&
        (root_key_ == "format" || root_key_ == "version" || root_key_ == "dialect")) {
      // Checked as soon as read, so another format's nodes are never read as ours.
      GRAPHPAT_RETURN_IF_ERROR(check_envelope(root_key_, parsed));
    }
    if (depth == 1 && root_key_ == "functions") {
      if (event == JsonEvent::kArrayStart) in_functions_ = true;
      if (event == JsonEvent::kArrayEnd) in_functions_ = false;
    }
    if (!in_functions_) return true;
    JsonPath function_path = functions_path / function_index_;
    if (depth == 2 && event == JsonEvent::kObjectStart) {
      node_index_ = 0;
      function_key_.clear();
    }
    if (depth == 2 && completes) {
      GRAPHPAT_RETURN_IF_ERROR(read_function(parsed, function_path));
      ++function_index_;
      return false;
    }
    if (depth == 3 && function_key_ == "nodes") {
      if (event == JsonEvent::kArrayStart) in_nodes_ = true;
      if (event == JsonEvent::kArrayEnd) in_nodes_ = false;
    }
    if (in_nodes_ && depth == 4 && completes) {
      JsonPath nodes_path = function_path / "nodes";
      GRAPHPAT_RETURN_IF_ERROR(read_node(parsed, nodes_path / node_index_));
      ++node_index_;
      return false;
    }
    return true;
  }

  // "format", "version" and "dialect" of the root object.
  static absl::Status check_envelope(std::string_view key, const GraphJson& value) {
    JsonPath top;
    if (key == "dialect") {
      if (!value.is_string()) {
        return graph_json_error("bad_format", top / "dialect",
                                fmt::format("expected \"{}\"", Spelling::kName));
      }
      if (value == Spelling::kName) return absl::OkStatus();
      return graph_json_error(
          "wrong_dialect", top / "dialect",
          fmt::format("the file holds a module of dialect \"{}\"; this reader reads \"{}\"",
                      escape_unprintable(value.get_ref<const std::string&>()), Spelling::kName));
    }
    if (key == "format") {
      if (value.is_string() && value == kGraphJsonFormat) return absl::OkStatus();
      return graph_json_error("bad_format", top / "format",
                              fmt::format("expected \"{}\"", kGraphJsonFormat));
    }
    if (value.is_number_unsigned() && value.get<std::uint64_t>() == kGraphJsonVersion) {
      return absl::OkStatus();
    }
    return graph_json_error("bad_format", top / "version",
                            fmt::format("expected version {} (this reader reads version {} only)",
                                        kGraphJsonVersion, kGraphJsonVersion));
  }

 private:
  // ----- errors and fields --------------------------------------------------------------
  static absl::Status wrong_type(const GraphJson& value, const JsonPath& path,
                                 std::string_view expected) {
    return graph_json_error("bad_field", path,
                            fmt::format("expected {}, found {}", expected, value.type_name()));
  }

  static absl::Status check_keys(const GraphJson& object, const JsonPath& path,
                                 std::initializer_list<std::string_view> allowed,
                                 std::string_view what) {
    for (const auto& [key, unused] : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string list;
      for (std::string_view name : allowed) {
        if (!list.empty()) list += ", ";
        list += name;
      }
      return graph_json_error("bad_field", path / std::string_view(key),
                              fmt::format("unknown field (fields of {}: {})", what, list));
    }
    return absl::OkStatus();
  }

  static const GraphJson* find(const GraphJson& object, std::string_view key) {
    auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
  }

  static absl::StatusOr<const GraphJson*> require(const GraphJson& object, std::string_view key,
                                                  const JsonPath& path) {
    const GraphJson* value = find(object, key);
    if (value == nullptr) {
      return graph_json_error("bad_field", path, fmt::format("missing field \"{}\"", key));
    }
    return value;
  }

  static absl::StatusOr<std::string_view> require_string(const GraphJson& object,
                                                         std::string_view key,
                                                         const JsonPath& path) {
    GRAPHPAT_ASSIGN_OR_RETURN(auto value, require(object, key, path));
    if (!value->is_string()) return wrong_type(*value, path / key, "a string");
    return std::string_view(value->get_ref<const std::string&>());
  }

  // A non-negative integer below `limit`, for ids, indices and dimensions.
  static absl::StatusOr<std::uint64_t> read_count(const GraphJson& value, const JsonPath& path,
                                                  std::string_view what, std::uint64_t limit) {
    if (!value.is_number_integer() ||
        (!value.is_number_unsigned() && value.get<std::int64_t>() < 0)) {
      return graph_json_error("bad_field", path,
                              fmt::format("expected {} (a non-negative integer), found {}", what,
                                          value.is_number() ? value.dump() : value.type_name()));
    }
    std::uint64_t number = value.get<std::uint64_t>();
    if (number >= limit) {
      return graph_json_error(
          "bad_field", path,
          fmt::format("{} {} is too large (the limit is {})", what, number, limit - 1));
    }
    return number;
  }

  // ----- types ----------------------------------------------------------------------------
  absl::StatusOr<TypeId> read_type(const GraphJson& object, std::string_view key,
                                   const JsonPath& path) {
    const GraphJson* value = find(object, key);
    if (value == nullptr) return TypeId();
    JsonPath type_path = path / key;
    if (!value->is_string()) {
      return wrong_type(*value, type_path, fmt::format("{} type text", Spelling::kName));
    }
    const std::string& text = value->get_ref<const std::string&>();
    if (auto cached = types_.find(text); cached != types_.end()) return cached->second;
    GRAPHPAT_ASSIGN_OR_RETURN(TypeId type,
                              Spelling::parse_type(module_.graph.shared_context(), text,
                                                   options_.limits.max_depth, type_path));
    types_.emplace(text, type);
    return type;
  }

  // ----- spans ------------------------------------------------------------------------------
  // "span": {"source": "...", "line": 1, "column": 0, "end_line": 0, "end_column": 0}, each
  // field optional (absent: "" or 0).
  absl::StatusOr<SpanId> read_span(const GraphJson& node, const JsonPath& path) {
    const GraphJson* value = find(node, "span");
    if (value == nullptr) return SpanId();
    JsonPath span_path = path / "span";
    if (!value->is_object()) return wrong_type(*value, span_path, "a span object");
    GRAPHPAT_RETURN_IF_ERROR(check_keys(
        *value, span_path, {"source", "line", "column", "end_line", "end_column"}, "a span"));
    Span span;
    if (const GraphJson* source = find(*value, "source")) {
      if (!source->is_string()) return wrong_type(*source, span_path / "source", "a string");
      span.source = context_.strings.intern(source->get_ref<const std::string&>());
    }
    for (auto [key, field] :
         {std::pair{"line", &span.line}, std::pair{"column", &span.column},
          std::pair{"end_line", &span.end_line}, std::pair{"end_column", &span.end_column}}) {
      const GraphJson* number = find(*value, key);
      if (number == nullptr) continue;
      GRAPHPAT_ASSIGN_OR_RETURN(
          auto position,
          read_count(*number, span_path / std::string_view(key), "a position",
                     static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()) + 1));
      *field = static_cast<std::int32_t>(position);
    }
    return context_.spans.intern(span);
  }

  // ----- references -----------------------------------------------------------------------
  absl::StatusOr<NodeId> reference(const GraphJson& value, const JsonPath& path) {
    GRAPHPAT_ASSIGN_OR_RETURN(auto id, read_count(value, path, "a node id", kNoId));
    auto found = ids_.find(static_cast<std::uint32_t>(id));
    if (found == ids_.end()) {
      return graph_json_error("bad_reference", path,
                              fmt::format("node {} is not defined before its use", id));
    }
    return found->second;
  }

  absl::StatusOr<std::vector<NodeId>> references(const GraphJson& object, std::string_view key,
                                                 const JsonPath& path, bool required) {
    std::vector<NodeId> nodes;
    const GraphJson* list = find(object, key);
    if (list == nullptr) {
      if (!required) return nodes;
      return graph_json_error("bad_field", path, fmt::format("missing field \"{}\"", key));
    }
    JsonPath list_path = path / key;
    if (!list->is_array()) return wrong_type(*list, list_path, "an array of node ids");
    nodes.reserve(list->size());
    for (std::size_t i = 0; i < list->size(); ++i) {
      GRAPHPAT_ASSIGN_OR_RETURN(auto node, reference((*list)[i], list_path / i));
      nodes.push_back(node);
    }
    return nodes;
  }

  absl::Status expect_count(const std::vector<NodeId>& inputs, std::size_t count,
                            const JsonPath& path, std::string_view kind) {
    if (inputs.size() == count) return absl::OkStatus();
    return graph_json_error(
        "bad_field", path / "inputs",
        fmt::format("a {} node takes {} inputs, found {}", kind, count, inputs.size()));
  }

  // A function's parameter list: var nodes, each listed once (a function binds a var once).
  absl::Status expect_params(const std::vector<NodeId>& nodes, const JsonPath& list_path) {
    absl::flat_hash_map<NodeId, std::size_t> first;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (module_.graph.kind(nodes[i]) != NodeKind::kVar) {
        return graph_json_error("bad_field", list_path / i, "a parameter must be a var node");
      }
      auto [seen, inserted] = first.try_emplace(nodes[i], i);
      if (!inserted) {
        return graph_json_error(
            "duplicate_param", list_path / i,
            fmt::format("the var of parameter {} again (a function binds a var once)",
                        seen->second));
      }
    }
    return absl::OkStatus();
  }

  // ----- attributes -----------------------------------------------------------------------
  // "attrs" of a call of `callee`: absent means "none" for a call without an attribute struct
  // and "every field at its default" for a call of an op that has one; null is "none".
  absl::StatusOr<AttrValueId> call_attrs(const GraphJson& node, NodeId callee,
                                         const JsonPath& path) {
    const GraphJson* attrs = find(node, "attrs");
    const GraphJson* type_key = find(node, "attrs_type");
    JsonPath attrs_path = path / "attrs";
    if (type_key != nullptr && !type_key->is_string()) {
      return wrong_type(*type_key, path / "attrs_type", "a string");
    }
    if (attrs != nullptr && attrs->is_null()) {
      if (type_key != nullptr) {
        return graph_json_error("bad_field", path / "attrs_type", "given with null \"attrs\"");
      }
      return AttrValueId();
    }
    std::vector<AttrField> written;
    if (attrs != nullptr) {
      auto plain = [&](std::string_view key) {
        return Spelling::plain_numbers(module_.graph, callee, key);
      };
      GRAPHPAT_ASSIGN_OR_RETURN(written, decoder_.decode_fields(*attrs, attrs_path, plain));
    }
    if (type_key != nullptr) {
      return context_.attrs.object(type_key->get_ref<const std::string&>(), written);
    }
    if constexpr (!Spelling::kCanonicalAttrs) {
      if (attrs == nullptr) return AttrValueId();
      return context_.attrs.object(Spelling::default_attrs_key(module_.graph, callee), written);
    }
    const AttrSchema* schema = nullptr;
    std::string_view op_name;
    if (module_.graph.kind(callee) == NodeKind::kOp) {
      const OpInfo& info = context_.ops.info(module_.graph.op(callee));
      schema = context_.ops.schema(info);
      op_name = context_.strings.view(info.name);
    }
    if (schema == nullptr) {
      if (attrs == nullptr) return AttrValueId();
      return context_.attrs.object(kUnknownAttrsKey, written);
    }
    // A refused field is placed at its JSON path; a missing one at the attrs object.
    return cache_.canonical(
        *schema, written, op_name,
        [&](std::string_view, std::optional<std::size_t> pair, const std::string& problem) {
          return graph_json_error("bad_attribute",
                                  pair ? attrs_path / context_.strings.view(written[*pair].key)
                                       : attrs_path,
                                  problem);
        });
  }

  absl::StatusOr<AttrValueId> function_attrs(const GraphJson& object, const JsonPath& path) {
    const GraphJson* attrs = find(object, "attrs");
    const GraphJson* type_key = find(object, "attrs_type");
    if (type_key != nullptr && !type_key->is_string()) {
      return wrong_type(*type_key, path / "attrs_type", "a string");
    }
    if (attrs == nullptr) {
      if (type_key != nullptr) {
        return graph_json_error("bad_field", path / "attrs_type", "given without \"attrs\"");
      }
      return AttrValueId();
    }
    GRAPHPAT_ASSIGN_OR_RETURN(auto fields, decoder_.decode_fields(*attrs, path / "attrs"));
    std::string_view key = type_key != nullptr
                               ? std::string_view(type_key->get_ref<const std::string&>())
                               : kFunctionAttrsKey;
    return context_.attrs.object(key, fields);
  }

  // Attributes, result type and type of a function, top-level or nested.
  absl::StatusOr<FunctionOptions> function_options(const GraphJson& object, const JsonPath& path) {
    FunctionOptions options;
    if (const GraphJson* type_params = find(object, "type_params")) {
      if (!type_params->is_array() || !type_params->empty()) {
        return graph_json_error("unsupported", path / "type_params",
                                "functions with type parameters are not supported");
      }
      options.type_params = context_.types.tuple(std::span<const TypeId>());
    }
    GRAPHPAT_ASSIGN_OR_RETURN(options.attrs, function_attrs(object, path));
    GRAPHPAT_ASSIGN_OR_RETURN(options.result_type, read_type(object, "result_type", path));
    GRAPHPAT_ASSIGN_OR_RETURN(options.type, read_type(object, "type", path));
    options.fresh = true;
    return options;
  }

  // ----- module parts ----------------------------------------------------------------------
  absl::Status read_type_definitions(const GraphJson& root) {
    const GraphJson* list = find(root, "type_definitions");
    if (list == nullptr) return absl::OkStatus();
    JsonPath top;
    JsonPath definitions = top / "type_definitions";
    if (!list->is_array()) return wrong_type(*list, definitions, "an array");
    for (std::size_t i = 0; i < list->size(); ++i) {
      const GraphJson& entry = (*list)[i];
      JsonPath path = definitions / i;
      if (!entry.is_object()) return wrong_type(entry, path, "an object");
      GRAPHPAT_RETURN_IF_ERROR(check_keys(entry, path, {"name", "text"}, "a type definition"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto name, require_string(entry, "name", path));
      GRAPHPAT_ASSIGN_OR_RETURN(auto text, require_string(entry, "text", path));
      module_.type_definitions.push_back({std::string(name), std::string(text)});
    }
    return absl::OkStatus();
  }

  absl::Status read_function(const GraphJson& function, const JsonPath& path) {
    if (!function.is_object()) return wrong_type(function, path, "an object");
    GRAPHPAT_RETURN_IF_ERROR(check_keys(function, path,
                                        {"name", "attrs", "attrs_type", "result_type", "type",
                                         "type_params", "params", "nodes", "outputs"},
                                        "a function"));
    GRAPHPAT_ASSIGN_OR_RETURN(auto name, require_string(function, "name", path));
    if (name.empty()) return graph_json_error("bad_field", path / "name", "empty function name");
    if (module_.find(name)) {
      return graph_json_error("bad_field", path / "name",
                              fmt::format("function @{} is defined twice", name));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(auto options, function_options(function, path));
    // The nodes were read while parsing (on_event); only their list is left to check.
    GRAPHPAT_ASSIGN_OR_RETURN(auto nodes, require(function, "nodes", path));
    if (!nodes->is_array()) return wrong_type(*nodes, path / "nodes", "an array");
    GRAPHPAT_ASSIGN_OR_RETURN(auto params, references(function, "params", path, false));
    GRAPHPAT_RETURN_IF_ERROR(expect_params(params, path / "params"));
    GRAPHPAT_ASSIGN_OR_RETURN(auto outputs, references(function, "outputs", path, true));
    if (outputs.empty()) {
      return graph_json_error("bad_field", path / "outputs", "a function needs an output");
    }
    NodeId body = outputs.size() == 1 ? outputs.front() : builder_.tuple(outputs, {.fresh = true});
    module_.add_function(name, builder_.function(params, body, options));
    return absl::OkStatus();
  }

  // ----- nodes ------------------------------------------------------------------------------
  absl::Status read_node(const GraphJson& node, const JsonPath& path) {
    if (!node.is_object()) return wrong_type(node, path, "a node object");
    GRAPHPAT_ASSIGN_OR_RETURN(auto id_value, require(node, "id", path));
    GRAPHPAT_ASSIGN_OR_RETURN(auto id, read_count(*id_value, path / "id", "a node id", kNoId));
    auto file_id = static_cast<std::uint32_t>(id);
    if (ids_.contains(file_id)) {
      return graph_json_error("duplicate_id", path / "id",
                              fmt::format("node {} is defined twice", file_id));
    }
    if (last_id_ && file_id < *last_id_) {
      return graph_json_error(
          "bad_id", path / "id",
          fmt::format("node ids must increase through the file: {} after {}", file_id, *last_id_));
    }
    if (ids_.size() >= options_.limits.max_nodes) {  // refused before it is built
      return graph_json_error("too_many_nodes", path,
                              too_many_nodes_problem(options_.limits.max_nodes));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(auto kind, require_string(node, "kind", path));
    GRAPHPAT_ASSIGN_OR_RETURN(auto made, make_node(node, kind, path));
    ids_.emplace(file_id, made);
    last_id_ = file_id;
    return absl::OkStatus();
  }

  absl::StatusOr<NodeId> make_node(const GraphJson& node, std::string_view kind,
                                   const JsonPath& path) {
    GRAPHPAT_ASSIGN_OR_RETURN(auto type, read_type(node, "type", path));
    GRAPHPAT_ASSIGN_OR_RETURN(auto span, read_span(node, path));
    NodeOptions options{type, span, true};
    if (kind == "var") {
      GRAPHPAT_RETURN_IF_ERROR(check_keys(
          node, path, {"id", "kind", "name", "annotation", "type", "span"}, "a var node"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto name, require_string(node, "name", path));
      GRAPHPAT_ASSIGN_OR_RETURN(auto annotation, read_type(node, "annotation", path));
      return builder_.var(name, annotation, options);
    }
    if (kind == "const") {
      GRAPHPAT_RETURN_IF_ERROR(check_keys(
          node, path, {"id", "kind", "dtype", "shape", "data", "type", "span"}, "a const node"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto tensor, read_tensor(node, path));
      return builder_.constant(context_.tensors.add(std::move(tensor)), options);
    }
    if (kind == "call") {
      GRAPHPAT_RETURN_IF_ERROR(check_keys(node, path,
                                          {"id", "kind", "op", "callee", "inputs", "attrs",
                                           "attrs_type", "type_args", "type", "span"},
                                          "a call node"));
      const GraphJson* op = find(node, "op");
      const GraphJson* callee_ref = find(node, "callee");
      if ((op == nullptr) == (callee_ref == nullptr)) {
        return graph_json_error("bad_field", path,
                                "a call node needs exactly one of \"op\" and \"callee\"");
      }
      NodeId callee;
      if (op != nullptr) {
        if (!op->is_string()) return wrong_type(*op, path / "op", "an op name");
        if (op->get_ref<const std::string&>().empty()) {
          return graph_json_error("bad_field", path / "op", "empty op name");
        }
        callee = builder_.opaque_op(op->get_ref<const std::string&>());
      } else {
        GRAPHPAT_ASSIGN_OR_RETURN(callee, reference(*callee_ref, path / "callee"));
      }
      GRAPHPAT_ASSIGN_OR_RETURN(auto inputs, references(node, "inputs", path, false));
      GRAPHPAT_ASSIGN_OR_RETURN(auto attrs, call_attrs(node, callee, path));
      GRAPHPAT_ASSIGN_OR_RETURN(auto type_args, read_type(node, "type_args", path));
      return builder_.call(callee, inputs, {attrs, type_args, type, span, true});
    }
    if (kind == "function") {
      GRAPHPAT_RETURN_IF_ERROR(check_keys(node, path,
                                          {"id", "kind", "params", "body", "attrs", "attrs_type",
                                           "result_type", "type_params", "type", "span"},
                                          "a function node"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto params, references(node, "params", path, false));
      GRAPHPAT_RETURN_IF_ERROR(expect_params(params, path / "params"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto body_value, require(node, "body", path));
      GRAPHPAT_ASSIGN_OR_RETURN(auto body, reference(*body_value, path / "body"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto function, function_options(node, path));
      function.span = span;
      return builder_.function(params, body, function);
    }
    if (kind == "global") {
      GRAPHPAT_RETURN_IF_ERROR(
          check_keys(node, path, {"id", "kind", "name", "type", "span"}, "a global node"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto name, require_string(node, "name", path));
      if (globals_seen_.insert(std::string(name)).second) {
        JsonPath name_path = path / "name";
        global_uses_.emplace_back(std::string(name), name_path.str());
      }
      return builder_.global_var(name, options);
    }
    if (kind == "op") {
      GRAPHPAT_RETURN_IF_ERROR(check_keys(node, path, {"id", "kind", "op", "span"}, "an op node"));
      GRAPHPAT_ASSIGN_OR_RETURN(auto name, require_string(node, "op", path));
      return builder_.opaque_op(name);
    }
    bool is_get = kind == "get";
    if (kind != "tuple" && !is_get && kind != "let" && kind != "if") {
      return graph_json_error(
          "bad_field", path / "kind",
          fmt::format("unknown node kind \"{}\" (kinds: var, const, call, tuple, get, function, "
                      "let, if, global, op)",
                      kind));
    }
    GRAPHPAT_RETURN_IF_ERROR(
        is_get ? check_keys(node, path, {"id", "kind", "inputs", "index", "type", "span"},
                            "a get node")
               : check_keys(node, path, {"id", "kind", "inputs", "type", "span"},
                            fmt::format("a {} node", kind)));
    GRAPHPAT_ASSIGN_OR_RETURN(auto inputs, references(node, "inputs", path, kind != "tuple"));
    if (kind == "tuple") return builder_.tuple(inputs, options);
    if (is_get) {
      GRAPHPAT_RETURN_IF_ERROR(expect_count(inputs, 1, path, kind));
      GRAPHPAT_ASSIGN_OR_RETURN(auto index_value, require(node, "index", path));
      GRAPHPAT_ASSIGN_OR_RETURN(auto index,
                                read_count(*index_value, path / "index", "a field index", kNoId));
      return builder_.tuple_get_item(inputs.front(), static_cast<std::uint32_t>(index), options);
    }
    GRAPHPAT_RETURN_IF_ERROR(expect_count(inputs, 3, path, kind));
    const std::vector<NodeId>& in = inputs;
    if (kind == "if") return builder_.if_then_else(in[0], in[1], in[2], options);
    if (module_.graph.kind(in[0]) != NodeKind::kVar) {
      JsonPath inputs_path = path / "inputs";
      return graph_json_error("bad_field", inputs_path / std::size_t{0},
                              "the variable a let binds must be a var node");
    }
    return builder_.let(in[0], in[1], in[2], options);
  }

  absl::StatusOr<Tensor> read_tensor(const GraphJson& node, const JsonPath& path) {
    Tensor tensor;
    GRAPHPAT_ASSIGN_OR_RETURN(auto dtype, require_string(node, "dtype", path));
    if (auto problem = Spelling::dtype_problem(dtype)) {
      return graph_json_error("bad_constant", path / "dtype", *problem);
    }
    tensor.dtype = context_.strings.intern(dtype);
    GRAPHPAT_ASSIGN_OR_RETURN(auto shape, require(node, "shape", path));
    JsonPath shape_path = path / "shape";
    if (!shape->is_array()) return wrong_type(*shape, shape_path, "an array of extents");
    for (std::size_t i = 0; i < shape->size(); ++i) {
      GRAPHPAT_ASSIGN_OR_RETURN(
          auto extent,
          read_count((*shape)[i], shape_path / i, "an extent",
                     static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())));
      tensor.shape.push_back(static_cast<std::int64_t>(extent));
    }
    const GraphJson* data = find(node, "data");
    if (data == nullptr) return tensor;
    if (!data->is_string()) return wrong_type(*data, path / "data", "a base64 string");
    absl::StatusOr<std::uint64_t> element_bytes = Spelling::element_bytes(dtype);
    if (!element_bytes.ok()) {
      return graph_json_error("bad_constant", path / "dtype",
                              std::string(element_bytes.status().message()));
    }
    // The size is checked against the limit before the data is decoded; a count that does
    // not fit in 64 bits is over any limit.
    std::uint64_t limit = options_.limits.max_tensor_bytes;
    std::optional<std::uint64_t> expected = checked_tensor_bytes(tensor.shape, *element_bytes);
    if (!expected) {
      return graph_json_error(
          "tensor_too_large", shape_path,
          fmt::format("the constant needs at least 2^64 bytes, more than the limit of {} "
                      "(max_tensor_bytes)",
                      limit));
    }
    if (*expected > limit) {
      return graph_json_error("tensor_too_large", shape_path,
                              tensor_too_large_problem("the constant", *expected, limit));
    }
    auto bytes = std::make_shared<std::string>();
    const std::string& encoded = data->get_ref<const std::string&>();
    if (!absl::Base64Unescape(encoded, bytes.get())) {
      return graph_json_error("bad_constant", path / "data", "not valid base64");
    }
    if (bytes->size() != *expected) {
      std::uint64_t elements = *expected / *element_bytes;
      return graph_json_error("bad_constant", path / "data",
                              fmt::format("{} bytes, but {} elements of {} take {}", bytes->size(),
                                          elements, dtype, *expected));
    }
    tensor.data = share_bytes(std::move(bytes));
    return tensor;
  }

  static constexpr std::uint64_t kNoId = NodeId::kNone;

  GraphJsonParseOptions options_;
  Module<Dialect> module_;
  Builder<Dialect> builder_;
  Context& context_;
  AttrSchemaCache& cache_;
  AttrJsonDecoder decoder_;
  absl::flat_hash_map<std::uint32_t, NodeId> ids_;
  std::optional<std::uint32_t> last_id_;
  absl::flat_hash_map<std::string, TypeId> types_;
  // Each global name a node uses, with the place of its first use, in file order.
  absl::flat_hash_set<std::string> globals_seen_;
  std::vector<std::pair<std::string, std::string>> global_uses_;
  // Where the streaming parse is (see on_event).
  std::string root_key_;
  std::string function_key_;
  bool in_functions_ = false;
  bool in_nodes_ = false;
  std::size_t function_index_ = 0;
  std::size_t node_index_ = 0;
};

}  // namespace graphpat::detail

#include "graphpat/detail/status_macros_undef.hpp"
