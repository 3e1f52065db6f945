// Shared by the libFuzzer targets: an invariant check that reports what broke and aborts, so
// libFuzzer records the input as a crash.
//
//   graphpat::fuzz::require(again.ok(), "the printed text does not parse again", printed);
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace graphpat::fuzz {

/// Aborts with `what` (and `detail`, e.g. the offending text or status) unless `condition`.
inline void require(bool condition, std::string_view what, std::string_view detail = {}) {
  if (condition) return;
  fmt::print(stderr, "fuzz invariant broken: {}\n{}\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

/// The text of a status (Debian's absl::string_view is its own type).
inline std::string_view message(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

}  // namespace graphpat::fuzz
