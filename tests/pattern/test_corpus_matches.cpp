// The corpus models against TVM: for every model and every pattern of patterns.txt, the number
// of nodes of @main (ops excluded) where the pattern matches, in relay_compat mode, is TVM's
// `matches` in tvm/results.json.
#include <string>

#include "pattern/corpus_support.hpp"

using namespace graphpat;
using namespace graphpat::testing;

TEST_CASE("match counts on the corpus models equal TVM's", "[pattern][corpus]") {
  nlohmann::json results = nlohmann::json::parse(read_file(kCorpus / "tvm" / "results.json"));
  std::vector<std::pair<std::string, std::string>> patterns;
  std::istringstream lines(read_file(kCorpus / "patterns.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::size_t colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    patterns.emplace_back(line.substr(0, colon), line.substr(colon + 2));
  }
  REQUIRE(patterns.size() == 10);
  int compared = 0;
  for (auto it = results.begin(); it != results.end(); ++it) {
    const std::string& model_name = it.key();
    relay::Module model =
        parse_module_text(read_file(kCorpus / "models" / (model_name + ".relay")));
    const relay::Graph& graph = model.graph;
    NodeId main = *model.find("main");
    std::vector<bool> live = reachable_from(graph, std::span(&main, 1));
    for (const auto& [name, text] : patterns) {
      Pattern pattern = pattern_of(text);
      Matcher<relay::Dialect> matcher(pattern, graph, {.relay_compat = true});
      int count = 0;
      for (std::uint32_t i = 0; i < graph.size(); ++i) {
        NodeId id(i);
        if (!live[i] || graph.kind(id) == NodeKind::kOp) continue;
        count += matcher.matches(id) ? 1 : 0;
      }
      INFO(model_name << " / " << name);
      CHECK(count == it.value()["patterns"][name]["matches"].get<int>());
      // find_matches agrees with matching node by node.
      std::size_t found = 0;
      for (const Match& m : matcher.find_matches(main))
        found += graph.kind(m.root()) != NodeKind::kOp;
      CHECK(found == static_cast<std::size_t>(count));
      ++compared;
    }
  }
  CHECK(compared == 60);
}
