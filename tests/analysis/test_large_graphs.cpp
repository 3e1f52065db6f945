// The analyses at scale: a chain of a million values (Relay dialect) and a random DAG of a
// million nodes (Arith dialect), built, verified, post-dominated, compared and compacted. Every
// engine is iterative, so nothing here may overflow the stack; every helper of this file is
// iterative as well. Expected values come from the construction itself or from bookkeeping the
// test keeps on its own (a table of the requested keys, an explicit worklist), never from
// the engines under test. Checks inside million-iteration loops count mismatches and assert the
// count once, to keep the file fast.
#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <graphpat/analysis.hpp>
#include <graphpat/ir.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/arith_dialect.hpp"
#include "support/test_files.hpp"


using namespace graphpat;
using graphpat::testing::ArithBuilder;
using graphpat::testing::ArithGraph;

namespace {

// ---------------------------------------------------------------------------------------------
// The chain: %x, then kChainCalls unary calls, call k (1-based) applying nn.relu when k is odd
// and negative when k is even to call k - 1 (call 0 being %x).
// ---------------------------------------------------------------------------------------------

constexpr std::uint32_t kChainCalls = 999'999;  // with %x: a chain of 1,000,000 values
// The call whose op the changed copy replaces by sigmoid (odd: a relu call).
constexpr std::uint32_t kChangedCall = 500'001;

// The reference chain creates its two op nodes first: %0 = x, %1 = nn.relu, %2 = negative,
// so call k is %(k + 2) and the root (call 999,999) is %1,000,001; 1,000,002 nodes in all.
struct ReferenceChain {
  relay::Graph g;
  NodeId root;
  std::uint64_t misplaced = 0;  // calls that did not get the id k + 2

  ReferenceChain() {
    g.reserve(kChainCalls + 3, 2 * std::size_t{kChainCalls});
    relay::Builder b(g);
    NodeId x = b.var("x");
    NodeId relu = b.op("nn.relu");
    NodeId neg = b.op("negative");
    if (x != NodeId(0) || relu != NodeId(1) || neg != NodeId(2)) ++misplaced;
    NodeId previous = x;
    for (std::uint32_t k = 1; k <= kChainCalls; ++k) {
      previous = b.call(k % 2 == 1 ? relu : neg, {previous});
      if (previous != NodeId(k + 2)) ++misplaced;
    }
    root = previous;
  }
};

// A copy built the way an importer would: ops by name, created on first use. With
// `changed_call` set, that call uses sigmoid instead of nn.relu.
NodeId build_chain_by_name(relay::Graph& g, std::string_view var_name,
                           std::uint32_t changed_call = 0) {
  relay::Builder b(g);
  NodeId previous = b.var(var_name);
  for (std::uint32_t k = 1; k <= kChainCalls; ++k) {
    std::string_view op = k == changed_call ? "sigmoid" : k % 2 == 1 ? "nn.relu" : "negative";
    previous = b.call(op, {previous});
  }
  return previous;
}

// ---------------------------------------------------------------------------------------------
// The random DAG: kDagVars vars, the four binary ops, then calls op(a, b) on random earlier
// values until the graph holds kDagNodes nodes. Half of the requests repeat a key requested
// before (hash-consing must return the node made then); the others draw a random key, which
// may also exist already by chance. The test predicts each id with its own table of keys.
// ---------------------------------------------------------------------------------------------

constexpr std::uint32_t kDagNodes = 1'000'000;
constexpr std::uint32_t kDagVars = 64;
constexpr std::uint32_t kDagOps = 4;
constexpr std::uint32_t kFirstDagCall = kDagVars + kDagOps;  // %0..%63 vars, %64..%67 ops
constexpr std::array<std::string_view, kDagOps> kDagOpNames = {"add", "sub", "mul", "div"};
constexpr std::uint32_t kDagSeed = 20240611;

using DagKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;  // op node, a, b
struct DagKeyHash {
  std::size_t operator()(const DagKey& key) const {
    auto [op, a, b] = key;
    std::uint64_t packed = (std::uint64_t{a} << 32 | b) * 0x9e3779b97f4a7c15ULL;
    return static_cast<std::size_t>(packed ^ (packed >> 29) ^ op);
  }
};

struct RandomDag {
  ArithGraph g;
  NodeId root;
  // The test's own record of every call node: calls[id - kFirstDagCall] = {op node, a, b}.
  std::vector<std::array<NodeId, 3>> calls;
  // Every key requested, with the node it first produced (the test's own hash table, not the
  // graph's; references to its elements survive rehashing).
  std::unordered_map<DagKey, NodeId, DagKeyHash> distinct;
  std::uint64_t requests = 0;
  std::uint64_t repeated_requests = 0;    // deliberate repeats of an earlier key
  std::uint64_t accidental_repeats = 0;   // random keys that existed already
  std::uint64_t mismatches = 0;           // ids or sizes not as predicted

