// Test support: what must hold when any pattern runs over any module, checked pass by pass.
// Shared by tests/fuzz/fuzz_pattern_graph.cpp (which aborts on a broken invariant) and
// tests/robustness/test_pattern_properties.cpp (which fails the test case):
// - describe(pattern) parses again and describes the same;
// - every find_matches result of every function matches again with match();
// - partition (default and relay_compat), merge_composite (default and relay_compat) and
//   rewrite (callbacks that replace the matched node by a new call of it, by one of its
//   operands, or leave it) give graphs that verify();
// - partition-then-inline and merge_composite-then-inline give back their input: the module
//   itself in relay_compat mode, its CSE in the default mode (which runs CSE first); when the
//   report lists interior nodes computed twice, the CSEs agree instead (unless relay_compat
//   copied a stateful call, which no CSE merges);
// - what a pass changed prints as Relay text that parses back structurally equal.
//
//   if (auto broken = graphpat::testing::check_pattern_passes(pattern, module)) {
//     FAIL(broken->what << "\n" << broken->detail);
//   }
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>
#include <graphpat/pattern/matcher.hpp>
#include <graphpat/rewrite.hpp>
#include <graphpat/transform/merge_composite.hpp>

#include "support/inline_calls.hpp"

namespace graphpat::testing {

/// A broken invariant: what broke, then what shows it (a status, a difference, the texts).
struct BrokenInvariant {
  std::string what;
  std::string detail;
};

using Checked = std::optional<BrokenInvariant>;

namespace detail {

inline std::string status_text(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

/// verify() of `module`. A module that does not verify is not printed: the printer may not
/// survive it (issue 21 class 1).
inline Checked verified(const relay::Module& module, std::string_view what) {
  absl::Status status = verify(module);
  if (status.ok()) return std::nullopt;
  return BrokenInvariant{std::string(what), status_text(status)};
}

/// The text of `module` for a report, or why it has none.
inline std::string text_for_report(const relay::Module& module) {
  absl::StatusOr<std::string> text = relay::print_text(module);
  return text.ok() ? *text : status_text(text.status());
}

inline Checked same_module(const relay::Module& actual, const relay::Module& expected,
                           std::string_view what) {
  std::optional<Difference> difference = first_difference(actual, expected);
  if (!difference) return std::nullopt;
  return BrokenInvariant{std::string(what),
                         fmt::format("{} (in @{})\n{}\nexpected\n{}", difference->reason,
                                     difference->function, text_for_report(actual),
                                     text_for_report(expected))};
}

inline bool has_stateful_call(const relay::Graph& graph) {
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (graph.kind(id) == NodeKind::kCall && graph.called_op(id).valid() &&
        graph.context().ops.info(graph.called_op(id)).stateful) {
      return true;
    }
  }
  return false;
}

inline Checked text_round_trip(const relay::Module& module, std::string_view what) {
  absl::StatusOr<std::string> print = relay::print_text(module);
  if (!print.ok()) {
    return BrokenInvariant{fmt::format("{} (it cannot be printed)", what),
                           status_text(print.status())};
  }
  const std::string& printed = *print;
  absl::StatusOr<relay::Module> parsed = relay::parse_text(printed);
  if (!parsed.ok()) {
    return BrokenInvariant{std::string(what),
                           fmt::format("{}\n{}", status_text(parsed.status()), printed)};
  }
  return same_module(*parsed, module, what);
}

/// The checks of a partition-like pass's result (`pass` names it in the messages).
inline Checked partitioned_well(const PartitionResult<relay::Dialect>& partitioned,
                                const relay::Module& module, const relay::Module& merged,
                                bool relay_compat, std::string_view pass) {
  std::string mode = relay_compat ? "relay_compat " : "";
  if (Checked broken = verified(partitioned.module, fmt::format("{}{}'s output does not verify", mode, pass))) {
    return broken;
  }
  relay::Module inlined = inline_function_calls(partitioned.module);
  if (Checked broken = verified(inlined, fmt::format("the inlined {}{} does not verify", mode, pass))) {
    return broken;
  }
  if (partitioned.report.duplicated.empty()) {
    if (Checked broken = same_module(inlined, relay_compat ? module : merged,
                                     fmt::format("{}{} then inline is not its input", mode, pass))) {
      return broken;
    }
  } else if (!relay_compat || !has_stateful_call(module.graph)) {
    if (Checked broken =
            same_module(eliminate_common_subexpr(inlined).module, merged,
                        fmt::format("{}{} then inline then CSE is not the input's CSE", mode, pass))) {
      return broken;
    }
  }
  if (partitioned.report.accepted == 0) return std::nullopt;
  return text_round_trip(partitioned.module,
                         fmt::format("{}{}'s output prints as text that reads back differently", mode, pass));
}

/// The operand a "replace by an operand" callback picks: a value the node reads.
inline NodeId value_operand(const relay::Graph& graph, NodeId node) {
  switch (graph.kind(node)) {
    case NodeKind::kCall:
      return graph.args(node).empty() ? node : graph.args(node).front();
    case NodeKind::kTuple:
      return graph.fields(node).empty() ? node : graph.fields(node).back();
    case NodeKind::kTupleGetItem:
      return graph.tuple(node);
    default:
      return node;
  }
}

/// Rewrites every function of `module` with one callback of each kind, and checks the result.
inline Checked rewritten_well(const Pattern& pattern, const relay::Module& module,
                              bool relay_compat) {
  using Callback = RewriteCallback<relay::Dialect>;
  using Rw = Rewriter<relay::Dialect>&;
  const std::vector<Callback> callbacks = {
      // A new call reading the matched value (an op or a function is left as it is).
      {.pattern = pattern,
       .rewrite = [](NodeId, NodeId post, const RewriteBindings&, Rw rw) {
         NodeKind kind = rw.graph().kind(post);
         if (kind == NodeKind::kOp || kind == NodeKind::kFunction) return post;
         return rw.builder().call("negative", {post});
       },
       .rewrite_once = true},
      // One of its operands.
      {.pattern = pattern,
       .rewrite = [](NodeId, NodeId post, const RewriteBindings&,
                     Rw rw) { return value_operand(rw.graph(), post); }},
      // Itself.
      {.pattern = pattern,
       .rewrite = [](NodeId, NodeId post, const RewriteBindings&, Rw) { return post; }},
  };
  std::string mode = relay_compat ? "relay_compat " : "";
  for (const auto& function : module.functions()) {
    auto result = rewrite(callbacks, module.graph, function.function,
                          {.relay_compat = relay_compat, .max_iterations = 4});
    if (absl::Status status = verify(result.graph); !status.ok()) {
      return BrokenInvariant{fmt::format("{}rewrite's output does not verify", mode),
                             fmt::format("@{}: {}", module.name(function), status_text(status))};
    }
    if (result.graph.kind(result.root) != NodeKind::kFunction) {
      return BrokenInvariant{fmt::format("{}rewrite made a function something else", mode),
                             fmt::format("@{}", module.name(function))};
    }
    if (result.rewrites == 0) continue;
    relay::Module rewritten(std::move(result.graph));
    rewritten.add_function(module.name(function), result.root);
    if (Checked broken = verified(rewritten, fmt::format("{}rewrite's output does not verify", mode))) {
      return broken;
    }
    if (Checked broken = text_round_trip(
            rewritten, fmt::format("{}rewrite's output prints as text that reads back differently", mode))) {
      return broken;
    }
  }
  return std::nullopt;
}

}  // namespace detail

/// The pattern's own description reads back as a pattern that describes the same.
inline Checked check_description(const Pattern& pattern) {
  std::string described = describe(pattern);
  absl::StatusOr<Pattern> again = parse_pattern(described);
  if (!again.ok()) {
    return BrokenInvariant{"the description does not parse",
                           fmt::format("{}\n{}", detail::status_text(again.status()), described)};
  }
  if (std::string twice = describe(*again); twice != described) {
    return BrokenInvariant{"the description describes differently", described + "\n" + twice};
  }
  return std::nullopt;
}

/// The passes check_pattern_passes runs (matching always runs), each in both modes.
enum PatternPasses : unsigned {
  kPartitionPass = 1,
  kMergeCompositePass = 2,
  kRewritePass = 4,
  kEveryPass = 7,
};

/// Every pass of `passes` over `module` (which verifies) with `pattern`, and their invariants.
inline Checked check_pattern_passes(const Pattern& pattern, const relay::Module& module,
                                    unsigned passes = kEveryPass) {
  const relay::Graph& graph = module.graph;
  for (const auto& function : module.functions()) {
    for (const Match& found : find_matches(pattern, graph, function.function)) {
      // In find_matches' scope: post-dominance is taken under the search root, and under a
      // `~` a dominator pattern may hold at the node alone and not in the whole function
      // (docs/semantics.md §3.9; fuzz_pattern_graph, session 14).
      if (!Matcher<relay::Dialect>(pattern, graph).match(found.root(), function.function)) {
        return BrokenInvariant{"find_matches reported a node match() in its scope refuses",
                               fmt::format("@{}: {}", module.name(function), found.root())};
      }
    }
  }
  relay::Module merged = eliminate_common_subexpr(module).module;
  for (bool relay_compat : {false, true}) {
    if (passes & kPartitionPass) {
      auto partitioned = partition(pattern, module, {.attrs = {{"Composite", "fuzz"}},
                                                     .relay_compat = relay_compat});
      if (Checked broken =
              detail::partitioned_well(partitioned, module, merged, relay_compat, "partition")) {
        return broken;
      }
    }
    if (passes & kRewritePass) {
      if (Checked broken = detail::rewritten_well(pattern, module, relay_compat)) return broken;
    }
    if (!(passes & kMergeCompositePass)) continue;
    // With a second entry that matches a common call, so that the first entry's functions
    // are what the second one must look past.
    std::vector<CompositePattern<relay::Dialect>> table = {
        {.name = "fuzz", .pattern = pattern},
        {.name = "relu", .pattern = dsl::is_op("nn.relu")(dsl::wildcard())}};
    auto composed = merge_composite(table, module, {.relay_compat = relay_compat});
    if (Checked broken =
            detail::partitioned_well(composed, module, merged, relay_compat, "merge_composite")) {
      return broken;
    }
  }
  return std::nullopt;
}

}  // namespace graphpat::testing
