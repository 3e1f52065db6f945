// Test support for tests/analysis: the small hand-checked graphs that several analysis tests
// build (a Relay sample function, an Arith sample with a dead division), and the helpers their
// checks compare node-id lists with.
//
//   relay::Graph g;
//   relay::Builder b(g);
//   NodeId fn = graphpat::testing::build_sample(b, "x", "w");  // params %0 and %1, body %10
//   CHECK(as_vector(g.operands(fn)) == ids({0, 1, 10}));
#pragma once

#include <cstdint>
#include <graphpat/ir.hpp>
#include <graphpat/relay/dialect.hpp>
#include <initializer_list>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "support/arith_dialect.hpp"

namespace graphpat::testing {

inline std::vector<NodeId> as_vector(std::span<const NodeId> ids) {
  return {ids.begin(), ids.end()};
}

inline std::vector<NodeId> ids(std::initializer_list<std::uint32_t> raw) {
  std::vector<NodeId> result;
  for (std::uint32_t value : raw) result.push_back(NodeId(value));
  return result;
}

inline TensorBytes bytes_of(std::vector<std::uint8_t> bytes) {
  return share_bytes(std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes)));
}

// fn (%<a>: Tensor[(1, 8), float32], %<b>: Tensor[(1, 8), float32]) {
//   %0 = add(%a, %b);
//   %1 = nn.softmax(%0, axis=1);
//   %2 = (%1, %b, meta[Constant][0] /* float32[2], bytes 0..7 */);
//   nn.relu(%2.0)
// }
inline NodeId build_sample(relay::Builder& b, std::string_view a_name, std::string_view b_name) {
  Context& ctx = b.context();
  TypeId t = ctx.types.tensor("float32", {ctx.types.dim(1), ctx.types.dim(8)});
  NodeId a = b.var(a_name, t);
  NodeId bb = b.var(b_name, t);
  NodeId sum = b.call("add", {a, bb});
  AttrValueId axis1 =
      ctx.attrs.object("relay.attrs.SoftmaxAttrs", {{"axis", ctx.attrs.integer(1)}});
  NodeId soft = b.call("nn.softmax", {sum}, {.attrs = axis1});
  TensorId tensor =
      ctx.tensors.add({ctx.strings.intern("float32"), {2}, bytes_of({0, 1, 2, 3, 4, 5, 6, 7})});
  NodeId c = b.constant(tensor);
  NodeId tup = b.tuple({soft, bb, c});
  NodeId item = b.tuple_get_item(tup, 0);
  NodeId body = b.call("nn.relu", {item});
  return b.function({a, bb}, body);
}

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

}  // namespace graphpat::testing
