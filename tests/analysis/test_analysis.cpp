// The analyses on small hand-checked graphs, in the Relay dialect and in the test-only Arith
// dialect: reachability, the users index, the post-dominator tree, compaction, structural
// equality and hashing, and verify() (including corrupt graphs built with GraphSurgery).
//
// Every expected value below is derived by hand from the graph the test builds. Ids are
// assigned in creation order, and an op node is created the first time an op is called, so
// each test first pins the ids it relies on with REQUIREs and then reasons from them.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <graphpat/analysis.hpp>
#include <graphpat/ir.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/arith_dialect.hpp"
#include "support/test_files.hpp"
#include "support/graph_surgery.hpp"


using namespace graphpat;
using graphpat::testing::ArithBuilder;
using graphpat::testing::ArithGraph;

namespace {

constexpr std::uint32_t kNone = Id<void>::kNone;

std::vector<NodeId> as_vector(std::span<const NodeId> ids) { return {ids.begin(), ids.end()}; }

std::vector<NodeId> ids(std::initializer_list<std::uint32_t> raw) {
  std::vector<NodeId> result;
  for (std::uint32_t value : raw) result.push_back(NodeId(value));
  return result;
}

std::string message(const absl::Status& status) { return std::string(status.message()); }

// One step of a Difference path, comparable in CHECKs.
struct Step {
  std::uint32_t lhs;
  std::uint32_t rhs;
  std::uint32_t operand;
  friend bool operator==(const Step&, const Step&) = default;
};

std::vector<Step> steps(const Difference& difference) {
  std::vector<Step> result;
  for (const DifferenceStep& step : difference.path) {
    result.push_back({step.lhs.value, step.rhs.value, step.operand});
  }
  return result;
}

TensorBytes bytes_of(std::vector<std::uint8_t> bytes) {
  return share_bytes(std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes)));
}

// fn (%<a>: Tensor[(1, 8), float32], %<b>: Tensor[(1, 8), float32]) {
//   %0 = add(%a, %b);
//   %1 = nn.softmax(%0, axis=1);
//   %2 = (%1, %b, meta[Constant][0] /* float32[2], bytes 0..7 */);
//   nn.relu(%2.0)
// }
NodeId build_sample(relay::Builder& b, std::string_view a_name, std::string_view b_name) {
  Context& ctx = b.context();
  TypeId t = ctx.types.tensor("float32", {ctx.types.dim(1), ctx.types.dim(8)});
  NodeId a = b.var(a_name, t);
  NodeId bb = b.var(b_name, t);
  NodeId sum = b.call("add", {a, bb});
  AttrValueId axis1 = ctx.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ctx.attrs.integer(1)}});
  NodeId soft = b.call("nn.softmax", {sum}, {.attrs = axis1});
  TensorId tensor = ctx.tensors.add(
      {ctx.strings.intern("float32"), {2}, bytes_of({0, 1, 2, 3, 4, 5, 6, 7})});
  NodeId c = b.constant(tensor);
  NodeId tup = b.tuple({soft, bb, c});
  NodeId item = b.tuple_get_item(tup, 0);
  NodeId body = b.call("nn.relu", {item});
  return b.function({a, bb}, body);
}

}  // namespace

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

// ---------------------------------------------------------------------------------------------
// structural_equal / first_difference
// ---------------------------------------------------------------------------------------------

TEST_CASE("structural_equal holds modulo var names across graphs and contexts",
          "[structural_equal]") {
  relay::Graph ga;
  relay::Builder ba(ga);
  NodeId fa = build_sample(ba, "x", "w");

  relay::Graph gb;  // a second context
  relay::Builder bb(gb);
  // Shift every id of the second graph: nodes, strings, attrs and tensors.
  bb.call(bb.opaque_op("my.custom_op"), {bb.var("junk")});
  gb.context().attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", gb.context().attrs.integer(7)}});
  gb.context().tensors.add({gb.context().strings.intern("int8"), {}, {}});
  NodeId fb = build_sample(bb, "p", "q");
  REQUIRE(&ga.context() != &gb.context());
  REQUIRE(fa != fb);

  CHECK(structural_equal(ga, fa, gb, fb));
  CHECK_FALSE(first_difference(ga, fa, gb, fb).has_value());
  CHECK(structural_equal(gb, fb, ga, fa));
  // The annotations are equal by value too.
  CHECK(structural_equal(ga, fa, gb, fb, {.compare_types = true}));
  CHECK(structural_equal(ga, fa, gb, fb, {.compare_sharing = false}));
  // Within one graph, the same sample built twice (new vars) is equal as well.
  NodeId fa2 = build_sample(ba, "m", "n");
  REQUIRE(fa2 != fa);
  CHECK(structural_equal(ga, fa, ga, fa2));
}

TEST_CASE("first_difference: different op", "[structural_equal]") {
  relay::Graph ga;
  relay::Builder ba(ga);
  NodeId ra = ba.call("nn.relu", {ba.var("x")});  // x %0, op %1, call %2
  relay::Graph gb;
  relay::Builder bb(gb);
  NodeId rb = bb.call("sigmoid", {bb.var("x")});  // x %0, op %1, call %2
  REQUIRE(ra == NodeId(2));
  REQUIRE(rb == NodeId(2));

  auto difference = first_difference(ga, ra, gb, rb);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "op nn.relu vs sigmoid");
  CHECK(difference->lhs == NodeId(1));
  CHECK(difference->rhs == NodeId(1));
  // From the root pair (operand 0 by convention) to the callees (operand 0 of the calls).
  CHECK(steps(*difference) == std::vector<Step>{{2, 2, 0}, {1, 1, 0}});
  CHECK(difference->function.empty());
  CHECK_FALSE(structural_equal(ga, ra, gb, rb));
}

