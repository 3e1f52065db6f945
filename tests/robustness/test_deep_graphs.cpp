// A million nodes deep, a million wide, and a million-node random DAG with duplicates (a quarter
// of a million in the sanitizer build, see kNodes), each through the whole pipeline: Relay text
// (generated here) -> parse_text -> CSE -> find_matches -> partition -> print_text -> parse_text
// -> save_json -> load_json. Every engine is iterative, so all of it must pass with the default
// 8 MiB stack, in the sanitizer build too. Expected counts come from the construction (and, for
// the DAG, from value numbering done here on the generated lines), never from the engines under
// test; partition is checked by inlining its functions back (tests/support/inline_calls.hpp).
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <graphpat/analysis/reachability.hpp>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>

#include "support/inline_calls.hpp"
#include "support/scale.hpp"
#include "support/test_files.hpp"

using namespace graphpat;

namespace {

// The size of the big tests below: a million nodes, a quarter in the sanitizer build.
constexpr std::uint32_t kNodes = graphpat::testing::kLargeGraphNodes;

/// Live nodes of `kind` in the module (reachable from its functions).
std::uint32_t count_live(const relay::Module& module, NodeKind kind) {
  std::vector<NodeId> roots = module.roots();
  std::vector<bool> live = reachable_from(module.graph, roots);
  std::uint32_t count = 0;
  for (std::uint32_t i = 0; i < module.graph.size(); ++i) {
    count += live[i] && module.graph.kind(NodeId(i)) == kind;
  }
  return count;
}

Pattern pattern(std::string_view text) {
  absl::StatusOr<Pattern> parsed = parse_pattern(text);
  REQUIRE(parsed.ok());
  return *parsed;
}

/// What the pipeline must find on one workload.
struct Expected {
  std::uint32_t calls = 0;     // live calls after parsing
  std::uint32_t merged = 0;    // nodes CSE merges
  std::uint32_t matches = 0;   // find_matches of the pattern on the CSE'd main
  std::uint32_t accepted = 0;  // groups partition outlines
};

/// parse -> CSE -> find_matches -> partition (checked by inlining) -> print -> parse ->
/// save_json -> load_json, checking each step against `expected`.
void run_pipeline(const std::string& text, const Pattern& group, const Expected& expected) {
  absl::StatusOr<relay::Module> parsed = relay::parse_text(text);
  REQUIRE(parsed.ok());
  REQUIRE(verify(*parsed).ok());
  CHECK(count_live(*parsed, NodeKind::kCall) == expected.calls);

  CseResult<relay::Dialect> merged = eliminate_common_subexpr(*parsed);
  CHECK(merged.report.merged == expected.merged);
  REQUIRE(verify(merged.module).ok());
  CHECK(count_live(merged.module, NodeKind::kCall) == expected.calls - expected.merged);

  NodeId main = *merged.module.find("main");
  std::vector<Match> matches = find_matches(group, merged.module.graph, main);
  CHECK(matches.size() == expected.matches);

  PartitionResult<relay::Dialect> partitioned =
      partition(group, *parsed, {.attrs = {{"Composite", "deep"}}});
  CHECK(partitioned.report.accepted == expected.accepted);
  CHECK(partitioned.report.accepted + partitioned.report.rejected.size() == expected.matches);
  CHECK(partitioned.report.cse.merged == expected.merged);
  REQUIRE(verify(partitioned.module).ok());
  CHECK(count_live(partitioned.module, NodeKind::kFunction) == expected.accepted + 1);
  CHECK(structural_equal(testing::inline_function_calls(partitioned.module), merged.module));

  std::string printed = relay::print_text(partitioned.module).value();
  absl::StatusOr<relay::Module> reparsed = relay::parse_text(printed);
  REQUIRE(reparsed.ok());
  CHECK(structural_equal(*reparsed, partitioned.module));

  absl::StatusOr<std::string> json = relay::save_json(partitioned.module);
  REQUIRE(json.ok());
  absl::StatusOr<relay::LoadedJson> loaded = relay::load_json(*json);
  REQUIRE(loaded.ok());
  CHECK(structural_equal(loaded->module, partitioned.module));
}

const char* const kHeader = "#[version = \"0.0.5\"]\ndef @main(%x) {\n";

}  // namespace

