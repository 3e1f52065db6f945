// graphpat match IN --pattern PAT [--relay-compat] [--count] [--explain NODE]: where a pattern
// matches, as TVM's `pattern.match(node)` says it, on every node of @main.
#include <fmt/format.h>

#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include <graphpat/analysis/reachability.hpp>
#include <graphpat/ir/errors.hpp>
#include <graphpat/pattern/matcher.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "report.hpp"
#include "text_lines.hpp"

namespace graphpat::cli {

namespace {

struct MatchCommandOptions {
  std::string input;
  std::string pattern;
  bool relay_compat = false;
  bool count = false;
  std::string explain;
};

/// The nodes a match is looked for at: those of @main (of every function when there is no
/// @main), ops excluded.
std::vector<NodeId> candidates(const relay::Module& module) {
  std::vector<NodeId> roots;
  if (auto main = module.find("main")) {
    roots.push_back(*main);
  } else {
    roots = module.roots();
  }
  const relay::Graph& graph = module.graph;
  std::vector<bool> live = reachable_from(graph, roots);
  std::vector<NodeId> nodes;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (live[i] && graph.kind(NodeId(i)) != NodeKind::kOp) nodes.push_back(NodeId(i));
  }
  return nodes;
}

/// "node 12 (nn.relu) line 7: %3 = nn.relu(%2) /* ty=... */;"
std::string locate_node(const relay::Graph& graph, const TextLines& lines, NodeId node) {
  std::uint32_t line = lines.line_of(node);
  return fmt::format("node {} ({}) line {}: {}", node.index(), describe_node(graph, node), line,
                     lines.statement(line));
}

absl::StatusOr<NodeId> parse_node(const std::string& word, const relay::Graph& graph) {
  std::string_view digits = word;
  if (digits.starts_with('%')) digits.remove_prefix(1);
  std::uint32_t index = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return make_error(absl::StatusCode::kInvalidArgument, "cli.bad_node",
                      fmt::format("--explain {}: expected a node number such as 12", word));
  }
  if (index >= graph.size()) {
    return make_error(absl::StatusCode::kInvalidArgument, "cli.bad_node",
                      fmt::format("--explain {}: the model has nodes 0 to {}", word,
                                  graph.size() - 1));
  }
  return NodeId(index);
}

int run_match(const MatchCommandOptions& options) {
  absl::StatusOr<Pattern> pattern = read_pattern(options.pattern);
  if (!pattern.ok()) return fail(pattern.status());
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  const relay::Graph& graph = input->module.graph;
  Matcher<relay::Dialect> matcher(*pattern, graph, {.relay_compat = options.relay_compat});

  if (!options.explain.empty()) {
    absl::StatusOr<NodeId> node = parse_node(options.explain, graph);
    if (!node.ok()) return fail(node.status());
    absl::StatusOr<TextLines> lines = print_with_lines(input->module, input->envelope);
    if (!lines.ok()) return fail(lines.status());
    fmt::print("{}\n{}\n", locate_node(graph, *lines, *node), matcher.explain(*node));
    return 0;
  }
  std::vector<NodeId> matched;
  {
    ProgressLine progress("matching");
    for (NodeId node : candidates(input->module)) {
      if (matcher.matches(node)) matched.push_back(node);
    }
  }
  if (options.count) {
    fmt::print("{}\n", matched.size());
    return 0;
  }
  fmt::print("{} match{}\n", matched.size(), plural(matched.size(), "es"));
  if (matched.empty()) return 0;
  absl::StatusOr<TextLines> lines = [&] {
    ProgressLine progress("printing the model to find the lines");
    return print_with_lines(input->module, input->envelope);
  }();
  if (!lines.ok()) return fail(lines.status());
  for (NodeId node : matched) fmt::print("{}\n", locate_node(graph, *lines, node));
  return 0;
}

}  // namespace

void add_match(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<MatchCommandOptions>();
  CLI::App* command =
      app.add_subcommand("match", "Say where a pattern matches (nodes of @main, ops excluded)");
  add_input_option(*command, options->input);
  add_pattern_option(*command, options->pattern);
  command->add_flag("--relay-compat", options->relay_compat,
                    "Match exactly as TVM v0.14 does (commutative retries only for add/multiply)");
  command->add_flag("--count", options->count, "Print only the number of matches");
  command->add_option("--explain", options->explain,
                      "Say why the pattern does or does not match at node NODE (a node number "
                      "as listed by match)");
  command->footer(
      "Lists each match as: node NUMBER (OP) line L: the Relay text line it is printed on\n"
      "(lines of the model printed as `graphpat convert` prints it).\n"
      "Example:\n"
      "  graphpat match mobilenet_v2.relay --pattern \"is_op('nn.relu')(wildcard())\" --count");
  command->callback([options, &exit_code] { exit_code = run_match(*options); });
}

}  // namespace graphpat::cli