TEST_CASE("first_difference: different attrs", "[structural_equal]") {
  relay::Graph ga;
  relay::Builder ba(ga);
  Context& ca = ga.context();
  AttrValueId axis1 = ca.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ca.attrs.integer(1)}});
  AttrValueId axis_minus1 =
      ca.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ca.attrs.integer(-1)}});
  NodeId x = ba.var("x");                                         // %0
  NodeId s1 = ba.call("nn.softmax", {x}, {.attrs = axis1});       // op %1, call %2
  NodeId s2 = ba.call("nn.softmax", {x}, {.attrs = axis_minus1}); // %3
  NodeId s3 = ba.call("nn.softmax", {x});                         // %4
  REQUIRE(s1 == NodeId(2));
  REQUIRE(s2 == NodeId(3));
  REQUIRE(s3 == NodeId(4));

  auto difference = first_difference(ga, s1, ga, s2);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "attrs {axis=1} vs {axis=-1}");
  CHECK(difference->lhs == s1);
  CHECK(difference->rhs == s2);
  CHECK(steps(*difference) == std::vector<Step>{{2, 3, 0}});

  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field == "axis");
  CHECK(difference->attribute->lhs == "1");
  CHECK(difference->attribute->rhs == "-1");
  CHECK_FALSE(difference->lhs_paired_with.valid());

  // No attributes on one side: no field, the whole values.
  difference = first_difference(ga, s1, ga, s3);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "attrs {axis=1} vs none");
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field.empty());
  CHECK(difference->attribute->lhs == "{axis=1}");
  CHECK(difference->attribute->rhs == "none");

  // Across contexts the attrs are compared by value.
  relay::Graph gb;
  relay::Builder bb(gb);
  Context& cb = gb.context();
  NodeId t1 = bb.call("nn.softmax", {bb.var("y")},
                      {.attrs = cb.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", cb.attrs.integer(1)}})});
  CHECK(structural_equal(ga, s1, gb, t1));
  difference = first_difference(gb, t1, ga, s2);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "attrs {axis=1} vs {axis=-1}");
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field == "axis");
}

TEST_CASE("first_difference: the attribute field that differs, with both values",
          "[structural_equal]") {
  relay::Graph g;
  relay::Builder b(g);
  Context& c = g.context();
  auto ints = [&](std::int64_t first, std::int64_t second) {
    return c.attrs.array({c.attrs.integer(first), c.attrs.integer(second)});
  };
  constexpr std::string_view kKey = "relay.attrs.Conv2DAttrs";
  AttrValueId base = c.attrs.object(kKey, {{"strides", ints(1, 1)}, {"padding", ints(0, 0)}});
  AttrValueId strided = c.attrs.object(kKey, {{"strides", ints(2, 2)}, {"padding", ints(0, 0)}});
  AttrValueId padded = c.attrs.object(kKey, {{"strides", ints(1, 1)}, {"padding", ints(1, 1)}});
  AttrValueId shorter = c.attrs.object(kKey, {{"strides", ints(1, 1)}});
  AttrValueId reordered = c.attrs.object(kKey, {{"padding", ints(0, 0)}, {"strides", ints(1, 1)}});
  AttrValueId other_key = c.attrs.object("relay.attrs.Other", {{"strides", ints(1, 1)}});
  NodeId x = b.var("x");  // %0
  auto conv = [&](AttrValueId attrs) { return b.call("nn.conv2d", {x, x}, {.attrs = attrs}); };
  NodeId with_base = conv(base);

  // The first field in the left object's order whose value differs.
  auto difference = first_difference(g, with_base, g, conv(strided));
  REQUIRE(difference.has_value());
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field == "strides");
  CHECK(difference->attribute->lhs == "[1, 1]");
  CHECK(difference->attribute->rhs == "[2, 2]");

  difference = first_difference(g, with_base, g, conv(padded));
  REQUIRE(difference.has_value());
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field == "padding");
  CHECK(difference->attribute->lhs == "[0, 0]");
  CHECK(difference->attribute->rhs == "[1, 1]");

  // A field one side lacks: "none" on that side, left or right.
  difference = first_difference(g, with_base, g, conv(shorter));
  REQUIRE(difference.has_value());
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field == "padding");
  CHECK(difference->attribute->lhs == "[0, 0]");
  CHECK(difference->attribute->rhs == "none");
  difference = first_difference(g, conv(shorter), g, with_base);
  REQUIRE(difference.has_value());
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field == "padding");
  CHECK(difference->attribute->lhs == "none");
  CHECK(difference->attribute->rhs == "[0, 0]");

  // Objects are compared in field order: the same fields reordered differ, but no field does.
  difference = first_difference(g, with_base, g, conv(reordered));
  REQUIRE(difference.has_value());
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field.empty());
  CHECK(difference->attribute->lhs == "{strides=[1, 1], padding=[0, 0]}");
  CHECK(difference->attribute->rhs == "{padding=[0, 0], strides=[1, 1]}");

  // Another type key: the whole values (Relay attribute text does not show type keys).
  difference = first_difference(g, conv(shorter), g, conv(other_key));
  REQUIRE(difference.has_value());
  REQUIRE(difference->attribute.has_value());
  CHECK(difference->attribute->field.empty());
  CHECK(difference->attribute->lhs == "{strides=[1, 1]}");
  CHECK(difference->attribute->rhs == "{strides=[1, 1]}");

  // Other differences leave `attribute` unset.
  difference = first_difference(g, with_base, g, b.call("nn.relu", {x}));
  REQUIRE(difference.has_value());
  CHECK_FALSE(difference->attribute.has_value());
}

