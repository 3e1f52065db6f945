// TVM's JSON format (`tvm.ir.save_json` / `tvm.ir.load_json`) for graphpat Relay modules.
//
//   absl::StatusOr<graphpat::relay::LoadedJson> loaded = graphpat::relay::load_json(text);
//   if (!loaded.ok()) return loaded.status();  // "[graphpat.relay_json.dangling_reference]
//                                              //  nodes[37].attrs.op: refers to node 912, ..."
//   graphpat::relay::Module& module = loaded->module;
//   ...                                        // analyse, or extend the graph with a Builder
//   absl::StatusOr<std::string> again = graphpat::relay::save_json(*loaded);  // same bytes
//   absl::StatusOr<std::string> fresh = graphpat::relay::save_json(module);   // as TVM would
//                                                                             // write it from
//                                                                             // Python
//
// What a file becomes (the Relay text reader follows the same rules, so a model read from text
// and from JSON is structurally equal):
// - The root is an IRModule → `LoadedJson::module`, functions in file order. Any other root
//   must be a Relay expression → built into `module.graph` (the module then has no functions)
//   and `LoadedJson::expression` names it. Saving a LoadedJson writes whichever it was.
// - Each Relay expression object is one fresh graph node; one JSON index referenced twice is
//   one node. Ops are registered on the fly when the dialect does not know them.
// - Types (`_checked_type_` → node type, Var annotation, Function ret_type, Call type_args and
//   Function type_params as tuple types) and spans are interned; tensor dims: IntImm int32 →
//   dim(v), int64 → dim(v, 64), tir.Any → any_dim, tir.Var/SizeVar → symbolic_dim(name, key),
//   other TIR arithmetic → symbolic_dim("Mul(n, 2)", "tir.Mul").
// - Call attrs `relay.attrs.X` known to the op registry → an object value with every schema
//   field in declaration order, canonicalised by relay::field_storage; function and module
//   DictAttrs → an object "DictAttrs" with the map's entries in file order; any other object
//   (IntImm → int of its width, FloatImm → float, String → string, Array, Map, and anything
//   else as an object with its type key and fields) is carried through, never dropped.
// - TVM JSON does not mark which fields are references. A field is taken by its type's layout
//   (a struct of another TVM version that does not fit its layout: each declared field by its
//   declared kind); a field no layout declares, of a type graphpat does not know or of such a
//   struct, is a reference when its text is a node index of the file, else text. Such a text
//   that would be a node index of the file being saved is refused (`ambiguous_text`) rather
//   than written to read back as a reference.
// - Constants → tensors whose bytes alias the decoded b64ndarrays blob (decoded once).
// - Not representable in graphpat's IR, refused with `relay_json.unsupported`: ADTs (type
//   definitions, Match, constructors), references (RefCreate/RefRead/RefWrite), and files
//   older than TVM 0.7. Files from 0.7 and 0.8 are upgraded as json_compact.py does.
//
// Byte-exact round trips: TVM's JSON records object identities graphpat's IR does not model
// (which type objects are shared, per-parameter VirtualDevices, spans' SourceName objects, the
// source map, Map orders). load_json keeps them in a JsonProvenance: the node table plus, for
// every JSON index, the graph node / type / value / span it became. save_json with that
// provenance writes each graph node as its original object, reusing the original sub-object of
// every field whose graphpat value is unchanged; nodes added after loading (or a whole module
// saved without provenance) get what TVM writes for a module built from Python, each type
// written once and shared wherever it occurs (docs/relay-formats.md §3.4). Provenance is
// tied to the graph's NodeIds: it serves the loaded graph and graphs that extend it with a
// Builder. A pass that builds a new graph renumbers nodes; nodes whose kind no longer matches
// are written fresh, but pass a provenance only with the graph it was loaded into.
//
// Errors are absl::Status values made by graphpat::make_error with ids `relay_json.<what>`
// and the JSON path: not_json (with nlohmann's byte position), missing_field, wrong_type,
// unknown_key, duplicate_key, bad_value, dangling_reference, cyclic_reference,
// null_reference, unexpected_type, unsupported, too_deep, bad_base64, bad_tensor, bad_shape,
// unsupported_dtype, too_many_nodes, tensor_too_large, duplicate_definition (two functions of
// one name), duplicate_param (a Var listed twice in a Function's params), undefined_global (a
// GlobalVar naming no function of the module) (and, when saving, missing_tensor_data,
// ambiguous_text, and unsupported for a string that is not UTF-8, which TVM would write raw).
// As TVM's loader, every b64ndarrays entry is decoded, used or not, and IRModule.global_var_map_
// must map each function's name to its GlobalVar.
// Strings are written with TVM's five escapes (\r \n \\ \t \"); other control bytes, which TVM
// writes raw and JSON readers refuse, are written \u00XX.
// The writer rule (a fuzz target checks it): what save_json writes, load_json reads back
// structurally equal, or save_json refuses with a located error: every name and string is a
// JSON string, escaped, so any UTF-8 name is carried (NUL, quotes, `;`, line feeds, U+2028);
// refused are strings that are not UTF-8 and an op with an empty name (`unsupported`, at the
// node), attrs of a struct no layout knows or that does not fit its layout (a field its struct
// does not declare) whose fields are not in name order, the order the loader keeps them in since
// TVM writes attrs keys sorted (`unsupported`, at the node), constants without bytes
// (`missing_tensor_data`) and ambiguous texts (`ambiguous_text`).
// Loading and saving are iterative: a 1,000,000-node chain loads and saves; only the nesting of
// one type or attribute value is followed recursively, bounded by JsonLoadOptions::limits.
#pragma once

