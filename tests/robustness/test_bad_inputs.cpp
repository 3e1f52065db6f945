// The catalogue of bad inputs (tests/bad_inputs/MANIFEST.tsv): every row names an input, the
// loader it goes to (with optional limits), and the exact status message expected, so the error
// id, the place (line:column or JSON path) and the wording are all pinned. An input is a file of
// tests/bad_inputs/ or a generator (`gen:<name>:<size>`) for inputs too big to commit, such as
// nesting a million levels deep. Nothing may crash, hang or be accepted.
//
// The files are written by tests/bad_inputs/make_bad_inputs.py (which shows how the binary
// ones were made); the manifest is written by hand.
//
// Manifest columns: file, loader, error id, message. The loader is relay_text, relay_expr,
// relay_json, pattern or graph_json, optionally followed by `:limit=value,...` (max_depth,
// max_nodes, max_tensor_bytes). Messages escape a tab, a line feed and a backslash as \t, \n,
// \\. Lines starting with `#` are comments.

#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "graphpat/io/graph_json.hpp"
#include "graphpat/io/relay_json.hpp"
#include "graphpat/io/relay_text.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/rewrite.hpp"
#include "support/test_files.hpp"

namespace {

using graphpat::testing::message;

const std::filesystem::path kBadInputs =
    std::filesystem::path(GRAPHPAT_TEST_DATA_DIR).parent_path() / "bad_inputs";

struct Row {
  std::size_t line = 0;
  std::string input;
  std::string loader;
  std::string id;
  std::string message;
};

std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char next = text[++i];
    out += next == 't' ? '\t' : next == 'n' ? '\n' : next;
  }
  return out;
}

std::vector<std::string> split(std::string_view line, char separator) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    std::size_t end = line.find(separator, start);
    fields.emplace_back(line.substr(start, end - start));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

std::vector<Row> read_manifest() {
  std::istringstream in(graphpat::testing::read_file(kBadInputs / "MANIFEST.tsv"));
  std::vector<Row> rows;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line.starts_with('#')) continue;
    std::vector<std::string> fields = split(line, '\t');
    INFO("MANIFEST.tsv line " << number << ": " << line);
    REQUIRE(fields.size() == 4);
    rows.push_back({number, fields[0], fields[1], fields[2], unescape(fields[3])});
  }
  return rows;
}

std::uint64_t number(std::string_view digits) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  REQUIRE(error == std::errc());
  REQUIRE(end == digits.data() + digits.size());
  return value;
}

// ----- generated inputs ---------------------------------------------------------------------

std::string repeat(std::string_view piece, std::uint64_t count) {
  std::string out;
  out.reserve(piece.size() * count);
  for (std::uint64_t i = 0; i < count; ++i) out += piece;
  return out;
}

/// A TVM JSON bare expression: a Var whose checked type is a TupleType nested `depth` deep.
std::string deep_json_type(std::uint64_t depth) {
  // nodes: 0 null, 1 Var, 2 Id, 3 String "x", then per level a TupleType (4 + 2i) and its
  // fields Array (5 + 2i); the innermost Array is empty.
  std::string nodes =
      R"({"type_key": ""}, {"type_key": "relay.Var", "attrs": {"vid": "2", )"
      R"("type_annotation": "0", "virtual_device_": "0", "span": "0", "_checked_type_": "4"}}, )"
      R"({"type_key": "relay.Id", "attrs": {"name_hint": "3"}}, )"
      R"({"type_key": "runtime.String", "repr_str": "x"})";
  for (std::uint64_t i = 0; i < depth; ++i) {
    nodes += fmt::format(
        R"(, {{"type_key": "TupleType", "attrs": {{"fields": "{}", "span": "0"}}}})", 5 + 2 * i);
    nodes += i + 1 == depth ? std::string(R"(, {"type_key": "Array", "data": []})")
                            : fmt::format(R"(, {{"type_key": "Array", "data": [{}]}})", 6 + 2 * i);
  }
  return fmt::format(R"({{"root": 1, "nodes": [{}], "b64ndarrays": []}})", nodes);
}