TEST_CASE("first_difference: different tuple index, kind and operand count",
          "[structural_equal]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");                     // %0
  NodeId y = b.var("y");                     // %1
  NodeId pair = b.tuple({x, y});             // %2
  NodeId item0 = b.tuple_get_item(pair, 0);  // %3
  NodeId item1 = b.tuple_get_item(pair, 1);  // %4
  NodeId single = b.tuple({x});              // %5
  REQUIRE(item1 == NodeId(4));
  REQUIRE(single == NodeId(5));

  auto difference = first_difference(g, item0, g, item1);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "tuple index 0 vs 1");
  CHECK(steps(*difference) == std::vector<Step>{{3, 4, 0}});

  difference = first_difference(g, pair, g, single);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "2 operands vs 1");

  difference = first_difference(g, x, g, pair);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "kind Var vs Tuple");

  // A kind difference below the root: relu(x) vs relu(negative(x)).
  relay::Graph ga;
  relay::Builder ba(ga);
  NodeId ra = ba.call("nn.relu", {ba.var("x")});  // x %0, op %1, call %2
  relay::Graph gb;
  relay::Builder bb(gb);
  NodeId neg = bb.call("negative", {bb.var("x")});  // x %0, op %1, call %2
  NodeId rb = bb.call("nn.relu", {neg});             // op %3, call %4
  REQUIRE(ra == NodeId(2));
  REQUIRE(rb == NodeId(4));
  difference = first_difference(ga, ra, gb, rb);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "kind Var vs Call");
  CHECK(difference->lhs == NodeId(0));
  CHECK(difference->rhs == NodeId(2));
  CHECK(steps(*difference) == std::vector<Step>{{2, 4, 0}, {0, 2, 1}});
}

TEST_CASE("first_difference: constants compare dtype, shape and bytes", "[structural_equal]") {
  relay::Graph g;
  relay::Builder b(g);
  Context& ctx = g.context();
  StringId f32 = ctx.strings.intern("float32");
  StringId i32 = ctx.strings.intern("int32");
  auto constant = [&](StringId dtype, std::vector<std::int64_t> shape,
                      std::optional<TensorBytes> data) {
    return b.constant(ctx.tensors.add({dtype, std::move(shape), std::move(data)}));
  };
  NodeId a = constant(f32, {2}, bytes_of({0, 0, 128, 63, 0, 0, 0, 64}));     // [1.0, 2.0]
  NodeId same = constant(f32, {2}, bytes_of({0, 0, 128, 63, 0, 0, 0, 64}));  // another buffer
  NodeId other_bytes = constant(f32, {2}, bytes_of({0, 0, 128, 63, 0, 0, 64, 64}));  // [1.0, 3.0]
  NodeId no_bytes = constant(f32, {2}, std::nullopt);
  NodeId other_dtype = constant(i32, {2}, bytes_of({1, 0, 0, 0, 2, 0, 0, 0}));
  NodeId square = constant(f32, {2, 2}, std::nullopt);
  NodeId flat = constant(f32, {4}, std::nullopt);
  REQUIRE(a != same);  // constants are not interned by value

  CHECK(structural_equal(g, a, g, same));
  CHECK(structural_equal(g, a, g, no_bytes));  // one side has no bytes: dtype and shape decide
  CHECK(structural_equal(g, no_bytes, g, other_bytes));

  auto difference = first_difference(g, a, g, other_bytes);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "constant float32[2] vs float32[2]");
  CHECK(difference->lhs == a);
  CHECK(difference->rhs == other_bytes);

  difference = first_difference(g, a, g, other_dtype);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "constant float32[2] vs int32[2]");

  difference = first_difference(g, square, g, flat);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "constant float32[2, 2] vs float32[4]");

  // Inside an expression, and across contexts.
  NodeId sum = b.call("add", {b.var("x"), a});
  relay::Graph gb;
  relay::Builder bb(gb);
  Context& cb = gb.context();
  NodeId cb_const = bb.constant(
      cb.tensors.add({cb.strings.intern("float32"), {2}, bytes_of({0, 0, 128, 63, 0, 0, 0, 64})}));
  NodeId cb_other = bb.constant(
      cb.tensors.add({cb.strings.intern("float32"), {2}, bytes_of({0, 0, 0, 0, 0, 0, 0, 0})}));
  NodeId y = bb.var("y");
  NodeId sum_same = bb.call("add", {y, cb_const});
  NodeId sum_other = bb.call("add", {y, cb_other});
  CHECK(structural_equal(g, sum, gb, sum_same));
  difference = first_difference(g, sum, gb, sum_other);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "constant float32[2] vs float32[2]");
  CHECK(difference->lhs == a);
  CHECK(difference->rhs == cb_other);
  CHECK(difference->path.size() == 2);
  CHECK(difference->path.back().operand == 2);
}

