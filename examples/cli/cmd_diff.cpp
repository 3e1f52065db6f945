// graphpat diff A B [--types]: exit 0 when two models are structurally equal modulo variable
// names (TVM's assert_structural_equal), else exit 1 and say where they first differ.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/ir/errors.hpp>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

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

/// One model of the two, printed, with the text's names for its nodes.
struct Side {
  const Loaded& input;
  absl::StatusOr<TextLines> lines;
  NodeNames names;

  explicit Side(const Loaded& loaded) : input(loaded), lines(print_with_lines(loaded)) {
    // Without a text (a model the printer refuses), graph ids, marked as such: a bare `%12`
    // would read as a binding of the text.
    names = lines.ok()
                ? lines->names(input.module)
                : NodeNames([](NodeId node) { return fmt::format("graph node {}", node.index()); });
  }
  Side(const Side&) = delete;  // `names` points into `lines`
  Side& operator=(const Side&) = delete;

  /// "parameter 1 (%w) of @main" for a parameter; the text's name ("%3", "%x") otherwise.
  [[nodiscard]] std::string name(NodeId node) const {
    std::optional<std::pair<NodeId, std::size_t>> owner = parameter_of(node);
    if (!owner) return names(node);
    return fmt::format("parameter {} ({}) of {}", owner->second, names(node), names(owner->first));
  }

  /// The function `node` is a parameter of, and its position; nullopt for any other node.
  [[nodiscard]] std::optional<std::pair<NodeId, std::size_t>> parameter_of(NodeId node) const {
    const relay::Graph& graph = input.module.graph;
    if (graph.kind(node) != NodeKind::kVar) return std::nullopt;
    for (std::uint32_t i = node.index() + 1; i < graph.size(); ++i) {
      NodeId id(i);
      if (graph.kind(id) != NodeKind::kFunction) continue;
      std::span<const NodeId> params = graph.params(id);
      auto found = std::find(params.begin(), params.end(), node);
      if (found != params.end())
        return std::pair(id, static_cast<std::size_t>(found - params.begin()));
    }
    return std::nullopt;
  }

  /// "  a.relay:5: %3 = nn.relu(%2);"
  [[nodiscard]] std::string show(NodeId node) const {
    if (!node.valid()) return fmt::format("  {}: (none)\n", input.name);
    if (!lines.ok()) {
      return fmt::format("  {}: {}\n", input.name, std::string(lines.status().message()));
    }
    std::uint32_t line = lines->line_of(node);
    return fmt::format("  {}: {}\n", lines->place(line), lines->statement(line));
  }
};

/// What differs, in the texts' words: parameters as parameters, an attribute by its field and
/// both values, nodes by the texts' names.
std::string describe_difference(const Side& lhs, const Side& rhs, const Difference& difference) {
  if (!difference.lhs.valid() || !difference.rhs.valid()) return difference.reason;
  const relay::Graph& graph = lhs.input.module.graph;
  if (difference.attribute) {
    const AttributeDifference& attribute = *difference.attribute;
    std::string owner = graph.kind(difference.lhs) == NodeKind::kFunction
                            ? fmt::format("function {}", lhs.name(difference.lhs))
                            : describe_node(graph, difference.lhs);
    if (attribute.field.empty()) {
      return fmt::format("attributes of {}: {} vs {}", owner, attribute.lhs, attribute.rhs);
    }
    return fmt::format("attribute {} of {}: {} vs {}", attribute.field, owner, attribute.lhs,
                       attribute.rhs);
  }
  if (difference.lhs_paired_with.valid() || difference.rhs_paired_with.valid()) {
    auto partner = [](const Side& side, NodeId node, std::string_view which) {
      return node.valid() ? fmt::format("{} ({})", side.name(node), which) : "nothing";
    };
    return fmt::format("sharing differs: {} (left) is already paired with {}, {} (right) with {}",
                       lhs.name(difference.lhs), partner(rhs, difference.lhs_paired_with, "right"),
                       rhs.name(difference.rhs), partner(lhs, difference.rhs_paired_with, "left"));
  }
  if (lhs.parameter_of(difference.lhs)) {
    std::string name = lhs.name(difference.lhs);
    std::string other = rhs.name(difference.rhs);
    if (other != name) name = fmt::format("{} (right: {})", name, other);
    return fmt::format("{}: {}", name, difference.reason);
  }
  return difference.reason;
}

