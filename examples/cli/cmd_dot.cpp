// graphpat dot IN [--pattern PAT | --partitioned] -o OUT.dot|.svg|.png: a Graphviz picture of a
// model, each match or partitioned function a coloured cluster; .svg and .png are rendered by
// running Graphviz's `dot`.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <graphpat/io/dot.hpp>
#include <graphpat/io/onnx.hpp>
#include <graphpat/ir/errors.hpp>
#include <graphpat/pattern/matcher.hpp>

#include "commands.hpp"
#include "io.hpp"

extern char** environ;

namespace graphpat::cli {

namespace {

struct DotCommandOptions {
  std::string input;
  std::string pattern;
  std::string name;
  bool partitioned = false;
  bool relay_compat = false;
  std::string function = "main";
  std::string output;
};

/// The full path of `program` on $PATH, if it is there.
std::optional<std::string> find_program(std::string_view program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path == nullptr ? "" : path;
  while (!dirs.empty()) {
    std::size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? "" : dirs.substr(colon + 1);
    std::string candidate = fmt::format("{}/{}", dir.empty() ? "." : dir, program);
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) {
      return candidate;
    }
  }
  return std::nullopt;
}

/// Runs `dot -T<format>` on `dot_text`, writing `path` through `path`.tmp.
absl::Status render(const std::string& dot_text, const std::string& format, const std::string& path) {
  std::optional<std::string> dot = find_program("dot");
  if (!dot) {
    return make_error(absl::StatusCode::kFailedPrecondition, "cli.missing_program",
                      fmt::format("{}: Graphviz's `dot` program is not on PATH; install graphviz "
                                  "or write a .dot file",
                                  path));
  }
  std::string source = path + ".dot.tmp";
  std::string temporary = path + ".tmp";
  absl::Status written = write_output(source, dot_text);
  if (!written.ok()) return written;
  std::vector<std::string> args{*dot, "-T" + format, "-o", temporary, source};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int status = 0;
  int spawned = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (spawned == 0) waitpid(pid, &status, 0);
  std::remove(source.c_str());
  if (spawned != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::remove(temporary.c_str());
    return make_error(absl::StatusCode::kInternal, "cli.render_failed",
                      fmt::format("{}: `{} -T{}` failed ({})", path, *dot, format,
                                  spawned != 0 ? std::strerror(spawned)
                                  : WIFEXITED(status)
                                      ? fmt::format("exit status {}", WEXITSTATUS(status))
                                      : fmt::format("signal {}", WTERMSIG(status))));
  }
  return commit_output(temporary, path);
}

/// One cluster per node of the drawn function where the pattern matches: the nodes the match
/// bound (ops excluded).
template <Dialect D>
std::vector<DotCluster> match_clusters(const Module<D>& module, NodeId function,
                                       const Pattern& pattern, const std::string& label,
                                       bool relay_compat) {
  const Graph<D>& graph = module.graph;
  std::vector<DotCluster> clusters;
  Matcher<D> matcher(pattern, graph, {.relay_compat = relay_compat});
  for (const Match& match : matcher.find_matches(function)) {
    if (graph.kind(match.root()) == NodeKind::kOp) continue;
    DotCluster cluster{label, {}};
    absl::flat_hash_set<NodeId> seen;
    for (std::size_t i = 0; i < match.binding_count(); ++i) {
      NodeId node = match.binding(i).second;
      if (graph.kind(node) != NodeKind::kOp && seen.insert(node).second) {
        cluster.nodes.push_back(node);
      }
    }
    clusters.push_back(std::move(cluster));
  }
  return clusters;
}

/// The DOT text of `module` in its dialect's labels.
template <Dialect D>
absl::StatusOr<std::string> dot_text(const Module<D>& module, const DotOptions& options) {
  if constexpr (std::is_same_v<D, onnx::Dialect>) {
    return onnx::to_dot(module, options);
  } else {
    return relay::to_dot(module, options);
  }
}

template <Dialect D>
absl::StatusOr<std::string> draw(const DotCommandOptions& options,
                                 const std::optional<Pattern>& pattern, const Module<D>& module) {
  DotOptions dot_options{.cluster_partitioned_functions = options.partitioned,
                         .function = options.function};
  if constexpr (std::is_same_v<D, onnx::Dialect>) {
    // A file partition or merge-composite wrote holds its groups as FunctionProtos of the
    // function domain (graphpat): read back, module functions `graphpat.<name>`.
    const std::string prefix = onnx::OnnxSaveOptions{}.function_domain + ".";
    for (const GlobalFunction& global : module.functions()) {
      std::string_view name = module.name(global);
      if (name.starts_with(prefix)) dot_options.clustered_functions.emplace_back(name);
    }
  }
  std::optional<NodeId> function = module.find(options.function);
  if (pattern && function) {
    std::string label = options.name;
    if (label.empty()) {
      label = options.pattern.starts_with('@')
                  ? std::filesystem::path(options.pattern.substr(1)).stem().string()
                  : "match";
    }
    ProgressLine progress("matching");
    dot_options.clusters = match_clusters(module, *function, *pattern, label, options.relay_compat);
    if (dot_options.clusters.empty()) {
      fmt::print(stderr, "no match of the pattern in @{}: the picture has no cluster\n",
                 options.function);
    } else {
      fmt::print(stderr, "{} matches drawn as clusters\n", dot_options.clusters.size());
    }
  }
  ProgressLine progress("drawing");
  return dot_text(module, dot_options);
}

int run_dot(const DotCommandOptions& options) {
  std::string extension = std::filesystem::path(options.output).extension().string();
  if (options.output != "-" && extension != ".dot" && extension != ".svg" && extension != ".png") {
    return usage_error(
        fmt::format("-o {}: the picture's name must end in .dot, .svg or .png", options.output));
  }
  std::optional<Pattern> pattern;
  if (!options.pattern.empty()) {
    absl::StatusOr<Pattern> parsed = read_pattern(options.pattern);
    if (!parsed.ok()) return fail(parsed.status());
    pattern = std::move(*parsed);
  }
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  absl::StatusOr<std::string> dot =
      with_module(*input, [&](const auto& module) { return draw(options, pattern, module); });
  if (!dot.ok()) return fail(locate(dot.status(), input->name));
  absl::Status written;
  if (options.output == "-" || extension == ".dot") {
    written = write_output(options.output, *dot);
  } else {
    ProgressLine progress("rendering with Graphviz");
    written = render(*dot, extension.substr(1), options.output);
  }
  return written.ok() ? 0 : fail(written);
}

}  // namespace

