// The subcommands of the `graphpat` program, one file each (cmd_<name>.cpp). Each add_* call
// registers its subcommand on the app; when the command line selects it, it runs after
// parsing and stores the process's exit code in `exit_code` (0 done, 1 bad input, 2 usage).
//
//   CLI::App app{"graphpat"};
//   int exit_code = 0;
//   graphpat::cli::add_convert(app, exit_code);
//   app.parse(argc, argv);   // runs `graphpat convert ...`
#pragma once

#include <CLI/CLI.hpp>

namespace graphpat::cli {

void add_convert(CLI::App& app, int& exit_code);
void add_stats(CLI::App& app, int& exit_code);
void add_match(CLI::App& app, int& exit_code);
void add_diff(CLI::App& app, int& exit_code);
void add_cse(CLI::App& app, int& exit_code);
void add_partition(CLI::App& app, int& exit_code);
void add_rewrite(CLI::App& app, int& exit_code);
void add_merge_composite(CLI::App& app, int& exit_code);
void add_dot(CLI::App& app, int& exit_code);

}  // namespace graphpat::cli
