// Patterns are immutable values: a matcher compiles only what the pattern reaches, matchers of
// one pattern share what it compiled until a redirect changes the pattern, and one finished
// pattern, shared by several threads (the same handle object or copies of it) over one const
// module, gives every thread exactly the single-threaded results.
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

TEST_CASE("matchers of one pattern share its compiled form until a redirect changes it",
          "[pattern][shared]") {
  const relay::Module model = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  nn.relu(%1)
})");
  const NodeId main = *model.find("main");
  auto roots = [&](const Pattern& pattern) {
    std::vector<std::uint32_t> found;
    for (const Match& m : find_matches(pattern, model.graph, main)) found.push_back(m.root().value);
    return found;
  };
  Pattern w = wildcard();
  Pattern relu = is_op("nn.relu")(w);
  Matcher<relay::Dialect> first(relu, model.graph);
  Matcher<relay::Dialect> second(relu, model.graph);
  CHECK(&first.pattern_graph() == &second.pattern_graph());
  const std::vector<std::uint32_t> every_relu = roots(relu);
  CHECK(every_relu.size() == 3);

  // Merged into a larger store: the handles forward, the compiled form still answers.
  Pattern larger = is_op("add")(is_op("add")(wildcard(), wildcard()), relu | wildcard());
  CHECK(&relu.graph() == &larger.graph());
  CHECK(roots(relu) == every_relu);
  Matcher<relay::Dialect> after_merge(relu, model.graph);
  CHECK(after_merge.pattern_graph().size() == 3);
  CHECK(after_merge.match(NodeId(every_relu.front())).bound(w) ==
        model.graph.operands(NodeId(every_relu.front()))[1]);

  // relu(relu(_)) now: only the two relus over a relu match; a stale compiled form says three.
  REQUIRE(w.redirect_to(is_op("nn.relu")(wildcard())).ok());
  Matcher<relay::Dialect> redirected(relu, model.graph);
  CHECK(&redirected.pattern_graph() != &first.pattern_graph());
  CHECK(redirected.pattern_graph().size() == 6);
  CHECK(roots(relu) == std::vector<std::uint32_t>(every_relu.begin() + 1, every_relu.end()));
  CHECK(first.pattern_graph().size() == 3);  // a matcher made before keeps what it compiled

  // A pattern of more than CompiledCache::kMaxNodes nodes is compiled for each matcher.
  Pattern alternatives = is_op("nn.relu");
  for (int i = 0; i < 2100; ++i) alternatives = alternatives | is_op("nn.relu");
  Pattern wide = alternatives(wildcard());
  Matcher<relay::Dialect> wide_first(wide, model.graph);
  Matcher<relay::Dialect> wide_second(wide, model.graph);
  CHECK(wide_first.pattern_graph().size() > detail::CompiledCache::kMaxNodes);
  CHECK(&wide_first.pattern_graph() != &wide_second.pattern_graph());
  CHECK(roots(wide) == every_relu);
}
