// CSE on graphs built by hand: TVM's four EliminateCommonSubexpr tests (docs/semantics.md §10),
// the origin case, stateful ops, skip, the scoping rule of the default mode, what each mode
// merges beyond the other, what the output keeps, idempotence, and a 1e6-node graph.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <ctime>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/relay/dialect.hpp>
#include <graphpat/transform/cse.hpp>
#include <random>
#include <vector>

#include "support/arith_dialect.hpp"
#include "support/timing.hpp"

using namespace graphpat;

namespace {

/// A float32 scalar constant with its bytes, always a node of its own (as importers make them).
NodeId scalar(relay::Builder& b, float value) {
  Context& ctx = b.context();
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(sizeof(float));
  std::memcpy(bytes->data(), &value, sizeof(float));
  TensorId tensor = ctx.tensors.add({ctx.strings.intern("float32"), {}, share_bytes(bytes)});
  return b.constant(tensor, {.fresh = true});
}

/// Gives `module` the @main `fn (params) { body }`. (It takes the module by reference: a
/// by-value parameter could be moved from before `body`, built on the module, is evaluated.)
void add_main(relay::Module& module, std::vector<NodeId> params, NodeId body) {
  relay::Builder b(module.graph);
  module.add_function("main", b.function(params, body));
}

void check_equal(const relay::Module& actual, const relay::Module& expected) {
  auto difference = first_difference(actual, expected);
  INFO((difference ? difference->reason : std::string("equal")));
  CHECK_FALSE(difference.has_value());
}

CseResult<relay::Dialect> cse(const relay::Module& module, bool relay_compat) {
  CseResult<relay::Dialect> result =
      eliminate_common_subexpr(module, CseOptions<relay::Dialect>{.relay_compat = relay_compat});
  REQUIRE(verify(result.module).ok());
  return result;
}

}  // namespace

TEST_CASE("cse test_simple: equal relus and adds of equal scalars merge", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId x = b.var("x");
  NodeId y1 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId y2 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId a1 = b.call("add", {y1, scalar(b, 1.0f)}, {.fresh = true});
  NodeId a2 = b.call("add", {y2, scalar(b, 1.0f)}, {.fresh = true});
  add_main(input, {x}, b.call("add", {a1, a2}, {.fresh = true}));

  relay::Module expected;
  relay::Builder e(expected.graph);
  NodeId ex = e.var("x");
  NodeId ea = e.call("add", {e.call("nn.relu", {ex}), scalar(e, 1.0f)});
  add_main(expected, {ex}, e.call("add", {ea, ea}));

  for (bool relay_compat : {true, false}) {
    INFO("relay_compat " << relay_compat);
    CseResult<relay::Dialect> result = cse(input, relay_compat);
    check_equal(result.module, expected);
    // relu, then the add whose second scalar equals the first; the default mode also merges the
    // second scalar constant itself.
    CHECK(result.report.merged_by["Call nn.relu"] == 1);
    CHECK(result.report.merged_by["Call add"] == 1);
    CHECK(result.report.merged == (relay_compat ? 2u : 3u));
  }
  // The input is a different graph: two relus, three adds.
  CHECK_FALSE(structural_equal(input, expected));
}

TEST_CASE("cse test_callback: skipped nodes are neither merged nor merged into", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId x = b.var("x");
  NodeId y1 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId y2 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId c1 = scalar(b, 1.0f);
  NodeId c2 = scalar(b, 1.0f);
  NodeId a1 = b.call("add", {y1, c1}, {.fresh = true});
  NodeId a2 = b.call("add", {y2, c2}, {.fresh = true});
  NodeId out = b.call("multiply", {a1, a2});
  add_main(input, {x}, out);

  relay::Module expected;
  relay::Builder e(expected.graph);
  NodeId ex = e.var("x");
  NodeId ey = e.call("nn.relu", {ex});
  NodeId ea1 = e.call("add", {ey, scalar(e, 1.0f)});
  NodeId ea2 = e.call("add", {ey, scalar(e, 1.0f)}, {.fresh = true});
  add_main(expected, {ex}, e.call("multiply", {ea1, ea2}));

  auto skip_add = [](const relay::Graph& graph, NodeId id) {
    return graph.kind(id) == NodeKind::kCall &&
           graph.context().op_name(graph.called_op(id)) == "add";
  };
  CseResult<relay::Dialect> result =
      eliminate_common_subexpr(input, CseOptions<relay::Dialect>{.relay_compat = true, .skip = skip_add});
  check_equal(result.module, expected);
  CHECK(result.report.merged == 1);
}

