// graphpat's engines on ONNX models: the corpus's motif counts (tests/data/onnx/counts.json,
// computed by onnx_counts.py over the protobuf without graphpat) found by patterns written in
// the text syntax with ONNX op names; has_attr on INTS attributes; CSE against a value numbering
// of the protobuf; explain; a dominator pattern; partition and merge_composite on the origin
// case's shape, each verified and inlined back to its input.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/onnx.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/pattern/explain.hpp"
#include "graphpat/pattern/graph_matcher.hpp"
#include "graphpat/pattern/matcher.hpp"
#include "graphpat/transform/cse.hpp"
#include "graphpat/transform/merge_composite.hpp"
#include "graphpat/transform/partition.hpp"
#include "graphpat/transform/rewrite.hpp"
#include "support/inline_calls.hpp"
#include "support/onnx_files.hpp"
#include "support/test_files.hpp"

namespace {

namespace fs = std::filesystem;
using graphpat::NodeId;
using graphpat::NodeKind;
using graphpat::Pattern;
using graphpat::onnx::LoadedOnnx;
using graphpat::testing::count_of;
using graphpat::testing::kOnnxData;
using graphpat::testing::kOnnxTestdata;
using graphpat::testing::load_path;
using graphpat::testing::main_of;

Pattern pattern_of(std::string_view text) {
  absl::StatusOr<Pattern> pattern = graphpat::parse_pattern(text);
  INFO(text);
  REQUIRE(pattern.ok());
  return *pattern;
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
  const std::set<std::string> kRandom = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
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
  for (const onnx::ValueInfoProto& input : graph.input())
    number[input.name()] = "input:" + input.name();
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

TEST_CASE("has_attr with small ints matches an INTS attribute of 64-bit ints", "[onnx][pattern]") {
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
  CHECK(by_kernel ==
        std::map<std::vector<std::int64_t>, std::size_t>{{{1, 1}, 3}, {{3, 3}, 16}, {{7, 7}, 1}});
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

namespace {

/// The function literals of `module`'s graph that `main` reaches, by their attribute `key`'s
/// text value.
std::map<std::string, std::size_t> functions_by(const graphpat::onnx::Module& module,
                                                std::string_view key) {
  const graphpat::onnx::Graph& graph = module.graph;
  const graphpat::AttrTable& attrs = graph.context().attrs;
  std::vector<bool> live = graphpat::reachable_from(graph, module.roots());
  std::map<std::string, std::size_t> functions;
  NodeId main = main_of(module);
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (!live[i] || id == main || graph.kind(id) != NodeKind::kFunction) continue;
    std::optional<graphpat::AttrValueId> value =
        graph.attrs(id).valid() ? attrs.find_field(graph.attrs(id), key) : std::nullopt;
    ++functions[value ? std::string(attrs.text(*value)) : "(none)"];
  }
  return functions;
}

}  // namespace

TEST_CASE("partition outlines every BatchNormalization of mobilenet_v2's training export",
          "[onnx][partition]") {
  // The origin case's pattern (apache/tvm#5928) on its shape: each batch norm has five outputs
  // and the next op reads output 0.
  LoadedOnnx loaded = load_path(kOnnxData / "mobilenet_v2.train.external.onnx");
  const std::size_t bn0 = corpus_counts()["mobilenet_v2.train.external.onnx"]["motifs"]["bn0"];
  REQUIRE(bn0 == 52);
  Pattern pattern = pattern_of("is_tuple_get_item(is_op('BatchNormalization')(None), 0)");
  for (bool merge_duplicates_first : {false, true}) {
    CAPTURE(merge_duplicates_first);
    auto result = graphpat::partition(pattern, loaded.module,
                                      {.merge_duplicates_first = merge_duplicates_first});
    CHECK(result.report.accepted == bn0);
    CHECK(result.report.rejected.empty());
    CHECK(result.report.duplicated.empty());
    CHECK(graphpat::verify(result.module.graph).ok());
    // The function attribute comes from the dialect's conventions (graphpat's default key);
    // its value is TVM's PartitionedFromPattern spelling: the op, then each TupleGetItem.
    CHECK(functions_by(result.module, "graphpat.partitioned_from") ==
          std::map<std::string, std::size_t>{{"BatchNormalization_TupleGetItem0_", bn0}});
    // Inlined back: the input, or what CSE made of it when partition merged duplicates first.
    CHECK_FALSE(graphpat::structural_equal(result.module, loaded.module));
    graphpat::onnx::Module inlined = graphpat::testing::inline_function_calls(result.module);
    if (merge_duplicates_first) {
      CHECK(result.report.cse.merged == 68);  // as the CSE test's value numbering counts
      CHECK(graphpat::structural_equal(inlined,
                                       graphpat::eliminate_common_subexpr(loaded.module).module));
    } else {
      CHECK(graphpat::structural_equal(inlined, loaded.module));
    }
  }
}

TEST_CASE("merge_composite fuses resnet18's conv/add/relu and gemm, and inlines back",
          "[onnx][merge_composite]") {
  LoadedOnnx loaded = load_path(kOnnxData / "resnet18.external.onnx");
  const nlohmann::json motifs = corpus_counts()["resnet18.external.onnx"]["motifs"];
  std::vector<graphpat::CompositePattern<graphpat::onnx::Dialect>> table = {
      {.name = "conv_add_relu",
       .pattern = pattern_of("is_op('Relu')(is_op('Add')(is_op('Conv')(None), wildcard()))")},
      {.name = "conv_relu", .pattern = pattern_of("is_op('Relu')(is_op('Conv')(None))")},
      {.name = "gemm", .pattern = pattern_of("is_op('Gemm')(None)")},
  };
  // The three motifs claim disjoint nodes: a Relu reads a Conv or an Add, and the Conv under an
  // Add is read by that Add alone (torchvision's BasicBlock).
  const std::map<std::string, std::size_t> expected = {{"conv_add_relu", motifs["conv_add_relu"]},
                                                       {"conv_relu", motifs["conv_relu"]},
                                                       {"gemm", motifs["gemm"]}};
  CHECK(expected ==
        std::map<std::string, std::size_t>{{"conv_add_relu", 8}, {"conv_relu", 9}, {"gemm", 1}});
  for (bool merge_duplicates_first : {false, true}) {
    CAPTURE(merge_duplicates_first);
    auto result = graphpat::merge_composite(table, loaded.module,
                                            {.merge_duplicates_first = merge_duplicates_first});
    CHECK(result.report.accepted == 18);
    CHECK(result.report.rejected.empty());
    CHECK(graphpat::verify(result.module.graph).ok());
    CHECK(functions_by(result.module, "graphpat.composite") == expected);
    CHECK_FALSE(graphpat::structural_equal(result.module, loaded.module));
    graphpat::onnx::Module inlined = graphpat::testing::inline_function_calls(result.module);
    if (merge_duplicates_first) {
      CHECK(result.report.cse.merged == 12);  // the duplicated Identity nodes (CSE test)
      CHECK(graphpat::structural_equal(inlined,
                                       graphpat::eliminate_common_subexpr(loaded.module).module));
    } else {
      CHECK(graphpat::structural_equal(inlined, loaded.module));
    }
  }
}

namespace {

/// The call of `graph` that the reader made of the NodeProto named `name` (its span's source).
NodeId call_named(const graphpat::onnx::Graph& graph, std::string_view name) {
  const graphpat::Context& context = graph.context();
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (graph.kind(id) == NodeKind::kCall && graph.span(id).valid() &&
        context.strings.view(context.spans.get(graph.span(id)).source) == name) {
      return id;
    }
  }
  FAIL("no call named " << name);
  return NodeId();
}

}  // namespace

TEST_CASE("explain says why a residual Relu of resnet18 is no conv_relu", "[onnx][explain]") {
  LoadedOnnx loaded = load_path(kOnnxData / "resnet18.external.onnx");
  const onnx::GraphProto& proto = loaded.provenance.model().graph();
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const onnx::NodeProto& node : proto.node()) {
    for (const std::string& output : node.output()) producer[output] = &node;
  }
  const onnx::NodeProto* relu = nullptr;  // the first Relu that reads an Add
  for (const onnx::NodeProto& node : proto.node()) {
    if (node.op_type() == "Relu" && producer[node.input(0)]->op_type() == "Add") {
      relu = &node;
      break;
    }
  }
  REQUIRE(relu != nullptr);
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  NodeId relu_id = call_named(graph, relu->name());
  NodeId add_id = call_named(graph, producer[relu->input(0)]->name());
  REQUIRE(graph.args(relu_id)[0] == add_id);
  Pattern conv_relu = pattern_of("is_op('Relu')(is_op('Conv')(None))");
  CHECK(graphpat::explain(conv_relu, graph, relu_id) ==
        fmt::format("expected op Conv, got Add; in operand 0 of %{} = Relu(...)", relu_id.index()));
  // At the root itself there is no path to name.
  CHECK(graphpat::explain(conv_relu, graph, add_id) == "expected op Relu, got Add");
  CHECK(graphpat::explain(pattern_of("is_op('Relu')(is_op('Add')(is_op('Conv')(None), "
                                     "wildcard()))"),
                          graph, relu_id) == "matched");
}