// %0 = add(%x, %x); %1 = nn.relu(%0); %2 = add(%1, %x); ... kNodes calls, each reading the
// one before: kNodes / 2 relu(add) groups, all outlined.
TEST_CASE("a 1e6-call chain goes through the pipeline", "[deep]") {
  std::string text = kHeader;
  text.reserve(40 * std::size_t{kNodes});
  for (std::uint32_t k = 0; k < kNodes; ++k) {
    std::string previous = k == 0 ? "%x" : fmt::format("%{}", k - 1);
    if (k % 2 == 0) {
      fmt::format_to(std::back_inserter(text), "  %{} = add({}, %x);\n", k, previous);
    } else {
      fmt::format_to(std::back_inserter(text), "  %{} = nn.relu({});\n", k, previous);
    }
  }
  fmt::format_to(std::back_inserter(text), "  %{}\n}}\n", kNodes - 1);
  run_pipeline(text, pattern("is_op('nn.relu')(is_op('add')(wildcard(), wildcard()))"),
               {.calls = kNodes, .merged = 0, .matches = kNodes / 2, .accepted = kNodes / 2});
}

// %x read by kNodes calls, add(%x, <k>f) for even k and multiply(%x, <k>f) for odd k, all
// returned in one tuple: kNodes / 2 multiply groups (their constant embedded), all outlined.
TEST_CASE("a 1e6-wide fan-out goes through the pipeline", "[deep]") {
  std::string text = kHeader;
  text.reserve(48 * std::size_t{kNodes});
  for (std::uint32_t k = 0; k < kNodes; ++k) {
    fmt::format_to(std::back_inserter(text), "  %{} = {}(%x, {}f);\n", k,
                   k % 2 == 0 ? "add" : "multiply", k);
  }
  text += "  (";
  for (std::uint32_t k = 0; k < kNodes; ++k) {
    fmt::format_to(std::back_inserter(text), "{}%{}", k == 0 ? "" : ", ", k);
  }
  text += ")\n}\n";
  run_pipeline(text, pattern("is_op('multiply')(wildcard(), is_constant())"),
               {.calls = kNodes, .merged = 0, .matches = kNodes / 2, .accepted = kNodes / 2});
}

