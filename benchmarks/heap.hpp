// Heap accounting for the benchmark harness: heap.cpp replaces the global operator new and
// delete (the array, nothrow and sized forms forward to them by default) to count the bytes
// live on the heap and their high-water mark. Over-aligned allocations (the align_val_t forms)
// are left alone and not counted. The harness runs one benchmark at a time on one thread, so
// the mark is exact for what a pass allocates.
//
//   const std::size_t before = bench::reset_peak_heap();
//   run_the_pass();
//   std::size_t pass_peak = bench::peak_heap_bytes() - before;  // bytes it held at its worst
#pragma once

#include <cstddef>

namespace bench {

/// Bytes currently allocated through operator new and not yet freed.
std::size_t live_heap_bytes();
/// The most bytes live at once since the last reset_peak_heap().
std::size_t peak_heap_bytes();
/// Starts a new high-water mark at the bytes live now, and returns them.
std::size_t reset_peak_heap();
/// Keeps freed memory in the process (glibc: no trimming, no mmap'd blocks), so a timed run
/// after an untimed one reuses pages already mapped and the figures exclude first-touch page
/// faults; memory shows in the heap counters instead. Call once, first thing in main().
void keep_freed_memory();

}  // namespace bench
