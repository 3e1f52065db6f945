// graphpat stats IN: nodes by kind and by op, depth, functions, constants and their bytes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <graphpat/analysis/reachability.hpp>

#include "commands.hpp"
#include "io.hpp"

namespace graphpat::cli {

namespace {

struct StatsCommandOptions {
  std::string input;
};

struct ModelStats {
  std::uint32_t nodes = 0;
  std::array<std::uint32_t, kNodeKindCount> by_kind{};
  std::map<std::string, std::uint32_t, std::less<>> by_op;
  std::uint32_t depth = 0;
  std::uint32_t constants = 0;
  std::uint32_t constants_without_data = 0;
  std::uint64_t constant_bytes = 0;
};

/// Counts the nodes reachable from the module's functions. Depth: the longest chain of
/// operands, in nodes, ops and function nodes not counted (a function is as deep as its body).
template <Dialect D>
ModelStats measure(const Module<D>& module) {
  const Graph<D>& graph = module.graph;
  std::vector<NodeId> roots = module.roots();
  std::vector<bool> live = reachable_from(graph, roots);
  std::vector<std::uint32_t> depth(graph.size(), 0);
  ModelStats stats;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (!live[i]) continue;
    NodeId id(i);
    NodeKind kind = graph.kind(id);
    ++stats.nodes;
    ++stats.by_kind[static_cast<std::size_t>(kind)];
    std::uint32_t deepest = 0;
    for (NodeId operand : graph.operands(id)) deepest = std::max(deepest, depth[operand.index()]);
    if (kind != NodeKind::kOp) depth[i] = kind == NodeKind::kFunction ? deepest : deepest + 1;
    stats.depth = std::max(stats.depth, depth[i]);
    if (kind == NodeKind::kCall) {
      OpId op = graph.called_op(id);
      NodeId callee = graph.callee(id);
      std::string name = op.valid() ? std::string(graph.context().op_name(op))
                         : graph.kind(callee) == NodeKind::kGlobalVar
                             ? fmt::format("@{}", graph.name(callee))
                             : "(call of a non-op)";
      ++stats.by_op[name];
    }
    if (kind == NodeKind::kConstant) {
      ++stats.constants;
      const Tensor& tensor = graph.tensor(id);
      if (tensor.has_data()) {
        stats.constant_bytes += tensor.data->size;
      } else {
        ++stats.constants_without_data;
      }
    }
  }
  return stats;
}

template <Dialect D>
std::string report(const Loaded& input, const Module<D>& module) {
  ModelStats stats = measure(module);
  std::string out = fmt::format("file: {} ({})\n", input.name, format_name(input.format));
  std::vector<std::string> names;
  for (const GlobalFunction& function : module.functions()) {
    names.push_back(fmt::format("@{}", module.name(function)));
  }
  out += fmt::format("functions: {}{}{}\n", names.size(), names.empty() ? "" : " ",
                     fmt::join(names, " "));
  out += fmt::format("nodes: {}\n", stats.nodes);
  for (int k = 0; k < kNodeKindCount; ++k) {
    if (stats.by_kind[k] == 0) continue;
    out += fmt::format("  {}: {}\n", node_kind_name(static_cast<NodeKind>(k)), stats.by_kind[k]);
  }
  out += fmt::format("calls by op: {}\n", stats.by_op.size());
  for (const auto& [name, count] : stats.by_op) out += fmt::format("  {}: {}\n", name, count);
  out += fmt::format("depth: {}\n", stats.depth);
  out += fmt::format("constants: {}, {} bytes", stats.constants, stats.constant_bytes);
  if (stats.constants_without_data > 0) {
    out += fmt::format(" ({} without data: only their types are known)",
                       stats.constants_without_data);
  }
  out += '\n';
  return out;
}

int run_stats(const StatsCommandOptions& options) {
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  fmt::print("{}", with_module(*input, [&](const auto& module) { return report(*input, module); }));
  return 0;
}

}  // namespace

void add_stats(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<StatsCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "stats", "Count a model's nodes by kind and by op, its depth, functions and constants");
  add_input_option(*command, options->input);
  command->footer(
      "Counts the nodes reachable from the module's functions. Depth is the longest chain of\n"
      "operands in nodes (ops and function nodes not counted).\n"
      "Example:\n"
      "  graphpat stats mobilenet_v2.relay");
  command->callback([options, &exit_code] { exit_code = run_stats(*options); });
}

}  // namespace graphpat::cli
