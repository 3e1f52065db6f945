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

/// "group at node 12 (TupleGetItem): overlap: node 9 (nn.batch_norm) already belongs to ...".
std::string describe_rejection(const relay::Graph& graph, const RejectedGroup& rejected) {
  std::string out = fmt::format("group at node {} ({}): {}", rejected.root.index(),
                                describe_node(graph, rejected.root),
                                rejection_reason_name(rejected.reason));
  switch (rejected.reason) {
    case RejectionReason::kOverlap:
      out += fmt::format(": node {} ({}) already belongs to an earlier group",
                         rejected.node.index(), describe_node(graph, rejected.node));
      break;
    case RejectionReason::kUsedOutside:
      out += fmt::format(": interior node {} ({}) is used by node {} ({}) outside the group",
                         rejected.node.index(), describe_node(graph, rejected.node),
                         rejected.user.index(), describe_node(graph, rejected.user));
      break;
    case RejectionReason::kDuplicatesStateful:
      out += fmt::format(
          ": node {} ({}) is stateful and would be computed twice (an interior node is also used "
          "by node {} ({}) outside the group)",
          rejected.node.index(), describe_node(graph, rejected.node), rejected.user.index(),
          describe_node(graph, rejected.user));
      break;
    case RejectionReason::kEscapingVariable:
      out += fmt::format(": node {} ({}) binds a variable that node {} ({}) reads outside the group",
                         rejected.node.index(), describe_node(graph, rejected.node),
                         rejected.user.index(), describe_node(graph, rejected.user));
      break;
    case RejectionReason::kCheckFailed:
      break;
  }
  return out;
}

int run_partition(const PartitionCommandOptions& options) {
  PartitionOptions<relay::Dialect> partition_options{
      .relay_compat = options.relay_compat, .separate_duplicate_inputs = options.no_dedupe};
  for (const std::string& attr : options.attrs) {
    std::size_t equals = attr.find('=');
    if (equals == std::string::npos || equals == 0) {
      return usage_error(fmt::format("--attr {}: expected KEY=VALUE, e.g. Composite=bn", attr));
    }
    partition_options.attrs.emplace_back(attr.substr(0, equals), attr.substr(equals + 1));
  }
  absl::StatusOr<Pattern> pattern = read_pattern(options.pattern);
  if (!pattern.ok()) return fail(pattern.status());
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());

  // The default mode merges duplicates first; done here, not by partition, so that the rejected
  // groups' node ids (ids of the merged graph) can be described.
  partition_options.merge_duplicates_first = false;
  CseReport merged_first;
  relay::Module source = [&] {
    if (options.relay_compat) return input->module;
    ProgressLine progress("merging duplicated nodes");
    CseResult<relay::Dialect> merged = eliminate_common_subexpr(input->module);
    merged_first = std::move(merged.report);
    return std::move(merged.module);
  }();
  PartitionResult<relay::Dialect> result = [&] {
    ProgressLine progress("partitioning");
    return partition(*pattern, source, partition_options);
  }();
  absl::Status written = write_module(result.module, *input, options.output);
  if (!written.ok()) return fail(written);

  const PartitionReport& report = result.report;
  std::string out =
      fmt::format("{} group{} partitioned\n", report.accepted, plural(report.accepted));
  out += fmt::format("{} group{} rejected\n", report.rejected.size(),
                     plural(report.rejected.size()));
  for (const RejectedGroup& rejected : report.rejected) {
    out += fmt::format("  {}\n", describe_rejection(source.graph, rejected));
  }
  out += describe_not_outlined(report);
  out += describe_duplicated(report, &source.graph);
  out += describe_merged_first(merged_first, options.relay_compat);
  fmt::print("{}", out);
  return 0;
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
      "Prints the groups partitioned, the groups rejected with their reasons, and the\n"
      "duplicates merged first (default mode). The result is written in the input's format\n"
      "unless --to says otherwise.\n"
      "Example:\n"
      "  graphpat partition mobilenet_v2.relay -o out.relay --attr Composite=bn \\\n"
      "    --pattern \"is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), "
      "wildcard(), wildcard(), wildcard()), 0)\"");
  command->callback([options, &exit_code] { exit_code = run_partition(*options); });
}

}  // namespace graphpat::cli
