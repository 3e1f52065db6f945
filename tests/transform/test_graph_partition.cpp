// Multi-output partition: PartitionOptions::outline_outside_uses on one pattern (the origin
// case, apache/tvm#5928, outlined without CSE: the batch_norm's second reader reads the
// function's tuple), and partition by a graph pattern (transform/graph_partition.hpp: Relax's
// QKV block becomes one function returning three values). The expected modules are written by
// hand from the rules of transform/partition.hpp (tests/data/graph_patterns/partition), compared
// structurally and verified; then the uses that no call can serve, which stay refused.
#include <absl/status/statusor.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/relay_text.hpp"
#include "graphpat/partition.hpp"
#include "graphpat/pattern.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using namespace graphpat::dsl;

namespace {

const std::filesystem::path kGraphPatternData = std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "graph_patterns";

relay::Module parse_relay(const std::string& text) {
  absl::StatusOr<relay::Module> module = relay::parse_text(text);
  INFO(module.status().ToString());
  REQUIRE(module.ok());
  return *std::move(module);
}

relay::Module read_relay_file(const std::filesystem::path& path) {
  return parse_relay(graphpat::testing::read_file(path));
}

void check_outlined(const relay::Module& ours, const relay::Module& expected) {
  REQUIRE(verify(ours.graph).ok());
  absl::StatusOr<std::string> text = relay::print_text(ours);
  INFO(text.value_or(std::string(text.status().message())));
  CHECK(structural_equal(ours, expected));
}

// add(relu(_), _): the group is the add and the relu.
Pattern add_of_relu_pattern() { return is_op("add")(is_op("nn.relu")(wildcard()), wildcard()); }

// The node of `graph` that calls `op` with `first` as its first argument.
NodeId call_reading(const relay::Graph& graph, std::string_view op, NodeId first) {
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (graph.kind(id) == NodeKind::kCall && graph.called_op(id).valid() &&
        graph.context().op_name(graph.called_op(id)) == op && graph.args(id)[0] == first) {
      return id;
    }
  }
  return {};
}

}  // namespace

TEST_CASE("outline_outside_uses outlines the origin case without CSE: the second %0.0 reads "
          "the function's tuple",
          "[partition][graph]") {
  relay::Module module = read_relay_file(kGraphPatternData / "partition" / "two_batch_norm_reads.relay");
  Pattern bn0 = is_tuple_get_item(is_op("nn.batch_norm")(wildcard(), wildcard(), wildcard(),
                                                          wildcard(), wildcard()),
                                  0);
  // TVM refuses both groups: each %0.0's batch_norm is read by the other.
  PartitionResult<relay::Dialect> tvm = partition(bn0, module, {.relay_compat = true});
  CHECK(tvm.report.accepted == 0);
  REQUIRE(tvm.report.rejected.size() == 2);
  CHECK(tvm.report.rejected[0].reason == RejectionReason::kUsedOutside);
  CHECK(tvm.report.rejected[1].reason == RejectionReason::kUsedOutside);

  PartitionResult<relay::Dialect> outlined =
      partition(bn0, module, {.relay_compat = true, .outline_outside_uses = true});
  CHECK(outlined.report.accepted == 1);
  CHECK(outlined.report.outputs == 1);
  // The first %0.0 (the lower id) would take the batch_norm the first group holds.
  REQUIRE(outlined.report.rejected.size() == 1);
  const RejectedGroup& overlap = outlined.report.rejected[0];
  CHECK(overlap.reason == RejectionReason::kOverlap);
  CHECK(module.graph.kind(overlap.root) == NodeKind::kTupleGetItem);
  CHECK(module.graph.operands(overlap.root)[0] == overlap.node);
  check_outlined(outlined.module,
             read_relay_file(kGraphPatternData / "partition" / "two_batch_norm_reads_outlined.relay"));
}

