// Structure-aware libFuzzer target: the bytes are decoded into a Relay dataflow function built
// with the Builder (fuzz_support.hpp's GraphDecoder: chains, fan-outs, tuples, tuple-get-items,
// batch norms, stateful dropouts, deliberately duplicated pure nodes), then every pass runs on
// it and its invariants are checked:
// - verify() holds for the input and after CSE, partition and inlining;
// - CSE is idempotent: CSE of its own output merges nothing and changes nothing;
// - every find_matches result matches again with match();
// - partition-then-inline gives back partition's input: the module itself in relay_compat mode,
//   its CSE in the default mode (which runs CSE first); when the report lists interior nodes
//   computed twice (tvm#11616), inlining gives them twice, and its CSE is the module's CSE
//   (unless relay_compat copied a dropout, which no CSE merges: the default mode refuses that);
// - print_text -> parse_text and save_json -> load_json give back an equal module;
// - partition with outline_outside_uses, and by a graph pattern of two patterns, verify.
// Every pattern is matched on every input; partition (the costly pass, with its round trips)
// runs one pattern, in both modes, chosen by the last byte (FuzzedDataProvider takes integers
// from the end), so that an execution stays cheap and the fuzzer still reaches every pattern.
#include <fuzzer/FuzzedDataProvider.h>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>
#include <graphpat/pattern/matcher.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "support/inline_calls.hpp"
#include "support/pattern_invariants.hpp"

namespace {

using graphpat::NodeId;
using graphpat::fuzz::fail;
using graphpat::fuzz::message;
using graphpat::fuzz::require;
using graphpat::fuzz::require_ok;
using graphpat::testing::detail::has_stateful_call;
using graphpat::testing::detail::text_for_report;
namespace relay = graphpat::relay;

constexpr std::string_view kPatternTexts[] = {
    "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
    "wildcard()), 0)",
    "is_op('nn.relu')(is_op('nn.bias_add')(is_op('nn.conv2d')(wildcard(), wildcard()), "
    "wildcard()))",
    "is_op('add')(wildcard(), wildcard())",
    "is_op('nn.conv2d')(wildcard(), wildcard()).optional(lambda x: is_op('nn.bias_add')(x, "
    "wildcard())).optional(lambda x: is_op('nn.relu')(x))",
    "is_tuple_get_item(wildcard())",
    "dominates(is_op('add')(None), wildcard(), is_op('nn.relu')(None))",
    "is_op('multiply')(is_tuple_get_item(wildcard(), 1), wildcard())",
};

const std::vector<graphpat::Pattern>& patterns() {
  static const std::vector<graphpat::Pattern> parsed = [] {
    std::vector<graphpat::Pattern> result;
    for (std::string_view text : kPatternTexts) {
      absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(text);
      require(pattern.ok(), "a fixed pattern does not parse", text);
      result.push_back(*pattern);
    }
    return result;
  }();
  return parsed;
}

void require_equal(const relay::Module& actual, const relay::Module& expected,
                   std::string_view what) {
  auto difference = graphpat::first_difference(actual, expected);
  if (difference) {
    fail(what, fmt::format("{}\n{}\nexpected\n{}", difference->reason, text_for_report(actual),
                           text_for_report(expected)));
  }
}

void require_verified(const relay::Module& module, std::string_view what) {
  absl::Status status = graphpat::verify(module);
  // (the print is for the report only: it costs more than verify)
  if (!status.ok()) fail(what, fmt::format("{}\n{}", message(status), text_for_report(module)));
}

void check_text_round_trip(const relay::Module& module, std::string_view what) {
  absl::StatusOr<std::string> print = relay::print_text(module);
  require_ok(print.status(), what);
  std::string printed = std::move(*print);
  absl::StatusOr<relay::Module> parsed = relay::parse_text(printed);
  require_ok(parsed.status(), what, printed);
  require_equal(*parsed, module, what);
}

}  // namespace

GRAPHPAT_FUZZ_TARGET(fuzz_graph_passes) {
  FuzzedDataProvider bytes(data, size);
  const graphpat::Pattern& partitioned_by =
      patterns()[bytes.ConsumeIntegralInRange<std::size_t>(0, patterns().size() - 1)];
  relay::Module module;
  graphpat::fuzz::GraphDecoder(bytes, module).build();
  require_verified(module, "the built module does not verify");

  graphpat::CseResult<relay::Dialect> merged = graphpat::eliminate_common_subexpr(module);
  require_verified(merged.module, "CSE's output does not verify");
  graphpat::CseResult<relay::Dialect> again = graphpat::eliminate_common_subexpr(merged.module);
  require(again.report.merged == 0, "CSE of CSE's output merged something");
  require_equal(again.module, merged.module, "CSE of CSE's output changed it");

  NodeId main = *merged.module.find("main");
  for (const graphpat::Pattern& pattern : patterns()) {
    for (const graphpat::Match& found : graphpat::find_matches(pattern, merged.module.graph, main)) {
      // In find_matches' scope, where post-dominance is taken (docs/semantics.md §3.9).
      if (!graphpat::Matcher<relay::Dialect>(pattern, merged.module.graph)
               .match(found.root(), main)) {
        fail("find_matches reported a node match() in its scope refuses", graphpat::describe(pattern));
      }
    }
  }

  for (bool relay_compat : {false, true}) {
    graphpat::PartitionResult<relay::Dialect> partitioned =
        graphpat::partition(partitioned_by, module, {.attrs = {{"Composite", "fuzz"}},
                                                     .relay_compat = relay_compat});
    require_verified(partitioned.module, "partition's output does not verify");
    relay::Module inlined = graphpat::testing::inline_function_calls(partitioned.module);
    require_verified(inlined, "the inlined partition does not verify");
    if (partitioned.report.duplicated.empty()) {
      require_equal(inlined, relay_compat ? module : merged.module,
                    "partition then inline is not partition's input");
    } else if (!relay_compat || !has_stateful_call(module.graph)) {
      require_equal(graphpat::eliminate_common_subexpr(inlined).module, merged.module,
                    "partition then inline then CSE is not the input's CSE");
    }
    if (partitioned.report.accepted > 0) {
      check_text_round_trip(partitioned.module, "the partitioned module's text differs");
    }
  }

  // Multi-output groups (TVM's mode, no CSE first, so that duplicated readers stay), and the
  // two patterns as one graph pattern: outputs verify and print back.
  graphpat::PartitionResult<relay::Dialect> outlined = graphpat::partition(
      partitioned_by, module, {.relay_compat = true, .outline_outside_uses = true});
  require_verified(outlined.module, "a multi-output partition does not verify");
  if (outlined.report.outputs > 0) {
    check_text_round_trip(outlined.module, "the multi-output partition's text differs");
  }
  graphpat::PatternContext context;
  context.add(partitioned_by).add(patterns()[size % patterns().size()].dup());
  absl::StatusOr<graphpat::PartitionResult<relay::Dialect>> by_context = graphpat::partition(
      context, module, {}, {.match = {}, .max_steps = 20'000, .max_matches = 200});
  require_ok(by_context.status(), "a graph pattern of two patterns is refused");
  require_verified(by_context->module, "a graph-pattern partition does not verify");

  check_text_round_trip(module, "the built module's text parses to a different module");
  absl::StatusOr<std::string> json = relay::save_json(module);
  require_ok(json.status(), "save_json failed");
  absl::StatusOr<relay::LoadedJson> loaded = relay::load_json(*json);
  require_ok(loaded.status(), "the saved JSON does not load", *json);
  require_equal(loaded->module, module, "the saved JSON loads to a different module");
  return 0;
}
