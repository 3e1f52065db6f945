// MergeComposite against TVM's own results: every `merge_composite` case of
// tests/data/corpus/conformance, plus the positive diamond test mc_11 cannot be (its clip
// pattern has three arguments and matches no Relay clip).
#include <filesystem>
#include <string>
#include <vector>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/partition.hpp>

#include "support/partition_checks.hpp"
#include "support/transform_cases.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

std::vector<CompositePattern<relay::Dialect>> table_of(const nlohmann::json& spec) {
  std::vector<CompositePattern<relay::Dialect>> table;
  for (const auto& row : spec["table"]) {
    CompositePattern<relay::Dialect> entry{.name = row[0], .pattern = pattern_of(row[1])};
    const nlohmann::json& checks = spec["options"];
    if (checks.contains("check") && checks["check"].contains(entry.name)) {
      std::string description = checks["check"][entry.name];
      auto check = check_from_description(description);
      INFO(description);
      REQUIRE(check.has_value());
      entry.check = *check;
    }
    table.push_back(std::move(entry));
  }
  return table;
}

// The diamond of mc_11 with a clip pattern Relay's clip can match (one argument).
constexpr const char* kDiamondPattern = R"(
x = wildcard()
y = wildcard()
z = wildcard()
conv_node = is_op("nn.conv2d")(x, y)
bias_node = is_op("nn.bias_add")(conv_node, z)
conv = is_op("nn.relu")(bias_node)
clip = is_op("clip")(conv)
is_op("multiply")(conv, clip))";

}  // namespace

TEST_CASE("merge_composite conformance cases give TVM's expected output",
          "[merge_composite][conformance]") {
  std::vector<ConformanceCase> cases = conformance_cases("merge_composite");
  CHECK(cases.size() == 18);  // the README's count
  for (const auto& [name, folder, spec] : cases) {
    DYNAMIC_SECTION(name) {
      REQUIRE(spec["root"] == "main");
      relay::Module input = parse_module_text(read_file(folder / "input.relay"));
      auto result = merge_composite(table_of(spec), input, {.relay_compat = true});
      NodeId main = *result.module.find("main");
      if (spec["unchanged"] == true) {
        CHECK(result.report.accepted == 0);
        require_equal(result.module.graph, main, input.graph, *input.find("main"));
      } else {
        relay::Module expected = parse_module_text(read_file(folder / "expected.relay"));
        CHECK(result.report.accepted > 0);
        require_equal(result.module.graph, main, expected.graph, *expected.find("main"));
      }
    }
  }
}

TEST_CASE("merge_composite outlines a true diamond whole", "[merge_composite][diamond]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%data, %kernel, %bias) {
  %0 = nn.conv2d(%data, %kernel, padding=[0, 0, 0, 0]);
  %1 = nn.bias_add(%0, %bias);
  %2 = nn.relu(%1);
  %3 = clip(%2, a_min=0f, a_max=255f);
  multiply(%2, %3)
}
)");
  std::vector<CompositePattern<relay::Dialect>> table = {
      {.name = "diamond", .pattern = pattern_of(kDiamondPattern)}};
  for (bool relay_compat : {true, false}) {
    auto result = merge_composite(table, input, {.relay_compat = relay_compat});
    CHECK(result.report.accepted == 1);
    CHECK(result.report.rejected.empty());
    relay::Module expected = parse_module_text(R"(#[version = "0.0.5"]
def @main(%data, %kernel, %bias) {
  %4 = fn (%a, %b, %c, PartitionedFromPattern="nn.conv2d_nn.bias_add_nn.relu_clip_multiply_", Composite="diamond") {
    %0 = nn.conv2d(%a, %b, padding=[0, 0, 0, 0]);
    %1 = nn.bias_add(%0, %c);
    %2 = nn.relu(%1);
    %3 = clip(%2, a_min=0f, a_max=255f);
    multiply(%2, %3)
  };
  %4(%data, %kernel, %bias)
}
)");
    require_equal(result.module.graph, *result.module.find("main"), expected.graph,
                  *expected.find("main"));
  }
  SECTION("the half diamond is refused: the relu is used outside the group") {
    std::vector<CompositePattern<relay::Dialect>> half = {
        {.name = "half", .pattern = pattern_of(R"(is_op("clip")(is_op("nn.relu")(wildcard())))")}};
    auto result = merge_composite(half, input, {.relay_compat = true});
    CHECK(result.report.accepted == 0);
    REQUIRE(result.report.rejected.size() == 1);
    CHECK(result.report.rejected[0].reason == RejectionReason::kUsedOutside);
  }
}

TEST_CASE("merge_composite: table order is priority, by_benefit reorders",
          "[merge_composite][benefit]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %0 = add(%x, %y);
  %1 = abs(%0);
  nn.relu(%1)
}
)");
  std::vector<CompositePattern<relay::Dialect>> table = {
      {.name = "add_abs", .pattern = pattern_of(R"(is_op("abs")(is_op("add")(wildcard(), wildcard())))"), .benefit = 1},
      {.name = "abs_relu", .pattern = pattern_of(R"(is_op("nn.relu")(is_op("abs")(wildcard())))"), .benefit = 2}};
  auto composite_name = [](const PartitionResult<relay::Dialect>& result) {
    const relay::Graph& graph = result.module.graph;
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      if (!graphpat::detail::is_partitioned_function(graph, NodeId(i))) continue;
      auto value = graph.context().attrs.find_field(graph.attrs(NodeId(i)), "Composite");
      return std::string(graph.context().attrs.text(*value));
    }
    return std::string();
  };
  auto in_order = merge_composite(table, input, {.relay_compat = true});
  CHECK(in_order.report.accepted == 1);
  CHECK(composite_name(in_order) == "add_abs");
  auto by_benefit = merge_composite(table, input, {.relay_compat = true, .by_benefit = true});
  CHECK(by_benefit.report.accepted == 1);
  CHECK(composite_name(by_benefit) == "abs_relu");
}
