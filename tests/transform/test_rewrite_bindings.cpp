// rewrite_bindings (transform/rewrite_bindings.hpp): TVM Relax's test_combine_matmul_twice in
// Relay form (its module and the expected result in tests/data/graph_patterns/relax: three
// denses of one input become one dense of the concatenated weights, split in three, for each of
// the two inputs; the expected text written by hand from Relax's expected function with Relay's
// (units, in) weight layout), compared structurally and verified; then what the rewrite refuses.
#include <absl/status/statusor.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/relay_text.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/transform/rewrite_bindings.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using namespace graphpat::dsl;

namespace {

const std::filesystem::path kRelax =
    std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "graph_patterns" / "relax";

relay::Module read_module(const std::filesystem::path& path) {
  absl::StatusOr<relay::Module> module = relay::parse_text(graphpat::testing::read_file(path));
  INFO(path.string() << ": " << module.status().ToString());
  REQUIRE(module.ok());
  return *std::move(module);
}

struct Qkv {
  Pattern inp = wildcard(), wq = wildcard(), wk = wildcard(), wv = wildcard();
  Pattern q = is_op("nn.dense")(inp, wq), k = is_op("nn.dense")(inp, wk),
          v = is_op("nn.dense")(inp, wv);
  PatternContext context;
  Qkv() { context.add(q).add(k).add(v); }

  // Relax's qkv_proj_rewriter: one dense of the concatenated weights, split in three.
  GraphRewrite<relay::Dialect> fuse() const {
    return [*this](const Match& m, Rewriter<relay::Dialect>& r) -> absl::StatusOr<Replacements> {
      AttrTable& attrs = r.attrs();
      NodeId weights = r.builder().tuple({m.bound(wq), m.bound(wk), m.bound(wv)});
      absl::StatusOr<NodeId> concat = r.call("concatenate", {weights}, {});
      if (!concat.ok()) return concat.status();
      absl::StatusOr<NodeId> dense =
          r.call("nn.dense", {m.bound(inp), *concat}, {{"units", attrs.null()}});
      if (!dense.ok()) return dense.status();
      absl::StatusOr<NodeId> split =
          r.call("split", {*dense},
                 {{"indices_or_sections", attrs.integer(3)}, {"axis", attrs.integer(1)}});
      if (!split.ok()) return split.status();
      return Replacements{{m.bound(q), r.builder().tuple_get_item(*split, 0)},
                          {m.bound(k), r.builder().tuple_get_item(*split, 1)},
                          {m.bound(v), r.builder().tuple_get_item(*split, 2)}};
    };
  }
};

}  // namespace

TEST_CASE("rewrite_bindings fuses each input's three projections (Relax "
          "test_combine_matmul_twice)",
          "[transform][rewrite_bindings][graph]") {
  relay::Module module = read_module(kRelax / "modules" / "qkv_x2.relay");
  relay::Module expected = read_module(kRelax / "expected" / "qkv_x2_fused.relay");
  Qkv qkv;
  absl::StatusOr<GraphRewriteResult<relay::Dialect>> fused =
      rewrite_bindings<relay::Dialect>(qkv.context, qkv.fuse(), module);
  INFO(fused.status().ToString());
  REQUIRE(fused.ok());
  CHECK(fused->report.matches == 2);
  CHECK(fused->report.rewritten == 2);
  CHECK(fused->report.replaced == 6);
  CHECK(fused->report.overlapping == 0);
  CHECK(verify(fused->module).ok());
  std::optional<Difference> difference = first_difference(fused->module, expected);
  INFO((difference ? difference->reason : std::string("equal")));
  CHECK_FALSE(difference);
  // The result holds only what the functions reach: the six denses are gone.
  absl::StatusOr<std::string> text = relay::print_text(fused->module);
  REQUIRE(text.ok());
  CHECK(graphpat::testing::count_of(*text, "nn.dense(") == 2);

  // Nothing matches in the result: each input now has one dense.
  absl::StatusOr<GraphRewriteResult<relay::Dialect>> again =
      rewrite_bindings<relay::Dialect>(qkv.context, qkv.fuse(), fused->module);
  REQUIRE(again.ok());
  CHECK(again->report.matches == 0);
  CHECK(structural_equal(again->module, fused->module));
}