namespace {

/// docs/semantics.md §3.9 worked over the protobuf, for a child, parent and path that are each
/// a set of ops: the names of the nodes of op `child` where each input read from a node is the
/// one parent (the first met binds it) or a path node whose inputs in turn are (graph inputs
/// and initializers, Vars and Constants, are not checked, and each node walked must have one
/// input checked, tvm#15473); and the child post-dominates the
/// parent, which here is: every reader of the parent and of the path nodes walked is walked,
/// and none of them is a graph output.
std::set<std::string> dominator_matches(const onnx::GraphProto& proto, std::string_view child,
                                        std::string_view parent_op,
                                        const std::set<std::string>& path_ops) {
  std::map<std::string, const onnx::NodeProto*> producer;
  std::map<std::string, std::vector<const onnx::NodeProto*>> readers;
  std::set<std::string> outputs;
  for (const onnx::ValueInfoProto& output : proto.output()) outputs.insert(output.name());
  for (const onnx::NodeProto& node : proto.node()) {
    for (const std::string& output : node.output()) producer[output] = &node;
    for (const std::string& input : node.input()) readers[input].push_back(&node);
  }
  std::set<std::string> matches;
  for (const onnx::NodeProto& root : proto.node()) {
    if (root.op_type() != child) continue;
    const onnx::NodeProto* parent = nullptr;
    std::set<const onnx::NodeProto*> walked = {&root};
    std::vector<const onnx::NodeProto*> work = {&root};
    bool ok = true;
    while (ok && !work.empty()) {
      const onnx::NodeProto* node = work.back();
      work.pop_back();
      bool checked = false;
      for (const std::string& input : node->input()) {
        if (!producer.count(input)) continue;
        checked = true;
        const onnx::NodeProto* from = producer[input];
        if (from->op_type() == parent_op && (parent == nullptr || parent == from)) {
          parent = from;
        } else if (path_ops.count(from->op_type())) {
          if (walked.insert(from).second) work.push_back(from);
        } else {
          ok = false;
        }
      }
      ok &= checked;
    }
    if (!ok || parent == nullptr) continue;
    bool post_dominated = true;
    walked.insert(parent);
    for (const onnx::NodeProto* node : walked) {
      if (node == &root) continue;
      for (const std::string& output : node->output()) {
        post_dominated &= !outputs.count(output);
        for (const onnx::NodeProto* reader : readers[output]) {
          post_dominated &= walked.count(reader) > 0;
        }
      }
    }
    if (post_dominated) matches.insert(root.name());
  }
  return matches;
}

}  // namespace

