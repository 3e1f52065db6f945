// The matcher's semantics case by case (docs/semantics.md §3), its API for the partition
// and rewrite engines (bindings, find_matches), genericity over dialects, and the large tests:
// a million-node graph and a recursive pattern over a million-node chain, without recursion.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern/explain.hpp>
#include <graphpat/pattern/matcher.hpp>
#include <graphpat/transform/partition.hpp>
#include <string>
#include <vector>

#include "pattern/corpus_support.hpp"
#include "support/arith_dialect.hpp"
#include "support/scale.hpp"

using namespace graphpat;
using namespace graphpat::dsl;
using namespace graphpat::testing;

namespace {

struct Program {
  relay::Module module;
  NodeId body;
  const relay::Graph& graph() const { return module.graph; }
};

Program program(const std::string& main_text) {
  Program p{parse_module_text("#[version = \"0.0.5\"]\n" + main_text), NodeId()};
  p.body = p.module.graph.body(*p.module.find("main"));
  return p;
}

bool matches(const Pattern& pattern, const Program& p, MatchOptions options = {}) {
  return static_cast<bool>(match(pattern, p.graph(), p.body, options));
}

}  // namespace

TEST_CASE("v0.19 test_match_dominator2: var arguments on the path are skipped",
          "[pattern][matcher][dominator]") {
  // docs/semantics.md §3.9 and §10 (apache/tvm#16983): expected True.
  Program p = program(
      R"(def @main(%input: Tensor[(1, 3, 12, 12), float32], %weight: Tensor[(3, 3, 3, 3), float32], %bias: Tensor[(3), float32]) {
  %0 = nn.conv2d(%input, %weight, padding=[0, 0, 0, 0]);
  %1 = nn.bias_add(%0, %bias);
  %2 = nn.relu(%1);
  reshape(%2, newshape=[1, 300])
})");
  Pattern pattern = pattern_of(R"(
conv2d_pat = is_op("nn.conv2d")(wildcard(), wildcard())
eltwise_pat = (wildcard().has_attr({"TOpPattern": 0}))(None)
broadcast_pat = (wildcard().has_attr({"TOpPattern": 1}))(None)
path_pat = eltwise_pat | broadcast_pat
injective_pat = (wildcard().has_attr({"TOpPattern": 2}))(wildcard())
DominatorPattern(conv2d_pat, path_pat, injective_pat))");
  CHECK(matches(pattern, p, {.relay_compat = true}));
  CHECK(matches(pattern, p));
  Match m = match(pattern, p.graph(), p.body);
  REQUIRE(m);
  // The parent binds the conv; the path binds every node it matched.
  const PatternGraph& g = m.pattern_graph();
  PatternId dominator = m.pattern_root();
  CHECK(p.graph().called_op(m.bound(g.operands(dominator)[0])) ==
        p.graph().context().op("nn.conv2d"));
  CHECK(m.bindings(g.operands(dominator)[1]).size() == 2);  // relu, bias_add
}

// Found by fuzz_graph_passes (session 8: 2 GB of path bindings on a 64-step graph): each
// `(%n, %n)` tuple doubles the paths from the relu back to the add, and the walk went down
// every one. A node walked from once is not walked again, so 60 links (2^60 paths) take one
// step per edge, and the path binds each tuple once and each projection once per use.
TEST_CASE("a dominator walk goes down each node once, however many paths reach it",
          "[pattern][matcher][dominator]") {
  constexpr int kLinks = 60;
  std::string text = "def @main(%x, %y) {\n  %0 = add(%x, %y);\n";
  for (int link = 0; link < kLinks; ++link) {
    text += fmt::format("  %{} = (%{}, %{});\n", 2 * link + 1, 2 * link, 2 * link);
    text += fmt::format("  %{} = %{}.0;\n", 2 * link + 2, 2 * link + 1);
  }
  text += fmt::format("  nn.relu(%{})\n}}", 2 * kLinks);
  Program p = program(text);
  Pattern pattern = pattern_of("dominates(is_op('add')(None), wildcard(), is_op('nn.relu')(None))");
  for (bool relay_compat : {false, true}) {
    CAPTURE(relay_compat);
    Match m = match(pattern, p.graph(), p.body, {.relay_compat = relay_compat});
    REQUIRE(m);
    const PatternGraph& g = m.pattern_graph();
    PatternId dominator = m.pattern_root();
    NodeId add = m.bound(g.operands(dominator)[0]);
    CHECK(p.graph().called_op(add) == p.graph().context().op("add"));
    // The top projection once, each tuple once (from its projection), each lower projection
    // twice (from both fields of the tuple above it).
    CHECK(m.bindings(g.operands(dominator)[1]).size() == 3 * kLinks - 1);
  }
}

