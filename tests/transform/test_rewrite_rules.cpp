// Rewrite rules as text (transform/rewrite_rules.hpp): what the reader makes of a rules text,
// its located refusals, and rules applied to Relay modules, compared with results written by
// hand from the rules (a rule's replacement term, with the pattern's bindings put in).
#include <absl/status/statusor.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <span>
#include <string>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/relay_text.hpp"
#include "graphpat/transform/rewrite_rules.hpp"

using namespace graphpat;

namespace {

relay::Module relay_for_rules(const std::string& text) {
  absl::StatusOr<relay::Module> module = relay::parse_text(text);
  INFO(module.status().ToString());
  REQUIRE(module.ok());
  return *std::move(module);
}

// The message of the error `rules` gives, read and applied to `module`.
std::string rules_error(const std::string& rules, const relay::Module& module) {
  absl::StatusOr<RewriteRules> parsed = parse_rewrite_rules(rules);
  if (!parsed.ok()) return std::string(parsed.status().message());
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> result =
      apply_rewrite_rules(*parsed, module);
  return result.ok() ? "ok" : std::string(result.status().message());
}

constexpr const char* kReluChain = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.relu(%1);
  %3 = nn.relu(%2);
  %4 = nn.relu(%3);
  add(%4, %4)
})";

// kReluChain once double_relu has run to its fixed point: one relu left.
constexpr const char* kReluChainCollapsed = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  add(%1, %1)
})";

}  // namespace

TEST_CASE("rewrite rules: the reader's terms, names and lines", "[rewrite][rules]") {
  absl::StatusOr<RewriteRules> rules = parse_rewrite_rules(
      "# a comment line\n"
      "double_relu: nn.relu(nn.relu(%x)) => nn.relu(%x)   # trailing comment\n"
      "\n"
      "nn.conv2d(%x, %w,\n"
      "          strides=[1, 1]) => nn.conv2d(%x, %w, strides=[2, 2], data_layout=\"NCHW\")\n");
  REQUIRE(rules.ok());
  REQUIRE(rules->rules.size() == 2);
  CHECK(rules->rules[0].name == "double_relu");
  CHECK(rules->rules[1].name == "line 4");
  const RuleTerm& pattern = rules->terms[rules->rules[0].pattern];
  CHECK(pattern.kind == RuleTerm::Kind::kCall);
  CHECK(pattern.name == "nn.relu");
  CHECK((pattern.line == 2 && pattern.column == 14));
  REQUIRE(pattern.args.size() == 1);
  const RuleTerm& inner = rules->terms[pattern.args[0]];
  CHECK(inner.name == "nn.relu");
  REQUIRE(inner.args.size() == 1);
  CHECK(rules->terms[inner.args[0]].kind == RuleTerm::Kind::kVariable);
  CHECK(rules->terms[inner.args[0]].name == "x");
  const RuleTerm& conv = rules->terms[rules->rules[1].pattern];
  CHECK(conv.args.size() == 2);
  CHECK(conv.attrs == PatternAttrs{{"strides", {1, 1}}});
  const RuleTerm& strided = rules->terms[rules->rules[1].replacement];
  CHECK(strided.attrs == PatternAttrs{{"strides", {2, 2}}, {"data_layout", "NCHW"}});
  CHECK(strided.line == 5);
}

