// Relax-style QKV fusion on a real transformer block (graphpat issue 25): the three projections
// of one input (q, k and v, each nn.Linear exported at opset 13 as MatMul(x, W) with W an [in,
// out] initializer, then Add(bias)) become one MatMul of the weights concatenated along the
// outputs, split in three along the last axis; and, by a graph-pattern partition, one function
// returning the three. The model is a 2-layer encoder with separate q/k/v projections as PyTorch
// exports it (tests/data/onnx/qkv: gen_qkv.py, which also counts the triples over the protobuf
// without graphpat into counts.json).
#include <absl/status/statusor.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/onnx.hpp"
#include "graphpat/partition.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/pattern/graph_matcher.hpp"
#include "graphpat/transform/graph_partition.hpp"
#include "graphpat/transform/partition.hpp"
#include "graphpat/transform/rewrite_bindings.hpp"
#include "support/onnx_files.hpp"
#include "support/test_files.hpp"

namespace {

using graphpat::Match;
using graphpat::NodeId;
using graphpat::NodeKind;
using graphpat::Pattern;
using graphpat::onnx::LoadedOnnx;
using graphpat::testing::kOnnxData;
using graphpat::testing::load_bytes;
using graphpat::testing::calls_of;
using graphpat::testing::is_call_of;
using graphpat::testing::load_path;
using graphpat::testing::node_name;

const std::filesystem::path kQkvData = kOnnxData / "qkv";
constexpr std::string_view kQkvModel = "qkv_encoder.external.onnx";

/// counts.json's "qkv" counts of the model (gen_qkv.py, over the protobuf).
nlohmann::json qkv_expected() {
  nlohmann::json counts =
      nlohmann::json::parse(graphpat::testing::read_file(kQkvData / "counts.json"));
  REQUIRE(counts.contains(kQkvModel));
  return counts[std::string(kQkvModel)]["qkv"];
}

/// The weight tensor of every projection MatMul of the model as read, by ONNX node name
/// (`/layers.0/q/MatMul`).
std::map<std::string, graphpat::TensorId> qkv_weights_by_name(const graphpat::onnx::Graph& graph) {
  std::map<std::string, graphpat::TensorId> weights;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (!is_call_of(graph, NodeId(i), "MatMul")) continue;
    NodeId weight = graph.args(NodeId(i))[1];
    if (graph.kind(weight) == NodeKind::kConstant) {
      weights.emplace(node_name(graph, NodeId(i)), graph.tensor_id(weight));
    }
  }
  return weights;
}

/// Three MatMuls of one input, each of a constant weight (an initializer), as a graph pattern:
/// `x` binds one node and the one-to-one assignment makes q, k and v three different nodes.
/// gen_qkv.py counts the same: values read as input 0 by three MatMuls of an initializer.
struct QkvBlock {
  Pattern x = graphpat::dsl::wildcard();
  Pattern q = graphpat::dsl::is_op("MatMul")(x, graphpat::dsl::is_constant());
  Pattern k = graphpat::dsl::is_op("MatMul")(x, graphpat::dsl::is_constant());
  Pattern v = graphpat::dsl::is_op("MatMul")(x, graphpat::dsl::is_constant());
  graphpat::PatternContext context;

  QkvBlock() { context.add(q).add(k).add(v); }