// fuzz_pattern_graph (session 14) took a node find_matches reported and match() refused for a
// negated dominator: post-dominance is taken over the graph under the scope root
// (docs/semantics.md §3.9), the node itself for match(node), the search root for
// find_matches, so under `~` the two differ; Matcher::match(node, scope) matches in the latter.
TEST_CASE("a negated dominator pattern depends on the scope post-dominance is taken in",
          "[pattern][matcher][dominator]") {
  Program p = program(R"(def @main(%x) {
  %0 = nn.relu(%x);
  %1 = subtract(%0, %0);
  %2 = nn.relu(%1);
  (%2, %1)
})");
  Pattern pattern = pattern_of("~dominates(wildcard(), wildcard(), is_op('nn.relu')(wildcard()))");
  NodeId function = *p.module.find("main");
  const relay::Graph& graph = p.graph();
  NodeId relu = graph.fields(p.body)[0];  // %2 = nn.relu(%1)
  // Alone, %2 is the only user of %1, so it post-dominates it: dominates holds, ~ refuses.
  CHECK_FALSE(match(pattern, graph, relu));
  // In the function, the tuple uses %1 too: %2 does not post-dominate it, ~ accepts.
  CHECK(Matcher<relay::Dialect>(pattern, graph).match(relu, function));
  bool found = false;
  for (const Match& m : find_matches(pattern, graph, function)) found |= m.root() == relu;
  CHECK(found);
}

TEST_CASE("bindings are visible on success only, one node per pattern node", "[pattern][matcher]") {
  Program diamond = program(R"(def @main(%x, %w) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.relu(%0);
  %2 = nn.leaky_relu(%0);
  add(%1, %2)
})");
  Pattern conv = is_op("nn.conv2d")(wildcard(), wildcard());
  Pattern relu = is_op("nn.relu")(conv);
  Pattern pattern = is_op("add")(relu, is_op("nn.leaky_relu")(conv));
  Match m = match(pattern, diamond.graph(), diamond.body);
  REQUIRE(m);
  const relay::Graph& g = diamond.graph();
  CHECK(g.called_op(m.bound(conv)) == g.context().op("nn.conv2d"));
  CHECK(m.bindings(conv).size() == 1);
  CHECK(m.bound(relu) == g.args(diamond.body)[0]);
  CHECK(m.bound(pattern) == diamond.body);
  CHECK_FALSE(m.bound(wildcard()).valid());  // not part of this pattern

  Match failed = match(is_op("add")(relu, is_op("nn.relu")(conv)), g, diamond.body);
  CHECK_FALSE(failed);
  CHECK_FALSE(failed.bound(conv).valid());
  CHECK(failed.binding_count() == 0);
}

TEST_CASE("identity binding, non-injective binding, committed alternation", "[pattern][matcher]") {
  Program fake = program(R"(def @main(%x, %w) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.conv2d(%x, %w);
  add(nn.relu(%0), nn.leaky_relu(%1))
})");
  Pattern conv = is_op("nn.conv2d")(wildcard(), wildcard());
  CHECK_FALSE(matches(is_op("add")(is_op("nn.relu")(conv), is_op("nn.leaky_relu")(conv)), fake));
  // Two pattern nodes may bind one graph node (Relay allows it; tlc-pack/relax#160).
  Program shared = program(R"(def @main(%x, %w) {
  %0 = nn.conv2d(%x, %w);
  add(%0, %0)
})");
  Pattern c0 = is_op("nn.conv2d")(wildcard(), wildcard());
  Pattern c1 = is_op("nn.conv2d")(wildcard(), wildcard());
  Match m = match(c0 + c1, shared.graph(), shared.body);
  REQUIRE(m);
  CHECK(m.bound(c0) == m.bound(c1));
  // `x | is_var()` commits to `x` on the first operand; the right side is never retried.
  Pattern x = wildcard();
  Pattern committed = is_op("subtract")(x | is_var(), x);
  CHECK_FALSE(matches(committed, program("def @main(%a, %b) { subtract(%a, %b) }")));
  CHECK(matches(committed, program("def @main(%a) { subtract(%a, %a) }")));
}

