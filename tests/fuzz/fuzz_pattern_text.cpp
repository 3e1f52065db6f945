// libFuzzer target for the pattern text reader: any bytes given to parse_pattern must give a
// pattern or an error, never a crash; a pattern that parses must describe itself, and the
// description must parse again into a pattern with the same description.
#include <graphpat/pattern.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using graphpat::fuzz::fail;
  using graphpat::fuzz::require_error_id;
  using graphpat::fuzz::require_ok;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(text);
  if (!pattern.ok()) {
    require_error_id(pattern.status());
    return 0;
  }
  std::string described = graphpat::describe(*pattern);
  absl::StatusOr<graphpat::Pattern> again = graphpat::parse_pattern(described);
  // A known limit: the description can nest deeper than the text it came from (a bare
  // `has_shape((10, 10))` is described `wildcard().has_shape([10, 10])`), so a text just within
  // max_depth can describe past it (found by the CI fuzz step, session 9:
  // regression_description_deeper_than_input).
  if (!again.ok() && graphpat::error_id(again.status()) == "graphpat.pattern_text.too_deep") {
    return 0;
  }
  require_ok(again.status(), "the description does not parse", described);
  std::string described_again = graphpat::describe(*again);
  if (described_again != described) {
    fail("the description describes differently", described + "\n" + described_again);
  }
  return 0;
}