TEST_CASE("dominator patterns on resnet18 find what the rule worked over the protobuf finds",
          "[onnx][dominator]") {
  LoadedOnnx loaded = load_path(kOnnxData / "resnet18.external.onnx");
  const onnx::GraphProto& proto = loaded.provenance.model().graph();
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  const graphpat::Context& context = graph.context();
  auto found = [&](std::string_view text) {
    std::set<std::string> names;
    for (const graphpat::Match& match :
         graphpat::find_matches(pattern_of(text), graph, main_of(loaded.module))) {
      names.insert(
          std::string(context.strings.view(context.spans.get(graph.span(match.root())).source)));
    }
    return names;
  };
  SECTION("a Conv dominating a Relu through Adds: only the Relus reading a Conv") {
    // A residual Relu's Add also reads the block's input (a Relu, the MaxPool, or the
    // downsample Conv, another Conv than the first met): none of the 8 matches.
    std::set<std::string> expected = dominator_matches(proto, "Relu", "Conv", {"Add"});
    CHECK(expected.size() == 9);
    CHECK(found("is_op('Relu')(None).dominates(is_op('Conv')(None), is_op('Add')(None))") ==
          expected);
  }
  SECTION("the MaxPool dominating every residual Add, in the training export") {
    // Each block's two branches meet at its Add, and every path from the MaxPool to the output
    // passes each Add: all 8 match. The path reads each batch norm's output 0.
    LoadedOnnx train = load_path(kOnnxData / "resnet18.train.external.onnx");
    std::set<std::string> expected =
        dominator_matches(train.provenance.model().graph(), "Add", "MaxPool",
                          {"Conv", "Relu", "Add", "BatchNormalization"});
    CHECK(expected.size() == 8);
    const graphpat::onnx::Graph& train_graph = train.module.graph;
    std::set<std::string> names;
    Pattern pattern = pattern_of(
        "path = is_op('Conv')(None) | is_op('Relu')(None) | is_op('Add')(None) | "
        "is_op('BatchNormalization')(None) | is_tuple_get_item(wildcard(), 0)\n"
        "is_op('Add')(None).dominates(is_op('MaxPool')(None), path)");
    for (const graphpat::Match& match :
         graphpat::find_matches(pattern, train_graph, main_of(train.module))) {
      const graphpat::Context& train_context = train_graph.context();
      names.insert(std::string(train_context.strings.view(
          train_context.spans.get(train_graph.span(match.root())).source)));
    }
    CHECK(names == expected);
  }
  SECTION("in the eval export the walk meets an Identity of an initializer: no match") {
    // torch writes the shared conv biases of layers 1-4 as Identity nodes of one initializer:
    // an Identity on the path has no input to check, which fails the walk (tvm#15473).
    std::set<std::string> expected =
        dominator_matches(proto, "Add", "MaxPool", {"Conv", "Relu", "Add", "Identity"});
    CHECK(expected.empty());
    const char* text =
        "path = is_op('Conv')(None) | is_op('Relu')(None) | is_op('Add')(None) | "
        "is_op('Identity')(None)\n"
        "is_op('Add')(None).dominates(is_op('MaxPool')(None), path)";
    CHECK(found(text).empty());
    // The first block: its Add reads conv2(relu(conv1(maxpool))), conv1's bias an Identity.
    NodeId add = call_named(graph, "/layer1/layer1.0/Add");
    NodeId conv2 = graph.args(add)[0];
    NodeId relu = graph.args(conv2)[0];
    NodeId conv1 = graph.args(relu)[0];
    NodeId identity = graph.args(conv1)[2];
    auto op = [&](NodeId id) { return std::string(context.op_name(graph.called_op(id))); };
    REQUIRE(std::vector<std::string>{op(conv2), op(relu), op(conv1), op(identity)} ==
            std::vector<std::string>{"Conv", "Relu", "Conv", "Identity"});
    CHECK(graphpat::explain(pattern_of(text), graph, add) ==
          fmt::format("%{} = Identity(...) has no input on a dominator path; on the dominator "
                      "path at operand 2 of %{} = Conv(...); on the dominator path at operand 0 "
                      "of %{} = Relu(...); on the dominator path at operand 0 of %{} = Conv(...); "
                      "on the dominator path at operand 0 of %{} = Add(...)",
                      identity.index(), conv1.index(), relu.index(), conv2.index(), add.index()));
  }
}

namespace {

/// The one float a `Constant` node holds (its `value` tensor, in float_data or raw_data), or
/// nullopt for any other node.
std::optional<float> constant_float(const graphpat::onnx::Graph& graph,
                                    const graphpat::AttrTable& attrs, NodeId node) {
  if (graph.kind(node) != NodeKind::kCall || !graph.attrs(node).valid()) return std::nullopt;
  std::optional<graphpat::AttrValueId> value = attrs.find_field(graph.attrs(node), "value");
  if (!value) return std::nullopt;
  std::optional<graphpat::AttrValueId> proto = attrs.find_field(*value, "proto");
  onnx::TensorProto tensor;
  if (!proto || !tensor.ParseFromString(std::string(attrs.text(*proto))) ||
      tensor.data_type() != onnx::TensorProto::FLOAT) {
    return std::nullopt;
  }
  float number = 0;
  if (tensor.float_data_size() == 1) return tensor.float_data(0);
  if (tensor.raw_data().size() != sizeof(float)) return std::nullopt;
  std::memcpy(&number, tensor.raw_data().data(), sizeof(float));
  return number;
}

/// A callback that fuses the decomposition ONNX 1.12's LayerNormalization function body writes
/// (onnx/defs/nn/defs.cc; the `*_expanded` test models are it inlined) back into one
/// LayerNormalization node read through its three outputs, as the fused test models are. The
/// pattern is the whole body, rooted at the graph's output tuple (Y, Mean, InvStdDev): its
/// values are the three outputs, so no single output is the root.
graphpat::RewriteCallback<graphpat::onnx::Dialect> layer_norm_fusion() {
  using namespace graphpat::dsl;
  Pattern x = wildcard(), w = wildcard(), b = wildcard();
  Pattern epsilon = is_op("Constant")(any_args);
  Pattern axis_1d = is_op("Constant")(any_args);
  Pattern shape = is_op("Shape")(x);
  Pattern prefix = is_op("Slice")(shape, is_op("Constant")(any_args), axis_1d);
  // The number of reduced axes: rank - axis, or -axis for a negative axis.
  Pattern suffix =
      is_op("ConstantOfShape")(is_op("Sub")(is_op("Size")(shape), axis_1d) | is_op("Neg")(axis_1d));
  Pattern reduced_shape = is_op("Concat")(prefix, suffix);
  Pattern flatten = is_op("Flatten")(x);
  Pattern xu = is_op("Cast")(flatten);
  Pattern mean = is_op("ReduceMean")(xu);
  Pattern variance =
      is_op("Sub")(is_op("ReduceMean")(is_op("Mul")(xu, xu)), is_op("Mul")(mean, mean));
  Pattern std_dev = is_op("Sqrt")(is_op("Add")(variance, is_op("Cast")(epsilon)));
  Pattern normalized = is_op("Cast")(is_op("Div")(is_op("Sub")(xu, mean), std_dev));
  Pattern y = is_op("Reshape")(
      is_op("Add")(is_op("Mul")(normalized, is_op("Flatten")(w)), is_op("Flatten")(b)), shape);
  Pattern body = is_tuple({y, is_op("Reshape")(mean, reduced_shape),
                           is_op("Reshape")(is_op("Reciprocal")(std_dev), reduced_shape)});
  auto rewrite = [=](NodeId, NodeId post, const graphpat::RewriteBindings& bound,
                     graphpat::Rewriter<graphpat::onnx::Dialect>& rewriter) {
    const graphpat::onnx::Graph& graph = rewriter.graph();
    graphpat::AttrTable& attrs = rewriter.attrs();
    // axis: the Flatten of X's; epsilon: the Constant's one-float tensor.
    std::optional<graphpat::AttrValueId> axis =
        attrs.find_field(graph.attrs(bound.bound(flatten)), "axis");
    std::optional<float> epsilon_value = constant_float(graph, attrs, bound.bound(epsilon));
    if (!axis || !epsilon_value) return post;
    // The attributes that differ from the schema's defaults (axis -1, epsilon 1e-05), in the
    // schema's order: a value equal to its default may have been written or not, which the
    // decomposition does not say.
    std::vector<graphpat::AttrField> fields;
    if (attrs.as_int(*axis) != -1) {
      fields.push_back(
          {graph.context().strings.intern("axis"), attrs.integer(attrs.as_int(*axis), 64)});
    }
    if (*epsilon_value != 1e-05f) {
      fields.push_back(
          {graph.context().strings.intern("epsilon"), attrs.floating(*epsilon_value, 32)});
    }
    graphpat::onnx::Builder& builder = rewriter.builder();
    graphpat::CallOptions options{.fresh = true};
    if (!fields.empty()) options.attrs = attrs.object("LayerNormalization", fields);
    NodeId fused = builder.call("LayerNormalization",
                                {bound.bound(x), bound.bound(w), bound.bound(b)}, options);
    return builder.tuple({builder.tuple_get_item(fused, 0), builder.tuple_get_item(fused, 1),
                          builder.tuple_get_item(fused, 2)});
  };
  return {.name = "layer_norm", .pattern = body, .rewrite = rewrite};
}

}  // namespace

