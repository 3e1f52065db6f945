#include "io.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <graphpat/io/graph_json.hpp>
#include <graphpat/io/onnx/graph_json.hpp>
#include <graphpat/ir/errors.hpp>
#include <graphpat/pattern/text.hpp>
#include <iostream>
#include <iterator>
#include <new>

namespace graphpat::cli {

namespace {

absl::Status io_error(std::string_view what, std::string_view path) {
  return make_error(absl::StatusCode::kNotFound, what,
                    fmt::format("{}: {}", path, std::strerror(errno)));
}

std::string_view skip_space(std::string_view text) {
  std::size_t start = 0;
  if (text.starts_with("\xEF\xBB\xBF")) start = 3;  // a UTF-8 byte order mark
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

/// Whether `bytes` start as a serialized ModelProto does: with the key of ir_version (field 1,
/// a varint), producer_name (2), producer_version (3), graph (7) or opset_import (8), which
/// serializers write in field order. No text format starts with those bytes (\x08, \x12,
/// \x1a, `:`, `B`).
bool looks_like_onnx(std::string_view bytes) {
  if (bytes.empty()) return false;
  switch (static_cast<unsigned char>(bytes[0])) {
    case 0x08:
    case 0x12:
    case 0x1a:
    case 0x3a:
    case 0x42:
      return true;
    default:
      return false;
  }
}

Format detect_format(std::string_view text) {
  if (looks_like_onnx(text)) return Format::kOnnx;
  std::string_view start = skip_space(text);
  if (!start.starts_with('{') && !start.starts_with('[')) return Format::kText;
  return relay::looks_like_graph_json(start) ? Format::kGraphJson : Format::kJson;
}

/// The envelope a Relay text was printed in, so that writing it back keeps it.
relay::TextEnvelope detect_envelope(std::string_view text) {
  if (!skip_space(text).starts_with("#[version")) return relay::TextEnvelope::kStr;
  if (text.find("#[metadata]") != std::string_view::npos) return relay::TextEnvelope::kAstext;
  if (text.find(detail::kOmittedTrailer) != std::string_view::npos) {
    return relay::TextEnvelope::kAstextNoMeta;
  }
  return relay::TextEnvelope::kAstext;
}

}  // namespace

std::string_view format_name(Format format) {
  switch (format) {
    case Format::kText:
      return "Relay text";
    case Format::kJson:
      return "TVM JSON";
    case Format::kGraphJson:
      return "graph JSON";
    case Format::kOnnx:
      return "ONNX";
  }
  return "";
}

std::optional<Format> format_from_option(std::string_view word) {
  if (word == "text") return Format::kText;
  if (word == "json") return Format::kJson;
  if (word == "graph-json") return Format::kGraphJson;
  if (word == "onnx") return Format::kOnnx;
  return std::nullopt;
}

std::optional<relay::TextEnvelope> envelope_from_option(std::string_view word) {
  if (word == "astext") return relay::TextEnvelope::kAstext;
  if (word == "astext-no-meta") return relay::TextEnvelope::kAstextNoMeta;
  if (word == "str") return relay::TextEnvelope::kStr;
  return std::nullopt;
}

absl::StatusOr<std::string> read_input(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return make_error(absl::StatusCode::kInvalidArgument, "cli.cannot_read",
                      fmt::format("{}: is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cli.cannot_read", path);
  // Reserved from the file's size (a hint: a pipe or /proc file says 0, a file may change), so
  // that a big input is not copied as the text grows (a 1.44 GB TVM JSON file grown as read: 12 s
  // of `graphpat stats`, a third of it). A size no allocation can hold (a sparse file) is only
  // not reserved: reading it then runs out of memory as it would have anyway.
  std::uintmax_t size = std::filesystem::file_size(path, error);
  std::string text;
  if (!error && size <= text.max_size()) {
    try {
      text.reserve(static_cast<std::size_t>(size));
    } catch (const std::bad_alloc&) {
    }
  }
  std::array<char, 1 << 16> chunk;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return io_error("cli.cannot_read", path);
  return text;
}

absl::Status locate(const absl::Status& status, std::string_view place) {
  std::string_view id = error_id(status);
  std::string_view problem = error_problem(status);
  if (id.empty()) return absl::Status(status.code(), fmt::format("{}: {}", place, problem));
  bool line_column = !problem.empty() && std::isdigit(static_cast<unsigned char>(problem[0]));
  return absl::Status(status.code(),
                      fmt::format("[{}] {}{}{}", id, place, line_column ? ":" : ": ", problem));
}

absl::StatusOr<Loaded> load(const std::string& path, bool keep_provenance) {
  Loaded loaded;
  loaded.name = path == "-" ? "<stdin>" : path;
  absl::StatusOr<std::string> text = [&] {
    ProgressLine progress(fmt::format("reading {}", loaded.name));
    return read_input(path);
  }();
  if (!text.ok()) return text.status();
  loaded.format = detect_format(*text);
  ProgressLine progress(fmt::format("parsing {}", loaded.name));
  switch (loaded.format) {
    case Format::kText: {
      loaded.envelope = detect_envelope(*text);
      absl::StatusOr<relay::Module> module = relay::parse_text(*text);
      if (!module.ok()) return locate(module.status(), loaded.name);
      loaded.module = std::move(*module);
      loaded.text = std::move(*text);
      break;
    }
    case Format::kJson: {
      absl::StatusOr<relay::LoadedJson> json =
          relay::load_json(*text, {.keep_provenance = keep_provenance});
      if (!json.ok()) return locate(json.status(), loaded.name);
      if (json->expression) {
        return make_error(absl::StatusCode::kInvalidArgument, "cli.not_a_module",
                          fmt::format("{}: holds a bare expression, not an IRModule",
                                      loaded.name));
      }
      loaded.module = std::move(json->module);
      loaded.provenance = std::move(json->provenance);
      break;
    }
    case Format::kGraphJson: {
      if (relay::graph_json_dialect(*text) == onnx::Dialect::kName) {
        absl::StatusOr<onnx::Module> module = onnx::parse_graph_json(*text);
        if (!module.ok()) return locate(module.status(), loaded.name);
        loaded.onnx = onnx::LoadedOnnx{std::move(*module), {}};
        break;
      }
      absl::StatusOr<relay::Module> module = relay::parse_graph_json(*text);
      if (!module.ok()) return locate(module.status(), loaded.name);
      loaded.module = std::move(*module);
      break;
    }
    case Format::kOnnx: {
      absl::StatusOr<onnx::LoadedOnnx> model = onnx::load(*text);
      if (!model.ok()) return locate(model.status(), loaded.name);
      loaded.onnx = std::move(*model);
      break;
    }
  }
  return loaded;
}

absl::StatusOr<std::string> render(const relay::Module& module, Format format,
                                   relay::TextEnvelope envelope,
                                   const relay::JsonProvenance& provenance) {
  ProgressLine progress(fmt::format("printing {}", format_name(format)));
  switch (format) {
    case Format::kText:
      return relay::print_text(module, envelope);
    case Format::kJson:
      return relay::save_json(module, provenance);
    case Format::kGraphJson:
      return relay::print_graph_json(module);
    case Format::kOnnx:
      break;  // write_module refuses it first
  }
  return make_error(absl::StatusCode::kInvalidArgument, "cli.bad_format", "unknown format");
}

absl::Status write_output(const std::string& path, std::string_view content) {
  ProgressLine progress(fmt::format("writing {}", path == "-" ? "<stdout>" : path));
  if (path == "-") {
    std::fwrite(content.data(), 1, content.size(), stdout);
    std::fflush(stdout);
    return absl::OkStatus();
  }
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return io_error("cli.cannot_write", temporary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) {
      absl::Status status = io_error("cli.cannot_write", temporary);
      std::remove(temporary.c_str());
      return status;
    }
  }
  return commit_output(temporary, path);
}

absl::Status commit_output(const std::string& temporary, const std::string& path) {
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    return make_error(absl::StatusCode::kInternal, "cli.cannot_write",
                      fmt::format("{}: {}", path, error.message()));
  }
  return absl::OkStatus();
}

void add_input_option(CLI::App& command, std::string& path) {
  command
      .add_option("IN", path, "Input model (Relay text, TVM JSON, graph JSON or ONNX), - for stdin")
      ->required();
}

void add_pattern_option(CLI::App& command, std::string& pattern) {
  command
      .add_option("-p,--pattern", pattern,
                  "The pattern in TVM's Python DPL spelling, or @FILE holding it")
      ->required();
}

void add_output_options(CLI::App& command, OutputOptions& options) {
  command.add_option("-o,--output", options.path, "Where to write the result (- for stdout)")
      ->required();
  command.add_option("--to", options.to, "Output format (default: the input's)")
      ->check(CLI::IsMember({"text", "json", "graph-json", "onnx"}));
  command
      .add_option("--envelope", options.envelope,
                  "Relay text form (default: the input's when it is text, else astext)")
      ->check(CLI::IsMember({"astext", "astext-no-meta", "str"}));
}

namespace {

/// `cli.cross_dialect`: `input`, of one dialect, asked for `--to` `word`, a format of the other.
absl::Status cross_dialect(const Loaded& input, std::string_view word) {
  bool to_onnx = format_from_option(word) == Format::kOnnx;
  return make_error(
      absl::StatusCode::kInvalidArgument, "cli.cross_dialect",
      fmt::format("--to {}: {} holds {} module, and {} holds {} modules; graphpat "
                  "does not convert between dialects",
                  word, input.name, to_onnx ? "a Relay" : "an ONNX",
                  format_name(*format_from_option(word)), to_onnx ? "ONNX" : "Relay"));
}

}  // namespace

absl::Status write_module(const relay::Module& module, const Loaded& input,
                          const OutputOptions& options, bool unchanged) {
  Format format = options.to.empty() ? input.format : *format_from_option(options.to);
  if (format == Format::kOnnx) return cross_dialect(input, options.to);
  relay::TextEnvelope envelope = input.envelope;  // astext unless the input was text
  if (!options.envelope.empty()) envelope = *envelope_from_option(options.envelope);
  relay::JsonProvenance provenance = unchanged ? input.provenance : relay::JsonProvenance();
  absl::StatusOr<std::string> content = render(module, format, envelope, provenance);
  if (!content.ok()) return content.status();
  return write_output(options.path, *content);
}

absl::Status write_module(const onnx::Module& module, const Loaded& input,
                          const OutputOptions& options, bool /*unchanged: the provenance says*/) {
  Format format = options.to.empty() ? input.format : *format_from_option(options.to);
  if (format != Format::kOnnx && format != Format::kGraphJson) {
    return cross_dialect(input, options.to);
  }
  absl::StatusOr<std::string> content = [&] {
    ProgressLine progress(fmt::format("printing {}", format_name(format)));
    if (format == Format::kGraphJson) return onnx::print_graph_json(module);
    // The provenance serves a changed module too: its untouched nodes keep their names.
    return onnx::save(module, input.onnx->provenance);
  }();
  if (!content.ok()) return content.status();
  return write_output(options.path, *content);
}

absl::StatusOr<Pattern> read_pattern(const std::string& value) {
  std::string place = "--pattern";
  std::string text = value;
  if (value.starts_with('@')) {
    place = value.substr(1);
    absl::StatusOr<std::string> file = read_input(place);
    if (!file.ok()) return file.status();
    text = std::move(*file);
  }
  absl::StatusOr<Pattern> pattern = parse_pattern(text);
  if (!pattern.ok()) return locate(pattern.status(), place);
  return pattern;
}

int fail(const absl::Status& status) {
  fmt::print(stderr, "graphpat: {}\n", std::string(status.message()));
  return 1;
}

int usage_error(std::string_view message) {
  fmt::print(stderr, "graphpat: {}\nRun with --help for more information.\n", message);
  return 2;
}

namespace {

/// CPU seconds this process has used.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

ProgressLine::ProgressLine(std::string what) : what_(std::move(what)) {
  if (report_phases) cpu_start_ = process_cpu_seconds();
  if (!isatty(STDERR_FILENO)) return;
  thread_ = std::thread([this] {
    auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    if (finished_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) return;
    fmt::print(stderr, "graphpat: {} ...", what_);
    std::fflush(stderr);
    finished_.wait(lock, [this] { return done_; });
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    fmt::print(stderr, " done in {:.1f} s\n", took.count());
  });
}

ProgressLine::~ProgressLine() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    finished_.notify_one();
    thread_.join();
  }
  if (report_phases) {
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start_;
    fmt::print(stderr, "graphpat: phase {}: {:.6f} s wall, {:.6f} s CPU\n", what_, wall.count(),
               process_cpu_seconds() - cpu_start_);
  }
}

}  // namespace graphpat::cli
