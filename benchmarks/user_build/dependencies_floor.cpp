// The floor of user_file.cpp's compile: the headers of graphpat's dependencies that its entry
// declarations need (Abseil's StatusOr and flat_hash_map, fmt) and the standard ones, nothing
// of graphpat.
#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

int floor_function(std::string_view text) {
  absl::StatusOr<std::string> copy = std::string(text);
  fmt::print("{}\n", copy->size());
  return static_cast<int>(copy->size());
}
