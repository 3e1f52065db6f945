// PostDominatorTree (analysis/post_dominators.hpp) on small hand-checked graphs, in the Relay
// dialect and in the test-only Arith dialect (with the users index and reachability of the
// same Arith graph), and against the dataflow definition on random Arith DAGs.
//
// Every expected value below is derived by hand from the graph the test builds. Ids are
// assigned in creation order, and an op node is created the first time an op is called, so
// each test first pins the ids it relies on with REQUIREs and then reasons from them.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <graphpat/analysis/post_dominators.hpp>
#include <graphpat/analysis/reachability.hpp>
#include <graphpat/analysis/users.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/analysis_samples.hpp"
#include "support/arith_dialect.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using graphpat::testing::ArithBuilder;
using graphpat::testing::ArithGraph;
using graphpat::testing::ArithSample;
using graphpat::testing::as_vector;
using graphpat::testing::ids;

// ---------------------------------------------------------------------------------------------
// PostDominatorTree
// ---------------------------------------------------------------------------------------------

TEST_CASE("post-dominators of a chain", "[post_dominators]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");                  // %0
  NodeId r1 = b.call("nn.relu", {x});     // op %1, call %2
  NodeId n = b.call("negative", {r1});    // op %3, call %4
  NodeId r2 = b.call("nn.relu", {n});     // call %5
  NodeId dead = b.call("sigmoid", {x});   // op %6, call %7
  REQUIRE(r1 == NodeId(2));
  REQUIRE(n == NodeId(4));
  REQUIRE(r2 == NodeId(5));
  REQUIRE(dead == NodeId(7));

  auto tree = PostDominatorTree::build(g, std::vector{r2});
  CHECK(tree.immediate_post_dominator(x) == r1);
  CHECK(tree.immediate_post_dominator(r1) == n);
  CHECK(tree.immediate_post_dominator(n) == r2);
  CHECK_FALSE(tree.immediate_post_dominator(r2).valid());  // the root hangs under the exit
  // The relu op is used by %2 and %5; on the chain %2 -> %4 -> %5 they meet at %5.
  CHECK(tree.immediate_post_dominator(NodeId(1)) == r2);
  CHECK(tree.immediate_post_dominator(NodeId(3)) == n);

  for (std::uint32_t i = 0; i <= 5; ++i) CHECK(tree.contains(NodeId(i)));
  CHECK_FALSE(tree.contains(NodeId(6)));  // sigmoid op, only used by dead code
  CHECK_FALSE(tree.contains(dead));
  CHECK_FALSE(tree.contains(NodeId(8)));  // past the end of the graph
  CHECK_FALSE(tree.contains(NodeId()));

  CHECK(tree.post_dominates(r2, x));
  CHECK(tree.post_dominates(n, x));
  CHECK(tree.post_dominates(r1, x));
  CHECK(tree.post_dominates(n, r1));
  CHECK(tree.post_dominates(r2, NodeId(1)));
  for (std::uint32_t i = 0; i <= 5; ++i) CHECK(tree.post_dominates(NodeId(i), NodeId(i)));
  CHECK_FALSE(tree.post_dominates(x, r1));
  CHECK_FALSE(tree.post_dominates(r1, n));
  CHECK_FALSE(tree.post_dominates(x, r2));
  CHECK_FALSE(tree.post_dominates(NodeId(1), x));  // the relu op is a leaf of the tree
  CHECK_FALSE(tree.post_dominates(NodeId(3), r1));
}