TEST_CASE("cse test_tuple_get_item and the origin case: two %N.0 on one batch_norm become one", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  std::vector<NodeId> params;
  for (const char* name : {"x", "g", "b", "m", "v"}) params.push_back(b.var(name));
  NodeId bn = b.call("nn.batch_norm", params, {.fresh = true});
  NodeId t1 = b.tuple_get_item(bn, 0, {.fresh = true});
  NodeId t2 = b.tuple_get_item(bn, 0, {.fresh = true});
  add_main(input, params, b.call("add", {t1, t2}));

  relay::Module expected;
  relay::Builder e(expected.graph);
  std::vector<NodeId> eparams;
  for (const char* name : {"x", "g", "b", "m", "v"}) eparams.push_back(e.var(name));
  NodeId et = e.tuple_get_item(e.call("nn.batch_norm", eparams), 0);
  add_main(expected, eparams, e.call("add", {et, et}));

  for (bool relay_compat : {true, false}) {
    INFO("relay_compat " << relay_compat);
    CseResult<relay::Dialect> result = cse(input, relay_compat);
    check_equal(result.module, expected);
    CHECK(result.report.merged == 1);
    CHECK(result.report.merged_by == std::map<std::string, std::uint32_t>{{"TupleGetItem", 1}});
  }
}

TEST_CASE("cse test_tuple_arg: calls on equal tuples merge, the tuples themselves only by default", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId x = b.var("x");
  NodeId c0 = scalar(b, 1.0f);
  NodeId y1 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId y2 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId cat1 = b.call("concatenate", {b.tuple({y1, c0}, {.fresh = true})}, {.fresh = true});
  NodeId cat2 = b.call("concatenate", {b.tuple({y2, c0}, {.fresh = true})}, {.fresh = true});
  add_main(input, {x}, b.call("add", {cat1, cat2}));

  relay::Module expected;
  relay::Builder e(expected.graph);
  NodeId ex = e.var("x");
  NodeId ecat = e.call("concatenate", {e.tuple({e.call("nn.relu", {ex}), scalar(e, 1.0f)})});
  add_main(expected, {ex}, e.call("add", {ecat, ecat}));

  CseResult<relay::Dialect> compat = cse(input, true);
  check_equal(compat.module, expected);
  // relu, then concatenate through the tuple rule (#14169); the second tuple is left dead.
  CHECK(compat.report.merged_by ==
        std::map<std::string, std::uint32_t>{{"Call nn.relu", 1}, {"Call concatenate", 1}});
  CseResult<relay::Dialect> graphpat_mode = cse(input, false);
  check_equal(graphpat_mode.module, expected);
  CHECK(graphpat_mode.report.merged_by ==
        std::map<std::string, std::uint32_t>{{"Call nn.relu", 1}, {"Tuple", 1}, {"Call concatenate", 1}});
}

TEST_CASE("cse never merges stateful calls, vars, or calls of functions", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId x = b.var("x");
  NodeId d1 = b.call("nn.dropout", {x});
  NodeId d2 = b.call("nn.dropout", {x});
  NodeId f = b.global_var("f");
  NodeId g1 = b.call(f, {x}, {.fresh = true});
  NodeId g2 = b.call(f, {x}, {.fresh = true});
  add_main(input, {x}, b.tuple({d1, d2, g1, g2}));
  for (bool relay_compat : {true, false}) {
    CseResult<relay::Dialect> result = cse(input, relay_compat);
    CHECK(result.report.merged == 0);
    const relay::Graph& out = result.module.graph;
    NodeId main = *result.module.find("main");
    auto fields = out.fields(out.body(main));
    CHECK(fields[0] != fields[1]);
    CHECK(fields[2] != fields[3]);
  }
}

