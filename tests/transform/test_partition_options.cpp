// The options of partition, MergeComposite and rewrite one at a time (docs/semantics.md §1):
// the matcher's rules, merging duplicates first and refusing stateful copies each change the
// outcome alone, on small modules whose outcomes are derived by hand; and the `relay_compat`
// preset is the three set as TVM does, on the origin case (MobileNetV2, 48 groups).
#include <fmt/format.h>

#include <graphpat/cse.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/rewrite.hpp>
#include <string>
#include <vector>

#include "support/test_files.hpp"
#include "support/transform_cases.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

constexpr MatchOptions kTvmMatcher{.relay_compat = true};
constexpr MatchOptions kGraphpatMatcher{};

/// Every line of a partition report, ids and all, so that two reports compare as strings.
std::string report_text(const PartitionReport& report) {
  std::string text = fmt::format("accepted {}, not outlined {}, cse merged {}\n", report.accepted,
                                 report.not_outlined, report.cse.merged);
  for (const RejectedGroup& rejected : report.rejected) {
    text += fmt::format("rejected {} {} {} {}\n", rejected.root,
                        rejection_reason_name(rejected.reason), rejected.node, rejected.user);
  }
  for (const DuplicatedInterior& duplicated : report.duplicated) {
    text += fmt::format("duplicated {} {} {}\n", duplicated.root, duplicated.node, duplicated.user);
  }
  return text;
}

// Two equal relus under two equal maximums, each relu the maximum's second argument: TVM's
// matcher retries swapped arguments only under is_op("add") / is_op("multiply"), so it finds no
// maximum(relu, _); graphpat's retries any commutative op and finds both, or the one left after
// merging duplicates.
constexpr const char* kSwappedMaximums = R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  %2 = maximum(%y, %0);
  %3 = maximum(%y, %1);
  add(%2, %3)
}
)";
constexpr const char* kMaximumOfRelu = "is_op('maximum')(is_op('nn.relu')(wildcard()), wildcard())";

// A dropout read by two equal projections, one inside the add's group and one outside it, under
// the add: without merging, the group would copy the dropout; after merging, the projection.
constexpr const char* kDropoutTwoProjections = R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = nn.dropout(%x);
  %1 = %0.0;
  %2 = %0.0;
  %3 = nn.relu(%2);
  add(%1, %3)
}
)";
constexpr const char* kAddOfDropout =
    "is_op('add')(is_tuple_get_item(is_op('nn.dropout')(wildcard()), 0), wildcard())";

}  // namespace

