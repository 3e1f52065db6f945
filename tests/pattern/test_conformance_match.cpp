// TVM's own pattern-language tests as data (tests/data/corpus/conformance): every `match` case
// runs through parse_text, parse_pattern and the matcher and must give TVM's answer; every
// pattern string of every case must parse.
#include <string>

#include "graphpat/pattern/matcher.hpp"
#include "pattern/corpus_support.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

// Builds the case's input and root. Non-operator calls with DictAttrs are printed by TVM as
// `%a(%b, __dict__=meta[Map][0], attrs_type_key="DictAttrs")`; relay::parse_text keeps such a
// `meta[Map][0]` value as a reference and does not decode it from the metadata section yet.
// The README says to read the map as the dictionary itself, and options.call_attrs states it,
// so the call is rebuilt here with those attributes.
struct CaseInput {
  relay::Module module;
  NodeId root;
};

CaseInput load_case(const std::filesystem::path& folder, const nlohmann::json& spec) {
  std::string text = read_file(folder / "input.relay");
  const std::string dict = ", __dict__=meta[Map][0], attrs_type_key=\"DictAttrs\"";
  bool rebuild = false;
  if (auto at = text.find(dict); at != std::string::npos) {
    text.erase(at, dict.size());
    text.erase(text.find("\n#[metadata]"));
    rebuild = true;
  }
  CaseInput input{parse_module_text(text), NodeId()};
  NodeId main = *input.module.find("main");
  input.root = spec["root"] == "main" ? main : input.module.graph.body(main);
  if (rebuild) {
    REQUIRE(spec["options"].contains("call_attrs"));
    const nlohmann::json& attrs = spec["options"]["call_attrs"];
    relay::Graph& graph = input.module.graph;
    std::vector<AttrField> fields;
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      fields.push_back({graph.context().strings.intern(it.key()),
                        graph.context().attrs.string(it.value().get<std::string>())});
    }
    relay::Builder builder(graph);
    CallOptions options;
    options.attrs = graph.context().attrs.object("DictAttrs", fields);
    std::vector<NodeId> args(graph.args(input.root).begin(), graph.args(input.root).end());
    input.root = builder.call(graph.callee(input.root), args, options);
  }
  return input;
}

}  // namespace

TEST_CASE("every match case of the conformance corpus gives TVM's answer",
          "[pattern][conformance]") {
  int cases = 0;
  int passed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus / "conformance")) {
    if (!entry.is_directory()) continue;
    nlohmann::json spec = nlohmann::json::parse(read_file(entry.path() / "case.json"));
    if (spec["op"] != "match") continue;
    ++cases;
    std::string name = entry.path().filename().string();
    INFO(name);
    ExprNames names(spec);
    Pattern pattern = pattern_of(spec["pattern"], names.options);
    CaseInput input = load_case(entry.path(), spec);
    bool expected = spec["expected"];
    Matcher<relay::Dialect> compat(pattern, input.module.graph, {.relay_compat = true});
    INFO(describe(pattern));
    INFO(compat.explain(input.root));
    CHECK(static_cast<bool>(compat.match(input.root)) == expected);
    // graphpat's default mode agrees on every case.
    Matcher<relay::Dialect> ours(pattern, input.module.graph);
    CHECK(static_cast<bool>(ours.match(input.root)) == expected);
    passed += static_cast<bool>(compat.match(input.root)) == expected;
  }
  CHECK(cases == 95);
  CHECK(passed == 95);
}

TEST_CASE("every pattern string of the conformance corpus parses", "[pattern][conformance]") {
  int patterns = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus / "conformance")) {
    if (!entry.is_directory()) continue;
    nlohmann::json spec = nlohmann::json::parse(read_file(entry.path() / "case.json"));
    ExprNames names(spec);
    for (const std::string& text : case_patterns(spec)) {
      ++patterns;
      Pattern pattern = pattern_of(text, names.options);
      // describe -> parse -> describe is stable.
      std::string once = describe(pattern);
      CHECK(describe(pattern_of(once, names.options)) == once);
    }
  }
  CHECK(patterns > 150);
}
