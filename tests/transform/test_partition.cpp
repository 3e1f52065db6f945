// Partition's own behaviour beyond TVM's fixtures: the origin case's derived acceptance scenario
// (pattern-semantics.md §0.1) in both modes, the report's rejection reasons, the check options,
// partition-then-inline giving back the input on every corpus model, and a million-node graph.
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <graphpat/analysis/compact.hpp>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/partition.hpp>

#include "support/transform_cases.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

/// Replaces every call of a partitioned function literal by the function's body.
relay::Module inline_partitioned(const relay::Module& module) {
  const relay::Graph& graph = module.graph;
  relay::Graph out(graph.shared_context());
  relay::Builder builder(out);
  std::vector<NodeId> map(graph.size());
  std::vector<NodeId> operands;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    operands.clear();
    for (NodeId operand : graph.operands(id)) operands.push_back(map[operand.index()]);
    map[i] = builder.copy(graph, id, operands);
    if (graph.kind(id) != NodeKind::kCall ||
        !detail::is_partitioned_function(graph, graph.callee(id))) {
      continue;
    }
    NodeId function = graph.callee(id);
    absl::flat_hash_map<NodeId, NodeId> inner;
    for (std::size_t k = 0; k < graph.params(function).size(); ++k) {
      inner[graph.params(function)[k]] = map[graph.args(id)[k].index()];
    }
    // The body's nodes in id order (operands first), copied reading the arguments.
    std::vector<NodeId> body;
    std::vector<NodeId> stack{graph.body(function)};
    absl::flat_hash_map<NodeId, bool> seen;
    while (!stack.empty()) {
      NodeId top = stack.back();
      stack.pop_back();
      if (inner.contains(top) || !seen.emplace(top, true).second) continue;
      body.push_back(top);
      for (NodeId operand : graph.operands(top)) stack.push_back(operand);
    }
    std::sort(body.begin(), body.end());
    for (NodeId node : body) {
      operands.clear();
      for (NodeId operand : graph.operands(node)) {
        auto found = inner.find(operand);
        operands.push_back(found == inner.end() ? map[operand.index()] : found->second);
      }
      inner[node] = builder.copy(graph, node, operands);
    }
    map[i] = inner.at(graph.body(function));
  }
  return compact(module.remapped(std::move(out), [&](NodeId old_id) { return map[old_id.index()]; }));
}

constexpr const char* kBnGet0 =
    "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
    "wildcard()), 0)";

// §0.1: two distinct `bn.0` nodes on one batch_norm, both used by one add.
constexpr const char* kOrigin = R"(#[version = "0.0.5"]
def @main(%x, %g, %b, %m, %v) {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v);
  %1 = %0.0;
  %2 = %0.0;
  add(%1, %2)
}
)";

}  // namespace

TEST_CASE("the origin scenario: refused without CSE, one function after", "[partition][origin]") {
  relay::Module input = parse_module_text(kOrigin);
  Pattern pattern = pattern_of(kBnGet0);
  SECTION("relay_compat: unchanged, both groups refused for the other TupleGetItem") {
    auto result = partition(pattern, input, {.relay_compat = true});
    CHECK(result.report.accepted == 0);
    CHECK(*result.module.find("main") == *input.find("main"));
    CHECK(result.module.graph.size() == input.graph.size());
    REQUIRE(result.report.rejected.size() == 2);
    for (const RejectedGroup& rejected : result.report.rejected) {
      CHECK(rejected.reason == RejectionReason::kUsedOutside);
      CHECK(input.graph.kind(rejected.node) == NodeKind::kCall);           // the batch_norm
      CHECK(input.graph.kind(rejected.user) == NodeKind::kTupleGetItem);  // the other `.0`
    }
  }
  // Expected as pattern-semantics.md §0.1 states it.
  relay::Module expected = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %g, %b, %m, %v) {
  %2 = fn (%FunctionVar_0_0, %FunctionVar_0_1, %FunctionVar_0_2, %FunctionVar_0_3, %FunctionVar_0_4, PartitionedFromPattern="nn.batch_norm_TupleGetItem0_") {
    %1 = nn.batch_norm(%FunctionVar_0_0, %FunctionVar_0_1, %FunctionVar_0_2, %FunctionVar_0_3, %FunctionVar_0_4);
    %1.0
  };
  %3 = %2(%x, %g, %b, %m, %v);
  add(%3, %3)
}
)");
  SECTION("default mode: CSE first, one function called once, its call used twice") {
    auto result = partition(pattern, input);
    CHECK(result.report.accepted == 1);
    CHECK(result.report.cse.merged == 1);
    require_equal(result.module, expected);
  }
  SECTION("relay_compat after relay_compat CSE: the same") {
    auto merged = eliminate_common_subexpr(input, {.relay_compat = true});
    auto result = partition(pattern, merged.module, {.relay_compat = true});
    CHECK(result.report.accepted == 1);
    require_equal(result.module, expected);
  }
}

