// Graph patterns (pattern/graph_pattern.hpp, pattern/graph_matcher.hpp, parse_graph_pattern):
// first the graph-wise cases of TVM Relax's tests/python/relax/test_dataflow_pattern.py, as data
// (tests/data/graph_patterns/relax/cases.json says how they were carried over: the pattern text
// as the TVM test writes it, the module in Relay text, the outcome the test asserts); then the
// C++ spelling of some of them (dup, fork_to, copied contexts, QKV with and without edges), the
// text syntax's own rules and errors, same_shape and ExternUse, squeezenet's fire modules in the
// corpus, the search's bounds, and the refused contexts.
#include <absl/status/statusor.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graphpat/analysis/reachability.hpp"
#include "graphpat/analysis/users.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/pattern/graph_matcher.hpp"
#include "pattern/corpus_support.hpp"

using namespace graphpat;
using namespace graphpat::dsl;
using graphpat::testing::parse_module_text;

namespace {

struct Model {
  relay::Module module;
  NodeId main;

  explicit Model(const std::string& text)
      : module(parse_module_text(text)), main(*module.find("main")) {}

  /// The node bound to `%name` (a parameter) or to `%N` (the N-th binding of the text).
  [[nodiscard]] NodeId var(std::string_view name) const {
    for (std::uint32_t i = 0; i < module.graph.size(); ++i) {
      if (module.graph.kind(NodeId(i)) == NodeKind::kVar && module.graph.name(NodeId(i)) == name)
        return NodeId(i);
    }
    FAIL("no var " << name);
    return NodeId();
  }
  /// The calls of `op` reachable from main, in id order (the order of the text's bindings).
  [[nodiscard]] std::vector<NodeId> calls(std::string_view op) const {
    std::vector<bool> live = reachable_from(module.graph, std::span(&main, 1));
    std::vector<NodeId> found;
    for (std::uint32_t i = 0; i < module.graph.size(); ++i) {
      NodeId id(i);
      if (live[i] && module.graph.kind(id) == NodeKind::kCall &&
          module.graph.context().op_name(module.graph.called_op(id)) == op)
        found.push_back(id);
    }
    return found;
  }

  [[nodiscard]] std::optional<Match> first(const PatternContext& ctx) const {
    absl::StatusOr<std::optional<Match>> found = match_graph(ctx, module.graph, main);
    INFO(found.status().ToString());
    REQUIRE(found.ok());
    return *found;
  }
  [[nodiscard]] std::vector<Match> all(const PatternContext& ctx) const {
    absl::StatusOr<std::vector<Match>> found = find_graph_matches(ctx, module.graph, main);
    INFO(found.status().ToString());
    REQUIRE(found.ok());
    return *found;
  }
};

Pattern call_of(std::string op) { return is_op(std::move(op))(any_args); }

const std::filesystem::path kRelaxCases =
    std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "graph_patterns" / "relax";

/// A module of tests/data/graph_patterns/relax/modules: a TVM test's TVMScript in Relay text.
Model module_named(const std::string& name) {
  return Model(graphpat::testing::read_file(kRelaxCases / "modules" / (name + ".relay")));
}

/// `%name` (a parameter) or `op#k` (the k-th call of op reachable from main, in text order).
NodeId node_named(const Model& m, const std::string& spec) {
  if (spec.starts_with('%')) return m.var(spec.substr(1));
  std::size_t hash = spec.find('#');
  REQUIRE(hash != std::string::npos);
  std::vector<NodeId> calls = m.calls(spec.substr(0, hash));
  std::size_t k = std::stoul(spec.substr(hash + 1));
  REQUIRE(k < calls.size());
  return calls[k];
}

ParsedGraphPattern graph_pattern_of(const std::string& text) {
  absl::StatusOr<ParsedGraphPattern> parsed = parse_graph_pattern(text);
  INFO(text << "\n" << parsed.status().ToString());
  REQUIRE(parsed.ok());
  return *std::move(parsed);
}

// Three denses of one input with stored types: two of shape (8, 32), one of (8, 4); the first
// is also used by a relu.
const char* const kTypedDenses = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8, 16), float32], %w0: Tensor[(32, 16), float32], %w1: Tensor[(32, 16), float32], %w2: Tensor[(4, 16), float32]) {
  %0 = nn.dense(%x, %w0, units=None) /* ty=Tensor[(8, 32), float32] */;
  %1 = nn.dense(%x, %w1, units=None) /* ty=Tensor[(8, 32), float32] */;
  %2 = nn.dense(%x, %w2, units=None) /* ty=Tensor[(8, 4), float32] */;
  %3 = nn.relu(%0) /* ty=Tensor[(8, 32), float32] */;
  (%3, %0, %1, %2)
}
)";

}  // namespace