/// The text of `gen:<name>:<size>`.
std::string generate(std::string_view name, std::uint64_t n) {
  if (name == "text_nested_parens") {
    return "def @main(%x) {\n  " + repeat("(", n) + "%x" + repeat(")", n) + "\n}\n";
  }
  if (name == "text_nested_calls") {
    return "def @main(%x) {\n  " + repeat("nn.relu(", n) + "%x" + repeat(")", n) + "\n}\n";
  }
  if (name == "text_nested_attr_arrays") {
    return "def @main(%x) {\n  nn.softmax(%x, axis=" + repeat("[", n) + repeat("]", n) + ")\n}\n";
  }
  if (name == "text_nested_tuple_types") {
    return "def @main(%x: " + repeat("(", n) + "int32" + repeat(")", n) + ") {\n  %x\n}\n";
  }
  if (name == "text_nested_functions") {
    return "def @main(%x) {\n  " + repeat("fn () {", n) + "%x" + repeat("}", n) + "\n}\n";
  }
  if (name == "text_chain") {  // n bindings `%i = nn.relu(%i-1);`
    std::string text = "def @main(%x) {\n  %0 = nn.relu(%x);\n";
    for (std::uint64_t i = 1; i < n; ++i) text += fmt::format("  %{} = nn.relu(%{});\n", i, i - 1);
    return text + fmt::format("  %{}\n}}\n", n - 1);
  }
  if (name == "text_long_postfix") {  // n projections `%x.0.0…`, then a stray `)`
    return "def @main(%x) {\n  %x" + repeat(".0", n) + "\n}\n)";
  }
  if (name == "expr_long_postfix") return "free_var %x;\n%x" + repeat(".0", n) + " %x";
  if (name == "text_metadata_nested_arrays") {
    return "def @main(%x) {\n  %x\n}\n\n#[metadata]\n" + repeat("[", n) + repeat("]", n) + "\n";
  }
  if (name == "graph_nested_attr_arrays") {
    return R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main", )"
           R"("params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"}, {"id": 1, )"
           R"("kind": "call", "op": "vendor.op", "inputs": [0], "attrs": {"a": )" +
           repeat("[", n) + repeat("]", n) + "}}], \"outputs\": [1]}]}";
  }
  if (name == "expr_nested_tuples") return repeat("(", n) + "1, 2" + repeat(")", n);
  if (name == "json_nested_arrays") return R"({"root": 1, "nodes": )" + repeat("[", n) + repeat("]", n) + "}";
  if (name == "json_deep_type") return deep_json_type(n);
  if (name == "pattern_nested_parens") return repeat("(", n) + "wildcard()" + repeat(")", n);
  if (name == "pattern_nested_calls") {
    return repeat("is_op('nn.relu')(", n) + "wildcard()" + repeat(")", n);
  }
  if (name == "pattern_prefix_not") return repeat("~", n) + "wildcard()";
  if (name == "pattern_long_alternation") {
    std::string text = "wildcard()";
    for (std::uint64_t i = 1; i < n; ++i) text += " | wildcard()";
    return text;
  }
  FAIL("unknown generator " << name);
  return {};
}

std::string input_text(const std::string& input) {
  if (!input.starts_with("gen:")) {
    REQUIRE(std::filesystem::exists(kBadInputs / input));
    return graphpat::testing::read_file(kBadInputs / input);
  }
  std::vector<std::string> parts = split(input, ':');
  REQUIRE(parts.size() == 3);
  return generate(parts[1], number(parts[2]));
}

// ----- loaders --------------------------------------------------------------------------------

/// `loader` or `loader:limit=value,...`: the loader's name and its limits.
struct LoaderSpec {
  std::string name;
  std::vector<std::pair<std::string, std::uint64_t>> limits;
};

LoaderSpec loader_spec(const std::string& text) {
  LoaderSpec spec;
  std::size_t colon = text.find(':');
  spec.name = text.substr(0, colon);
  if (colon == std::string::npos) return spec;
  for (const std::string& setting : split(std::string_view(text).substr(colon + 1), ',')) {
    std::vector<std::string> pair = split(setting, '=');
    REQUIRE(pair.size() == 2);
    spec.limits.emplace_back(pair[0], number(pair[1]));
  }
  return spec;
}

void apply_limits(const LoaderSpec& spec, graphpat::InputLimits& limits) {
  for (const auto& [name, value] : spec.limits) {
    if (name == "max_depth") {
      limits.max_depth = static_cast<std::uint32_t>(value);
    } else if (name == "max_nodes") {
      limits.max_nodes = value;
    } else if (name == "max_tensor_bytes") {
      limits.max_tensor_bytes = value;
    } else {
      FAIL("unknown limit " << name);
    }
  }
}

absl::Status load(const LoaderSpec& spec, const std::string& text) {
  if (spec.name == "relay_text" || spec.name == "relay_expr") {
    graphpat::relay::TextParseOptions options;
    apply_limits(spec, options.limits);
    if (spec.name == "relay_text") return graphpat::relay::parse_text(text, options).status();
    return graphpat::relay::parse_expression(text, options).status();
  }
  if (spec.name == "relay_json") {
    graphpat::relay::JsonLoadOptions options;
    apply_limits(spec, options.limits);
    return graphpat::relay::load_json(text, options).status();
  }
  if (spec.name == "pattern") {
    graphpat::PatternParseOptions options;
    apply_limits(spec, options.limits);
    return graphpat::parse_pattern(text, options).status();
  }
  if (spec.name == "graph_json") {
    graphpat::relay::GraphJsonParseOptions options;
    apply_limits(spec, options.limits);
    return graphpat::relay::parse_graph_json(text, options).status();
  }
  FAIL("unknown loader " << spec.name);
  return absl::OkStatus();
}

}  // namespace

TEST_CASE("every bad input is refused with its exact error", "[bad_inputs]") {
  std::vector<Row> rows = read_manifest();
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.input << " (" << row.loader << ", MANIFEST.tsv line " << row.line << ")") {
      absl::Status status = load(loader_spec(row.loader), input_text(row.input));
      REQUIRE_FALSE(status.ok());
      CHECK(std::string(graphpat::error_id(status)) == "graphpat." + row.id);
      CHECK(message(status) == row.message);
    }
  }
}

