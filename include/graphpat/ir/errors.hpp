// Errors with stable ids: every failure graphpat reports on bad input is an absl::Status whose
// message starts with `[graphpat.<component>.<what>]`, then the place, then the problem
// (docs/errors.md lists every id).
//
//   absl::Status status = graphpat::make_error(absl::StatusCode::kInvalidArgument,
//                                              "relay_text.unexpected_token",
//                                              "12:7: expected ')' after call arguments");
//   // status.message() == "[graphpat.relay_text.unexpected_token] 12:7: expected ')' ..."
//   graphpat::error_id(status) == "graphpat.relay_text.unexpected_token"
//
// A message is printable ASCII whatever the input held: make_error spells every other byte
// `\xNN` (escape_unprintable), so a reader may quote a name or a value from the input as it is,
// and a JSON reader names its place with short_json_path, so a deep or long-keyed path does not
// fill the first line.
//
// Statuses print with fmt: `fmt::print("{}\n", status)` prints the message of an error (its id
// first) and `OK` for success; `fmt::print("{}", status.message())` works too, although
// Debian's Abseil has an absl::string_view of its own (formatted as std::string_view here).
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace graphpat {

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

/// What a JSON reader says of a NUL byte after a complete document: nlohmann's parser takes the
/// byte for the end of the input and would accept the document, silently dropping whatever
/// follows, so a reader looks for a NUL once its parse has succeeded (a NUL anywhere else is a
/// syntax error nlohmann words itself).
inline constexpr std::string_view kJsonNulByteProblem = "a NUL byte after the document";

/// `path` (a JSON Pointer such as `/functions/0/nodes/3`, or a TVM JSON place such as
/// `nodes[3].attrs.op`) short enough for the first line of a message: a segment (the text from
/// one `/`, `.` or `[` to the next) longer than 40 bytes keeps its first 32 and `...`, and a
/// path of more than 12 segments keeps its first 6 and last 5 with `/...` between
/// (`/functions/0/nodes/3/attrs/a/.../0/0/0/0/0`). Bytes are escaped first (a cut never
/// splits a `\xNN`), so the result is printable and at most about 500 bytes.
inline std::string short_json_path(std::string_view raw_path) {
  std::string escaped = escape_unprintable(raw_path);
  std::string_view path = escaped;
  constexpr std::size_t kLongSegment = 40, kKeptBytes = 32, kMaxSegments = 12, kHead = 6, kTail = 5;
  std::vector<std::string_view> segments;
  std::size_t start = 0;
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/' || path[i] == '.' || path[i] == '[') {
      segments.push_back(path.substr(start, i - start));
      start = i;
    }
  }
  auto append = [](std::string& out, std::string_view segment) {
    if (segment.size() <= kLongSegment) {
      out += segment;
    } else {
      std::size_t cut = kKeptBytes;
      std::size_t escape = segment.rfind('\\', cut - 1);
      if (escape != std::string_view::npos && escape + 4 > cut) cut = escape;
      out += segment.substr(0, cut);
      out += "...";
    }
  };
  std::string out;
  if (segments.size() <= kMaxSegments) {
    for (std::string_view segment : segments) append(out, segment);
    return out;
  }
  for (std::size_t i = 0; i < kHead; ++i) append(out, segments[i]);
  out += "/...";
  for (std::size_t i = segments.size() - kTail; i < segments.size(); ++i) {
    append(out, segments[i]);
  }
  return out;
}

}  // namespace detail

/// Builds a status whose message is `[graphpat.<id>] <message>`, with every byte of `message`
/// outside printable ASCII spelt `\xNN`.
inline absl::Status make_error(absl::StatusCode code, std::string_view id,
                               std::string_view message) {
  return absl::Status(code,
                      fmt::format("[graphpat.{}] {}", id, detail::escape_unprintable(message)));
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

}  // namespace graphpat

/// `{}` of an absl::Status: an error's message (`[graphpat.<id>] <place>: <problem>`), or `OK`.
template <>
struct fmt::formatter<absl::Status> : fmt::formatter<std::string_view> {
  auto format(const absl::Status& status, fmt::format_context& ctx) const {
    std::string_view text = status.ok() ? std::string_view("OK")
                                        : std::string_view(status.message().data(),
                                                           status.message().size());
    return fmt::formatter<std::string_view>::format(text, ctx);
  }
};

#if !defined(ABSL_USES_STD_STRING_VIEW)
/// `{}` of an absl::string_view, where Abseil has its own (Debian 12's does): as its bytes.
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<std::string_view> {
  auto format(absl::string_view text, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(text.data(), text.size()),
                                                    ctx);
  }
};
#endif
