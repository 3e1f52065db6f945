// graphpat rewrite IN --rules FILE [--relay-compat] [--max-applications N] -o OUT: apply the
// rewrite rules of FILE (`pattern => replacement` lines, transform/rewrite_rules.hpp) to a
// bounded fixed point, and say how often each rule applied.
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>

#include <graphpat/transform/rewrite_rules.hpp>

#include "commands.hpp"
#include "io.hpp"
#include "report.hpp"

namespace graphpat::cli {

namespace {

struct RewriteCommandOptions {
  std::string input;
  std::string rules;
  bool relay_compat = false;
  std::uint32_t max_applications = 100;
  OutputOptions output;
};

template <Dialect D>
int rewrite_and_report(const RewriteCommandOptions& options, const RewriteRules& rules,
                       const Module<D>& module, const Loaded& input) {
  absl::StatusOr<ModuleRewriteResult<D>> result = [&] {
    ProgressLine progress("rewriting");
    return apply_rewrite_rules(rules, module,
                               {.relay_compat = options.relay_compat,
                                .max_applications = options.max_applications});
  }();
  if (!result.ok()) return fail(locate(result.status(), options.rules));
  absl::Status written = write_module(result->module, input, options.output);
  if (!written.ok()) return fail(written);
  std::string out;
  for (const RewriteCallbackCounts& rule : result->callbacks) {
    out += fmt::format("{}: {} rewrite{}\n", rule.name, rule.rewrites, plural(rule.rewrites));
  }
  out += result->converged
             ? fmt::format("converged after {} iteration{}\n", result->iterations,
                           plural(result->iterations))
             : fmt::format("stopped after {} application{} (--max-applications): the rules may "
                           "not reach a fixed point\n",
                           result->applications, plural(result->applications));
  out += describe_merged_first(result->report.cse, options.relay_compat);
  fmt::print("{}", out);
  return 0;
}

int run_rewrite(const RewriteCommandOptions& options) {
  absl::StatusOr<std::string> text = read_input(options.rules);
  if (!text.ok()) return fail(text.status());
  absl::StatusOr<RewriteRules> rules = parse_rewrite_rules(*text);
  if (!rules.ok()) return fail(locate(rules.status(), options.rules));
  absl::StatusOr<Loaded> input = load(options.input);
  if (!input.ok()) return fail(input.status());
  return with_module(*input, [&](const auto& module) {
    return rewrite_and_report(options, *rules, module, *input);
  });
}

}  // namespace

void add_rewrite(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RewriteCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "rewrite", "Apply rewrite rules (pattern => replacement) to a bounded fixed point");
  add_input_option(*command, options->input);
  command->add_option("--rules", options->rules, "The rules file, one rule per line")
      ->required();
  command->add_flag("--relay-compat", options->relay_compat,
                    "Rewrite as TVM v0.14 does: TVM's matcher, no merging of duplicated nodes "
                    "first");
  command->add_option("--max-applications", options->max_applications,
                      "The budget of rule applications (one rule over the whole graph)")
      ->default_val(100);
  add_output_options(*command, options->output);
  command->footer(
      "A rule is `[name:] pattern => replacement`, both terms in the dialect's op names with\n"
      "variables (Relay's `%x` or a plain name), `key=value` attributes matched on the\n"
      "pattern and given on the replacement (the rest copied from the pattern's call of the\n"
      "same op); `#` starts a comment. Prints each rule's rewrites.\n"
      "A rules file, rules.txt:\n"
      "  double_relu: nn.relu(nn.relu(%x)) => nn.relu(%x)\n"
      "  Relu(Relu(x)) => Relu(x)                     # ONNX\n"
      "Example:\n"
      "  graphpat rewrite model.relay --rules rules.txt -o out.relay");
  command->callback([options, &exit_code] { exit_code = run_rewrite(*options); });
}

}  // namespace graphpat::cli