namespace {

/// The softmax ops of opset 13 as their function bodies write them (onnx/defs/math/defs.cc;
/// the `test_softmax_*_expanded` and `test_logsoftmax_*_expanded` models), fused back into
/// one node: Softmax is exp / sum(exp), LogSoftmax is (x - max) - log(sum(exp)), both with
/// exp = Exp(x - ReduceMax(x)) over the op's axis.
std::vector<graphpat::RewriteCallback<graphpat::onnx::Dialect>> softmax_fusions() {
  using namespace graphpat::dsl;
  Pattern x = wildcard();
  Pattern reduce_max = is_op("ReduceMax")(x);
  Pattern shifted = is_op("Sub")(x, reduce_max);
  Pattern exp = is_op("Exp")(shifted);
  Pattern sum = is_op("ReduceSum")(exp, is_op("Constant")(any_args));
  auto fuse = [=](std::string op) {
    return [=](NodeId, NodeId post, const graphpat::RewriteBindings& bound,
               graphpat::Rewriter<graphpat::onnx::Dialect>& rewriter) {
      const graphpat::onnx::Graph& graph = rewriter.graph();
      graphpat::AttrTable& attrs = rewriter.attrs();
      std::optional<graphpat::AttrValueId> axes =
          attrs.find_field(graph.attrs(bound.bound(reduce_max)), "axes");
      if (!axes || attrs.elements(*axes).size() != 1) return post;
      std::int64_t axis = attrs.as_int(attrs.elements(*axes)[0]);
      // The axis when it is not the default (-1); see layer_norm_fusion.
      graphpat::CallOptions options{.fresh = true};
      if (axis != -1) {
        options.attrs = attrs.object(op, {{"axis", attrs.integer(axis, 64)}});
      }
      return rewriter.builder().call(op, {bound.bound(x)}, options);
    };
  };
  return {{.name = "softmax", .pattern = is_op("Div")(exp, sum), .rewrite = fuse("Softmax")},
          {.name = "log_softmax",
           .pattern = is_op("Sub")(shifted, is_op("Log")(sum)),
           .rewrite = fuse("LogSoftmax")}};
}

/// Rewrites each `<test>_expanded` model of libonnx-testdata whose name starts with `prefix`
/// with `callbacks` (one rewrite each, verified), and compares it with the fused `<test>`
/// structurally, value names aside (variables pair by position; types are not compared).
/// Returns how the models that differ differ, by test name; `tests` counts them all.
std::map<std::string, std::string> refusion_differences(
    const std::vector<graphpat::RewriteCallback<graphpat::onnx::Dialect>>& callbacks,
    std::string_view prefix, std::size_t& tests) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(kOnnxTestdata / "node")) {
    std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with("_expanded")) {
      names.push_back(name.substr(0, name.size() - std::string_view("_expanded").size()));
    }
  }
  std::sort(names.begin(), names.end());
  tests = names.size();
  std::map<std::string, std::string> differences;
  for (const std::string& test : names) {
    INFO(test);
    LoadedOnnx expanded = load_path(kOnnxTestdata / "node" / (test + "_expanded") / "model.onnx");
    LoadedOnnx fused = load_path(kOnnxTestdata / "node" / test / "model.onnx");
    REQUIRE(fused.provenance.model().graph().node_size() == 1);
    auto result = graphpat::rewrite(callbacks, expanded.module);
    CHECK(result.converged);
    CHECK(result.rewrites == 1);
    CHECK(graphpat::verify(result.module.graph).ok());
    std::optional<graphpat::Difference> difference = graphpat::first_difference(
        result.module.graph, main_of(result.module), fused.module.graph, main_of(fused.module));
    if (difference) differences[test] = difference->reason;
  }
  return differences;
}

}  // namespace

TEST_CASE("a rewrite re-fuses test_layer_normalization_*_expanded into its fused twin",
          "[onnx][rewrite]") {
  std::size_t tests = 0;
  std::map<std::string, std::string> differences =
      refusion_differences({layer_norm_fusion()}, "test_layer_normalization_", tests);
  CHECK(tests == 19);
  // All but the twins whose generator passed axis=-1 explicitly: their expansions are the same
  // as default_axis's, which writes no axis, so no rewrite can tell them apart.
  CHECK(differences ==
        std::map<std::string, std::string>{
            {"test_layer_normalization_2d_axis_negative_1", "attrs none vs {axis=-1i64}"},
            {"test_layer_normalization_3d_axis_negative_1_epsilon",
             "attrs {epsilon=0.1f} vs {axis=-1i64, epsilon=0.1f}"},
            {"test_layer_normalization_4d_axis_negative_1", "attrs none vs {axis=-1i64}"}});
}

TEST_CASE("a rewrite re-fuses test_softmax_* and test_logsoftmax_*_expanded into their twins",
          "[onnx][rewrite]") {
  for (std::string_view op : {"softmax", "logsoftmax"}) {
    CAPTURE(op);
    std::size_t tests = 0;
    std::map<std::string, std::string> differences =
        refusion_differences(softmax_fusions(), fmt::format("test_{}_", op), tests);
    CHECK(tests == 7);
    // As for LayerNormalization: negative_axis's twin writes axis=-1, default_axis's (the
    // same expansion) does not.
    CHECK(differences ==
          std::map<std::string, std::string>{
              {fmt::format("test_{}_negative_axis", op), "attrs none vs {axis=-1i64}"}});
  }
}

