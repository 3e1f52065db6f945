// The `--vs-tvm` table (vs_tvm.hpp): graphpat's operations on the corpus models TVM was timed on,
// beside TVM v0.14's recorded times.
#include "vs_tvm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <absl/status/statusor.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <graphpat/cse.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>

#include "registry.hpp"
#include "workload.hpp"

namespace bench {
namespace {

constexpr int kSamples = 7;
constexpr double kSampleSeconds = 2e-3;
constexpr std::size_t kMinRunsPerSample = 3;

/// What graphpat runs for one row of the table.
enum class Kind {
  kCse,
  kFindMatches,
  kPartitionRelayCompat,
  kPartitionDefault,
  kParseText,
  kPrintText,
  kLoadJson,
  kSaveJson
};

/// One operation of issue 24's table: what graphpat runs, which TVM time it is compared with,
/// and the goal for the median ratio (every model should reach at least half of it).
struct Operation {
  Kind kind;
  std::string name;
  std::string tvm_key;  // the time's key in results.json (per pattern when `per_pattern()`)
  /// The key of the count TVM recorded for this operation, per pattern (the pattern operations,
  /// whose counts are checked), or "" for a whole-model operation. TVM's default is Relay's own
  /// partition; graphpat's default mode merges duplicates first, as TVM's partition after
  /// EliminateCommonSubexpr does, so it is checked against that count.
  std::string tvm_count_key;
  double goal = 0;

