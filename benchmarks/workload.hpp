// The graphs the harness measures: the real models of tests/data/corpus/models and synthetic
// graphs of a requested size made by the generators of generators.cpp. A workload holds the
// module plus, made on first request, the Relay text and TVM JSON bytes the parsers read (for a
// real model the files themselves; for a synthetic graph what print_text / save_json make of it).
// ONNX workloads (spec.onnx) hold instead the bytes of an ONNX model (a full-weight model of
// tests/data/onnx, or a generated chain) and the onnx::Module those bytes load to.
//
//   const bench::Workload& w = bench::workload({"resnet", 10'000});  // generated on first use
//   w.module().graph.size();   // ~10,000 nodes
//   w.text();                  // its Relay text, printed once and kept
//   const bench::Workload& o = bench::workload({"onnx_chain", 1'000, true});
//   o.onnx().size();           // the serialized ModelProto's bytes
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include <graphpat/io/onnx.hpp>
#include <graphpat/relay/dialect.hpp>
#include <graphpat/transform/merge_composite.hpp>

namespace bench {

/// Which workload: a real model (size 0) or a synthetic shape at `size` nodes.
struct WorkloadSpec {
  std::string name;        // "resnet18" (a model file's stem) or "chain" (a generator)
  std::uint64_t size = 0;  // requested nodes of a synthetic graph; 0 for a real model
  bool onnx = false;       // an ONNX model ("lstm_tagger.onnx") or ONNX shape ("onnx_chain")

  [[nodiscard]] bool synthetic() const { return size != 0; }
  /// "1e4" for synthetic sizes (powers of ten), "model" for real models.
  [[nodiscard]] std::string size_label() const;
  /// "resnet18" or "chain/1e4".
  [[nodiscard]] std::string label() const;
};

class Workload {
 public:
  explicit Workload(WorkloadSpec spec);

  [[nodiscard]] const WorkloadSpec& spec() const { return spec_; }
  /// The Relay module (empty for an ONNX workload).
  [[nodiscard]] const graphpat::relay::Module& module() const { return module_; }
  /// Nodes of the module's graph (the ONNX module's for an ONNX workload): what every ns/node
  /// and bytes/node figure divides by.
  [[nodiscard]] std::uint32_t nodes() const {
    return spec_.onnx ? onnx_module_->module.graph.size() : module_.graph.size();
  }
  /// An ONNX workload's serialized ModelProto (the file, or the generated chain's bytes).
  [[nodiscard]] const std::string& onnx() const { return onnx_bytes_; }
  /// What onnx() loads to (with its provenance, so saving it writes onnx() again).
  [[nodiscard]] const graphpat::onnx::LoadedOnnx& onnx_module() const { return *onnx_module_; }
  /// The Relay text parse_text reads (TVM's astext envelope).
  [[nodiscard]] const std::string& text() const;
  /// The TVM JSON load_json reads.
  [[nodiscard]] const std::string& json() const;

 private:
  WorkloadSpec spec_;
  graphpat::relay::Module module_;
  mutable std::optional<std::string> text_;
  mutable std::optional<std::string> json_;
  std::string onnx_bytes_;
  std::optional<graphpat::onnx::LoadedOnnx> onnx_module_;
};

/// The real models: the stems NAME of tests/data/corpus/models/NAME.unbound.relay, sorted
/// (each has a NAME.unbound.json beside it).
std::vector<std::string> model_names();
/// The synthetic shapes generators.cpp makes, in the order the table lists them.
std::vector<std::string> shape_names();
/// The full-weight ONNX models: the files NAME.onnx of tests/data/onnx that are not
/// NAME.external.onnx (whose weights are absent), as "NAME.onnx", sorted.
std::vector<std::string> onnx_model_names();
/// The synthetic ONNX shapes generate_onnx makes.
std::vector<std::string> onnx_shape_names();

/// The project's tests/data directory, where the real models and TVM's figures are.
std::filesystem::path data_dir();
/// The bytes of the file at `path`; throws std::runtime_error when it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// The ten named patterns of tests/data/corpus/patterns.txt (`name: pattern` lines), as a
/// MergeComposite table in file order.
using CorpusPatterns =
    absl::StatusOr<std::vector<graphpat::CompositePattern<graphpat::relay::Dialect>>>;
CorpusPatterns corpus_patterns();

/// The workload for `spec`, made on first use. Only the latest is kept, so 1e7-node graphs do
/// not pile up: callers run everything for one workload before asking for the next.
const Workload& workload(const WorkloadSpec& spec);

/// Builds the synthetic graph `name` with about `nodes` nodes into `module` (generators.cpp).
void generate(const std::string& name, std::uint64_t nodes, graphpat::relay::Module& module);
/// The serialized ModelProto of the synthetic ONNX shape `name` with `nodes` nodes
/// (generators.cpp).
std::string generate_onnx(const std::string& name, std::uint64_t nodes);

}  // namespace bench