TEST_CASE("commutativity: Relay's pattern-op rule and graphpat's registry rule",
          "[pattern][matcher]") {
  Program swapped_add = program("def @main(%x, %y) { add(%y, %x) }");
  Program swapped_max = program("def @main(%x, %y) { maximum(%y, %x) }");
  Program swapped_sub = program("def @main(%x, %y) { subtract(%y, %x) }");
  Pattern x = is_var("x"), y = is_var("y");
  CHECK(matches(is_op("add")(x, y), swapped_add, {.relay_compat = true}));
  CHECK(matches(is_op("add")(x, y), swapped_add));
  // Relay retries only when the callee is written is_op("add") / is_op("multiply").
  Pattern either = (is_op("add") | is_op("subtract"))(x, y);
  CHECK_FALSE(matches(either, swapped_add, {.relay_compat = true}));
  CHECK(matches(either, swapped_add));
  CHECK_FALSE(matches(is_op("maximum")(x, y), swapped_max, {.relay_compat = true}));
  CHECK(matches(is_op("maximum")(x, y), swapped_max));
  CHECK_FALSE(matches(is_op("subtract")(x, y), swapped_sub, {.relay_compat = true}));
  CHECK_FALSE(matches(is_op("subtract")(x, y), swapped_sub));
}

TEST_CASE("divide/multiply associativity retries keep leaf bindings only", "[pattern][matcher]") {
  Pattern a = is_var("a"), b = is_var("b"), c = is_var("c");
  Pattern product = is_op("multiply")(a, b);
  Pattern quotient = is_op("divide")(product, c);
  for (MatchOptions options : {MatchOptions{.relay_compat = true}, MatchOptions{}}) {
    Program right = program("def @main(%a, %b, %c) { multiply(%a, divide(%b, %c)) }");
    Match m = match(quotient, right.graph(), right.body, options);
    REQUIRE(m);
    CHECK(right.graph().name(m.bound(a)) == "a");
    CHECK(right.graph().name(m.bound(c)) == "c");
    CHECK_FALSE(m.bound(product).valid());   // the retry built its own multiply pattern
    CHECK(m.bound(quotient) == right.body);  // the root pattern binds the root
    CHECK(matches(quotient, program("def @main(%a, %b, %c) { multiply(%b, divide(%a, %c)) }"),
                  options));
    Pattern x = is_var("x"), p = is_var("p"), q = is_var("q");
    CHECK(matches(is_op("multiply")(x, is_op("divide")(p, q)),
                  program("def @main(%x, %p, %q) { divide(multiply(%p, %x), %q) }"), options));
    CHECK_FALSE(matches(
        quotient, program("def @main(%a, %b, %c) { multiply(%a, subtract(%b, %c)) }"), options));
  }
}

TEST_CASE("& and ! combine patterns on the same node", "[pattern][matcher]") {
  Program typed = program(R"(def @main(%x: Tensor[(2, 2), float32]) {
  nn.relu(%x) /* ty=Tensor[(2, 2), float32] */
})");
  Pattern relu = is_op("nn.relu")(wildcard());
  CHECK(matches(relu & has_dtype("float32"), typed));
  CHECK_FALSE(matches(relu & has_dtype("int8"), typed));
  CHECK_FALSE(matches(!relu, typed));
  CHECK(matches(!is_op("nn.sigmoid")(wildcard()), typed));
  CHECK(matches(~is_constant(), typed));
  // Bindings made under a negation never survive it.
  Pattern inner = wildcard();
  Match m = match(is_op("nn.relu")(!is_op("tanh")(inner)), typed.graph(), typed.body);
  REQUIRE(m);
  CHECK_FALSE(m.bound(inner).valid());
}

TEST_CASE("types come from stored types; an untyped node matches no type pattern",
          "[pattern][matcher]") {
  Program typed = program(R"(def @main(%x: Tensor[(10, 10), float32]) {
  nn.relu(%x) /* ty=Tensor[(10, 10), float32] */
})");
  Program untyped = program("def @main(%x) { nn.relu(%x) }");
  Pattern t = has_type(tensor_type({10, 10}, "float32"));
  CHECK(matches(t, typed));
  CHECK_FALSE(matches(t, untyped));
  CHECK(matches(has_shape({10, 10}), typed));
  CHECK_FALSE(matches(has_shape({10, 5}), typed));
  CHECK(matches(pattern_of("has_type('Tensor[(10, 10), float32]')"), typed));
  CHECK(
      explain(t, untyped.graph(), untyped.body) ==
      fmt::format("{} = nn.relu(...) has no type (the matcher reads stored types and infers none)",
                  untyped.body));
}

