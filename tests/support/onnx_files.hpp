// Test support for the ONNX tests: where their models are (the corpus copy in tests/data/onnx
// and Debian's libonnx-testdata), loading one that must load, and a module's `main`.
//
//   graphpat::onnx::LoadedOnnx loaded = load_path(kOnnxData / "resnet18.external.onnx");
//   NodeId main = main_of(loaded.module);
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <graphpat/io/onnx.hpp>
#include <optional>
#include <utility>

#include "support/test_files.hpp"

namespace graphpat::testing {

/// tests/data/onnx: the PyTorch corpus models and counts.json.
inline const std::filesystem::path kOnnxData =
    std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "onnx";
/// libonnx-testdata's data directory (node/, pytorch-converted/, ...).
inline const std::filesystem::path kOnnxTestdata = GRAPHPAT_ONNX_TESTDATA_DIR;

/// The model at `path`, which the test requires to load.
inline onnx::LoadedOnnx load_path(const std::filesystem::path& path) {
  absl::StatusOr<onnx::LoadedOnnx> loaded = onnx::load(read_file(path));
  INFO(path.string());
  REQUIRE(loaded.ok());
  return std::move(*loaded);
}

/// The id of `module`'s function `main`, which the test requires.
inline NodeId main_of(const onnx::Module& module) {
  std::optional<NodeId> main = module.find("main");
  REQUIRE(main.has_value());
  return *main;
}

}  // namespace graphpat::testing