namespace {

/// torch's opset-13 LayerNorm and GELU decompositions as composites: LayerNorm as (x - mean) /
/// sqrt(mean((x - mean)^2) + eps) * weight + bias, GELU as x * (erf(x / sqrt(2)) + 1) * 0.5.
std::vector<graphpat::CompositePattern<graphpat::onnx::Dialect>> bert_composites() {
  return {
      {.name = "layer_norm", .pattern = pattern_of(R"(
           x = wildcard()
           centered = is_op('Sub')(x, is_op('ReduceMean')(x))
           variance = is_op('ReduceMean')(is_op('Pow')(centered, wildcard()))
           normalized = is_op('Div')(centered, is_op('Sqrt')(is_op('Add')(variance, wildcard())))
           is_op('Add')(is_op('Mul')(normalized, wildcard()), wildcard()))")},
      {.name = "gelu", .pattern = pattern_of(R"(
           x = wildcard()
           erf = is_op('Erf')(is_op('Div')(x, wildcard()))
           is_op('Mul')(is_op('Mul')(x, is_op('Add')(erf, wildcard())), wildcard()))")},
  };
}

/// torch's opset-13 LayerNorm over the last axis, (x - mean) / sqrt(mean((x - mean)^2) + eps)
/// * weight + bias, fused into one LayerNormalization node (opset 17; axis -1 its default):
/// only when both means are over axis -1 alone and the exponent is the constant 2; epsilon is
/// the decomposition's Constant, written when it is not the default 1e-05.
graphpat::RewriteCallback<graphpat::onnx::Dialect> torch_layer_norm_fusion() {
  using namespace graphpat::dsl;
  Pattern x = wildcard(), weight = wildcard(), bias = wildcard();
  Pattern exponent = is_op("Constant")(any_args), epsilon = is_op("Constant")(any_args);
  Pattern mean = is_op("ReduceMean")(x);
  Pattern centered = is_op("Sub")(x, mean);
  Pattern variance = is_op("ReduceMean")(is_op("Pow")(centered, exponent));
  Pattern normalized = is_op("Div")(centered, is_op("Sqrt")(is_op("Add")(variance, epsilon)));
  Pattern root = is_op("Add")(is_op("Mul")(normalized, weight), bias);
  auto rewrite = [=](NodeId, NodeId post, const graphpat::RewriteBindings& bound,
                     graphpat::Rewriter<graphpat::onnx::Dialect>& rewriter) {
    const graphpat::onnx::Graph& graph = rewriter.graph();
    graphpat::AttrTable& attrs = rewriter.attrs();
    auto over_last_axis = [&](NodeId reduce) {
      std::optional<graphpat::AttrValueId> axes = attrs.find_field(graph.attrs(reduce), "axes");
      return axes && attrs.elements(*axes).size() == 1 &&
             attrs.as_int(attrs.elements(*axes)[0]) == -1;
    };
    std::optional<float> power = constant_float(graph, attrs, bound.bound(exponent));
    std::optional<float> epsilon_value = constant_float(graph, attrs, bound.bound(epsilon));
    if (!over_last_axis(bound.bound(mean)) || !over_last_axis(bound.bound(variance)) ||
        power != 2.0f || !epsilon_value) {
      return post;
    }
    // Y has the type of the Add it replaces (a graph output needs one: ONNX's checker).
    graphpat::CallOptions options{.type = graph.type(post), .fresh = true};
    if (*epsilon_value != 1e-05f) {
      std::vector<graphpat::AttrField> fields = {
          {graph.context().strings.intern("epsilon"), attrs.floating(*epsilon_value, 32)}};
      options.attrs = attrs.object("LayerNormalization", fields);
    }
    return rewriter.builder().call(
        "LayerNormalization", {bound.bound(x), bound.bound(weight), bound.bound(bias)}, options);
  };
  return {.name = "torch_layer_norm", .pattern = root, .rewrite = rewrite};
}

}  // namespace

TEST_CASE("merge_composite finds bert_gelu_opset13's 8 LayerNorms and 4 GELUs",
          "[onnx][merge_composite]") {
  // torch's opset-13 export writes LayerNorm as (x - mean) / sqrt(mean((x - mean)^2) + eps)
  // * weight + bias and GELU as x * (erf(x / sqrt(2)) + 1) * 0.5: one Sqrt per LayerNorm and
  // one Erf per GELU, and no other.
  LoadedOnnx loaded = load_path(kOnnxData / "bert_gelu_opset13.onnx");
  std::map<std::string, std::size_t> ops;
  for (const onnx::NodeProto& node : loaded.provenance.model().graph().node())
    ++ops[node.op_type()];
  CHECK(ops["Sqrt"] == 8);
  CHECK(ops["Erf"] == 4);
  auto result = graphpat::merge_composite(bert_composites(), loaded.module);
  CHECK(result.report.accepted == 12);
  CHECK(result.report.rejected.empty());
  CHECK(graphpat::verify(result.module.graph).ok());
  CHECK(functions_by(result.module, "graphpat.composite") ==
        std::map<std::string, std::size_t>{{"gelu", 4}, {"layer_norm", 8}});
  // Inlined back: what CSE makes of the input (merge_composite merges duplicates first).
  CHECK(graphpat::structural_equal(graphpat::testing::inline_function_calls(result.module),
                                   graphpat::eliminate_common_subexpr(loaded.module).module));
}

namespace {

/// What onnx::save wrote, which the test requires to be a ModelProto.
onnx::ModelProto parsed(const absl::StatusOr<std::string>& saved) {
  REQUIRE(saved.ok());
  onnx::ModelProto model;
  REQUIRE(model.ParseFromString(*saved));
  return model;
}

template <class Field>
std::vector<std::string> strings(const Field& field) {
  return {field.begin(), field.end()};
}

/// The model's nodes by name (names the test requires to be unique).
std::map<std::string, const onnx::NodeProto*> nodes_by_name(const onnx::GraphProto& graph) {
  std::map<std::string, const onnx::NodeProto*> nodes;
  for (const onnx::NodeProto& node : graph.node()) {
    INFO(node.name());
    REQUIRE(nodes.emplace(node.name(), &node).second);
  }
  return nodes;
}

/// The version at which `model` imports `domain`, or -1.
std::int64_t imported(const onnx::ModelProto& model, std::string_view domain) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (opset.domain() == domain) return opset.version();
  }
  return -1;
}

}  // namespace

