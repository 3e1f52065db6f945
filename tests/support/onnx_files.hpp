// Test support for the ONNX tests: where their models are (the corpus copy in tests/data/onnx
// and Debian's libonnx-testdata), loading one that must load, and a module's `main`.
//
//   graphpat::onnx::LoadedOnnx loaded = load_path(kOnnxData / "resnet18.external.onnx");
//   NodeId main = main_of(loaded.module);
#pragma once

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <catch2/catch.hpp>
#include <exception>
#include <filesystem>
#include <graphpat/io/onnx.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "support/test_files.hpp"

namespace graphpat::testing {

/// tests/data/onnx: the PyTorch corpus models and counts.json.
inline const std::filesystem::path kOnnxData =
    std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "onnx";
/// libonnx-testdata's data directory (node/, pytorch-converted/, ...).
inline const std::filesystem::path kOnnxTestdata = GRAPHPAT_ONNX_TESTDATA_DIR;

/// Whether `node` is a call of the op named `op`.
inline bool is_call_of(const onnx::Graph& graph, NodeId node, std::string_view op) {
  if (graph.kind(node) != NodeKind::kCall) return false;
  OpId called = graph.called_op(node);
  return called.valid() && graph.context().op_name(called) == op;
}

/// How many nodes of `graph` (live or not) are calls of `op`.
inline std::size_t calls_of(const onnx::Graph& graph, std::string_view op) {
  std::size_t calls = 0;
  for (std::uint32_t i = 0; i < graph.size(); ++i) calls += is_call_of(graph, NodeId(i), op);
  return calls;
}

/// The ONNX node name a call was read from (its span's source), "" for a node a pass made.
inline std::string node_name(const onnx::Graph& graph, NodeId node) {
  if (!graph.span(node).valid()) return "";
  const Context& context = graph.context();
  return std::string(context.strings.view(context.spans.get(graph.span(node)).source));
}

/// The model serialized in `bytes`, which the test requires to load.
inline onnx::LoadedOnnx load_bytes(std::string_view bytes) {
  absl::StatusOr<onnx::LoadedOnnx> loaded = onnx::load(bytes);
  INFO(loaded.status().ToString());
  REQUIRE(loaded.ok());
  return std::move(*loaded);
}

/// The model at `path`, which the test requires to load.
inline onnx::LoadedOnnx load_path(const std::filesystem::path& path) {
  absl::StatusOr<onnx::LoadedOnnx> loaded = onnx::load(read_file(path));
  INFO(path.string());
  REQUIRE(loaded.ok());
  return std::move(*loaded);
}

/// What onnx's checker says of `model` with full_check (the checker, then strict shape
/// inference with type checks, as onnx.checker.check_model(full_check=True) runs them); ""
/// when it passes. Initializers whose data is external (a weights file the tests do not
/// have) are checked as zeros of their size.
inline std::string checker_problem(const ::onnx::ModelProto& model) {
  ::onnx::ModelProto checked = model;
  for (::onnx::TensorProto& tensor : *checked.mutable_graph()->mutable_initializer()) {
    if (tensor.data_location() != ::onnx::TensorProto::EXTERNAL) continue;
    std::int64_t elements = 1;
    for (std::int64_t extent : tensor.dims()) elements *= extent;
    std::int64_t width = tensor.data_type() == ::onnx::TensorProto::INT64 ? 8 : 4;
    REQUIRE((tensor.data_type() == ::onnx::TensorProto::FLOAT ||
             tensor.data_type() == ::onnx::TensorProto::INT64));
    tensor.clear_external_data();
    tensor.clear_data_location();
    tensor.set_raw_data(std::string(static_cast<std::size_t>(elements * width), '\0'));
  }
  try {
    ::onnx::checker::check_model(checked);
    ::onnx::ModelProto inferred = checked;
    ::onnx::shape_inference::InferShapes(inferred, ::onnx::OpSchemaRegistry::Instance(),
                                         {/*check_type=*/true, /*strict_mode=*/1});
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

/// The id of `module`'s function `main`, which the test requires.
inline NodeId main_of(const onnx::Module& module) {
  std::optional<NodeId> main = module.find("main");
  REQUIRE(main.has_value());
  return *main;
}

}  // namespace graphpat::testing
