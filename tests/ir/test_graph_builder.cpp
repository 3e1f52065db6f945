// Graph and Builder: every node kind and its accessors, hash-consing (duplicates collapse;
// fresh requests, stateful ops and vars do not), copies between graphs, modules, and the same
// templates instantiated with a second dialect.
#include <catch2/catch.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/ir.hpp>
#include <graphpat/relay/dialect.hpp>
#include <vector>

#include "support/arith_dialect.hpp"

using namespace graphpat;

TEST_CASE("every node kind is built and read back", "[graph]") {
  relay::Graph graph;
  relay::Builder b(graph);
  Context& ctx = graph.context();
  TypeId f32 = ctx.types.tensor("float32", {ctx.types.dim(1), ctx.types.dim(8)});

  NodeId x = b.var("x", f32, {.type = f32});
  CHECK(graph.kind(x) == NodeKind::kVar);
  CHECK(graph.name(x) == "x");
  CHECK(graph.annotation(x) == f32);
  CHECK(graph.type(x) == f32);
  CHECK(graph.operands(x).empty());

  TensorId tensor = ctx.tensors.add({ctx.strings.intern("float32"), {}, {}});
  NodeId c = b.constant(tensor);
  CHECK(graph.kind(c) == NodeKind::kConstant);
  CHECK(graph.tensor_id(c) == tensor);
  CHECK(ctx.strings.view(graph.tensor(c).dtype) == "float32");

  NodeId relu_op = b.op("nn.relu");
  CHECK(graph.kind(relu_op) == NodeKind::kOp);
  CHECK(ctx.op_name(graph.op(relu_op)) == "nn.relu");

  AttrValueId softmax_attrs =
      ctx.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ctx.attrs.integer(1)}});
  TypeId type_args = ctx.types.tuple({f32});
  NodeId call =
      b.call("nn.softmax", {x}, {.attrs = softmax_attrs, .type_args = type_args, .type = f32});
  CHECK(graph.kind(call) == NodeKind::kCall);
  CHECK(ctx.op_name(graph.called_op(call)) == "nn.softmax");
  CHECK(graph.args(call).size() == 1);
  CHECK(graph.args(call)[0] == x);
  CHECK(graph.attrs(call) == softmax_attrs);
  CHECK(graph.type_args(call) == type_args);
  CHECK(graph.type(call) == f32);
  CHECK(graph.kind(graph.callee(call)) == NodeKind::kOp);

  NodeId tuple = b.tuple({call, c});
  CHECK(graph.kind(tuple) == NodeKind::kTuple);
  CHECK(std::vector(graph.fields(tuple).begin(), graph.fields(tuple).end()) ==
        std::vector{call, c});
  NodeId item = b.tuple_get_item(tuple, 1);
  CHECK(graph.kind(item) == NodeKind::kTupleGetItem);
  CHECK(graph.tuple(item) == tuple);
  CHECK(graph.index(item) == 1);

  NodeId y = b.var("y");
  NodeId let = b.let(y, call, b.call("add", {y, c}));
  CHECK(graph.kind(let) == NodeKind::kLet);
  CHECK(graph.let_var(let) == y);
  CHECK(graph.let_value(let) == call);
  CHECK(graph.kind(graph.body(let)) == NodeKind::kCall);

  NodeId cond = b.var("cond", ctx.types.tensor("bool", {}));
  NodeId branch = b.if_then_else(cond, call, x);
  CHECK(graph.kind(branch) == NodeKind::kIf);
  CHECK(graph.condition(branch) == cond);
  CHECK(graph.then_branch(branch) == call);
  CHECK(graph.else_branch(branch) == x);

  AttrValueId fn_attrs = ctx.attrs.object("DictAttrs", {{"Primitive", ctx.attrs.integer(1)}});
  NodeId fn = b.function({x, y, cond}, branch, {.attrs = fn_attrs, .result_type = f32});
  CHECK(graph.kind(fn) == NodeKind::kFunction);
  CHECK(std::vector(graph.params(fn).begin(), graph.params(fn).end()) == std::vector{x, y, cond});
  CHECK(graph.body(fn) == branch);
  CHECK(graph.attrs(fn) == fn_attrs);
  CHECK(graph.result_type(fn) == f32);
  CHECK_FALSE(graph.type_params(fn).valid());

  NodeId global = b.global_var("helper");
  CHECK(graph.kind(global) == NodeKind::kGlobalVar);
  CHECK(graph.name(global) == "helper");
  NodeId global_call = b.call(global, {x});
  CHECK_FALSE(graph.called_op(global_call).valid());

  // Operands always precede their users: ids are a topological order.
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    for (NodeId operand : graph.operands(NodeId(i))) CHECK(operand.index() < i);
  }
  CHECK(verify(graph).ok());
}

