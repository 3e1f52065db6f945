// Input limits shared by every loader (Relay text, TVM JSON, pattern text, graph JSON): how
// deep the input may nest, how many nodes it may create and how large one tensor may be. A
// file over a limit is refused with a `<loader>.too_deep` / `too_many_nodes` /
// `tensor_too_large` error naming the place and the limit, never a crash or an exhausted
// stack. Each loader's options struct holds one as `limits`, so they are set the same way
// everywhere; a limit left 0 is the loader's default, so setting one keeps the others:
//
//   auto module = graphpat::relay::parse_text(
//       text, {.limits = {.max_tensor_bytes = 64 << 20}});  // refuse constants over 64 MiB
//   // "[graphpat.relay_text.tensor_too_large] 40:1: b64ndarrays[3]: the array needs
//   //  268435456 bytes, more than the limit of 67108864 (max_tensor_bytes)"
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace graphpat {

/// Limits on what one load may build; 0 stands for the loader's default. The defaults
/// (kDefaultLimits, and each loader's own depth) take every real model (a 1,000,000-node
/// chain, multi-GiB weights) and stop what only a broken or hostile file holds.
struct InputLimits {
  /// Deepest syntactic nesting (calls in calls, a type in a type, an attribute in an
  /// attribute). Nesting is the only thing loaders follow recursively; 512 levels (Relay text;
  /// TVM JSON 200, graph JSON and pattern text 256) stay within an 8 MiB stack even in an
  /// AddressSanitizer build (whose frames are several times larger), and TVM's printer never
  /// nests more than a few levels (every call gets its own `%N`).
  std::uint32_t max_depth = 0;
  /// Most nodes the load may create (default 100,000,000; a pattern text 1,000,000).
  std::uint64_t max_nodes = 0;
  /// Most bytes of one constant tensor (default 4 GiB).
  std::uint64_t max_tensor_bytes = 0;

  /// These limits with each 0 taken from `defaults`:
  /// `InputLimits{.max_nodes = 5}.or_defaults(kDefaultLimits).max_depth == 512`.
  [[nodiscard]] constexpr InputLimits or_defaults(const InputLimits& defaults) const {
    return {.max_depth = max_depth != 0 ? max_depth : defaults.max_depth,
            .max_nodes = max_nodes != 0 ? max_nodes : defaults.max_nodes,
            .max_tensor_bytes = max_tensor_bytes != 0 ? max_tensor_bytes : defaults.max_tensor_bytes};
  }
};

/// The limits a loader applies where neither the caller nor the loader sets one.
inline constexpr InputLimits kDefaultLimits{
    .max_depth = 512, .max_nodes = 100'000'000, .max_tensor_bytes = std::uint64_t{4} << 30};

namespace detail {

/// The problem text of a depth limit error: "nesting deeper than 512 levels (max_depth)".
inline std::string too_deep_problem(std::uint64_t limit) {
  return fmt::format("nesting deeper than {} levels (max_depth)", limit);
}

/// The problem text of a node count error: "more than 100 nodes (max_nodes)".
inline std::string too_many_nodes_problem(std::uint64_t limit) {
  return fmt::format("more than {} nodes (max_nodes)", limit);
}

/// The problem text of a tensor size error: "<what> needs N bytes, more than the limit of M
/// (max_tensor_bytes)".
inline std::string tensor_too_large_problem(std::string_view what, std::uint64_t bytes,
                                            std::uint64_t limit) {
  return fmt::format("{} needs {} bytes, more than the limit of {} (max_tensor_bytes)", what,
                     bytes, limit);
}

}  // namespace detail
}  // namespace graphpat
