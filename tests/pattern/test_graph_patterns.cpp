// Graph patterns (pattern/graph_pattern.hpp, pattern/graph_matcher.hpp): the graph-wise cases
// of TVM Relax's tests/python/relax/test_dataflow_pattern.py ("Graph-wise Matching" through
// test_attention_fake_qkv), each module written in Relay text with the same structure (Relax's
// `call_dps_packed("extern_matmul", ...)` and friends become Relay ops: nn.dense, nn.relu,
// sigmoid, add, nn.conv2d, nn.bias_add, concatenate, split, transpose) and each expected outcome
// the one the TVM test asserts; then the squeezenet fire modules of the corpus, the search's
// bounds and the refused contexts.
#include <absl/status/statusor.h>

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "graphpat/analysis/reachability.hpp"
#include "graphpat/analysis/users.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/pattern.hpp"
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

// Relax's module `Module.main`: tir_matmul, tir_relu and tir_zeros, then a tuple.
const char* const kMain = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32], %w: Tensor[(32, 32), float32]) {
  %0 = nn.dense(%x, %w, units=None);
  %1 = nn.relu(%0);
  %2 = zeros(shape=[32], dtype="float32");
  (%1, %2)
}
)";

// Relax's `Diamond`: matmul, then relu and sigmoid of it, then their add.
const char* const kDiamond = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32], %w: Tensor[(32, 32), float32]) {
  %0 = nn.dense(%x, %w, units=None);
  %1 = nn.relu(%0);
  %2 = sigmoid(%0);
  add(%1, %2)
}
)";

// Relax's `SmallDiamond` (relu, then add of it with itself) and `SmallParallel` (two relus of
// x, then their add).
const char* const kSmallDiamond = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32]) {
  %0 = nn.relu(%x);
  add(%0, %0)
}
)";
const char* const kSmallParallel = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  add(%0, %1)
}
)";

// Relax's `CBRx2`: two conv1x1 -> bias_add -> relu branches of one input, concatenated.
const char* const kCbrX2 = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 32, 8, 8), float32], %w0: Tensor[(32, 32, 1, 1), float32], %bias0: Tensor[(32), float32], %w1: Tensor[(32, 32, 1, 1), float32], %bias1: Tensor[(32), float32], %y: Tensor[(1, 32, 8, 8), float32]) {
  %0 = nn.conv2d(%x, %w0, padding=[0, 0, 0, 0], kernel_size=[1, 1]);
  %1 = nn.bias_add(%0, %bias0);
  %2 = nn.relu(%1);
  %3 = nn.conv2d(%x, %w1, padding=[0, 0, 0, 0], kernel_size=[1, 1]);
  %4 = nn.bias_add(%3, %bias1);
  %5 = nn.relu(%4);
  %6 = (%2, %5);
  %7 = concatenate(%6, axis=1);
  add(%7, %y)
}
)";

// Relax's `DiamondInDiamond`.
const char* const kDiamondInDiamond = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(32, 32), float32], %w0: Tensor[(32, 32), float32], %w1: Tensor[(32, 32), float32]) {
  %0 = nn.dense(%x, %w0, units=None);
  %1 = nn.dense(%x, %w1, units=None);
  %2 = sigmoid(%0);
  %3 = sigmoid(%1);
  %4 = add(%0, %1);
  %5 = add(%2, %4);
  %6 = add(%3, %4);
  add(%5, %6)
}
)";

}  // namespace

TEST_CASE("graph pattern: a var used by anything, a call used by another (Relax "
          "test_simple_used_by, test_simple_call_tir_edge, test_simple_oub)",
          "[pattern][graph]") {
  Model m(kMain);
  NodeId dense = m.calls("nn.dense").at(0), relu = m.calls("nn.relu").at(0);
  {
    PatternContext ctx;
    Pattern n0 = is_var("x"), n1 = wildcard();
    ctx.used_by(n0, n1);
    std::optional<Match> found = m.first(ctx);
    REQUIRE(found);
    CHECK(found->bound(n0) == m.var("x"));
    CHECK(found->bound(n1) == dense);  // the first binding of the block
    CHECK(found->root() == m.var("x"));
  }
  for (UseKind kind : {UseKind::kUsedBy, UseKind::kOnlyUsedBy}) {
    PatternContext ctx;
    Pattern n0 = call_of("nn.dense"), n1 = call_of("nn.relu");
    if (kind == UseKind::kUsedBy) {
      ctx.used_by(n0, n1);
    } else {
      ctx.only_used_by(n0, n1);
    }
    std::optional<Match> found = m.first(ctx);
    REQUIRE(found);
    CHECK(found->bound(n0) == dense);
    CHECK(found->bound(n1) == relu);
    CHECK(m.all(ctx).size() == 1);
  }
}

