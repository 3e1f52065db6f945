// graphpat merge-composite IN --table FILE -o OUT: Relay's MergeComposite with a pattern table
// read from FILE, one `name: pattern` entry a line (`#` starts a comment line).
#include <fmt/format.h>

#include <cctype>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <graphpat/ir/errors.hpp>
#include <graphpat/pattern/text.hpp>
#include <graphpat/transform/merge_composite.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "report.hpp"

namespace graphpat::cli {

namespace {

struct MergeCompositeCommandOptions {
  std::string input;
  std::string table;
  bool relay_compat = false;
  OutputOptions output;
};

/// The table's entries, for either dialect.
struct TableEntry {
  std::string name;
  Pattern pattern;
};
using Table = std::vector<TableEntry>;

/// A pattern error at `1:C` of the text after the colon, placed at `path:line:column`.
absl::Status in_table(const absl::Status& status, const std::string& path, std::uint32_t line,
                      std::size_t offset) {
  std::string message(status.message());
  std::size_t at = message.find("] 1:");
  std::size_t column = 0;
  std::size_t end = at == std::string::npos ? 0 : at + 4;
  while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end]))) {
    column = column * 10 + static_cast<std::size_t>(message[end++] - '0');
  }
  if (at == std::string::npos || end == at + 4 || end >= message.size() || message[end] != ':') {
    return locate(status, fmt::format("{}:{}", path, line));
  }
  return absl::Status(status.code(), fmt::format("{}] {}:{}:{}{}", message.substr(0, at), path,
                                                 line, column + offset, message.substr(end)));
}

absl::StatusOr<Table> read_table(const std::string& path) {
  absl::StatusOr<std::string> text = read_input(path);
  if (!text.ok()) return text.status();
  Table table;
  std::istringstream lines(*text);
  std::uint32_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    std::size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    std::size_t colon = line.find(':');
    std::string name = colon == std::string::npos ? std::string() : line.substr(start, colon - start);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    if (name.empty()) {
      return make_error(absl::StatusCode::kInvalidArgument, "cli.bad_table",
                        fmt::format("{}:{}: expected `name: pattern`", path, number));
    }
    absl::StatusOr<Pattern> pattern = parse_pattern(line.substr(colon + 1));
    if (!pattern.ok()) return in_table(pattern.status(), path, number, colon + 1);
    table.push_back({.name = std::move(name), .pattern = std::move(*pattern)});
  }
  if (table.empty()) {
    return make_error(absl::StatusCode::kInvalidArgument, "cli.bad_table",
                      fmt::format("{}: no `name: pattern` entry", path));
  }
  return table;
}

/// Functions made per Composite name, in table order.
template <Dialect D>
std::string count_composites(const Module<D>& module, const Table& table) {
  const Graph<D>& graph = module.graph;
  const AttrTable& attrs = graph.context().attrs;
  std::map<std::string, std::uint32_t, std::less<>> made;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    NodeId id(i);
    if (graph.kind(id) != NodeKind::kFunction || !graph.attrs(id).valid()) continue;
    if (attrs.kind(graph.attrs(id)) != AttrKind::kObject) continue;
    std::optional<AttrValueId> name =
        attrs.find_field(graph.attrs(id), dialect_conventions<D>().composite_key);
    if (name && attrs.kind(*name) == AttrKind::kString) ++made[std::string(attrs.text(*name))];
  }
  std::string out;
  for (const auto& entry : table) {
    auto found = made.find(entry.name);
    out += fmt::format("  {}: {}\n", entry.name, found == made.end() ? 0 : found->second);
  }
  return out;
}

template <Dialect D>
int merge_and_report(const MergeCompositeCommandOptions& options, const Table& table,
                     const Module<D>& module, const Loaded& input) {
  std::vector<CompositePattern<D>> patterns;
  for (const TableEntry& entry : table) {
    patterns.push_back({.name = entry.name, .pattern = entry.pattern});
  }
  PartitionResult<D> result = [&] {
    ProgressLine progress("merging composites");
    return merge_composite(patterns, module, {.relay_compat = options.relay_compat});
  }();
  absl::Status written = write_module(result.module, input, options.output);
  if (!written.ok()) return fail(written);
  const PartitionReport& report = result.report;
  std::string out =
      fmt::format("{} composite function{} made\n", report.accepted, plural(report.accepted));
  out += count_composites(result.module, table);
  NodeNames names =
      report.rejected.empty() && report.duplicated.empty() ? NodeNames() : report_names(input);
  std::vector<std::string> entry_names;
  for (const TableEntry& entry : table) entry_names.push_back(entry.name);
  out += describe_rejected(report, module.graph, names, entry_names);
  out += describe_not_outlined(report);
  out += describe_stopped_matches(report.stopped_matches);
  out += describe_duplicated(report, module.graph, names, entry_names);
  out += describe_merged_first(report.cse, options.relay_compat);
  fmt::print("{}", out);
  return 0;
}

int run_merge_composite(const MergeCompositeCommandOptions& options) {
  absl::StatusOr<Table> table = read_table(options.table);
  if (!table.ok()) return fail(table.status());
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  return with_module(*input, [&](const auto& module) {
    return merge_and_report(options, *table, module, *input);
  });
}

}  // namespace

void add_merge_composite(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<MergeCompositeCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "merge-composite", "Outline the matches of a table of named patterns (MergeComposite)");
  add_input_option(*command, options->input);
  command->add_option("-t,--table", options->table,
                      "Pattern table: one `name: pattern` a line, `#` comment lines")
      ->required();
  command->add_flag("--relay-compat", options->relay_compat,
                    "Exactly as TVM v0.14 does: TVM's matcher, no merging of duplicates first");
  add_output_options(*command, options->output);
  command->footer(
      "Entries are applied in table order; each function made carries Composite=<name>\n"
      "(graphpat.composite=<name> in ONNX).\n"
      "Prints the functions made per entry and each group refused, with its entry and reason\n"
      "(nodes named as the input's Relay text numbers them, or by their ONNX names). In\n"
      "ONNX, each function is a FunctionProto of domain graphpat named after its entry.\n"
      "A table line: bn_relu: is_op('nn.relu')(is_tuple_get_item(is_op('nn.batch_norm')(\n"
      "  wildcard(), wildcard(), wildcard(), wildcard(), wildcard()), 0))   (on one line)\n"
      "Example:\n"
      "  graphpat merge-composite resnet18.relay --table table.txt -o merged.relay");
  command->callback([options, &exit_code] { exit_code = run_merge_composite(*options); });
}

}  // namespace graphpat::cli