TEST_CASE("pure nodes are hash-consed", "[builder]") {
  relay::Graph graph;
  relay::Builder b(graph);
  NodeId x = b.var("x");
  NodeId w = b.var("w");
  NodeId conv = b.call("nn.conv2d", {x, w});
  std::uint32_t size = graph.size();
  CHECK(b.call("nn.conv2d", {x, w}) == conv);
  CHECK(b.op("nn.conv2d") == graph.callee(conv));
  CHECK(b.call("nn.conv2d", {w, x}) != conv);  // operand order matters
  CHECK(graph.size() == size + 1);
  // Attributes and types are part of the identity.
  Context& ctx = graph.context();
  AttrValueId strided = ctx.attrs.object(
      "relay.attrs.Conv2DAttrs",
      {{"strides", ctx.attrs.array({ctx.attrs.integer(2), ctx.attrs.integer(2)})}});
  NodeId conv_strided = b.call("nn.conv2d", {x, w}, {.attrs = strided});
  CHECK(conv_strided != conv);
  CHECK(b.call("nn.conv2d", {x, w}, {.attrs = strided}) == conv_strided);
  TypeId f32 = ctx.types.tensor("float32", {});
  NodeId typed = b.call("nn.conv2d", {x, w}, {.type = f32});
  CHECK(typed != conv);
  CHECK(b.call("nn.conv2d", {x, w}, {.type = f32}) == typed);
  // Spans are not: the first node keeps its span.
  SpanId span = ctx.spans.intern({ctx.strings.intern("Conv_0"), 0, 0, 0, 0});
  CHECK(b.call("nn.conv2d", {x, w}, {.span = span}) == conv);
  CHECK_FALSE(graph.span(conv).valid());
  // Every other kind too.
  NodeId pair = b.tuple({x, w});
  CHECK(b.tuple({x, w}) == pair);
  CHECK(b.tuple_get_item(pair, 0) == b.tuple_get_item(pair, 0));
  CHECK(b.tuple_get_item(pair, 0) != b.tuple_get_item(pair, 1));
  CHECK(b.global_var("f") == b.global_var("f"));
  NodeId fn = b.function({x, w}, conv);
  CHECK(b.function({x, w}, conv) == fn);
  TensorId tensor = ctx.tensors.add({ctx.strings.intern("int32"), {}, {}});
  CHECK(b.constant(tensor) == b.constant(tensor));
  CHECK(verify(graph).ok());
}

TEST_CASE("vars, fresh requests and stateful calls are never merged", "[builder]") {
  relay::Graph graph;
  relay::Builder b(graph);
  NodeId x1 = b.var("x");
  NodeId x2 = b.var("x");
  CHECK(x1 != x2);
  CHECK(graph.is_fresh(x1));

  // The origin case: two distinct `%20.0` on one batch_norm, as TVM's importer emits them.
  NodeId bn = b.call("nn.batch_norm", {x1, b.var("g"), b.var("b"), b.var("m"), b.var("v")});
  NodeId first = b.tuple_get_item(bn, 0);
  NodeId second = b.tuple_get_item(bn, 0, {.fresh = true});
  CHECK(first != second);
  CHECK(graph.is_fresh(second));
  CHECK_FALSE(graph.is_fresh(first));
  // A later ordinary request finds the table's node, never the fresh one.
  CHECK(b.tuple_get_item(bn, 0) == first);

  // nn.dropout is stateful: each call is its own node, without asking.
  NodeId drop1 = b.call("nn.dropout", {x1});
  NodeId drop2 = b.call("nn.dropout", {x1});
  CHECK(drop1 != drop2);
  CHECK(graph.is_fresh(drop1));
  CHECK(verify(graph).ok());
}