// kNodes random lines: add of two earlier values, nn.relu of one, or a verbatim repeat of
// an earlier line (an importer's duplicate); every value no line reads is returned in a tuple.
// Value numbering over the lines gives CSE's merges, the relu(add) matches, and the groups
// partition outlines (those whose add has no other user).
TEST_CASE("a 1e6-node random DAG with duplicates goes through the pipeline", "[deep]") {
  std::mt19937 random(20261130);
  std::vector<std::string> rhs(kNodes);
  std::vector<bool> used(kNodes, false);
  // Value numbering: line -> its value (the first line computing it), value -> key.
  std::vector<std::uint32_t> value_of(kNodes);
  std::map<std::tuple<bool, std::int64_t, std::int64_t>, std::uint32_t> value_by_key;
  std::vector<std::tuple<bool, std::int64_t, std::int64_t>> key_of(kNodes);  // per value
  auto pick = [&](std::uint32_t k) -> std::int64_t {  // an earlier line, or -1 for %x
    if (k == 0 || random() % 8 == 0) return k == 0 ? -1 : static_cast<std::int64_t>(random() % k) - 1;
    return static_cast<std::int64_t>(k - 1 - random() % std::min<std::uint32_t>(k, 16));
  };
  auto name = [](std::int64_t line) { return line < 0 ? std::string("%x") : fmt::format("%{}", line); };
  auto value = [&](std::int64_t line) {
    return line < 0 ? std::int64_t{-1} : std::int64_t{value_of[line]};
  };
  std::vector<std::tuple<bool, std::int64_t, std::int64_t>> line_key(kNodes);
  for (std::uint32_t k = 0; k < kNodes; ++k) {
    std::uint32_t choice = random() % 10;
    if (k > 0 && choice >= 7) {  // repeat an earlier line verbatim
      std::uint32_t j = k - 1 - random() % std::min<std::uint32_t>(k, 64);
      rhs[k] = rhs[j];
      line_key[k] = line_key[j];
    } else if (choice < 4) {
      std::int64_t a = pick(k), b = pick(k);
      rhs[k] = fmt::format("add({}, {})", name(a), name(b));
      line_key[k] = {true, a, b};
    } else {
      std::int64_t a = pick(k);
      rhs[k] = fmt::format("nn.relu({})", name(a));
      line_key[k] = {false, a, -2};
    }
    auto [is_add, a, b] = line_key[k];
    if (a >= 0) used[a] = true;
    if (b >= 0) used[b] = true;
    auto key = std::make_tuple(is_add, value(a), b == -2 ? -2 : value(b));
    auto [slot, inserted] = value_by_key.try_emplace(key, k);
    value_of[k] = slot->second;
    if (inserted) key_of[k] = key;
  }
  std::string text = kHeader;
  text.reserve(32 * std::size_t{kNodes});
  for (std::uint32_t k = 0; k < kNodes; ++k) {
    fmt::format_to(std::back_inserter(text), "  %{} = {};\n", k, rhs[k]);
  }
  // The result: a tuple of the unread lines; its fields are users of their values too.
  text += "  (";
  std::vector<std::uint32_t> users(kNodes, 0);  // per value: distinct user values (+ tuple)
  std::vector<bool> tuple_reads(kNodes, false);
  bool first = true;
  for (std::uint32_t k = 0; k < kNodes; ++k) {
    if (used[k]) continue;
    fmt::format_to(std::back_inserter(text), "{}%{}", first ? "" : ", ", k);
    first = false;
    tuple_reads[value_of[k]] = true;
  }
  text += ")\n}\n";
  std::uint32_t values = 0, matches = 0, accepted = 0;
  for (std::uint32_t v = 0; v < kNodes; ++v) {
    if (value_of[v] != v) continue;
    ++values;
    auto [is_add, a, b] = key_of[v];
    if (a >= 0) ++users[a];
    if (b >= 0 && b != a) ++users[b];
  }
  for (std::uint32_t v = 0; v < kNodes; ++v) {
    if (tuple_reads[v]) ++users[v];
  }
  for (std::uint32_t v = 0; v < kNodes; ++v) {
    if (value_of[v] != v) continue;
    auto [is_add, a, b] = key_of[v];
    if (is_add || a < 0 || !std::get<0>(key_of[a])) continue;
    ++matches;
    accepted += users[a] == 1;
  }
  run_pipeline(text, pattern("is_op('nn.relu')(is_op('add')(wildcard(), wildcard()))"),
               {.calls = kNodes, .merged = kNodes - values, .matches = matches,
                .accepted = accepted});
}