/// "@main: Function -body-> nn.softmax -arg 0-> nn.bias_add", the longest paths shortened in the
/// middle.
template <Dialect D>
std::string show_path(const Graph<D>& graph, const Difference& difference) {
  constexpr std::size_t kShown = 8;
  const std::vector<DifferenceStep>& path = difference.path;
  std::vector<std::string> steps;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i == kShown && path.size() > 2 * kShown) {
      steps.push_back(fmt::format("... ({} more steps)", path.size() - 2 * kShown));
      i = path.size() - kShown;
    }
    std::string node = describe_node(graph, path[i].lhs);
    steps.push_back(i == 0 ? node
                           : fmt::format("-{}-> {}",
                                         describe_operand(graph, path[i - 1].lhs, path[i].operand),
                                         node));
  }
  return fmt::format("  path from the output: @{}: {}\n", difference.function,
                     fmt::join(steps, " "));
}

/// `diff` of two ONNX models: nodes named as the files name them (report_names).
int diff_onnx(const Loaded& lhs, const Loaded& rhs, const DiffCommandOptions& options) {
  std::optional<Difference> difference = [&] {
    ProgressLine progress("comparing");
    return first_difference(lhs.onnx->module, rhs.onnx->module, {.compare_types = options.types});
  }();
  if (!difference) {
    fmt::print("{} and {} are structurally equal\n", lhs.name, rhs.name);
    return 0;
  }
  const onnx::Graph& left = lhs.onnx->module.graph;
  const onnx::Graph& right = rhs.onnx->module.graph;
  NodeNames left_names = report_names(lhs);
  NodeNames right_names = report_names(rhs);
  auto show = [](const Loaded& side, const onnx::Graph& graph, const NodeNames& names,
                 NodeId node) {
    if (!node.valid()) return fmt::format("  {}: (none)\n", side.name);
    return fmt::format("  {}: {} ({})\n", side.name, names(node), describe_node(graph, node));
  };
  std::string out = fmt::format("{} and {} differ in @{}: {}\n", lhs.name, rhs.name,
                                difference->function, difference->reason);
  out += show(lhs, left, left_names, difference->lhs);
  out += show(rhs, right, right_names, difference->rhs);
  if (!difference->path.empty()) out += show_path(left, *difference);
  fmt::print("{}", out);
  return 1;
}

int run_diff(const DiffCommandOptions& options) {
  absl::StatusOr<Loaded> lhs = load(options.lhs);
  if (!lhs.ok()) return fail(lhs.status());
  absl::StatusOr<Loaded> rhs = load(options.rhs);
  if (!rhs.ok()) return fail(rhs.status());
  if (lhs->onnx.has_value() != rhs->onnx.has_value()) {
    const Loaded& onnx_side = lhs->onnx ? *lhs : *rhs;
    const Loaded& relay_side = lhs->onnx ? *rhs : *lhs;
    return fail(make_error(absl::StatusCode::kInvalidArgument, "cli.cross_dialect",
                           fmt::format("{} holds an ONNX module and {} a Relay module; diff "
                                       "compares two models of one dialect",
                                       onnx_side.name, relay_side.name)));
  }
  if (lhs->onnx) return diff_onnx(*lhs, *rhs, options);
  std::optional<Difference> difference = [&] {
    ProgressLine progress("comparing");
    return first_difference(lhs->module, rhs->module, {.compare_types = options.types});
  }();
  if (!difference) {
    fmt::print("{} and {} are structurally equal\n", lhs->name, rhs->name);
    return 0;
  }
  Side left(*lhs);
  Side right(*rhs);
  std::string out =
      fmt::format("{} and {} differ in @{}: {}\n", lhs->name, rhs->name, difference->function,
                  describe_difference(left, right, *difference));
  out += left.show(difference->lhs);
  out += right.show(difference->rhs);
  if (!difference->path.empty()) out += show_path(lhs->module.graph, *difference);
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
      "difference, says what differs (a parameter as `parameter 1 (%w) of @main`, an\n"
      "attribute by its field and both values), then the line of each node as FILE:LINE and\n"
      "its text, and the path to them from the output. Lines and %N are those of the file for\n"
      "a Relay text as TVM prints it, else of the model printed as Relay text (`FILE, printed\n"
      "as Relay text, line L`). Parameters are numbered from 0. Two ONNX models are compared\n"
      "the same way, their nodes named as the files name them.\n"
      "Example:\n"
      "  graphpat diff resnet18.unbound.json resnet18.unbound.relay");
  command->callback([options, &exit_code] { exit_code = run_diff(*options); });
}

}  // namespace graphpat::cli
