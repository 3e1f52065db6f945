// The ONNX dialect: its registry (libonnx's schemas, the property table and its sources), the
// op naming rule and its inverse.
#include <catch2/catch.hpp>
#include <onnx/defs/schema.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graphpat/onnx/dialect.hpp"
#include "graphpat/relay/dialect.hpp"

namespace {

using graphpat::OpInfo;
using graphpat::OpPatternKind;

struct Registry {
  std::shared_ptr<graphpat::Context> context =
      graphpat::Context::create<graphpat::onnx::Dialect>();
  const OpInfo& info(std::string_view name) { return context->ops.info(context->op(name)); }
  std::vector<std::string> fields(std::string_view name, bool with_types = false) {
    std::vector<std::string> out;
    const graphpat::AttrSchema* schema = context->ops.schema(info(name));
    REQUIRE(schema != nullptr);
    for (const graphpat::AttrSchemaField& field : schema->fields) {
      std::string text(context->strings.view(field.name));
      if (with_types) {
        text += fmt::format(":{}", context->strings.view(field.cpp_type));
        if (field.has_default) text += fmt::format("={}", context->strings.view(field.default_value));
      }
      out.push_back(text);
    }
    return out;
  }
};

// Whitespace runs as one space, as Operators.md's text reads.
std::string squeezed(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out.push_back(space ? ' ' : c);
  }
  return out;
}

}  // namespace

TEST_CASE("ONNX op names: the default domain is bare, others prefix the op_type",
          "[onnx][dialect]") {
  using graphpat::onnx::op_name;
  using graphpat::onnx::OpIdentity;
  using graphpat::onnx::split_op_name;
  CHECK(op_name("", "Conv") == "Conv");
  CHECK(op_name("ai.onnx", "Conv") == "Conv");
  CHECK(op_name("ai.onnx.ml", "LinearClassifier") == "ai.onnx.ml.LinearClassifier");
  CHECK(op_name("com.microsoft", "FusedConv") == "com.microsoft.FusedConv");

  CHECK(split_op_name("Conv") == OpIdentity{"", "Conv"});
  CHECK(split_op_name("ai.onnx.ml.LinearClassifier") == OpIdentity{"ai.onnx.ml", "LinearClassifier"});
  CHECK(split_op_name("ai.onnx.preview.training.Adam") ==
        OpIdentity{"ai.onnx.preview.training", "Adam"});
  CHECK(split_op_name("com.microsoft.FusedConv") == OpIdentity{"com.microsoft", "FusedConv"});
  // The longest known domain wins: an op_type with a dot under a domain the caller names.
  std::vector<std::string> domains{"com.example"};
  CHECK(split_op_name("com.example.Op.v2", domains) == OpIdentity{"com.example", "Op.v2"});
  CHECK(split_op_name("com.example.Op.v2") == OpIdentity{"com.example.Op", "v2"});
  // A leading or trailing dot makes no domain.
  CHECK(split_op_name(".Conv") == OpIdentity{"", ".Conv"});
  CHECK(split_op_name("Conv.") == OpIdentity{"", "Conv."});

  for (auto [domain, op_type] : std::vector<std::pair<std::string, std::string>>{
           {"", "Relu"}, {"ai.onnx.ml", "TreeEnsembleClassifier"}, {"com.microsoft", "Gelu"},
           {"ai.onnx.preview.training", "Gradient"}, {"org.pytorch.aten", "ATen"}}) {
    std::string name = op_name(domain, op_type);
    CHECK(split_op_name(name) == OpIdentity{domain, op_type});
  }
  CHECK(split_op_name(op_name("ai.onnx", "Relu")) == OpIdentity{"", "Relu"});
}

TEST_CASE("ONNX registry: one op per schema of libonnx's registry", "[onnx][dialect]") {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history())
    pairs.emplace(schema.domain(), schema.Name());
  Registry registry;
  CHECK(registry.context->ops.size() == pairs.size());
  CHECK(pairs.size() == 200);  // ONNX 1.12: 178 default-domain ops, 18 ai.onnx.ml, 4 preview
  for (const auto& [domain, op_type] : pairs) {
    std::string name = graphpat::onnx::op_name(domain, op_type);
    graphpat::OpId id = registry.context->ops.find(name);
    REQUIRE(id.valid());
    CHECK(registry.context->ops.info(id).known);
  }
}

TEST_CASE("ONNX registry: Conv's attributes as ONNX 1.12's Operators.md gives them",
          "[onnx][dialect]") {
  Registry registry;
  const OpInfo& conv = registry.info("Conv");
  CHECK(conv.known);
  CHECK(conv.pattern_kind == OpPatternKind::kOutEWiseFusable);
  CHECK_FALSE(conv.commutative);
  CHECK_FALSE(conv.stateful);
  // Operators.md, Conv-11: auto_pad : string (default is NOTSET), dilations : list of ints,
  // group : int (default is 1), kernel_shape : list of ints, pads : list of ints,
  // strides : list of ints.
  CHECK(registry.fields("Conv", true) ==
        std::vector<std::string>{"auto_pad:STRING=\"NOTSET\"", "dilations:INTS", "group:INT=1",
                                 "kernel_shape:INTS", "pads:INTS", "strides:INTS"});
  // Other defaults: LeakyRelu alpha (default is 0.01), RNN activations, MeanVarianceNormalization
  // axes (default is ['0', '2', '3']), LayerNormalization epsilon (default is 1e-05).
  CHECK(registry.fields("LeakyRelu", true) == std::vector<std::string>{"alpha:FLOAT=0.01"});
  CHECK(registry.fields("MeanVarianceNormalization", true) ==
        std::vector<std::string>{"axes:INTS=[0, 2, 3]"});
  CHECK(registry.fields("LayerNormalization", true) ==
        std::vector<std::string>{"axis:INT=-1", "epsilon:FLOAT=1e-05", "stash_type:INT=1"});
  // ThresholdedRelu alpha (default is 1.0): a float keeps its point.
  CHECK(registry.fields("ThresholdedRelu", true) == std::vector<std::string>{"alpha:FLOAT=1.0"});
  CHECK(registry.fields("Add").empty());
  CHECK(registry.fields("If", true) ==
        std::vector<std::string>{"else_branch:GRAPH", "then_branch:GRAPH"});
}

