// graphpat: the command line of the graphpat library. Reads Relay text, TVM JSON and graph
// JSON models; converts, counts, matches, compares, merges, partitions and draws them.
//
//   graphpat partition mobilenet_v2.relay --pattern @bn.pat --attr Composite=bn -o out.relay
//   graphpat match model.relay --pattern "is_op('nn.relu')(wildcard())" --count
//   graphpat --phases cse model.relay -o out.relay   # each phase's time on stderr
//
// Exit codes: 0 done (diff: equal), 1 bad input (diff: different), 2 bad usage.
#include <fmt/format.h>

#include <string_view>

#include "commands.hpp"
#include "io.hpp"

int main(int argc, char** argv) {
  CLI::App app{"graphpat: find, outline and rewrite patterns in neural-network graphs (Relay "
               "text, TVM JSON, graph JSON)",
               "graphpat"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", fmt::format("graphpat {}", GRAPHPAT_VERSION),
                       "Print graphpat's version and exit");
  app.footer(
      "Run `graphpat COMMAND --help` for a command's options and an example.\n"
      "Exit codes: 0 done, 1 bad input (diff: the models differ), 2 bad usage.\n"
      "Example:\n"
      "  graphpat convert resnet18.unbound.json -o resnet18.relay --to text");
  app.add_flag(
      "--phases", graphpat::cli::ProgressLine::report_phases,
      "Print each phase's wall and CPU time on stderr (reading, parsing, the pass, printing, "
      "writing); put it before the command");
  int exit_code = 0;
  graphpat::cli::add_convert(app, exit_code);
  graphpat::cli::add_stats(app, exit_code);
  graphpat::cli::add_match(app, exit_code);
  graphpat::cli::add_diff(app, exit_code);
  graphpat::cli::add_cse(app, exit_code);
  graphpat::cli::add_partition(app, exit_code);
  graphpat::cli::add_rewrite(app, exit_code);
  graphpat::cli::add_merge_composite(app, exit_code);
  graphpat::cli::add_dot(app, exit_code);

  if (argc == 1) {  // no command: the help, as a usage error
    fmt::print("{}", app.help());
    return 2;
  }
  if (argv[1][0] != '-') {
    std::string_view word = argv[1];
    bool known = false;
    for (const CLI::App* command : app.get_subcommands({})) known |= command->get_name() == word;
    if (!known) {
      return graphpat::cli::usage_error(fmt::format("unknown command '{}'", word));
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    return graphpat::cli::usage_error(error.what());
  }
  if (app.get_subcommands().empty()) return graphpat::cli::usage_error("no command given");
  return exit_code;
}