  /// Relax's qkv_proj_rewriter in ONNX: one MatMul of x with Concat(Wq, Wk, Wv, axis=1) (the
  /// weights are [in, out]), then a Split along the last axis into each weight's outputs, read
  /// from its stored shape; opset 13 takes the sizes as Split's second input, an int64
  /// constant. Each projection is replaced by its output of the Split.
  [[nodiscard]] graphpat::GraphRewrite<graphpat::onnx::Dialect> fuse() const {
    return [*this](const Match& m, graphpat::Rewriter<graphpat::onnx::Dialect>& r)
               -> absl::StatusOr<graphpat::Replacements> {
      const graphpat::onnx::Graph& graph = r.graph();
      graphpat::Context& context = graph.context();
      graphpat::onnx::Builder& b = r.builder();
      const std::vector<Pattern> projections = {q, k, v};
      std::vector<NodeId> weights;
      std::vector<std::int64_t> widths;
      for (const Pattern& projection : projections) {
        NodeId weight = graph.args(m.bound(projection))[1];
        const graphpat::Tensor& tensor = context.tensors.get(graph.tensor_id(weight));
        if (tensor.shape.size() != 2) return graphpat::Replacements{};
        weights.push_back(weight);
        widths.push_back(tensor.shape[1]);
      }
      graphpat::AttrTable& attrs = r.attrs();
      NodeId weight = b.call("Concat", weights,
                             {.attrs = attrs.object("Concat", {{"axis", attrs.integer(1, 64)}})});
      // The three MatMuls' attributes are equal (MatMul has none), so the fused one takes q's.
      NodeId fused = b.call("MatMul", {m.bound(x), weight}, {.attrs = graph.attrs(m.bound(q))});
      auto bytes = std::make_shared<std::vector<std::uint8_t>>(widths.size() * 8);
      std::memcpy(bytes->data(), widths.data(), bytes->size());
      auto count = static_cast<std::int64_t>(widths.size());
      graphpat::TensorId sizes = context.tensors.add(
          {.dtype = context.strings.intern("int64"),
           .shape = {count},
           .data = graphpat::share_bytes(
               std::shared_ptr<const std::vector<std::uint8_t>>(std::move(bytes)))});
      NodeId split_sizes =
          b.constant(sizes, {.type = context.types.tensor("int64", {context.types.dim(count)})});
      // Typed as a tuple of three, which tells the writer how many outputs.
      std::vector<graphpat::TypeId> outputs(widths.size(), context.types.incomplete());
      NodeId split = b.call("Split", {fused, split_sizes},
                            {.attrs = attrs.object("Split", {{"axis", attrs.integer(-1, 64)}}),
                             .type = context.types.tuple(outputs)});
      graphpat::Replacements replacements;
      for (std::size_t i = 0; i < projections.size(); ++i) {
        replacements.emplace_back(m.bound(projections[i]),
                                  b.tuple_get_item(split, static_cast<std::uint32_t>(i)));
      }
      return replacements;
    };
  }
};

/// A use of a projection in the model as read: the reading call's node name, the argument, and
/// the projection's node name (`/layers.1/k/MatMul`).
struct QkvUse {
  std::string reader;
  std::size_t arg = 0;
  std::string projection;
};

/// The functions a partition made: the graph's function literals that are not the module's
/// definitions.
std::vector<NodeId> qkv_made_functions(const graphpat::onnx::Module& module) {
  std::vector<NodeId> roots = module.roots();
  std::set<NodeId> definitions(roots.begin(), roots.end());
  std::vector<NodeId> functions;
  for (std::uint32_t i = 0; i < module.graph.size(); ++i) {
    if (module.graph.kind(NodeId(i)) == NodeKind::kFunction && !definitions.contains(NodeId(i))) {
      functions.push_back(NodeId(i));
    }
  }
  return functions;
}

}  // namespace

