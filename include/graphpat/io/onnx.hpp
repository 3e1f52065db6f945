// ONNX models (`.onnx`, a serialized onnx.ModelProto) for graphpat ONNX modules: read into an
// onnx::Module and written back, an unchanged model byte for byte.
//
//   absl::StatusOr<graphpat::onnx::LoadedOnnx> loaded = graphpat::onnx::load_file("model.onnx");
//   if (!loaded.ok()) return loaded.status();   // "[graphpat.onnx.dangling_value] node 3
//                                               //  'Conv_3' (Conv): input 1 'w' is not ..."
//   graphpat::onnx::Module& module = loaded->module;   // function main
//   ...                                                // match, partition, extend with a Builder
//   absl::StatusOr<std::string> bytes = graphpat::onnx::save(*loaded);  // the file's bytes
//                                                                       // when nothing changed
//   absl::StatusOr<std::string> dot = graphpat::onnx::to_dot(loaded->module);  // a picture
//
// What a file becomes (docs/onnx.md, "Reading and writing", says it at length):
// - The main graph is function `main`. Graph inputs without an initializer are its Vars
//   (name_hint = the value name, annotated and typed with the declared type); initializers are
//   Constants (dtype and shape; the bytes alias the parsed file, raw_data or typed fields;
//   external data is a reference kept in the file and never loaded, so a model whose weights
//   file is absent loads and saves). The outputs are the body: one output that value, several
//   (or none) a Tuple of them.
// - Each NodeProto is one fresh Call (never merged with another: that is CSE's job) of the op
//   `op_name(domain, op_type)` (an op the registry lacks is carried opaque), its attributes an
//   object value whose type key is the op's name, fields in the file's order: INT -> int64,
//   FLOAT -> float32, STRING -> string (bytes), INTS/FLOATS/STRINGS -> arrays, TENSOR -> an
//   object `onnx.TensorProto` holding the serialized proto (equal exactly when the tensors are),
//   TENSORS -> an array of those. A node of several outputs is a Call of tuple type read
//   through one TupleGetItem per used output; an absent optional input ("") is the empty tuple
//   `()`, an absent output a field of the Call's type that nothing reads.
// - value_info and graph output types become node types (no shape inference): plain tensor
//   types as Tensor types (dim_value -> dim, dim_param -> symbolic dim, neither -> `?`), any
//   other (sequences, maps, unknown rank) an opaque type holding the TypeProto's text.
// - A Call's span is {source = node name, line = node index + 1}, which passes carry along: the
//   writer writes the original NodeProto (doc string, unknown fields, output names) for a call
//   that still matches it, and its name and output names when it changed. New calls get fresh
//   names (`graphpat_N`) that collide with nothing in the file.
// - Nodes are topologically sorted on import; the writer writes them in graph order, except
//   that an unchanged model serializes the parsed ModelProto itself.
// - A model-local function (FunctionProto) is module function `domain.name` (untyped Vars for
//   its inputs), and a node calling it a Call of that GlobalVar. A call of a function literal
//   (partition's and merge_composite's groups) is written as a node calling a FunctionProto of
//   the function domain (OnnxSaveOptions, default "graphpat") named after the literal's
//   composite or partitioned_from attribute, one per distinct body, its constants passed as
//   trailing inputs.
// - A GRAPH attribute (If/Loop/Scan/SequenceMap bodies) is a nested function, an argument of
//   the node's call after its inputs, followed by the values of the graph around that it reads
//   (its captures, explicit: the function is closed); the field `onnx.Graph {arg, captures}`.
// - Refused (onnx.unsupported) for now: GRAPHS attributes, sparse initializers and tensors,
//   function attribute references and parameters, segmented tensors, element types newer than
//   ONNX 1.12.
//
// Errors are absl::Status values with ids `onnx.<what>` (docs/errors.md): not_onnx,
// unreadable_file, unsupported, dangling_value, duplicate_value, unnamed_value, bad_attribute,
// bad_tensor, tensor_too_large, too_many_nodes, cycle. Nothing recursive follows the graph's size.
#pragma once

#include <absl/status/statusor.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "graphpat/io/dot.hpp"
#include "graphpat/io/onnx/attribute_text.hpp"
#include "graphpat/io/onnx/provenance.hpp"
#include "graphpat/io/onnx/reader.hpp"
#include "graphpat/io/onnx/writer.hpp"

namespace graphpat::onnx {

struct OnnxLoadOptions {
  /// max_nodes bounds nodes + initializers + graph inputs, max_tensor_bytes each initializer
  /// (external ones too, by their dims). Each left 0 is kDefaultLimits'.
  InputLimits limits{};
};

/// Reads a serialized ModelProto.
inline absl::StatusOr<LoadedOnnx> load(std::string_view bytes,
                                       const OnnxLoadOptions& options = {}) {
  auto model = std::make_shared<::onnx::ModelProto>();
  if (bytes.size() > static_cast<std::size_t>(INT_MAX) ||
      !model->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return make_error(
        absl::StatusCode::kInvalidArgument, "onnx.not_onnx",
        fmt::format("model: protobuf cannot parse these {} bytes as an onnx.ModelProto "
                    "(truncated, or another format)",
                    bytes.size()));
  }
  if (!model->has_graph()) {
    return make_error(absl::StatusCode::kInvalidArgument, "onnx.not_onnx",
                      "model: the ModelProto has no graph");
  }
  detail::OnnxReader reader(std::move(model), options.limits.or_defaults(kDefaultLimits));
  return reader.read();
}

/// Reads the `.onnx` file at `path` (its external data, if any, is not opened).
inline absl::StatusOr<LoadedOnnx> load_file(const std::string& path,
                                            const OnnxLoadOptions& options = {}) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  if (file) contents << file.rdbuf();
  if (!file) {
    return make_error(absl::StatusCode::kNotFound, "onnx.unreadable_file",
                      fmt::format("{}: cannot read the file", path));
  }
  return load(contents.view(), options);
}

struct OnnxSaveOptions {
  /// The domain of the FunctionProtos written for function literals (partition's and
  /// merge_composite's groups); imported by the model at version 1.
  std::string function_domain = "graphpat";
};

/// Writes `module` as a serialized ModelProto. With the provenance of the load that produced
/// the graph (or a graph a pass made of it), what is unchanged is written as it was read.
inline absl::StatusOr<std::string> save(const Module& module, const OnnxProvenance& provenance = {},
                                        const OnnxSaveOptions& options = {}) {
  detail::OnnxWriter writer(module, provenance.origin(), options.function_domain);
  return writer.write();
}

/// Writes a loaded file back.
inline absl::StatusOr<std::string> save(const LoadedOnnx& loaded,
                                        const OnnxSaveOptions& options = {}) {
  return save(loaded.module, loaded.provenance, options);
}

/// The function `options.function` of `module` as Graphviz DOT text (io/dot.hpp: the same
/// picture as a Relay module's), each call labelled with its op and its attributes in ONNX
/// text syntax; with cluster_partitioned_functions, each group partition or merge_composite
/// made is a cluster of its body, labelled by its graphpat.composite or
/// graphpat.partitioned_from name, and so is each call of a module function that
/// `options.clustered_functions` names (the groups of a file partition wrote, read back:
/// `graphpat.<name>`).
inline absl::StatusOr<std::string> to_dot(const Module& module, const DotOptions& options = {}) {
  const AttrTable& attrs = module.graph.context().attrs;
  return graphpat::detail::DotWriter<Dialect>(
             module, options,
             [&attrs](AttrValueId node_attrs) { return attribute_texts(attrs, node_attrs); })
      .write();
}

}  // namespace graphpat::onnx
