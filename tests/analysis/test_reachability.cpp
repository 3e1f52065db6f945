// reachable_from (analysis/reachability.hpp) on a small hand-checked Relay graph.
//
// Every expected value below is derived by hand from the graph the test builds. Ids are
// assigned in creation order, and an op node is created the first time an op is called, so
// each test first pins the ids it relies on with REQUIREs and then reasons from them.
#include <vector>

#include <catch2/catch.hpp>
#include <graphpat/analysis/reachability.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/test_files.hpp"

using namespace graphpat;

// ---------------------------------------------------------------------------------------------
// reachable_from
// ---------------------------------------------------------------------------------------------

TEST_CASE("reachable_from excludes dead nodes and unions several roots", "[reachability]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");
  NodeId y = b.var("y");
  NodeId relu = b.call("nn.relu", {x});   // op %2, call %3
  NodeId dead = b.call("negative", {y});  // op %4, call %5
  NodeId sum = b.call("add", {relu, x});  // op %6, call %7
  NodeId z = b.var("z");
  REQUIRE(x == NodeId(0));
  REQUIRE(y == NodeId(1));
  REQUIRE(relu == NodeId(3));
  REQUIRE(dead == NodeId(5));
  REQUIRE(sum == NodeId(7));
  REQUIRE(z == NodeId(8));
  REQUIRE(g.size() == 9);

  // sum -> {add op, relu, x}; relu -> {relu op, x}. y, negative and z are dead.
  CHECK(reachable_from(g, std::vector{sum}) ==
        std::vector<bool>{true, false, true, true, false, false, true, true, false});
  // Adding `dead` as a second root brings in y and the negative op; z stays dead.
  CHECK(reachable_from(g, std::vector{sum, dead}) ==
        std::vector<bool>{true, true, true, true, true, true, true, true, false});
  CHECK(reachable_from(g, std::vector{relu}) ==
        std::vector<bool>{true, false, true, true, false, false, false, false, false});
  CHECK(reachable_from(g, std::vector{z}) ==
        std::vector<bool>{false, false, false, false, false, false, false, false, true});
  CHECK(reachable_from(g, std::vector<NodeId>{}) == std::vector<bool>(9, false));
  // A root given twice counts once.
  CHECK(reachable_from(g, std::vector{relu, relu}) == reachable_from(g, std::vector{relu}));
}