TEST_CASE("graph pattern: TVM Relax's graph-wise matching cases, as data", "[pattern][graph]") {
  nlohmann::json spec =
      nlohmann::json::parse(graphpat::testing::read_file(kRelaxCases / "cases.json"));
  std::map<std::string, Model> modules;
  std::size_t cases = 0, matched = 0;
  for (const nlohmann::json& c : spec["cases"]) {
    std::string text;
    for (const nlohmann::json& line : c["pattern"]) text += line.get<std::string>() + "\n";
    std::string module = c["module"].get<std::string>();
    INFO(c["test"].get<std::string>() << " on " << module << "\n" << text);
    if (!modules.contains(module)) modules.emplace(module, module_named(module));
    const Model& m = modules.at(module);
    ParsedGraphPattern parsed = graph_pattern_of(text);
    std::optional<Match> found = m.first(parsed.context);
    CHECK(found.has_value() == c["expected"].get<bool>());
    ++cases;
    if (!found) {
      CHECK(m.all(parsed.context).empty());
      continue;
    }
    ++matched;
    if (c.contains("bindings")) {
      for (const auto& [name, node] : c["bindings"].items()) {
        INFO(name);
        std::optional<Pattern> pattern = parsed.find(name);
        REQUIRE(pattern);
        CHECK(found->bound(*pattern) == node_named(m, node.get<std::string>()));
      }
    }
    if (c.contains("matches")) CHECK(m.all(parsed.context).size() == c["matches"].get<std::size_t>());
  }
  CHECK(cases == 29);
  CHECK(matched == 19);
}

TEST_CASE("graph pattern: a diamond, written with edges and with fork_to (Relax test_diamond, "
          "test_diamond_counter_oub)",
          "[pattern][graph]") {
  Model m = module_named("diamond");
  Pattern n0 = call_of("nn.dense"), n1 = call_of("nn.relu"), n2 = call_of("sigmoid"),
          n3 = call_of("add");
  {
    PatternContext ctx;
    ctx.used_by(n0, n1).used_by(n0, n2).only_used_by(n1, n3).only_used_by(n2, n3);
    std::optional<Match> found = m.first(ctx);
    REQUIRE(found);
    CHECK(found->bound(n0) == m.calls("nn.dense").at(0));
    CHECK(found->bound(n1) == m.calls("nn.relu").at(0));
    CHECK(found->bound(n2) == m.calls("sigmoid").at(0));
    CHECK(found->bound(n3) == m.calls("add").at(0));
  }
  {
    PatternContext ctx;
    ctx.fork_to(n0, {n1, n2}).only_used_by(n1, n3).only_used_by(n2, n3);
    CHECK(m.first(ctx));
    REQUIRE(ctx.constraints().size() == 4);
    CHECK(ctx.constraints()[0] == UseConstraint{0, 1, UseKind::kUsedBy, -1});
    CHECK(ctx.constraints()[1] == UseConstraint{0, 2, UseKind::kUsedBy, -1});
  }
  {
    PatternContext ctx;  // the matmul is used by two nodes: not "only used by"
    ctx.only_used_by(n0, n1).only_used_by(n0, n2).only_used_by(n1, n3).only_used_by(n2, n3);
    CHECK_FALSE(m.first(ctx));
  }
}

