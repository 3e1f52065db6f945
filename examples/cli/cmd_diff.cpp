// graphpat diff A B [--types]: exit 0 when two models are structurally equal modulo variable
// names (TVM's assert_structural_equal), else exit 1 and say where they first differ.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

#include <graphpat/analysis/structural_equal.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "report.hpp"
#include "text_lines.hpp"

namespace graphpat::cli {

namespace {

struct DiffCommandOptions {
  std::string lhs;
  std::string rhs;
  bool types = false;
};

/// "  a.relay line 5: %3 = nn.relu(%2);"
std::string show_side(const Loaded& side, NodeId node) {
  if (!node.valid()) return fmt::format("  {}: (none)\n", side.name);
  absl::StatusOr<TextLines> lines = print_with_lines(side.module, side.envelope);
  if (!lines.ok()) {
    return fmt::format("  {}: {}\n", side.name, std::string(lines.status().message()));
  }
  std::uint32_t line = lines->line_of(node);
  return fmt::format("  {} line {}: {}\n", side.name, line, lines->statement(line));
}

/// "@main: Function -body-> nn.softmax -arg 0-> nn.bias_add", the longest paths shortened in the middle.
std::string show_path(const Loaded& side, const Difference& difference) {
  constexpr std::size_t kShown = 8;
  const std::vector<DifferenceStep>& path = difference.path;
  std::vector<std::string> steps;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i == kShown && path.size() > 2 * kShown) {
      steps.push_back(fmt::format("... ({} more steps)", path.size() - 2 * kShown));
      i = path.size() - kShown;
    }
    std::string node = describe_node(side.module.graph, path[i].lhs);
    steps.push_back(i == 0 ? node
                           : fmt::format("-{}-> {}",
                                         describe_operand(side.module.graph, path[i - 1].lhs,
                                                          path[i].operand),
                                         node));
  }
  return fmt::format("  path from the output: @{}: {}\n", difference.function,
                     fmt::join(steps, " "));
}

int run_diff(const DiffCommandOptions& options) {
  absl::StatusOr<Loaded> lhs = load(options.lhs);
  if (!lhs.ok()) return fail(lhs.status());
  absl::StatusOr<Loaded> rhs = load(options.rhs);
  if (!rhs.ok()) return fail(rhs.status());
  std::optional<Difference> difference = [&] {
    ProgressLine progress("comparing");
    return first_difference(lhs->module, rhs->module, {.compare_types = options.types});
  }();
  if (!difference) {
    fmt::print("{} and {} are structurally equal\n", lhs->name, rhs->name);
    return 0;
  }
  std::string out = fmt::format("{} and {} differ in @{}: {}\n", lhs->name, rhs->name,
                                difference->function, difference->reason);
  out += show_side(*lhs, difference->lhs);
  out += show_side(*rhs, difference->rhs);
  if (!difference->path.empty()) out += show_path(*lhs, *difference);
  fmt::print("{}", out);
  return 1;
}

}  // namespace

void add_diff(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DiffCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "diff", "Compare two models structurally, modulo variable names (exit 0 equal, 1 not)");
  command->add_option("A", options->lhs, "First model (any format), - for stdin")->required();
  command->add_option("B", options->rhs, "Second model (any format)")->required();
  command->add_flag("--types", options->types, "Compare types too (ignored by default)");
  command->footer(
      "Constants are compared by type and bytes (by type when either has no bytes). On a\n"
      "difference, prints both nodes as Relay text and the path to them from the output.\n"
      "Example:\n"
      "  graphpat diff resnet18.unbound.json resnet18.unbound.relay");
  command->callback([options, &exit_code] { exit_code = run_diff(*options); });
}

}  // namespace graphpat::cli
