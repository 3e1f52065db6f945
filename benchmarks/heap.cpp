// The global operator new/delete replacement behind heap.hpp. Each block carries its size in a
// header of max_align_t size, so alignment is what plain malloc gives.
#include "heap.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

constexpr std::size_t kHeapHeader = alignof(std::max_align_t);
std::atomic<std::size_t> g_live_bytes{0};
std::atomic<std::size_t> g_peak_bytes{0};

}  // namespace

namespace bench {

std::size_t live_heap_bytes() { return g_live_bytes.load(std::memory_order_relaxed); }
std::size_t peak_heap_bytes() { return g_peak_bytes.load(std::memory_order_relaxed); }
std::size_t reset_peak_heap() {
  const std::size_t live = live_heap_bytes();
  g_peak_bytes.store(live, std::memory_order_relaxed);
  return live;
}

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, -1);
  mallopt(M_MMAP_MAX, 0);
#endif
}

}  // namespace bench

// Not inlined: inlined into a caller, GCC pairs the header arithmetic and free() with the
// allocation it can see and warns (-Wmismatched-new-delete, -Warray-bounds) about sound code.
#if defined(__GNUC__)
#define BENCH_NOINLINE [[gnu::noinline]]
#else
#define BENCH_NOINLINE
#endif

BENCH_NOINLINE void* operator new(std::size_t size) {
  void* block = std::malloc(size + kHeapHeader);
  if (block == nullptr) throw std::bad_alloc();
  *static_cast<std::size_t*>(block) = size;
  const std::size_t live = g_live_bytes.fetch_add(size, std::memory_order_relaxed) + size;
  // One thread allocates while a benchmark runs, so a plain load/store keeps the mark exact.
  if (live > g_peak_bytes.load(std::memory_order_relaxed)) {
    g_peak_bytes.store(live, std::memory_order_relaxed);
  }
  return static_cast<char*>(block) + kHeapHeader;
}

BENCH_NOINLINE void operator delete(void* pointer) noexcept {
  if (pointer == nullptr) return;
  void* block = static_cast<char*>(pointer) - kHeapHeader;
  g_live_bytes.fetch_sub(*static_cast<std::size_t*>(block), std::memory_order_relaxed);
  std::free(block);
}

BENCH_NOINLINE void operator delete(void* pointer, std::size_t /*size*/) noexcept {
  operator delete(pointer);
}
