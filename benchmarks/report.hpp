// The harness's output: collects the Google Benchmark runs (a BenchmarkReporter, used as the
// display reporter), then derives every figure from them and prints one table, the scaling
// summary and the worst ratios to floor, and writes the same figures as JSON.
//
// Figures per (workload, pass), over the repetitions of its benchmark:
//   ns/node     the fastest repetition's CPU ns per node (noise on a shared machine only adds
//               time, so the minimum is the best estimate; "spread" is max/min - 1)
//   ratio       ns/node / the same workload's floor ns/node, both minima of this run
//   MB/s        bytes read or written per CPU second (parsers: input; printers: output)
//   count       what the pass counted on the workload, for passes that count: matches
//               (find_matches), groups outlined (partition, merge_composite), rewrites applied
//               (rewrite)
//   peak B/node the most heap bytes the pass held at once, above what existed before it
//               (its setup, its run and its result), per node
//   scaling     per synthetic shape and pass: ns/node at the largest size run / at 1e4
//   ONNX goal   onnx_load and onnx_save in MB/s of the model's bytes, beside their protobuf
//               floor's MB/s, marked when under kOnnxGoalMbPerS
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workload.hpp"

namespace bench {

/// What onnx_load and onnx_save should reach, in MB/s of the model's bytes (issue 23).
inline constexpr double kOnnxGoalMbPerS = 300;

/// One registered benchmark: a pass (or floor) on a workload.
struct Entry {
  WorkloadSpec spec;
  std::string pass;
  std::string floor;  // the floor's pass name, "" for a floor itself

  [[nodiscard]] std::string name() const { return spec.label() + "/" + pass; }
};

/// The counters one repetition reported.
struct Sample {
  double nodes = 0;
  double ns_per_node = 0;
  double peak_bytes_per_node = 0;
  double mb_per_s = 0;
  double batch = 0;
  double iterations = 0;
  double count = -1;  // -1: the pass does not count
};

/// Everything the table shows for one entry.
struct Row {
  const Entry* entry = nullptr;
  std::string error;  // why it did not run, or ""
  int repetitions = 0;
  double nodes = 0;
  double ns_per_node = 0;  // minimum over repetitions
  double spread = 0;       // max / min - 1
  double floor_ns_per_node = 0;
  double ratio = 0;  // 0 for floors and when the floor did not run
  double mb_per_s = 0;
  double peak_bytes_per_node = 0;
  double count = -1;  // -1: the pass does not count
};

struct Scaling {
  std::string shape, pass;
  std::string large_size;  // "1e7", or the largest size run
  double small_ns = 0, large_ns = 0, factor = 0;
};

class Report : public benchmark::BenchmarkReporter {
 public:
  /// `settings` (mode, sizes, ...) is copied into the JSON as is.
  Report(std::vector<Entry> entries, nlohmann::json settings);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;

  /// The table, the scaling summary, the ONNX goal and the three worst ratios.
  void print(std::FILE* out) const;
  [[nodiscard]] nlohmann::json to_json() const;
  /// Whether a benchmark failed (a pass returned an error or threw).
  [[nodiscard]] bool failed() const { return !errors_.empty(); }

 private:
  [[nodiscard]] std::vector<Row> rows() const;
  [[nodiscard]] std::vector<Scaling> scaling(const std::vector<Row>& rows) const;
  [[nodiscard]] static std::vector<const Row*> worst(const std::vector<Row>& rows, std::size_t n);
  static void print_onnx_goal(std::FILE* out, const std::vector<Row>& rows);

  std::vector<Entry> entries_;
  nlohmann::json settings_;
  nlohmann::json machine_;
  std::map<std::string, std::vector<Sample>> samples_;  // by benchmark name
  std::map<std::string, std::string> errors_;
};

}  // namespace bench
