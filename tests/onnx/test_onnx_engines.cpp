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

namespace {

/// An op's name as the ONNX dialect spells it (docs/onnx.md, "Op naming").
std::string op_name_of(const onnx::NodeProto& node) {
  if (node.domain().empty() || node.domain() == "ai.onnx") return node.op_type();
  return node.domain() + "." + node.op_type();
}

/// The ints of `node`'s INTS attribute `name`, or nullopt.
std::optional<std::vector<std::int64_t>> ints_attribute(const onnx::NodeProto& node,
                                                        std::string_view name) {
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name() == name && attribute.type() == onnx::AttributeProto::INTS) {
      return std::vector<std::int64_t>(attribute.ints().begin(), attribute.ints().end());
    }
  }
  return std::nullopt;
}

/// What CSE should merge, found over the protobuf alone: value numbering of the nodes the graph
/// outputs depend on. Two nodes are one value when they have the same op, the same attributes
/// (serialized AttributeProtos, in order) and inputs of the same values; initializers when their
/// dtype, dims and bytes are equal (external ones have no bytes: each is its own); the ops the
/// ONNX spec calls random (and Dropout, which may be) never merge. Counted by "Call <op>" and
/// "Constant", as CseReport::merged_by names them.
std::map<std::string, std::uint32_t> merges_by_value_numbering(const onnx::GraphProto& graph) {
  const std::set<std::string> kRandom = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                         "RandomUniformLike", "Multinomial", "Bernoulli",
                                         "Dropout"};
  std::map<std::string, int> producer;  // value name -> node index
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const std::string& output : graph.node(i).output()) producer[output] = i;
  }
  // The nodes the outputs depend on.
  std::vector<bool> live(graph.node_size(), false);
  std::vector<std::string> work;
  for (const onnx::ValueInfoProto& output : graph.output()) work.push_back(output.name());
  std::set<std::string> seen_values;
  while (!work.empty()) {
    std::string value = work.back();
    work.pop_back();
    if (!seen_values.insert(value).second || !producer.count(value)) continue;
    int node = producer[value];
    live[node] = true;
    for (const std::string& input : graph.node(node).input()) work.push_back(input);
  }
  std::map<std::string, std::uint32_t> merged;
  std::map<std::string, std::string> number;  // value name -> its value number
  std::map<std::string, std::string> first;   // key -> value number of its first holder
  std::set<std::string> read;                 // values some live node or output reads
  for (const onnx::ValueInfoProto& output : graph.output()) read.insert(output.name());
  for (int i = 0; i < graph.node_size(); ++i) {
    if (!live[i]) continue;
    for (const std::string& input : graph.node(i).input()) read.insert(input);
  }
  // Graph inputs are variables, each its own value; an initializer of the same name wins.
  for (const onnx::ValueInfoProto& input : graph.input()) number[input.name()] = "input:" + input.name();
  for (const onnx::TensorProto& tensor : graph.initializer()) {
    std::string key = "tensor:" + std::to_string(tensor.data_type()) + ":";
    for (std::int64_t dim : tensor.dims()) key += std::to_string(dim) + ",";
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
      key += "external:" + tensor.name();
    } else if (tensor.has_raw_data()) {
      key += "raw:" + tensor.raw_data();
    } else {
      onnx::TensorProto data = tensor;
      data.clear_name();
      data.clear_doc_string();
      key += "typed:" + data.SerializeAsString();
    }
    auto [it, fresh] = first.emplace(key, "init:" + tensor.name());
    if (!fresh && read.count(tensor.name())) ++merged["Constant"];
    number[tensor.name()] = it->second;
  }
  // torch writes its nodes in a topological order; a node reading a value made later would make
  // its number unknown, which the REQUIRE below catches.
  for (int i = 0; i < graph.node_size(); ++i) {
    if (!live[i]) continue;
    const onnx::NodeProto& node = graph.node(i);
    std::string key = op_name_of(node) + "(";
    for (const std::string& input : node.input()) {
      if (input.empty()) {
        key += "(),";
        continue;
      }
      INFO(node.name() << " reads " << input);
      REQUIRE(number.count(input) == 1);
      key += number[input] + ",";
    }
    key += ")" + std::to_string(node.output_size()) + "{";
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      key += attribute.SerializeAsString() + ";";
    }
    if (kRandom.count(node.op_type())) key += "node " + std::to_string(i);
    auto [it, fresh] = first.emplace(key, "node:" + std::to_string(i));
    if (!fresh) ++merged["Call " + op_name_of(node)];
    for (int k = 0; k < node.output_size(); ++k) {
      number[node.output(k)] = it->second + "." + std::to_string(k);
    }
  }
  return merged;
}