TEST_CASE("copy re-creates nodes in another graph of the same context", "[builder]") {
  relay::Graph source;
  relay::Builder b(source);
  NodeId x = b.var("x");
  NodeId bn = b.call("nn.batch_norm", {x, x, x, x, x});
  NodeId first = b.tuple_get_item(bn, 0);
  NodeId second = b.tuple_get_item(bn, 0, {.fresh = true});

  relay::Graph target(source.shared_context());
  relay::Builder copier(target);
  std::vector<NodeId> map(source.size());
  for (std::uint32_t i = 0; i < source.size(); ++i) {
    std::vector<NodeId> operands;
    for (NodeId operand : source.operands(NodeId(i))) operands.push_back(map[operand.index()]);
    map[i] = copier.copy(source, NodeId(i), operands);
  }
  // kAsSource keeps the deliberate duplicate...
  CHECK(map[first.index()] != map[second.index()]);
  CHECK(target.size() == source.size());
  // ...kHashCons merges it into the table's node, as CSE wants.
  std::vector<NodeId> operands{map[bn.index()]};
  CHECK(copier.copy(source, second, operands, Sharing::kHashCons) == map[first.index()]);
  // Vars stay fresh whatever is asked.
  CHECK(copier.copy(source, x, {}, Sharing::kHashCons) != map[x.index()]);
  // kHashConsIfNew keeps an equal node apart, out of the table...
  std::uint32_t size_before = target.size();
  NodeId apart = copier.copy(source, second, operands, Sharing::kHashConsIfNew);
  CHECK(apart.index() == size_before);
  CHECK(target.is_fresh(apart));
  CHECK(target.find_existing({NodeKind::kTupleGetItem, target.node(apart).payload, TypeId(),
                              operands}) == map[first.index()]);
  // ...and joins the table when no equal node is there.
  NodeId other_item = b.tuple_get_item(bn, 1, {.fresh = true});
  NodeId joined = copier.copy(source, other_item, operands, Sharing::kHashConsIfNew);
  CHECK_FALSE(target.is_fresh(joined));
  CHECK(copier.copy(source, other_item, operands, Sharing::kHashCons) == joined);
  CHECK(verify(target).ok());
}

TEST_CASE("copy_mapped re-creates a node with its operands renumbered", "[builder]") {
  relay::Graph source;
  relay::Builder b(source);
  NodeId x = b.var("x");
  NodeId y = b.var("y");
  NodeId sum = b.call("add", {x, y});                       // in the table
  NodeId relu = b.call("nn.relu", {sum}, {.fresh = true});  // a deliberate duplicate's kind

  relay::Graph target(source.shared_context());
  relay::Builder copier(target);
  NodeId pad = copier.var("pad");  // every copy lands one id later than its source
  std::vector<NodeId> map(source.size());
  for (std::uint32_t i = 0; i < source.size(); ++i) {
    map[i] = copier.copy_mapped(source, NodeId(i), map);
    CHECK(map[i].index() == i + 1);
  }
  CHECK(pad.index() == 0);
  for (NodeId node : {x, y, sum, relu}) {
    const Node& copied = target.node(map[node.index()]);
    CHECK(copied.kind == source.node(node).kind);
    CHECK(copied.payload == source.node(node).payload);
    CHECK(copied.type == source.node(node).type);
    CHECK(target.is_fresh(map[node.index()]) == source.is_fresh(node));
    std::vector<NodeId> expected;
    for (NodeId operand : source.operands(node)) expected.push_back(map[operand.index()]);
    auto operands = target.operands(map[node.index()]);
    CHECK(std::vector<NodeId>(operands.begin(), operands.end()) == expected);
  }
  CHECK(target.name(map[x.index()]) == "x");
  // As copy() with kAsSource: a table node is found again, a fresh one is made anew.
  CHECK(copier.copy_mapped(source, sum, map) == map[sum.index()]);
  NodeId again = copier.copy_mapped(source, relu, map);
  CHECK(again.index() == source.size() + 1);
  // The graph itself as the source: its own operand array may move while the copy is made.
  std::vector<NodeId> identity(target.size());
  for (std::uint32_t i = 0; i < target.size(); ++i) identity[i] = NodeId(i);
  NodeId self = copier.copy_mapped(target, again, identity);
  CHECK(self.index() == source.size() + 2);
  CHECK(std::vector<NodeId>(target.operands(self).begin(), target.operands(self).end()) ==
        std::vector<NodeId>{map[source.operands(relu)[0].index()], map[sum.index()]});
  CHECK(verify(target).ok());
}

