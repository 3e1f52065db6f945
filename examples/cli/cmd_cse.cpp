// graphpat cse IN -o OUT [--relay-compat]: common-subexpression elimination, with the merge
// report on stderr.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

#include <graphpat/transform/cse.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "report.hpp"

namespace graphpat::cli {

namespace {

struct CseCommandOptions {
  std::string input;
  OutputOptions output;
  bool relay_compat = false;
};

int run_cse(const CseCommandOptions& options) {
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  return with_module(*input, [&](const auto& module) {
    auto result = [&] {
      ProgressLine progress("merging common subexpressions");
      return eliminate_common_subexpr(module, {.relay_compat = options.relay_compat});
    }();
    absl::Status written = write_module(result.module, *input, options.output);
    if (!written.ok()) return fail(written);
    fmt::print(stderr, "cse: {}\n", describe_merges(result.report));
    return 0;
  });
}

}  // namespace

void add_cse(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CseCommandOptions>();
  CLI::App* command =
      app.add_subcommand("cse", "Merge structurally identical pure nodes (common subexpressions)");
  add_input_option(*command, options->input);
  add_output_options(*command, options->output);
  command->add_flag("--relay-compat", options->relay_compat,
                    "Merge exactly what TVM v0.14's EliminateCommonSubexpr merges");
  command->footer(
      "Prints how many nodes were merged, by kind and op, on stderr.\n"
      "Example:\n"
      "  graphpat cse mobilenet_v2.relay -o mobilenet_v2.cse.relay");
  command->callback([options, &exit_code] { exit_code = run_cse(*options); });
}

}  // namespace graphpat::cli