TEST_CASE("partition's groups are written as a model-local function, checked and read back",
          "[onnx][partition][functions]") {
  LoadedOnnx loaded = load_path(kOnnxData / "mobilenet_v2.train.external.onnx");
  auto result =
      graphpat::partition(pattern_of("is_tuple_get_item(is_op('BatchNormalization')(None), 0)"),
                          loaded.module, {.merge_duplicates_first = false});
  REQUIRE(result.report.accepted == 52);
  absl::StatusOr<std::string> saved = graphpat::onnx::save(result.module, loaded.provenance);
  onnx::ModelProto written = parsed(saved);
  CHECK(graphpat::testing::checker_problem(written) == "");
  CHECK(imported(written, "graphpat") == 1);
  // Every group has one body (the batch norms share their attributes), so one function: the
  // batch norm of five outputs, the function's output its output 0.
  REQUIRE(written.functions_size() == 1);
  const onnx::FunctionProto& function = written.functions(0);
  CHECK(function.domain() == "graphpat");
  CHECK(function.name() == "BatchNormalization_TupleGetItem0_");
  CHECK(strings(function.input()) == std::vector<std::string>{"x0", "x1", "x2", "x3", "x4"});
  CHECK(strings(function.output()) == std::vector<std::string>{"v0"});
  REQUIRE(function.node_size() == 1);
  const onnx::NodeProto& batch_norm = function.node(0);
  CHECK(batch_norm.op_type() == "BatchNormalization");
  CHECK(strings(batch_norm.input()) == strings(function.input()));
  CHECK(strings(batch_norm.output()) == std::vector<std::string>{"v0", "v1", "v2", "v3", "v4"});
  CHECK(function.opset_import().size() == written.opset_import().size());

  // Main: each batch norm is a call of the function of its name, its inputs and its output 0;
  // every other node is the file's own.
  const onnx::GraphProto& original = loaded.provenance.model().graph();
  std::map<std::string, const onnx::NodeProto*> calls = nodes_by_name(written.graph());
  REQUIRE(written.graph().node_size() == original.node_size());
  std::size_t called = 0;
  for (const onnx::NodeProto& node : original.node()) {
    INFO(node.name());
    REQUIRE(calls.contains(node.name()));
    const onnx::NodeProto& call = *calls.at(node.name());
    if (node.op_type() != "BatchNormalization") {
      CHECK(call.SerializeAsString() == node.SerializeAsString());
      continue;
    }
    CHECK(call.attribute_size() == 0);
    CHECK(batch_norm.attribute().size() == node.attribute().size());
    CHECK(call.domain() == "graphpat");
    CHECK(call.op_type() == "BatchNormalization_TupleGetItem0_");
    CHECK(strings(call.input()) == strings(node.input()));
    CHECK(strings(call.output()) == std::vector<std::string>{node.output(0)});
    ++called;
  }
  CHECK(called == 52);

  // Read back: module function graphpat.BatchNormalization_TupleGetItem0_, whose calls inline
  // to the input; saved again, the same bytes.
  LoadedOnnx again = graphpat::testing::load_bytes(*saved);
  CHECK(again.module.find("graphpat.BatchNormalization_TupleGetItem0_").has_value());
  CHECK(graphpat::structural_equal(graphpat::testing::inline_module_functions(again.module),
                                   loaded.module));
  CHECK(graphpat::onnx::save(again) == saved);

  // Drawn: each call a cluster of the function's body when the picture asks for it, else a
  // box naming the function.
  const std::string function_name = "graphpat.BatchNormalization_TupleGetItem0_";
  absl::StatusOr<std::string> clusters = graphpat::onnx::to_dot(
      again.module,
      {.cluster_partitioned_functions = true, .clustered_functions = {function_name}});
  REQUIRE(clusters.ok());
  CHECK(count_of(*clusters, "subgraph cluster_") == 52);
  CHECK(count_of(*clusters, fmt::format("label=\"{}\";", function_name)) == 52);
  CHECK(count_of(*clusters, R"([label="BatchNormalization\n)") == 52);
  absl::StatusOr<std::string> boxes = graphpat::onnx::to_dot(again.module);
  REQUIRE(boxes.ok());
  CHECK(count_of(*boxes, "subgraph cluster_") == 0);
  CHECK(count_of(*boxes, fmt::format("[label=\"@{}", function_name)) == 52);
  // Each call draws the body again: 51 bodies beyond the first, bounded by max_redrawn_nodes.
  absl::StatusOr<std::string> bounded =
      graphpat::onnx::to_dot(again.module, {.cluster_partitioned_functions = true,
                                            .clustered_functions = {function_name},
                                            .max_redrawn_nodes = 50});
  REQUIRE_FALSE(bounded.ok());
  CHECK(graphpat::testing::message(bounded.status()) ==
        "[graphpat.dot.too_large] @main: drawing each call of a function as a cluster of its "
        "body draws more than 50 nodes again (DotOptions::max_redrawn_nodes)");
}

TEST_CASE("bert_gelu_opset13's LayerNorm and GELU composites are written as two functions",
          "[onnx][merge_composite][functions]") {
  LoadedOnnx loaded = load_path(kOnnxData / "bert_gelu_opset13.onnx");
  auto result = graphpat::merge_composite(bert_composites(), loaded.module);
  REQUIRE(result.report.accepted == 12);
  absl::StatusOr<std::string> saved = graphpat::onnx::save(result.module, loaded.provenance);
  onnx::ModelProto written = parsed(saved);
  CHECK(graphpat::testing::checker_problem(written) == "");
  // One function per composite, its nodes the pattern's in order, its inputs the wildcards'.
  std::map<std::string, std::vector<std::string>> functions;
  std::map<std::string, std::size_t> inputs;
  for (const onnx::FunctionProto& function : written.functions()) {
    CHECK(function.domain() == "graphpat");
    std::vector<std::string>& ops = functions[function.name()];
    for (const onnx::NodeProto& node : function.node()) ops.push_back(node.op_type());
    inputs[function.name()] = static_cast<std::size_t>(function.input_size());
  }
  CHECK(functions ==
        std::map<std::string, std::vector<std::string>>{
            {"gelu", {"Div", "Erf", "Add", "Mul", "Mul"}},
            {"layer_norm",
             {"ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt", "Div", "Mul", "Add"}}});
  // x, the divisor, the one, the half; x, the exponent, epsilon, weight and bias.
  CHECK(inputs == std::map<std::string, std::size_t>{{"gelu", 4}, {"layer_norm", 5}});
  std::map<std::string, std::size_t> calls;
  for (const onnx::NodeProto& node : written.graph().node()) {
    if (node.domain() == "graphpat") ++calls[node.op_type()];
  }
  CHECK(calls == std::map<std::string, std::size_t>{{"gelu", 4}, {"layer_norm", 8}});
  LoadedOnnx again = graphpat::testing::load_bytes(*saved);
  CHECK(graphpat::structural_equal(graphpat::testing::inline_module_functions(again.module),
                                   graphpat::eliminate_common_subexpr(loaded.module).module));
}

TEST_CASE("bert_gelu_opset13: LayerNormalization for its 8 LayerNorms, a composite for its 4 GELUs",
          "[onnx][rewrite][functions]") {
  LoadedOnnx loaded = load_path(kOnnxData / "bert_gelu_opset13.onnx");
  auto fused = graphpat::rewrite({torch_layer_norm_fusion()}, loaded.module);
  CHECK(fused.converged);
  CHECK(fused.rewrites == 8);
  REQUIRE(graphpat::verify(fused.module.graph).ok());
  auto result = graphpat::merge_composite({bert_composites()[1]}, fused.module);
  CHECK(result.report.accepted == 4);
  REQUIRE(graphpat::verify(result.module.graph).ok());
  // LayerNormalization is of opset 17, the export of opset 13: the model written imports 17
  // (what a user of this rewrite does), and passes the checker with strict shape inference.
  onnx::ModelProto written = parsed(graphpat::onnx::save(result.module, loaded.provenance));
  for (onnx::OperatorSetIdProto& opset : *written.mutable_opset_import()) {
    if (opset.domain().empty()) opset.set_version(17);
  }
  CHECK(graphpat::testing::checker_problem(written) == "");
  // Each LayerNormalization reads what a LayerNorm of the file read, worked out over the
  // protobuf: x (the first ReduceMean's input), the weight (the Mul's) and the bias (the last
  // Add's), torch naming a LayerNorm's nodes /layers.N/normK/<Op>. torch gives layers with
  // equal weights one initializer read through an Identity each, which merge_composite merges
  // first: names are compared as the values they copy, through Identity nodes.
  std::map<std::string, std::string> copied;
  for (const onnx::NodeProto& node : loaded.provenance.model().graph().node()) {
    if (node.op_type() == "Identity") copied[node.output(0)] = node.input(0);
  }
  auto source = [&](std::string name) {
    while (copied.contains(name)) name = copied.at(name);
    return name;
  };
  auto sources = [&](std::vector<std::string> names) {
    for (std::string& name : names) name = source(name);
    return names;
  };
  std::set<std::vector<std::string>> expected;
  std::map<std::string, std::vector<std::string>> by_norm;
  const std::regex norm_node("(/layers\\.[0-9]+/norm[0-9])/(ReduceMean|Mul|Add_1)");
  for (const onnx::NodeProto& node : loaded.provenance.model().graph().node()) {
    std::smatch match;
    if (!std::regex_match(node.name(), match, norm_node)) continue;
    std::vector<std::string>& inputs = by_norm[match[1]];
    inputs.resize(3);
    std::string op = match[2];
    inputs[op == "ReduceMean" ? 0 : op == "Mul" ? 1 : 2] = node.input(op == "ReduceMean" ? 0 : 1);
  }
  for (const auto& [norm, inputs] : by_norm) expected.insert(sources(inputs));
  REQUIRE(by_norm.size() == 8);
  std::set<std::vector<std::string>> fused_inputs;
  std::map<std::string, std::size_t> ops;
  for (const onnx::NodeProto& node : written.graph().node()) {
    ++ops[node.domain().empty() ? node.op_type() : node.domain() + "." + node.op_type()];
    if (node.op_type() != "LayerNormalization") continue;
    CHECK(node.attribute_size() == 0);  // torch's eps is the default 1e-05
    CHECK(node.output_size() == 1);
    fused_inputs.insert(sources(strings(node.input())));
  }
  CHECK(fused_inputs == expected);
  CHECK(ops["LayerNormalization"] == 8);
  CHECK(ops["graphpat.gelu"] == 4);
  for (std::string_view gone : {"Sqrt", "Pow", "ReduceMean", "Erf"}) {
    CAPTURE(gone);
    CHECK(ops[std::string(gone)] == 0);
  }
}

TEST_CASE("a group's constants are passed to its function, one function per distinct body",
          "[onnx][merge_composite][functions]") {
  // Conv's weight and bias are initializers matched by is_constant(): they stay initializers of
  // main (external data stays a reference), passed to the function after the group's input.
  LoadedOnnx loaded = load_path(kOnnxData / "resnet18.external.onnx");
  std::vector<graphpat::CompositePattern<graphpat::onnx::Dialect>> table = {
      {.name = "conv_relu",
       .pattern =
           pattern_of("is_op('Relu')(is_op('Conv')(wildcard(), is_constant(), is_constant()))")}};
  auto result = graphpat::merge_composite(table, loaded.module, {.merge_duplicates_first = false});
  const onnx::GraphProto& original = loaded.provenance.model().graph();
  // Worked over the protobuf: each Relu reading a Conv whose weight and bias are initializers
  // (torch writes some weights through Identity nodes), and the distinct attribute sets of
  // those Convs (a function's body differs only by its Conv's attributes).
  std::map<std::string, const onnx::NodeProto*> producers;
  for (const onnx::NodeProto& node : original.node()) producers[node.output(0)] = &node;
  std::set<std::string> initializers;
  for (const onnx::TensorProto& tensor : original.initializer()) initializers.insert(tensor.name());
  std::set<std::string> attribute_sets;
  std::vector<std::pair<const onnx::NodeProto*, const onnx::NodeProto*>> pairs;  // (conv, relu)
  for (const onnx::NodeProto& node : original.node()) {
    auto producer = producers.find(node.input_size() > 0 ? node.input(0) : "");
    if (node.op_type() != "Relu" || producer == producers.end() ||
        producer->second->op_type() != "Conv" || producer->second->input_size() != 3 ||
        !initializers.contains(producer->second->input(1)) ||
        !initializers.contains(producer->second->input(2))) {
      continue;
    }
    pairs.emplace_back(producer->second, &node);
    std::string attributes;
    for (const onnx::AttributeProto& attribute : producer->second->attribute())
      attributes += attribute.SerializeAsString();
    attribute_sets.insert(attributes);
  }
  REQUIRE(pairs.size() == 4);
  REQUIRE(result.report.accepted == pairs.size());
  absl::StatusOr<std::string> saved = graphpat::onnx::save(result.module, loaded.provenance);
  onnx::ModelProto written = parsed(saved);
  CHECK(graphpat::testing::checker_problem(written) == "");
  std::set<std::string> names;
  for (const onnx::FunctionProto& function : written.functions()) {
    names.insert(function.name());
    CHECK(strings(function.input()) == std::vector<std::string>{"x0", "x1", "x2"});
    REQUIRE(function.node_size() == 2);
    CHECK(function.node(0).op_type() == "Conv");
    CHECK(function.node(1).op_type() == "Relu");
  }
  std::set<std::string> expected = {"conv_relu"};
  for (std::size_t k = 2; k <= attribute_sets.size(); ++k)
    expected.insert(fmt::format("conv_relu_{}", k));
  CHECK(names == expected);
  // Each call: the Relu's name and output, the Conv's inputs (data, weight, bias).
  std::map<std::string, const onnx::NodeProto*> calls = nodes_by_name(written.graph());
  for (auto [conv, relu] : pairs) {
    INFO(relu->name());
    REQUIRE(calls.contains(relu->name()));
    const onnx::NodeProto& call = *calls.at(relu->name());
    CHECK(call.op_type().starts_with("conv_relu"));
    CHECK(strings(call.input()) == strings(conv->input()));
    CHECK(strings(call.output()) == strings(relu->output()));
  }
  CHECK(written.graph().initializer_size() == original.initializer_size());
  LoadedOnnx again = graphpat::testing::load_bytes(*saved);
  CHECK(graphpat::structural_equal(graphpat::testing::inline_module_functions(again.module),
                                   loaded.module));
}

TEST_CASE("patterns match inside subgraphs, at any depth", "[onnx][pattern][subgraphs]") {
  // Worked over the protobuf: the nodes of each op in main and every subgraph at any depth of
  // ONNX's test models with subgraphs; find_matches from main finds them all, since a
  // subgraph's function is an argument of its node's call.
  std::size_t models = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kOnnxTestdata)) {
    if (entry.path().filename() != "model.onnx") continue;
    LoadedOnnx loaded = load_path(entry.path());
    if (loaded.provenance.origin()->subgraph_functions.empty()) continue;
    INFO(entry.path().string());
    ++models;
    std::map<std::string, std::size_t> expected;
    std::vector<const onnx::GraphProto*> graphs = {&loaded.provenance.model().graph()};
    while (!graphs.empty()) {
      const onnx::GraphProto* graph = graphs.back();
      graphs.pop_back();
      for (const onnx::NodeProto& node : graph->node()) {
        if (node.domain().empty()) ++expected[node.op_type()];
        for (const onnx::AttributeProto& attribute : node.attribute()) {
          if (attribute.has_g()) graphs.push_back(&attribute.g());
        }
      }
    }
    std::map<std::string, std::size_t> found;
    for (const auto& [op, count] : expected) {
      found[op] = count_matches(fmt::format("is_op('{}')(None)", op), loaded.module);
    }
    CHECK(found == expected);
  }
  CHECK(models == 22);
}