TEST_CASE("first_difference: variables must pair up consistently", "[structural_equal]") {
  // fn (%x, %y) { add(%x, %y) }  vs  fn (%a, %b) { add(%b, %a) }
  relay::Graph ga;
  relay::Builder ba(ga);
  NodeId x = ba.var("x");                    // %0
  NodeId y = ba.var("y");                    // %1
  NodeId add_xy = ba.call("add", {x, y});    // op %2, call %3
  NodeId fa = ba.function({x, y}, add_xy);   // %4
  relay::Graph gb;
  relay::Builder bb(gb);
  NodeId a = bb.var("a");                    // %0
  NodeId bv = bb.var("b");                   // %1
  NodeId add_ba = bb.call("add", {bv, a});   // op %2, call %3
  NodeId fb = bb.function({a, bv}, add_ba);  // %4
  REQUIRE(fa == NodeId(4));
  REQUIRE(fb == NodeId(4));

  // The params pair positionally (x-a, y-b); then add(x, y) vs add(b, a) meets x against b.
  auto difference = first_difference(ga, fa, gb, fb);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "sharing differs: %0 is paired with %0 and %1 with %1");
  CHECK(difference->lhs == x);
  CHECK(difference->rhs == bv);
  // Function -> its body (operand 2, after two params) -> the first arg (operand 1).
  CHECK(steps(*difference) == std::vector<Step>{{4, 4, 0}, {3, 3, 2}, {0, 1, 1}});
  // Not even as trees: variables always pair.
  CHECK_FALSE(structural_equal(ga, fa, gb, fb, {.compare_sharing = false}));

  // As free expressions, x pairs with b and y with a: equal.
  CHECK(structural_equal(ga, add_xy, gb, add_ba));

  // add(%x, %x) vs add(%a, %b): x pairs with a, then x meets b.
  relay::Graph gc;
  relay::Builder bc(gc);
  NodeId cx = bc.var("x");                 // %0
  NodeId twice = bc.call("add", {cx, cx});  // op %1, call %2
  REQUIRE(twice == NodeId(2));
  NodeId add_ab = bb.call("add", {a, bv});  // %5 in gb
  REQUIRE(add_ab == NodeId(5));
  difference = first_difference(gc, twice, gb, add_ab);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "sharing differs: %0 is paired with %0 and %1 with %none");
  difference = first_difference(gb, add_ab, gc, twice);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "sharing differs: %1 is paired with %none and %0 with %0");
}

TEST_CASE("first_difference: sharing counts unless compare_sharing is false",
          "[structural_equal]") {
  // add(%0, %0) with one %0 = relu(x)  vs  add(relu(x), relu(x)) with two fresh relus.
  relay::Graph ga;
  relay::Builder ba(ga);
  NodeId r = ba.call("nn.relu", {ba.var("x")});  // x %0, op %1, call %2
  NodeId sa = ba.call("add", {r, r});             // op %3, call %4
  relay::Graph gb;
  relay::Builder bb(gb);
  NodeId xb = bb.var("x");                                   // %0
  NodeId r1 = bb.call("nn.relu", {xb}, {.fresh = true});     // op %1, call %2
  NodeId r2 = bb.call("nn.relu", {xb}, {.fresh = true});     // %3
  NodeId sb = bb.call("add", {r1, r2});                      // op %4, call %5
  REQUIRE(sa == NodeId(4));
  REQUIRE(r2 == NodeId(3));
  REQUIRE(sb == NodeId(5));

  auto difference = first_difference(ga, sa, gb, sb);
  REQUIRE(difference.has_value());
  // %2 was paired with r1 (%2) through operand 1; operand 2 then meets it against r2 (%3).
  CHECK(difference->reason == "sharing differs: %2 is paired with %2 and %3 with %none");
  CHECK(difference->lhs == r);
  CHECK(difference->rhs == r2);
  CHECK(difference->lhs_paired_with == r1);         // the partners, as NodeIds
  CHECK_FALSE(difference->rhs_paired_with.valid());
  CHECK_FALSE(difference->attribute.has_value());
  CHECK(steps(*difference) == std::vector<Step>{{4, 5, 0}, {2, 3, 2}});

  difference = first_difference(gb, sb, ga, sa);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "sharing differs: %3 is paired with %none and %2 with %2");
  CHECK_FALSE(difference->lhs_paired_with.valid());
  CHECK(difference->rhs_paired_with == r1);

  CHECK(structural_equal(ga, sa, gb, sb, {.compare_sharing = false}));
  CHECK(structural_equal(gb, sb, ga, sa, {.compare_sharing = false}));
}