TEST_CASE("partition by a graph pattern makes each QKV block one function with three outputs "
          "(Relax test_combine_matmul_twice's module)",
          "[partition][graph]") {
  relay::Module module = read_relay_file(kGraphPatternData / "relax" / "modules" / "qkv_x2.relay");
  Pattern x = wildcard();
  Pattern q = is_op("nn.dense")(x, wildcard()), k = is_op("nn.dense")(x, wildcard()),
          v = is_op("nn.dense")(x, wildcard());
  PatternContext qkv;
  qkv.add(q).add(k).add(v);
  absl::StatusOr<PartitionResult<relay::Dialect>> result =
      partition(qkv, module, {.attrs = {{"Composite", "qkv"}}});
  REQUIRE(result.ok());
  CHECK(result->report.accepted == 2);
  CHECK(result->report.outputs == 4);  // q and k beside each root v
  CHECK(result->report.rejected.empty());
  check_outlined(result->module, read_relay_file(kGraphPatternData / "partition" / "qkv_x2_outlined.relay"));

  // The same context as Relax writes it.
  absl::StatusOr<ParsedGraphPattern> text = parse_graph_pattern(R"(
with PatternContext() as ctx:
    inp = wildcard()
    q = is_op("nn.dense")(inp, wildcard())
    k = is_op("nn.dense")(inp, wildcard())
    v = is_op("nn.dense")(inp, wildcard())
)");
  REQUIRE(text.ok());
  absl::StatusOr<PartitionResult<relay::Dialect>> from_text =
      partition(text->context, module, {.attrs = {{"Composite", "qkv"}}});
  REQUIRE(from_text.ok());
  CHECK(structural_equal(from_text->module, result->module));
}

TEST_CASE("a graph pattern whose context validate() refuses is refused by partition",
          "[partition][graph]") {
  relay::Module module = read_relay_file(kGraphPatternData / "relax" / "modules" / "qkv_x2.relay");
  absl::StatusOr<PartitionResult<relay::Dialect>> result = partition(PatternContext(), module);
  REQUIRE_FALSE(result.ok());
  CHECK(result.status().message() ==
        "[graphpat.graph_pattern.empty] the pattern context has no pattern");
}

TEST_CASE("outline_outside_uses keeps refusing a use that leads back into the group's inputs",
          "[partition][graph]") {
  SECTION("through one group: the relu's sigmoid is the add's other input") {
    relay::Module module = parse_relay(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  %1 = sigmoid(%0);
  %2 = add(%0, %1);
  (%2, %1)
})");
    PartitionResult<relay::Dialect> result =
        partition(add_of_relu_pattern(), module, {.outline_outside_uses = true});
    CHECK(result.report.accepted == 0);
    REQUIRE(result.report.rejected.size() == 1);
    const RejectedGroup& line = result.report.rejected[0];
    CHECK(line.reason == RejectionReason::kUsedOutside);
    const relay::Graph& graph = module.graph;
    CHECK(graph.context().op_name(graph.called_op(line.node)) == "nn.relu");
    CHECK(graph.context().op_name(graph.called_op(line.user)) == "sigmoid");
    CHECK(line.root == call_reading(graph, "add", line.node));
  }
  SECTION("through two groups, each of whose relus feeds the other's add") {
    relay::Module module = parse_relay(R"(#[version = "0.0.5"]
def @main(%x1: Tensor[(4), float32], %x2: Tensor[(4), float32]) {
  %0 = nn.relu(%x1);
  %1 = nn.relu(%x2);
  %2 = sigmoid(%0);
  %3 = sigmoid(%1);
  %4 = add(%0, %3);
  %5 = add(%1, %2);
  (%4, %5)
})");
    // Each group alone could return its relu; together each call would wait for the other.
    PartitionResult<relay::Dialect> result =
        partition(add_of_relu_pattern(), module, {.relay_compat = true, .outline_outside_uses = true});
    CHECK(result.report.accepted == 0);
    REQUIRE(result.report.rejected.size() == 2);
    const relay::Graph& graph = module.graph;
    for (const RejectedGroup& line : result.report.rejected) {
      CHECK(line.reason == RejectionReason::kUsedOutside);
      CHECK(graph.context().op_name(graph.called_op(line.node)) == "nn.relu");
      CHECK(line.user == call_reading(graph, "sigmoid", line.node));
      CHECK(line.root == call_reading(graph, "add", line.node));
    }
    CHECK(result.report.rejected[0].root < result.report.rejected[1].root);
    check_outlined(result.module, module);
  }
  SECTION("a use the root post-dominates is still computed twice, as TVM does") {
    relay::Module module = parse_relay(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  %1 = sigmoid(%0);
  add(%0, %1)
})");
    PartitionResult<relay::Dialect> result =
        partition(add_of_relu_pattern(), module, {.outline_outside_uses = true});
    CHECK(result.report.accepted == 1);
    CHECK(result.report.outputs == 0);
    CHECK(result.report.duplicated.size() == 1);
    PartitionResult<relay::Dialect> tvm = partition(add_of_relu_pattern(), module);
    CHECK(structural_equal(result.module, tvm.module));
  }
}