TEST_CASE("operand lists taken from the same graph survive its growth", "[builder]") {
  relay::Graph graph;
  relay::Builder b(graph);
  std::vector<NodeId> vars;
  for (int i = 0; i < 8; ++i) vars.push_back(b.var("v"));
  NodeId wide = b.tuple(vars);
  // The fields span points into the graph's operand array, which this call grows.
  for (int i = 0; i < 100; ++i) {
    NodeId copy = b.tuple(graph.fields(wide), {.fresh = true});
    REQUIRE(std::vector(graph.fields(copy).begin(), graph.fields(copy).end()) == vars);
  }
}

TEST_CASE("a graph copy is independent and keeps its table", "[graph]") {
  relay::Graph graph;
  relay::Builder b(graph);
  NodeId x = b.var("x");
  NodeId relu = b.call("nn.relu", {x});
  relay::Graph copy = graph;
  relay::Builder copy_builder(copy);
  CHECK(copy_builder.call("nn.relu", {x}) == relu);
  copy_builder.call("sigmoid", {x});
  CHECK(copy.size() == graph.size() + 2);  // the sigmoid op node and its call
  CHECK(&copy.context() == &graph.context());
  relay::Graph moved = std::move(copy);
  relay::Builder moved_builder(moved);
  CHECK(moved_builder.call("nn.relu", {x}) == relu);
  CHECK(verify(moved).ok());
}

TEST_CASE("modules map names to functions in insertion order", "[module]") {
  relay::Module module;
  relay::Builder b(module.graph);
  NodeId x = b.var("x");
  NodeId main = b.function({x}, b.call(b.global_var("helper"), {x}));
  NodeId y = b.var("y");
  NodeId helper = b.function({y}, b.call("nn.relu", {y}));
  module.add_function("main", main);
  module.add_function("helper", helper);
  REQUIRE(module.functions().size() == 2);
  CHECK(module.name(module.functions()[0]) == "main");
  CHECK(module.name(module.functions()[1]) == "helper");
  CHECK(module.find("helper") == helper);
  CHECK_FALSE(module.find("missing").has_value());
  CHECK(module.roots() == std::vector{main, helper});
  NodeId z = b.var("z");
  NodeId replacement = b.function({z}, z);
  module.add_function("main", replacement);  // replaces in place
  CHECK(module.name(module.functions()[0]) == "main");
  CHECK(module.find("main") == replacement);
  CHECK(module.functions().size() == 2);
  CHECK(verify(module).ok());
}

TEST_CASE("the same templates work for a second dialect", "[dialect]") {
  testing::ArithGraph graph;
  testing::ArithBuilder b(graph);
  CHECK(graph.context().dialect_name() == "arith");
  NodeId a = b.var("a");
  NodeId c = b.var("c");
  NodeId sum = b.call("add", {a, c});
  CHECK(b.call("add", {a, c}) == sum);
  CHECK(b.call("rand", {}) != b.call("rand", {}));  // stateful
  NodeId product = b.call("mul", {sum, sum});
  CHECK(graph.args(product)[0] == sum);
  // An op the dialect does not know is made on purpose, as opaque.
  CHECK_FALSE(graph.context().ops.find("pow").valid());
  NodeId pow = b.call(b.opaque_op("pow"), {a, c});
  CHECK_FALSE(graph.context().ops.info(graph.called_op(pow)).known);
  CHECK(b.opaque_op("pow") == graph.callee(pow));  // then it is registered, as opaque
  CHECK(b.op("pow") == graph.callee(pow));
  CHECK(b.opaque_op("mul") == graph.callee(product));  // a registered op stays what it is
  CHECK(graph.context().ops.info(graph.called_op(product)).known);
  CHECK(verify(graph).ok());
}