TEST_CASE("graph pattern: an impossible consumer matches nothing (Relax "
          "test_counter_syntax_match)",
          "[pattern][graph]") {
  Model m(kMain);
  for (UseKind kind : {UseKind::kOnlyUsedBy, UseKind::kUsedBy}) {
    PatternContext ctx;
    Pattern n0 = call_of("nn.dense"), n1 = call_of("nn.softmax");
    if (kind == UseKind::kUsedBy) {
      ctx.used_by(n0, n1);
    } else {
      ctx.only_used_by(n0, n1);
    }
    CHECK_FALSE(m.first(ctx));
    CHECK(m.all(ctx).empty());
  }
}

TEST_CASE("graph pattern: a diamond, written with edges and with fork_to (Relax test_diamond, "
          "test_diamond_counter_oub)",
          "[pattern][graph]") {
  Model m(kDiamond);
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

TEST_CASE("graph pattern: one-to-one assignment tells a diamond from two parallel nodes (Relax "
          "test_distinguish_diamond_and_parallel)",
          "[pattern][graph]") {
  Model diamond(kSmallDiamond), parallel(kSmallParallel);
  REQUIRE(parallel.calls("nn.relu").size() == 2);  // two bindings stay two nodes
  {
    PatternContext ctx;
    Pattern fork = call_of("nn.relu"), join = call_of("add");
    ctx.only_used_by(fork, join, 0).only_used_by(fork, join, 1);
    CHECK(diamond.first(ctx));
    CHECK_FALSE(parallel.first(ctx));
  }
  {
    PatternContext ctx;
    Pattern join = call_of("add");
    ctx.only_used_by(call_of("nn.relu"), join).only_used_by(call_of("nn.relu"), join);
    std::optional<Match> found = parallel.first(ctx);
    REQUIRE(found);
    std::vector<NodeId> relus = parallel.calls("nn.relu");
    CHECK(found->bound(ctx.patterns()[0]) == relus[0]);
    CHECK(found->bound(ctx.patterns()[2]) == relus[1]);
    CHECK_FALSE(diamond.first(ctx));
    CHECK(parallel.all(ctx).size() == 1);  // the two orders are one set of nodes
  }
}

TEST_CASE("graph pattern: chains in one context and in its copies (Relax test_nested_context, "
          "test_incremental_solving, test_incremental_solving_counter)",
          "[pattern][graph]") {
  Model m(kCbrX2);
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

TEST_CASE("graph pattern: dup and fork_to find the two branches of CBRx2 (Relax test_two_cbr)",
          "[pattern][graph]") {
  Model m(kCbrX2);
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

TEST_CASE("graph pattern: has_shape on chained patterns, and a chain too long (Relax "
          "test_two_matmul, TASO's figure 2(a))",
          "[pattern][graph]") {
  Model m(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(32, 16), float32], %b: Tensor[(48, 16), float32], %c: Tensor[(32, 48), float32]) {
  %0 = nn.dense(%a, %b, units=None) /* ty=Tensor[(32, 48), float32] */;
  nn.dense(%0, %c, units=None) /* ty=Tensor[(32, 32), float32] */
}
)");
  PatternContext two;
  two.only_used_by(call_of("nn.dense"), call_of("nn.dense"));
  CHECK(m.first(two));
  PatternContext shaped;
  shaped.only_used_by(call_of("nn.dense").has_shape({32, 48}),
                      call_of("nn.dense").has_shape({32, 32}));
  CHECK(m.first(shaped));
  PatternContext swapped;
  swapped.only_used_by(call_of("nn.dense").has_shape({32, 32}),
                       call_of("nn.dense").has_shape({32, 48}));
  CHECK_FALSE(m.first(swapped));
  PatternContext three;
  three.only_used_by_chain({call_of("nn.dense"), call_of("nn.dense"), call_of("nn.dense")});
  CHECK_FALSE(m.first(three));
}

TEST_CASE("graph pattern: concat, matmul, split and the add of its two halves (Relax "
          "test_concat_mm_split, TASO's figure 2(b))",
          "[pattern][graph]") {
  Model m(R"(#[version = "0.0.5"]
def @main(%a: Tensor[(32, 32), float32], %b: Tensor[(16, 32), float32], %c: Tensor[(16, 32), float32]) {
  %0 = (%b, %c);
  %1 = concatenate(%0) /* ty=Tensor[(32, 32), float32] */;
  %2 = nn.dense(%a, %1, units=None) /* ty=Tensor[(32, 32), float32] */;
  %3 = split(%2, indices_or_sections=2) /* ty=(Tensor[(16, 32), float32], Tensor[(16, 32), float32]) */;
  %4 = %3.0 /* ty=Tensor[(16, 32), float32] */;
  %5 = %3.1 /* ty=Tensor[(16, 32), float32] */;
  add(%4, %5) /* ty=Tensor[(16, 32), float32] */
}
)");
  {
    PatternContext ctx;
    ctx.only_used_by_chain({call_of("concatenate"), call_of("nn.dense"), call_of("split")});
    CHECK(m.first(ctx));
  }
  {
    PatternContext ctx;
    Pattern split = call_of("split");
    Pattern lv3 = is_tuple_get_item(split, 0).has_shape({16, 32});
    Pattern lv4 = is_tuple_get_item(split, 1).has_shape({16, 32});
    ctx.fork_to(split, {lv3, lv4});
    Pattern add = is_op("add")(lv3, lv4);
    ctx.only_used_by(lv3, add).only_used_by(lv4, add);
    std::optional<Match> found = m.first(ctx);
    REQUIRE(found);
    CHECK(found->bound(add) == m.calls("add").at(0));
    CHECK(found->bound(split) == m.calls("split").at(0));
  }
}

TEST_CASE("graph pattern: three fc -> transpose branches of one input (Relax "
          "test_self_attention)",
          "[pattern][graph]") {
  Model m(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4, 16), float32], %wq: Tensor[(16, 16), float32], %wk: Tensor[(16, 16), float32], %wv: Tensor[(16, 16), float32]) {
  %0 = nn.dense(%x, %wq, units=None);
  %1 = transpose(%0, axes=[1, 0]);
  %2 = nn.dense(%x, %wk, units=None);
  %3 = transpose(%2, axes=[1, 0]);
  %4 = multiply(%1, %3);
  %5 = multiply(%4, 1.1f);
  %6 = nn.softmax(%5);
  %7 = nn.dense(%x, %wv, units=None);
  %8 = transpose(%7, axes=[1, 0]);
  multiply(%6, %8)
}
)");
  PatternContext ctx;
  std::vector<Pattern> q = {call_of("nn.dense"), call_of("transpose")};
  ctx.only_used_by_chain(q);
  std::vector<Pattern> k = ctx.dup(q), v = ctx.dup(q);
  ctx.fork_to(is_var("x"), {q[0], k[0], v[0]});
  std::optional<Match> found = m.first(ctx);
  REQUIRE(found);
  std::vector<NodeId> denses = m.calls("nn.dense"), transposes = m.calls("transpose");
  CHECK(found->bound(q[0]) == denses[0]);
  CHECK(found->bound(k[0]) == denses[1]);
  CHECK(found->bound(v[0]) == denses[2]);
  CHECK(found->bound(v[1]) == transposes[2]);
  CHECK(m.all(ctx).size() == 1);
}