TEST_CASE("graph pattern: chains in one context and in its copies (Relax test_nested_context, "
          "test_incremental_solving, test_incremental_solving_counter)",
          "[pattern][graph]") {
  Model m = module_named("cbr_x2");
  {
    PatternContext ctx0;
    ctx0.only_used_by_chain({call_of("nn.conv2d"), call_of("nn.bias_add"), call_of("nn.relu")});
    PatternContext ctx1;
    ctx1.only_used_by(call_of("nn.conv2d"), call_of("nn.relu"));  // no conv feeds a relu
    PatternContext ctx2;
    ctx2.only_used_by(call_of("nn.bias_add"), call_of("nn.relu"));
    CHECK(m.first(ctx2));
    CHECK_FALSE(m.first(ctx1));
    CHECK(m.first(ctx0));
    CHECK(m.all(ctx0).size() == 2);
  }
  Pattern relu = call_of("nn.relu"), sigmoid = call_of("sigmoid"), neg = call_of("negative");
  Model chain(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32]) {
  %0 = nn.relu(%x);
  %1 = sigmoid(%0);
  negative(%1)
}
)");
  PatternContext ctx0;
  ctx0.only_used_by(relu, sigmoid);
  PatternContext ctx1 = ctx0;  // PatternContext(incremental=True)
  ctx1.only_used_by(sigmoid, neg);
  CHECK(ctx1.constraints().size() == 2);
  CHECK(ctx0.constraints().size() == 1);
  CHECK(chain.first(ctx1));
  CHECK(chain.first(ctx0));

  Model short_chain(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32]) {
  %0 = sigmoid(%x);
  negative(%0)
}
)");
  CHECK_FALSE(short_chain.first(ctx0));
  PatternContext fresh;
  fresh.only_used_by(sigmoid, neg);
  CHECK(short_chain.first(fresh));
  CHECK_FALSE(short_chain.first(ctx1));
}

TEST_CASE("graph pattern: a user outside the context counts for >>, for ExternUse::kMustNot "
          "and for an unanchored consumer",
          "[pattern][graph]") {
  // %0 is used by sigmoid (%1) and by negative (%2), an op no context below names. The search
  // lists only users that call a context op when that is all it needs (every pattern anchored,
  // no >>, no ExternUse::kMustNot); each case here needs negative seen.
  Model m(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32]) {
  %0 = nn.relu(%x);
  %1 = sigmoid(%0);
  %2 = negative(%0);
  (%1, %2)
}
)");
  Pattern relu = call_of("nn.relu"), sigmoid = call_of("sigmoid");
  PatternContext used;
  used.used_by(relu, sigmoid);
  std::vector<Match> found = m.all(used);
  REQUIRE(found.size() == 1);
  CHECK(found[0].bound(relu) == m.calls("nn.relu")[0]);
  CHECK(found[0].bound(sigmoid) == m.calls("sigmoid")[0]);

  PatternContext only;  // %0 has two users
  only.only_used_by(relu, sigmoid);
  CHECK(m.all(only).empty());

  PatternContext sealed = used;  // negative uses %0 from outside the match
  sealed.set_extern_use(ExternUse::kMustNot);
  CHECK(m.all(sealed).empty());

  Pattern any_user = dsl::wildcard();
  PatternContext unanchored;  // relu with each of its users: sigmoid, then negative
  unanchored.used_by(relu, any_user);
  found = m.all(unanchored);
  REQUIRE(found.size() == 2);
  CHECK(found[0].bound(any_user) == m.calls("sigmoid")[0]);
  CHECK(found[1].bound(any_user) == m.calls("negative")[0]);
}

TEST_CASE("graph pattern: dup and fork_to find the two branches of CBRx2 (Relax test_two_cbr)",
          "[pattern][graph]") {
  Model m = module_named("cbr_x2");
  for (const char* input : {"x", "y"}) {
    PatternContext ctx;
    std::vector<Pattern> cbr0 = {call_of("nn.conv2d"), call_of("nn.bias_add"),
                                 call_of("nn.relu")};
    ctx.only_used_by_chain(cbr0);
    std::vector<Pattern> cbr1 = ctx.dup(cbr0);
    REQUIRE(cbr1.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) CHECK_FALSE(cbr0[i].same_as(cbr1[i]));
    CHECK(ctx.constraints().size() == 4);  // the chain's two and their copies
    ctx.fork_to(is_var(input), {cbr0[0], cbr1[0]});
    std::optional<Match> found = m.first(ctx);
    INFO(input);
    if (std::string(input) == "y") {
      CHECK_FALSE(found);  // y feeds no conv
      continue;
    }
    REQUIRE(found);
    std::vector<NodeId> convs = m.calls("nn.conv2d"), relus = m.calls("nn.relu");
    CHECK(found->bound(cbr0[0]) == convs[0]);
    CHECK(found->bound(cbr1[0]) == convs[1]);
    CHECK(found->bound(cbr0[2]) == relus[0]);
    CHECK(found->bound(cbr1[2]) == relus[1]);
    CHECK(m.all(ctx).size() == 1);
  }
}

