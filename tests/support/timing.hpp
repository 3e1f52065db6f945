// For the tests that compare a reader's processor time at n and 10 n (tagged [timing]; ctest
// runs them alone): glibc is told to keep the memory a run frees (no trimming of the heap's
// top, no mmap for blocks under 32 MiB), so that a large run does not pay page faults that a
// small run, served from memory freed by the run before it, does not. Without it, in a Release
// build, ten times the input took 40 to 70 times the processor time, the kernel zeroing fresh
// pages for every large run; with it, 9 to 21 times (a quadratic step takes 100).
//
//   graphpat::testing::keep_freed_memory();   // once, before the first timed run
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace graphpat::testing {

inline void keep_freed_memory() {
#if defined(__GLIBC__)
  static const bool set = [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 256 << 20);
    return true;
  }();
  (void)set;
#endif
}

}  // namespace graphpat::testing