TEST_CASE("graph pattern: the diamonds inside a diamond (Relax test_nested_diamond)",
          "[pattern][graph]") {
  Model m(kDiamondInDiamond);
  {
    PatternContext ctx;  // the matmul0 diamond
    Pattern sigmoid2 = call_of("sigmoid"), add4 = call_of("add"), add5 = call_of("add");
    ctx.fork_to(call_of("nn.dense"), {sigmoid2, add4}).only_used_by(sigmoid2, add5).used_by(add4,
                                                                                         add5);
    std::optional<Match> found = m.first(ctx);
    REQUIRE(found);
    std::vector<NodeId> adds = m.calls("add");
    CHECK(found->bound(add4) == adds[0]);
    CHECK(found->bound(add5) == adds[1]);
    CHECK(m.all(ctx).size() == 2);  // and the matmul1 one
  }
  {
    PatternContext ctx;  // add4 is used by add5 and add6: not "only used by"
    Pattern sigmoid2 = call_of("sigmoid"), add4 = call_of("add"), add5 = call_of("add");
    ctx.fork_to(call_of("nn.dense"), {sigmoid2, add4})
        .only_used_by(sigmoid2, add5)
        .only_used_by(add4, add5);
    CHECK_FALSE(m.first(ctx));
  }
  {
    PatternContext ctx;  // add 4, 5, 6, 7
    Pattern add5 = call_of("add"), add6 = call_of("add"), add7 = call_of("add");
    ctx.fork_to(call_of("add"), {add5, add6}).only_used_by(add5, add7).only_used_by(add6, add7);
    std::optional<Match> found = m.first(ctx);
    REQUIRE(found);
    std::vector<NodeId> adds = m.calls("add");
    CHECK(found->bound(ctx.patterns()[0]) == adds[0]);
    CHECK(found->bound(add7) == adds[3]);
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

  Model qkv(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1024, 640), float32], %w0: Tensor[(640, 640), float32], %w1: Tensor[(640, 640), float32], %w2: Tensor[(640, 640), float32]) {
  %0 = nn.dense(%x, %w0, units=None);
  %1 = nn.dense(%x, %w1, units=None);
  %2 = nn.dense(%x, %w2, units=None);
  (%0, %1, %2)
}
)");
  Model fake(R"(#[version = "0.0.5"]
def @main(%x1: Tensor[(1024, 640), float32], %x2: Tensor[(1024, 640), float32], %w0: Tensor[(640, 640), float32], %w1: Tensor[(640, 640), float32], %w2: Tensor[(640, 640), float32]) {
  %0 = nn.dense(%x1, %w0, units=None);
  %1 = nn.dense(%x2, %w1, units=None);
  %2 = nn.dense(%x2, %w2, units=None);
  (%0, %1, %2)
}
)");
  Model twice(R"(#[version = "0.0.5"]
def @main(%x1: Tensor[(1024, 640), float32], %x2: Tensor[(1024, 640), float32], %w0: Tensor[(640, 640), float32], %w1: Tensor[(640, 640), float32], %w2: Tensor[(640, 640), float32], %w3: Tensor[(640, 640), float32], %w4: Tensor[(640, 640), float32], %w5: Tensor[(640, 640), float32]) {
  %0 = nn.dense(%x1, %w0, units=None);
  %1 = nn.dense(%x1, %w1, units=None);
  %2 = nn.dense(%x1, %w2, units=None);
  %3 = nn.dense(%x2, %w3, units=None);
  %4 = nn.dense(%x2, %w4, units=None);
  %5 = nn.dense(%x2, %w5, units=None);
  (%0, %1, %2, %3, %4, %5)
}
)");
  for (const PatternContext* ctx : {&relax_block, &roots}) {
    std::optional<Match> found = qkv.first(*ctx);
    REQUIRE(found);
    CHECK(found->bound(inp) == qkv.var("x"));
    CHECK(found->bound(wq) == qkv.var("w0"));
    CHECK(found->bound(wk) == qkv.var("w1"));
    CHECK(found->bound(wv) == qkv.var("w2"));
    CHECK(qkv.all(*ctx).size() == 1);  // 3! assignments, one set of nodes

    CHECK_FALSE(fake.first(*ctx));

    std::vector<Match> both = twice.all(*ctx);
    REQUIRE(both.size() == 2);
    CHECK(both[0].bound(inp) == twice.var("x1"));
    CHECK(both[1].bound(inp) == twice.var("x2"));
    CHECK(both[1].bound(wq) == twice.var("w3"));
    CHECK(both[1].bound(wv) == twice.var("w5"));
  }
}

TEST_CASE("graph pattern: same_shape and ExternUse::kMustNot", "[pattern][graph]") {
  Model m(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(8, 16), float32], %w0: Tensor[(32, 16), float32], %w1: Tensor[(32, 16), float32], %w2: Tensor[(4, 16), float32]) {
  %0 = nn.dense(%x, %w0, units=None) /* ty=Tensor[(8, 32), float32] */;
  %1 = nn.dense(%x, %w1, units=None) /* ty=Tensor[(8, 32), float32] */;
  %2 = nn.dense(%x, %w2, units=None) /* ty=Tensor[(8, 4), float32] */;
  %3 = nn.relu(%0) /* ty=Tensor[(8, 32), float32] */;
  (%3, %0, %1, %2)
}
)");
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

TEST_CASE("graph pattern: contexts that cannot be matched are refused", "[pattern][graph]") {
  Model m(kMain);
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