TEST_CASE("rewrite rules: refusals name the rule's line and column", "[rewrite][rules]") {
  relay::Module module = relay_for_rules(kReluChain);
  CHECK(rules_error("nn.relu(%x) => nn.relu(%y)", module) ==
        "[graphpat.rewrite_rules.unbound_name] 1:24: 'y' is not a variable of the rule's "
        "pattern");
  CHECK(rules_error("\n%x => %x", module) ==
        "[graphpat.rewrite_rules.bad_pattern] 2:1: the pattern is the variable 'x', which "
        "matches every node; a pattern starts with a call");
  CHECK(rules_error("nn.relu(%x) => nn.rleu(%x)", module) ==
        "[graphpat.rewrite_rules.unknown_op] 1:16: the graph's dialect has no op 'nn.rleu'");
  CHECK(rules_error("nn.relu(%x => %x", module) ==
        "[graphpat.rewrite_rules.syntax] 1:12: expected ',' or ')' after an argument");
  CHECK(rules_error("nn.relu(%x) %x", module) ==
        "[graphpat.rewrite_rules.syntax] 1:13: expected '=>' between the pattern and its "
        "replacement");
  CHECK(rules_error("nn.relu(%x) => nn.relu(%x) nn.relu(%x)", module) ==
        "[graphpat.rewrite_rules.syntax] 1:28: expected the end of the rule");
  CHECK(rules_error("nn.relu(%x, a=[1, ) => %x", module) ==
        "[graphpat.rewrite_rules.syntax] 1:19: expected a value (a number, a string, True, "
        "False, None or a list)");
  CHECK(rules_error("nn.relu(%x, a=\"open) => %x", module) ==
        "[graphpat.rewrite_rules.syntax] 1:27: unterminated string");
  CHECK(rules_error("nn.relu(a=1, %x) => %x", module) ==
        "[graphpat.rewrite_rules.syntax] 1:14: an argument after a key=value attribute");
  CHECK(rules_error("nn.relu(%x) => @", module) ==
        "[graphpat.rewrite_rules.syntax] 1:16: expected a variable or an op's call");
  // A value the op's attribute cannot hold is found when the rule first applies.
  CHECK(rules_error("nn.conv2d(%x, %w) => nn.conv2d(%x, %w, strides=\"a\")", module) ==
        "[graphpat.rewrite_rules.bad_replacement] 1:22: relay.attrs.Conv2DAttrs: attribute "
        "'strides' of nn.conv2d (Array<IndexExpr>) cannot hold a string");
  std::string nested = "nn.relu(%x) => ";
  for (int i = 0; i < 300; ++i) nested += "nn.relu(";
  CHECK(rules_error(nested, module) ==
        "[graphpat.rewrite_rules.syntax] 1:2072: terms nest deeper than 256");  // 16 + 257 * 8
}

TEST_CASE("rewrite rules: a relu of a relu becomes the inner relu, to a fixed point",
          "[rewrite][rules]") {
  relay::Module module = relay_for_rules(kReluChain);
  absl::StatusOr<RewriteRules> rules =
      parse_rewrite_rules("double_relu: nn.relu(nn.relu(%x)) => nn.relu(%x)\n");
  REQUIRE(rules.ok());
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> result =
      apply_rewrite_rules(*rules, module);
  REQUIRE(result.ok());
  // Four relus: the first application replaces relu(relu(%2)) at %4 and relu(relu(%0)) at %2
  // (groups do not overlap), the second the relu of a relu left, the third changes nothing.
  CHECK(result->converged);
  CHECK(result->iterations == 3);
  REQUIRE(result->callbacks.size() == 1);
  CHECK(result->callbacks[0].name == "double_relu");
  CHECK(result->callbacks[0].rewrites == 3);
  REQUIRE(verify(result->module.graph).ok());
  CHECK(structural_equal(result->module, relay_for_rules(kReluChainCollapsed)));
}

TEST_CASE("rewrite rules: attributes are matched, copied from the pattern's call and overridden",
          "[rewrite][rules]") {
  relay::Module module = relay_for_rules(kReluChain);
  absl::StatusOr<RewriteRules> rules = parse_rewrite_rules(
      "strided: nn.conv2d(%x, %w, strides=[1, 1]) => nn.conv2d(%x, %w, strides=[2, 2])\n"
      "relu_to_sigmoid: nn.relu(%x) => sigmoid(%x)\n");
  REQUIRE(rules.ok());
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> result =
      apply_rewrite_rules(*rules, module);
  REQUIRE(result.ok());
  CHECK(result->callbacks[0].rewrites == 1);  // then strides=[2, 2] no longer matches
  CHECK(result->callbacks[1].rewrites == 4);
  REQUIRE(verify(result->module.graph).ok());
  // padding=[1, 1, 1, 1] copied from the matched conv, strides given by the rule.
  CHECK(structural_equal(result->module, relay_for_rules(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1]);
  %1 = sigmoid(%0);
  %2 = sigmoid(%1);
  %3 = sigmoid(%2);
  %4 = sigmoid(%3);
  add(%4, %4)
})")));
}

