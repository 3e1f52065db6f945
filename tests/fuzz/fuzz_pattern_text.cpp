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
  using graphpat::fuzz::message;
  using graphpat::fuzz::require;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(text);
  if (!pattern.ok()) {
    require(!graphpat::error_id(pattern.status()).empty(), "an error without an id",
            message(pattern.status()));
    return 0;
  }
  std::string described = graphpat::describe(*pattern);
  absl::StatusOr<graphpat::Pattern> again = graphpat::parse_pattern(described);
  require(again.ok(), "the description does not parse",
          again.ok() ? std::string() : std::string(message(again.status())) + "\n" + described);
  std::string described_again = graphpat::describe(*again);
  if (described_again != described) {
    require(false, "the description describes differently", described + "\n" + described_again);
  }
  return 0;
}