TEST_CASE("ONNX registry: properties of Add, Relu, ReduceMean, Dropout", "[onnx][dialect]") {
  Registry registry;
  const OpInfo& add = registry.info("Add");
  CHECK(add.commutative);
  CHECK(add.pattern_kind == OpPatternKind::kBroadcast);
  CHECK_FALSE(registry.info("Sub").commutative);
  CHECK(registry.info("Relu").pattern_kind == OpPatternKind::kElemWise);
  CHECK(registry.info("ReduceMean").pattern_kind == OpPatternKind::kCommReduce);
  const OpInfo& dropout = registry.info("Dropout");
  CHECK(dropout.stateful);
  CHECK(dropout.pattern_kind == OpPatternKind::kOpaque);
  CHECK(registry.info("RandomUniformLike").stateful);
  CHECK(registry.info("Softmax").pattern_kind == OpPatternKind::kOpaque);
  CHECK_FALSE(registry.info("Softmax").stateful);
}

TEST_CASE("ONNX registry: other domains' ops by dotted name, unknown ops opaque",
          "[onnx][dialect]") {
  Registry registry;
  std::size_t size = registry.context->ops.size();
  graphpat::OpId linear = registry.context->ops.find("ai.onnx.ml.LinearClassifier");
  REQUIRE(linear.valid());
  CHECK(registry.context->ops.info(linear).known);
  CHECK(registry.fields("ai.onnx.ml.LinearClassifier") ==
        std::vector<std::string>{"classlabels_ints", "classlabels_strings", "coefficients",
                                 "intercepts", "multi_class", "post_transform"});
  CHECK_FALSE(registry.context->ops.find("LinearClassifier").valid());

  CHECK_FALSE(registry.context->ops.find("com.microsoft.FusedConv").valid());
  const OpInfo& fused = registry.info("com.microsoft.FusedConv");
  CHECK_FALSE(fused.known);
  CHECK(fused.pattern_kind == OpPatternKind::kOpaque);
  CHECK_FALSE(fused.commutative);
  CHECK_FALSE(fused.stateful);
  CHECK(registry.context->ops.schema(fused) == nullptr);
  CHECK(registry.context->ops.size() == size + 1);
}

TEST_CASE("ONNX property table: every row's op is registered and its source says so",
          "[onnx][dialect]") {
  Registry onnx_registry;
  auto relay = graphpat::Context::create<graphpat::relay::Dialect>();
  std::set<std::string_view> seen;
  for (const graphpat::onnx::detail::OpPropertyRow& row : graphpat::onnx::detail::kOpProperties) {
    INFO(row.op);
    CHECK(seen.insert(row.op).second);
    CHECK(onnx_registry.context->ops.find(row.op).valid());
    const OpInfo& info = onnx_registry.info(row.op);
    CHECK(info.pattern_kind == row.pattern_kind);
    CHECK(info.commutative == row.commutative);
    CHECK(info.stateful == row.stateful);
    CHECK((!row.relay_op.empty() || !row.doc_words.empty()));
    if (!row.relay_op.empty()) {
      graphpat::OpId relay_op = relay->ops.find(row.relay_op);
      REQUIRE(relay_op.valid());
      const OpInfo& tvm = relay->ops.info(relay_op);
      CHECK(tvm.pattern_kind == row.pattern_kind);
      if (row.commutative) CHECK(tvm.commutative);
    }
    if (!row.doc_words.empty()) {
      graphpat::onnx::OpIdentity identity = graphpat::onnx::split_op_name(row.op);
      const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(
          std::string(identity.op_type), std::string(identity.domain));
      REQUIRE(schema != nullptr);
      REQUIRE(schema->doc() != nullptr);
      CHECK_THAT(squeezed(schema->doc()), Catch::Contains(std::string(row.doc_words)));
    }
  }
  CHECK(seen.size() == 100);
}

TEST_CASE("ONNX conventions: Add/Sub/Mul/Div, no associativity retries", "[onnx][dialect]") {
  constexpr graphpat::DialectConventions conventions =
      graphpat::dialect_conventions<graphpat::onnx::Dialect>();
  CHECK(conventions.arithmetic.of(graphpat::ArithmeticRole::kMultiply) == "Mul");
  CHECK(conventions.arithmetic.of(graphpat::ArithmeticRole::kSubtract) == "Sub");
  CHECK_FALSE(conventions.associativity_retries);
  CHECK(conventions.composite_key == "graphpat.composite");
}
