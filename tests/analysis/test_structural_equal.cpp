// structural_equal, first_difference and structural_hash (analysis/structural_equal.hpp) on
// small hand-checked graphs and modules, in the Relay dialect and in the test-only Arith
// dialect (with verify() and compact of the same Arith graphs).
//
// Every expected value below is derived by hand from the graph the test builds. Ids are
// assigned in creation order, and an op node is created the first time an op is called, so
// each test first pins the ids it relies on with REQUIREs and then reasons from them.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <graphpat/analysis/compact.hpp>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/relay/dialect.hpp>

#include "support/analysis_samples.hpp"
#include "support/arith_dialect.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using graphpat::testing::ArithBuilder;
using graphpat::testing::ArithGraph;
using graphpat::testing::ArithSample;
using graphpat::testing::build_sample;
using graphpat::testing::bytes_of;

namespace {

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

}  // namespace

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
// The Arith dialect
// ---------------------------------------------------------------------------------------------

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