TEST_CASE("post-dominators of a diamond", "[post_dominators]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");                   // %0
  NodeId a = b.call("nn.relu", {x});       // op %1, call %2
  NodeId bn = b.call("negative", {a});     // op %3, call %4
  NodeId c = b.call("sigmoid", {a});       // op %5, call %6
  NodeId d = b.call("add", {bn, c});       // op %7, call %8
  REQUIRE(a == NodeId(2));
  REQUIRE(bn == NodeId(4));
  REQUIRE(c == NodeId(6));
  REQUIRE(d == NodeId(8));

  auto tree = PostDominatorTree::build(g, std::vector{d});
  // a -> b, a -> c, b,c -> d: neither branch post-dominates a, their join d does.
  CHECK(tree.immediate_post_dominator(a) == d);
  CHECK(tree.immediate_post_dominator(bn) == d);
  CHECK(tree.immediate_post_dominator(c) == d);
  CHECK(tree.immediate_post_dominator(x) == a);
  CHECK(tree.immediate_post_dominator(NodeId(1)) == a);
  CHECK(tree.immediate_post_dominator(NodeId(7)) == d);
  CHECK_FALSE(tree.immediate_post_dominator(d).valid());

  CHECK(tree.post_dominates(d, a));
  CHECK(tree.post_dominates(d, x));
  CHECK(tree.post_dominates(a, x));
  CHECK_FALSE(tree.post_dominates(bn, a));
  CHECK_FALSE(tree.post_dominates(c, a));
  CHECK_FALSE(tree.post_dominates(bn, x));
  CHECK_FALSE(tree.post_dominates(bn, c));
  CHECK_FALSE(tree.post_dominates(c, bn));
}

TEST_CASE("post-dominators: a node used by two roots is post-dominated by the exit only",
          "[post_dominators]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");                 // %0
  NodeId r = b.call("nn.relu", {x});     // op %1, call %2
  NodeId s = b.call("sigmoid", {x});     // op %3, call %4
  NodeId t = b.call("negative", {r});    // op %5, call %6
  REQUIRE(r == NodeId(2));
  REQUIRE(s == NodeId(4));
  REQUIRE(t == NodeId(6));

  SECTION("two independent roots") {
    auto tree = PostDominatorTree::build(g, std::vector{r, s});
    CHECK(tree.contains(x));
    CHECK_FALSE(tree.immediate_post_dominator(x).valid());  // paths to r and to s share nothing
    CHECK_FALSE(tree.immediate_post_dominator(r).valid());
    CHECK_FALSE(tree.immediate_post_dominator(s).valid());
    CHECK_FALSE(tree.post_dominates(r, x));
    CHECK_FALSE(tree.post_dominates(s, x));
    CHECK(tree.post_dominates(x, x));
    CHECK_FALSE(tree.contains(t));
    CHECK_FALSE(tree.contains(NodeId(5)));
  }
  SECTION("a root that another root uses") {
    // r is a root itself, so the path from r to a root may stop at r: only the exit
    // post-dominates it, although its only user is t. s is dead, so x's only live user is r.
    auto tree = PostDominatorTree::build(g, std::vector{r, t});
    CHECK_FALSE(tree.immediate_post_dominator(r).valid());
    CHECK_FALSE(tree.immediate_post_dominator(t).valid());
    CHECK(tree.immediate_post_dominator(x) == r);
    CHECK_FALSE(tree.post_dominates(t, r));
    CHECK(tree.post_dominates(r, x));
    CHECK_FALSE(tree.contains(s));
  }
}