TEST_CASE("attribute values: ints, floats, strings, dtypes, arrays; others never match",
          "[pattern][matcher]") {
  Program p = program(R"(def @main(%x, %w) {
  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);
  %1 = nn.leaky_relu(%0, alpha=0.1f);
  cast(%1, dtype="float16")
})");
  const relay::Graph& g = p.graph();
  NodeId cast = p.body;
  NodeId leaky = g.args(cast)[0];
  NodeId conv = g.args(leaky)[0];
  auto at = [&](const Pattern& pattern, NodeId node) {
    return static_cast<bool>(match(pattern, g, node));
  };
  Pattern any_call = wildcard()(any_args);
  CHECK(at(any_call.has_attr({{"channels", 64}, {"kernel_size", {3, 3}}}), conv));
  CHECK(at(any_call.has_attr({{"data_layout", "NCHW"}, {"groups", 1}}), conv));
  CHECK_FALSE(at(any_call.has_attr({{"kernel_size", {3, 3, 3}}}), conv));
  CHECK_FALSE(at(any_call.has_attr({{"out_dtype", PatternValue()}}), conv));  // None: unsupported
  CHECK_FALSE(at(any_call.has_attr({{"no_such_field", 1}}), conv));
  CHECK(at(any_call.has_attr({{"alpha", 0.1}}), leaky));      // `0.1f` keeps the value written
  CHECK_FALSE(at(any_call.has_attr({{"alpha", 1}}), leaky));  // an int never matches a float
  CHECK(at(any_call.has_attr({{"dtype", "float16"}}), cast));
  CHECK(at(any_call.has_attr({}), cast));
  CHECK_FALSE(at(wildcard().has_attr({{"dtype", "float16"}}), g.args(conv)[0]));  // a var
  CHECK(at(is_op("nn.conv2d").has_attr({{"TOpPattern", 4}})(any_args), conv));
}

TEST_CASE("is_expr compares structurally; a var is only itself", "[pattern][matcher]") {
  auto zero_float = relay::parse_expression("0f");
  auto zero_int = relay::parse_expression("0");
  REQUIRE((zero_float.ok() && zero_int.ok()));
  Pattern zero = is_expr(zero_float->module.graph, zero_float->root, "zero");
  Program p = program("def @main(%x) { (add(%x, 0f), add(%x, 0)) }");
  const relay::Graph& g = p.graph();
  NodeId first = g.fields(p.body)[0], second = g.fields(p.body)[1];
  Pattern x = wildcard();
  CHECK(match(x + zero, g, first));
  CHECK_FALSE(match(x + zero, g, second));
  CHECK(match(x + is_expr(zero_int->module.graph, zero_int->root), g, second));
  Program two = program("def @main(%x, %y) { add(%x, %y) }");
  NodeId vx = two.graph().args(two.body)[0], vy = two.graph().args(two.body)[1];
  CHECK(match(is_expr(two.graph(), vx), two.graph(), vx));
  CHECK_FALSE(match(is_expr(two.graph(), vx), two.graph(), vy));
  // Against another graph, variables pair up by position (there is no identity to compare).
  Program other = program("def @main(%z) { %z }");
  CHECK(match(is_expr(two.graph(), vx), other.graph(), other.body));
}

TEST_CASE("recursive patterns follow chains of any length", "[pattern][matcher]") {
  Program chain = program(R"(def @main(%x, %w) {
  %0 = nn.dense(%x, %w, units=None);
  %1 = cast(%0, dtype="float16");
  %2 = cast(%1, dtype="float32");
  cast(%2, dtype="float16")
})");
  for (const char* text :
       {// 089 a, b, c: the three formulations of test_rewrite_with_pattern_recursion
        "dense_pattern = is_op('nn.dense')(wildcard(), wildcard())\nw = wildcard()\n"
        "the_pattern = is_op('cast')(w)\nw.redirect_to(the_pattern | dense_pattern)\nthe_pattern",
        "dense_pattern = is_op('nn.dense')(wildcard(), wildcard())\nw = wildcard()\n"
        "the_pattern = is_op('cast')(w | dense_pattern)\nw.redirect_to(the_pattern)\nthe_pattern",
        "dense_pattern = is_op('nn.dense')(wildcard(), wildcard())\nw = wildcard()\n"
        "the_pattern = is_op('cast')(dense_pattern | "
        "w)\nw.redirect_to(the_pattern)\nthe_pattern"}) {
    Pattern pattern = pattern_of(text);
    CAPTURE(text);
    CHECK(matches(pattern, chain));
    CHECK_FALSE(matches(
        pattern,
        program("def @main(%x) { cast(cast(nn.relu(%x), dtype=\"int8\"), dtype=\"int8\") }")));
    CHECK(describe(pattern_of(describe(pattern))) == describe(pattern));
  }
}

