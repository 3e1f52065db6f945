// Shared by the libFuzzer targets: invariant checks that report what broke and abort, so
// libFuzzer records the input as a crash. The report is built only when the check fails.
//
//   graphpat::fuzz::require_ok(again.status(), "the printed text does not parse", printed);
//   graphpat::fuzz::require_same(difference, "the printed text parses differently", printed);
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/ir/errors.hpp>

namespace graphpat::fuzz {

/// Aborts with `what` (and `detail`, e.g. the offending text or status).
[[noreturn]] inline void fail(std::string_view what, std::string_view detail = {}) {
  fmt::print(stderr, "fuzz invariant broken: {}\n{}\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

/// Aborts with `what` (and `detail`) unless `condition`.
inline void require(bool condition, std::string_view what, std::string_view detail = {}) {
  if (!condition) fail(what, detail);
}

/// The text of a status (Debian's absl::string_view is its own type).
inline std::string_view message(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

/// Aborts with `what` and the status's message unless `status` is ok.
inline void require_ok(const absl::Status& status, std::string_view what) {
  if (!status.ok()) fail(what, message(status));
}

/// The same, `context` (e.g. the text that did not read back) on the line after the message.
inline void require_ok(const absl::Status& status, std::string_view what,
                       std::string_view context) {
  if (!status.ok()) fail(what, fmt::format("{}\n{}", message(status), context));
}

/// Aborts unless the error `status` has a stable id (`[graphpat.<id>] ...`).
inline void require_error_id(const absl::Status& status) {
  require(!error_id(status).empty(), "an error without an id", message(status));
}

/// Aborts with `what`, the difference and `context` on the next line, if there is a difference.
inline void require_same(const std::optional<Difference>& difference, std::string_view what,
                         std::string_view context) {
  if (difference) fail(what, fmt::format("{}\n{}", difference->reason, context));
}

}  // namespace graphpat::fuzz
