// libFuzzer's entry points for a program of several targets (GRAPHPAT_FUZZ_TARGET): it runs
// the target it is called by, the last part of argv[0] (CMakeLists.txt links each target's
// name to its program), so `fuzz_relay_json -runs=0 corpus/fuzz_relay_json` works as it did
// when every target was a program of its own.
//
//   build-asan/tests/fuzz/fuzz_relay_json -dict=... corpus/fuzz_relay_json   # a link
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_support.hpp"

namespace {

graphpat::fuzz::Target selected = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  std::string_view called = *argc > 0 ? (*argv)[0] : "";
  called.remove_prefix(std::min(called.size(), called.find_last_of('/') + 1));
  for (const auto& [name, target] : graphpat::fuzz::targets()) {
    if (name == called) selected = target;
  }
  if (selected == nullptr) {
    std::fprintf(stderr, "fuzz: called '%.*s', which is none of this program's targets:",
                 static_cast<int>(called.size()), called.data());
    for (const auto& [name, target] : graphpat::fuzz::targets()) {
      std::fprintf(stderr, " %.*s", static_cast<int>(name.size()), name.data());
    }
    std::fprintf(stderr, " (run it through a link of that name)\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return selected(data, size);
}