#include <absl/status/statusor.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/relay/dialect.hpp"

namespace graphpat::relay {

namespace detail {
struct ProvenanceData;  // io/relay_json/provenance.hpp
}  // namespace detail

/// What a loaded file keeps for writing it back byte for byte (see the top of this file).
/// Cheap to copy; empty for modules graphpat built itself.
class JsonProvenance {
 public:
  JsonProvenance() = default;
  explicit JsonProvenance(std::shared_ptr<const detail::ProvenanceData> data)
      : data_(std::move(data)) {}

  [[nodiscard]] bool empty() const { return data_ == nullptr; }
  /// The JSON node index `node` was read from, if it was read from the file.
  [[nodiscard]] GRAPHPAT_ENTRY std::optional<std::uint32_t> index_of(NodeId node) const;
  [[nodiscard]] const detail::ProvenanceData* data() const { return data_.get(); }

 private:
  std::shared_ptr<const detail::ProvenanceData> data_;
};

struct JsonLoadOptions {
  /// Keep what a byte-exact save needs (the node table and the index maps, roughly the size
  /// of the file again). Off: the module alone, saved later as if built from Python.
  bool keep_provenance = true;
  /// max_nodes bounds the node table, max_tensor_bytes each b64ndarrays tensor, max_depth the
  /// nesting of one type or attribute value (a real one nests a handful of levels; it is the
  /// one thing followed recursively). Each left 0 is kJsonDefaultLimits'.
  InputLimits limits{};
};

/// load_json's defaults: TVM JSON nests 200 levels at most, else kDefaultLimits.
inline constexpr InputLimits kJsonDefaultLimits = InputLimits{.max_depth = 200}.or_defaults(kDefaultLimits);

/// A loaded file: the module, the root expression when the file held a bare expression, and
/// the provenance for writing it back.
struct LoadedJson {
  Module module;
  std::optional<NodeId> expression;  // set when the root was an expression, not an IRModule
  JsonProvenance provenance;
};

/// Reads a `tvm.ir.save_json` file (TVM 0.7 to 0.19 layouts).
GRAPHPAT_ENTRY absl::StatusOr<LoadedJson> load_json(std::string_view json,
                                                    const JsonLoadOptions& options = {});

/// Writes `module` as TVM v0.14's save_json does, byte for byte. With the provenance of the
/// load that produced the graph, unchanged parts come back exactly as they were read.
GRAPHPAT_ENTRY absl::StatusOr<std::string> save_json(const Module& module,
                                                     const JsonProvenance& provenance = {});

/// Writes the bare expression `root` of `graph` (save_json of a relay.Expr in TVM).
GRAPHPAT_ENTRY absl::StatusOr<std::string> save_json(const Graph& graph, NodeId root,
                                                     const JsonProvenance& provenance = {});

/// Writes a loaded file back: its module, or its bare expression.
GRAPHPAT_ENTRY absl::StatusOr<std::string> save_json(const LoadedJson& loaded);

}  // namespace graphpat::relay

#if GRAPHPAT_ENTRY_DEFINITIONS
#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/io/relay_json/emitter.hpp"
#include "graphpat/io/relay_json/fast_document.hpp"
#include "graphpat/io/relay_json/provenance.hpp"
#include "graphpat/io/relay_json/reader.hpp"
#include "graphpat/io/relay_json/upgrade.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::relay {

GRAPHPAT_ENTRY std::optional<std::uint32_t> JsonProvenance::index_of(NodeId node) const {
  if (data_ == nullptr) return std::nullopt;
  std::uint32_t index = data_->index_of(node);
  if (index == detail::kNoIndex) return std::nullopt;
  return index;
}

GRAPHPAT_ENTRY absl::StatusOr<LoadedJson> load_json(std::string_view json,
                                                    const JsonLoadOptions& options) {
  auto data = std::make_shared<detail::ProvenanceData>();
  InputLimits limits = options.limits.or_defaults(kJsonDefaultLimits);
  GRAPHPAT_RETURN_IF_ERROR(detail::load_document(json, data->document, limits.max_nodes));
  GRAPHPAT_RETURN_IF_ERROR(detail::upgrade_document(data->document));
  LoadedJson loaded;
  detail::JsonReader reader(*data, loaded.module, limits);
  GRAPHPAT_ASSIGN_OR_RETURN(loaded.expression, reader.read());
  if (options.keep_provenance) loaded.provenance = JsonProvenance(std::move(data));
  return loaded;
}

GRAPHPAT_ENTRY absl::StatusOr<std::string> save_json(const Module& module,
                                                     const JsonProvenance& provenance) {
  detail::Emitter emitter(module.graph, provenance.data());
  std::uint32_t root = emitter.emit_module(module);
  return emitter.write(root);
}

GRAPHPAT_ENTRY absl::StatusOr<std::string> save_json(const Graph& graph, NodeId root,
                                                     const JsonProvenance& provenance) {
  detail::Emitter emitter(graph, provenance.data());
  std::uint32_t object = emitter.emit_expression(root);
  return emitter.write(object);
}

GRAPHPAT_ENTRY absl::StatusOr<std::string> save_json(const LoadedJson& loaded) {
  if (loaded.expression) return save_json(loaded.module.graph, *loaded.expression, loaded.provenance);
  return save_json(loaded.module, loaded.provenance);
}

}  // namespace graphpat::relay

#include "graphpat/detail/status_macros_undef.hpp"
#endif  // GRAPHPAT_ENTRY_DEFINITIONS