TEST_CASE("the catalogue lists every file of tests/bad_inputs, each case once", "[bad_inputs]") {
  std::vector<Row> rows = read_manifest();
  std::set<std::string> listed;
  std::set<std::pair<std::string, std::string>> cases;
  std::set<std::string> loaders;
  for (const Row& row : rows) {
    CHECK(cases.emplace(row.input, row.loader).second);
    if (!row.input.starts_with("gen:")) listed.insert(row.input);
    loaders.insert(loader_spec(row.loader).name);
  }
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(kBadInputs)) {
    std::string name = entry.path().filename().string();
    if (name != "MANIFEST.tsv" && name != "make_bad_inputs.py") present.insert(name);
  }
  CHECK(listed == present);
  CHECK(rows.size() >= 70);
  CHECK(loaders == std::set<std::string>{"graph_json", "pattern", "relay_expr", "relay_json",
                                         "relay_text"});
}

TEST_CASE("a rewrite that never settles stops at max_iterations and says so", "[limits]") {
  using graphpat::NodeId;
  using Rewriter = graphpat::Rewriter<graphpat::relay::Dialect>;
  auto module = graphpat::relay::parse_text("def @main(%x, %y) {\n  add(%x, %y)\n}\n");
  REQUIRE(module.ok());
  NodeId root = module->graph.body(*module->find("main"));
  // add(x, y) -> add(y, x) -> add(x, y) -> ...: the root changes at every iteration.
  std::vector<graphpat::RewriteCallback<graphpat::relay::Dialect>> callbacks = {
      {.pattern = graphpat::dsl::is_op("add")(graphpat::dsl::wildcard(), graphpat::dsl::wildcard()),
       .rewrite = [](NodeId, NodeId post, const graphpat::RewriteBindings&, Rewriter& rewriter) {
         auto args = rewriter.graph().args(post);
         return rewriter.builder().call("add", {args[1], args[0]});
       }}};
  auto result = graphpat::rewrite(callbacks, module->graph, root, {.max_applications = 1'000'000});
  CHECK_FALSE(result.converged);
  CHECK(result.iterations == 100);  // RewriteOptions::max_iterations's default
  CHECK(result.applications == 100);
  CHECK(result.rewrites == 100);
  auto bounded = graphpat::rewrite(callbacks, module->graph, root,
                                   {.max_applications = 1'000'000, .max_iterations = 7});
  CHECK_FALSE(bounded.converged);
  CHECK(bounded.iterations == 7);
  CHECK(graphpat::relay::print_expression(bounded.graph, bounded.root, graphpat::relay::TextEnvelope::kStr) ==
        "free_var %y;\nfree_var %x;\nadd(%y, %x)");
}

// A limit left 0 is the loader's own default, so `{.limits = {.max_nodes = N}}` keeps the
// depth limit (designated initialisers rebuild the whole struct; the defaults once came back
// as the shared 512 everywhere, above TVM JSON's 200).
TEST_CASE("setting one limit keeps each loader's other defaults", "[limits]") {
  // As gen:json_deep_type:1000 in the catalogue: the 202nd TupleType is one level too deep.
  auto too_deep = graphpat::relay::load_json(deep_json_type(300), {.limits = {.max_nodes = 1'000'000}});
  REQUIRE_FALSE(too_deep.ok());
  CHECK(too_deep.status().message() ==
        "[graphpat.relay_json.too_deep] nodes[406]: nesting deeper than 200 levels (max_depth)");
  CHECK(graphpat::relay::load_json(deep_json_type(150), {.limits = {.max_nodes = 1'000'000}}).ok());
  auto too_many = graphpat::relay::load_json(deep_json_type(150), {.limits = {.max_nodes = 10}});
  REQUIRE_FALSE(too_many.ok());
  CHECK(graphpat::error_id(too_many.status()) == "graphpat.relay_json.too_many_nodes");

  std::string nested_pattern = repeat("is_op('nn.relu')(", 300) + "wildcard()" + repeat(")", 300);
  auto pattern = graphpat::parse_pattern(nested_pattern, {.limits = {.max_tensor_bytes = 1}});
  REQUIRE_FALSE(pattern.ok());
  CHECK(std::string(pattern.status().message()).ends_with("nesting deeper than 256 levels (max_depth)"));

  CHECK(graphpat::InputLimits{}.or_defaults(graphpat::kDefaultLimits).max_depth == 512);
  CHECK(graphpat::relay::kJsonDefaultLimits.max_depth == 200);
  CHECK(graphpat::relay::kJsonDefaultLimits.max_nodes == 100'000'000);
  CHECK(graphpat::kPatternDefaultLimits.max_nodes == 1'000'000);
  CHECK(graphpat::relay::kGraphJsonDefaultLimits.max_tensor_bytes == std::uint64_t{4} << 30);
}
