// Horizontal fusion on real ONNX models (graphpat issue 25): the 1x1 convolutions of an
// inception block that read one input become one convolution of the concatenated weights and
// biases, split along the channels. GoogLeNet and Inception v3 as PyTorch exports them
// (tests/data/onnx/horizontal: gen_horizontal.py, which also counts the forks over the protobuf
// without graphpat into counts.json): graphpat finds the forks counts.json counts, rewrite_bindings
// fuses each one, and the result verifies, passes onnx's checker and reads back equal.
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/onnx.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/pattern/matcher.hpp"
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
using graphpat::testing::main_of;

const std::filesystem::path kHfData = kOnnxData / "horizontal";

/// A 1x1 convolution of stride 1 without padding or groups, of input `input` (a pattern
/// shared by the convolutions of one fork): the shape whose outputs are channel slices of one
/// convolution of the concatenated weights. gen_horizontal.py's is_pointwise_conv asks the same
/// (the exporter writes every one of these attributes), of any weight.
Pattern hf_pointwise_conv(const Pattern& input, const Pattern& weight) {
  using namespace graphpat::dsl;
  return is_op("Conv")(input, weight, wildcard())
      .has_attr(
          {{"kernel_shape", {1, 1}}, {"strides", {1, 1}}, {"pads", {0, 0, 0, 0}}, {"group", 1}});
}

/// The 1x1 convolutions graphpat finds, grouped by their input (input 0); of any weight, so
/// that a fused one (whose weight is a Concat) counts too.
std::map<NodeId, std::vector<NodeId>> hf_convs_by_input(const graphpat::onnx::Module& module) {
  using namespace graphpat::dsl;
  Pattern conv = hf_pointwise_conv(wildcard(), wildcard());
  std::map<NodeId, std::vector<NodeId>> by_input;
  for (const Match& match : graphpat::find_matches(conv, module.graph, main_of(module))) {
    by_input[module.graph.args(match.root())[0]].push_back(match.root());
  }
  return by_input;
}

/// `k` 1x1 convolutions of one input, as a graph pattern: `input` binds one node, and the
/// one-to-one assignment makes the k convolutions k different nodes. Their weights are
/// initializers, whose stored shapes give the channels of each.
struct HfFork {
  Pattern input = graphpat::dsl::wildcard();
  std::vector<Pattern> convs;
  graphpat::PatternContext context;

  explicit HfFork(std::size_t k) {
    for (std::size_t i = 0; i < k; ++i) {
      convs.push_back(hf_pointwise_conv(input, graphpat::dsl::is_constant()));
      context.add(convs.back());
    }
  }

  /// One Conv of the input with the weights and the biases concatenated along axis 0 (the
  /// output channels), then a Split along axis 1 (the channels of NCHW) into each
  /// convolution's channels, read from its weight's stored shape (O, I, 1, 1); opset 13 takes
  /// the sizes as Split's second input, an int64 constant. Each convolution is replaced by its
  /// output of the Split.
  [[nodiscard]] graphpat::GraphRewrite<graphpat::onnx::Dialect> fuse() const {
    return [*this](const Match& m, graphpat::Rewriter<graphpat::onnx::Dialect>& r)
               -> absl::StatusOr<graphpat::Replacements> {
      const graphpat::onnx::Graph& graph = r.graph();
      graphpat::Context& context = graph.context();
      graphpat::onnx::Builder& b = r.builder();
      std::vector<NodeId> weights, biases;
      std::vector<std::int64_t> channels;
      for (const Pattern& conv : convs) {
        std::span<const NodeId> args = graph.args(m.bound(conv));
        weights.push_back(args[1]);
        biases.push_back(args[2]);
        const graphpat::Tensor& weight = context.tensors.get(graph.tensor_id(args[1]));
        if (weight.shape.size() != 4) return graphpat::Replacements{};
        channels.push_back(weight.shape[0]);
      }
      graphpat::AttrTable& attrs = r.attrs();
      NodeId weight = b.call("Concat", weights,
                             {.attrs = attrs.object("Concat", {{"axis", attrs.integer(0, 64)}})});
      NodeId bias = b.call("Concat", biases,
                           {.attrs = attrs.object("Concat", {{"axis", attrs.integer(0, 64)}})});
      // The convolutions' attributes are equal (the pattern fixes each one), so the fused one
      // takes the first's.
      NodeId fused =
          b.call("Conv", {m.bound(input), weight, bias}, {.attrs = graph.attrs(m.bound(convs[0]))});
      auto bytes = std::make_shared<std::vector<std::uint8_t>>(channels.size() * 8);
      std::memcpy(bytes->data(), channels.data(), bytes->size());
      auto count = static_cast<std::int64_t>(channels.size());
      graphpat::TensorId sizes = context.tensors.add(
          {.dtype = context.strings.intern("int64"),
           .shape = {count},
           .data = graphpat::share_bytes(
               std::shared_ptr<const std::vector<std::uint8_t>>(std::move(bytes)))});
      NodeId split_sizes =
          b.constant(sizes, {.type = context.types.tensor("int64", {context.types.dim(count)})});
      // A call of several outputs is typed as a tuple of them, which tells the writer how many
      // (their shapes are unknown: the exports carry no value_info).
      std::vector<graphpat::TypeId> outputs(channels.size(), context.types.incomplete());
      NodeId split = b.call("Split", {fused, split_sizes},
                            {.attrs = attrs.object("Split", {{"axis", attrs.integer(1, 64)}}),
                             .type = context.types.tuple(outputs)});
      graphpat::Replacements replacements;
      for (std::size_t i = 0; i < convs.size(); ++i) {
        replacements.emplace_back(m.bound(convs[i]),
                                  b.tuple_get_item(split, static_cast<std::uint32_t>(i)));
      }
      return replacements;
    };
  }
};

