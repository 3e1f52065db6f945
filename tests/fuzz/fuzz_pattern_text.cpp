// libFuzzer target for the pattern text reader: any bytes given to parse_pattern must give a
// pattern or an error, never a crash; a pattern that parses must describe itself, and the
// description must parse again into a pattern with the same description. The same bytes go to
// parse_graph_pattern, which must give a context or an error with an id; a context is matched on
// a small fixed graph within a small budget, and every match binds every context pattern. And
// they go to parse_rewrite_rules, whose rules are applied to that graph (check_rewrite_rules).
#include <graphpat/io/relay_text.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/pattern.hpp>
#include <graphpat/transform/rewrite_rules.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.hpp"

namespace {

// A diamond, a split read through two TupleGetItems, a tuple: what graph patterns tie.
const graphpat::relay::Module& small_graph() {
  static const graphpat::relay::Module module = *graphpat::relay::parse_text(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 4), float32], %w: Tensor[(4, 4), float32]) {
  %0 = nn.dense(%x, %w, units=None);
  %1 = nn.relu(%0);
  %2 = sigmoid(%0);
  %3 = add(%1, %2);
  %4 = split(%3, indices_or_sections=2);
  %5 = %4.0;
  %6 = %4.1;
  (%5, %6, %1)
}
)");
  return module;
}

void check_graph_pattern(std::string_view text) {
  using graphpat::fuzz::require;
  using graphpat::fuzz::require_error_id;
  absl::StatusOr<graphpat::ParsedGraphPattern> parsed = graphpat::parse_graph_pattern(text);
  if (!parsed.ok()) {
    require_error_id(parsed.status());
    return;
  }
  const graphpat::relay::Module& module = small_graph();
  absl::StatusOr<std::vector<graphpat::Match>> matches = graphpat::find_graph_matches(
      parsed->context, module.graph, *module.find("main"),
      {.match = {.relay_compat = false, .max_steps = 2000}, .max_steps = 2000,
       .max_matches = 100});
  require(matches.ok(), "a context that parsed is refused by the matcher", text);
  for (const graphpat::Match& match : *matches) {
    for (const graphpat::Pattern& pattern : parsed->context.patterns()) {
      require(module.graph.contains(match.bound(pattern)), "a match leaves a pattern unbound",
              text);
    }
  }
}

// The same bytes as rewrite rules: rules or an error with an id; rules are applied to the small
// graph within a small budget, and whatever they rewrite verifies.
void check_rewrite_rules(std::string_view text) {
  using graphpat::fuzz::require;
  using graphpat::fuzz::require_error_id;
  absl::StatusOr<graphpat::RewriteRules> rules = graphpat::parse_rewrite_rules(text);
  if (!rules.ok()) {
    require_error_id(rules.status());
    return;
  }
  absl::StatusOr<graphpat::ModuleRewriteResult<graphpat::relay::Dialect>> result =
      graphpat::apply_rewrite_rules(*rules, small_graph(), {.max_applications = 20});
  if (!result.ok()) {
    require_error_id(result.status());
    return;
  }
  require(graphpat::verify(result->module.graph).ok(), "rewrite rules make a graph verify refuses",
          text);
}

}  // namespace

GRAPHPAT_FUZZ_TARGET(fuzz_pattern_text) {
  using graphpat::fuzz::fail;
  using graphpat::fuzz::require_error_id;
  using graphpat::fuzz::require_ok;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check_graph_pattern(text);
  check_rewrite_rules(text);
  absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(text);
  if (!pattern.ok()) {
    require_error_id(pattern.status());
    return 0;
  }
  std::string described = graphpat::describe(*pattern);
  absl::StatusOr<graphpat::Pattern> again = graphpat::parse_pattern(described);
  // A known limit: the description can nest deeper than the text it came from (a bare
  // `has_shape((10, 10))` is described `wildcard().has_shape([10, 10])`), so a text just within
  // max_depth can describe past it (found by the CI fuzz step, session 9:
  // regression_description_deeper_than_input).
  if (!again.ok() && graphpat::error_id(again.status()) == "graphpat.pattern_text.too_deep") {
    return 0;
  }
  require_ok(again.status(), "the description does not parse", described);
  std::string described_again = graphpat::describe(*again);
  if (described_again != described) {
    fail("the description describes differently", described + "\n" + described_again);
  }
  return 0;
}