TEST_CASE("qkv fusion: the exported encoder's two q/k/v triples are found once each",
          "[onnx][graph][qkv]") {
  // counts.json (gen_qkv.py over the protobuf): 128 nodes, 16 MatMul (no Gemm: nn.Linear of a
  // 3-D input is MatMul then Add), 12 of them of an initializer (six nn.Linear per layer), and
  // two values read by three of those, none by more: `input` and layer 0's output.
  nlohmann::json expected = qkv_expected();
  CHECK(expected["gemm"].get<std::size_t>() == 0);
  CHECK(expected["fork_sizes"] == nlohmann::json({{"3", 2}}));
  LoadedOnnx loaded = load_path(kQkvData / kQkvModel);
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  CHECK(calls_of(graph, "MatMul") == expected["matmul"].get<std::size_t>());
  CHECK(qkv_weights_by_name(graph).size() == expected["weighted_matmul"].get<std::size_t>());

  // The three patterns are interchangeable, so the matcher reports each triple once, not in its
  // 3! orders (graph_matcher.hpp).
  QkvBlock block;
  absl::StatusOr<graphpat::GraphMatcher<graphpat::onnx::Dialect>> matcher =
      graphpat::GraphMatcher<graphpat::onnx::Dialect>::make(block.context, graph);
  INFO(matcher.status().ToString());
  REQUIRE(matcher.ok());
  std::vector<Match> matches = matcher->find_all(graphpat::testing::main_of(loaded.module));
  REQUIRE(matches.size() == expected["triples"].get<std::size_t>());
  std::set<NodeId> inputs, projections;
  for (const Match& match : matches) {
    inputs.insert(match.bound(block.x));
    for (const Pattern* p : {&block.q, &block.k, &block.v}) {
      projections.insert(match.bound(*p));
      const graphpat::Tensor& weight =
          graph.context().tensors.get(graph.tensor_id(graph.args(match.bound(*p))[1]));
      CHECK(weight.shape == std::vector<std::int64_t>{64, 64});
    }
  }
  CHECK(inputs.size() == 2);
  CHECK(projections.size() == 6);
  // The first triple reads the model's input, the second the first layer's LayerNorm.
  std::set<std::string> projection_names;
  for (NodeId projection : projections) projection_names.insert(node_name(graph, projection));
  CHECK(projection_names == std::set<std::string>{"/layers.0/q/MatMul", "/layers.0/k/MatMul",
                                                  "/layers.0/v/MatMul", "/layers.1/q/MatMul",
                                                  "/layers.1/k/MatMul", "/layers.1/v/MatMul"});
}