  [[nodiscard]] bool per_pattern() const { return !tvm_count_key.empty(); }
};

const std::vector<Operation>& operations() {
  static const std::vector<Operation> table = {
      {Kind::kCse, "cse (relay_compat)", "t_cse", "", 500},
      {Kind::kFindMatches, "find_matches vs TVM's partition", "t_partition", "matches", 100},
      {Kind::kPartitionRelayCompat, "partition, relay_compat", "t_partition", "partitions", 50},
      {Kind::kPartitionDefault, "partition, default (CSE first) vs TVM's partition",
       "t_partition", "partitions_after_cse", 25},
      {Kind::kParseText, "parse_text (unbound text)", "t_parse_unbound_text", "", 100},
      {Kind::kPrintText, "print_text", "t_astext_unbound", "", 50},
      {Kind::kLoadJson, "load_json (TVM JSON)", "t_load_json_unbound", "", 15},
      {Kind::kSaveJson, "save_json", "t_save_json_unbound", "", 10},
  };
  return table;
}

/// What one run produced: a count to compare with TVM's (or none), or an error.
struct RunResult {
  std::int64_t count = -1;  // -1: nothing to compare
  std::string error;
};

/// What a call produced: what to check, and its result, kept alive until the clock stops and
/// destroyed through the pointer's deleter (out of line: inlined into the timing loop, GCC's
/// -Wfree-nonheap-object takes an empty hash table's destructor for a bad free).
struct Kept {
  RunResult result;
  std::shared_ptr<const void> value;
};

/// A pass's result to keep, with `count` to check for the passes that count.
template <class T>
Kept keep(T value, std::int64_t count) {
  return {RunResult{count, {}}, std::make_shared<const T>(std::move(value))};
}
/// ... and a StatusOr's error, when it is not ok.
template <class T>
Kept keep(absl::StatusOr<T> value) {
  RunResult result;
  if (!value.ok()) result.error = value.status().ToString();
  return {std::move(result), std::make_shared<const absl::StatusOr<T>>(std::move(value))};
}

/// CPU seconds per call (median of kSamples samples), and what the first, untimed call gave.
struct Timing {
  double seconds = 0;
  RunResult first;
};

Timing time_call(const std::function<Kept()>& call) {
  Timing timing;
  timing.first = call().result;
  const CpuClock probe;
  call();
  const double once = std::max(probe.seconds(), 1e-9);
  const std::size_t batch =
      std::max(kMinRunsPerSample, static_cast<std::size_t>(std::ceil(kSampleSeconds / once)));
  std::vector<double> samples;
  for (int s = 0; s < kSamples; ++s) {
    std::vector<Kept> results;
    results.reserve(batch);
    const CpuClock clock;
    for (std::size_t i = 0; i < batch; ++i) results.push_back(call());
    samples.push_back(clock.seconds() / static_cast<double>(batch));
  }
  std::nth_element(samples.begin(), samples.begin() + kSamples / 2, samples.end());
  timing.seconds = samples[kSamples / 2];
  return timing;
}

/// graphpat's time of `op` on `w` (for `pattern` when the operation is per pattern).
Timing measure(const Operation& op, const Workload& w, const graphpat::Pattern* pattern) {
  const graphpat::relay::Module& module = w.module();
  using graphpat::NodeId;
  switch (op.kind) {
    case Kind::kCse:
      return time_call([&] {
        return keep(graphpat::eliminate_common_subexpr(module, {.relay_compat = true}), -1);
      });
    case Kind::kFindMatches:
      return time_call([&] {
        std::int64_t found = 0;
        std::vector<graphpat::Match> matches;
        for (NodeId root : module.roots()) {
          std::vector<graphpat::Match> more =
              graphpat::find_matches(*pattern, module.graph, root, {.relay_compat = true});
          for (const graphpat::Match& m : more) {
            found += module.graph.kind(m.root()) != graphpat::NodeKind::kOp;
          }
          std::move(more.begin(), more.end(), std::back_inserter(matches));
        }
        return keep(std::move(matches), found);
      });
    case Kind::kPartitionRelayCompat:
    case Kind::kPartitionDefault:
      return time_call([&] {
        auto result = graphpat::partition(
            *pattern, module, {.relay_compat = op.kind == Kind::kPartitionRelayCompat});
        const std::int64_t accepted = result.report.accepted;
        return keep(std::move(result), accepted);
      });
    case Kind::kParseText:
      return time_call([&] { return keep(graphpat::relay::parse_text(w.text())); });
    case Kind::kPrintText:
      return time_call([&] { return keep(graphpat::relay::print_text(module)); });
    case Kind::kLoadJson:
      return time_call([&] { return keep(graphpat::relay::load_json(w.json())); });
    case Kind::kSaveJson:
      break;
  }
  return time_call([&] { return keep(graphpat::relay::save_json(module)); });
}

struct Measured {
  std::string model, pattern;  // pattern: "" for whole-model operations
  double seconds = 0, tvm_seconds = 0;
  [[nodiscard]] double ratio() const { return tvm_seconds / seconds; }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int run_vs_tvm(const std::vector<std::string>& models, const std::string& out) {
  const nlohmann::json recorded =
      nlohmann::json::parse(read_file(data_dir() / "corpus" / "tvm" / "results.json"));
  const CorpusPatterns patterns = corpus_patterns();
  if (!patterns.ok()) {
    std::fprintf(stderr, "patterns.txt: %s\n", patterns.status().ToString().c_str());
    return 1;
  }
  int status = 0;
  std::vector<std::vector<Measured>> by_operation(operations().size());
  nlohmann::json figures = nlohmann::json::array();
  for (const auto& [model, tvm] : recorded.items()) {
    if (!models.empty() && std::find(models.begin(), models.end(), model) == models.end()) {
      continue;
    }
    std::fprintf(stderr, "%s ...\n", model.c_str());
    const Workload& w = workload({model, 0});
    for (std::size_t o = 0; o < operations().size(); ++o) {
      const Operation& op = operations()[o];
      auto record = [&](const std::string& pattern_name, const graphpat::Pattern* pattern,
                        const nlohmann::json& tvm_times, std::int64_t expected) {
        const Timing timing = measure(op, w, pattern);
        const Measured m{model, pattern_name, timing.seconds,
                         tvm_times.at(op.tvm_key).get<double>()};
        std::string problem = timing.first.error;
        if (problem.empty() && expected >= 0 && timing.first.count != expected) {
          problem = fmt::format("graphpat counted {}, TVM {}", timing.first.count, expected);
        }
        if (!problem.empty()) {
          std::fprintf(stderr, "%s / %s / %s: %s\n", model.c_str(), op.name.c_str(),
                       pattern_name.c_str(), problem.c_str());
          status = 1;
        }
        figures.push_back({{"model", model},
                           {"operation", op.name},
                           {"pattern", pattern_name},
                           {"graphpat_seconds", m.seconds},
                           {"tvm_seconds", m.tvm_seconds},
                           {"ratio", m.ratio()},
                           {"count", timing.first.count},
                           {"tvm_count", expected},
                           {"error", problem}});
        by_operation[o].push_back(m);
      };
      if (!op.per_pattern()) {
        record("", nullptr, tvm, -1);
        continue;
      }
      for (const auto& entry : *patterns) {
        const nlohmann::json& counts = tvm.at("patterns").at(entry.name);
        record(entry.name, &entry.pattern, counts,
               counts.at(op.tvm_count_key).get<std::int64_t>());
      }
    }
  }

  std::printf(
      "graphpat vs TVM v0.14 (TVM's times: its Python API, recorded on this machine kind, median of"
      " 3,\ntests/data/corpus/tvm/results.json; graphpat: in-process CPU time, median of %d"
      " samples).\nratio = TVM time / graphpat time; pattern operations one pattern at a time.\n\n",
      kSamples);
  std::printf("%-26s %-64s %12s %12s %9s\n", "model", "operation", "graphpat ms", "TVM ms",
              "ratio");
  for (std::size_t o = 0; o < operations().size(); ++o) {
    // Per model: the operation's total over its patterns, and the ratio of the totals.
    std::vector<Measured> totals;
    for (const Measured& m : by_operation[o]) {
      if (totals.empty() || totals.back().model != m.model) totals.push_back({m.model, "", 0, 0});
      totals.back().seconds += m.seconds;
      totals.back().tvm_seconds += m.tvm_seconds;
    }
    for (const Measured& t : totals) {
      std::printf("%-26s %-64s %12.4f %12.4f %9.1f\n", t.model.c_str(),
                  (operations()[o].name + (operations()[o].per_pattern() ? " (10 patterns)" : ""))
                      .c_str(),
                  t.seconds * 1e3, t.tvm_seconds * 1e3, t.ratio());
    }
  }
  std::printf(
      "\nper operation, over models (and patterns, one at a time): the goal is met when the\n"
      "median ratio reaches it and every one reaches half of it\n\n");
  std::printf("%-50s %7s %8s %8s %8s %6s %s\n", "operation", "cases", "min", "median", "max",
              "goal", "met");
  nlohmann::json summary = nlohmann::json::array();
  for (std::size_t o = 0; o < operations().size(); ++o) {
    const Operation& op = operations()[o];
    if (by_operation[o].empty()) continue;
    std::vector<double> ratios;
    for (const Measured& m : by_operation[o]) ratios.push_back(m.ratio());
    const double lo = *std::min_element(ratios.begin(), ratios.end());
    const double hi = *std::max_element(ratios.begin(), ratios.end());
    const double mid = median(ratios);
    const bool met = mid >= op.goal && lo >= op.goal / 2;
    std::printf("%-50s %7zu %8.1f %8.1f %8.1f %6.0f %s\n", op.name.c_str(), ratios.size(), lo,
                mid, hi, op.goal, met ? "yes" : "no");
    summary.push_back({{"operation", op.name},
                       {"cases", ratios.size()},
                       {"min", lo},
                       {"median", mid},
                       {"max", hi},
                       {"goal", op.goal},
                       {"met", met}});
  }
  if (!out.empty()) {
    std::ofstream(out) << nlohmann::json{{"figures", figures}, {"summary", summary}}.dump(2)
                       << "\n";
    std::printf("figures written to %s\n", out.c_str());
  }
  return status;
}

}  // namespace bench