TEST_CASE("cse scoping: if-branches stay apart by default, merge in relay_compat", "[cse][scope]") {
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId c = b.var("c");
  NodeId x = b.var("x");
  NodeId then_relu = b.call("nn.relu", {x}, {.fresh = true});
  NodeId else_relu = b.call("nn.relu", {x}, {.fresh = true});
  add_main(input, {c, x}, b.if_then_else(c, then_relu, else_relu));

  CseResult<relay::Dialect> graphpat_mode = cse(input, false);
  CHECK(graphpat_mode.report.merged == 0);
  const relay::Graph& g = graphpat_mode.module.graph;
  NodeId branch = g.body(*graphpat_mode.module.find("main"));
  CHECK(g.then_branch(branch) != g.else_branch(branch));

  CseResult<relay::Dialect> compat = cse(input, true);
  CHECK(compat.report.merged == 1);
  const relay::Graph& t = compat.module.graph;
  NodeId tvm_branch = t.body(*compat.module.find("main"));
  CHECK(t.then_branch(tvm_branch) == t.else_branch(tvm_branch));
}

TEST_CASE("cse scoping: a branch reuses a node of its enclosing scope", "[cse][scope]") {
  // relu(x) computed before the if (an argument of the outer add) and again inside the then
  // branch: the branch's copy can read the outer one, which is evaluated anyway.
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId c = b.var("c");
  NodeId x = b.var("x");
  NodeId outer = b.call("nn.relu", {x}, {.fresh = true});
  NodeId inner = b.call("nn.relu", {x}, {.fresh = true});
  NodeId branch = b.if_then_else(c, b.call("sigmoid", {inner}), x);
  add_main(input, {c, x}, b.call("add", {outer, branch}));
  for (bool relay_compat : {true, false}) {
    CseResult<relay::Dialect> result = cse(input, relay_compat);
    CHECK(result.report.merged == 1);
  }
}

TEST_CASE("cse scoping: nested functions reuse outer nodes, never the reverse", "[cse][scope]") {
  // fn (%x) { %outer = relu(%x); %f = fn (%y) { add(relu(%x), %y) }; (%outer, %f) }, built with
  // the nested function's relu first (a) or the outer relu first (b) in id order.
  for (bool inner_first : {false, true}) {
    INFO("inner relu created first: " << inner_first);
    relay::Module input;
    relay::Builder b(input.graph);
    NodeId x = b.var("x");
    NodeId y = b.var("y");
    NodeId first = b.call("nn.relu", {x}, {.fresh = true});
    NodeId second = b.call("nn.relu", {x}, {.fresh = true});
    NodeId inner = inner_first ? first : second;
    NodeId outer = inner_first ? second : first;
    NodeId nested = b.function({y}, b.call("add", {inner, y}));
    add_main(input, {x}, b.tuple({outer, nested}));
    // Default: the inner relu reads the outer one only when the outer one comes first (the
    // first occurrence is the one kept, and an outer node never reads an inner one).
    CHECK(cse(input, false).report.merged == (inner_first ? 0u : 1u));
    // TVM shares one table across nested functions.
    CHECK(cse(input, true).report.merged == 1);
  }
}

TEST_CASE("cse scoping: each branch's nested function reuses its own branch's node",
          "[cse][scope]") {
  // if (%c) { (relu(%x), fn (%y) { add(relu(%x), %y) }) } else { the same with %z }: relu(%x)
  // has a representative in each branch, and each nested relu merges into its own branch's.
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId c = b.var("c");
  NodeId x = b.var("x");
  NodeId then_relu = b.call("nn.relu", {x}, {.fresh = true});
  NodeId else_relu = b.call("nn.relu", {x}, {.fresh = true});
  NodeId then_inner = b.call("nn.relu", {x}, {.fresh = true});
  NodeId else_inner = b.call("nn.relu", {x}, {.fresh = true});
  NodeId y = b.var("y");
  NodeId z = b.var("z");
  NodeId then_fn = b.function({y}, b.call("add", {then_inner, y}));
  NodeId else_fn = b.function({z}, b.call("add", {else_inner, z}));
  add_main(input, {c, x},
           b.if_then_else(c, b.tuple({then_relu, then_fn}), b.tuple({else_relu, else_fn})));

  CseResult<relay::Dialect> result = cse(input, false);
  CHECK(result.report.merged == 2);
  const relay::Graph& g = result.module.graph;
  NodeId branch = g.body(*result.module.find("main"));
  for (NodeId side : {g.then_branch(branch), g.else_branch(branch)}) {
    NodeId relu = g.fields(side)[0];
    NodeId add = g.body(g.fields(side)[1]);
    CHECK(g.args(add)[0] == relu);
  }
  NodeId kept_then = g.fields(g.then_branch(branch))[0];
  NodeId kept_else = g.fields(g.else_branch(branch))[0];
  CHECK(kept_then != kept_else);
  // The first joins the hash-consing table; the second, equal to it, stays out of it (a
  // builder must not merge them later).
  CHECK_FALSE(g.is_fresh(kept_then));
  CHECK(g.is_fresh(kept_else));

  CHECK(cse(input, true).report.merged == 3);  // TVM: one table for the whole module
}