TEST_CASE("the matcher's rules and merging duplicates first are two options",
          "[partition][options]") {
  relay::Module input = parse_module_text(kSwappedMaximums);
  Pattern pattern = pattern_of(kMaximumOfRelu);
  const relay::Module merged = eliminate_common_subexpr(input).module;
  SECTION("graphpat's rules after merging (the default): the one maximum left") {
    auto result =
        partition(pattern, input, {.match = kGraphpatMatcher, .merge_duplicates_first = true});
    CHECK(result.report.cse.merged == 2);  // the second relu and the second maximum
    CHECK(result.report.accepted == 1);
    require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %1 = fn (%FunctionVar_0_0, %FunctionVar_0_1, PartitionedFromPattern="nn.relu_maximum_") {
    %0 = nn.relu(%FunctionVar_0_0);
    maximum(%FunctionVar_0_1, %0)
  };
  %2 = %1(%x, %y);
  add(%2, %2)
}
)"));
  }
  SECTION("graphpat's rules on the input as given: both maximums, the later one first") {
    auto result = partition(pattern, input, {.relay_compat = true, .match = kGraphpatMatcher});
    CHECK(result.report.cse.merged == 0);
    CHECK(result.report.accepted == 2);
    require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %1 = fn (%FunctionVar_1_0, %FunctionVar_1_1, PartitionedFromPattern="nn.relu_maximum_") {
    %0 = nn.relu(%FunctionVar_1_0);
    maximum(%FunctionVar_1_1, %0)
  };
  %2 = %1(%x, %y);
  %4 = fn (%FunctionVar_0_0, %FunctionVar_0_1, PartitionedFromPattern="nn.relu_maximum_") {
    %3 = nn.relu(%FunctionVar_0_0);
    maximum(%FunctionVar_0_1, %3)
  };
  %5 = %4(%x, %y);
  add(%2, %5)
}
)"));
    auto same = partition(pattern, input, {.merge_duplicates_first = false});
    CHECK(report_text(same.report) == report_text(result.report));
    require_equal(same.module, result.module);
  }
  SECTION("TVM's rules after merging: no group, the merged module") {
    auto result = partition(pattern, input, {.match = kTvmMatcher});
    CHECK(result.report.cse.merged == 2);
    CHECK(result.report.accepted == 0);
    CHECK(result.report.rejected.empty());
    require_equal(result.module, merged);
    auto same = partition(pattern, input, {.relay_compat = true, .merge_duplicates_first = true});
    CHECK(report_text(same.report) == report_text(result.report));
    require_equal(same.module, result.module);
  }
  SECTION("TVM's rules on the input as given (the preset): the input itself") {
    auto result = partition(pattern, input, {.relay_compat = true});
    CHECK(report_text(result.report) == "accepted 0, not outlined 0, cse merged 0\n");
    CHECK(*result.module.find("main") == *input.find("main"));
    CHECK(result.module.graph.size() == input.graph.size());
  }
  SECTION("the graph entry point reads the same options") {
    NodeId main = *input.find("main");
    auto result = partition(pattern, input.graph, main, {.match = kTvmMatcher});
    CHECK(result.report.cse.merged == 2);
    CHECK(result.report.accepted == 0);
    require_equal(result.graph, result.root, merged.graph, *merged.find("main"));
    auto tvm_rules_unmerged =
        partition(pattern, input.graph, main, {.relay_compat = true, .match = kGraphpatMatcher});
    CHECK(tvm_rules_unmerged.report.accepted == 2);
  }
}

TEST_CASE("refusing stateful copies is an option of its own", "[partition][options]") {
  relay::Module input = parse_module_text(kDropoutTwoProjections);
  Pattern pattern = pattern_of(kAddOfDropout);
  NodeId add = input.graph.body(*input.find("main"));
  NodeId first_projection = input.graph.args(add)[0];
  NodeId dropout = input.graph.operands(first_projection)[0];
  NodeId relu = input.graph.args(add)[1];
  NodeId second_projection = input.graph.args(relu)[0];
  const relay::Module merged = eliminate_common_subexpr(input).module;
  // The report names the input's nodes: the merged projection is %1, the first of the two.
  // Accepted, merged or not, the group computes its own dropout and projection; the outside
  // keeps one projection, for the relu.
  const relay::Module accepted = parse_module_text(R"(#[version = "0.0.5"]
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
)");
  SECTION("merged first, refused (the default): the projection would be computed twice") {
    auto result = partition(pattern, input, {.refuse_stateful_copies = true});
    require_equal(result.module, merged);
    CHECK(report_text(result.report) == fmt::format("accepted 0, not outlined 0, cse merged 1\n"
                                                    "rejected {} duplicates_stateful {} {}\n",
                                                    add, dropout, relu));
  }
  SECTION("merged first, allowed: accepted, the projection copied") {
    auto result = partition(pattern, input, {.refuse_stateful_copies = false});
    require_equal(result.module, accepted);
    CHECK(report_text(result.report) == fmt::format("accepted 1, not outlined 0, cse merged 1\n"
                                                    "duplicated {} {} {}\n",
                                                    add, first_projection, relu));
  }
  SECTION("as given, refused: the dropout is read by the other projection") {
    auto result = partition(pattern, input, {.relay_compat = true, .refuse_stateful_copies = true});
    CHECK(*result.module.find("main") == *input.find("main"));
    CHECK(result.module.graph.size() == input.graph.size());
    CHECK(report_text(result.report) == fmt::format("accepted 0, not outlined 0, cse merged 0\n"
                                                    "rejected {} duplicates_stateful {} {}\n",
                                                    add, dropout, second_projection));
  }
  SECTION("as given, allowed (the preset): accepted, the dropout copied") {
    auto result = partition(pattern, input, {.relay_compat = true});
    require_equal(result.module, accepted);
    CHECK(report_text(result.report) == fmt::format("accepted 1, not outlined 0, cse merged 0\n"
                                                    "duplicated {} {} {}\n",
                                                    add, dropout, second_projection));
  }
  SECTION("MergeComposite reads the same option") {
    std::vector<CompositePattern<relay::Dialect>> table = {{.name = "add", .pattern = pattern}};
    CHECK(merge_composite(table, input).report.accepted == 0);
    CHECK(merge_composite(table, input, {.refuse_stateful_copies = false}).report.accepted == 1);
    CHECK(merge_composite(table, input, {.relay_compat = true, .refuse_stateful_copies = true})
              .report.accepted == 0);
  }
}

