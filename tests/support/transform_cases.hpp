// Test support for the transformation suites (partition, merge_composite, rewrite): the
// conformance cases of one op, the corpus patterns of patterns.txt, and structural comparisons
// that say where two graphs differ.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <graphpat/analysis/structural_equal.hpp>

#include "pattern/corpus_support.hpp"

namespace graphpat::testing {

/// One folder of tests/data/corpus/conformance.
struct ConformanceCase {
  std::string name;
  std::filesystem::path folder;
  nlohmann::json spec;
};

/// Every conformance case whose op is `op`, in folder-name order.
inline std::vector<ConformanceCase> conformance_cases(const std::string& op) {
  std::vector<ConformanceCase> cases;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus / "conformance")) {
    if (!entry.is_directory()) continue;
    nlohmann::json spec = nlohmann::json::parse(read_file(entry.path() / "case.json"));
    if (spec["op"] != op) continue;
    cases.push_back({entry.path().filename().string(), entry.path(), std::move(spec)});
  }
  std::sort(cases.begin(), cases.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

/// The node a case's `root` names in `module`: `main` or `main.body`.
inline NodeId case_root(const relay::Module& module, const nlohmann::json& spec) {
  NodeId main = *module.find("main");
  return spec["root"] == "main" ? main : module.graph.body(main);
}

/// The patterns of tests/data/corpus/patterns.txt as (name, text), in file order.
inline std::vector<std::pair<std::string, std::string>> corpus_patterns() {
  std::vector<std::pair<std::string, std::string>> patterns;
  std::istringstream lines(read_file(kCorpus / "patterns.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t colon = line.find(": ");
    patterns.emplace_back(line.substr(0, colon), line.substr(colon + 2));
  }
  return patterns;
}

inline const char* const kCorpusModels[] = {"lstm",     "mlp",          "mobilenet_v1",
                                            "mobilenet_v2_mxnet_style", "resnet18",
                                            "squeezenet1_0"};

inline std::string describe(const std::optional<Difference>& difference) {
  return difference ? fmt::format("{} at {} vs {}", difference->reason, difference->lhs,
                                  difference->rhs)
                    : std::string();
}

/// Fails the test unless the two expressions are structurally equal.
inline void require_equal(const relay::Graph& actual, NodeId actual_root,
                          const relay::Graph& expected, NodeId expected_root) {
  auto difference = first_difference(actual, actual_root, expected, expected_root);
  INFO(describe(difference));
  REQUIRE_FALSE(difference.has_value());
}

/// Fails the test unless the two modules are structurally equal.
inline void require_equal(const relay::Module& actual, const relay::Module& expected) {
  auto difference = first_difference(actual, expected);
  INFO(describe(difference));
  REQUIRE_FALSE(difference.has_value());
}

}  // namespace graphpat::testing
