// The size of the tests that take "a million nodes" (every pass must take a 1,000,000-node
// chain without recursing): kLargeGraphNodes.
//
//   constexpr std::uint32_t kChain = graphpat::testing::kLargeGraphNodes;
//
// The sanitizer build runs a quarter of that, which still catches a walk recursing once per
// node (250,000 levels fill its 8 MiB stack at 34 bytes a level, and a sanitized frame is
// larger); at a million, the large tests took over half of the sanitizer suite's test time
// (the three pipeline tests of robustness/test_deep_graphs.cpp alone 685 s of 1,312 s, CI,
// session 14). The plain build runs the million.
#pragma once

#include <cstdint>

namespace graphpat::testing {

#if defined(__SANITIZE_ADDRESS__)  // g++ -fsanitize=address
inline constexpr std::uint32_t kLargeGraphNodes = 250'000;
#elif defined(__has_feature)  // clang (nested: g++ cannot parse __has_feature in an #if)
#if __has_feature(address_sanitizer)
inline constexpr std::uint32_t kLargeGraphNodes = 250'000;
#else
inline constexpr std::uint32_t kLargeGraphNodes = 1'000'000;
#endif
#else
inline constexpr std::uint32_t kLargeGraphNodes = 1'000'000;
#endif

}  // namespace graphpat::testing