TEST_CASE("find_matches gives every matching node with its bindings", "[pattern][matcher]") {
  relay::Module model =
      parse_module_text(read_file(kCorpus / "models" / "mobilenet_v2_mxnet_style.relay"));
  NodeId main = *model.find("main");
  Pattern bn = is_op("nn.batch_norm")(any_args);
  Pattern pattern = is_tuple_get_item(bn, 0);
  std::vector<Match> found = find_matches(pattern, model.graph, main);
  CHECK(found.size() == 58);  // tvm/results.json: bn_get0 matches
  absl::flat_hash_set<NodeId> batch_norms;
  for (const Match& m : found) {
    CHECK(model.graph.tuple(m.root()) == m.bound(bn));
    batch_norms.insert(m.bound(bn));
  }
  CHECK(batch_norms.size() == 53);  // five batch_norms have two `.0` projections
}

TEST_CASE("may_match admits the node kinds and ops the pattern's root can match",
          "[pattern][matcher]") {
  Program p = program(R"(def @main(%x, %w) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.relu(%0);
  %2 = clip(%1, a_min=0f, a_max=6f);
  %3 = (%1, %2);
  %4 = %3.0;
  add(%4, 1f)
})");
  const relay::Graph& g = p.graph();
  // Each node as "Kind" or "Kind op" (a call by the op it calls).
  auto describe = [&](NodeId node) {
    std::string text(node_kind_name(g.kind(node)));
    if (g.kind(node) == NodeKind::kCall)
      text += " " + std::string(g.context().op_name(g.called_op(node)));
    if (g.kind(node) == NodeKind::kOp) text += " " + std::string(g.context().op_name(g.op(node)));
    return text;
  };
  Pattern relu = is_op("nn.relu")(wildcard());
  Pattern clip = is_op("clip")(wildcard());
  const std::vector<std::string> all = {
      "Var",          "Var",      "Op nn.conv2d", "Call nn.conv2d", "Op nn.relu",
      "Call nn.relu", "Op clip",  "Call clip",    "Tuple",          "TupleGetItem",
      "Op add",       "Constant", "Call add",     "Function"};
  struct Case {
    Pattern pattern;
    std::vector<std::string> admitted;  // sorted
  };
  const std::vector<Case> cases = {
      {wildcard(), all},
      {is_op("nn.relu"), {"Op nn.relu"}},
      {relu, {"Call nn.relu"}},
      {(is_op("nn.relu") | is_op("clip"))(wildcard()), {"Call clip", "Call nn.relu"}},
      {relu | clip, {"Call clip", "Call nn.relu"}},
      {relu & clip, {}},  // no call calls both
      {relu & wildcard(), {"Call nn.relu"}},
      {relu.has_attr({{"axis", 1}}), {"Call nn.relu"}},
      {dominates(wildcard(), wildcard(), relu), {"Call nn.relu"}},
      {is_tuple_get_item(wildcard(), 0) | is_var(), {"TupleGetItem", "Var", "Var"}},
      {is_tuple(any_args) | is_constant(), {"Constant", "Tuple"}},
      {~relu, all},
      {is_op("nn.rleu")(wildcard()), {}},  // an op no registry has: nothing
      {wildcard()(wildcard()), {"Call add", "Call clip", "Call nn.conv2d", "Call nn.relu"}},
  };
  for (const Case& c : cases) {
    Matcher<relay::Dialect> matcher(c.pattern, g);
    std::vector<std::string> admitted;
    for (std::uint32_t i = 0; i < g.size(); ++i) {
      NodeId node(i);
      if (matcher.may_match(node)) admitted.push_back(describe(node));
      if (matcher.matches(node, p.body)) CHECK(matcher.may_match(node));
    }
    std::sort(admitted.begin(), admitted.end());
    std::vector<std::string> expected = c.admitted;
    std::sort(expected.begin(), expected.end());
    CHECK(admitted == expected);
  }
}

