// Errors with stable ids: every failure graphpat reports on bad input is an absl::Status whose
// message starts with `[graphpat.<component>.<what>]`, then the place, then the problem.
//
//   absl::Status status = graphpat::make_error(absl::StatusCode::kInvalidArgument,
//                                              "relay_text.unexpected_token",
//                                              "12:7: expected ')' after call arguments");
//   // status.message() == "[graphpat.relay_text.unexpected_token] 12:7: expected ')' ..."
//   graphpat::error_id(status) == "graphpat.relay_text.unexpected_token"
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace graphpat {

/// Builds a status whose message is `[graphpat.<id>] <message>`.
inline absl::Status make_error(absl::StatusCode code, std::string_view id,
                               std::string_view message) {
  return absl::Status(code, fmt::format("[graphpat.{}] {}", id, message));
}

/// The stable id of a status made by make_error ("graphpat.verify.operand_order"), or "" for
/// any other status.
inline std::string_view error_id(const absl::Status& status) {
  // Debian's Abseil has its own string_view type, hence the explicit conversion.
  std::string_view message(status.message().data(), status.message().size());
  if (!message.starts_with("[graphpat.")) return {};
  std::size_t close = message.find(']');
  if (close == std::string_view::npos) return {};
  return message.substr(1, close - 1);
}

/// The problem a status made by make_error states, after its `[graphpat.<id>] ` prefix
/// ("12:7: expected ')' after call arguments"); the whole message for any other status.
inline std::string_view error_problem(const absl::Status& status) {
  std::string_view message(status.message().data(), status.message().size());
  std::string_view id = error_id(status);
  return id.empty() ? message : message.substr(std::min(message.size(), id.size() + 3));
}

namespace detail {

/// `text` with every byte outside printable ASCII (control characters, and every byte of a
/// non-ASCII character, valid UTF-8 or not) spelt `\xNN`, so a message quoting an input stays
/// printable UTF-8 whatever the input holds (`last read: '"x\xFF'`).
inline std::string escape_unprintable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F) {
      out += fmt::format("\\x{:02X}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace detail
}  // namespace graphpat
