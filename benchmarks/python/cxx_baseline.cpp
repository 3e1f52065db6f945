// cxx_baseline: the C++ side of benchmarks/python/bench_python.py. Times in-process, as a C++
// user would call them, the same partition and the same rewrite that the Python script times
// through graphpat's Python package, so that the difference is the cost of Python.
//
//   cxx_baseline partition <model.relay> <pattern.txt> <reps>
//     parse_pattern(pattern text) once, then partition(pattern, module) per repetition
//   cxx_baseline rewrite <chain.relay> <reps>
//     rewrite of relu(add(multiply(x, c), one)) into relu(add(add(x, x), one)), per repetition
//
// Prints one line: `median_seconds <s> count <n> nodes <m>`, where count is the groups
// partition accepted or the roots rewrite replaced, and nodes the size of the result's graph.
#include <absl/status/statusor.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graphpat/graphpat.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using graphpat::NodeId;
using graphpat::relay::Dialect;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

template <typename T>
T value_or_exit(absl::StatusOr<T> value) {
  if (!value.ok()) {
    std::fprintf(stderr, "cxx_baseline: %s\n", std::string(value.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(value);
}

double median(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Runs `once` `reps` times; `once` returns (count, nodes) of its result.
template <typename Once>
void time_and_print(int reps, Once once) {
  std::vector<double> seconds;
  std::pair<std::uint32_t, std::uint32_t> counts;
  for (int rep = 0; rep < reps; ++rep) {
    Clock::time_point start = Clock::now();
    counts = once();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::printf("median_seconds %.9f count %u nodes %u\n", median(seconds), counts.first,
              counts.second);
}

void partition(const char* model_path, const char* pattern_path, int reps) {
  graphpat::relay::Module module = value_or_exit(graphpat::relay::parse_text(read_file(model_path)));
  graphpat::Pattern pattern = value_or_exit(graphpat::parse_pattern(read_file(pattern_path)));
  time_and_print(reps, [&] {
    graphpat::PartitionResult<Dialect> result = graphpat::partition(pattern, module, {});
    return std::pair(result.report.accepted, result.module.graph.size());
  });
}

void rewrite(const char* chain_path, int reps) {
  using namespace graphpat::dsl;
  graphpat::relay::Module module = value_or_exit(graphpat::relay::parse_text(read_file(chain_path)));
  graphpat::Pattern x = wildcard(), one = is_constant();
  graphpat::RewriteCallback<Dialect> callback{
      .pattern = is_op("nn.relu")(is_op("add")(is_op("multiply")(x, is_constant()), one)),
      .rewrite = [=](NodeId, NodeId post, const graphpat::RewriteBindings& bound,
                     graphpat::Rewriter<Dialect>& rewriter) {
        NodeId input = bound.bound(x);
        NodeId doubled = value_or_exit(rewriter.call("add", {input, input}, {}));
        NodeId sum = value_or_exit(rewriter.call("add", {doubled, bound.bound(one)}, {}));
        absl::StatusOr<NodeId> relu = rewriter.call("nn.relu", {sum}, {});
        return relu.ok() ? *relu : post;
      }};
  time_and_print(reps, [&] {
    graphpat::ModuleRewriteResult<Dialect> result = graphpat::rewrite({callback}, module);
    return std::pair(result.rewrites, result.module.graph.size());
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "partition" && argc == 5) {
    partition(argv[2], argv[3], std::stoi(argv[4]));
  } else if (mode == "rewrite" && argc == 4) {
    rewrite(argv[2], std::stoi(argv[3]));
  } else {
    std::fprintf(stderr,
                 "usage: cxx_baseline partition <model.relay> <pattern.txt> <reps>\n"
                 "       cxx_baseline rewrite <chain.relay> <reps>\n");
    return 2;
  }
  return 0;
}