TEST_CASE("a graph pattern finds squeezenet1_1's eight fire modules: a Relu forked to a 1x1 "
          "and a 3x3 Conv",
          "[onnx][pattern][graph]") {
  LoadedOnnx loaded = load_path(kOnnxData / "squeezenet1_1.external.onnx");
  // Counted over the protobuf: the Relu outputs read as input 0 by two Conv nodes.
  std::map<std::string, std::size_t> conv_readers;
  std::set<std::string> relu_outputs;
  for (const onnx::NodeProto& node : loaded.provenance.model().graph().node()) {
    if (node.op_type() == "Relu") relu_outputs.insert(node.output(0));
    if (node.op_type() == "Conv") ++conv_readers[node.input(0)];
  }
  std::size_t forks = 0;
  for (const std::string& output : relu_outputs) forks += conv_readers[output] == 2;
  CHECK(forks == 8);  // SqueezeNet 1.1 has eight fire modules

  using namespace graphpat::dsl;
  Pattern squeeze = is_op("Relu")(wildcard());
  Pattern expand1 = is_op("Conv")(squeeze, wildcard(), wildcard())
                        .has_attr({{"kernel_shape", {1, 1}}});
  Pattern expand3 = is_op("Conv")(squeeze, wildcard(), wildcard())
                        .has_attr({{"kernel_shape", {3, 3}}});
  graphpat::PatternContext ctx;
  ctx.fork_to(squeeze, {expand1, expand3});
  absl::StatusOr<std::vector<graphpat::Match>> fires =
      graphpat::find_graph_matches(ctx, loaded.module.graph, main_of(loaded.module));
  REQUIRE(fires.ok());
  REQUIRE(fires->size() == forks);
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  for (const graphpat::Match& fire : *fires) {
    CHECK(graph.args(fire.bound(expand1))[0] == fire.bound(squeeze));
    CHECK(graph.args(fire.bound(expand3))[0] == fire.bound(squeeze));
  }
  // The same in Relax's text spelling; inside the block each Conv's arguments are tied to it
  // (`arg ^ call`), which the fork agrees with.
  absl::StatusOr<graphpat::ParsedGraphPattern> text = graphpat::parse_graph_pattern(R"(
with PatternContext() as ctx:
    squeeze = is_op("Relu")(wildcard())
    expand1 = is_op("Conv")(squeeze, wildcard(), wildcard()).has_attr({"kernel_shape": [1, 1]})
    expand3 = is_op("Conv")(squeeze, wildcard(), wildcard()).has_attr({"kernel_shape": [3, 3]})
    squeeze.fork_to(expand1, expand3)
)");
  REQUIRE(text.ok());
  absl::StatusOr<std::vector<graphpat::Match>> from_text =
      graphpat::find_graph_matches(text->context, graph, main_of(loaded.module));
  REQUIRE(from_text.ok());
  REQUIRE(from_text->size() == forks);
  for (std::size_t i = 0; i < forks; ++i) {
    CHECK((*from_text)[i].bound(*text->find("squeeze")) == (*fires)[i].bound(squeeze));
  }
}

