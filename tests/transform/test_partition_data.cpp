// Partition against TVM's own results: every `partition` case of tests/data/corpus/conformance
// (output structurally equal to TVM's expected.relay; `unchanged` cases give back the input
// itself), every corpus model × pattern against TVM's partition output, and the origin case
// (apache/tvm#5928) in numbers.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/partition.hpp>

#include "support/partition_checks.hpp"
#include "support/transform_cases.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

Attrs attrs_of(const nlohmann::json& item) {
  Attrs attrs;
  if (!item.contains("attrs")) return attrs;
  for (auto it = item["attrs"].begin(); it != item["attrs"].end(); ++it) {
    attrs.emplace_back(it.key(), it.value().get<std::string>());
  }
  return attrs;
}

}  // namespace

TEST_CASE("partition conformance cases give TVM's expected output", "[partition][conformance]") {
  std::vector<ConformanceCase> cases = conformance_cases("partition");
  CHECK(cases.size() == 37);  // the README's count
  for (const auto& [name, folder, spec] : cases) {
    DYNAMIC_SECTION(name) {
      relay::Module input = parse_module_text(read_file(folder / "input.relay"));
      NodeId root = case_root(input, spec);
      ExprNames names(spec);
      PartitionOptions<relay::Dialect> options{.relay_compat = true};
      if (spec["options"].contains("check")) {
        auto check = check_from_description(spec["options"]["check"].get<std::string>());
        INFO(spec["options"]["check"]);
        REQUIRE(check.has_value());
        options.check = *check;
      }
      std::vector<nlohmann::json> steps;
      if (spec.contains("steps")) {
        for (const auto& step : spec["steps"]) steps.push_back(step);
      } else {
        steps.push_back(spec);
      }
      relay::Graph graph = input.graph;
      for (const nlohmann::json& step : steps) {
        options.attrs = attrs_of(step);
        Pattern pattern = pattern_of(step["pattern"], names.options);
        auto result = partition(pattern, graph, root, options);
        graph = std::move(result.graph);
        root = result.root;
      }
      if (spec["unchanged"] == true) {
        CHECK(root == case_root(input, spec));
        CHECK(graph.size() == input.graph.size());
      } else {
        relay::Module expected = parse_module_text(read_file(folder / "expected.relay"));
        require_equal(graph, root, expected.graph, case_root(expected, spec));
      }
    }
  }
}

TEST_CASE("relay_compat partition of every corpus model gives TVM's output",
          "[partition][corpus]") {
  nlohmann::json results = nlohmann::json::parse(read_file(kCorpus / "tvm" / "results.json"));
  for (const auto& [pattern_name, pattern_text] : corpus_patterns()) {
    Pattern pattern = pattern_of(pattern_text);
    for (const char* model : kCorpusModels) {
      for (bool with_cse : {false, true}) {
        std::string file = pattern_name + (with_cse ? ".cse.relay" : ".relay");
        std::filesystem::path expected_path = kCorpus / "tvm" / "partition" / model / file;
        if (!std::filesystem::exists(expected_path)) continue;
        DYNAMIC_SECTION(model << " " << file) {
          relay::Module input =
              parse_module_text(read_file(kCorpus / "models" / (std::string(model) + ".relay")));
          if (with_cse) {
            input = eliminate_common_subexpr(input, {.relay_compat = true}).module;
          }
          auto result = partition(pattern, input, {.relay_compat = true});
          const nlohmann::json& counts = results[model]["patterns"][pattern_name];
          CHECK(result.report.accepted ==
                counts[with_cse ? "partitions_after_cse" : "partitions"].get<std::uint32_t>());
          relay::Module expected = parse_module_text(read_file(expected_path));
          require_equal(result.module, expected);
        }
      }
    }
  }
}

TEST_CASE("the origin case: every batch_norm of MobileNetV2 (MXNet style) is partitioned",
          "[partition][origin]") {
  relay::Module model =
      parse_module_text(read_file(kCorpus / "models" / "mobilenet_v2_mxnet_style.relay"));
  Pattern bn_get0 = pattern_of(
      "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
      "wildcard()), 0)");
  SECTION("default mode merges the duplicated TupleGetItems first") {
    auto result = partition(bn_get0, model);
    CHECK(result.report.accepted == 53);
    CHECK(result.report.rejected.empty());
    CHECK(result.report.cse.merged >= 5);
  }
  SECTION("relay_compat without CSE keeps TVM's 48 and says why the 5 others were refused") {
    auto result = partition(bn_get0, model, {.relay_compat = true});
    CHECK(result.report.accepted == 48);
    int used_outside = 0;
    for (const RejectedGroup& rejected : result.report.rejected) {
      if (rejected.reason == RejectionReason::kUsedOutside) ++used_outside;
    }
    CHECK(used_outside == 10);  // both TupleGetItems of each of the five batch_norms
  }
  SECTION("relay_compat after relay_compat CSE gives 53") {
    auto merged = eliminate_common_subexpr(model, {.relay_compat = true});
    auto result = partition(bn_get0, merged.module, {.relay_compat = true});
    CHECK(result.report.accepted == 53);
  }
}
