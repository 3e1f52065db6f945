// Built against an *installed* graphpat by scripts/run_consumer_test.sh: the usage example of
// README.md, so the example is known to compile and run from a find_package() consumer.
#include <cassert>
#include <graphpat/graphpat.hpp>

int main() {
  graphpat::relay::Module module;  // Relay dialect: TVM's 288 ops
  graphpat::relay::Builder b(module.graph);
  auto x = b.var("x"), w = b.var("w"), bias = b.var("b");
  auto conv = b.call("nn.conv2d", {x, w});
  auto out = b.call("nn.relu", {b.call("nn.bias_add", {conv, bias})});
  if (b.call("nn.conv2d", {x, w}) != conv) return 1;  // hash-consed: one node
  module.add_function("main", b.function({x, w, bias}, out));
  if (!graphpat::verify(module).ok()) return 1;
  fmt::print("{} nodes\n", module.graph.size());
  return module.graph.size() == 10 ? 0 : 1;
}