/// A use of a forked convolution in the model as read: the reading call's node name and the
/// argument, the weight the convolution read and the ONNX node that made its input.
struct HfUse {
  std::string reader;
  std::size_t arg = 0;
  graphpat::TensorId weight;
  std::string input;
};

void hf_check_model(std::string_view file) {
  INFO(file);
  nlohmann::json counts =
      nlohmann::json::parse(graphpat::testing::read_file(kHfData / "counts.json"));
  REQUIRE(counts.contains(file));
  const nlohmann::json& expected = counts[std::string(file)]["horizontal"];
  LoadedOnnx loaded = load_path(kHfData / file);
  const graphpat::onnx::Graph& graph = loaded.module.graph;

  // The counts: the 1x1 convolutions, the inputs two or more of them read, and how many.
  std::size_t convs = calls_of(graph, "Conv");
  CHECK(convs == expected["conv"].get<std::size_t>());
  std::map<NodeId, std::vector<NodeId>> by_input = hf_convs_by_input(loaded.module);
  std::size_t pointwise = 0, forks = 0, forked = 0;
  std::map<std::size_t, std::size_t> fork_sizes;
  for (const auto& [input, readers] : by_input) {
    pointwise += readers.size();
    if (readers.size() < 2) continue;
    ++forks;
    forked += readers.size();
    ++fork_sizes[readers.size()];
  }
  CHECK(pointwise == expected["conv1x1"].get<std::size_t>());
  CHECK(forks == expected["forks"].get<std::size_t>());
  CHECK(forked == expected["forked_convs"].get<std::size_t>());
  std::map<std::size_t, std::size_t> expected_sizes;
  for (const auto& [size, values] : expected["fork_sizes"].items()) {
    expected_sizes[std::stoul(size)] = values.get<std::size_t>();
  }
  CHECK(fork_sizes == expected_sizes);
  REQUIRE(!expected_sizes.empty());

  // The uses of every forked convolution, to find again in the result.
  std::set<NodeId> forked_convs;
  for (const auto& [input, readers] : by_input) {
    if (readers.size() >= 2) forked_convs.insert(readers.begin(), readers.end());
  }
  std::vector<HfUse> uses;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (graph.kind(NodeId(i)) != NodeKind::kCall) continue;
    std::span<const NodeId> args = graph.args(NodeId(i));
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (!forked_convs.contains(args[k])) continue;
      std::span<const NodeId> conv_args = graph.args(args[k]);
      uses.push_back({node_name(graph, NodeId(i)), k, graph.tensor_id(conv_args[1]),
                      node_name(graph, conv_args[0])});
    }
  }
  CHECK(uses.size() >= forked);

  // The fusion: the largest forks first, so that a context of k convolutions meets forks of k
  // exactly (one of more would have been fused before). The k convolution patterns are
  // interchangeable, so the matcher reports each fork once, not in its k! orders
  // (graph_matcher.hpp): one match per fork, none skipped.
  graphpat::onnx::Module fused = loaded.module;
  std::size_t groups = 0, replaced = 0;
  for (auto size = expected_sizes.rbegin(); size != expected_sizes.rend(); ++size) {
    const auto& [k, count] = *size;
    INFO("forks of " << k);
    HfFork fork(k);
    absl::StatusOr<graphpat::GraphRewriteResult<graphpat::onnx::Dialect>> result =
        graphpat::rewrite_bindings<graphpat::onnx::Dialect>(fork.context, fork.fuse(), fused);
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    CHECK(result->report.matches == count);
    CHECK(result->report.rewritten == count);
    CHECK(result->report.overlapping == 0);
    CHECK(result->report.replaced == count * k);
    CHECK_FALSE(result->report.stopped);
    groups += result->report.rewritten;
    replaced += result->report.replaced;
    fused = std::move(result->module);
  }
  CHECK(groups == expected["forks"].get<std::size_t>());
  CHECK(replaced == expected["forked_convs"].get<std::size_t>());
  const graphpat::onnx::Graph& after = fused.graph;
  absl::Status verified = graphpat::verify(fused);
  INFO(verified.ToString());
  CHECK(verified.ok());

  // Conv nodes: before - fused + one per group; a Split per group, two Concats per group.
  CHECK(calls_of(after, "Conv") == convs - forked + forks);
  CHECK(calls_of(after, "Conv") == expected["fused_convs_after"].get<std::size_t>());
  CHECK(calls_of(after, "Split") == calls_of(graph, "Split") + forks);
  CHECK(calls_of(after, "Concat") == calls_of(graph, "Concat") + 2 * forks);
  // No input is read by two 1x1 convolutions any more; each fork's is read by its fused one.
  std::map<NodeId, std::vector<NodeId>> by_input_after = hf_convs_by_input(fused);
  std::size_t pointwise_after = 0;
  for (const auto& [input, readers] : by_input_after) {
    CHECK(readers.size() == 1);
    pointwise_after += readers.size();
  }
  CHECK(pointwise_after == pointwise - forked + forks);

  // Every use of a forked convolution reads, at the same argument of the same ONNX node, the
  // Split output whose channels are that convolution's: the item's position in the Split is
  // the weight's in the Concat, and the Split's size there is the weight's channels. The fused
  // Conv reads what the convolution read.
  std::map<std::string, NodeId> calls_after;
  for (std::uint32_t i = 0; i < after.size(); ++i) {
    if (after.kind(NodeId(i)) == NodeKind::kCall) {
      std::string name = node_name(after, NodeId(i));
      if (!name.empty()) calls_after.emplace(name, NodeId(i));
    }
  }
  const graphpat::Context& context = after.context();
  std::size_t checked = 0;
  for (const HfUse& use : uses) {
    INFO(use.reader << " argument " << use.arg);
    auto reader = calls_after.find(use.reader);
    REQUIRE(reader != calls_after.end());
    NodeId item = after.args(reader->second)[use.arg];
    REQUIRE(after.kind(item) == NodeKind::kTupleGetItem);
    NodeId split = after.tuple(item);
    REQUIRE(is_call_of(after, split, "Split"));
    std::uint32_t index = after.index(item);
    NodeId conv = after.args(split)[0];
    REQUIRE(is_call_of(after, conv, "Conv"));
    CHECK(node_name(after, conv).empty());  // a new node, not one of the file's
    CHECK(node_name(after, after.args(conv)[0]) == use.input);
    NodeId weights = after.args(conv)[1];
    REQUIRE(is_call_of(after, weights, "Concat"));
    REQUIRE(index < after.args(weights).size());
    NodeId weight = after.args(weights)[index];
    REQUIRE(after.kind(weight) == NodeKind::kConstant);
    CHECK(after.tensor_id(weight) == use.weight);
    const graphpat::Tensor& sizes = context.tensors.get(after.tensor_id(after.args(split)[1]));
    REQUIRE(sizes.has_data());
    REQUIRE(sizes.shape ==
            std::vector<std::int64_t>{static_cast<std::int64_t>(after.args(weights).size())});
    std::int64_t size = 0;
    std::memcpy(&size, sizes.data->view().data() + 8 * index, 8);
    CHECK(size == context.tensors.get(use.weight).shape[0]);
    ++checked;
  }
  CHECK(checked == uses.size());

  // Written as ONNX (the new constant as an initializer with its bytes, the weights still
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
  CHECK(calls_of(reread.module.graph, "Conv") == convs - forked + forks);
  CHECK(calls_of(reread.module.graph, "Split") == forks);
}

}  // namespace

TEST_CASE(
    "horizontal fusion: googlenet's nine inception blocks each fuse their three 1x1 "
    "convolutions of the block input into one Conv and a Split",
    "[onnx][graph][horizontal]") {
  // counts.json (gen_horizontal.py over the protobuf): 57 Conv, 37 of them 1x1; 9 inputs read
  // by three 1x1 convolutions each (branch1, branch2's and branch3's reductions), so 27 fused
  // into 9: 39 Conv after.
  hf_check_model("googlenet.external.onnx");
}

TEST_CASE(
    "horizontal fusion: inception_v3 fuses nine forks of three 1x1 convolutions and one "
    "of two",
    "[onnx][graph][horizontal]") {
  // counts.json: 94 Conv, 40 of them 1x1; InceptionA x3, C x4 and E x2 read their input with
  // three 1x1 convolutions, InceptionD with two: 29 fused into 10, 75 Conv after.
  hf_check_model("inception_v3.external.onnx");
}