  RandomDag() {
    g.reserve(kDagNodes, 3 * std::size_t{kDagNodes});
    ArithBuilder b(g);
    std::mt19937 rng(kDagSeed);
    auto pick = [&](std::size_t count) { return static_cast<std::size_t>(rng() % count); };
    std::vector<NodeId> values;
    for (std::uint32_t i = 0; i < kDagVars; ++i) values.push_back(b.var(fmt::format("v{}", i)));
    std::array<NodeId, kDagOps> ops;
    for (std::uint32_t i = 0; i < kDagOps; ++i) ops[i] = b.op(kDagOpNames[i]);
    if (ops[0] != NodeId(kDagVars) || ops[3] != NodeId(kFirstDagCall - 1)) ++mismatches;
    std::vector<const std::pair<const DagKey, NodeId>*> made;  // distinct keys, in order
    calls.reserve(kDagNodes);
    made.reserve(kDagNodes);
    distinct.reserve(kDagNodes);
    while (g.size() < kDagNodes) {
      ++requests;
      const std::uint32_t before = g.size();
      if (!made.empty() && rng() % 2 == 0) {
        const auto& [key, expected] = *made[pick(made.size())];
        auto [op, a, b2] = key;
        NodeId got = b.call(NodeId(op), {NodeId(a), NodeId(b2)});
        if (got != expected || g.size() != before) ++mismatches;
        ++repeated_requests;
        continue;
      }
      NodeId op = ops[pick(kDagOps)];
      NodeId a = values[pick(values.size())];
      NodeId b2 = values[pick(values.size())];
      NodeId got = b.call(op, {a, b2});
      auto [slot, inserted] = distinct.try_emplace(DagKey{op.value, a.value, b2.value}, got);
      if (inserted) {
        // A key never requested before: a new node, appended at the end.
        if (got != NodeId(before) || g.size() != before + 1) ++mismatches;
        values.push_back(got);
        calls.push_back({op, a, b2});
        made.push_back(&*slot);
      } else {
        ++accidental_repeats;
        if (got != slot->second || g.size() != before) ++mismatches;
      }
    }
    root = values.back();
  }

  [[nodiscard]] bool is_call(NodeId id) const { return id.index() >= kFirstDagCall; }
  [[nodiscard]] const std::array<NodeId, 3>& call(NodeId id) const {
    return calls[id.index() - kFirstDagCall];
  }

  // Nodes reachable from `from`, by an explicit worklist over the test's own record.
  [[nodiscard]] std::vector<bool> reachable(NodeId from) const {
    std::vector<bool> seen(g.size(), false);
    std::vector<NodeId> worklist{from};
    seen[from.index()] = true;
    while (!worklist.empty()) {
      NodeId id = worklist.back();
      worklist.pop_back();
      if (!is_call(id)) continue;
      for (NodeId operand : call(id)) {
        if (!seen[operand.index()]) {
          seen[operand.index()] = true;
          worklist.push_back(operand);
        }
      }
    }
    return seen;
  }
};

}  // namespace

