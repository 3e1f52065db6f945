// Partition's own behaviour beyond TVM's fixtures: the origin case's derived acceptance scenario
// (docs/semantics.md §8) in both modes, the report's rejection reasons, the check options,
// partition-then-inline giving back the input on every corpus model, and a million-node graph.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <graphpat/analysis/compact.hpp>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/partition.hpp>

#include "support/inline_calls.hpp"
#include "support/scale.hpp"
#include "support/transform_cases.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

constexpr const char* kBnGet0 =
    "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
    "wildcard()), 0)";

// docs/semantics.md §8: two distinct `bn.0` nodes on one batch_norm, both used by one add.
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
  // Expected as docs/semantics.md §8 states it.
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
  SECTION("a node an earlier group holds where the pattern does not match: nothing to report") {
    relay::Module pair = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = nn.relu(%x);
  nn.relu(%0)
}
)");
    auto result = partition(pattern, pair, {.relay_compat = true});
    CHECK(result.report.accepted == 1);
    CHECK(result.report.rejected.empty());
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

// The first fuzz_graph_passes finding (session 7), by hand: conv %1 is inside the bias_add group
// and also read by the relu outside it, whose only path leads back to the group's root, so the
// group is accepted (tvm#11616) and the function computes its own conv2d.
TEST_CASE("an interior node used outside under the root is computed twice, and reported",
          "[partition][report]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x1, %x2) {
  %0 = nn.conv2d(%x2, %x2);
  %1 = nn.conv2d(%0, %x1);
  %2 = nn.relu(%1);
  nn.bias_add(%1, %2)
}
)");
  Pattern pattern = pattern_of(
      "is_op('nn.conv2d')(wildcard(), wildcard()).optional(lambda x: is_op('nn.bias_add')(x, "
      "wildcard())).optional(lambda x: is_op('nn.relu')(x))");
  NodeId bias_add = input.graph.body(*input.find("main"));
  NodeId conv = input.graph.args(bias_add)[0];
  NodeId relu = input.graph.args(bias_add)[1];
  // Groups are tried output side first: the bias_add's (number 0) takes conv %1; the relu's
  // (1) and conv %1's own (2) overlap it; conv %0's (3) is outlined alone.
  relay::Module expected = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x1, %x2) {
  %1 = fn (%FunctionVar_3_0, PartitionedFromPattern="nn.conv2d_") {
    nn.conv2d(%FunctionVar_3_0, %FunctionVar_3_0)
  };
  %2 = %1(%x2);
  %3 = nn.conv2d(%2, %x1);
  %4 = nn.relu(%3);
  %5 = fn (%FunctionVar_0_0, %FunctionVar_0_1, %FunctionVar_0_2, PartitionedFromPattern="nn.conv2d_nn.bias_add_") {
    %0 = nn.conv2d(%FunctionVar_0_0, %FunctionVar_0_1);
    nn.bias_add(%0, %FunctionVar_0_2)
  };
  %5(%2, %x1, %4)
}
)");
  for (bool relay_compat : {false, true}) {
    CAPTURE(relay_compat);
    auto result = partition(pattern, input, {.relay_compat = relay_compat});
    require_equal(result.module, expected);
    CHECK(result.report.accepted == 2);
    REQUIRE(result.report.rejected.size() == 2);
    CHECK(result.report.rejected[0].root == relu);
    CHECK(result.report.rejected[0].reason == RejectionReason::kOverlap);
    CHECK(result.report.rejected[0].node == conv);
    CHECK(result.report.rejected[1].root == conv);
    CHECK(result.report.rejected[1].reason == RejectionReason::kOverlap);
    CHECK(result.report.rejected[1].node == conv);
    REQUIRE(result.report.duplicated.size() == 1);
    CHECK(result.report.duplicated[0].root == bias_add);
    CHECK(result.report.duplicated[0].node == conv);
    CHECK(result.report.duplicated[0].user == relu);
    // Inlining undoes the partition up to the function's copy of conv %1; merging gives the
    // input.
    require_equal(eliminate_common_subexpr(inline_function_calls(result.module)).module, input);
  }
}

