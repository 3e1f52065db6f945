// The graph JSON writer (docs/graph-json.md). Every node reachable from the module's functions
// is written once, in the first function (in module order) that reaches it, and numbered in
// the order written, so ids increase through the file and every reference points backwards.
// Ops appear as a call's "op" field, not as nodes. Iterative; linear in the graph.
//
//   graphpat::detail::GraphJsonWriter<graphpat::relay::Dialect> writer(module);
//   absl::StatusOr<std::string> text = writer.write();
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/io/graph_json/attr_values.hpp"
#include "graphpat/io/graph_json/dialect.hpp"
#include "graphpat/io/graph_json/reader.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/relay/text/attributes.hpp"

namespace graphpat::detail {

template <class Dialect>
class GraphJsonWriter {
  using Spelling = GraphJsonDialect<Dialect>;

 public:
  explicit GraphJsonWriter(const Module<Dialect>& module)
      : module_(module),
        graph_(module.graph),
        context_(graph_.context()),
        cache_(AttrSchemaCache::of(context_)) {}

  absl::StatusOr<std::string> write() {
    if (auto status = number_nodes(); !status.ok()) return status;
    JsonPath top;
    std::string out;
    out += "{\n";
    fmt::format_to(std::back_inserter(out), "  \"format\": \"{}\",\n  \"version\": {},\n",
                   kGraphJsonFormat, kGraphJsonVersion);
    if (Spelling::kNameRequired) {
      fmt::format_to(std::back_inserter(out), "  \"dialect\": \"{}\",\n", Spelling::kName);
    }
    if (module_.attrs.valid() && writable_attrs(module_.attrs, top / "attrs")) {
      out += "  \"attrs\": ";
      if (!append_attr_json(out, context_, module_.attrs)) not_utf8(top / "attrs");
      out += ",\n";
    }
    if (!module_.type_definitions.empty()) {
      JsonPath definitions = top / "type_definitions";
      out += "  \"type_definitions\": [\n";
      for (std::size_t i = 0; i < module_.type_definitions.size(); ++i) {
        const TypeDefinition& definition = module_.type_definitions[i];
        JsonPath path = definitions / i;
        out += "    {\"name\": ";
        string(out, definition.name, path / "name");
        out += ", \"text\": ";
        string(out, definition.text, path / "text");
        out += i + 1 < module_.type_definitions.size() ? "},\n" : "}\n";
      }
      out += "  ],\n";
    }
    JsonPath functions_path = top / "functions";
    out += "  \"functions\": [";
    const std::vector<GlobalFunction>& functions = module_.functions();
    for (std::size_t k = 0; k < functions.size(); ++k) {
      out += k == 0 ? "\n" : ",\n";
      write_function(out, functions_path, k);
    }
    out += functions.empty() ? "]\n}\n" : "\n  ]\n}\n";
    if (!status_.ok()) return status_;
    return out;
  }

 private:
  static constexpr std::uint32_t kNone = NodeId::kNone;

  absl::Status unsupported(const JsonPath& path, std::string_view problem) {
    return graph_json_error("unsupported", path, problem);
  }
  void fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }
  void not_utf8(const JsonPath& path) {
    fail(unsupported(path, "a string that is not valid UTF-8 cannot be written as JSON"));
  }
  void string(std::string& out, std::string_view text, const JsonPath& path) {
    if (!append_json_string(out, text)) not_utf8(path);
  }
  // A name the reader refuses when empty (an op's, a function's); any other string is escaped.
  void name(std::string& out, std::string_view text, const JsonPath& path, std::string_view what) {
    if (text.empty()) fail(unsupported(path, fmt::format("{} with an empty name", what)));
    string(out, text, path);
  }