TEST_CASE("a chain of a million values", "[large][chain]") {
  ReferenceChain chain;
  REQUIRE(chain.misplaced == 0);
  REQUIRE(chain.g.size() == kChainCalls + 3);
  REQUIRE(chain.root == NodeId(1'000'001));
  const NodeId x(0);
  const NodeId relu_op(1);
  const NodeId neg_op(2);

  // Asking for call 500 again (negative(call 499 = %501)) returns %502 and adds nothing.
  {
    relay::Builder b(chain.g);
    CHECK(b.call(neg_op, {NodeId(501)}) == NodeId(502));
    REQUIRE(chain.g.size() == kChainCalls + 3);
  }
  const relay::Graph& g = chain.g;

  CHECK(verify(g).ok());

  // Users: every value but the root has exactly its successor as user; the relu op is used by
  // the 500,000 odd calls, the negative op by the 499,999 even ones.
  {
    UsersIndex users = UsersIndex::build(g);
    CHECK(users.user_count(relu_op) == 500'000);
    CHECK(users.user_count(neg_op) == 499'999);
    std::uint64_t wrong = 0;
    for (std::uint32_t i = 0; i <= kChainCalls; ++i) {
      NodeId value(i == 0 ? 0 : i + 2);
      NodeId next(i == 0 ? 3 : i + 3);
      auto list = users.users(value);
      bool expected = value == chain.root ? list.empty() : list.size() == 1 && list[0] == next;
      if (!expected) ++wrong;
    }
    CHECK(wrong == 0);
  }

  // Post-dominators: every value's ipdom is the next call; the root hangs under the exit.
  {
    auto tree = PostDominatorTree::build(g, std::span(&chain.root, 1));
    CHECK(tree.immediate_post_dominator(x) == NodeId(3));
    std::uint64_t wrong = 0;
    for (std::uint32_t i = 3; i < chain.root.index(); ++i) {
      if (tree.immediate_post_dominator(NodeId(i)) != NodeId(i + 1)) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK_FALSE(tree.immediate_post_dominator(chain.root).valid());
    // The last relu call is the root (call 999,999 is odd); the last negative call is %1,000,000.
    CHECK(tree.immediate_post_dominator(relu_op) == chain.root);
    CHECK(tree.immediate_post_dominator(neg_op) == NodeId(1'000'000));
    CHECK(tree.contains(x));
    CHECK(tree.contains(chain.root));
    CHECK(tree.post_dominates(chain.root, x));
    CHECK(tree.post_dominates(NodeId(500'000), NodeId(3)));
    CHECK_FALSE(tree.post_dominates(NodeId(3), NodeId(500'000)));
    CHECK_FALSE(tree.post_dominates(x, chain.root));
  }

  // Structural equality against an independently built copy (other var name, ops created on
  // first use, hence other op ids), and against a copy whose call 500,001 calls sigmoid.
  {
    relay::Graph same;
    NodeId same_root = build_chain_by_name(same, "input");
    REQUIRE(same.size() == g.size());
    CHECK(structural_equal(g, chain.root, same, same_root));
    CHECK(structural_hash(g, chain.root) == structural_hash(same, same_root));
  }
  {
    relay::Graph changed;
    NodeId changed_root = build_chain_by_name(changed, "x", kChangedCall);
    // x, relu op, negative op, calls 1..500,000: 500,003 nodes, so the sigmoid op is %500,003,
    // call 500,001 is %500,004 and everything after moves up by one.
    REQUIRE(changed.size() == g.size() + 1);
    REQUIRE(changed_root == NodeId(1'000'002));
    auto difference = first_difference(g, chain.root, changed, changed_root);
    REQUIRE(difference.has_value());
    CHECK(difference->reason == "op nn.relu vs sigmoid");
    CHECK(difference->lhs == relu_op);
    CHECK(difference->rhs == NodeId(500'003));
    // Calls 999,999 down to 500,001 (499,999 of them, each reached as operand 1 of the one
    // above), then the callee of call 500,001 (operand 0).
    const auto& path = difference->path;
    REQUIRE(path.size() == 500'000);
    CHECK(path.front().lhs == chain.root);
    CHECK(path.front().rhs == changed_root);
    CHECK(path[path.size() - 2].lhs == NodeId(kChangedCall + 2));
    CHECK(path[path.size() - 2].rhs == NodeId(kChangedCall + 3));
    CHECK(path.back().lhs == relu_op);
    CHECK(path.back().rhs == NodeId(500'003));
    CHECK(path.back().operand == 0);
    std::uint64_t wrong = 0;
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
      if (path[i].operand != 1 || path[i].lhs.index() + 1 != path[i - 1].lhs.index()) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK(structural_hash(g, chain.root) != structural_hash(changed, changed_root));
  }

  // Compaction drops nothing and keeps every id.
  {
    Compacted<relay::Dialect> result = compact(g, std::span(&chain.root, 1));
    CHECK(result.graph.size() == g.size());
    std::uint64_t moved = 0;
    for (std::uint32_t i = 0; i < g.size(); ++i) {
      if (result.old_to_new[i] != NodeId(i)) ++moved;
    }
    CHECK(moved == 0);
    CHECK(verify(result.graph).ok());
  }
}

TEST_CASE("a random DAG of a million nodes", "[large][dag]") {
  RandomDag dag;
  const ArithGraph& g = dag.g;
  // Every request returned the node the test predicted, and the graph holds exactly the vars,
  // the ops and one node per distinct key.
  REQUIRE(dag.mismatches == 0);
  REQUIRE(g.size() == kDagNodes);
  CHECK(dag.distinct.size() == kDagNodes - kFirstDagCall);
  CHECK(dag.calls.size() == dag.distinct.size());
  CHECK(g.memo().size() == kDagOps + dag.distinct.size());  // vars are fresh
  CHECK(dag.requests == dag.distinct.size() + dag.repeated_requests + dag.accidental_repeats);
  // About half of the requests were deliberate repeats.
  CHECK(dag.repeated_requests * 5 > dag.requests * 2);
  CHECK(dag.repeated_requests * 5 < dag.requests * 3);
  REQUIRE(dag.root == NodeId(kDagNodes - 1));

  CHECK(verify(g).ok());

  const std::vector<bool> live = dag.reachable(dag.root);
  std::uint32_t live_count = 0;
  for (bool is_live : live) live_count += is_live ? 1 : 0;
  CHECK(reachable_from(g, std::span(&dag.root, 1)) == live);
  // Some nodes are dead and some alive, or the compaction check below would prove little.
  CHECK(live_count > kFirstDagCall);
  CHECK(live_count < kDagNodes);

  // The test's own live users: each live call counts as one user of each distinct operand.
  std::vector<std::uint32_t> user_count(g.size(), 0);
  std::vector<NodeId> some_user(g.size());
  for (std::uint32_t i = kFirstDagCall; i < g.size(); ++i) {
    if (!live[i]) continue;
    const auto& [op, a, b] = dag.call(NodeId(i));
    // add(%a, %a) uses %a once; the op node is never an argument.
    ++user_count[op.index()];
    some_user[op.index()] = NodeId(i);
    ++user_count[a.index()];
    some_user[a.index()] = NodeId(i);
    if (b != a) {
      ++user_count[b.index()];
      some_user[b.index()] = NodeId(i);
    }
  }
  {
    UsersIndex users = UsersIndex::build(g, &live);
    std::uint64_t wrong = 0;
    for (std::uint32_t i = 0; i < g.size(); ++i) {
      if (users.user_count(NodeId(i)) != user_count[i]) ++wrong;
    }
    CHECK(wrong == 0);
  }

  // Post-dominators: a live node with a single live user is immediately post-dominated by it;
  // any live node is post-dominated by the root and has a later ipdom; dead nodes are absent.
  {
    auto tree = PostDominatorTree::build(g, std::span(&dag.root, 1));
    CHECK_FALSE(tree.immediate_post_dominator(dag.root).valid());
    std::uint64_t single_user_nodes = 0;
    std::uint64_t wrong = 0;
    for (std::uint32_t i = 0; i < g.size(); ++i) {
      NodeId id(i);
      if (!live[i]) {
        if (tree.contains(id)) ++wrong;
        continue;
      }
      if (!tree.contains(id) || !tree.post_dominates(dag.root, id)) ++wrong;
      if (id == dag.root) continue;
      NodeId parent = tree.immediate_post_dominator(id);
      if (!parent.valid() || parent.index() <= i || !tree.post_dominates(parent, id)) ++wrong;
      if (user_count[i] == 1) {
        ++single_user_nodes;
        if (parent != some_user[i]) ++wrong;
      }
    }
    CHECK(wrong == 0);
    CHECK(single_user_nodes > 1000);
  }

  // Structural equality against a second copy built the same way.
  {
    RandomDag copy;
    REQUIRE(copy.mismatches == 0);
    REQUIRE(copy.g.size() == g.size());
    REQUIRE(copy.root == dag.root);
    CHECK(structural_equal(g, dag.root, copy.g, copy.root));
    CHECK(structural_hash(g, dag.root) == structural_hash(copy.g, copy.root));

    // In the copy, the root's call with the next op instead.
    ArithBuilder b(copy.g);
    const auto& [op, a, b2] = dag.call(dag.root);
    auto op_index = [&](NodeId op_node) { return op_node.index() - kDagVars; };
    NodeId other_op(kDagVars + (op_index(op) + 1) % kDagOps);
    NodeId changed_root = b.call(other_op, {a, b2});
    auto difference = first_difference(g, dag.root, copy.g, changed_root);
    REQUIRE(difference.has_value());
    CHECK(difference->reason == fmt::format("op {} vs {}", kDagOpNames[op_index(op)],
                                            kDagOpNames[op_index(other_op)]));
    REQUIRE(difference->path.size() == 2);
    CHECK(difference->path[1].lhs == op);
    CHECK(difference->path[1].rhs == other_op);

    // One level down: the root's first argument rebuilt with the next op.
    REQUIRE(dag.is_call(a));
    const auto& [a_op, a_left, a_right] = dag.call(a);
    NodeId a_other_op(kDagVars + (op_index(a_op) + 1) % kDagOps);
    NodeId changed_a = b.call(a_other_op, {a_left, a_right});
    NodeId deeper_root = b.call(op, {changed_a, b2});
    difference = first_difference(g, dag.root, copy.g, deeper_root);
    REQUIRE(difference.has_value());
    CHECK(difference->reason == fmt::format("op {} vs {}", kDagOpNames[op_index(a_op)],
                                            kDagOpNames[op_index(a_other_op)]));
    REQUIRE(difference->path.size() == 3);
    CHECK(difference->path[1].lhs == a);
    CHECK(difference->path[1].rhs == changed_a);
    CHECK(difference->path[1].operand == 1);
    CHECK(difference->path[2].lhs == a_op);
    CHECK(difference->path[2].rhs == a_other_op);
  }

  // Compaction keeps exactly the live nodes, densely and in order.
  {
    Compacted<testing::ArithDialect> result = compact(g, std::span(&dag.root, 1));
    CHECK(result.graph.size() == live_count);
    std::uint64_t wrong = 0;
    std::uint32_t next = 0;
    for (std::uint32_t i = 0; i < g.size(); ++i) {
      NodeId expected = live[i] ? NodeId(next++) : NodeId();
      if (result.old_to_new[i] != expected) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK(verify(result.graph).ok());
    CHECK(structural_equal(g, dag.root, result.graph, result.map(dag.root)));
  }
}
