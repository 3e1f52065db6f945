// graphpat match IN --pattern PAT [--relay-compat] [--count] [--explain NODE]: where a pattern
// matches, as TVM's `pattern.match(node)` says it, on every node of @main.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <graphpat/analysis/reachability.hpp>
#include <graphpat/ir/errors.hpp>
#include <graphpat/pattern/matcher.hpp>
#include <memory>
#include <string>
#include <vector>

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
template <Dialect D>
std::vector<NodeId> candidates(const Module<D>& module) {
  std::vector<NodeId> roots;
  if (auto main = module.find("main")) {
    roots.push_back(*main);
  } else {
    roots = module.roots();
  }
  const Graph<D>& graph = module.graph;
  std::vector<bool> live = reachable_from(graph, roots);
  std::vector<NodeId> nodes;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (live[i] && graph.kind(NodeId(i)) != NodeKind::kOp) nodes.push_back(NodeId(i));
  }
  return nodes;
}

/// "%3 (nn.relu) line 7: %3 = nn.relu(%2) /* ty=... */;"; a node the text prints inline has
/// no name of its own: "nn.softmax line 12: nn.softmax(%8) /* ty=... */".
std::string locate_node(const relay::Graph& graph, const TextLines& lines, const NodeNames& names,
                        NodeId node) {
  std::uint32_t line = lines.line_of(node);
  std::string what = describe_node(graph, node);
  std::string name = names(node);  // `%x` for a var, which `what` already is
  bool named = name.starts_with('%') || name.starts_with('@');  // not "node on line 12"
  if (graph.kind(node) != NodeKind::kVar && named) {
    what = fmt::format("{} ({})", name, what);
  }
  return fmt::format("{} line {}: {}", what, line, lines.statement(line));
}

/// The text's name for `lines`' print: "mlp.relay", "mlp.json, printed as Relay text,".
std::string text_of(const TextLines& lines) {
  return lines.same_as_input ? lines.name : fmt::format("{}, printed as Relay text,", lines.name);
}

/// A Relay text file not as TVM prints it (hand-written, renumbered) has other `%N` and lines
/// than its print, which are the ones reported: says so on stderr.
void note_if_reprinted(const Loaded& input, const TextLines& lines) {
  if (input.format != Format::kText || lines.same_as_input) return;
  fmt::print(stderr,
             "graphpat: note: {0} is not as TVM prints it; %N and lines are those of its print "
             "(graphpat convert {0} -o - --to text)\n",
             input.name);
}

absl::Status bad_node(std::string_view word, std::string_view problem) {
  return make_error(absl::StatusCode::kInvalidArgument, "cli.bad_node",
                    fmt::format("--explain {}: {}", word, problem));
}

/// The node `word` names in the text: `%N` (a binding), `%name` (a variable), `@name` (a
/// function of the module), `line:L` (the expression printed on line L, for one without a
/// `%N`, such as a function's result).
absl::StatusOr<NodeId> parse_node(std::string_view word, const relay::Module& module,
                                  const TextLines& lines) {
  const relay::Graph& graph = module.graph;
  if (word.starts_with('@') && word.size() > 1) {
    if (std::optional<NodeId> function = module.find(word.substr(1))) return *function;
    return bad_node(word, fmt::format("{} defines no function {}", text_of(lines), word));
  }
  auto parse_number = [](std::string_view digits) -> std::optional<std::uint32_t> {
    std::uint32_t number = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return number;
  };
  if (word.starts_with("line:")) {
    // The outermost expression of the line: its nodes' users come after them, and each
    // node is on the line of its last user, so it is the last node printed there.
    std::optional<std::uint32_t> line = parse_number(word.substr(5));
    for (std::uint32_t i = graph.size(); line && i-- > 0;) {
      if (lines.line_of(NodeId(i)) == *line) return NodeId(i);
    }
    return bad_node(word,
                    fmt::format("{} shows no node on line {}", text_of(lines), word.substr(5)));
  }
  if (!word.starts_with('%') || word.size() == 1) {
    return bad_node(word,
                    "expected %N (the node bound by `%N = ...` in the Relay text), "
                    "%name (a variable), @name (a function) or line:L (the expression "
                    "printed on line L)");
  }
  std::string_view name = word.substr(1);
  if (std::optional<std::uint32_t> parsed = parse_number(name)) {
    std::uint32_t number = *parsed;
    if (number < lines.bound_nodes.size() && lines.bound_nodes[number].valid()) {
      return lines.bound_nodes[number];
    }
    if (lines.bound_nodes.empty())
      return bad_node(word, fmt::format("{} binds no %N", text_of(lines)));
    return bad_node(
        word, fmt::format("{} binds %0 to %{}", text_of(lines), lines.bound_nodes.size() - 1));
  }
  std::vector<NodeId> vars;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (graph.kind(id) == NodeKind::kVar && lines.line_of(id) != 0 && graph.name(id) == name) {
      vars.push_back(id);
    }
  }
  if (vars.size() == 1) return vars.front();
  if (vars.empty()) {
    return bad_node(word, fmt::format("{} has no binding or variable {}", text_of(lines), word));
  }
  std::vector<std::uint32_t> var_lines;
  for (NodeId var : vars) var_lines.push_back(lines.line_of(var));
  return bad_node(word, fmt::format("{} has {} variables {} (lines {})", text_of(lines),
                                    vars.size(), word, fmt::join(var_lines, ", ")));
}

