// Test support: the project's copy of the corpus (tests/data/corpus) and reading files whole,
// plus Catch2 printers for graphpat ids so failed checks show `%12`, not a struct dump.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <graphpat/ir/format.hpp>

namespace graphpat::testing {

/// tests/data/corpus: TVM-printed models, golden cases, conformance cases.
inline const std::filesystem::path kCorpus =
    std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "corpus";

/// The bytes of `path` ("" when it cannot be read; the callers' checks then fail visibly).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// Non-overlapping occurrences of `needle` in `text`.
inline std::size_t count_of(std::string_view text, std::string_view needle) {
  std::size_t found = 0;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++found;
  }
  return found;
}

/// A status message as a std::string (Debian's absl::string_view is its own type).
inline std::string message(const absl::Status& status) { return std::string(status.message()); }

}  // namespace graphpat::testing

namespace Catch {
template <>
struct StringMaker<graphpat::NodeId> {
  static std::string convert(graphpat::NodeId id) { return fmt::format("{}", id); }
};
}  // namespace Catch