TEST_CASE(
    "qkv fusion: rewrite_bindings makes each triple one MatMul of the concatenated "
    "weights and a Split, which verifies, passes onnx's checker and reads back equal",
    "[onnx][graph][qkv]") {
  nlohmann::json expected = qkv_expected();
  const auto triples = expected["triples"].get<std::size_t>();
  LoadedOnnx loaded = load_path(kQkvData / kQkvModel);
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  const std::size_t matmuls = calls_of(graph, "MatMul");
  const std::size_t splits = calls_of(graph, "Split");
  const std::size_t concats = calls_of(graph, "Concat");
  std::map<std::string, graphpat::TensorId> weights = qkv_weights_by_name(graph);

  // Every use of a q, k or v projection, to find again in the result.
  std::vector<QkvUse> uses;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (graph.kind(NodeId(i)) != NodeKind::kCall) continue;
    std::span<const NodeId> args = graph.args(NodeId(i));
    for (std::size_t a = 0; a < args.size(); ++a) {
      std::string name = node_name(graph, args[a]);
      if (name.ends_with("/q/MatMul") || name.ends_with("/k/MatMul") ||
          name.ends_with("/v/MatMul")) {
        uses.push_back({node_name(graph, NodeId(i)), a, name});
      }
    }
  }
  CHECK(uses.size() == 3 * triples);  // each read by its bias Add alone

  QkvBlock block;
  absl::StatusOr<graphpat::GraphRewriteResult<graphpat::onnx::Dialect>> result =
      graphpat::rewrite_bindings<graphpat::onnx::Dialect>(block.context, block.fuse(),
                                                          loaded.module);
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  CHECK(result->report.matches == triples);
  CHECK(result->report.rewritten == triples);
  CHECK(result->report.overlapping == 0);
  CHECK(result->report.replaced == 3 * triples);
  CHECK_FALSE(result->report.stopped);
  const graphpat::onnx::Module& fused = result->module;
  const graphpat::onnx::Graph& after = fused.graph;
  absl::Status verified = graphpat::verify(fused);
  INFO(verified.ToString());
  CHECK(verified.ok());

  // 16 MatMul before, 12 after: each triple's three are one.
  CHECK(calls_of(after, "MatMul") == matmuls - 2 * triples);
  CHECK(calls_of(after, "MatMul") == expected["matmul_after"].get<std::size_t>());
  CHECK(calls_of(after, "Split") == splits + triples);
  CHECK(calls_of(after, "Concat") == concats + triples);

  // Every use reads, at the same argument of the same ONNX node, the Split output whose
  // columns are its projection's: the item's position in the Split is the weight's in the
  // Concat, and the Split's size there is the weight's 64 outputs.
  std::map<std::string, NodeId> calls_after;
  for (std::uint32_t i = 0; i < after.size(); ++i) {
    std::string name = node_name(after, NodeId(i));
    if (after.kind(NodeId(i)) == NodeKind::kCall && !name.empty())
      calls_after.emplace(name, NodeId(i));
  }
  const graphpat::Context& context = after.context();
  for (const QkvUse& use : uses) {
    INFO(use.reader << " argument " << use.arg << " (" << use.projection << ")");
    auto reader = calls_after.find(use.reader);
    REQUIRE(reader != calls_after.end());
    NodeId item = after.args(reader->second)[use.arg];
    REQUIRE(after.kind(item) == NodeKind::kTupleGetItem);
    NodeId split = after.tuple(item);
    REQUIRE(is_call_of(after, split, "Split"));
    std::uint32_t index = after.index(item);
    CHECK(index == (use.projection.ends_with("/q/MatMul")   ? 0u
                    : use.projection.ends_with("/k/MatMul") ? 1u
                                                            : 2u));
    NodeId matmul = after.args(split)[0];
    REQUIRE(is_call_of(after, matmul, "MatMul"));
    CHECK(node_name(after, matmul).empty());  // a new node, not one of the file's
    NodeId concat = after.args(matmul)[1];
    REQUIRE(is_call_of(after, concat, "Concat"));
    REQUIRE(after.args(concat).size() == 3);
    NodeId weight = after.args(concat)[index];
    REQUIRE(after.kind(weight) == NodeKind::kConstant);
    CHECK(after.tensor_id(weight) == weights.at(use.projection));
    const graphpat::Tensor& sizes = context.tensors.get(after.tensor_id(after.args(split)[1]));
    REQUIRE(sizes.has_data());
    REQUIRE(sizes.shape == std::vector<std::int64_t>{3});
    std::vector<std::int64_t> split_sizes(3);
    std::memcpy(split_sizes.data(), sizes.data->view().data(), 24);
    CHECK(split_sizes == std::vector<std::int64_t>{64, 64, 64});
  }

  // Nothing matches in the result: each input now has one projection of a constant weight
  // (the fused one's weight is a Concat).
  absl::StatusOr<graphpat::GraphRewriteResult<graphpat::onnx::Dialect>> again =
      graphpat::rewrite_bindings<graphpat::onnx::Dialect>(block.context, block.fuse(), fused);
  REQUIRE(again.ok());
  CHECK(again->report.matches == 0);

  // Written as ONNX (the Split sizes as an initializer with its bytes, the weights still
  // external references), the model passes onnx's checker and strict shape inference and
  // reads back equal to the fused module.
  absl::StatusOr<std::string> bytes = graphpat::onnx::save(fused, loaded.provenance);
  INFO(bytes.status().ToString());
  REQUIRE(bytes.ok());
  LoadedOnnx reread = load_bytes(*bytes);
  CHECK(graphpat::testing::checker_problem(reread.provenance.model()) == "");
  std::optional<graphpat::Difference> difference = graphpat::first_difference(reread.module, fused);
  INFO((difference ? difference->reason : std::string("equal")));
  CHECK_FALSE(difference);
  CHECK(calls_of(reread.module.graph, "MatMul") == matmuls - 2 * triples);
  CHECK(calls_of(reread.module.graph, "Split") == triples);
}