TEST_CASE("post-dominators of the MobileNetV2 batch_norm with two fresh getitems",
          "[post_dominators]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");          // %0
  NodeId gamma = b.var("gamma");  // %1
  NodeId beta = b.var("beta");    // %2
  NodeId mean = b.var("mean");    // %3
  NodeId var = b.var("var");      // %4
  NodeId bn = b.call("nn.batch_norm", {x, gamma, beta, mean, var});  // op %5, call %6
  NodeId first = b.tuple_get_item(bn, 0, {.fresh = true});           // %7
  NodeId second = b.tuple_get_item(bn, 0, {.fresh = true});          // %8
  NodeId sum = b.call("add", {first, second});                       // op %9, call %10
  NodeId fn = b.function({x, gamma, beta, mean, var}, sum);          // %11
  REQUIRE(bn == NodeId(6));
  REQUIRE(first == NodeId(7));
  REQUIRE(second == NodeId(8));
  REQUIRE(sum == NodeId(10));
  REQUIRE(fn == NodeId(11));
  REQUIRE(g.size() == 12);

  UsersIndex users = UsersIndex::build(g);
  CHECK(as_vector(users.users(bn)) == ids({7, 8}));  // two distinct `%bn.0` nodes

  auto tree = PostDominatorTree::build(g, std::vector{fn});
  // bn's users are %7 and %8, both under %10: the add post-dominates bn, neither getitem does.
  CHECK(tree.immediate_post_dominator(bn) == sum);
  CHECK(tree.immediate_post_dominator(first) == sum);
  CHECK(tree.immediate_post_dominator(second) == sum);
  CHECK_FALSE(tree.post_dominates(first, bn));
  CHECK_FALSE(tree.post_dominates(second, bn));
  CHECK(tree.post_dominates(sum, bn));
  CHECK(tree.immediate_post_dominator(sum) == fn);
  CHECK_FALSE(tree.immediate_post_dominator(fn).valid());
  // The params are used by bn and by the function itself (as params): only fn post-dominates.
  CHECK(tree.immediate_post_dominator(x) == fn);
  CHECK(tree.immediate_post_dominator(gamma) == fn);
  CHECK_FALSE(tree.post_dominates(bn, x));
  CHECK_FALSE(tree.post_dominates(sum, x));
  CHECK(tree.post_dominates(fn, x));
  CHECK(tree.immediate_post_dominator(NodeId(5)) == bn);   // the batch_norm op
  CHECK(tree.immediate_post_dominator(NodeId(9)) == sum);  // the add op
}

TEST_CASE("post-dominators agree with the dataflow definition on random DAGs",
          "[post_dominators][arith]") {
  // Reference: pdom(v) = {v} if v is a root, else {v} + the intersection of pdom(u) over v's
  // live users u; computed with bitsets in one backward scan (users have larger ids). The
  // strict post-dominators of v lie on one tree path above v, whose ids increase, so the
  // immediate one is the smallest. Ops are shared by many calls, as in real graphs.
  for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    CAPTURE(seed);
    ArithGraph g;
    ArithBuilder b(g);
    std::mt19937 rng(seed);
    std::vector<NodeId> values;
    for (int i = 0; i < 4; ++i) values.push_back(b.var(fmt::format("v{}", i)));
    constexpr std::string_view kOps[] = {"add", "mul", "sub", "neg"};
    while (g.size() < 400) {
      std::uint32_t arity = 1 + rng() % 3;
      std::vector<NodeId> args;
      // Mostly recent values, so that chains and diamonds form, sometimes any earlier one.
      for (std::uint32_t i = 0; i < arity; ++i) {
        std::size_t back = rng() % 4 == 0 ? rng() % values.size() : rng() % std::min<std::size_t>(values.size(), 6);
        args.push_back(values[values.size() - 1 - back]);
      }
      NodeId node = rng() % 5 == 0 ? b.tuple(args)
                                   : b.call(kOps[rng() % 4], args, {.fresh = rng() % 7 == 0});
      if (rng() % 9 == 0) node = b.tuple_get_item(node, 0);
      values.push_back(node);
    }
    std::vector<NodeId> roots{values.back()};
    if (seed % 2 == 0) roots.push_back(values[values.size() / 2]);
    if (seed % 4 == 0) roots.push_back(values[values.size() - 3]);

    const std::uint32_t n = g.size();
    const std::size_t words = (n + 63) / 64;
    std::vector<bool> live = reachable_from(g, roots);
    std::vector<bool> is_root(n, false);
    for (NodeId root : roots) is_root[root.index()] = true;
    std::vector<std::vector<std::uint32_t>> live_users(n);
    for (std::uint32_t u = 0; u < n; ++u) {
      if (!live[u]) continue;
      for (NodeId operand : g.operands(NodeId(u))) {
        auto& list = live_users[operand.index()];
        if (list.empty() || list.back() != u) list.push_back(u);
      }
    }
    std::vector<std::vector<std::uint64_t>> pdom(n, std::vector<std::uint64_t>(words, 0));
    for (std::uint32_t v = n; v-- > 0;) {
      if (!live[v]) continue;
      auto& set = pdom[v];
      if (!is_root[v]) {
        std::fill(set.begin(), set.end(), ~std::uint64_t{0});
        for (std::uint32_t u : live_users[v]) {
          for (std::size_t w = 0; w < words; ++w) set[w] &= pdom[u][w];
        }
      }
      set[v / 64] |= std::uint64_t{1} << (v % 64);
    }
    auto in = [&](std::uint32_t v, std::uint32_t d) { return (pdom[v][d / 64] >> (d % 64)) & 1; };

    auto tree = PostDominatorTree::build(g, roots);
    std::uint32_t wrong_ipdom = 0;
    std::uint32_t wrong_query = 0;
    std::uint32_t strict_pairs = 0;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (tree.contains(NodeId(v)) != live[v]) ++wrong_ipdom;
      if (!live[v]) continue;
      NodeId expected;
      for (std::uint32_t d = v + 1; d < n && !expected.valid(); ++d) {
        if (in(v, d)) expected = NodeId(d);
      }
      if (tree.immediate_post_dominator(NodeId(v)) != expected) ++wrong_ipdom;
      for (std::uint32_t d = 0; d < n; ++d) {
        if (!live[d]) continue;
        bool dominates = in(v, d) != 0;
        if (dominates && d != v) ++strict_pairs;
        if (tree.post_dominates(NodeId(d), NodeId(v)) != dominates) ++wrong_query;
      }
    }
    CHECK(wrong_ipdom == 0);
    CHECK(wrong_query == 0);
    CHECK(strict_pairs > 0);
  }
}

