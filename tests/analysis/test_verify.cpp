// verify() (analysis/verify.hpp): it accepts every graph built through a Builder, and rejects
// each broken invariant of a corrupt graph built with GraphSurgery with its own error.
//
// Every expected value below is derived by hand from the graph the test builds. Ids are
// assigned in creation order, and an op node is created the first time an op is called, so
// each test first pins the ids it relies on with REQUIREs and then reasons from them.
#include <cstdint>
#include <span>

#include <catch2/catch.hpp>
#include <absl/status/status.h>
#include <graphpat/analysis/compact.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/analysis_samples.hpp"
#include "support/graph_surgery.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using graphpat::testing::build_sample;
using graphpat::testing::message;

namespace {

constexpr std::uint32_t kNone = Id<void>::kNone;

}  // namespace

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