/// The calls that `main` reaches.
std::uint32_t reachable_calls(const graphpat::onnx::Module& module) {
  std::vector<bool> live = graphpat::reachable_from(module.graph, module.roots());
  std::uint32_t calls = 0;
  for (std::uint32_t i = 0; i < module.graph.size(); ++i) {
    calls += live[i] && module.graph.kind(NodeId(i)) == NodeKind::kCall;
  }
  return calls;
}

}  // namespace

TEST_CASE("has_attr with small ints matches an INTS attribute of 64-bit ints",
          "[onnx][pattern]") {
  LoadedOnnx loaded = load_path(kOnnxData / "resnet18.external.onnx");
  std::map<std::vector<std::int64_t>, std::size_t> by_kernel;
  for (const onnx::NodeProto& node : loaded.provenance.model().graph().node()) {
    if (node.op_type() != "Conv") continue;
    std::optional<std::vector<std::int64_t>> kernel = ints_attribute(node, "kernel_shape");
    REQUIRE(kernel.has_value());
    ++by_kernel[*kernel];
  }
  // torchvision's resnet18: the 7x7 stem, sixteen 3x3 convs in the blocks, three 1x1
  // downsamples.
  CHECK(by_kernel == std::map<std::vector<std::int64_t>, std::size_t>{
                         {{1, 1}, 3}, {{3, 3}, 16}, {{7, 7}, 1}});
  CHECK(count_matches("is_op('Conv')(None).has_attr({'kernel_shape': [3, 3]})", loaded.module) ==
        16);
  CHECK(count_matches("has_attr({'kernel_shape': [7, 7]}, is_op('Conv')(None))", loaded.module) ==
        1);
  CHECK(count_matches("is_op('Conv')(None).has_attr({'kernel_shape': [1, 1], 'strides': [2, 2]})",
                      loaded.module) == 3);
  // A list of another length, or a scalar for a list, is no match.
  CHECK(count_matches("is_op('Conv')(None).has_attr({'kernel_shape': [3]})", loaded.module) == 0);
  CHECK(count_matches("is_op('Conv')(None).has_attr({'kernel_shape': 3})", loaded.module) == 0);
}

TEST_CASE("CSE merges what a value numbering of the protobuf finds equal, and verifies",
          "[onnx][cse][corpus]") {
  std::uint32_t total = 0;
  for (const fs::path& path : corpus_models()) {
    INFO(path.filename().string());
    LoadedOnnx loaded = load_path(path);
    std::map<std::string, std::uint32_t> expected =
        merges_by_value_numbering(loaded.provenance.model().graph());
    graphpat::CseResult<graphpat::onnx::Dialect> result =
        graphpat::eliminate_common_subexpr(loaded.module);
    CHECK(graphpat::verify(result.module.graph).ok());
    // A TupleGetItem merges with its tuple's; the value numbering counts the tuple once.
    std::map<std::string, std::uint32_t> merged = result.report.merged_by;
    merged.erase("TupleGetItem");
    CHECK(merged == expected);
    std::uint32_t calls_before = reachable_calls(loaded.module);
    std::uint32_t calls_after = reachable_calls(result.module);
    std::uint32_t merged_calls = 0;
    for (const auto& [what, count] : expected) {
      if (what.starts_with("Call ")) merged_calls += count;
    }
    CHECK(calls_after == calls_before - merged_calls);
    total += merged_calls;
  }
  CHECK(total > 0);
}