// TVM copies a dropout into the function as readily as a conv2d; two dropouts draw two masks, so
// the default mode refuses such a group.
TEST_CASE("the default mode refuses a group that would compute a stateful call twice",
          "[partition][report]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = nn.dropout(%x);
  %1 = %0.0;
  %2 = nn.relu(%1);
  add(%1, %2)
}
)");
  Pattern pattern =
      pattern_of("is_op('add')(is_tuple_get_item(is_op('nn.dropout')(wildcard()), 0), wildcard())");
  SECTION("relay_compat: accepted as TVM does, the dropout and its projection computed twice") {
    auto result = partition(pattern, input, {.relay_compat = true});
    require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = nn.dropout(%x);
  %1 = %0.0;
  %2 = nn.relu(%1);
  %5 = fn (%FunctionVar_0_0, %FunctionVar_0_1, PartitionedFromPattern="nn.dropout_TupleGetItem0_add_") {
    %3 = nn.dropout(%FunctionVar_0_0);
    %4 = %3.0;
    add(%4, %FunctionVar_0_1)
  };
  %5(%x, %2)
}
)"));
    CHECK(result.report.rejected.empty());
    REQUIRE(result.report.duplicated.size() == 1);
    NodeId add = input.graph.body(*input.find("main"));
    CHECK(result.report.duplicated[0].root == add);
    CHECK(result.report.duplicated[0].node == input.graph.args(add)[0]);  // the projection
    CHECK(result.report.duplicated[0].user == input.graph.args(add)[1]);  // the relu
  }
  SECTION("default mode: refused, naming the dropout and the outside user") {
    auto result = partition(pattern, input);
    const relay::Module merged = eliminate_common_subexpr(input).module;
    require_equal(result.module, merged);
    CHECK(result.report.accepted == 0);
    CHECK(result.report.duplicated.empty());
    REQUIRE(result.report.rejected.size() == 1);
    const RejectedGroup& rejected = result.report.rejected[0];
    NodeId add = input.graph.body(*input.find("main"));  // ids of the input, not of `merged`
    CHECK(rejected.root == add);
    CHECK(rejected.reason == RejectionReason::kDuplicatesStateful);
    CHECK(rejected.node == input.graph.operands(input.graph.args(add)[0])[0]);  // the dropout
    CHECK(rejected.user == input.graph.args(add)[1]);                            // the relu
    CHECK(rejected.entry == 0);
    CHECK(rejection_reason_name(rejected.reason) == "duplicates_stateful");
  }
}

namespace {

/// Names the nodes `names` lists as the test's text numbers them.
NodeNames text_numbers(std::vector<std::pair<NodeId, std::string>> names) {
  return NodeNames([names = std::move(names)](NodeId id) {
    for (const auto& [node, name] : names) {
      if (node == id) return name;
    }
    return std::string("?");
  });
}

}  // namespace

// Issue 22: the default mode groups CSE's graph, but the report names the input's nodes; a node
// CSE merged stands for the first of the input nodes it merged (here relu %2 for %2 and %3).
TEST_CASE("report ids are of the input graph, and describe words them", "[partition][report]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = nn.dropout(%x);
  %1 = %0.0;
  %2 = nn.relu(%1);
  %3 = nn.relu(%1);
  %4 = add(%2, %3);
  add(%1, %4)
}
)");
  const relay::Graph& graph = input.graph;
  NodeId root = graph.body(*input.find("main"));
  NodeId projection = graph.args(root)[0];
  NodeId dropout = graph.tuple(projection);
  NodeId inner_add = graph.args(root)[1];
  NodeId relu2 = graph.args(inner_add)[0];
  NodeId relu3 = graph.args(inner_add)[1];
  REQUIRE(relu2 != relu3);
  REQUIRE(relu2.index() < relu3.index());
  NodeNames names = text_numbers({{root, "%5"}, {projection, "%1"}, {dropout, "%0"},
                                  {relu2, "%2"}, {relu3, "%3"}, {inner_add, "%4"}});
  Pattern pattern =
      pattern_of("is_op('add')(is_tuple_get_item(is_op('nn.dropout')(wildcard()), 0), wildcard())");

  auto result = partition(pattern, input);
  CHECK(result.report.cse.merged == 1);
  CHECK(result.report.accepted == 0);
  REQUIRE(result.report.rejected.size() == 1);
  const RejectedGroup& rejected = result.report.rejected[0];
  CHECK(rejected.root == root);
  CHECK(rejected.reason == RejectionReason::kDuplicatesStateful);
  CHECK(rejected.node == dropout);
  CHECK(rejected.user == relu2);
  CHECK(describe(rejected, graph, names) ==
        "group at %5 (add) refused: an interior node is also used by %2 (nn.relu) outside the "
        "group, so the function would compute a second time the stateful call %0 "
        "(nn.dropout)");

  SECTION("relay_compat: no CSE, accepted, the projection computed twice, once per relu") {
    auto compat = partition(pattern, input, {.relay_compat = true});
    CHECK(compat.report.rejected.empty());
    REQUIRE(compat.report.duplicated.size() == 2);
    std::vector<std::string> lines;
    for (const DuplicatedInterior& duplicated : compat.report.duplicated) {
      CHECK(duplicated.root == root);
      CHECK(duplicated.node == projection);
      lines.push_back(describe(duplicated, graph, names));
    }
    std::sort(lines.begin(), lines.end());
    CHECK(lines == std::vector<std::string>{
                       "group at %5 (add) computes interior %1 (TupleGetItem) a second time: %2 "
                       "(nn.relu), outside the group, also uses it (the group's root "
                       "post-dominates it)",
                       "group at %5 (add) computes interior %1 (TupleGetItem) a second time: %3 "
                       "(nn.relu), outside the group, also uses it (the group's root "
                       "post-dominates it)"});
  }
}