TEST_CASE("the matcher is generic over dialects", "[pattern][matcher]") {
  graphpat::testing::ArithGraph graph;
  graphpat::testing::ArithBuilder b(graph);
  NodeId x = b.var("x"), y = b.var("y");
  NodeId product = b.call("mul", {x, y});
  NodeId sum = b.call("add", {product, x});
  Pattern v = is_var("x");
  Pattern pattern = is_op("add")(v, is_op("mul")(any_args));
  CHECK(match(pattern, graph, sum));  // add is commutative in the arith registry
  CHECK(match(pattern, graph, sum, {.relay_compat = true}));  // the op is named "add"
  CHECK_FALSE(match(is_op("sub")(v, is_op("mul")(any_args)), graph, sum));
  CHECK(explain(is_op("sub")(any_args), graph, sum) == "expected op sub, got add");
}

TEST_CASE("explain names nodes as the caller numbers them", "[pattern][matcher][explain]") {
  graphpat::testing::ArithGraph graph;
  graphpat::testing::ArithBuilder b(graph);
  NodeId x = b.var("x"), y = b.var("y");
  NodeId product = b.call("mul", {x, y});
  NodeId negated = b.call("neg", {product});
  NodeId difference = b.call("sub", {negated, y});
  // Graph ids: x 0, y 1, op mul 2, product 3, op neg 4, negated 5, op sub 6, difference 7.
  REQUIRE(negated == NodeId(5));
  REQUIRE(difference == NodeId(7));
  Pattern pattern = is_op("sub")(is_op("neg")(is_op("add")(any_args)), wildcard());
  CHECK(explain(pattern, graph, difference) ==
        "expected op add, got mul; in operand 0 of %5 = neg(...); in operand 0 of %7 = sub(...)");
  // A numbering of the caller's, e.g. a text's, where `negated` is %0 and `difference` %1.
  graphpat::NodeNames text_numbers([&](NodeId id) {
    if (id == negated) return std::string("%0");
    if (id == difference) return std::string("%1");
    return fmt::format("{}", id);
  });
  const std::string renamed =
      "expected op add, got mul; in operand 0 of %0 = neg(...); in operand 0 of %1 = sub(...)";
  CHECK(explain(pattern, graph, difference, {}, text_numbers) == renamed);
  graphpat::Matcher<graphpat::testing::ArithDialect> matcher(pattern, graph);
  CHECK(matcher.explain(difference, text_numbers) == renamed);
  CHECK(matcher.explain(difference) ==  // the names do not outlive the call
        "expected op add, got mul; in operand 0 of %5 = neg(...); in operand 0 of %7 = sub(...)");
}

TEST_CASE("a pattern naming an op no registry has says so", "[pattern][matcher][explain]") {
  auto module = graphpat::relay::parse_text(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x) {\n"
      "  %0 = nn.relu(%x);\n"
      "  vendor.fused(%0)\n"
      "}\n");
  REQUIRE(module.ok());
  const relay::Graph& graph = module->graph;
  NodeId fused = graph.body(*module->find("main"));
  NodeId relu = graph.args(fused)[0];
  Pattern typo = is_op("nn.rleu")(wildcard());
  graphpat::Matcher<relay::Dialect> matcher(typo | is_op("nn.rleu")(is_op("nn.rleu")(wildcard())),
                                             graph);
  // Once, however often the pattern names it.
  CHECK(matcher.warnings() ==
        std::vector<std::string>{
            "no op nn.rleu is registered in dialect relay: is_op('nn.rleu') matches nothing"});
  CHECK_FALSE(matcher.matches(relu));
  CHECK(explain(typo, graph, relu) == "expected op nn.rleu (no op nn.rleu is registered), got nn.relu");
  // An op the dialect does not know but the graph's reader met is registered (as opaque).
  graphpat::Matcher<relay::Dialect> vendor(is_op("vendor.fused")(wildcard()), graph);
  CHECK(vendor.warnings().empty());
  CHECK(vendor.matches(fused));
  CHECK(explain(is_op("nn.relu")(wildcard()), graph, fused) == "expected op nn.relu, got vendor.fused");
}