/// The candidates where `matcher` matches; the attempts it stopped said on stderr.
template <Dialect D>
std::vector<NodeId> find_matched(Matcher<D>& matcher, const Module<D>& module) {
  std::vector<NodeId> matched;
  {
    ProgressLine progress("matching");
    for (NodeId node : candidates(module)) {
      if (matcher.matches(node)) matched.push_back(node);
    }
  }
  fmt::print(stderr, "{}", describe_stopped_matches(matcher.stopped().size()));
  return matched;
}

/// Prints how many matches there are: alone with --count (true: nothing more to print), else
/// as the listing's first line, "3 matches".
bool print_count(const MatchCommandOptions& options, std::size_t count) {
  if (options.count) {
    fmt::print("{}\n", count);
    return true;
  }
  fmt::print("{} match{}\n", count, plural(count, "es"));
  return false;
}

/// The node of an ONNX model that `word` names: a node by its name, else a graph input (or
/// function parameter) by its value name.
absl::StatusOr<NodeId> find_onnx_node(std::string_view word, const Loaded& input) {
  const onnx::Graph& graph = input.onnx->module.graph;
  const Context& context = graph.context();
  std::optional<NodeId> var;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (graph.kind(id) == NodeKind::kCall && context.spans.contains(graph.span(id)) &&
        context.strings.view(context.spans.get(graph.span(id)).source) == word) {
      return id;
    }
    if (!var && graph.kind(id) == NodeKind::kVar && graph.name(id) == word) var = id;
  }
  if (var) return *var;
  return bad_node(word,
                  fmt::format("{} has no node and no graph input named '{}'", input.name, word));
}

/// `match` on an ONNX model: nodes named as the file names them (report_names).
int match_onnx(const MatchCommandOptions& options, const Pattern& pattern, const Loaded& input) {
  const onnx::Graph& graph = input.onnx->module.graph;
  Matcher<onnx::Dialect> matcher(pattern, graph, {.relay_compat = options.relay_compat});
  NodeNames names = report_names(input);
  auto located = [&](NodeId node) {
    return fmt::format("{} ({})", names(node), describe_node(graph, node));
  };
  if (!options.explain.empty()) {
    absl::StatusOr<NodeId> node = find_onnx_node(options.explain, input);
    if (!node.ok()) return fail(node.status());
    fmt::print("{}\n{}\n", located(*node), matcher.explain(*node, names));
    return 0;
  }
  std::vector<NodeId> matched = find_matched(matcher, input.onnx->module);
  if (print_count(options, matched.size())) return 0;
  for (NodeId node : matched) fmt::print("{}\n", located(node));
  return 0;
}

int run_match(const MatchCommandOptions& options) {
  absl::StatusOr<Pattern> pattern = read_pattern(options.pattern);
  if (!pattern.ok()) return fail(pattern.status());
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  if (input->onnx) return match_onnx(options, *pattern, *input);
  const relay::Graph& graph = input->module.graph;
  Matcher<relay::Dialect> matcher(*pattern, graph, {.relay_compat = options.relay_compat});

  if (!options.explain.empty()) {
    absl::StatusOr<TextLines> lines = print_with_lines(*input);
    if (!lines.ok()) return fail(lines.status());
    note_if_reprinted(*input, *lines);
    absl::StatusOr<NodeId> node = parse_node(options.explain, input->module, *lines);
    if (!node.ok()) return fail(node.status());
    NodeNames names = lines->names(input->module);
    fmt::print("{}\n{}\n", locate_node(graph, *lines, names, *node), matcher.explain(*node, names));
    return 0;
  }
  std::vector<NodeId> matched = find_matched(matcher, input->module);
  if (print_count(options, matched.size()) || matched.empty()) return 0;
  absl::StatusOr<TextLines> lines = [&] {
    ProgressLine progress("printing the model to find the lines");
    return print_with_lines(*input);
  }();
  if (!lines.ok()) return fail(lines.status());
  note_if_reprinted(*input, *lines);
  NodeNames names = lines->names(input->module);
  for (NodeId node : matched) fmt::print("{}\n", locate_node(graph, *lines, names, node));
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
                      "Say why the pattern does or does not match at NODE: %N (the node bound by "
                      "`%N = ...` in the Relay text), %name (a variable), @name (a function) or "
                      "line:L (the outermost expression printed on line L); in an ONNX model, a "
                      "node's name or a graph input's");
  command->footer(
      "Lists each match as: %N (OP) line L: the Relay text line it is printed on; a node\n"
      "printed without a %N of its own (a function's result) as: OP line L: ... (--explain\n"
      "line:L explains it).\n"
      "%N and lines are those of the model printed as `graphpat convert --to text` prints it,\n"
      "which for a Relay text file as TVM printed it is the file itself; for a JSON input,\n"
      "that print. Explanations name nodes the same way: %N, %name, @name, or (line L) for a\n"
      "node printed inline on line L.\n"
      "In an ONNX model, each match as: node 'NAME' (OP), named as the file names it.\n"
      "Example:\n"
      "  graphpat match mobilenet_v2.relay --pattern \"is_op('nn.relu')(wildcard())\" --count");
  command->callback([options, &exit_code] { exit_code = run_match(*options); });
}

}  // namespace graphpat::cli
