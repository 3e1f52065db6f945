// graphpat partition IN --pattern PAT [--attr K=V ...] [--relay-compat] [--no-dedupe] -o OUT:
// outline every accepted match of a pattern into a function, and say what was refused and why.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <graphpat/transform/partition.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "report.hpp"

namespace graphpat::cli {

namespace {

struct PartitionCommandOptions {
  std::string input;
  std::string pattern;
  std::vector<std::string> attrs;
  bool relay_compat = false;
  bool no_dedupe = false;
  OutputOptions output;
};

template <Dialect D>
int partition_and_report(const PartitionCommandOptions& options, const Pattern& pattern,
                         const Module<D>& module, const Loaded& input) {
  PartitionOptions<D> partition_options{.relay_compat = options.relay_compat,
                                        .separate_duplicate_inputs = options.no_dedupe};
  for (const std::string& attr : options.attrs) {
    std::size_t equals = attr.find('=');
    partition_options.attrs.emplace_back(attr.substr(0, equals), attr.substr(equals + 1));
  }
  PartitionResult<D> result = [&] {
    ProgressLine progress("partitioning");
    return partition(pattern, module, partition_options);
  }();
  absl::Status written = write_module(result.module, input, options.output);
  if (!written.ok()) return fail(written);

  const PartitionReport& report = result.report;
  NodeNames names =
      report.rejected.empty() && report.duplicated.empty() ? NodeNames() : report_names(input);
  std::string out =
      fmt::format("{} group{} partitioned\n", report.accepted, plural(report.accepted));
  out += describe_rejected(report, module.graph, names);
  out += describe_not_outlined(report);
  out += describe_stopped_matches(report.stopped_matches);
  out += describe_duplicated(report, module.graph, names);
  out += describe_merged_first(report.cse, options.relay_compat);
  fmt::print("{}", out);
  return 0;
}

int run_partition(const PartitionCommandOptions& options) {
  for (const std::string& attr : options.attrs) {
    std::size_t equals = attr.find('=');
    if (equals == std::string::npos || equals == 0) {
      return usage_error(fmt::format("--attr {}: expected KEY=VALUE, e.g. Composite=bn", attr));
    }
  }
  absl::StatusOr<Pattern> pattern = read_pattern(options.pattern);
  if (!pattern.ok()) return fail(pattern.status());
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  return with_module(*input, [&](const auto& module) {
    return partition_and_report(options, *pattern, module, *input);
  });
}

}  // namespace

void add_partition(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PartitionCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "partition", "Outline every match of a pattern into a function, as Relay's partition");
  add_input_option(*command, options->input);
  add_pattern_option(*command, options->pattern);
  command->add_option("--attr", options->attrs,
                      "KEY=VALUE attribute of every function made (repeatable)");
  command->add_flag("--relay-compat", options->relay_compat,
                    "Partition exactly as TVM v0.14 does: TVM's matcher, no merging of "
                    "duplicated nodes first");
  command->add_flag("--no-dedupe", options->no_dedupe,
                    "Give an input used twice by a group one parameter per use (tvm#14097), "
                    "not one per input");
  add_output_options(*command, options->output);
  command->footer(
      "Prints the groups partitioned, the groups rejected with their reasons (nodes named\n"
      "as the input's Relay text numbers them, or by their ONNX names), and the duplicates\n"
      "merged first (default mode). The result is written in the input's format unless\n"
      "--to says otherwise; in ONNX, each group is a FunctionProto of domain graphpat.\n"
      "Example:\n"
      "  graphpat partition mobilenet_v2.relay -o out.relay --attr Composite=bn \\\n"
      "    --pattern \"is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), "
      "wildcard(), wildcard(), wildcard()), 0)\"");
  command->callback([options, &exit_code] { exit_code = run_partition(*options); });
}

}  // namespace graphpat::cli
