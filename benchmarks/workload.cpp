// Workload: real models read from the project's tests/data (GRAPHPAT_BENCH_DATA_DIR, set by
// benchmarks/CMakeLists.txt), synthetic graphs from generators.cpp, the text and JSON
// inputs of the parsers, and the ONNX models and chains of the ONNX reader and writer.
#include "workload.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/pattern.hpp>

#ifndef GRAPHPAT_BENCH_DATA_DIR
#error "GRAPHPAT_BENCH_DATA_DIR must name the project's tests/data directory"
#endif

namespace bench {
namespace {

constexpr std::string_view kModelSuffix = ".unbound.relay";
constexpr std::string_view kOnnxSuffix = ".onnx";
constexpr std::string_view kExternalSuffix = ".external.onnx";

std::filesystem::path models_dir() { return data_dir() / "corpus" / "models"; }

std::filesystem::path onnx_dir() { return data_dir() / "onnx"; }

std::string model_file(const std::string& name, std::string_view suffix) {
  return read_file(models_dir() / (name + std::string(suffix)));
}

}  // namespace

std::filesystem::path data_dir() { return GRAPHPAT_BENCH_DATA_DIR; }

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

std::string WorkloadSpec::size_label() const {
  if (!synthetic()) return "model";
  int exponent = 0;
  std::uint64_t rest = size;
  while (rest % 10 == 0 && rest > 1) {
    rest /= 10;
    ++exponent;
  }
  return rest == 1 ? fmt::format("1e{}", exponent) : std::to_string(size);
}

std::string WorkloadSpec::label() const {
  return synthetic() ? fmt::format("{}/{}", name, size_label()) : name;
}

Workload::Workload(WorkloadSpec spec) : spec_(std::move(spec)) {
  if (spec_.onnx) {
    onnx_bytes_ = spec_.synthetic() ? generate_onnx(spec_.name, spec_.size)
                                    : read_file(onnx_dir() / spec_.name);
    auto loaded = graphpat::onnx::load(onnx_bytes_);
    if (!loaded.ok()) {
      throw std::runtime_error(fmt::format("{}: {}", spec_.name, loaded.status().ToString()));
    }
    onnx_module_ = *std::move(loaded);
    return;
  }
  if (spec_.synthetic()) {
    generate(spec_.name, spec_.size, module_);
    return;
  }
  text_ = model_file(spec_.name, kModelSuffix);
  auto parsed = graphpat::relay::parse_text(*text_);
  if (!parsed.ok()) {
    throw std::runtime_error(fmt::format("{}: {}", spec_.name, parsed.status().ToString()));
  }
  module_ = *std::move(parsed);
}

const std::string& Workload::text() const {
  if (!text_) text_ = graphpat::relay::print_text(module_).value();
  return *text_;
}

const std::string& Workload::json() const {
  if (!json_) {
    if (!spec_.synthetic()) {
      json_ = model_file(spec_.name, ".unbound.json");
    } else {
      auto saved = graphpat::relay::save_json(module_);
      if (!saved.ok()) throw std::runtime_error(saved.status().ToString());
      json_ = *std::move(saved);
    }
  }
  return *json_;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(models_dir())) {
    const std::string file = entry.path().filename().string();
    if (file.size() > kModelSuffix.size() && file.ends_with(kModelSuffix)) {
      names.push_back(file.substr(0, file.size() - kModelSuffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> onnx_model_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(onnx_dir())) {
    const std::string file = entry.path().filename().string();
    if (file.ends_with(kOnnxSuffix) && !file.ends_with(kExternalSuffix)) names.push_back(file);
  }
  std::sort(names.begin(), names.end());
  return names;
}

CorpusPatterns corpus_patterns() {
  std::ifstream in(data_dir() / "corpus" / "patterns.txt");
  std::vector<graphpat::CompositePattern<graphpat::relay::Dialect>> patterns;
  for (std::string line; std::getline(in, line);) {
    std::size_t colon = line.find(": ");
    if (line.empty() || line.front() == '#' || colon == std::string::npos) continue;
    absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(line.substr(colon + 2));
    if (!pattern.ok()) return pattern.status();
    patterns.push_back({line.substr(0, colon), *std::move(pattern)});
  }
  return patterns;
}

const Workload& workload(const WorkloadSpec& spec) {
  static std::unique_ptr<Workload> current;
  if (current == nullptr || current->spec().name != spec.name ||
      current->spec().size != spec.size || current->spec().onnx != spec.onnx) {
    current.reset();  // free the previous graph before making the next
    current = std::make_unique<Workload>(spec);
  }
  return *current;
}

}  // namespace bench