TEST_CASE("cse is linear in sibling scopes that compute one node", "[cse][scope][timing]") {
  graphpat::testing::keep_freed_memory();
  // fn (%c, %x) { (if (%c) { relu(%x) } else { %x }, ... n times) }: relu(%x) has a
  // representative in each of n sibling branches, which a later relu must not walk through.
  // time(10 n) / time(n) stays far below the 100 of a quadratic pass (processor time, best of
  // three and two runs; ctest runs [timing] tests alone).
  auto seconds = [](std::size_t n, int runs) {
    relay::Module input;
    relay::Builder b(input.graph);
    NodeId c = b.var("c");
    NodeId x = b.var("x");
    std::vector<NodeId> branches;
    for (std::size_t i = 0; i < n; ++i) {
      branches.push_back(b.if_then_else(c, b.call("nn.relu", {x}, {.fresh = true}), x));
    }
    add_main(input, {c, x}, b.tuple(branches));
    double best = 1e9;
    for (int run = 0; run < runs; ++run) {
      std::clock_t start = std::clock();
      CseResult<relay::Dialect> result = eliminate_common_subexpr(input);
      best = std::min(best, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
      REQUIRE(result.report.merged == 0);
      REQUIRE(result.module.graph.size() == input.graph.size());
    }
    return best;
  };
  double small = seconds(20'000, 3);
  double large = seconds(200'000, 2);
  WARN(small << " s at 20,000 branches, " << large << " s at 200,000");
  CHECK(large / std::max(small, 1e-4) < 30);
}

TEST_CASE("cse default mode merges constants equal by type and bytes, not those without bytes", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  Context& ctx = input.graph.context();
  NodeId x = b.var("x");
  TensorId no_bytes_1 = ctx.tensors.add({ctx.strings.intern("float32"), {4}, {}});
  TensorId no_bytes_2 = ctx.tensors.add({ctx.strings.intern("float32"), {4}, {}});
  NodeId m1 = b.constant(no_bytes_1, {.fresh = true});
  NodeId m2 = b.constant(no_bytes_2, {.fresh = true});
  NodeId s1 = scalar(b, 2.0f);
  NodeId s2 = scalar(b, 2.0f);
  NodeId s3 = scalar(b, 3.0f);
  add_main(input, {x}, b.tuple({m1, m2, s1, s2, s3}));
  CseResult<relay::Dialect> result = cse(input, false);
  CHECK(result.report.merged_by == std::map<std::string, std::uint32_t>{{"Constant", 1}});
  const relay::Graph& g = result.module.graph;
  auto fields = g.fields(g.body(*result.module.find("main")));
  CHECK(fields[0] != fields[1]);
  CHECK(fields[2] == fields[3]);
  CHECK(fields[3] != fields[4]);
  CHECK(cse(input, true).report.merged == 0);  // TVM never merges constants themselves
}

TEST_CASE("cse keeps attributes, types, spans and function attributes of what remains", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  Context& ctx = input.graph.context();
  TypeId f32 = ctx.types.tensor("float32", {ctx.types.dim(1), ctx.types.dim(8)});
  SpanId span = ctx.spans.intern({ctx.strings.intern("Softmax_0"), 0, 0, 0, 0});
  AttrValueId attrs = ctx.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ctx.attrs.integer(1)}});
  NodeId x = b.var("x", f32);
  NodeId s1 = b.call("nn.softmax", {x}, {.attrs = attrs, .type = f32, .span = span, .fresh = true});
  NodeId s2 = b.call("nn.softmax", {x}, {.attrs = attrs, .fresh = true});
  NodeId other_axis = b.call("nn.softmax", {x},
                             {.attrs = ctx.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ctx.attrs.integer(0)}}),
                              .fresh = true});
  AttrValueId fn_attrs = ctx.attrs.object("DictAttrs", {{"Primitive", ctx.attrs.integer(1)}});
  input.add_function("main", b.function({x}, b.tuple({s1, s2, other_axis}), {.attrs = fn_attrs}));
  CseResult<relay::Dialect> result = cse(input, true);
  CHECK(result.report.merged == 1);  // s2 into s1; a different axis is a different call
  const relay::Graph& g = result.module.graph;
  NodeId main = *result.module.find("main");
  CHECK(g.attrs(main) == fn_attrs);
  auto fields = g.fields(g.body(main));
  CHECK(fields[0] == fields[1]);
  CHECK(fields[0] != fields[2]);
  CHECK(g.attrs(fields[0]) == attrs);
  CHECK(g.type(fields[0]) == f32);  // the first occurrence's type and span
  CHECK(g.span(fields[0]) == span);
  CHECK(g.annotation(g.params(main)[0]) == f32);
}

