// graphpat's passes as the harness measures them: one registration each (see registry.hpp).
//
// To add a pass once it lands, append one registration to add_passes() below and, for a new
// header, its #include; nothing else changes. Still to come (issue 8):
//   registry.add_with_setup("rewrite", Floor::kDfs, ...);          // 5 callbacks
//
// The floor says what a pass is divided by: kHashCons for passes that rebuild the graph
// through a table, kLinearScan / kDfs for traversals, kMemcpyText / kMemcpyJson for readers
// and writers of those bytes (which also makes the table show their MB/s).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <graphpat/cse.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>
#include <graphpat/transform/merge_composite.hpp>

#include "floors.hpp"
#include "registry.hpp"

namespace bench {
namespace {

/// The harness keeps under ~8 GB. TVM JSON is 0.9-1.6 KB per node of a synthetic workload
/// and load_json / save_json peak at 2-5 KB per node; print_text peaks at 400-800 B per node
/// (and making the parser's input at 1e7 is a print_text): at 1e7 nodes each would need
/// 10 GB or more, so the text and JSON passes stop at 1e6.
constexpr PassOptions kBytesLimit{.max_nodes = 1'000'000};

/// Replay target: every node through a Builder, pure nodes hash-consed whatever the source
/// said (importer-made duplicates come back as the existing node).
struct BuilderTarget {
  graphpat::relay::Builder& builder;
  graphpat::NodeId copy(const graphpat::relay::Graph& source, graphpat::NodeId id,
                        std::span<const graphpat::NodeId> operands) {
    return builder.copy(source, id, operands, graphpat::Sharing::kHashCons);
  }
};

using CorpusPatterns = absl::StatusOr<std::vector<graphpat::CompositePattern<graphpat::relay::Dialect>>>;

/// The ten named patterns of tests/data/corpus/patterns.txt (`name: pattern` lines), as a
/// MergeComposite table in file order.
CorpusPatterns corpus_patterns() {
  std::ifstream in(std::filesystem::path(GRAPHPAT_BENCH_DATA_DIR) / "corpus" / "patterns.txt");
  std::vector<graphpat::CompositePattern<graphpat::relay::Dialect>> patterns;
  for (std::string line; std::getline(in, line);) {
    std::size_t colon = line.find(": ");
    if (line.empty() || line.front() == '#' || colon == std::string::npos) continue;
    absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(line.substr(colon + 2));
    if (!pattern.ok()) return pattern.status();
    patterns.push_back({line.substr(0, colon), *std::move(pattern)});
  }
  return patterns;
}

/// Runs `pass(pattern)` for every corpus pattern; the sum of what it counts.
template <class Pass>
absl::StatusOr<std::size_t> for_each_pattern(CorpusPatterns& patterns, Pass&& pass) {
  if (!patterns.ok()) return patterns.status();
  std::size_t total = 0;
  for (const auto& entry : *patterns) total += pass(entry.pattern);
  return total;
}

}  // namespace

void add_passes(PassRegistry& registry) {
  registry.add("build", Floor::kHashCons, [](const Workload& w) {
    graphpat::relay::Graph graph(w.module().graph.shared_context());
    graphpat::relay::Builder builder(graph);
    BuilderTarget target{builder};
    replay(w.module().graph, target);
    return graph;
  });
  registry.add("cse", Floor::kHashCons,
               [](const Workload& w) { return graphpat::eliminate_common_subexpr(w.module()); });
  registry.add("cse_relay_compat", Floor::kHashCons, [](const Workload& w) {
    return graphpat::eliminate_common_subexpr(w.module(), {.relay_compat = true});
  });
  // Every pattern of patterns.txt, TVM's semantics, every node of every function: per node
  // of the workload, the cost of trying ten patterns there.
  registry.add_with_setup(
      "find_matches", Floor::kLinearScan, [](const Workload&) { return corpus_patterns(); },
      [](const Workload& w, CorpusPatterns& patterns) {
        return for_each_pattern(patterns, [&](const graphpat::Pattern& pattern) {
          std::size_t found = 0;
          for (graphpat::NodeId root : w.module().roots()) {
            found += graphpat::find_matches(pattern, w.module().graph, root,
                                            {.relay_compat = true})
                         .size();
          }
          return found;
        });
      });
  // Partition with each of the ten patterns in turn (default mode: CSE first), each from the
  // workload itself.
  registry.add_with_setup(
      "partition", Floor::kDfs, [](const Workload&) { return corpus_patterns(); },
      [](const Workload& w, CorpusPatterns& patterns) {
        return for_each_pattern(patterns, [&](const graphpat::Pattern& pattern) {
          return static_cast<std::size_t>(
              graphpat::partition(pattern, w.module()).report.accepted);
        });
      });
  // MergeComposite with the ten patterns as one table, in file order.
  registry.add_with_setup(
      "merge_composite", Floor::kDfs, [](const Workload&) { return corpus_patterns(); },
      [](const Workload& w, CorpusPatterns& table) -> absl::StatusOr<std::size_t> {
        if (!table.ok()) return table.status();
        return static_cast<std::size_t>(
            graphpat::merge_composite(*table, w.module()).report.accepted);
      });
  registry.add(
      "parse_text", Floor::kMemcpyText,
      [](const Workload& w) { return graphpat::relay::parse_text(w.text()); }, kBytesLimit);
  registry.add(
      "print_text", Floor::kMemcpyText,
      [](const Workload& w) { return graphpat::relay::print_text(w.module()); }, kBytesLimit);
  registry.add(
      "load_json", Floor::kMemcpyJson,
      [](const Workload& w) { return graphpat::relay::load_json(w.json()); }, kBytesLimit);
  registry.add(
      "save_json", Floor::kMemcpyJson,
      [](const Workload& w) { return graphpat::relay::save_json(w.module()); }, kBytesLimit);
}

}  // namespace bench
