// graphpat_bench: what graphpat's passes cost per node, each next to a floor measured on the
// same workload in the same run, so that every figure is also a ratio that machine noise
// largely cancels out of.
//
// Workloads: every real model of tests/data/corpus/models (NAME.unbound.relay, parsed; its
// NAME.unbound.json for the JSON loader), and six synthetic shapes (generators.cpp: chain,
// resnet, transformer, qkv, dag, mobilenet) at 1e3, 1e4, 1e5, 1e6 and 1e7 nodes.
// Passes (passes.cpp): build (every node again through a Builder), cse, cse_relay_compat,
// find_matches, partition and merge_composite (the ten patterns of the corpus's patterns.txt),
// graph_match_qkv and find_matches_dense (a QKV graph pattern beside one nn.dense pattern: the
// cost per match of several roots against one), rewrite_bindings_qkv and graph_partition_qkv
// (that context rewritten, and outlined), rewrite (five callbacks), parse_text, print_text,
// load_json, save_json (partition, merge_composite and the last seven up to 1e6 nodes: memory
// and time). Floors (floors.hpp): linear scan, iterative DFS, absl::flat_hash_map
// hash-cons, memcpy of the text / JSON bytes.
// ONNX workloads: the full-weight models of tests/data/onnx (NAME.onnx) and a generated chain
// (onnx_chain, up to 1e6 nodes), on which only onnx_load and onnx_save run, beside protobuf's
// own ParseFromString and SerializeToString of the same bytes (goal: >= 300 MB/s each).
// Each pass is one Google Benchmark benchmark timed with process CPU time (manual time); see
// report.hpp for the figures and registry.hpp / passes.cpp for how to add a pass.
//
// Run (Release; benchmarks/run.sh configures, builds and runs this in one command):
//   graphpat_bench                       # everything, ~25 CPU min, up to ~8 GB
//   graphpat_bench --quick               # 1e3 and 1e4 only, 2 short repetitions: < 2 min
//   graphpat_bench --out results.json    # also write every figure as JSON
//   graphpat_bench --workloads=mlp,dag --sizes=1e4,1e5 --passes=cse,build
//   graphpat_bench --vs-tvm              # graphpat against TVM v0.14's recorded times (vs_tvm.hpp)
// Other flags go to Google Benchmark (--benchmark_filter=REGEX on "workload[/size]/pass").
// Progress goes to stderr, the table to stdout; the exit status is 1 if a benchmark failed.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "heap.hpp"
#include "registry.hpp"
#include "report.hpp"
#include "vs_tvm.hpp"
#include "workload.hpp"