TEST_CASE("rewrite rules: a variable written twice is one node", "[rewrite][rules]") {
  relay::Module module = relay_for_rules(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {
  %0 = add(%x, %x);
  %1 = add(%x, %y);
  multiply(%0, %1)
})");
  absl::StatusOr<RewriteRules> rules = parse_rewrite_rules("add(a, a) => multiply(a, a)");
  REQUIRE(rules.ok());
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> result =
      apply_rewrite_rules(*rules, module);
  REQUIRE(result.ok());
  CHECK(result->callbacks[0].rewrites == 1);
  CHECK(structural_equal(result->module, relay_for_rules(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {
  %0 = multiply(%x, %x);
  %1 = add(%x, %y);
  multiply(%0, %1)
})")));
}

TEST_CASE("rewrite rules: a rule of one call of 200,000 arguments applies, reversing them",
          "[rewrite][rules]") {
  // Every variable of the pattern is its own node, each replacement argument is written as a
  // pattern term and the replacement's op is not the pattern's: finding each of these by
  // comparing with every pattern term took minutes at this size.
  constexpr std::size_t kArguments = 200'000;
  std::string function = "#[version = \"0.0.5\"]\ndef @main(";
  std::string added = "add(";
  std::string pattern = "add(";
  std::string reversed = "multiply(";
  for (std::size_t k = 0; k < kArguments; ++k) {
    const char* separator = k == 0 ? "" : ", ";
    function += fmt::format("{}%x{}: Tensor[(4), float32]", separator, k);
    added += fmt::format("{}%x{}", separator, k);
    pattern += fmt::format("{}x{}", separator, k);
    reversed += fmt::format("{}x{}", separator, kArguments - 1 - k);
  }
  relay::Module module = relay_for_rules(function + ") {\n  " + added + ")\n}");
  absl::StatusOr<RewriteRules> rules =
      parse_rewrite_rules("reverse: " + pattern + ") => " + reversed + ")\n");
  REQUIRE(rules.ok());
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> result =
      apply_rewrite_rules(*rules, module);
  REQUIRE(result.ok());
  // The multiply is no add: the second iteration finds nothing.
  CHECK(result->converged);
  CHECK(result->iterations == 2);
  CHECK(result->callbacks[0].rewrites == 1);
  const relay::Graph& graph = result->module.graph;
  REQUIRE(verify(graph).ok());
  const NodeId main = *result->module.find("main");
  const NodeId body = graph.body(main);
  REQUIRE(graph.kind(body) == NodeKind::kCall);
  CHECK(graph.context().op_name(graph.called_op(body)) == "multiply");
  // Variable xk bound the add's argument k, parameter %xk; the multiply takes them backwards.
  const std::span<const NodeId> params = graph.params(main);
  const std::span<const NodeId> args = graph.args(body);
  REQUIRE(params.size() == kArguments);
  REQUIRE(args.size() == kArguments);
  std::size_t misplaced = 0;  // counted, not checked one by one, to keep the test fast
  for (std::size_t k = 0; k < kArguments; ++k) misplaced += args[k] != params[kArguments - 1 - k];
  CHECK(misplaced == 0);
}

TEST_CASE("rewrite rules: 20,000 rules in one text, one of which applies", "[rewrite][rules]") {
  // Each rule's set-up reads its own terms only: none may walk the terms of the whole text.
  constexpr std::uint32_t kRules = 20'000;
  std::string text;
  for (std::uint32_t k = 0; k + 1 < kRules; ++k) {  // convolutions strided k + 2: none in the graph
    text += fmt::format("strided_{}: nn.conv2d(%x, %w, strides=[{}, {}]) => nn.conv2d(%x, %w)\n",
                        k, k + 2, k + 2);
  }
  text += "double_relu: nn.relu(nn.relu(%x)) => nn.relu(%x)\n";
  absl::StatusOr<RewriteRules> rules = parse_rewrite_rules(text);
  REQUIRE(rules.ok());
  REQUIRE(rules->rules.size() == kRules);
  // Three iterations, as for the last rule alone (the test of a relu of a relu above): the
  // others match nothing. The budget lets every rule run in each of them.
  RewriteOptions options;
  options.max_applications = 3 * kRules;
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> result =
      apply_rewrite_rules(*rules, relay_for_rules(kReluChain), options);
  REQUIRE(result.ok());
  CHECK(result->converged);
  CHECK(result->iterations == 3);
  CHECK(result->applications == 3 * kRules);
  REQUIRE(result->callbacks.size() == kRules);
  std::uint32_t strided_rewrites = 0;
  for (std::uint32_t k = 0; k + 1 < kRules; ++k) strided_rewrites += result->callbacks[k].rewrites;
  CHECK(strided_rewrites == 0);
  CHECK(result->callbacks.back().name == "double_relu");
  CHECK(result->callbacks.back().rewrites == 3);
  REQUIRE(verify(result->module.graph).ok());

  // The default budget, 100 applications, is checked between iterations (TVM's count is): the
  // first iteration applies all 20,000 rules, double_relu takes two relus of the four away
  // (%4 over %3 and %2 over %1), and the rewrite stops there, not converged. It had stopped
  // after the first 100 rules, none of which match, and said it converged.
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> budgeted =
      apply_rewrite_rules(*rules, relay_for_rules(kReluChain));
  REQUIRE(budgeted.ok());
  CHECK_FALSE(budgeted->converged);
  CHECK(budgeted->iterations == 1);
  CHECK(budgeted->applications == kRules);
  CHECK(budgeted->callbacks.back().rewrites == 2);
  CHECK(structural_equal(result->module, relay_for_rules(kReluChainCollapsed)));
}

TEST_CASE("rewrite rules: a replacement written with 200,000 attributes, each key twice",
          "[rewrite][rules]") {
  // Each written key was looked for among the fields gathered so far, one by one: this took
  // half a minute at this size.
  constexpr std::size_t kKeys = 100'000;
  std::string replacement = "nn.relu(x";
  for (std::size_t k = 0; k < kKeys; ++k) replacement += fmt::format(", a{}={}", k, k);
  for (std::size_t k = 0; k < kKeys; ++k) replacement += fmt::format(", a{}={}", k, kKeys + k);
  absl::StatusOr<RewriteRules> rules = parse_rewrite_rules("nn.relu(x) => " + replacement + ")");
  REQUIRE(rules.ok());
  absl::StatusOr<ModuleRewriteResult<relay::Dialect>> result =
      apply_rewrite_rules(*rules, relay_for_rules(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  nn.relu(%x)
})"));
  REQUIRE(result.ok());
  // The second iteration's relu copies the attributes the first wrote and writes them again:
  // the same call, so no rewrite.
  CHECK(result->converged);
  CHECK(result->iterations == 2);
  CHECK(result->callbacks[0].rewrites == 1);
  const relay::Graph& graph = result->module.graph;
  const AttrTable& attrs = graph.context().attrs;
  const StringPool& strings = graph.context().strings;
  const NodeId body = graph.body(*result->module.find("main"));
  REQUIRE(graph.kind(body) == NodeKind::kCall);
  CHECK(graph.context().op_name(graph.called_op(body)) == "nn.relu");
  // nn.relu has no attributes of its own: its call keeps the keys as written, each once, where
  // first written, with the value written last.
  const AttrValueId written = graph.attrs(body);
  REQUIRE(attrs.kind(written) == AttrKind::kObject);
  REQUIRE(attrs.entry_count(written) == kKeys);
  std::size_t misplaced = 0;  // counted, not checked one by one, to keep the test fast
  for (std::size_t k = 0; k < kKeys; ++k) {
    const std::int64_t value = attrs.as_int(attrs.entry_value(written, k));
    misplaced += strings.view(attrs.field_key(written, k)) != fmt::format("a{}", k) ||
                 value != static_cast<std::int64_t>(kKeys + k);
  }
  CHECK(misplaced == 0);
}
