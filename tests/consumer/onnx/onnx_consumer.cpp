// Built against an installed graphpat with find_package(graphpat COMPONENTS onnx) by
// scripts/run_consumer_test.sh: an ONNX module, and libonnx's registry behind its dialect.
#include <fmt/format.h>

#include <graphpat/onnx/dialect.hpp>

int main() {
  graphpat::onnx::Module module;
  graphpat::onnx::Builder b(module.graph);
  auto x = b.var("x");
  auto y = b.call("Relu", {b.call("Add", {x, x})});
  module.add_function("main", b.function({x}, y));
  graphpat::Context& context = module.graph.context();
  const graphpat::OpInfo& add = context.ops.info(context.op("Add"));
  const graphpat::OpInfo& fused = context.ops.info(context.op("com.microsoft.FusedConv"));
  bool ok = add.known && add.commutative && !fused.known &&
            context.ops.find("ai.onnx.ml.LinearClassifier").valid();
  fmt::print("onnx consumer: {}\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
