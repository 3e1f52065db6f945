// CSE against TVM's own results: the four EliminateCommonSubexpr conformance cases as data,
// every corpus model against TVM's CSE output (structurally, and printed byte for byte), the
// origin case on MobileNetV2, and the default mode's invariants on every model.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/io/relay_text.hpp>
#include <nlohmann/json.hpp>

#include "support/test_files.hpp"

using namespace graphpat;
using graphpat::testing::kCorpus;
using graphpat::testing::read_file;

namespace {

relay::Module parse(const std::filesystem::path& path) {
  absl::StatusOr<relay::Module> module = relay::parse_text(read_file(path));
  INFO(path.string() << ": " << module.status().ToString());
  REQUIRE(module.ok());
  return *std::move(module);
}

void require_equal(const relay::Module& actual, const relay::Module& expected) {
  auto difference = first_difference(actual, expected);
  INFO((difference ? fmt::format("{} at {} vs {} in @{}", difference->reason, difference->lhs,
                                 difference->rhs, difference->function)
                   : std::string()));
  REQUIRE_FALSE(difference.has_value());
}

const char* const kModels[] = {"lstm", "mlp", "mobilenet_v1", "mobilenet_v2_mxnet_style",
                               "resnet18", "squeezenet1_0"};

}  // namespace

TEST_CASE("cse conformance cases give TVM's expected output", "[cse][conformance]") {
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus / "conformance")) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with("cse_")) continue;
    ++cases;
    DYNAMIC_SECTION(name) {
      nlohmann::json spec = nlohmann::json::parse(read_file(entry.path() / "case.json"));
      REQUIRE(spec["op"] == "cse");
      REQUIRE(spec["root"] == "main");
      CseOptions<relay::Dialect> options{.relay_compat = true};
      if (spec["options"].contains("fskip")) {
        // Ported from its description: skip a Call whose op is `add` (cse_2_callback only).
        REQUIRE(name == "cse_2_callback");
        options.skip = [](const relay::Graph& graph, NodeId id) {
          return graph.kind(id) == NodeKind::kCall && graph.called_op(id).valid() &&
                 graph.context().op_name(graph.called_op(id)) == "add";
        };
      }
      relay::Module input = parse(entry.path() / "input.relay");
      CseResult<relay::Dialect> result = eliminate_common_subexpr(input, options);
      REQUIRE(verify(result.module).ok());
      require_equal(result.module, parse(entry.path() / "expected.relay"));
      // The default mode reaches the same graph on these four.
      require_equal(eliminate_common_subexpr(input, {.skip = options.skip}).module,
                    parse(entry.path() / "expected.relay"));
    }
  }
  CHECK(cases == 4);
}

TEST_CASE("relay_compat cse of every corpus model is TVM's EliminateCommonSubexpr", "[cse][corpus]") {
  for (const char* model : kModels) {
    DYNAMIC_SECTION(model) {
      relay::Module input = parse(kCorpus / "models" / (std::string(model) + ".relay"));
      CseResult<relay::Dialect> result = eliminate_common_subexpr(input, {.relay_compat = true});
      REQUIRE(verify(result.module).ok());
      std::filesystem::path expected_path = kCorpus / "tvm" / "cse" / (std::string(model) + ".relay");
      require_equal(result.module, parse(expected_path));
      // Types, attributes and spans survive: printed, it is TVM's output to the byte.
      CHECK(relay::print_text(result.module, relay::TextEnvelope::kAstextNoMeta).value() ==
            read_file(expected_path));
    }
  }
}

TEST_CASE("the origin case: MobileNetV2's five duplicated %N.0 are merged", "[cse][corpus]") {
  relay::Module input = parse(kCorpus / "models" / "mobilenet_v2_mxnet_style.relay");
  for (bool relay_compat : {true, false}) {
    CseResult<relay::Dialect> result = eliminate_common_subexpr(input, {.relay_compat = relay_compat});
    // corpus/README.md: five residual connections leave two distinct `%N.0` on one batch_norm.
    CHECK(result.report.merged_by["TupleGetItem"] == 5);
  }
}

TEST_CASE("default cse of every corpus model verifies and is idempotent", "[cse][corpus]") {
  for (const char* model : kModels) {
    DYNAMIC_SECTION(model) {
      relay::Module input = parse(kCorpus / "models" / (std::string(model) + ".relay"));
      CseResult<relay::Dialect> once = eliminate_common_subexpr(input);
      REQUIRE(verify(once.module).ok());
      CseResult<relay::Dialect> twice = eliminate_common_subexpr(once.module);
      CHECK(twice.report.merged == 0);
      require_equal(twice.module, once.module);
      // Everything relay_compat merges, the default mode merges too.
      CHECK(once.report.merged >=
            eliminate_common_subexpr(input, {.relay_compat = true}).report.merged);
    }
  }
}
