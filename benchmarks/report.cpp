// Report: collecting Google Benchmark's runs and turning them into the table and the JSON.
#include "report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <iostream>
#include <utility>

#include <fmt/format.h>

namespace bench {
namespace {

double counter(const benchmark::BenchmarkReporter::Run& run, const char* name,
               double absent = 0.0) {
  auto found = run.counters.find(name);
  return found == run.counters.end() ? absent : found->second.value;
}

/// The process's peak resident set, in bytes.
double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;
}

std::string figure(double value, int decimals = 2) {
  return value > 0 ? fmt::format("{:.{}f}", value, decimals) : "-";
}

}  // namespace

Report::Report(std::vector<Entry> entries, nlohmann::json settings)
    : entries_(std::move(entries)), settings_(std::move(settings)) {}

bool Report::ReportContext(const Context& context) {
  machine_ = {{"cpus", context.cpu_info.num_cpus},
              {"mhz_per_cpu", context.cpu_info.cycles_per_second / 1e6},
              {"load_avg", context.cpu_info.load_avg},
              {"host", context.sys_info.name}};
  std::cerr << fmt::format("running {} benchmarks on {} CPUs (progress below, table at the end)\n",
                           entries_.size(), context.cpu_info.num_cpus);
  return true;
}

void Report::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (run.run_type != Run::RT_Iteration) continue;
    const std::string& name = run.run_name.function_name;
    if (run.error_occurred) {
      errors_[name] = run.error_message;
      std::cerr << fmt::format("  {:<44} error: {}\n", name, run.error_message);
      continue;
    }
    Sample sample{
        counter(run, "nodes"),    counter(run, "ns_per_node"), counter(run, "peak_bytes_per_node"),
        counter(run, "mb_per_s"), counter(run, "batch"),       static_cast<double>(run.iterations),
        counter(run, "count", -1)};
    samples_[name].push_back(sample);
    std::cerr << fmt::format("  {:<44} {:>10.2f} ns/node  ({} x {} runs)\n", name,
                             sample.ns_per_node, sample.iterations, sample.batch);
  }
}