TEST_CASE("graph pattern: QKV, three matmuls of one input (Relax test_attention_qkv, "
          "test_attention_fake_qkv, and test_combine_matmul_twice's matching)",
          "[pattern][graph]") {
  Pattern inp = wildcard(), wq = wildcard(), wk = wildcard(), wv = wildcard();
  Pattern m1 = is_op("nn.dense")(inp, wq), m2 = is_op("nn.dense")(inp, wk),
          m3 = is_op("nn.dense")(inp, wv);
  PatternContext relax_block;  // what Relax's `with PatternContext()` block builds: arg ^ call
  relax_block.used_by(inp, m1, 0).used_by(wq, m1, 1).used_by(inp, m2, 0).used_by(wk, m2, 1);
  relax_block.used_by(inp, m3, 0).used_by(wv, m3, 1);
  PatternContext roots;  // the same with the three calls only: inp is one node all the same
  roots.add(m1).add(m2).add(m3);

  Model qkv = module_named("qkv_proj");
  Model fake = module_named("qkv_proj_fake");
  Model twice = module_named("qkv_x2");
  for (const PatternContext* ctx : {&relax_block, &roots}) {
    std::optional<Match> found = qkv.first(*ctx);
    REQUIRE(found);
    CHECK(found->bound(inp) == qkv.var("x"));
    CHECK(found->bound(wq) == qkv.var("w0"));
    CHECK(found->bound(wk) == qkv.var("w1"));
    CHECK(found->bound(wv) == qkv.var("w2"));
    CHECK(qkv.all(*ctx).size() == 1);  // 3! assignments, one set of nodes
    if (ctx == &roots) {
      // The three calls are interchangeable (no constraint names them; alike up to their own
      // weight), so only increasing assignments are tried; a node out of order is passed over
      // before any matching, and so is one above which too few nn.dense users of x are left
      // for the projections still to place (x read off the call's first argument before q is
      // tried). Tries, counted by hand (users of x: %0, %1, %2 and the function): q at %0 (two
      // denses above it for k and v), k at %1 (one above it for v), v at %2: the match (3).
      // k at %2 (none above for v), q at %1 (one above for two) and q at %2 are passed over.
      // Three, where trying every increasing assignment takes seven.
      absl::StatusOr<GraphMatcher<relay::Dialect>> matcher =
          GraphMatcher<relay::Dialect>::make(roots, qkv.module.graph);
      REQUIRE(matcher.ok());
      CHECK(matcher->find_all(qkv.main).size() == 1);
      CHECK(matcher->report().steps == 3);
    }

    CHECK_FALSE(fake.first(*ctx));

    std::vector<Match> both = twice.all(*ctx);
    REQUIRE(both.size() == 2);
    CHECK(both[0].bound(inp) == twice.var("x1"));
    CHECK(both[1].bound(inp) == twice.var("x2"));
    CHECK(both[1].bound(wq) == twice.var("w3"));
    CHECK(both[1].bound(wv) == twice.var("w5"));
  }
}