void add_dot(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DotCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "dot", "Draw a model with Graphviz, matches or partitioned functions as clusters");
  add_input_option(*command, options->input);
  CLI::Option* pattern =
      command->add_option("-p,--pattern", options->pattern,
                          "Draw each match of this pattern (text or @FILE) as a cluster");
  CLI::Option* partitioned = command->add_flag(
      "--partitioned", options->partitioned,
      "Draw each call of a function partition or merge-composite made (a function literal "
      "with a Composite or PartitionedFromPattern name; in an ONNX file, a function of domain "
      "graphpat) as a cluster of its body");
  pattern->excludes(partitioned);
  command->add_option("--name", options->name,
                      "Cluster label for --pattern matches (default: the @FILE's stem, or "
                      "\"match\")");
  command->add_flag("--relay-compat", options->relay_compat, "Match as TVM v0.14 does");
  command->add_option("--function", options->function, "Global function to draw")
      ->capture_default_str();
  command->add_option("-o,--output", options->output,
                      "OUT.dot (DOT text), OUT.svg or OUT.png (rendered by Graphviz's dot)")
      ->required();
  command->footer(
      "Constants are folded into their users; ops show their key attributes (an ONNX node\n"
      "its attributes in ONNX text syntax).\n"
      "Example:\n"
      "  graphpat dot partitioned.relay --partitioned -o partitioned.svg");
  command->callback([options, &exit_code] { exit_code = run_dot(*options); });
}

}  // namespace graphpat::cli