// ---------------------------------------------------------------------------------------------
// The Arith dialect
// ---------------------------------------------------------------------------------------------

TEST_CASE("arith dialect: users, reachability and post-dominators", "[arith][users][post_dominators]") {
  ArithSample a("x", "y", "mul");
  const ArithGraph& g = a.g;
  REQUIRE(g.context().dialect_name() == "arith");
  REQUIRE(a.s == NodeId(3));
  REQUIRE(a.m == NodeId(5));
  REQUIRE(a.n == NodeId(7));
  REQUIRE(a.d == NodeId(9));
  REQUIRE(a.q == NodeId(11));
  REQUIRE(g.size() == 12);

  UsersIndex users = UsersIndex::build(g);
  CHECK(as_vector(users.users(a.x)) == ids({3, 11}));
  CHECK(as_vector(users.users(a.y)) == ids({3, 11}));
  CHECK(as_vector(users.users(a.s)) == ids({5, 7}));  // mul(s, s) counts once
  CHECK(as_vector(users.users(a.m)) == ids({9}));
  CHECK(as_vector(users.users(a.n)) == ids({9}));
  CHECK(users.user_count(a.d) == 0);

  std::vector<bool> live = reachable_from(g, std::vector{a.d});
  CHECK(live == std::vector<bool>{true, true, true, true, true, true, true, true, true, true,
                                  false, false});
  UsersIndex live_users = UsersIndex::build(g, &live);
  CHECK(as_vector(live_users.users(a.x)) == ids({3}));

  auto tree = PostDominatorTree::build(g, std::vector{a.d});
  CHECK(tree.immediate_post_dominator(a.s) == a.d);  // its users %5 and %7 meet at %9
  CHECK(tree.immediate_post_dominator(a.x) == a.s);  // div(x, y) is dead
  CHECK(tree.immediate_post_dominator(a.y) == a.s);
  CHECK(tree.immediate_post_dominator(a.m) == a.d);
  CHECK(tree.immediate_post_dominator(a.n) == a.d);
  CHECK_FALSE(tree.immediate_post_dominator(a.d).valid());
  CHECK_FALSE(tree.post_dominates(a.m, a.s));
  CHECK_FALSE(tree.post_dominates(a.n, a.s));
  CHECK(tree.post_dominates(a.d, a.x));
  CHECK(tree.post_dominates(a.s, a.x));
  CHECK_FALSE(tree.contains(a.q));
  CHECK_FALSE(tree.contains(NodeId(10)));
}
