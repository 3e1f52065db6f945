// compact (analysis/compact.hpp) on small hand-checked Relay graphs and modules: dead nodes
// dropped, ids renumbered densely, fresh duplicates and module contents kept.
//
// Every expected value below is derived by hand from the graph the test builds. Ids are
// assigned in creation order, and an op node is created the first time an op is called, so
// each test first pins the ids it relies on with REQUIREs and then reasons from them.
#include <vector>

#include <catch2/catch.hpp>
#include <graphpat/analysis/compact.hpp>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/analysis_samples.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using graphpat::testing::as_vector;
using graphpat::testing::ids;

// ---------------------------------------------------------------------------------------------
// compact
// ---------------------------------------------------------------------------------------------

TEST_CASE("compact drops dead nodes and renumbers densely in the same order", "[compact]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");                  // %0
  NodeId y = b.var("y");                  // %1 (dead)
  NodeId r = b.call("nn.relu", {x});      // op %2, call %3
  NodeId dead = b.call("negative", {y});  // op %4, call %5 (dead)
  NodeId s = b.call("add", {r, x});       // op %6, call %7
  NodeId z = b.var("z");                  // %8 (dead)
  REQUIRE(y == NodeId(1));
  REQUIRE(r == NodeId(3));
  REQUIRE(dead == NodeId(5));
  REQUIRE(s == NodeId(7));
  REQUIRE(z == NodeId(8));

  Compacted<relay::Dialect> result = compact(g, std::vector{s});
  // Live: %0 %2 %3 %6 %7, which become %0 %1 %2 %3 %4.
  CHECK(result.old_to_new ==
        std::vector<NodeId>{NodeId(0), NodeId(), NodeId(1), NodeId(2), NodeId(), NodeId(),
                            NodeId(3), NodeId(4), NodeId()});
  CHECK(result.map(s) == NodeId(4));
  CHECK_FALSE(result.map(dead).valid());
  const relay::Graph& out = result.graph;
  REQUIRE(out.size() == 5);
  CHECK(&out.context() == &g.context());
  CHECK(out.kind(NodeId(0)) == NodeKind::kVar);
  CHECK(out.name(NodeId(0)) == "x");
  CHECK(out.kind(NodeId(1)) == NodeKind::kOp);
  CHECK(out.context().op_name(out.op(NodeId(1))) == "nn.relu");
  CHECK(as_vector(out.operands(NodeId(2))) == ids({1, 0}));
  CHECK(out.context().op_name(out.op(NodeId(3))) == "add");
  CHECK(as_vector(out.operands(NodeId(4))) == ids({3, 2, 0}));
  CHECK(verify(out).ok());
  CHECK(structural_equal(g, s, out, result.map(s)));

  // The new graph has a consistent hash-consing table: asking for relu(x) again finds %2.
  relay::Graph copy = result.graph;
  relay::Builder cb(copy);
  CHECK(cb.call("nn.relu", {NodeId(0)}) == NodeId(2));
  CHECK(copy.size() == 5);
}

TEST_CASE("compact keeps fresh duplicates as distinct fresh nodes", "[compact]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");                                   // %0
  NodeId r1 = b.call("nn.relu", {x}, {.fresh = true});     // op %1, call %2
  NodeId r2 = b.call("nn.relu", {x}, {.fresh = true});     // %3
  NodeId r3 = b.call("nn.relu", {x});                      // %4: new, the fresh ones are not in the table
  NodeId s = b.call("add", {r1, r2});                      // op %5, call %6
  REQUIRE(r1 == NodeId(2));
  REQUIRE(r2 == NodeId(3));
  REQUIRE(r3 == NodeId(4));
  REQUIRE(s == NodeId(6));

  Compacted<relay::Dialect> result = compact(g, std::vector{s});
  // r3 is dead; %5 and %6 move down by one.
  CHECK(result.old_to_new ==
        std::vector<NodeId>{NodeId(0), NodeId(1), NodeId(2), NodeId(3), NodeId(), NodeId(4),
                            NodeId(5)});
  const relay::Graph& out = result.graph;
  REQUIRE(out.size() == 6);
  CHECK(out.is_fresh(NodeId(2)));
  CHECK(out.is_fresh(NodeId(3)));
  CHECK(out.is_fresh(NodeId(0)));         // a var
  CHECK_FALSE(out.is_fresh(NodeId(1)));   // the relu op
  CHECK_FALSE(out.is_fresh(NodeId(5)));   // the add
  CHECK(as_vector(out.operands(NodeId(5))) == ids({4, 2, 3}));
  CHECK(out.memo().size() == 3);          // relu op, add op, add call
  CHECK(verify(out).ok());
  CHECK(structural_equal(g, s, out, NodeId(5)));

  // No non-fresh relu(x) survived, so asking for one creates a new node.
  relay::Graph copy = result.graph;
  relay::Builder cb(copy);
  CHECK(cb.call("nn.relu", {NodeId(0)}) == NodeId(6));
}

TEST_CASE("compact of a module keeps function names, order, type definitions and attrs",
          "[compact]") {
  relay::Module module;
  relay::Builder b(module.graph);
  Context& ctx = module.graph.context();
  NodeId x = b.var("x");                      // %0
  NodeId unused = b.var("unused");            // %1 (dead)
  NodeId r = b.call("nn.relu", {x});          // op %2, call %3
  NodeId main_fn = b.function({x}, r);        // %4
  NodeId y = b.var("y");                      // %5
  NodeId n = b.call("negative", {y});         // op %6, call %7
  NodeId dead = b.call("sigmoid", {y});       // op %8, call %9 (dead)
  NodeId helper_fn = b.function({y}, n);      // %10
  REQUIRE(unused == NodeId(1));
  REQUIRE(main_fn == NodeId(4));
  REQUIRE(dead == NodeId(9));
  REQUIRE(helper_fn == NodeId(10));
  // Added in the opposite order of their ids.
  module.add_function("helper", helper_fn);
  module.add_function("main", main_fn);
  module.type_definitions.push_back({"List", "type List[A] { Cons(A, List[A]), Nil }"});
  module.attrs = ctx.attrs.object("DictAttrs", {{"executor", ctx.attrs.string("graph")}});
  REQUIRE(verify(module).ok());

  relay::Module out = compact(module);
  // Live: %0 %2 %3 %4 %5 %6 %7 %10 -> %0..%7; main %4 -> %3, helper %10 -> %7.
  CHECK(out.graph.size() == 8);
  REQUIRE(out.functions().size() == 2);
  CHECK(out.name(out.functions()[0]) == "helper");
  CHECK(out.functions()[0].function == NodeId(7));
  CHECK(out.name(out.functions()[1]) == "main");
  CHECK(out.functions()[1].function == NodeId(3));
  CHECK(out.find("main") == NodeId(3));
  CHECK(out.find("helper") == NodeId(7));
  CHECK(out.roots() == ids({7, 3}));
  REQUIRE(out.type_definitions.size() == 1);
  CHECK(out.type_definitions[0].name == "List");
  CHECK(out.type_definitions[0].text == "type List[A] { Cons(A, List[A]), Nil }");
  CHECK(out.attrs == module.attrs);
  CHECK(&out.graph.context() == &ctx);
  CHECK(verify(out).ok());
  CHECK(structural_equal(module, out));
}