namespace bench {
namespace {

struct Options {
  bool quick = false;
  bool vs_tvm = false;
  std::string out;
  std::vector<std::uint64_t> sizes;  // empty: the mode's
  std::vector<std::string> workloads;  // empty: all
  std::vector<std::string> passes;     // empty: all
};

constexpr std::string_view kUsage = R"(usage: graphpat_bench [--quick] [--out FILE]
       [--sizes=1e3,1e4,...] [--workloads=NAME,...] [--passes=NAME,...] [--benchmark_...]
       graphpat_bench --vs-tvm [--workloads=MODEL,...] [--out FILE]
  --quick       sizes 1e3 and 1e4, 2 short repetitions (a smoke run, < 2 min)
  --vs-tvm      graphpat against TVM v0.14's recorded times on the models TVM was timed on,
                operation by operation, with issue 24's goals (about a minute)
  --out FILE    also write every figure as JSON
  --sizes       synthetic sizes (default 1e3..1e7; --quick: 1e3,1e4)
  --workloads   model names (mlp, resnet18, ..., lstm_tagger.onnx, ...) and shapes (chain,
                resnet, transformer, qkv, dag, mobilenet, onnx_chain); default: all
  --passes      pass names (build, cse, ...); floors run as the passes need them
)";

std::vector<std::string> split(std::string_view list) {
  std::vector<std::string> items;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (comma != 0) items.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return list.empty() || std::find(list.begin(), list.end(), item) != list.end();
}

/// Takes the harness's own flags out of argv; the rest is for Google Benchmark.
Options parse_options(int& argc, char** argv) {
  Options options;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string_view> {
      if (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=') {
        return arg.substr(flag.size() + 1);
      }
      if (arg == flag && i + 1 < argc) return std::string_view(argv[++i]);
      return std::nullopt;
    };
    if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--vs-tvm") {
      options.vs_tvm = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (auto out = value("--out")) {
      options.out = *out;
    } else if (auto sizes = value("--sizes")) {
      for (const std::string& size : split(*sizes)) {
        options.sizes.push_back(static_cast<std::uint64_t>(std::stod(size)));
      }
    } else if (auto workloads = value("--workloads")) {
      options.workloads = split(*workloads);
    } else if (auto passes = value("--passes")) {
      options.passes = split(*passes);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (options.sizes.empty()) {
    options.sizes = options.quick ? std::vector<std::uint64_t>{1'000, 10'000}
                                  : std::vector<std::uint64_t>{1'000, 10'000, 100'000, 1'000'000,
                                                               10'000'000};
  }
  return options;
}

/// A sample of at least this many node visits, so the clock's cost stays negligible.
constexpr double kNodesPerSample = 1e5;
/// ... but of at most this many input bytes: a model of few nodes and megabytes of weights
/// (the ONNX models) would otherwise keep gigabytes of results until the clock stops.
constexpr double kBytesPerSample = 64e6;
/// Passes (not floors) on workloads this large are run once: the first (setup) run is also the
/// only sample, since partition and merge_composite take 5-15 s per run at 1e6 nodes and the
/// 1e7 passes 5-30 s (floors run twice, an untimed run and a timed one). That sample includes
/// destroying the result.
constexpr std::uint64_t kSingleRunNodes = 1'000'000;

bool single_run(const Entry& entry) {
  return entry.spec.size >= kSingleRunNodes && !entry.floor.empty();
}

/// The pass set up on its workload: kept across the calls Google Benchmark makes for one
/// benchmark (iteration-count probes, repetitions), so setup and the first run (untimed, except
/// for a single_run entry) happen once.
struct Current {
  std::string name;
  std::unique_ptr<Job> job;
  std::string error;
  std::optional<std::uint64_t> count;
  double first_run_seconds = 0;
  double peak_bytes = 0;
  double input_bytes = 0;
};

void measure(benchmark::State& state, const Entry& entry, const Pass& pass) {
  static Current current;
  const Workload* w = nullptr;
  try {
    if (current.name != entry.name()) {
      current = Current();  // drop the previous job before its workload may go
      current.name = entry.name();
      w = &workload(entry.spec);
      const Input input = pass.input();
      if (input == Input::kText) current.input_bytes = static_cast<double>(w->text().size());
      if (input == Input::kJson) current.input_bytes = static_cast<double>(w->json().size());
      if (input == Input::kOnnx) current.input_bytes = static_cast<double>(w->onnx().size());
      const std::size_t before = reset_peak_heap();
      current.job = pass.start(*w);
      const CpuClock clock;
      Outcome outcome = current.job->run_once();
      current.first_run_seconds = clock.seconds();
      current.error = std::move(outcome.error);
      if (pass.floor != Floor::kNone) current.count = outcome.count;  // a floor's is a checksum
      current.peak_bytes = static_cast<double>(peak_heap_bytes() - before);
    }
    w = &workload(entry.spec);
  } catch (const std::exception& e) {
    current.error = e.what();
  }
  if (!current.error.empty()) {
    state.SkipWithError(current.error.c_str());
    return;
  }
  const double nodes = w->nodes();
  double per_sample = kNodesPerSample / nodes;
  if (current.input_bytes > 0) {
    per_sample = std::min(per_sample, kBytesPerSample / current.input_bytes);
  }
  const auto batch = static_cast<std::size_t>(std::max(1.0, per_sample));
  double seconds = 0;
  for (auto _ : state) {
    const double elapsed =
        single_run(entry) ? current.first_run_seconds : current.job->timed(batch);
    state.SetIterationTime(elapsed);
    seconds += elapsed;
  }
  const double runs = static_cast<double>(state.iterations()) * static_cast<double>(batch);
  state.counters["nodes"] = nodes;
  state.counters["batch"] = static_cast<double>(batch);
  state.counters["ns_per_node"] = seconds * 1e9 / (runs * nodes);
  state.counters["peak_bytes_per_node"] = current.peak_bytes / nodes;
  if (current.count) state.counters["count"] = static_cast<double>(*current.count);
  if (current.input_bytes > 0 && seconds > 0) {
    state.counters["mb_per_s"] = current.input_bytes * runs / seconds / 1e6;
  }
}

/// Repetitions and timing for `entry` (a workload size of 0 is a real model, all small).
void configure(benchmark::internal::Benchmark* b, const Options& options, const Entry& entry) {
  const std::uint64_t size = entry.spec.size;
  b->UseManualTime()->Unit(benchmark::kMillisecond);
  if (size >= kSingleRunNodes) {
    b->Repetitions(1)->Iterations(1);  // a pass: the setup run, timed (see measure)
  } else if (options.quick) {
    b->Repetitions(2)->MinTime(0.02);
  } else {
    b->Repetitions(3)->MinTime(0.1);
  }
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  keep_freed_memory();
  const Options options = parse_options(argc, argv);
  if (options.vs_tvm) return run_vs_tvm(options.workloads, options.out);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  static PassRegistry registry;
  add_floors(registry);
  add_passes(registry);

  std::vector<WorkloadSpec> specs;
  for (const std::string& model : model_names()) {
    if (contains(options.workloads, model)) specs.push_back({model, 0});
  }
  for (const std::string& shape : shape_names()) {
    if (!contains(options.workloads, shape)) continue;
    for (std::uint64_t size : options.sizes) specs.push_back({shape, size});
  }
  for (const std::string& model : onnx_model_names()) {
    if (contains(options.workloads, model)) specs.push_back({model, 0, true});
  }
  for (const std::string& shape : onnx_shape_names()) {
    if (!contains(options.workloads, shape)) continue;
    for (std::uint64_t size : options.sizes) specs.push_back({shape, size, true});
  }

  // Per workload: the floors its passes need (and floors no pass uses, for reference), then
  // the passes. Entries are registered in this order and Google Benchmark runs them so.
  std::vector<Entry> entries;
  std::vector<const Pass*> entry_passes;
  for (const WorkloadSpec& spec : specs) {
    auto runs = [&](const Pass& pass) {
      return pass.floor != Floor::kNone && contains(options.passes, pass.name) &&
             spec.size <= pass.options.max_nodes && (pass.input() == Input::kOnnx) == spec.onnx;
    };
    for (const Pass& floor : registry.passes()) {
      if (floor.floor != Floor::kNone) continue;
      bool needed = false, used = false;
      for (const Pass& pass : registry.passes()) {
        if (floor.name != floor_pass_name(pass.floor)) continue;
        used = true;
        needed = needed || runs(pass);
      }
      if (needed || !used) {
        entries.push_back({spec, floor.name, ""});
        entry_passes.push_back(&floor);
      }
    }
    for (const Pass& pass : registry.passes()) {
      if (!runs(pass)) continue;
      entries.push_back({spec, pass.name, floor_pass_name(pass.floor)});
      entry_passes.push_back(&pass);
    }
  }
  static std::vector<Entry> registered = entries;
  for (std::size_t i = 0; i < registered.size(); ++i) {
    const Entry* entry = &registered[i];
    const Pass* pass = entry_passes[i];
    configure(benchmark::RegisterBenchmark(
                  entry->name().c_str(),
                  [entry, pass](benchmark::State& state) { measure(state, *entry, *pass); }),
              options, *entry);
  }

  nlohmann::json settings = {{"mode", options.quick ? "quick" : "full"},
                             {"sizes", options.sizes},
                             {"workloads", options.workloads},
                             {"passes", options.passes}};
  Report report(entries, settings);
  benchmark::RunSpecifiedBenchmarks(&report);
  benchmark::Shutdown();
  report.print(stdout);
  if (!options.out.empty()) {
    std::ofstream(options.out) << report.to_json().dump(2) << "\n";
    std::fprintf(stdout, "figures written to %s\n", options.out.c_str());
  }
  return report.failed() ? 1 : 0;
}