  // Decides which function writes each node, and the id it gets in the file.
  absl::Status number_nodes() {
    const std::vector<GlobalFunction>& functions = module_.functions();
    std::vector<std::uint32_t> root_of(graph_.size(), kNone);
    JsonPath top;
    JsonPath functions_path = top / "functions";
    for (std::size_t k = 0; k < functions.size(); ++k) {
      NodeId root = functions[k].function;
      JsonPath path = functions_path / k;
      if (graph_.kind(root) != NodeKind::kFunction) {
        return unsupported(
            path, fmt::format("@{} is a {} node, not a function", module_.name(functions[k]),
                              node_kind_name(graph_.kind(root))));
      }
      if (root_of[root.index()] != kNone) {
        return unsupported(
            path, fmt::format("@{} is the same function node as @{}", module_.name(functions[k]),
                              module_.name(functions[root_of[root.index()]])));
      }
      root_of[root.index()] = static_cast<std::uint32_t>(k);
    }
    std::vector<std::uint32_t> owner(graph_.size(), kNone);  // the function that writes each node
    std::vector<NodeId> stack;
    for (std::size_t k = 0; k < functions.size(); ++k) {
      auto operands = graph_.operands(functions[k].function);
      stack.assign(operands.rbegin(), operands.rend());
      while (!stack.empty()) {
        NodeId node = stack.back();
        stack.pop_back();
        if (owner[node.index()] != kNone) continue;
        if (root_of[node.index()] != kNone) {
          return unsupported(
              functions_path / k,
              fmt::format("@{} uses the function @{} as a value; refer to it through a global "
                          "node instead",
                          module_.name(functions[k]),
                          module_.name(functions[root_of[node.index()]])));
        }
        owner[node.index()] = static_cast<std::uint32_t>(k);
        auto inputs = graph_.operands(node);
        if (graph_.kind(node) == NodeKind::kCall && called_op(node)) inputs = graph_.args(node);
        for (auto it = inputs.rbegin(); it != inputs.rend(); ++it) stack.push_back(*it);
      }
    }
    members_.assign(functions.size(), {});
    for (std::uint32_t i = 0; i < graph_.size(); ++i) {
      if (owner[i] != kNone) members_[owner[i]].push_back(NodeId(i));
    }
    file_ids_.assign(graph_.size(), kNone);
    std::uint32_t next = 0;
    for (const std::vector<NodeId>& members : members_) {
      for (NodeId node : members) file_ids_[node.index()] = next++;
    }
    return absl::OkStatus();
  }

  // Whether attribute value `attrs` has a JSON form (no object in it holds a key twice); fails
  // at `path` when not. Each value is looked at once.
  bool writable_attrs(AttrValueId attrs, const JsonPath& path) {
    auto [slot, inserted] = writable_attrs_.try_emplace(attrs, true);
    if (inserted) {
      if (std::optional<std::string_view> key = repeated_field_key(context_, attrs)) {
        slot->second = false;
        fail(unsupported(path, fmt::format("an object of attributes holding the field '{}' "
                                           "twice (a JSON object holds a key once)",
                                           *key)));
      }
    }
    return slot->second;
  }

  // A call whose callee is an op node: the op is written inline.
  bool called_op(NodeId call) const { return graph_.kind(graph_.callee(call)) == NodeKind::kOp; }

