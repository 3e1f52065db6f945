// graphpat convert IN -o OUT [--to text|json|graph-json|onnx]
//                  [--envelope astext|astext-no-meta|str]
#include <memory>
#include <string>

#include "commands.hpp"
#include "io.hpp"

namespace graphpat::cli {

namespace {

struct ConvertCommandOptions {
  std::string input;
  OutputOptions output;
};

int run_convert(const ConvertCommandOptions& options) {
  absl::StatusOr<Loaded> input = load(options.input, /*keep_provenance=*/true);
  if (!input.ok()) return fail(input.status());
  absl::Status written = with_module(*input, [&](const auto& module) {
    return write_module(module, *input, options.output, /*unchanged=*/true);
  });
  return written.ok() ? 0 : fail(written);
}

}  // namespace

void add_convert(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ConvertCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "convert",
      "Write a model in another format: Relay text, TVM JSON or graph JSON (ONNX as ONNX)");
  add_input_option(*command, options->input);
  add_output_options(*command, options->output);
  command->footer(
      "An unchanged model comes back byte for byte in its own format and envelope. A Relay\n"
      "module is written in any of the three Relay formats, an ONNX module as ONNX.\n"
      "Example:\n"
      "  graphpat convert resnet18.unbound.json -o resnet18.relay --to text");
  command->callback([options, &exit_code] { exit_code = run_convert(*options); });
}

}  // namespace graphpat::cli
