// Helpers shared by the pattern tests: parsing corpus files and conformance cases (the corpus
// path and file reading are support/test_files.hpp's).
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/pattern.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_files.hpp"

namespace graphpat::testing {

inline relay::Module parse_module_text(const std::string& text) {
  absl::StatusOr<relay::Module> module = relay::parse_text(text);
  INFO(module.status().ToString());
  REQUIRE(module.ok());
  return *std::move(module);
}

/// A pattern from its text, failing the test with the error if it does not parse.
inline Pattern pattern_of(const std::string& text, const PatternParseOptions& options = {}) {
  absl::StatusOr<Pattern> pattern = parse_pattern(text, options);
  INFO(text << "\n" << pattern.status().ToString());
  REQUIRE(pattern.ok());
  return *pattern;
}

/// The graphs behind `options.is_expr_exprs` of a conformance case, kept alive for the test.
struct ExprNames {
  std::vector<relay::ParsedExpression> expressions;
  PatternParseOptions options;

  explicit ExprNames(const nlohmann::json& spec) {
    if (!spec["options"].contains("is_expr_exprs")) return;
    const nlohmann::json& exprs = spec["options"]["is_expr_exprs"];
    expressions.reserve(exprs.size());
    for (auto it = exprs.begin(); it != exprs.end(); ++it) {
      auto parsed = relay::parse_expression(it.value().get<std::string>());
      REQUIRE(parsed.ok());
      expressions.push_back(*std::move(parsed));
      const relay::ParsedExpression& e = expressions.back();
      options.names.insert_or_assign(it.key(), dsl::is_expr(e.module.graph, e.root, it.key()));
    }
  }
};

/// Every pattern string of a case.json: pattern, steps, table and callbacks.
inline std::vector<std::string> case_patterns(const nlohmann::json& spec) {
  std::vector<std::string> patterns;
  if (spec["pattern"].is_string()) patterns.push_back(spec["pattern"]);
  for (const char* key : {"steps", "callbacks"}) {
    if (!spec.contains(key)) continue;
    for (const auto& item : spec[key]) patterns.push_back(item["pattern"]);
  }
  if (spec.contains("table")) {
    for (const auto& row : spec["table"]) patterns.push_back(row[1]);
  }
  return patterns;
}

}  // namespace graphpat::testing