TEST_CASE("cse is idempotent and leaves a graph without duplicates alone", "[cse]") {
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId x = b.var("x");
  NodeId r1 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId r2 = b.call("nn.relu", {x}, {.fresh = true});
  add_main(input, {x}, b.call("add", {r1, r2}));
  for (bool relay_compat : {true, false}) {
    CseResult<relay::Dialect> once = cse(input, relay_compat);
    CseResult<relay::Dialect> twice = cse(once.module, relay_compat);
    CHECK(twice.report.merged == 0);
    check_equal(twice.module, once.module);
    CHECK(twice.module.graph.size() == once.module.graph.size());
  }
}

TEST_CASE("cse works on a function of another dialect", "[cse][dialect]") {
  testing::ArithGraph graph;
  testing::ArithBuilder b(graph);
  NodeId a = b.var("a");
  NodeId s1 = b.call("add", {a, a}, {.fresh = true});
  NodeId s2 = b.call("add", {a, a}, {.fresh = true});
  NodeId r1 = b.call("rand", {});
  NodeId fn = b.function({a}, b.call("mul", {b.call("mul", {s1, s2}), r1}));
  CseFunctionResult<testing::ArithDialect> result = eliminate_common_subexpr(graph, fn);
  CHECK(result.report.merged == 1);
  const testing::ArithGraph& out = result.graph;
  NodeId product = out.args(out.body(result.root))[0];
  CHECK(out.args(product)[0] == out.args(product)[1]);
  CHECK(verify(out).ok());
}

TEST_CASE("cse of a 1,000,000-node graph with 50% duplicates, without recursion", "[cse][large]") {
  // Every level holds two fresh copies of one call on both nodes of the level below:
  // a_k = op(a_k-1, b_k-1) and b_k = the same. CSE keeps a_k alone at every level.
  relay::Module input;
  relay::Builder b(input.graph);
  NodeId x = b.var("x");
  const char* ops[] = {"add", "multiply", "subtract"};
  NodeId a = x;
  NodeId c = x;
  std::uint32_t levels = 0;
  while (input.graph.size() < 1'000'000) {
    const char* op = ops[levels % 3];
    NodeId next_a = b.call(op, {a, c}, {.fresh = true});
    c = b.call(op, {a, c}, {.fresh = true});
    a = next_a;
    ++levels;
  }
  add_main(input, {x}, b.call("add", {a, c}));
  for (bool relay_compat : {false, true}) {
    CseResult<relay::Dialect> result = cse(input, relay_compat);
    CHECK(result.report.merged == levels);
    CHECK(result.module.graph.size() == input.graph.size() - levels);
  }
}
