// Patterns are immutable values: a matcher compiles only what the pattern reaches, and one
// finished pattern, shared by several threads (the same handle object or copies of it) over one
// const module, gives every thread exactly the single-threaded results.
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pattern/corpus_support.hpp"

using namespace graphpat;
using namespace graphpat::dsl;
using namespace graphpat::testing;

namespace {

// conv2d -> batch_norm.0 -> relu, and a pattern sharing its conv: the store holds more than the
// relu pattern reaches. The conv is joined to the larger residual pattern made before it, so
// its store is merged into that one and the conv handle reaches its node through a forwarding
// note (the case where reading a handle used to write to it).
struct ConvBatchNormRelu {
  Pattern residual = is_op("add")(is_op("add")(wildcard(), wildcard()), wildcard());
  Pattern conv = is_op("nn.conv2d")(wildcard(), wildcard());
  Pattern conv_or_residual = conv | residual;
  Pattern relu = is_op("nn.relu")(is_tuple_get_item(
      is_op("nn.batch_norm")(conv, wildcard(), wildcard(), wildcard(), wildcard()), 0));
};

// What one thread saw: each match's root and the conv it bound, the matches counted node by node
// with one Matcher, why the pattern fails at the module's root, and the pattern as text.
struct Seen {
  std::vector<std::pair<NodeId, NodeId>> matches;
  int matched_nodes = 0;
  std::string explanation;
  std::string text;
  friend bool operator==(const Seen&, const Seen&) = default;
};

Seen look(const Pattern& relu, const Pattern& conv, const relay::Graph& graph, NodeId main) {
  Seen seen;
  for (const Match& m : find_matches(relu, graph, main)) {
    seen.matches.emplace_back(m.root(), m.bound(conv));
  }
  Matcher<relay::Dialect> matcher(relu, graph);
  for (std::uint32_t i = 0; i <= main.index(); ++i)
    seen.matched_nodes += matcher.matches(NodeId(i));
  seen.explanation = explain(relu, graph, graph.body(main));
  seen.text = describe(relu);
  return seen;
}

}  // namespace

TEST_CASE("a matcher compiles only the nodes its pattern reaches", "[pattern][shared]") {
  ConvBatchNormRelu p;
  relay::Module model = parse_module_text(read_file(kCorpus / "models" / "resnet18.relay"));
  Matcher<relay::Dialect> matcher(p.relu, model.graph);
  CHECK(p.relu.graph().size() == 21);  // the relu pattern's 13 nodes, residual's 7 and the |
  CHECK(matcher.pattern_graph().size() == 13);
  Match m = matcher.find_matches(*model.find("main")).front();
  CHECK(model.graph.called_op(m.bound(p.conv)) == model.graph.context().ops.find("nn.conv2d"));
  CHECK_FALSE(m.bound(p.conv_or_residual).valid());
}

TEST_CASE("threads sharing one pattern and one const module see the single-threaded results",
          "[pattern][shared]") {
  const relay::Module model = parse_module_text(read_file(kCorpus / "models" / "resnet18.relay"));
  const NodeId main = *model.find("main");
  const ConvBatchNormRelu alone;
  const Seen expected = look(alone.relu, alone.conv, model.graph, main);
  REQUIRE(expected.matches.size() == 9);
  CHECK(expected.matched_nodes == 9);
  for (auto [root, conv] : expected.matches) CHECK(conv.valid());

  // The same pattern built again, first read by the threads.
  const ConvBatchNormRelu p;
  constexpr int kThreads = 4;
  std::vector<Seen> seen(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      // Even threads read the shared handles themselves, odd threads their own copies.
      threads.emplace_back([&, t] {
        if (t % 2 == 0) {
          seen[t] = look(p.relu, p.conv, model.graph, main);
        } else {
          Pattern relu = p.relu, conv = p.conv;
          seen[t] = look(relu, conv, model.graph, main);
        }
      });
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(seen[t] == expected);
  }
}
