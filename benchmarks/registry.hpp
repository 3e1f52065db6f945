// The registry of what the harness measures. A pass is a name, the floor its figures are
// divided by, and a function run on a workload; registering one is all it takes for the
// harness to time it on every workload, next to its floor, and list it in the table, the JSON
// and the scaling summary. passes.cpp registers graphpat's passes, floors.cpp the floors.
//
//   registry.add("cse", bench::Floor::kHashCons, [](const bench::Workload& w) {
//     return graphpat::eliminate_common_subexpr(w.module());
//   });
//   // Setup that must not be timed (parsing patterns, building a table) goes in a first
//   // function; its result is handed to every run:
//   registry.add_with_setup("find_matches", bench::Floor::kLinearScan,
//       [](const bench::Workload& w) { return load_patterns(w); },
//       [](const bench::Workload& w, Patterns& patterns) { return run_all(w, patterns); });
//
// Whatever a run returns is kept until the clock stops and destroyed outside the timed region;
// a returned absl::StatusOr that is not ok fails the benchmark (reported, not timed). A run that
// returns a count (an unsigned integer, or a StatusOr of one: matches found, groups made,
// rewrites applied) has it shown in the table's "count" column.
#pragma once

#include <absl/status/statusor.h>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "workload.hpp"

namespace bench {

/// What a pass's time is divided by: a floor measured on the same workload in the same run.
enum class Floor {
  kNone,        // a floor itself
  kLinearScan,  // visit every node of the node array once (traversal-like passes)
  kDfs,         // iterative DFS with an explicit stack from the roots (traversal-like passes)
  kHashCons,    // re-insert every node into a plain absl::flat_hash_map (builder, CSE)
  kMemcpyText,  // memcpy of the Relay text bytes (text parser and printer; MB/s of the text)
  kMemcpyJson,  // memcpy of the TVM JSON bytes (JSON loader and saver; MB/s of the JSON)
  kProtobufParse,      // ModelProto::ParseFromString of the ONNX bytes (ONNX reader)
  kProtobufSerialize,  // ModelProto::SerializeToString of the parsed bytes (ONNX writer)
};

/// The floor benchmark's pass name ("floor.hash_cons"), or "" for kNone.
const char* floor_pass_name(Floor floor);

/// The bytes a pass reads or writes: made ready before it is measured (so their making is
/// not counted in its memory), and what its MB/s figure counts.
enum class Input {
  kFromFloor,  // text for kMemcpyText, JSON for kMemcpyJson, else none
  kGraph,      // the module only: no MB/s
  kText,
  kJson,
  kOnnx,  // an ONNX model's bytes: the pass runs on ONNX workloads only
};

struct PassOptions {
  /// Synthetic workloads of more nodes are not run (the pass would not fit the memory budget).
  std::uint64_t max_nodes = std::numeric_limits<std::uint64_t>::max();
  Input input = Input::kFromFloor;
};

/// CPU time of this process: other processes sharing the machine do not inflate it.
class CpuClock {
 public:
  CpuClock() : start_(now()) {}
  [[nodiscard]] double seconds() const { return now() - start_; }

 private:
  static double now() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }
  double start_;
};

/// What a pass's first run produced.
struct Outcome {
  std::string error;                   // why the result is unusable, or "" when it is fine
  std::optional<std::uint64_t> count;  // what the run counted, when it returns a count
};

/// A pass set up on one workload, ready to run.
class Job {
 public:
  virtual ~Job() = default;
  /// Runs once, untimed (the harness times it itself where the first run is the only sample).
  virtual Outcome run_once() = 0;
  /// CPU seconds that `count` runs take; their results are destroyed after the clock stops.
  virtual double timed(std::size_t count) = 0;
};

struct Pass {
  std::string name;
  Floor floor = Floor::kNone;
  PassOptions options;
  std::function<std::unique_ptr<Job>(const Workload&)> start;  // runs the setup

  /// options.input with kFromFloor resolved.
  [[nodiscard]] Input input() const {
    if (options.input != Input::kFromFloor) return options.input;
    if (floor == Floor::kMemcpyText) return Input::kText;
    if (floor == Floor::kMemcpyJson) return Input::kJson;
    if (floor == Floor::kProtobufParse || floor == Floor::kProtobufSerialize) return Input::kOnnx;
    return Input::kGraph;
  }
};

namespace detail {

template <class T>
Outcome outcome_of(const T& result) {
  if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) return {{}, result};
  return {};
}
template <class T>
Outcome outcome_of(const absl::StatusOr<T>& result) {
  return result.ok() ? outcome_of(*result) : Outcome{result.status().ToString(), {}};
}

template <class Setup, class Run>
class JobOf final : public Job {
 public:
  using State = std::invoke_result_t<Setup&, const Workload&>;
  using Result = std::invoke_result_t<Run&, const Workload&, State&>;

  JobOf(const Workload& workload, Setup& setup, Run run)
      : workload_(workload), state_(setup(workload)), run_(std::move(run)) {}

  Outcome run_once() override { return outcome_of(run_(workload_, state_)); }

  double timed(std::size_t count) override {
    std::vector<Result> results;
    results.reserve(count);
    const CpuClock clock;
    for (std::size_t i = 0; i < count; ++i) results.push_back(run_(workload_, state_));
    benchmark::DoNotOptimize(results.data());
    benchmark::ClobberMemory();
    return clock.seconds();
  }

 private:
  const Workload& workload_;
  State state_;
  Run run_;
};

}  // namespace detail

class PassRegistry {
 public:
  /// A pass without setup: `run(const Workload&)` is timed.
  template <class Run>
  void add(std::string name, Floor floor, Run run, PassOptions options = {}) {
    add_with_setup(
        std::move(name), floor, [](const Workload&) { return 0; },
        [run = std::move(run)](const Workload& w, int&) { return run(w); }, options);
  }

  /// A pass with untimed setup: `setup(const Workload&)` returns a state S, made once per
  /// workload; `run(const Workload&, S&)` is timed.
  template <class Setup, class Run>
  void add_with_setup(std::string name, Floor floor, Setup setup, Run run,
                      PassOptions options = {}) {
    passes_.push_back(
        {std::move(name), floor, options,
         [setup = std::move(setup), run = std::move(run)](const Workload& w) mutable {
           return std::unique_ptr<Job>(new detail::JobOf<Setup, Run>(w, setup, run));
         }});
  }

  [[nodiscard]] const std::vector<Pass>& passes() const { return passes_; }

 private:
  std::vector<Pass> passes_;
};

/// Registers the floors (floors.cpp).
void add_floors(PassRegistry& registry);
/// Registers graphpat's passes (passes.cpp): the place to add new ones.
void add_passes(PassRegistry& registry);

}  // namespace bench