TEST_CASE("first_difference: types are ignored unless compare_types", "[structural_equal]") {
  auto tensor = [](Context& ctx, std::int64_t width) {
    return ctx.types.tensor("float32", {ctx.types.dim(1), ctx.types.dim(width)});
  };
  relay::Graph ga;
  relay::Builder ba(ga);
  NodeId ra = ba.call("nn.relu", {ba.var("x", tensor(ga.context(), 8))},
                      {.type = tensor(ga.context(), 8)});  // x %0, op %1, call %2
  relay::Graph gb;
  relay::Builder bb(gb);
  NodeId rb = bb.call("nn.relu", {bb.var("x", tensor(gb.context(), 16))},
                      {.type = tensor(gb.context(), 8)});
  relay::Graph gc;
  relay::Builder bc(gc);
  NodeId rc = bc.call("nn.relu", {bc.var("x", tensor(gc.context(), 8))});  // no call type
  REQUIRE(ra == NodeId(2));
  REQUIRE(rb == NodeId(2));

  CHECK(structural_equal(ga, ra, gb, rb));
  CHECK(structural_equal(ga, ra, gc, rc));

  auto difference = first_difference(ga, ra, gb, rb, {.compare_types = true});
  REQUIRE(difference.has_value());
  CHECK(difference->reason ==
        "annotation Tensor[(1, 8), float32] vs Tensor[(1, 16), float32]");
  CHECK(steps(*difference) == std::vector<Step>{{2, 2, 0}, {0, 0, 1}});

  difference = first_difference(ga, ra, gc, rc, {.compare_types = true});
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "type Tensor[(1, 8), float32] vs <no type>");
  CHECK(steps(*difference) == std::vector<Step>{{2, 2, 0}});
}

namespace {

// main: fn (%x) { nn.relu(%x) };  helper: fn (%y) { <helper_op>(%y) }.
// main_first: main's nodes are created (and added) before helper's.
relay::Module make_module(bool main_first, std::string_view helper_op, bool with_helper = true) {
  relay::Module module;
  relay::Builder b(module.graph);
  auto add_main = [&] {
    NodeId x = b.var("x");
    module.add_function("main", b.function({x}, b.call("nn.relu", {x})));
  };
  auto add_helper = [&] {
    NodeId y = b.var("y");
    module.add_function("helper", b.function({y}, b.call(helper_op, {y})));
  };
  if (main_first) {
    add_main();
    if (with_helper) add_helper();
  } else {
    if (with_helper) add_helper();
    add_main();
  }
  return module;
}

}  // namespace

TEST_CASE("first_difference of modules", "[structural_equal]") {
  // L: x %0, relu op %1, call %2, main %3, y %4, negative op %5, call %6, helper %7.
  relay::Module lhs = make_module(true, "negative");
  REQUIRE(lhs.find("main") == NodeId(3));
  REQUIRE(lhs.find("helper") == NodeId(7));

  // Built and added in the other order: function order does not matter.
  relay::Module reordered = make_module(false, "negative");
  REQUIRE(reordered.functions().front().function == NodeId(3));  // helper first
  CHECK(structural_equal(lhs, reordered));
  CHECK(structural_equal(reordered, lhs));

  relay::Module only_main = make_module(true, "negative", false);
  auto difference = first_difference(lhs, only_main);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "function @helper is missing on the right");
  CHECK(difference->function == "helper");
  CHECK(difference->lhs == NodeId(7));
  CHECK_FALSE(difference->rhs.valid());
  CHECK(difference->path.empty());

  difference = first_difference(only_main, lhs);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "function @helper is missing on the left");
  CHECK(difference->function == "helper");
  CHECK_FALSE(difference->lhs.valid());
  CHECK(difference->rhs == NodeId(7));

  // Same ids, helper calls sigmoid: helper %7 -> body %6 (operand 1) -> callee %5 (operand 0).
  relay::Module changed = make_module(true, "sigmoid");
  difference = first_difference(lhs, changed);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "op negative vs sigmoid");
  CHECK(difference->function == "helper");
  CHECK(steps(*difference) == std::vector<Step>{{7, 7, 0}, {6, 6, 1}, {5, 5, 0}});
  CHECK_FALSE(structural_equal(lhs, changed));
}

// ---------------------------------------------------------------------------------------------
// structural_hash
// ---------------------------------------------------------------------------------------------

