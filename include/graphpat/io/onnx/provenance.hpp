// What onnx::load keeps of a file for writing it back: the parsed ModelProto itself (it also
// owns the bytes of every initializer, which constants alias) and what each part of it became
// in the graph. onnx::save reads it to write an unchanged model byte for byte and a changed one
// with every untouched name, doc string, unknown field and metadata entry.
//
//   absl::StatusOr<graphpat::onnx::LoadedOnnx> loaded = graphpat::onnx::load(bytes);
//   const graphpat::onnx::OnnxProvenance& provenance = loaded->provenance;
//   const onnx::ModelProto& model = provenance.model();  // as parsed
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/text_map.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/ids.hpp"
#include "graphpat/onnx/dialect.hpp"

namespace graphpat::onnx {

namespace detail {

/// The reader's record of one file.
struct OnnxOrigin {
  std::shared_ptr<const ::onnx::ModelProto> model;
  /// The context of the graph the file was read into: the ids below are its ids.
  std::shared_ptr<const Context> context;
  /// The module attribute the reader made of the model's header (model_header.hpp): while the
  /// module still has it, the writer copies the header from `model` as it is.
  AttrValueId header;
  /// Per NodeProto (file order): the attributes value the reader made of it, so a node built
  /// later with the same value is written with the original AttributeProtos.
  std::vector<AttrValueId> node_attrs;
  /// Per graph input (file order): the type the reader gave it (none for an input that is an
  /// initializer's).
  std::vector<TypeId> input_types;
  /// Per graph input: whether it names an initializer (then it is that constant, not a Var).
  std::vector<bool> input_is_initializer;
  /// Per graph output: the type the reader gave it.
  std::vector<TypeId> output_types;
  /// The initializer each constant the reader made holds, by TensorId.
  absl::flat_hash_map<TensorId, std::uint32_t> initializer_of;
  /// Initializers main does not reach (read by no node, or only by dead_nodes): the writer
  /// keeps them as they are.
  std::vector<std::uint32_t> unreached_initializers;
  /// NodeProtos no graph output depends on (so not in main), in a topological order: the
  /// writer keeps each while every value it reads is still written.
  std::vector<std::uint32_t> dead_nodes;
  /// value_info entries (by index) whose name no graph input, initializer or node output
  /// defines: the writer keeps them as they are.
  absl::flat_hash_set<std::uint32_t> value_info_of_nothing;
  /// A copy of the functions the reader made of FunctionProtos and GRAPH attributes (what they
  /// reach, and nothing else of the graph), so that the writer can tell whether a pass changed
  /// one: an unchanged one is written as it was.
  std::shared_ptr<const Graph> kept;
  /// Per FunctionProto (file order): its function, in `kept`.
  std::vector<NodeId> function_nodes;
  /// Per NodeProto of main with GRAPH attributes, by node index: the functions of its
  /// attributes in argument order, in `kept`.
  absl::flat_hash_map<std::uint32_t, std::vector<NodeId>> subgraph_functions;
  /// The names of the file (nodes, values, graph inputs and outputs) that a fresh name could
  /// take (they start with kFreshNamePrefix), so that new names collide with none.
  graphpat::detail::TextSet names;  // views into `model`
};

/// What every name the writer makes up starts with (`graphpat_7`); the reader keeps only the
/// file's names of that form (OnnxOrigin::names).
inline constexpr std::string_view kFreshNamePrefix = "graphpat_";

}  // namespace detail

/// What a loaded file keeps for writing it back (see the top of this file). Cheap to copy;
/// empty for modules graphpat built itself.
class OnnxProvenance {
 public:
  OnnxProvenance() = default;
  explicit OnnxProvenance(std::shared_ptr<const detail::OnnxOrigin> origin)
      : origin_(std::move(origin)) {}

  [[nodiscard]] bool empty() const { return origin_ == nullptr; }
  /// The file as parsed; only when !empty().
  [[nodiscard]] const ::onnx::ModelProto& model() const { return *origin_->model; }
  [[nodiscard]] const detail::OnnxOrigin* origin() const { return origin_.get(); }

 private:
  std::shared_ptr<const detail::OnnxOrigin> origin_;
};

}  // namespace graphpat::onnx