TEST_CASE("partition reports every rejected group with its reason", "[partition][report]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  nn.relu(%1)
}
)");
  Pattern pattern = pattern_of("is_op('nn.relu')(is_op('nn.relu')(wildcard()))");
  NodeId main = *input.find("main");
  NodeId outer = input.graph.body(main);
  NodeId middle = input.graph.args(outer)[0];
  SECTION("overlap: the first claimant (output side) wins") {
    auto result = partition(pattern, input, {.relay_compat = true});
    CHECK(result.report.accepted == 1);
    REQUIRE(result.report.rejected.size() == 1);
    CHECK(result.report.rejected[0].reason == RejectionReason::kOverlap);
    CHECK(result.report.rejected[0].root == middle);
    CHECK(result.report.rejected[0].node == middle);
  }
  SECTION("check returned false: nothing changes, the nodes stay claimed") {
    auto result = partition(pattern, input,
                            {.check = [](const relay::Graph&, NodeId) { return false; },
                             .relay_compat = true});
    CHECK(result.report.accepted == 0);
    CHECK(*result.module.find("main") == main);
    REQUIRE(result.report.rejected.size() == 2);
    CHECK(result.report.rejected[0].reason == RejectionReason::kOverlap);
    CHECK(result.report.rejected[1].reason == RejectionReason::kCheckFailed);
    CHECK(result.report.rejected[1].root == outer);
    CHECK(rejection_reason_name(result.report.rejected[1].reason) == "check_failed");
  }
}

TEST_CASE("check sees the original root, or only the group (tvm#9767)", "[partition][check]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %w) {
  %0 = multiply(%x, %x);
  %1 = nn.conv2d(%0, %w);
  nn.relu(%1)
}
)");
  Pattern pattern = pattern_of("is_op('nn.relu')(is_op('nn.conv2d')(wildcard(), wildcard()))");
  // True when the conv's data argument is a variable: in the group's own body it is the
  // parameter FunctionVar_0_0; in the whole graph it is the multiply.
  auto data_is_var = [](const relay::Graph& graph, NodeId relu) {
    NodeId conv = graph.args(relu)[0];
    return graph.kind(graph.args(conv)[0]) == NodeKind::kVar;
  };
  auto whole = partition(pattern, input, {.check = data_is_var, .relay_compat = true});
  CHECK(whole.report.accepted == 0);
  auto group_only = partition(
      pattern, input, {.check = data_is_var, .relay_compat = true, .check_sees_group_only = true});
  CHECK(group_only.report.accepted == 1);
}

TEST_CASE("partition then inline gives back the input on every corpus model",
          "[partition][roundtrip]") {
  for (const char* model : kCorpusModels) {
    relay::Module input =
        parse_module_text(read_file(kCorpus / "models" / (std::string(model) + ".relay")));
    relay::Module merged = eliminate_common_subexpr(input).module;
    for (const auto& [name, text] : corpus_patterns()) {
      DYNAMIC_SECTION(model << " " << name) {
        Pattern pattern = pattern_of(text);
        auto tvm = partition(pattern, input, {.relay_compat = true});
        require_equal(inline_partitioned(tvm.module), compact(input));
        auto ours = partition(pattern, input);
        require_equal(inline_partitioned(ours.module), compact(merged));
      }
    }
  }
}

TEST_CASE("a million-node graph partitions", "[partition][large]") {
  relay::Module module;
  relay::Builder b(module.graph);
  NodeId x = b.var("x");
  NodeId y = b.var("y");
  NodeId value = x;
  constexpr std::uint32_t kLayers = 500'000;
  for (std::uint32_t i = 0; i < kLayers; ++i) value = b.call("nn.relu", {b.call("add", {value, y})});
  module.add_function("main", b.function({x, y}, value));
  REQUIRE(module.graph.size() > 1'000'000);
  Pattern pattern = pattern_of("is_op('nn.relu')(is_op('add')(wildcard(), wildcard()))");
  auto result = partition(pattern, module);
  CHECK(result.report.accepted == kLayers);
  CHECK(result.report.rejected.empty());
}

TEST_CASE("duplicated inputs: one parameter, or one per use (tvm#14097)", "[partition][params]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = add(%x, %x);
  nn.relu(%0)
}
)");
  Pattern pattern = pattern_of("is_op('nn.relu')(is_op('add')(wildcard(), wildcard()))");
  auto shared = partition(pattern, input, {.relay_compat = true});
  CHECK(shared.report.accepted == 1);
  require_equal(shared.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %2 = fn (%p, PartitionedFromPattern="add_nn.relu_") {
    %1 = add(%p, %p);
    nn.relu(%1)
  };
  %2(%x)
}
)"));
  auto separate =
      partition(pattern, input, {.relay_compat = true, .separate_duplicate_inputs = true});
  CHECK(separate.report.accepted == 1);
  require_equal(separate.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %2 = fn (%p, %q, PartitionedFromPattern="add_nn.relu_") {
    %1 = add(%p, %q);
    nn.relu(%1)
  };
  %2(%x, %x)
}
)"));
}