TEST_CASE("a match attempt stops at MatchOptions::max_steps, counts as no match, and is reported",
          "[pattern][matcher][limits]") {
  // One step is one frame of the matcher's loop: with a limit of 1, a pattern that finishes in
  // its first frame (is_var at a var) still matches; a call pattern needs a frame for its
  // callee too and stops.
  Program p = program("def @main(%x) { nn.relu(%x) }");
  NodeId x = p.graph().args(p.body)[0];
  Pattern relu = is_op("nn.relu")(wildcard());
  graphpat::Matcher<relay::Dialect> var(is_var(), p.graph(), {.max_steps = 1});
  CHECK(var.matches(x));
  CHECK(var.stopped().empty());
  graphpat::Matcher<relay::Dialect> one_step(relu, p.graph(), {.max_steps = 1});
  CHECK_FALSE(one_step.matches(p.body));
  CHECK(one_step.stopped() == std::vector<NodeId>{p.body});
  CHECK(one_step.explain(p.body) ==
        "stopped without an answer at the step limit (MatchOptions::max_steps = 1)");
  graphpat::Matcher<relay::Dialect> unlimited(relu, p.graph());
  CHECK(unlimited.matches(p.body));
  CHECK(unlimited.stopped().empty());
}

TEST_CASE("a pattern that backtracks exponentially stops at the default limit",
          "[pattern][matcher][limits]") {
  // fuzz_pattern_graph, session 15 (corpus regression_slow_recursive_negated_dominator: 270 s
  // on resnet18). `w` binds one node (docs/semantics.md §3.2): on a chain of add(%k-1, %k-1) it
  // binds %x first, then fails at every add above %0 after trying each argument order on the
  // add below, which fails the same way: 2^k steps at %k, as in TVM.
  Pattern w = wildcard();
  REQUIRE(w.redirect_to(is_op("add")(w, w) | is_var()).ok());
  auto chain = [](int length) {
    std::string text = "def @main(%x) {\n  %0 = add(%x, %x);\n";
    for (int k = 1; k < length; ++k) text += fmt::format("  %{} = add(%{}, %{});\n", k, k - 1, k - 1);
    return program(text + fmt::format("  %{}\n}}", length - 1));
  };
  auto matched = [](const std::vector<Match>& found) {
    std::vector<NodeId> roots;
    for (const Match& m : found) roots.push_back(m.root());
    return roots;
  };
  // In the order find_matches tries them: %x, then %0 .. %(length-1).
  auto chain_nodes = [](const Program& p) {
    std::vector<NodeId> nodes;
    for (NodeId add = p.body; p.graph().kind(add) == NodeKind::kCall; add = p.graph().args(add)[0]) {
      nodes.push_back(add);
    }
    nodes.push_back(p.graph().args(nodes.back())[0]);
    std::reverse(nodes.begin(), nodes.end());
    return nodes;
  };
  // Short, it answers within the limit: %x and %0 = add(%x, %x) only.
  Program shallow = chain(8);
  std::vector<NodeId> nodes = chain_nodes(shallow);
  REQUIRE(nodes.size() == 9);
  graphpat::Matcher<relay::Dialect> small(w, shallow.graph());
  CHECK(matched(small.find_matches(shallow.body)) == std::vector<NodeId>{nodes[0], nodes[1]});
  CHECK(small.stopped().empty());
  // Long (2^40 steps at the top), it ends: the same two matches, and the attempts from some
  // depth on (past the eight levels that answered above) stop and are reported.
  Program deep = chain(40);
  nodes = chain_nodes(deep);
  graphpat::Matcher<relay::Dialect> large(w, deep.graph());
  CHECK(matched(large.find_matches(deep.body)) == std::vector<NodeId>{nodes[0], nodes[1]});
  const std::vector<NodeId>& stopped = large.stopped();
  REQUIRE_FALSE(stopped.empty());
  auto first = std::find(nodes.begin(), nodes.end(), stopped.front());
  REQUIRE(first != nodes.end());
  CHECK(first - nodes.begin() > 8);
  CHECK(stopped == std::vector<NodeId>(first, nodes.end()));
  // partition takes each as no match and counts them.
  PartitionResult<relay::Dialect> partitioned = partition(w, deep.module);
  CHECK(partitioned.report.stopped_matches == stopped.size());
  CHECK(verify(partitioned.module).ok());
}

TEST_CASE("find_matches over a 1,000,000-node graph, without recursion",
          "[pattern][matcher][large]") {
  relay::Module module;
  relay::Builder b(module.graph);
  NodeId x = b.var("x");
  NodeId w = b.var("w");
  NodeId current = x;
  // relu(add(current, w)) repeated: about 500,000 matches of relu(add(*, w)).
  std::size_t links = 0;
  while (module.graph.size() < 1'000'000) {
    current = b.call("nn.relu", {b.call("add", {current, w})}, {.fresh = true});
    ++links;
  }
  NodeId main = b.function({x, w}, current);
  module.add_function("main", main);
  Pattern weight = is_var("w");
  Pattern pattern = is_op("nn.relu")(wildcard() + weight);
  auto start = std::chrono::steady_clock::now();
  std::vector<Match> found = find_matches(pattern, module.graph, main);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("find_matches over " << module.graph.size() << " nodes: " << found.size() << " matches in "
                            << seconds << " s");
  CHECK(found.size() == links);
  CHECK(module.graph.name(found.back().bound(weight)) == "w");
}