TEST_CASE("graph pattern: QKV over inputs with 0 to 6 dense users among other users finds "
          "every 3 of them once",
          "[pattern][graph]") {
  // Each input's users in id order: d an nn.dense, r an nn.relu. The context's three calls are
  // interchangeable, so each set of 3 denses of one input is one match: C(denses, 3) per input,
  // whatever the relus between them (more than the look ahead passes over, in the last two).
  const std::vector<std::string> layouts = {"",       "dd",          "ddd",          "dddd",
                                            "drdrd",  "rddrrd",      "dddddd",
                                            std::string(20, 'r') + "ddd",
                                            "dd" + std::string(20, 'r') + "d"};
  std::string params, body, outputs;
  std::size_t expected = 0;
  int binding = 0;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    params += fmt::format("{}%x{}: Tensor[(4, 4), float32], %w{}: Tensor[(4, 4), float32]",
                          i == 0 ? "" : ", ", i, i);
    std::size_t denses = 0;
    for (char user : layouts[i]) {
      body += user == 'd' ? fmt::format("  %{} = nn.dense(%x{}, %w{}, units=None);\n", binding, i, i)
                          : fmt::format("  %{} = nn.relu(%x{});\n", binding, i);
      outputs += fmt::format("{}%{}", outputs.empty() ? "" : ", ", binding++);
      denses += user == 'd';
    }
    if (denses >= 3) expected += denses * (denses - 1) * (denses - 2) / 6;
  }
  Model model("#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n" + body + "  (" + outputs +
              ")\n}\n");
  Pattern inp = wildcard();
  PatternContext qkv;
  for (int k = 0; k < 3; ++k) qkv.add(is_op("nn.dense")(inp, wildcard()));
  std::vector<Match> found = model.all(qkv);
  CHECK(expected == 29);  // 1 + 4 + 1 + 1 + 20 + 1 + 1
  CHECK(found.size() == expected);
  std::set<std::vector<NodeId>> sets;
  for (const Match& match : found) {
    std::vector<NodeId> calls;
    for (const Pattern& call : qkv.patterns()) {
      calls.push_back(match.bound(call));
      CHECK(model.module.graph.args(calls.back())[0] == match.bound(inp));
    }
    CHECK(std::is_sorted(calls.begin(), calls.end()));
    CHECK(std::adjacent_find(calls.begin(), calls.end()) == calls.end());
    sets.insert(calls);
  }
  CHECK(sets.size() == found.size());
}

TEST_CASE("graph pattern: same_shape and ExternUse::kMustNot", "[pattern][graph]") {
  Model m(kTypedDenses);
  std::vector<NodeId> denses = m.calls("nn.dense");
  Pattern x = wildcard();
  Pattern a = is_op("nn.dense")(x, wildcard()), b = is_op("nn.dense")(x, wildcard());
  PatternContext pair;
  pair.add(a).add(b);
  CHECK(m.all(pair).size() == 3);  // {0,1}, {0,2}, {1,2}
  PatternContext same = pair;
  same.same_shape({a, b});
  std::vector<Match> found = m.all(same);
  REQUIRE(found.size() == 1);
  CHECK(found[0].bound(a) == denses[0]);
  CHECK(found[0].bound(b) == denses[1]);

  // %0 is used by the relu and by the tuple: with kMustNot, a relu consumer does not cover it.
  Pattern dense = call_of("nn.dense"), relu = call_of("nn.relu");
  PatternContext inside;
  inside.used_by(dense, relu);
  CHECK(m.first(inside));
  inside.set_extern_use(ExternUse::kMustNot);
  CHECK_FALSE(m.first(inside));
  Model alone(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8, 16), float32], %w0: Tensor[(32, 16), float32]) {
  %0 = nn.dense(%x, %w0, units=None);
  nn.relu(%0)
}
)");
  CHECK(alone.first(inside));
}

TEST_CASE("graph pattern: the fire modules of squeezenet (a relu forked to two convolutions "
          "joined by a concatenate)",
          "[pattern][graph][corpus]") {
  Model m(graphpat::testing::read_file(graphpat::testing::kCorpus / "models" /
                                       "squeezenet1_0.relay"));
  Pattern squeeze = call_of("nn.relu");
  Pattern expand1 = is_op("nn.conv2d")(squeeze, wildcard()).has_attr({{"kernel_size", {1, 1}}});
  Pattern expand3 = is_op("nn.conv2d")(squeeze, wildcard()).has_attr({{"kernel_size", {3, 3}}});
  PatternContext ctx;
  ctx.fork_to(squeeze, {expand1, expand3});
  std::vector<Match> fires = m.all(ctx);
  // SqueezeNet 1.0 has eight fire modules (fire2 .. fire9), and a relu feeds two convolutions
  // nowhere else; counted here without the matcher, over the users of each relu:
  const relay::Graph& graph = m.module.graph;
  std::vector<bool> live = reachable_from(graph, std::span(&m.main, 1));
  UsersIndex users = UsersIndex::build(graph, &live);
  std::size_t forks = 0;
  for (NodeId relu : m.calls("nn.relu")) {
    std::size_t convs = 0;
    for (NodeId user : users.users(relu)) {
      convs += graph.kind(user) == NodeKind::kCall &&
               graph.context().op_name(graph.called_op(user)) == "nn.conv2d";
    }
    forks += convs == 2;
  }
  CHECK(forks == 8);
  REQUIRE(fires.size() == 8);
  for (const Match& fire : fires) {
    CHECK(graph.args(fire.bound(expand1))[0] == fire.bound(squeeze));
    CHECK(graph.args(fire.bound(expand3))[0] == fire.bound(squeeze));
    CHECK(fire.bound(expand1) != fire.bound(expand3));
  }
  // The same as a Relax block. Inside it each conv's arguments are tied to the conv call,
  // while the fork names its has_attr: the two are context patterns of one node, and take it
  // together (the one-to-one rule does not part them).
  ParsedGraphPattern text = graph_pattern_of(R"(
with PatternContext() as ctx:
    squeeze = is_op("nn.relu")(None)
    expand1 = is_op("nn.conv2d")(squeeze, wildcard()).has_attr({"kernel_size": [1, 1]})
    expand3 = is_op("nn.conv2d")(squeeze, wildcard()).has_attr({"kernel_size": [3, 3]})
    squeeze.fork_to(expand1, expand3)
)");
  CHECK(text.context.patterns().size() == 7);  // squeeze, 2 x (conv, weight, has_attr)
  std::vector<Match> from_text = m.all(text.context);
  REQUIRE(from_text.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(from_text[i].bound(*text.find("expand3")) == fires[i].bound(expand3));
  }
}