TEST_CASE("structural_hash: equal for equal graphs, different for a changed op or attr",
          "[structural_hash]") {
  relay::Graph ga;
  relay::Builder ba(ga);
  NodeId fa = build_sample(ba, "x", "w");
  relay::Graph gb;
  relay::Builder bb(gb);
  bb.var("shift");
  NodeId fb = build_sample(bb, "p", "q");
  REQUIRE(structural_equal(ga, fa, gb, fb));
  CHECK(structural_hash(ga, fa) == structural_hash(gb, fb));
  CHECK(structural_hash(ga, fa, {.compare_types = true}) ==
        structural_hash(gb, fb, {.compare_types = true}));

  relay::Graph g;
  relay::Builder b(g);
  Context& ctx = g.context();
  NodeId x = b.var("x");
  NodeId y = b.var("y");
  NodeId relu_x = b.call("nn.relu", {x});
  NodeId relu_y = b.call("nn.relu", {y});
  NodeId sigmoid_x = b.call("sigmoid", {x});
  auto softmax = [&](std::int64_t axis) {
    return b.call("nn.softmax", {x},
                  {.attrs = ctx.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ctx.attrs.integer(axis)}})});
  };
  NodeId axis1 = softmax(1);
  NodeId axis2 = softmax(2);
  CHECK(structural_hash(g, relu_x) == structural_hash(g, relu_y));  // names do not count
  CHECK(structural_hash(g, relu_x) != structural_hash(g, sigmoid_x));
  CHECK(structural_hash(g, axis1) != structural_hash(g, axis2));
  CHECK(structural_hash(g, axis1) == structural_hash(g, softmax(1)));  // hash-consed: same node

  // Sharing is ignored by the hash: add(%r, %r) and add(relu(x), relu(x)) hash alike.
  NodeId shared = b.call("add", {relu_x, relu_x});
  NodeId r1 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId r2 = b.call("nn.relu", {x}, {.fresh = true});
  NodeId unshared = b.call("add", {r1, r2});
  CHECK(structural_hash(g, shared) == structural_hash(g, unshared));

  // Types only with compare_types.
  NodeId typed = b.var("t", ctx.types.tensor("float32", {ctx.types.dim(4)}));
  NodeId relu_typed = b.call("nn.relu", {typed});
  CHECK(structural_hash(g, relu_typed) == structural_hash(g, relu_x));
  CHECK(structural_hash(g, relu_typed, {.compare_types = true}) !=
        structural_hash(g, relu_x, {.compare_types = true}));
}

// ---------------------------------------------------------------------------------------------
// verify
// ---------------------------------------------------------------------------------------------

TEST_CASE("verify accepts every graph built through a Builder", "[verify]") {
  relay::Module module;
  relay::Builder b(module.graph);
  Context& ctx = module.graph.context();
  TypeId f32 = ctx.types.tensor("float32", {ctx.types.dim(1), ctx.types.dim(8)});
  SpanId span = ctx.spans.intern({ctx.strings.intern("from_string"), 3, 7, 3, 20});
  NodeId x = b.var("x", f32, {.type = f32, .span = span});
  NodeId c = b.constant(ctx.tensors.add({ctx.strings.intern("float32"), {1, 8}, {}}));
  NodeId soft = b.call("nn.softmax", {x},
                       {.attrs = ctx.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ctx.attrs.integer(1)}}),
                        .type_args = ctx.types.tuple({f32}), .type = f32});
  NodeId dropped = b.call("nn.dropout", {soft});  // stateful: fresh
  NodeId tup = b.tuple({soft, c, dropped});
  NodeId item = b.tuple_get_item(tup, 1);
  NodeId fresh_item = b.tuple_get_item(tup, 1, {.fresh = true});
  NodeId v = b.var("v");
  NodeId let = b.let(v, item, b.call("add", {v, fresh_item}));
  NodeId cond = b.var("cond", ctx.types.tensor("bool", {}));
  NodeId branch = b.if_then_else(cond, let, x);
  NodeId helper = b.global_var("helper");
  NodeId call_helper = b.call(helper, {branch});
  NodeId main_fn = b.function({x, cond}, call_helper,
                              {.attrs = ctx.attrs.object("DictAttrs", {}), .result_type = f32});
  NodeId y = b.var("y");
  module.add_function("main", main_fn);
  module.add_function("helper", b.function({y}, y));
  CHECK(verify(module.graph).ok());
  CHECK(verify(module).ok());
  CHECK(verify(compact(module)).ok());

  relay::Graph sample;
  relay::Builder sb(sample);
  build_sample(sb, "a", "b");
  CHECK(verify(sample).ok());
  CHECK(verify(relay::Graph()).ok());
}

TEST_CASE("verify: operand_order", "[verify]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");          // %0
  NodeId relu = b.op("nn.relu");  // %1
  REQUIRE(relu == NodeId(1));
  Node call;
  call.kind = NodeKind::kCall;
  call.flags = kNodeFresh;
  SECTION("an operand created after its user") {
    NodeId operands[] = {relu, NodeId(3)};
    REQUIRE(detail::GraphSurgery::append(g, call, operands, false) == NodeId(2));
    b.var("later");  // %3
    absl::Status status = verify(g);
    CHECK(status.code() == absl::StatusCode::kInternal);
    CHECK(error_id(status) == "graphpat.verify.operand_order");
    CHECK(message(status) ==
          "[graphpat.verify.operand_order] %2: operand 1 is %3, which is not created before it");
  }
  SECTION("a node using itself") {
    NodeId operands[] = {relu, NodeId(2)};
    detail::GraphSurgery::append(g, call, operands, false);
    CHECK(message(verify(g)) ==
          "[graphpat.verify.operand_order] %2: operand 1 is %2, which is not created before it");
  }
  SECTION("an invalid operand") {
    NodeId operands[] = {NodeId(), x};
    detail::GraphSurgery::append(g, call, operands, false);
    CHECK(message(verify(g)) ==
          "[graphpat.verify.operand_order] %2: operand 0 is %none, which is not created before it");
  }
}