namespace {

/// main(x, y) = (Sigmoid(y), Relu(x)): a model of two outputs, read as a tuple body.
onnx::ModelProto two_output_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("two_outputs");
  auto tensor_value = [](onnx::ValueInfoProto* value, std::string_view name) {
    value->set_name(std::string(name));
    onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(4);
  };
  tensor_value(graph->add_input(), "x");
  tensor_value(graph->add_input(), "y");
  for (auto [op, input, output] : {std::tuple{"Relu", "x", "a"}, std::tuple{"Sigmoid", "y", "b"}}) {
    onnx::NodeProto* node = graph->add_node();
    node->set_op_type(op);
    node->add_input(input);
    node->add_output(output);
  }
  tensor_value(graph->add_output(), "b");
  tensor_value(graph->add_output(), "a");
  return model;
}

}  // namespace

TEST_CASE("an unordered tuple pattern matches an ONNX model's outputs in any order",
          "[onnx][pattern][unordered]") {
  LoadedOnnx loaded = graphpat::testing::load_bytes(two_output_model().SerializeAsString());
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  NodeId body = graph.body(main_of(loaded.module));
  REQUIRE(graph.kind(body) == NodeKind::kTuple);
  Pattern relu = pattern_of("is_op('Relu')(wildcard())");
  Pattern sigmoid = pattern_of("is_op('Sigmoid')(wildcard())");
  graphpat::Match m = graphpat::match(graphpat::dsl::is_unordered_tuple({relu, sigmoid}), graph, body);
  REQUIRE(m);
  CHECK(m.bound(relu) == graph.fields(body)[1]);
  CHECK(m.bound(sigmoid) == graph.fields(body)[0]);
  CHECK(count_matches("is_tuple([is_op('Relu')(None), is_op('Sigmoid')(None)], unordered=True)",
                      loaded.module) == 1);
  CHECK(count_matches("is_tuple([is_op('Relu')(None), is_op('Sigmoid')(None)])", loaded.module) ==
        0);
}