TEST_CASE("MergeComposite and rewrite take the matcher's rules and merging separately",
          "[partition][options]") {
  relay::Module input = parse_module_text(kSwappedMaximums);
  Pattern pattern = pattern_of(kMaximumOfRelu);
  std::vector<CompositePattern<relay::Dialect>> table = {{.name = "max_relu", .pattern = pattern}};
  CHECK(merge_composite(table, input).report.accepted == 1);
  CHECK(merge_composite(table, input, {.merge_duplicates_first = false}).report.accepted == 2);
  CHECK(merge_composite(table, input, {.match = kTvmMatcher}).report.accepted == 0);
  CHECK(merge_composite(table, input, {.relay_compat = true, .match = kGraphpatMatcher})
            .report.accepted == 2);

  // A callback that replaces nothing: the report counts the groups it was handed.
  std::vector<RewriteCallback<relay::Dialect>> callbacks = {
      {.pattern = pattern,
       .rewrite = [](NodeId, NodeId post, const RewriteBindings&, Rewriter<relay::Dialect>&) {
         return post;
       }}};
  NodeId main = *input.find("main");
  auto groups_handed = [&](const RewriteOptions& options) {
    auto result = rewrite(callbacks, input.graph, main, options);
    CHECK(result.converged);
    return fmt::format("{} groups, cse merged {}", result.report.accepted,
                       result.report.cse.merged);
  };
  CHECK(groups_handed({}) == "1 groups, cse merged 2");
  CHECK(groups_handed({.merge_duplicates_first = false}) == "2 groups, cse merged 0");
  CHECK(groups_handed({.match = kTvmMatcher}) == "0 groups, cse merged 2");
  CHECK(groups_handed({.relay_compat = true}) == "0 groups, cse merged 0");
}

TEST_CASE("the relay_compat preset is TVM's three behaviours: the origin case's 48 groups",
          "[partition][options][origin]") {
  relay::Module model =
      parse_module_text(read_file(kCorpus / "models" / "mobilenet_v2_mxnet_style.relay"));
  Pattern bn_get0 = pattern_of(
      "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
      "wildcard()), 0)");
  auto preset = partition(bn_get0, model, {.relay_compat = true});
  auto spelled_out = partition(
      bn_get0, model,
      {.match = kTvmMatcher, .merge_duplicates_first = false, .refuse_stateful_copies = false});
  CHECK(preset.report.accepted == 48);
  CHECK(report_text(spelled_out.report) == report_text(preset.report));
  require_equal(spelled_out.module, preset.module);
  CHECK(spelled_out.module.graph.size() == preset.module.graph.size());

  auto graphpat_default = partition(bn_get0, model);
  CHECK(graphpat_default.report.accepted == 53);
  // Merging first is what recovers the five: TVM's rules after merging give 53 as well.
  auto merged_first =
      partition(bn_get0, model, {.relay_compat = true, .merge_duplicates_first = true});
  CHECK(merged_first.report.accepted == 53);
  CHECK(report_text(merged_first.report) == report_text(graphpat_default.report));
  require_equal(merged_first.module, graphpat_default.module);
}