TEST_CASE("rewrite_bindings: an empty answer changes nothing, and overlapping matches are skipped",
          "[transform][rewrite_bindings][graph]") {
  relay::Module module = read_module(kRelax / "modules" / "qkv_x2.relay");
  Pattern x = wildcard();
  Pattern a = is_op("nn.dense")(x, wildcard()), b = is_op("nn.dense")(x, wildcard());
  PatternContext pair;
  pair.add(a).add(b);
  std::size_t calls = 0;
  absl::StatusOr<GraphRewriteResult<relay::Dialect>> untouched = rewrite_bindings<relay::Dialect>(
      pair,
      [&](const Match&, Rewriter<relay::Dialect>&) -> absl::StatusOr<Replacements> {
        ++calls;
        return Replacements{};
      },
      module);
  REQUIRE(untouched.ok());
  CHECK(untouched->report.matches == 6);  // three pairs of each input's three denses
  CHECK(calls == 6);
  CHECK(untouched->report.rewritten == 0);
  CHECK(structural_equal(untouched->module, module));
  // Replacing each pair's first dense by a relu of the input: of each input's three pairs, the
  // first is rewritten and the two others share a node with it.
  auto replace_first = [&](bool of_the_dense) -> GraphRewrite<relay::Dialect> {
    return [&, of_the_dense](const Match& m,
                             Rewriter<relay::Dialect>& r) -> absl::StatusOr<Replacements> {
      absl::StatusOr<NodeId> relu = r.call("nn.relu", {m.bound(of_the_dense ? a : x)}, {});
      if (!relu.ok()) return relu.status();
      return Replacements{{m.bound(a), *relu}};
    };
  };
  absl::StatusOr<GraphRewriteResult<relay::Dialect>> relu =
      rewrite_bindings<relay::Dialect>(pair, replace_first(false), module);
  REQUIRE(relu.ok());
  CHECK(relu->report.matches == 6);
  CHECK(relu->report.rewritten == 2);
  CHECK(relu->report.overlapping == 4);
  CHECK(relu->report.replaced == 2);
  CHECK(verify(relu->module).ok());
  absl::StatusOr<std::string> text = relay::print_text(relu->module);
  REQUIRE(text.ok());
  CHECK(graphpat::testing::count_of(*text, "nn.relu(%x1)") == 1);
  CHECK(graphpat::testing::count_of(*text, "nn.relu(%x2)") == 1);
  CHECK(graphpat::testing::count_of(*text, "nn.dense(") == 4);
  // A replacement that reads the node it replaces would make a cycle: refused, located.
  absl::StatusOr<GraphRewriteResult<relay::Dialect>> cycle =
      rewrite_bindings<relay::Dialect>(pair, replace_first(true), module);
  REQUIRE_FALSE(cycle.ok());
  NodeId first_dense = NodeId();
  for (std::uint32_t i = 0; i < module.graph.size() && !first_dense.valid(); ++i) {
    if (module.graph.kind(NodeId(i)) == NodeKind::kCall) first_dense = NodeId(i);
  }
  CHECK(std::string(cycle.status().message()) ==
        fmt::format("[graphpat.graph_pattern.replacement_cycle] %{}: the replacements make it "
                    "read itself",
                    first_dense.index()));
}

TEST_CASE("rewrite_bindings refuses a replacement of a node the match did not bind",
          "[transform][rewrite_bindings][graph]") {
  relay::Module module = read_module(kRelax / "modules" / "qkv_x2.relay");
  Qkv qkv;
  NodeId x2 = NodeId();
  for (NodeId param : module.graph.params(*module.find("main"))) {
    if (module.graph.name(param) == "x2") x2 = param;
  }
  absl::StatusOr<GraphRewriteResult<relay::Dialect>> result = rewrite_bindings<relay::Dialect>(
      qkv.context,
      [&](const Match& m, Rewriter<relay::Dialect>&) -> absl::StatusOr<Replacements> {
        return Replacements{{x2, m.bound(qkv.q)}};
      },
      module);
  REQUIRE_FALSE(result.ok());
  CHECK(std::string(result.status().message()) ==
        fmt::format("[graphpat.graph_pattern.foreign_replacement] %{}: a replacement must stand "
                    "for a node the match bound, by a node of the rewriter's graph",
                    x2.index()));
}