TEST_CASE("a recursive pattern over a 1,000,000-node chain, on the default stack",
          "[pattern][matcher][large]") {
  relay::Module module;
  relay::Builder b(module.graph);
  NodeId x = b.var("x");
  NodeId w = b.var("w");
  NodeId current = b.call("nn.dense", {x, w});
  CallOptions cast;
  cast.attrs = module.graph.context().attrs.object(
      "relay.attrs.CastAttrs", {{"dtype", module.graph.context().attrs.data_type("float32")}});
  while (module.graph.size() < 1'000'000) current = b.call(b.op("cast"), {current}, cast);
  Pattern dense = is_op("nn.dense")(wildcard(), wildcard());
  Pattern redirect = wildcard();
  Pattern casts = is_op("cast")(redirect);
  REQUIRE(redirect.redirect_to(casts | dense).ok());
  auto start = std::chrono::steady_clock::now();
  Match m = match(casts, module.graph, current);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("recursive match down a chain of " << module.graph.size() << " nodes in " << seconds
                                          << " s");
  REQUIRE(m);
  CHECK(m.bindings(casts).size() == module.graph.size() - 5);  // every cast
  CHECK(m.bound(dense).valid());
  // The same chain with a relu at the bottom fails, and says where.
  NodeId bottom = b.call("nn.relu", {x});
  NodeId failing = bottom;
  for (int i = 0; i < 1'000'000; ++i) failing = b.call(b.op("cast"), {failing}, cast);
  std::string why = explain(casts, module.graph, failing);
  CAPTURE(why.substr(0, 300));
  // The first failure met: the bottom cast's operand is neither a cast nor a dense.
  CHECK(why.starts_with("expected op cast, got nn.relu; in operand 0 of %"));
  CHECK(why.ends_with("more)"));
}

TEST_CASE("a flat alternation of 1,000,000 terms built in code: match and describe, no recursion",
          "[pattern][matcher][large]") {
  // The left-deep tree `c | c | ... | relu(w)` is a million alternations deep: the matcher walks
  // it on its frame stack, describe() writes it flat, and the text reads it back in a loop.
  constexpr int kTerms = graphpat::testing::kLargeGraphNodes;  // 250,000 sanitized
  Pattern pattern = is_constant();
  for (int i = 2; i < kTerms; ++i) pattern = pattern | is_constant();
  Pattern relu = is_op("nn.relu")(wildcard());
  pattern = pattern | relu;
  Program p = program("def @main(%x) { nn.relu(%x) }");
  Match m = match(pattern, p.graph(), p.body);
  REQUIRE(m);
  CHECK(m.bound(relu) == p.body);
  std::string expected;
  for (int i = 1; i < kTerms; ++i) expected += "is_constant() | ";
  expected += "is_op('nn.relu')(wildcard())";
  std::string described = describe(pattern);
  CHECK(described == expected);
  absl::StatusOr<Pattern> again = parse_pattern(described, {.limits = {.max_nodes = 4'000'000}});
  REQUIRE(again.ok());
  CHECK(again->graph().post_order(again->id()).size() == 2 * kTerms + 1);
}

TEST_CASE("tuple item indices: -1 is any index, as in TVM; another negative matches none",
          "[pattern][matcher]") {
  Program p = program("def @main(%x) { %0 = split(%x, indices_or_sections=2); %0.1 }");
  CHECK(matches(is_tuple_get_item(wildcard()), p));
  CHECK(matches(is_tuple_get_item(wildcard(), -1), p));
  CHECK(matches(is_tuple_get_item(wildcard(), 1), p));
  CHECK_FALSE(matches(is_tuple_get_item(wildcard(), 0), p));
  // TVM compares any index but -1 with the item's, which is never negative.
  CHECK_FALSE(matches(is_tuple_get_item(wildcard(), -2), p));
  CHECK(explain(is_tuple_get_item(wildcard(), -2), p.graph(), p.body) ==
        fmt::format("expected index -2, got 1 in {} = {}.1", p.body, p.graph().tuple(p.body)));
}