// Nested blocks are indented once, when the text is done: indenting each block as it was built
// made ifs or fns nested D deep cost O(D^3) (500 levels took seconds, 4000 minutes).
TEST_CASE("deeply nested ifs and fns print, with TVM's indentation", "[deep]") {
  const std::string two_ifs =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x) {\n"
      "  if (%x) {\n"
      "    if (%x) {\n"
      "      %x\n"
      "    } else {\n"
      "      %x\n"
      "    }\n"
      "  } else {\n"
      "    %x\n"
      "  }\n"
      "}\n";
  absl::StatusOr<relay::Module> small = relay::parse_text(two_ifs);
  REQUIRE(small.ok());
  CHECK(relay::print_text(*small).value() == two_ifs);

  // An if costs the parser two nesting levels (the if and its block), so 200 stays within
  // max_depth (512) and within an 8 MiB stack under ASan.
  constexpr int kDepth = 200;
  std::string ifs = kHeader, fns = kHeader;
  for (int i = 0; i < kDepth; ++i) ifs += "if (%x) {";
  for (int i = 0; i < kDepth; ++i) fns += "fn () {";
  ifs += "%x";
  fns += "%x";
  for (int i = 0; i < kDepth; ++i) ifs += "} else { %x }";
  for (int i = 0; i < kDepth; ++i) fns += "}";
  for (const std::string& text : {ifs + "\n}\n", fns + "\n}\n"}) {
    absl::StatusOr<relay::Module> parsed = relay::parse_text(text);
    REQUIRE(parsed.ok());
    std::string printed = relay::print_text(*parsed).value();
    // The innermost `%x` sits kDepth blocks inside @main's body.
    CHECK(printed.find("\n" + std::string(2 * (kDepth + 1), ' ') + "%x\n") != std::string::npos);
    absl::StatusOr<relay::Module> again = relay::parse_text(printed);
    REQUIRE(again.ok());
    CHECK(structural_equal(*again, *parsed));
  }
}

// Built in code, scopes can nest far deeper than any parser limit: the printer must not recurse
// as they nest (it once did, one call chain per fn, if or let value). A let chain is one scope
// and must print in linear time (its lines were once re-copied per let).
TEST_CASE("fns nested 10000 deep and a 1e6-let chain print without recursion", "[deep]") {
  SECTION("nested fns, checked against TVM's indentation") {
    constexpr int kDepth = 10'000;
    relay::Module module;
    relay::Builder b(module.graph);
    NodeId x = b.var("x");
    NodeId body = x;
    for (int i = 0; i < kDepth; ++i) body = b.function({}, body);
    module.add_function("main", b.function({x}, body));
    REQUIRE(verify(module).ok());

    std::string expected = "#[version = \"0.0.5\"]\ndef @main(%x) {\n";
    for (int level = 1; level <= kDepth; ++level) {
      expected.append(2 * level, ' ');
      expected += "fn () {\n";
    }
    expected.append(2 * (kDepth + 1), ' ');
    expected += "%x\n";
    for (int level = kDepth; level >= 1; --level) {
      expected.append(2 * level, ' ');
      expected += "}\n";
    }
    expected += "}\n";
    CHECK(relay::print_text(module).value() == expected);

    CseResult<relay::Dialect> merged = eliminate_common_subexpr(module);
    CHECK(merged.report.merged == 0);
    absl::StatusOr<std::string> json = relay::save_json(module);
    REQUIRE(json.ok());
    absl::StatusOr<relay::LoadedJson> loaded = relay::load_json(*json);
    REQUIRE(loaded.ok());
    CHECK(structural_equal(loaded->module, module));
  }
  SECTION("a let chain, which reads back") {
    relay::Module module;
    relay::Builder b(module.graph);
    NodeId x = b.var("x");
    std::vector<NodeId> vars;
    vars.reserve(kNodes);
    std::string expected = "#[version = \"0.0.5\"]\ndef @main(%x) {\n";
    for (std::uint32_t i = 0; i < kNodes; ++i) {
      vars.push_back(b.var(fmt::format("v{}", i)));
      fmt::format_to(std::back_inserter(expected), "  let %v{} = add(%{}, %{});\n", i,
                     i == 0 ? "x" : fmt::format("v{}", i - 1), i == 0 ? "x" : fmt::format("v{}", i - 1));
    }
    fmt::format_to(std::back_inserter(expected), "  %v{}\n}}\n", kNodes - 1);
    NodeId body = vars.back();
    for (std::uint32_t i = kNodes; i-- > 0;) {
      NodeId input = i == 0 ? x : vars[i - 1];
      body = b.let(vars[i], b.call("add", {input, input}), body);
    }
    module.add_function("main", b.function({x}, body));
    std::string printed = relay::print_text(module).value();
    CHECK(printed == expected);
    absl::StatusOr<relay::Module> parsed = relay::parse_text(printed);
    REQUIRE(parsed.ok());
    CHECK(structural_equal(*parsed, module));
  }
}