std::vector<Row> Report::rows() const {
  std::vector<Row> rows;
  std::map<std::string, double> floor_ns;  // by workload label + floor name
  for (const Entry& entry : entries_) {
    Row row;
    row.entry = &entry;
    const std::string name = entry.name();
    if (auto error = errors_.find(name); error != errors_.end()) row.error = error->second;
    auto found = samples_.find(name);
    if (found == samples_.end() || found->second.empty()) {
      if (row.error.empty()) row.error = "not run";
      rows.push_back(row);
      continue;
    }
    const std::vector<Sample>& samples = found->second;
    auto fastest = std::min_element(samples.begin(), samples.end(), [](auto& a, auto& b) {
      return a.ns_per_node < b.ns_per_node;
    });
    double slowest = 0;
    for (const Sample& s : samples) {
      slowest = std::max(slowest, s.ns_per_node);
      row.peak_bytes_per_node = std::max(row.peak_bytes_per_node, s.peak_bytes_per_node);
      row.mb_per_s = std::max(row.mb_per_s, s.mb_per_s);
    }
    row.repetitions = static_cast<int>(samples.size());
    row.nodes = fastest->nodes;
    row.ns_per_node = fastest->ns_per_node;
    row.count = fastest->count;
    row.spread = row.ns_per_node > 0 ? slowest / row.ns_per_node - 1 : 0;
    if (entry.floor.empty()) {
      floor_ns[entry.spec.label() + "/" + entry.pass] = row.ns_per_node;
    } else if (auto f = floor_ns.find(entry.spec.label() + "/" + entry.floor);
               f != floor_ns.end() && f->second > 0) {
      row.floor_ns_per_node = f->second;
      row.ratio = row.ns_per_node / f->second;
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<Scaling> Report::scaling(const std::vector<Row>& rows) const {
  // ns/node by (shape, pass) and size, synthetic workloads only.
  std::map<std::pair<std::string, std::string>, std::map<std::uint64_t, const Row*>> by;
  std::vector<std::pair<std::string, std::string>> order;
  for (const Row& row : rows) {
    if (!row.entry->spec.synthetic() || row.ns_per_node <= 0) continue;
    auto key = std::pair(row.entry->spec.name, row.entry->pass);
    if (!by.contains(key)) order.push_back(key);
    by[key][row.entry->spec.size] = &row;
  }
  std::vector<Scaling> result;
  for (const auto& key : order) {
    const auto& sizes = by.at(key);
    auto small = sizes.find(10'000);
    const Row* large = sizes.rbegin()->second;
    if (small == sizes.end() || large->entry->spec.size <= 10'000) continue;
    result.push_back({key.first, key.second, large->entry->spec.size_label(),
                      small->second->ns_per_node, large->ns_per_node,
                      large->ns_per_node / small->second->ns_per_node});
  }
  return result;
}

std::vector<const Row*> Report::worst(const std::vector<Row>& rows, std::size_t n) {
  std::vector<const Row*> ranked;
  for (const Row& row : rows) {
    if (row.ratio > 0) ranked.push_back(&row);
  }
  std::sort(ranked.begin(), ranked.end(), [](const Row* a, const Row* b) {
    return a->ratio > b->ratio;
  });
  if (ranked.size() > n) ranked.resize(n);
  return ranked;
}

void Report::print_onnx_goal(std::FILE* out, const std::vector<Row>& rows) {
  std::map<std::string, const Row*> floors;  // by workload label + floor name
  for (const Row& row : rows) {
    if (row.entry->floor.empty()) floors[row.entry->name()] = &row;
  }
  bool header = false;
  for (const Row& row : rows) {
    if (!row.entry->spec.onnx || row.entry->floor.empty() || row.mb_per_s <= 0) continue;
    if (!header) {
      fmt::print(out, "\nONNX load and save: MB/s of the model's bytes (goal >= {:.0f}), beside "
                      "protobuf's own parse / serialization of them\n", kOnnxGoalMbPerS);
      fmt::print(out, "{:<24} {:<10} {:>9} {:<24} {:>9} {:>7}\n", "workload", "pass", "MB/s",
                 "floor", "MB/s", "ratio");
      header = true;
    }
    auto floor = floors.find(row.entry->spec.label() + "/" + row.entry->floor);
    const double floor_mb_per_s = floor == floors.end() ? 0 : floor->second->mb_per_s;
    fmt::print(out, "{:<24} {:<10} {:>9.1f} {:<24} {:>9} {:>7}{}\n", row.entry->spec.label(),
               row.entry->pass, row.mb_per_s, row.entry->floor, figure(floor_mb_per_s, 1),
               figure(row.ratio, 2), row.mb_per_s < kOnnxGoalMbPerS ? "  < goal" : "");
  }
}

void Report::print(std::FILE* out) const {
  const std::vector<Row> rows = this->rows();
  fmt::print(out, "{:<18} {:>9} {:<18} {:>10} {:>7} {:<18} {:>8} {:>9} {:>11} {:>8}\n",
             "workload", "nodes", "pass", "ns/node", "spread", "floor", "ratio", "MB/s",
             "peak B/node", "count");
  std::string previous;
  for (const Row& row : rows) {
    const std::string workload = row.entry->spec.label();
    if (workload != previous && !previous.empty()) fmt::print(out, "\n");
    previous = workload;
    if (!row.error.empty()) {
      fmt::print(out, "{:<18} {:>9} {:<18} {}\n", workload, "", row.entry->pass, row.error);
      continue;
    }
    fmt::print(out, "{:<18} {:>9.0f} {:<18} {:>10} {:>6.0f}% {:<18} {:>8} {:>9} {:>11.1f} {:>8}\n",
               workload, row.nodes, row.entry->pass, figure(row.ns_per_node), row.spread * 100,
               row.entry->floor.empty() ? "-" : row.entry->floor, figure(row.ratio, 1),
               figure(row.mb_per_s, 1), row.peak_bytes_per_node,
               row.count < 0 ? "-" : fmt::format("{:.0f}", row.count));
  }

  const std::vector<Scaling> scaled = scaling(rows);
  if (!scaled.empty()) {
    fmt::print(out, "\nscaling: ns/node at the largest size / at 1e4 (goal <= 1.5)\n");
    fmt::print(out, "{:<12} {:<18} {:>10} {:>6} {:>10} {:>7}\n", "shape", "pass", "1e4", "size",
               "ns/node", "factor");
    for (const Scaling& s : scaled) {
      fmt::print(out, "{:<12} {:<18} {:>10.2f} {:>6} {:>10.2f} {:>7.2f}{}\n", s.shape, s.pass,
                 s.small_ns, s.large_size, s.large_ns, s.factor, s.factor > 1.5 ? "  > 1.5" : "");
    }
  }
  print_onnx_goal(out, rows);
  fmt::print(out, "\nworst ratios to floor:\n");
  for (const Row* row : worst(rows, 3)) {
    fmt::print(out, "  {:.1f}x  {} on {} ({:.2f} ns/node vs {} {:.2f})\n", row->ratio,
               row->entry->pass, row->entry->spec.label(), row->ns_per_node, row->entry->floor,
               row->floor_ns_per_node);
  }
  fmt::print(out, "worst ratio per floor:\n");
  std::map<std::string, const Row*> per_floor;
  for (const Row& row : rows) {
    if (row.ratio <= 0) continue;
    const Row*& slot = per_floor[row.entry->floor];
    if (slot == nullptr || row.ratio > slot->ratio) slot = &row;
  }
  for (const auto& [floor, row] : per_floor) {
    fmt::print(out, "  {:<18} {:.1f}x  {} on {}\n", floor, row->ratio, row->entry->pass,
               row->entry->spec.label());
  }
  fmt::print(out, "peak resident memory of the run: {:.2f} GB\n", peak_rss_bytes() / 1e9);
}

nlohmann::json Report::to_json() const {
  const std::vector<Row> rows = this->rows();
  nlohmann::json results = nlohmann::json::array();
  for (const Row& row : rows) {
    nlohmann::json r = {{"name", row.entry->name()},
                        {"workload", row.entry->spec.name},
                        {"size", row.entry->spec.size_label()},
                        {"pass", row.entry->pass},
                        {"floor", row.entry->floor}};
    if (!row.error.empty()) {
      r["error"] = row.error;
    } else {
      r.update({{"nodes", row.nodes},
                {"repetitions", row.repetitions},
                {"ns_per_node", row.ns_per_node},
                {"spread", row.spread},
                {"floor_ns_per_node", row.floor_ns_per_node},
                {"ratio_to_floor", row.ratio},
                {"mb_per_s", row.mb_per_s},
                {"peak_bytes_per_node", row.peak_bytes_per_node},
                {"samples_ns_per_node", nlohmann::json::array()}});
      if (row.count >= 0) r["count"] = row.count;
      for (const Sample& s : samples_.at(row.entry->name())) {
        r["samples_ns_per_node"].push_back(s.ns_per_node);
      }
    }
    results.push_back(std::move(r));
  }
  nlohmann::json scaled = nlohmann::json::array();
  for (const Scaling& s : scaling(rows)) {
    scaled.push_back({{"workload", s.shape},
                      {"pass", s.pass},
                      {"small_size", "1e4"},
                      {"large_size", s.large_size},
                      {"small_ns_per_node", s.small_ns},
                      {"large_ns_per_node", s.large_ns},
                      {"factor", s.factor}});
  }
  nlohmann::json worst_rows = nlohmann::json::array();
  for (const Row* row : worst(rows, 3)) worst_rows.push_back(row->entry->name());
  return {{"settings", settings_},     {"machine", machine_},
          {"peak_rss_bytes", peak_rss_bytes()}, {"results", results},
          {"scaling", scaled},         {"worst_ratios", worst_rows}};
}

}  // namespace bench