TEST_CASE("describe words every rejection reason", "[partition][report]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  nn.relu(%1)
}
)");
  const relay::Graph& graph = input.graph;
  NodeId outer = graph.body(*input.find("main"));
  NodeId middle = graph.args(outer)[0];
  NodeId inner = graph.args(middle)[0];
  NodeId x = graph.args(inner)[0];
  NodeNames names = text_numbers({{outer, "%2"}, {middle, "%1"}, {inner, "%0"}, {x, "%x"}});
  auto words = [&](RejectionReason reason, NodeId root, NodeId node, NodeId user) {
    return describe(RejectedGroup{root, reason, node, user, 0}, graph, names);
  };
  CHECK(words(RejectionReason::kOverlap, middle, middle, {}) ==
        "group at %1 (nn.relu) refused: its root already belongs to an earlier group");
  CHECK(words(RejectionReason::kOverlap, outer, middle, {}) ==
        "group at %2 (nn.relu) refused: interior %1 (nn.relu) already belongs to an earlier "
        "group");
  CHECK(words(RejectionReason::kUsedOutside, middle, inner, outer) ==
        "group at %1 (nn.relu) refused: interior %0 (nn.relu) is used by %2 (nn.relu) outside "
        "the group, which the group's root does not post-dominate");
  CHECK(words(RejectionReason::kCheckFailed, outer, {}, {}) ==
        "group at %2 (nn.relu) refused: the check returned false");
  CHECK(words(RejectionReason::kEscapingVariable, middle, inner, x) ==
        "group at %1 (nn.relu) refused: %0 (nn.relu) binds a variable that %x (var x), outside "
        "the group, reads");
  CHECK(describe(RejectedGroup{outer, RejectionReason::kCheckFailed, {}, {}, 1}, graph, {},
                 "relu_relu") ==
        fmt::format("group of 'relu_relu' at %{} (nn.relu) refused: the check returned false",
                    outer.index()));
}

// A pattern table's later entry groups the graph the earlier ones made; its lines still name
// the input's nodes, and say which entry they come from.
TEST_CASE("merge_composite reports ids of the input and each line's table entry",
          "[partition][report]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = abs(%x);
  %1 = nn.relu(%0);
  %2 = nn.relu(%1);
  nn.relu(%2)
}
)");
  NodeId outer = input.graph.body(*input.find("main"));
  NodeId middle = input.graph.args(outer)[0];
  std::vector<CompositePattern<relay::Dialect>> table = {
      {.name = "abs", .pattern = pattern_of("is_op('abs')(wildcard())")},
      {.name = "relu_relu", .pattern = pattern_of("is_op('nn.relu')(is_op('nn.relu')(wildcard()))")}};
  for (bool relay_compat : {false, true}) {
    CAPTURE(relay_compat);
    auto result = merge_composite(table, input, {.relay_compat = relay_compat});
    CHECK(result.report.accepted == 2);
    // The second entry: the group at %3 takes %2, whose own group then overlaps it; %1 reads
    // the abs function's call, not a relu.
    REQUIRE(result.report.rejected.size() == 1);
    const RejectedGroup& rejected = result.report.rejected[0];
    CHECK(rejected.entry == 1);
    CHECK(rejected.reason == RejectionReason::kOverlap);
    CHECK(rejected.root == middle);
    CHECK(rejected.node == middle);
    CHECK(describe(rejected, input.graph, text_numbers({{middle, "%2"}}),
                   table[rejected.entry].name) ==
          "group of 'relu_relu' at %2 (nn.relu) refused: its root already belongs to an "
          "earlier group");
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
        CHECK(tvm.report.duplicated.empty());
        require_equal(inline_function_calls(tvm.module), compact(input));
        auto ours = partition(pattern, input);
        CHECK(ours.report.duplicated.empty());
        require_equal(inline_function_calls(ours.module), compact(merged));
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
  constexpr std::uint32_t kLayers = graphpat::testing::kLargeGraphNodes / 2;  // sanitized: a quarter
  for (std::uint32_t i = 0; i < kLayers; ++i) value = b.call("nn.relu", {b.call("add", {value, y})});
  module.add_function("main", b.function({x, y}, value));
  REQUIRE(module.graph.size() > graphpat::testing::kLargeGraphNodes);
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
