// UsersIndex (analysis/users.hpp) on a small hand-checked Relay graph, over the whole graph
// and restricted to a live mask.
//
// Every expected value below is derived by hand from the graph the test builds. Ids are
// assigned in creation order, and an op node is created the first time an op is called, so
// each test first pins the ids it relies on with REQUIREs and then reasons from them.
#include <vector>

#include <catch2/catch.hpp>
#include <graphpat/analysis/reachability.hpp>
#include <graphpat/analysis/users.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/analysis_samples.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using graphpat::testing::as_vector;
using graphpat::testing::ids;

// ---------------------------------------------------------------------------------------------
// UsersIndex
// ---------------------------------------------------------------------------------------------

namespace {

// %0 = x, %1 = y, %2 = add op, %3 = add(x, x), %4 = multiply op, %5 = multiply(%3, y),
// %6 = add(%3, %5), %7 = negative op, %8 = negative(x), %9 = (x, y, x).
struct UsersGraph {
  relay::Graph g;
  NodeId x, y, s, m, t, dead, tup;

  UsersGraph() {
    relay::Builder b(g);
    x = b.var("x");
    y = b.var("y");
    s = b.call("add", {x, x});
    m = b.call("multiply", {s, y});
    t = b.call("add", {s, m});
    dead = b.call("negative", {x});
    tup = b.tuple({x, y, x});
  }
};

}  // namespace

TEST_CASE("UsersIndex lists each user once, in ascending id order", "[users]") {
  UsersGraph ug;
  const relay::Graph& g = ug.g;
  REQUIRE(ug.s == NodeId(3));
  REQUIRE(ug.m == NodeId(5));
  REQUIRE(ug.t == NodeId(6));
  REQUIRE(ug.dead == NodeId(8));
  REQUIRE(ug.tup == NodeId(9));
  REQUIRE(g.size() == 10);

  UsersIndex users = UsersIndex::build(g);
  CHECK(users.size() == 10);
  // x: add(x, x) once (adjacent repeat), negative(x), and (x, y, x) once (non-adjacent repeat).
  CHECK(as_vector(users.users(ug.x)) == ids({3, 8, 9}));
  CHECK(users.user_count(ug.x) == 3);
  CHECK(as_vector(users.users(ug.y)) == ids({5, 9}));
  CHECK(as_vector(users.users(NodeId(2))) == ids({3, 6}));  // the add op: both add calls
  CHECK(as_vector(users.users(ug.s)) == ids({5, 6}));
  CHECK(users.user_count(ug.s) == 2);
  CHECK(as_vector(users.users(NodeId(4))) == ids({5}));
  CHECK(as_vector(users.users(ug.m)) == ids({6}));
  CHECK(users.users(ug.t).empty());
  CHECK(users.user_count(ug.t) == 0);
  CHECK(as_vector(users.users(NodeId(7))) == ids({8}));
  CHECK(users.users(ug.dead).empty());
  CHECK(users.users(ug.tup).empty());
}

TEST_CASE("UsersIndex restricted to a live mask ignores dead users", "[users]") {
  UsersGraph ug;
  const relay::Graph& g = ug.g;
  // Live from t (%6): %0..%6. Dead: the negative op %7, negative(x) %8, the tuple %9.
  std::vector<bool> live = reachable_from(g, std::vector{ug.t});
  REQUIRE(live == std::vector<bool>{true, true, true, true, true, true, true, false, false, false});
  UsersIndex users = UsersIndex::build(g, &live);
  CHECK(users.size() == 10);
  CHECK(as_vector(users.users(ug.x)) == ids({3}));  // %8 and %9 are dead
  CHECK(users.user_count(ug.x) == 1);
  CHECK(as_vector(users.users(ug.y)) == ids({5}));  // %9 is dead
  CHECK(as_vector(users.users(NodeId(2))) == ids({3, 6}));
  CHECK(as_vector(users.users(ug.s)) == ids({5, 6}));
  CHECK(as_vector(users.users(ug.m)) == ids({6}));
  CHECK(users.user_count(NodeId(7)) == 0);  // its only user %8 is dead
  CHECK(users.users(ug.dead).empty());
}