TEST_CASE("verify: operand_count", "[verify]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId pair = b.tuple({b.var("x"), b.var("y")});  // %2
  REQUIRE(pair == NodeId(2));
  SECTION("a TupleGetItem with two operands") {
    Node item;
    item.kind = NodeKind::kTupleGetItem;
    item.payload = {0, kNone, kNone};
    item.flags = kNodeFresh;
    NodeId operands[] = {pair, pair};
    detail::GraphSurgery::append(g, item, operands, false);
    CHECK(message(verify(g)) ==
          "[graphpat.verify.operand_count] %3: TupleGetItem node must have one operand, it has 2 "
          "operands");
  }
  SECTION("a Call without a callee") {
    Node call;
    call.kind = NodeKind::kCall;
    call.flags = kNodeFresh;
    detail::GraphSurgery::append(g, call, std::span<const NodeId>(), false);
    CHECK(message(verify(g)) ==
          "[graphpat.verify.operand_count] %3: Call node must have a callee, it has 0 operands");
  }
}

TEST_CASE("verify: param_kind and let_var_kind", "[verify]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");               // %0
  NodeId r = b.call("nn.relu", {x});   // op %1, call %2
  REQUIRE(r == NodeId(2));
  SECTION("a function param that is not a Var") {
    Node fn;
    fn.kind = NodeKind::kFunction;
    fn.flags = kNodeFresh;
    NodeId operands[] = {x, r, r};  // params x and r, body r
    detail::GraphSurgery::append(g, fn, operands, false);
    CHECK(message(verify(g)) == "[graphpat.verify.param_kind] %3: param %2 is not a Var");
  }
  SECTION("a let binding something that is not a Var") {
    Node let;
    let.kind = NodeKind::kLet;
    let.flags = kNodeFresh;
    NodeId operands[] = {r, x, r};
    detail::GraphSurgery::append(g, let, operands, false);
    CHECK(message(verify(g)) ==
          "[graphpat.verify.let_var_kind] %3: its bound variable is not a Var");
  }
}

TEST_CASE("verify: dangling ids and attrs that are not an object", "[verify]") {
  relay::Graph g;
  relay::Builder b(g);
  Context& ctx = g.context();
  SECTION("an op that is not registered") {
    Node op;
    op.kind = NodeKind::kOp;
    op.payload = {static_cast<std::uint32_t>(ctx.ops.size()), kNone, kNone};
    detail::GraphSurgery::append(g, op, std::span<const NodeId>(), true);
    CHECK(message(verify(g)) == "[graphpat.verify.dangling_id] %0: its op is not registered");
  }
  SECTION("a constant without a tensor") {
    Node constant;
    constant.kind = NodeKind::kConstant;
    constant.payload = {0, kNone, kNone};  // the context has no tensor yet
    detail::GraphSurgery::append(g, constant, std::span<const NodeId>(), true);
    CHECK(message(verify(g)) ==
          "[graphpat.verify.dangling_id] %0: its tensor does not exist");
  }
  SECTION("a node type that is not a type") {
    b.var("x");
    Node var;
    var.kind = NodeKind::kVar;
    var.flags = kNodeFresh;
    var.payload = {ctx.strings.intern("y").value, kNone, kNone};
    var.type = TypeId(static_cast<std::uint32_t>(ctx.types.size()));
    detail::GraphSurgery::append(g, var, std::span<const NodeId>(), false);
    CHECK(message(verify(g)) == "[graphpat.verify.dangling_id] %1: its type is not a type");
  }
  SECTION("call attrs that are not an object value (the Builder does not check)") {
    NodeId x = b.var("x");
    b.call("nn.relu", {x}, {.attrs = ctx.attrs.integer(1)});  // op %1, call %2
    CHECK(message(verify(g)) == "[graphpat.verify.attrs_kind] %2: attrs must be an object value");
  }
}

TEST_CASE("verify: hash-consing table consistency", "[verify]") {
  relay::Graph g;
  relay::Builder b(g);
  NodeId x = b.var("x");               // %0
  NodeId relu = b.op("nn.relu");       // %1
  Node call;
  call.kind = NodeKind::kCall;
  NodeId operands[] = {relu, x};
  SECTION("a non-fresh duplicate") {
    NodeId r = b.call(relu, {x});  // %2
    REQUIRE(r == NodeId(2));
    detail::GraphSurgery::append(g, call, operands, false);  // %3, same key, not fresh
    absl::Status status = verify(g);
    CHECK(error_id(status) == "graphpat.verify.memo");
    CHECK(message(status) ==
          "[graphpat.verify.memo] %3: it duplicates %2 but was not created fresh");
    // The same duplicate created fresh is fine.
    relay::Graph ok;
    relay::Builder ob(ok);
    NodeId ox = ob.var("x");
    ob.call("nn.relu", {ox});
    Node fresh_call = call;
    fresh_call.flags = kNodeFresh;
    NodeId ok_operands[] = {NodeId(1), ox};
    detail::GraphSurgery::append(ok, fresh_call, ok_operands, false);
    CHECK(verify(ok).ok());
  }
  SECTION("a non-fresh node missing from the table") {
    detail::GraphSurgery::append(g, call, operands, false);  // %2
    CHECK(message(verify(g)) ==
          "[graphpat.verify.memo] %2: it is missing from the hash-consing table");
  }
  SECTION("a fresh node in the table") {
    call.flags = kNodeFresh;
    detail::GraphSurgery::append(g, call, operands, true);  // %2
    // Non-fresh: only the relu op (the var is fresh); the table holds the op and %2.
    CHECK(message(verify(g)) ==
          "[graphpat.verify.memo] the hash-consing table holds 2 nodes, the graph 1 non-fresh");
  }
}