TEST_CASE(
    "qkv fusion: partition by the graph pattern makes each triple one function returning "
    "its three MatMuls",
    "[onnx][graph][qkv]") {
  nlohmann::json expected = qkv_expected();
  const auto triples = expected["triples"].get<std::size_t>();
  LoadedOnnx loaded = load_path(kQkvData / kQkvModel);
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  const std::size_t matmuls = calls_of(graph, "MatMul");
  std::map<std::string, graphpat::TensorId> weights = qkv_weights_by_name(graph);
  REQUIRE(qkv_made_functions(loaded.module).empty());

  QkvBlock block;
  absl::StatusOr<graphpat::PartitionResult<graphpat::onnx::Dialect>> result =
      graphpat::partition(block.context, loaded.module);
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  CHECK(result->report.accepted == triples);
  CHECK(result->report.outputs == 2 * triples);  // q and k beside each root v
  CHECK(result->report.rejected.empty());
  const graphpat::onnx::Module& partitioned = result->module;
  const graphpat::onnx::Graph& after = partitioned.graph;
  absl::Status verified = graphpat::verify(partitioned);
  INFO(verified.ToString());
  CHECK(verified.ok());
  CHECK(calls_of(after, "MatMul") == matmuls);  // six of them now inside the functions

  // Each function made: one parameter (x; the weights, bound by is_constant(), are embedded),
  // its body a Tuple of the q, k and v MatMuls of that parameter in the context's order, each
  // of its own weight; called once, each of the call's three items read by the projection's
  // bias Add.
  std::vector<NodeId> functions = qkv_made_functions(partitioned);
  REQUIRE(functions.size() == triples);
  std::map<NodeId, std::vector<NodeId>> calls_of;
  for (std::uint32_t i = 0; i < after.size(); ++i) {
    if (after.kind(NodeId(i)) == NodeKind::kCall)
      calls_of[after.callee(NodeId(i))].push_back(NodeId(i));
  }
  std::set<std::string> layers;
  for (NodeId function : functions) {
    INFO("function %" << function.index());
    REQUIRE(after.params(function).size() == 1);
    NodeId x = after.params(function)[0];
    NodeId body = after.body(function);
    REQUIRE(after.kind(body) == NodeKind::kTuple);
    REQUIRE(after.fields(body).size() == 3);
    std::string layer;
    for (std::size_t i = 0; i < 3; ++i) {
      NodeId field = after.fields(body)[i];
      REQUIRE(is_call_of(after, field, "MatMul"));
      CHECK(after.args(field)[0] == x);
      NodeId weight = after.args(field)[1];
      REQUIRE(after.kind(weight) == NodeKind::kConstant);
      std::string name = node_name(after, field);
      CHECK(name.ends_with(std::string("/") + "qkv"[i] + "/MatMul"));
      CHECK(weights.contains(name));
      if (weights.contains(name)) CHECK(after.tensor_id(weight) == weights.at(name));
      std::string this_layer = name.substr(0, name.find('/', 1));
      if (i == 0) layer = this_layer;
      CHECK(this_layer == layer);
    }
    layers.insert(layer);
    REQUIRE(calls_of[function].size() == 1);
    NodeId call = calls_of[function][0];
    std::set<std::uint32_t> items;
    for (std::uint32_t i = 0; i < after.size(); ++i) {
      if (after.kind(NodeId(i)) != NodeKind::kTupleGetItem || after.tuple(NodeId(i)) != call)
        continue;
      items.insert(after.index(NodeId(i)));
    }
    CHECK(items == std::set<std::uint32_t>{0, 1, 2});
  }
  CHECK(layers == std::set<std::string>{"/layers.0", "/layers.1"});

  // Written as ONNX: each function literal becomes a FunctionProto of three outputs (the
  // embedded weights lifted to inputs that the call passes, so they stay external
  // initializers); the two functions have one structure, so the writer keeps one.
  absl::StatusOr<std::string> bytes = graphpat::onnx::save(partitioned, loaded.provenance);
  INFO(bytes.status().ToString());
  REQUIRE(bytes.ok());
  LoadedOnnx reread = load_bytes(*bytes);
  CHECK(graphpat::testing::checker_problem(reread.provenance.model()) == "");
  const ::onnx::ModelProto& model = reread.provenance.model();
  REQUIRE(model.functions_size() == 1);
  CHECK(model.functions(0).output_size() == 3);
  CHECK(model.functions(0).input_size() == 4);  // x and the three lifted weights
  std::size_t function_calls = 0;
  for (const ::onnx::NodeProto& node : model.graph().node()) {
    function_calls += node.op_type() == model.functions(0).name();
  }
  CHECK(function_calls == triples);
}
