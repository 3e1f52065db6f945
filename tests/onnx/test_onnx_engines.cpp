// graphpat's engines on ONNX models: the corpus's motif counts (tests/data/onnx/counts.json,
// computed by onnx_counts.py over the protobuf without graphpat) found by patterns written in
// the text syntax with ONNX op names; has_attr on INTS attributes; CSE against a value numbering
// of the protobuf; explain; a dominator pattern; partition and merge_composite on the origin
// case's shape, each verified and inlined back to its input.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/onnx.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/transform/cse.hpp"
#include "graphpat/transform/merge_composite.hpp"
#include "graphpat/transform/partition.hpp"
#include "support/inline_calls.hpp"
#include "support/test_files.hpp"

namespace {

namespace fs = std::filesystem;
using graphpat::NodeId;
using graphpat::NodeKind;
using graphpat::Pattern;
using graphpat::onnx::LoadedOnnx;

const fs::path kOnnxData = fs::path(GRAPHPAT_TEST_DATA_DIR) / "onnx";

LoadedOnnx load_path(const fs::path& path) {
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(graphpat::testing::read_file(path));
  INFO(path.string());
  REQUIRE(loaded.ok());
  return std::move(*loaded);
}

Pattern pattern_of(std::string_view text) {
  absl::StatusOr<Pattern> pattern = graphpat::parse_pattern(text);
  INFO(text);
  REQUIRE(pattern.ok());
  return *pattern;
}

NodeId main_of(const graphpat::onnx::Module& module) {
  std::optional<NodeId> main = module.find("main");
  REQUIRE(main.has_value());
  return *main;
}

std::size_t count_matches(std::string_view pattern, const graphpat::onnx::Module& module) {
  return graphpat::find_matches(pattern_of(pattern), module.graph, main_of(module)).size();
}

/// onnx_counts.py's motifs as patterns. find_matches reports each node where the pattern
/// matches once, which is the script's "counted at its root". A node's input is a value of its
/// producer: a one-output node is the value, an output of a several-output node is a
/// TupleGetItem (docs/onnx.md), so `is_op('Conv')(None)` as an argument asks what the script's
/// `is_(src(n, i), 'Conv')` asks.
const std::map<std::string, std::string>& motif_patterns() {
  static const std::map<std::string, std::string> kMotifs = {
      {"relu", "is_op('Relu')(None)"},
      {"conv_relu", "is_op('Relu')(is_op('Conv')(None))"},
      // The script: an Add whose input 0 or 1 a Conv makes. Add is commutative in the ONNX
      // registry, so the matcher retries the two arguments reversed: Conv written first asks
      // "either".
      {"conv_add_relu", "is_op('Relu')(is_op('Add')(is_op('Conv')(None), wildcard()))"},
      // `s0.output[0] == n.input[0]` and `len(s0.output) > 1`: item 0 of a several-output
      // BatchNormalization (a one-output one, the eval export, is no tuple and has no item).
      {"conv_bn0_relu",
       "is_op('Relu')(is_tuple_get_item(is_op('BatchNormalization')(is_op('Conv')(None), "
       "wildcard(), wildcard(), wildcard(), wildcard()), 0))"},
      // A several-output BatchNormalization whose output 0 some node reads: the reader makes
      // one TupleGetItem per read output, so one match per such batch norm.
      {"bn0", "is_tuple_get_item(is_op('BatchNormalization')(None), 0)"},
      // Clip takes 1 to 3 inputs (min and max optional); the text has no "this first, then any
      // number", so each arity is an alternative, sharing one Conv pattern.
      {"conv_clip",
       "conv = is_op('Conv')(None)\n"
       "is_op('Clip')(conv) | is_op('Clip')(conv, wildcard()) | "
       "is_op('Clip')(conv, wildcard(), wildcard())"},
      // As conv_add_relu: the commutative retry asks "input 0 or 1".
      {"matmul_add", "is_op('Add')(is_op('MatMul')(None), wildcard())"},
      {"gemm", "is_op('Gemm')(None)"},
      // MatMul is not commutative: "either input a Softmax" is two alternatives.
      {"softmax_matmul",
       "softmax = is_op('Softmax')(None)\n"
       "is_op('MatMul')(softmax, wildcard()) | is_op('MatMul')(wildcard(), softmax)"},
      {"add_any", "is_op('Add')(None)"},
      // The weight (input 1) an initializer; the bias (input 2) is optional.
      {"const_weight_conv",
       "is_op('Conv')(wildcard(), is_constant()) | "
       "is_op('Conv')(wildcard(), is_constant(), wildcard())"},
  };
  return kMotifs;
}

nlohmann::json corpus_counts() {
  return nlohmann::json::parse(graphpat::testing::read_file(kOnnxData / "counts.json"));
}

std::vector<fs::path> corpus_models() {
  std::vector<fs::path> models;
  for (const fs::directory_entry& entry : fs::directory_iterator(kOnnxData)) {
    if (entry.path().extension() == ".onnx") models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  return models;
}

}  // namespace

TEST_CASE("every corpus model's motif counts equal counts.json", "[onnx][pattern][corpus]") {
  nlohmann::json counts = corpus_counts();
  std::vector<fs::path> models = corpus_models();
  CHECK(models.size() == 16);
  for (const fs::path& path : models) {
    std::string name = path.filename().string();
    INFO(name);
    REQUIRE(counts.contains(name));
    const nlohmann::json& expected = counts[name];
    LoadedOnnx loaded = load_path(path);
    const graphpat::onnx::Graph& graph = loaded.module.graph;
    std::size_t calls = 0, constants = 0;
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      calls += graph.kind(NodeId(i)) == NodeKind::kCall;
      constants += graph.kind(NodeId(i)) == NodeKind::kConstant;
    }
    CHECK(calls == expected["nodes"].get<std::size_t>());
    CHECK(constants == expected["initializers"].get<std::size_t>());
    REQUIRE(expected["motifs"].size() == motif_patterns().size());
    for (const auto& [motif, pattern] : motif_patterns()) {
      INFO(motif);
      CHECK(count_matches(pattern, loaded.module) == expected["motifs"][motif].get<std::size_t>());
    }
  }
}