TEST_CASE("verify: shared_var and global functions", "[verify]") {
  relay::Graph g;
  relay::Builder b(g);
  Context& ctx = g.context();
  SECTION("a Var without the fresh flag") {
    b.var("x");  // %0
    Node var;
    var.kind = NodeKind::kVar;
    var.payload = {ctx.strings.intern("y").value, kNone, kNone};
    detail::GraphSurgery::append(g, var, std::span<const NodeId>(), true);
    CHECK(message(verify(g)) == "[graphpat.verify.shared_var] %1: a Var must be fresh");
  }
  SECTION("a module function that is not a Function node") {
    relay::Module module;
    relay::Builder mb(module.graph);
    NodeId r = mb.call("nn.relu", {mb.var("x")});  // x %0, op %1, call %2
    module.add_function("main", r);
    REQUIRE(verify(module.graph).ok());
    CHECK(message(verify(module)) ==
          "[graphpat.verify.global_function] %2: @main is not a Function node");
  }
}

// ---------------------------------------------------------------------------------------------
// The Arith dialect
// ---------------------------------------------------------------------------------------------

namespace {

// %0 = x, %1 = y, %3 = add(x, y), %5 = mul(%3, %3), %7 = neg(%3), %9 = sub(%5, %7),
// %11 = div(x, y) (dead from %9); the ops are %2 add, %4 mul, %6 neg, %8 sub, %10 div.
struct ArithSample {
  ArithGraph g;
  NodeId x, y, s, m, n, d, q;

  ArithSample(std::string_view x_name, std::string_view y_name, std::string_view square_op) {
    ArithBuilder b(g);
    x = b.var(x_name);
    y = b.var(y_name);
    s = b.call("add", {x, y});
    m = b.call(square_op, {s, s});
    n = b.call("neg", {s});
    d = b.call("sub", {m, n});
    q = b.call("div", {x, y});
  }
};

}  // namespace

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

TEST_CASE("arith dialect: structural_equal, verify and compact", "[arith][structural_equal][compact][verify]") {
  ArithSample a("x", "y", "mul");
  ArithSample renamed("p", "q", "mul");
  CHECK(structural_equal(a.g, a.d, renamed.g, renamed.d));
  CHECK(structural_hash(a.g, a.d) == structural_hash(renamed.g, renamed.d));

  // With add instead of mul, add(s, s) reuses the add op %2: p %0, q %1, add op %2, s %3,
  // add(s, s) %4, neg op %5, neg %6, sub op %7, sub %8.
  ArithSample changed("p", "q", "add");
  REQUIRE(changed.m == NodeId(4));
  REQUIRE(changed.d == NodeId(8));
  auto difference = first_difference(a.g, a.d, changed.g, changed.d);
  REQUIRE(difference.has_value());
  CHECK(difference->reason == "op mul vs add");
  CHECK(difference->lhs == NodeId(4));
  CHECK(difference->rhs == NodeId(2));
  CHECK(steps(*difference) == std::vector<Step>{{9, 8, 0}, {5, 4, 1}, {4, 2, 0}});
  CHECK(structural_hash(a.g, a.d) != structural_hash(changed.g, changed.d));

  CHECK(verify(a.g).ok());
  CHECK(verify(changed.g).ok());

  // The div op %10 and div(x, y) %11 are dead; everything before them keeps its id.
  Compacted<testing::ArithDialect> result = compact(a.g, std::vector{a.d});
  CHECK(result.graph.size() == 10);
  CHECK(result.old_to_new ==
        std::vector<NodeId>{NodeId(0), NodeId(1), NodeId(2), NodeId(3), NodeId(4), NodeId(5),
                            NodeId(6), NodeId(7), NodeId(8), NodeId(9), NodeId(), NodeId()});
  CHECK(verify(result.graph).ok());
  CHECK(structural_equal(a.g, a.d, result.graph, result.map(a.d)));

  // A stateful op is never hash-consed, and compaction keeps both calls apart.
  ArithGraph g;
  ArithBuilder b(g);
  NodeId r1 = b.call("rand", std::span<const NodeId>());  // op %0, call %1
  NodeId r2 = b.call("rand", std::span<const NodeId>());  // %2
  NodeId both = b.call("add", {r1, r2});                   // op %3, call %4
  REQUIRE(r1 == NodeId(1));
  REQUIRE(r2 == NodeId(2));
  CHECK(g.is_fresh(r1));
  CHECK(g.is_fresh(r2));
  CHECK(verify(g).ok());
  Compacted<testing::ArithDialect> kept = compact(g, std::vector{both});
  CHECK(kept.graph.size() == 5);
  CHECK(kept.graph.is_fresh(NodeId(1)));
  CHECK(kept.graph.is_fresh(NodeId(2)));
  CHECK(verify(kept.graph).ok());
  // Compared as trees they are equal to a single shared rand; with sharing they are not.
  NodeId shared = b.call("add", {r1, r1});  // %5
  CHECK(structural_equal(g, both, g, shared, {.compare_sharing = false}));
  auto sharing = first_difference(g, shared, g, both);
  REQUIRE(sharing.has_value());
  CHECK(sharing->reason == "sharing differs: %1 is paired with %1 and %2 with %none");
}