  void id_list(std::string& out, std::span<const NodeId> nodes) {
    out += '[';
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i > 0) out += ", ";
      fmt::format_to(std::back_inserter(out), "{}", file_ids_[nodes[i].index()]);
    }
    out += ']';
  }

  // Type text that reads back as the same type; checked once per type.
  const std::string& type_text(TypeId type, const JsonPath& path) {
    auto [slot, inserted] = type_texts_.try_emplace(type);
    if (inserted) {
      std::optional<std::string> text = Spelling::type_text(context_, type);
      slot->second = text ? std::move(*text) : to_string(context_, type);
      auto again = text ? Spelling::parse_type(graph_.shared_context(), slot->second,
                                               kGraphJsonDefaultLimits.max_depth, path)
                        : absl::StatusOr<TypeId>(TypeId());
      if (!again.ok() || *again != type) {
        fail(unsupported(path, fmt::format("the type '{}' does not read back as {} type text",
                                           slot->second, Spelling::kName)));
      }
    }
    return slot->second;
  }
  // `separator "key": "type text"`, when there is a type.
  void type_field(std::string& out, std::string_view separator, std::string_view key, TypeId type,
                  const JsonPath& path) {
    if (!type.valid()) return;
    fmt::format_to(std::back_inserter(out), "{}\"{}\": ", separator, key);
    string(out, type_text(type, path / key), path);
  }

  // Whether reading `attrs` back through AttrSchemaCache::canonical gives `attrs` again; when
  // not (a field holding a value canonical() refuses, or in another form), the call is written
  // with its "attrs_type", which the reader takes as written.
  bool reads_back_canonical(AttrValueId attrs, const AttrSchema& schema) {
    if (!cache_.is_canonical(attrs, schema) || cache_.unreadable_field(attrs, schema)) return false;
    for (std::size_t i = 0; i < schema.fields.size(); ++i) {
      AttrValueId value = context_.attrs.entry_value(attrs, i);
      auto form = to_field_form(context_, cache_.storage(schema.fields[i]), value);
      if (!form || *form != value) return false;
    }
    return true;
  }

  void call_attrs(std::string& out, NodeId call, const JsonPath& path) {
    AttrValueId attrs = graph_.attrs(call);
    const AttrSchema* schema = Spelling::kCanonicalAttrs && called_op(call)
                                   ? context_.ops.schema(context_.ops.info(graph_.called_op(call)))
                                   : nullptr;
    if (!attrs.valid()) {
      if (schema != nullptr) out += ", \"attrs\": null";
      return;
    }
    if (context_.attrs.kind(attrs) != AttrKind::kObject) {
      fail(unsupported(path, "call attributes that are not an object"));
      return;
    }
    if (!writable_attrs(attrs, path / "attrs")) return;
    if (schema != nullptr && reads_back_canonical(attrs, *schema)) {
      const auto& defaults = cache_.defaults(*schema);
      std::vector<bool> is_default(schema->fields.size());  // left out of the file
      for (std::size_t i = 0; i < schema->fields.size(); ++i) {
        AttrValueId value = context_.attrs.entry_value(attrs, i);
        is_default[i] = defaults[i] ? value == *defaults[i]
                                    : schema->fields[i].has_default &&
                                          context_.attrs.kind(value) == AttrKind::kNull;
      }
      if (std::all_of(is_default.begin(), is_default.end(), [](bool skip) { return skip; })) return;
      out += ", \"attrs\": ";
      auto skip = [&](std::size_t i) { return is_default[i]; };
      auto plain = [&](std::size_t i) {
        return cache_.storage(schema->fields[i]) == relay::FieldStorage::kDataType;
      };
      if (!append_attr_fields(out, context_, attrs, skip, plain)) not_utf8(path);
      return;
    }
    out += ", \"attrs\": ";
    auto never = [](std::size_t) { return false; };
    auto numbers = [&](std::size_t i) {
      return Spelling::plain_numbers(graph_, graph_.callee(call),
                                     context_.strings.view(context_.attrs.field_key(attrs, i)));
    };
    if (!append_attr_fields(out, context_, attrs, never, never, numbers)) not_utf8(path);
    std::string_view key = context_.attrs.text(attrs);
    if (schema != nullptr || key != Spelling::default_attrs_key(graph_, graph_.callee(call))) {
      out += ", \"attrs_type\": ";
      string(out, key, path);
    }
  }

  // Attributes, result type and type parameters of a function node (top-level or nested),
  // each field after `separator`.
  void function_fields(std::string& out, NodeId function, const JsonPath& path,
                       std::string_view separator) {
    AttrValueId attrs = graph_.attrs(function);
    if (attrs.valid()) {
      if (context_.attrs.kind(attrs) != AttrKind::kObject) {
        fail(unsupported(path, "function attributes that are not an object"));
      } else if (writable_attrs(attrs, path / "attrs")) {
        fmt::format_to(std::back_inserter(out), "{}\"attrs\": ", separator);
        if (!append_attr_fields(out, context_, attrs)) not_utf8(path);
        if (context_.attrs.text(attrs) != kFunctionAttrsKey) {
          fmt::format_to(std::back_inserter(out), "{}\"attrs_type\": ", separator);
          string(out, context_.attrs.text(attrs), path);
        }
      }
    }
    type_field(out, separator, "result_type", graph_.result_type(function), path);
    TypeId type_params = graph_.type_params(function);
    if (type_params.valid()) {
      if (context_.types.kind(type_params) == TypeKind::kTuple &&
          context_.types.children(type_params).empty()) {
        fmt::format_to(std::back_inserter(out), "{}\"type_params\": []", separator);
      } else {
        fail(unsupported(path, "functions with type parameters are not supported"));
      }
    }
  }

  void write_function(std::string& out, const JsonPath& functions_path, std::size_t k) {
    const GlobalFunction& global = module_.functions()[k];
    NodeId function = global.function;
    JsonPath path = functions_path / k;
    out += "    {\n      \"name\": ";
    name(out, module_.name(global), path / "name", "a function");
    function_fields(out, function, path, ",\n      ");
    type_field(out, ",\n      ", "type", graph_.type(function), path);
    out += ",\n      \"params\": ";
    id_list(out, graph_.params(function));
    JsonPath nodes_path = path / "nodes";
    out += ",\n      \"nodes\": [";
    const std::vector<NodeId>& members = members_[k];
    for (std::size_t i = 0; i < members.size(); ++i) {
      out += i == 0 ? "\n        " : ",\n        ";
      write_node(out, members[i], nodes_path / i);
    }
    out += members.empty() ? "]" : "\n      ]";
    out += ",\n      \"outputs\": ";
    NodeId body = graph_.body(function);
    id_list(out, std::span(&body, 1));
    out += "\n    }";
  }

  void write_node(std::string& out, NodeId node, const JsonPath& path) {
    fmt::format_to(std::back_inserter(out), "{{\"id\": {}, \"kind\": ", file_ids_[node.index()]);
    switch (graph_.kind(node)) {
      case NodeKind::kVar:
        out += "\"var\", \"name\": ";
        string(out, graph_.name(node), path);
        type_field(out, ", ", "annotation", graph_.annotation(node), path);
        break;
      case NodeKind::kConstant: {
        const Tensor& tensor = graph_.tensor(node);
        out += "\"const\", \"dtype\": ";
        string(out, context_.strings.view(tensor.dtype), path);
        fmt::format_to(std::back_inserter(out), ", \"shape\": [{}]", fmt::join(tensor.shape, ", "));
        if (tensor.has_data()) {
          auto bytes = tensor.data->view();
          out += ", \"data\": \"";
          out += absl::Base64Escape(
              absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
          out += '"';
        }
        break;
      }
      case NodeKind::kOp:
        out += "\"op\", \"op\": ";
        name(out, context_.op_name(graph_.op(node)), path / "op", "an op");
        break;
      case NodeKind::kCall:
        out += "\"call\", ";
        if (called_op(node)) {
          out += "\"op\": ";
          name(out, context_.op_name(graph_.called_op(node)), path / "op", "an op");
        } else {
          fmt::format_to(std::back_inserter(out), "\"callee\": {}",
                         file_ids_[graph_.callee(node).index()]);
        }
        out += ", \"inputs\": ";
        id_list(out, graph_.args(node));
        call_attrs(out, node, path);
        type_field(out, ", ", "type_args", graph_.type_args(node), path);
        break;
      case NodeKind::kTuple:
        out += "\"tuple\", \"inputs\": ";
        id_list(out, graph_.fields(node));
        break;
      case NodeKind::kTupleGetItem:
        out += "\"get\", \"inputs\": ";
        id_list(out, graph_.operands(node));
        fmt::format_to(std::back_inserter(out), ", \"index\": {}", graph_.index(node));
        break;
      case NodeKind::kFunction: {
        out += "\"function\", \"params\": ";
        id_list(out, graph_.params(node));
        fmt::format_to(std::back_inserter(out), ", \"body\": {}",
                       file_ids_[graph_.body(node).index()]);
        function_fields(out, node, path, ", ");
        break;
      }
      case NodeKind::kLet:
        out += "\"let\", \"inputs\": ";
        id_list(out, graph_.operands(node));
        break;
      case NodeKind::kIf:
        out += "\"if\", \"inputs\": ";
        id_list(out, graph_.operands(node));
        break;
      case NodeKind::kGlobalVar:
        out += "\"global\", \"name\": ";
        string(out, graph_.name(node), path);
        break;
    }
    if (graph_.kind(node) != NodeKind::kOp) type_field(out, ", ", "type", graph_.type(node), path);
    if (Spelling::kCarriesSpans && graph_.span(node).valid()) span_field(out, node, path);
    out += '}';
  }

  // `, "span": {...}` with the span's non-empty fields (the reader's defaults for the others).
  void span_field(std::string& out, NodeId node, const JsonPath& path) {
    const Span& span = context_.spans.get(graph_.span(node));
    JsonPath span_path = path / "span";
    out += ", \"span\": {";
    std::string_view separator;
    if (span.source.valid()) {
      out += "\"source\": ";
      string(out, context_.strings.view(span.source), span_path / "source");
      separator = ", ";
    }
    for (auto [key, value] :
         {std::pair{"line", span.line}, std::pair{"column", span.column},
          std::pair{"end_line", span.end_line}, std::pair{"end_column", span.end_column}}) {
      if (value < 0) {
        fail(unsupported(span_path / std::string_view(key), "a negative position"));
      } else if (value > 0) {
        fmt::format_to(std::back_inserter(out), "{}\"{}\": {}", separator, key, value);
        separator = ", ";
      }
    }
    out += '}';
  }

  const Module<Dialect>& module_;
  const Graph<Dialect>& graph_;
  Context& context_;
  AttrSchemaCache& cache_;
  absl::Status status_;
  std::vector<std::vector<NodeId>> members_;
  std::vector<std::uint32_t> file_ids_;
  absl::flat_hash_map<TypeId, std::string> type_texts_;
  absl::flat_hash_map<AttrValueId, bool> writable_attrs_;
};

}  // namespace graphpat::detail