TEST_CASE("graph pattern: an unbounded product stops at max_steps and says so",
          "[pattern][graph][limits]") {
  std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n";
  text += "  %0 = nn.relu(%x);\n";
  for (int i = 1; i < 2000; ++i) text += fmt::format("  %{} = nn.relu(%{});\n", i, i - 1);
  text += "  %1999\n}\n";
  Model m(text);
  PatternContext ctx;  // two relus tied by nothing: 2000 x 1999 assignments
  ctx.add(call_of("nn.relu")).add(call_of("nn.relu"));
  absl::StatusOr<GraphMatcher<relay::Dialect>> matcher =
      GraphMatcher<relay::Dialect>::make(ctx, m.module.graph, {.match = {}, .max_steps = 10'000});
  REQUIRE(matcher.ok());
  std::vector<Match> found = matcher->find_all(m.main);
  CHECK(matcher->report().stopped);
  CHECK(matcher->report().steps == 10'000);
  CHECK(found.size() == matcher->report().matches);
  CHECK(matcher->report().stop_reason ==
        fmt::format("stopped at GraphMatchOptions::max_steps = 10000 tries, with {} matches found",
                    found.size()));
  absl::StatusOr<GraphMatcher<relay::Dialect>> capped =
      GraphMatcher<relay::Dialect>::make(ctx, m.module.graph, {.match = {}, .max_steps = 0, .max_matches = 5});
  REQUIRE(capped.ok());
  CHECK(capped->find_all(m.main).size() == 5);
  CHECK(capped->report().stop_reason == "stopped at GraphMatchOptions::max_matches = 5");
  // Two wildcards bind everything: about 2,000^2 / 2 sets of nodes. Left at 0, max_matches is
  // 65,536 (more than 4 per node here), so what is kept stays linear in the graph.
  PatternContext anything;
  anything.add(wildcard()).add(wildcard());
  absl::StatusOr<GraphMatcher<relay::Dialect>> unbounded =
      GraphMatcher<relay::Dialect>::make(anything, m.module.graph);
  REQUIRE(unbounded.ok());
  CHECK(unbounded->find_all(m.main).size() == 65'536);
  CHECK(unbounded->report().stop_reason == "stopped at GraphMatchOptions::max_matches = 65536");

  // Tied by an edge, the same two relus are found along the chain in linear time: 1999 pairs.
  PatternContext chain;
  chain.only_used_by(call_of("nn.relu"), call_of("nn.relu"));
  absl::StatusOr<GraphMatcher<relay::Dialect>> linear =
      GraphMatcher<relay::Dialect>::make(chain, m.module.graph);
  REQUIRE(linear.ok());
  CHECK(linear->find_all(m.main).size() == 1999);
  CHECK_FALSE(linear->report().stopped);
  CHECK(linear->report().steps == 2000 + 1999);  // each relu as producer, each user once
}

TEST_CASE("graph pattern: a context of 20,000 chained patterns along a 20,000-relu chain",
          "[pattern][graph][limits]") {
  constexpr int kLength = 20'000;
  std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {\n";
  text += "  %0 = nn.relu(%x);\n";
  for (int i = 1; i < kLength; ++i) text += fmt::format("  %{} = nn.relu(%{});\n", i, i - 1);
  text += fmt::format("  %{}\n}}\n", kLength - 1);
  Model m(text);
  std::vector<Pattern> chain;
  for (int i = 0; i < kLength; ++i) chain.push_back(call_of("nn.relu"));
  PatternContext ctx;
  ctx.only_used_by_chain(chain);
  absl::StatusOr<GraphMatcher<relay::Dialect>> matcher =
      GraphMatcher<relay::Dialect>::make(ctx, m.module.graph);
  REQUIRE(matcher.ok());
  std::optional<Match> found = matcher->first(m.main);
  REQUIRE(found);
  std::vector<NodeId> relus = m.calls("nn.relu");
  CHECK(found->bound(chain.front()) == relus.front());
  CHECK(found->bound(chain.back()) == relus.back());
  CHECK(matcher->report().steps == kLength);  // one try a pattern: the plan follows the edges
  // Every match: each relu starts a try that runs to the end of the graph, k^2 / 2 tries in
  // all; the default bound (64 per node of graph and context) stops it, and says so.
  std::vector<Match> all = matcher->find_all(m.main);
  CHECK(all.size() == 1);
  CHECK(matcher->report().stopped);
  CHECK(matcher->report().steps < std::uint64_t{kLength} * kLength / 4);
}

TEST_CASE("graph pattern: contexts that cannot be matched are refused", "[pattern][graph]") {
  Model m = module_named("main");
  PatternContext empty;
  absl::StatusOr<std::vector<Match>> none = find_graph_matches(empty, m.module.graph, m.main);
  CHECK(none.status().message() ==
        "[graphpat.graph_pattern.empty] the pattern context has no pattern");
  Pattern dense = call_of("nn.dense"), relu = call_of("nn.relu");
  PatternContext negative;
  negative.used_by(dense, relu, -2);
  CHECK(find_graph_matches(negative, m.module.graph, m.main).status().message() ==
        "[graphpat.graph_pattern.bad_index] constraint 0 (#0 ^ #1 (index -2)): index -2 is "
        "neither -1 (any operand) nor an operand position");
  PatternContext self;
  self.add(relu).only_used_by(dense, dense);
  CHECK(match_graph(self, m.module.graph, m.main).status().message() ==
        "[graphpat.graph_pattern.self_use] constraint 0 (#1 >> #1): a pattern cannot use its own "
        "node");
  // An index past the consumer's arguments is no error: it matches nothing.
  PatternContext far;
  far.used_by(dense, relu, 1);
  CHECK(find_graph_matches(far, m.module.graph, m.main)->empty());
  PatternContext exact;
  exact.used_by(dense, relu, 0);
  CHECK(find_graph_matches(exact, m.module.graph, m.main)->size() == 1);
}

TEST_CASE("graph pattern text: a text without a with block is the context's body, and names "
          "are kept",
          "[pattern][graph][text]") {
  Model m(kTypedDenses);
  ParsedGraphPattern parsed = graph_pattern_of(R"(
inp = wildcard()
q = is_op("nn.dense")(inp, wildcard())
k = is_op("nn.dense")(inp, wildcard())
q.same_shape_as(k)
)");
  // Relax's `arg ^ call` edges: inp and each weight used by its call at its index; the
  // context's patterns in the order the edges named them: inp, q, q's weight, k, k's weight.
  REQUIRE(parsed.context.patterns().size() == 5);
  REQUIRE(parsed.context.constraints().size() == 4);
  CHECK(parsed.context.constraints()[0] == UseConstraint{0, 1, UseKind::kUsedBy, 0});
  CHECK(parsed.context.constraints()[1] == UseConstraint{2, 1, UseKind::kUsedBy, 1});
  CHECK(parsed.context.constraints()[3] == UseConstraint{4, 3, UseKind::kUsedBy, 1});
  CHECK(parsed.context.same_shape_groups() == std::vector<std::vector<std::size_t>>{{1, 3}});
  REQUIRE(parsed.names.size() == 3);
  CHECK(parsed.names[1].first == "q");
  std::vector<Match> found = m.all(parsed.context);
  REQUIRE(found.size() == 1);  // of the three pairs, the two (8, 32) denses
  CHECK(found[0].bound(*parsed.find("q")) == node_named(m, "nn.dense#0"));
  CHECK(found[0].bound(*parsed.find("k")) == node_named(m, "nn.dense#1"));

  // Outside the block, patterns are made without edges; `^` there is refused.
  ParsedGraphPattern outside = graph_pattern_of(R"(
relu = is_op("nn.relu")(wildcard())
with PatternContext() as ctx:
    relu >> is_op("nn.softmax")(None)
x = 1
)");
  CHECK(outside.context.patterns().size() == 2);
  CHECK(outside.context.constraints().size() == 1);
}

TEST_CASE("graph pattern text: a chain of 100,000 patterns grows in place", "[pattern][graph][text]") {
  std::string text = "with PatternContext() as ctx:\n    chain = is_op('nn.relu')(None)";
  for (int i = 1; i < 100'000; ++i) text += " >> is_op('nn.relu')(None)";
  text += "\n    chain.dup()\n";
  ParsedGraphPattern parsed = graph_pattern_of(text);
  CHECK(parsed.context.patterns().size() == 200'000);        // the chain and its copy
  CHECK(parsed.context.constraints().size() == 2 * 99'999);  // and their `>>`
  CHECK(parsed.names.empty());  // a sequence is not a pattern: `chain` names none
}

TEST_CASE("graph pattern text: what the text refuses, located", "[pattern][graph][text]") {
  auto error = [](std::string_view text) {
    absl::StatusOr<ParsedGraphPattern> parsed = parse_graph_pattern(text);
    REQUIRE_FALSE(parsed.ok());
    return std::string(parsed.status().message());
  };
  CHECK(error("with PatternContext() as a:\n    is_op('nn.relu')(None)\n"
              "with PatternContext() as b:\n    is_op('nn.relu')(None)\n") ==
        "[graphpat.pattern_text.unsupported] 3:1: one PatternContext block per text: write the "
        "other as a text of its own");
  CHECK(error("with PatternContext() as a:\n    with PatternContext() as b:\n        x = 1\n") ==
        "[graphpat.pattern_text.unsupported] 2:5: a PatternContext block inside another is not "
        "supported: write the inner one as a text of its own");
  CHECK(error("with wildcard() as a:\n    x = 1\n") ==
        "[graphpat.pattern_text.no_context] 1:6: a with block takes PatternContext(), got a "
        "pattern");
  CHECK(error("a = wildcard()\nwith PatternContext() as ctx:\n    a ^ wildcard()\na ^ a\n") ==
        "[graphpat.pattern_text.no_context] 4:3: '^' (used_by) adds a constraint to a "
        "PatternContext: write it inside a `with PatternContext() as ctx:` block and read the "
        "text with parse_graph_pattern");
  CHECK(error("with PatternContext() as ctx:\n    wildcard() >> 3\n") ==
        "[graphpat.pattern_text.bad_operand] 2:16: the consumer must be a pattern or a pattern "
        "sequence, got an int");
  CHECK(error("with PatternContext() as ctx\n") ==
        "[graphpat.pattern_text.unexpected_token] 1:29: expected ':' after 'with ... as NAME', "
        "found end of the line");
  CHECK(error("with PatternContext() as ctx:\n    (wildcard() >> wildcard()).fork_to()\n") ==
        "[graphpat.pattern_text.unknown_method] 2:32: pattern sequences have no method "
        "'fork_to'");
  CHECK(error("x = wildcard()\n") ==
        "[graphpat.graph_pattern.empty] the pattern context has no pattern");
  // parse_pattern reads one pattern: a with block or `>>` is for parse_graph_pattern.
  absl::StatusOr<Pattern> single = parse_pattern("with PatternContext() as ctx:\n    wildcard()\n");
  CHECK(single.status().message() ==
        "[graphpat.pattern_text.no_context] 1:1: a with block makes a graph pattern: read the "
        "text with parse_graph_pattern");
  single = parse_pattern("wildcard() >> wildcard()");
  CHECK(single.status().message() ==
        "[graphpat.pattern_text.no_context] 1:12: '>>' (only_used_by) adds a constraint to a "
        "PatternContext: write it inside a `with PatternContext() as ctx:` block and read the "
        "text with parse_graph_pattern");
}
