// graphpat's own graph JSON (docs/graph-json.md, docs/graph.schema.json): a small flat format
// so that tools other than TVM can feed graphs in. A file lists functions; each function lists
// its nodes in topological order (var, const, call, tuple, get, function, let, if, global, op),
// each with an id, its inputs by id, Relay type text and plain JSON attributes.
//
//   {"format": "graphpat.graph", "version": 1, "functions": [{"name": "main", "params": [0],
//    "nodes": [{"id": 0, "kind": "var", "name": "x"},
//              {"id": 1, "kind": "call", "op": "nn.relu", "inputs": [0]}],
//    "outputs": [1]}]}
//
//   absl::StatusOr<graphpat::relay::Module> module = graphpat::relay::parse_graph_json(text);
//   if (!module.ok()) return module.status();  // "[graphpat.graph_json.bad_reference]
//                                               //  /functions/0/nodes/1/inputs/0: node 7 ..."
//   absl::StatusOr<std::string> again = graphpat::relay::print_graph_json(*module);
//
// Reading makes every node a fresh node (duplicates in the file stay duplicates, as with the
// Relay readers); print then parse gives a structurally equal module (sharing included) and
// printing that again gives the same bytes. Spans and Relay text metadata are not carried.
#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <string_view>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/io/graph_json/options.hpp"
#include "graphpat/relay/dialect.hpp"

namespace graphpat::relay {

/// Reads a graph JSON file into a module.
GRAPHPAT_ENTRY absl::StatusOr<Module> parse_graph_json(std::string_view json,
                                                       const GraphJsonParseOptions& options = {});

/// Writes `module` as graph JSON (ending with "\n"); `graph_json.unsupported`, at the JSON path
/// of the field, for what the format cannot hold (functions with type parameters, strings that
/// are not UTF-8, an op or function with an empty name, a type whose Relay text does not read
/// back as the same type). The writer rule (a fuzz target checks it): what it writes,
/// parse_graph_json reads back structurally equal, or it refuses; every name is an escaped
/// JSON string, so any other UTF-8 name is carried.
GRAPHPAT_ENTRY absl::StatusOr<std::string> print_graph_json(const Module& module);

/// Whether `text` looks like graph JSON (for format detection): a JSON object whose first
/// kilobytes name the format "graphpat.graph". False for TVM's save_json and Relay text.
inline bool looks_like_graph_json(std::string_view text) {
  std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || text[start] != '{') return false;
  std::string_view head = text.substr(start, 4096);
  std::size_t key = head.find("\"format\"");
  if (key == std::string_view::npos) return false;
  std::size_t value = head.find_first_not_of(" \t\r\n:", key + 8);
  return value != std::string_view::npos && head.substr(value).starts_with("\"graphpat.graph\"");
}

/// The dialect a graph JSON file says it holds, by its "dialect" field in the first kilobytes
/// (where the writers put it): "onnx"; "relay" when the field is absent there or not a plain
/// string.
inline std::string_view graph_json_dialect(std::string_view text) {
  std::string_view head = text.substr(0, 4096);
  std::size_t key = head.find("\"dialect\"");
  if (key == std::string_view::npos) return Dialect::kName;
  std::size_t open = head.find_first_not_of(" \t\r\n:", key + 9);
  if (open == std::string_view::npos || head[open] != '"') return Dialect::kName;
  std::size_t close = head.find('"', open + 1);
  if (close == std::string_view::npos) return Dialect::kName;
  return head.substr(open + 1, close - open - 1);
}

}  // namespace graphpat::relay

#if GRAPHPAT_ENTRY_DEFINITIONS
#include "graphpat/io/graph_json/reader.hpp"
#include "graphpat/io/graph_json/writer.hpp"

namespace graphpat::relay {

GRAPHPAT_ENTRY absl::StatusOr<Module> parse_graph_json(std::string_view json,
                                                       const GraphJsonParseOptions& options) {
  return graphpat::detail::GraphJsonReader<Dialect>(options).read(json);
}

GRAPHPAT_ENTRY absl::StatusOr<std::string> print_graph_json(const Module& module) {
  return graphpat::detail::GraphJsonWriter<Dialect>(module).write();
}

}  // namespace graphpat::relay
#endif  // GRAPHPAT_ENTRY_DEFINITIONS
