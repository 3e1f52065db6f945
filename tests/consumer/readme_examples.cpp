// Built against an *installed* graphpat by scripts/run_consumer_test.sh: every C++ example of
// README.md, as written there (tests/consumer/check_readme.py checks that each README block
// stands here, or in benchmarks/passes.cpp, line for line), each wrapped in a function that
// gives it the variables it names. Run with the path of examples/models/
// mobilenet_v2_mxnet_style.relay; it checks the origin case's figures the README states.
#include <fmt/format.h>

#include <cassert>
#include <fstream>
#include <graphpat/cse.hpp>
#include <graphpat/graphpat.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/rewrite.hpp>
#include <sstream>
#include <string>

namespace {

// README: the first example.
bool build_conv_bias_relu() {
  graphpat::relay::Module module;                       // Relay dialect: TVM's 288 ops
  graphpat::relay::Builder b(module.graph);
  auto x = b.var("x"), w = b.var("w"), bias = b.var("b");
  auto conv = b.call("nn.conv2d", {x, w});
  auto out = b.call("nn.relu", {b.call("nn.bias_add", {conv, bias})});
  assert(b.call("nn.conv2d", {x, w}) == conv);          // hash-consed: one node
  module.add_function("main", b.function({x, w, bias}, out));
  assert(graphpat::verify(module).ok());
  return b.call("nn.conv2d", {x, w}) == conv && graphpat::verify(module).ok();
}

// README: the origin case, every batch norm outlined.
bool partition_batch_norms(const std::string& mobilenet_v2_text) {
  auto module = graphpat::relay::parse_text(mobilenet_v2_text);   // TVM's Relay text
  auto pattern = graphpat::parse_pattern(
      "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), wildcard()), 0)");
  auto result = graphpat::partition(*pattern, *module, {.attrs = {{"Composite", "bn"}}});
  fmt::print("{} groups, {} rejected\n", result.report.accepted, result.report.rejected.size());
  return result.report.accepted == 53 && result.report.rejected.empty();
}

// README: reading a TVM model, merging its duplicates and writing it back.
absl::StatusOr<std::string> merge_duplicates(const std::string& text) {
  absl::StatusOr<graphpat::relay::Module> module = graphpat::relay::parse_text(text);
  if (!module.ok()) return module.status();  // [graphpat.relay_text.unexpected_token] 12:7: ...
  auto merged = graphpat::eliminate_common_subexpr(*module);
  fmt::print("{} nodes merged\n", merged.report.merged);
  absl::StatusOr<std::string> out = graphpat::relay::print_text(merged.module);
  return out;
}

// README: rewriting every function of a module (the model's one global pooling).
bool legalize_global_pool(const std::string& text) {
  auto module = graphpat::relay::parse_text(text);
  if (!module.ok()) return false;
  using namespace graphpat::dsl;
  graphpat::Pattern input = wildcard();
  std::vector<graphpat::RewriteCallback<graphpat::relay::Dialect>> callbacks = {
      {.name = "global_pool_as_7x7",
       .pattern = is_op("nn.global_avg_pool2d")(input),
       .rewrite = [input](auto, auto post, const auto& bound, auto& rewriter) {
         graphpat::AttrTable& attrs = rewriter.attrs();
         auto pool = rewriter.call("nn.avg_pool2d", {bound.bound(input)},
                                   {{"pool_size", attrs.array({attrs.integer(7), attrs.integer(7)})}});
         return pool.ok() ? *pool : post;  // or pool.status(): [graphpat.relay_text.bad_attribute] ...
       }}};
  auto result = graphpat::rewrite(callbacks, *module);  // every function; opaque ones kept
  fmt::print("{}: {} rewritten\n", result.callbacks[0].name, result.callbacks[0].rewrites);
  absl::StatusOr<std::string> out = graphpat::relay::print_text(result.module);
  return result.callbacks[0].rewrites == 1 && out.ok() &&
         out->find("nn.global_avg_pool2d(") == std::string::npos &&
         out->find("nn.avg_pool2d(") != std::string::npos;
}

// README: graph patterns, the origin case's shape found directly.
std::size_t batch_norms_read_twice(const std::string& text) {
  auto module = graphpat::relay::parse_text(text);
  if (!module.ok()) return 0;
  auto origin = graphpat::parse_graph_pattern(R"(
with PatternContext() as ctx:
    bn = is_op('nn.batch_norm')(None)
    bn.fork_to(is_tuple_get_item(bn, 0), is_tuple_get_item(bn, 0))
)");
  auto twice = graphpat::find_graph_matches(origin->context, module->graph, *module->find("main"));
  fmt::print("{} batch norms read through two %N.0\n", twice->size());
  return twice.ok() ? twice->size() : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: consumer MOBILENET_V2_RELAY\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::string> merged = merge_duplicates(text.str());
  if (!merged.ok()) fmt::print(stderr, "{}\n", merged.status());
  absl::StatusOr<std::string> refused = merge_duplicates("def @main(%x) { %x )");
  fmt::print("{}\n", refused.status());
  bool ok = build_conv_bias_relu() && partition_batch_norms(text.str()) && merged.ok() &&
            legalize_global_pool(text.str()) && batch_norms_read_twice(text.str()) == 5 &&
            graphpat::error_id(refused.status()) == "graphpat.relay_text.unexpected_token";
  fmt::print("README examples: {}\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
