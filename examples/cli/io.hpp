// What every `graphpat` command shares: reading a model from a file or `-` (its format told by
// its content: Relay text, TVM JSON, graph JSON or ONNX), writing one in a format of its dialect,
// writing OUT atomically (OUT.tmp then a rename, so OUT is untouched on failure), printing errors,
// reading a pattern given inline or as `@file`, and the progress line shown on a terminal for steps
// that take over a second.
//
//   absl::StatusOr<graphpat::cli::Loaded> in = graphpat::cli::load("model.unbound.json");
//   if (!in.ok()) return graphpat::cli::fail(in.status());   // prints it, returns exit code 1
//   auto text = graphpat::cli::render(in->module, graphpat::cli::Format::kText, in->envelope);
//   absl::Status written = graphpat::cli::write_output("model.relay", *text);
//   int code = graphpat::cli::with_module(*in, [&](const auto& module) { ...; return 0; });
#pragma once

#include <absl/status/statusor.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <graphpat/io/onnx.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/pattern/pattern_graph.hpp>

namespace graphpat::cli {

/// The model formats the commands read and write: three of Relay modules, one of ONNX modules.
enum class Format { kText, kJson, kGraphJson, kOnnx };

/// "Relay text", "TVM JSON", "graph JSON", "ONNX".
std::string_view format_name(Format format);
/// The `--to` spelling of a format: "text", "json", "graph-json", "onnx"; nullopt for another
/// word.
std::optional<Format> format_from_option(std::string_view word);
/// The `--envelope` spelling: "astext", "astext-no-meta", "str".
std::optional<relay::TextEnvelope> envelope_from_option(std::string_view word);

/// A model read from a file: a Relay module (`module`), or an ONNX one (`onnx`, set exactly
/// when the file is ONNX or graph JSON of the ONNX dialect; empty provenance for the latter).
struct Loaded {
  std::string name;  // the path given, or "<stdin>"
  Format format = Format::kText;
  relay::TextEnvelope envelope = relay::TextEnvelope::kAstext;  // a text's own envelope
  relay::Module module;
  relay::JsonProvenance provenance;  // TVM JSON loaded with keep_provenance: what writes the
                                     // unchanged file back exactly
  std::string text;  // a Relay text's bytes, to tell whether its print is the file itself
  std::optional<onnx::LoadedOnnx> onnx;  // an ONNX model and what writes it back
};

/// `run(module)` with the module `input` holds, relay::Module or onnx::Module: the commands
/// written once for both dialects.
template <class Run>
decltype(auto) with_module(const Loaded& input, Run&& run) {
  if (input.onnx) return run(input.onnx->module);
  return run(input.module);
}

/// The bytes of `path`, or of standard input for "-".
absl::StatusOr<std::string> read_input(const std::string& path);
/// Reads and parses `path` ("-": standard input) in the format its content shows;
/// `keep_provenance` keeps what writing a TVM JSON file back unchanged needs (about the file's
/// size again), for commands that do (`convert`).
absl::StatusOr<Loaded> load(const std::string& path, bool keep_provenance = false);
/// `module` written in `format` (`envelope` for text; `provenance` only with the graph it was
/// loaded into).
absl::StatusOr<std::string> render(const relay::Module& module, Format format,
                                   relay::TextEnvelope envelope,
                                   const relay::JsonProvenance& provenance = {});
/// Writes `content` to `path` ("-": standard output) through `path`.tmp and a rename.
absl::Status write_output(const std::string& path, std::string_view content);
/// Renames the finished `temporary` to `path` (removing it when that fails).
absl::Status commit_output(const std::string& temporary, const std::string& path);

/// Where and how a command writes the model it made: `-o OUT`, `--to`, `--envelope`.
struct OutputOptions {
  std::string path{};
  std::string to{};        // "", "text", "json", "graph-json", "onnx"; "": the input's format
  std::string envelope{};  // "", "astext", "astext-no-meta", "str"; "": the input's envelope
};
/// Adds the required positional input model IN to `command`.
void add_input_option(CLI::App& command, std::string& path);
/// Adds the required `-p,--pattern` (text or @FILE) to `command`.
void add_pattern_option(CLI::App& command, std::string& pattern);
/// Adds `-o` (required), `--to` and `--envelope` to `command`.
void add_output_options(CLI::App& command, OutputOptions& options);
/// Writes `module`, made from `input` (`unchanged`: it is the module loaded, so a TVM JSON file
/// loaded with keep_provenance is written back byte for byte), as `options` say.
absl::Status write_module(const relay::Module& module, const Loaded& input,
                          const OutputOptions& options, bool unchanged = false);
/// The same for an ONNX module: written as ONNX or graph JSON, the formats of its dialect
/// (another `--to` is refused with `cli.cross_dialect`); as ONNX, what is unchanged as the
/// input file had it, a function literal (a group partition or merge-composite made) as a
/// FunctionProto of domain `graphpat`.
absl::Status write_module(const onnx::Module& module, const Loaded& input,
                          const OutputOptions& options, bool unchanged = false);

/// A pattern from `--pattern`'s value: the text itself, or `@file`. Errors name the file (or
/// `--pattern`) and the line:column in it.
absl::StatusOr<Pattern> read_pattern(const std::string& value);
/// `status` with `place` (a file name) put in front of the place its message names:
/// "[graphpat.relay_text.x] 12:7: ..." becomes "[graphpat.relay_text.x] model.relay:12:7: ...".
absl::Status locate(const absl::Status& status, std::string_view place);

/// Prints `status` on stderr as `graphpat: <message>` and returns exit code 1.
int fail(const absl::Status& status);
/// Prints a usage error on stderr and returns exit code 2.
int usage_error(std::string_view message);

/// Says on stderr what a step is doing when it runs for over a second and stderr is a
/// terminal; silent otherwise. Scope it around the step. With `--phases` (report_phases), every
/// step also prints its wall and CPU time on stderr when it ends: the whole process in phases
/// (reading, parsing, the command's pass, printing, writing).
///   { graphpat::cli::ProgressLine progress("parsing model.relay"); parse(...); }
///   // graphpat --phases cse big.relay -o out.relay:
///   // "graphpat: phase parsing big.relay: 0.312047 s wall, 0.310211 s CPU"
class ProgressLine {
 public:
  explicit ProgressLine(std::string what);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Set by `graphpat --phases`.
  static inline bool report_phases = false;

 private:
  std::string what_;
  std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
  double cpu_start_ = 0;
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace graphpat::cli
