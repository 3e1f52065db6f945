// bench_builder: what it costs to build a graph through graphpat::relay::Builder, per node, in
// time and in memory, next to a floor measured in the same process.
//
// The floor is a minimal hash-consing arena: a std::vector push of the same 32-byte
// graphpat::Node records (plus their operands, in one flat array as Graph keeps them) and one
// absl::flat_hash_map::try_emplace keyed by the node's (kind, payload, operands) held inline.
// The builder additionally keys on the type (none here), checks whether the callee is stateful,
// and keeps only node ids in its table, comparing keys through the node and operand arrays.
//
// Workloads (generated once per size with fixed seeds, outside the timed region):
//   Chain  a deep chain: one var, then each node a call of a unary op (nn.relu and sigmoid in
//          turn) on the node before it; every request creates a node.
//   Dag    a random DAG of calls of a binary op (add, multiply, subtract, maximum) on two
//          earlier nodes picked uniformly; half of the call requests repeat an earlier request
//          and must come back as the existing node (a hash-consing hit), so it takes about twice
//          as many requests as the graph has nodes.
// Each size (10000, 1000000, 10000000) is the number of nodes the finished graph holds, counting
// its op and var nodes. Only building is timed: creating the empty graph or arena and issuing
// every request, not destroying it. The clock is process CPU time (std::clock, reported as
// manual time), so other processes sharing the machine do not inflate it. Each benchmark first
// builds once untimed, and with glibc main() keeps freed memory in the process, so timed builds
// reuse pages already mapped: the figures are the arenas' own work (hashing, probing, cache
// misses), not first-touch page faults; memory shows in the bytes counters instead. The 1e7
// builds run once each (after the warm-up), the 1e6 builds 5 times.
//
// Counters:
//   nodes, requests      the graph's node count and the requests issued to build it
//   ns_per_node          timed CPU nanoseconds / nodes (averaged over the iterations)
//   bytes_per_node       Graph::memory_bytes() / nodes: node arena, operand array and
//                        hash-consing table, by capacity (vectors grow by doubling, so this
//                        depends on where the size falls between powers of two); the floor
//                        counts its vectors and map with the same formula
//   heap_bytes_per_node  live heap growth across the build / nodes, measured by counting
//                        operator new below: everything the build allocated and still holds
//   ctx_bytes_per_node   heap held by the shared Relay context (op registry of 288 ops, their
//                        attribute schemas, interned strings) / nodes; one context serves every
//                        graph of a process, so this share falls as graphs grow. 0 for the floor.
//   ratio_to_floor       builder ns_per_node / floor ns_per_node for the same workload and size;
//                        set only when the floor ran earlier in the same process (it runs first
//                        unless a filter drops it); with --benchmark_repetitions, every builder
//                        repetition is divided by the floor's last repetition
// Counters print with SI prefixes: 9.16m is 0.00916, 1.84k is 1840 (--benchmark_format=csv or
// json prints plain numbers).
//
// Run (Release build):
//   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build --target bench_builder
//   build/benchmarks/bench_builder                              # all, ~2 min on an idle box
//   build/benchmarks/bench_builder --benchmark_filter=/10000/   # 1e4 only (also /1000000/ ...)
//   build/benchmarks/bench_builder --benchmark_filter=Dag       # one workload, floor + builder
// Peak memory is about 2.3 GB (resident), for the 1e7-node Dag.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <initializer_list>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>
#include <absl/types/span.h>
#include <benchmark/benchmark.h>
#include <graphpat/relay/dialect.hpp>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// ---------------------------------------------------------------------------------------------
// Live heap bytes, counted by replacing the global operator new/delete (the array, nothrow and
// sized forms forward to these two by default). Each block carries its size in a header of
// max_align_t size, so alignment is what plain malloc gives. Over-aligned allocations use the
// separate align_val_t forms, which are left alone and not counted.
// ---------------------------------------------------------------------------------------------
namespace {

constexpr std::size_t kHeapHeader = alignof(std::max_align_t);
std::atomic<std::size_t> g_live_heap_bytes{0};

std::size_t live_heap_bytes() { return g_live_heap_bytes.load(std::memory_order_relaxed); }

}  // namespace

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
  g_live_heap_bytes.fetch_add(size, std::memory_order_relaxed);
  return static_cast<char*>(block) + kHeapHeader;
}

BENCH_NOINLINE void operator delete(void* pointer) noexcept {
  if (pointer == nullptr) return;
  void* block = static_cast<char*>(pointer) - kHeapHeader;
  g_live_heap_bytes.fetch_sub(*static_cast<std::size_t*>(block), std::memory_order_relaxed);
  std::free(block);
}

BENCH_NOINLINE void operator delete(void* pointer, std::size_t /*size*/) noexcept {
  operator delete(pointer);
}

namespace {

using graphpat::Context;
using graphpat::Node;
using graphpat::NodeId;
using graphpat::NodeKind;
using graphpat::OpId;
using graphpat::StringId;

constexpr std::uint32_t kNone = graphpat::Id<void>::kNone;

/// The Relay context every graph of this process shares, and the heap bytes it holds.
struct SharedContext {
  std::shared_ptr<Context> context;
  std::size_t bytes = 0;
};

const SharedContext& shared_context() {
  static const SharedContext shared = [] {
    std::size_t before = live_heap_bytes();
    SharedContext result{Context::create<graphpat::relay::Dialect>(), 0};
    result.bytes = live_heap_bytes() - before;
    return result;
  }();
  return shared;
}

// ---------------------------------------------------------------------------------------------
// Workloads: a list of node requests. Operands name earlier requests by index; the builder and
// the floor map each request to the NodeId it returned, as an importer maps source ids.
// ---------------------------------------------------------------------------------------------

struct Request {
  NodeKind kind;                          // kVar, kOp or kCall
  std::uint8_t operand_count;             // a call: callee, then its args
  std::uint32_t payload;                  // kVar: the name (StringId); kOp: the op (OpId)
  std::array<std::uint32_t, 3> operands;  // request indices
};

struct Workload {
  std::vector<Request> requests;
  std::uint32_t nodes = 0;  // distinct nodes the requests create
};

/// Appends requests to a workload and remembers which request created each distinct node.
class WorkloadWriter {
 public:
  std::uint32_t var(StringId name) { return add_node({NodeKind::kVar, 0, name.value, {}}); }
  std::uint32_t op(OpId op) { return add_node({NodeKind::kOp, 0, op.value, {}}); }
  /// A call the caller knows to be new.
  std::uint32_t call(std::uint32_t callee, std::initializer_list<std::uint32_t> args) {
    Request request{
        NodeKind::kCall, static_cast<std::uint8_t>(1 + args.size()), kNone, {callee, kNone, kNone}};
    std::copy(args.begin(), args.end(), request.operands.begin() + 1);
    return add_node(request);
  }
  /// Repeats the request that created node number `node` (a hash-consing hit).
  void repeat(std::uint32_t node) {
    workload_.requests.push_back(workload_.requests[creator_[node]]);
  }

  [[nodiscard]] std::uint32_t nodes() const { return workload_.nodes; }
  /// The request that created node number `node`.
  [[nodiscard]] std::uint32_t creator(std::uint32_t node) const { return creator_[node]; }

  Workload finish() && { return std::move(workload_); }

 private:
  std::uint32_t add_node(const Request& request) {
    auto index = static_cast<std::uint32_t>(workload_.requests.size());
    workload_.requests.push_back(request);
    creator_.push_back(index);
    ++workload_.nodes;
    return index;
  }

  Workload workload_;
  std::vector<std::uint32_t> creator_;
};

/// SplitMix64: a fixed, portable sequence (the std distributions differ between libraries).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform enough in [0, bound) for bound < 2^32.
  std::uint32_t below(std::uint32_t bound) {
    return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32);
  }

 private:
  std::uint64_t state_;
};

Workload chain(Context& context, std::uint32_t nodes) {
  WorkloadWriter writer;
  const std::array<std::uint32_t, 2> ops = {writer.op(context.op("nn.relu")),
                                            writer.op(context.op("sigmoid"))};
  std::uint32_t previous = writer.var(context.strings.intern("x"));
  for (std::uint32_t i = 0; writer.nodes() < nodes; ++i) {
    previous = writer.call(ops[i % ops.size()], {previous});
  }
  return std::move(writer).finish();
}

Workload random_dag(Context& context, std::uint32_t nodes) {
  constexpr std::uint32_t kInputs = 16;
  WorkloadWriter writer;
  std::vector<std::uint32_t> ops;
  for (const char* name : {"add", "multiply", "subtract", "maximum"}) {
    ops.push_back(writer.op(context.op(name)));
  }
  const std::uint32_t first_value = writer.nodes();  // operands are vars and calls, not ops
  for (std::uint32_t i = 0; i < kInputs; ++i) writer.var(context.strings.intern("x"));
  const std::uint32_t first_call = writer.nodes();

  Random random(0x6772617068706174ULL);
  absl::flat_hash_set<std::array<std::uint32_t, 3>> made;  // (op, lhs node, rhs node)
  while (writer.nodes() < nodes) {
    if (writer.nodes() > first_call && random.next() % 2 == 0) {
      writer.repeat(first_call + random.below(writer.nodes() - first_call));
      continue;
    }
    const std::uint32_t span = writer.nodes() - first_value;
    std::array<std::uint32_t, 3> call = {random.below(static_cast<std::uint32_t>(ops.size())),
                                         first_value + random.below(span),
                                         first_value + random.below(span)};
    if (!made.insert(call).second) continue;  // would be a hit; hits come only from repeats
    writer.call(ops[call[0]], {writer.creator(call[1]), writer.creator(call[2])});
  }
  return std::move(writer).finish();
}

struct Shape {
  const char* name;
  Workload (*generate)(Context&, std::uint32_t);
};
constexpr std::array<Shape, 2> kShapes = {{{"Chain", chain}, {"Dag", random_dag}}};

/// The workload for (shape, nodes), generated on first use. Only the latest is kept, so the
/// 1e7-node lists do not pile up; benchmarks are registered grouped by workload.
const Workload& workload(const Shape& shape, std::uint32_t nodes) {
  static std::pair<const Shape*, std::uint32_t> cached_key = {nullptr, 0};
  static Workload cached;
  if (cached_key != std::pair(&shape, nodes)) {
    cached = Workload();
    cached = shape.generate(*shared_context().context, nodes);
    cached_key = {&shape, nodes};
  }
  return cached;
}

// ---------------------------------------------------------------------------------------------
// The two arenas under test, behind one interface: var, op, call, nodes, memory_bytes,
// shared_bytes (memory owned elsewhere on the arena's behalf).
// ---------------------------------------------------------------------------------------------

class BuilderArena {
 public:
  BuilderArena() : graph_(shared_context().context), builder_(graph_) {}

  NodeId var(StringId name) { return builder_.var(name); }
  NodeId op(OpId op) { return builder_.op(op); }
  NodeId call(NodeId callee, std::span<const NodeId> args) { return builder_.call(callee, args); }

  [[nodiscard]] std::size_t nodes() const { return graph_.size(); }
  [[nodiscard]] std::size_t memory_bytes() const { return graph_.memory_bytes(); }
  [[nodiscard]] static std::size_t shared_bytes() { return shared_context().bytes; }

 private:
  graphpat::relay::Graph graph_;
  graphpat::relay::Builder builder_;
};

class FloorArena {
 public:
  NodeId var(StringId name) { return push(NodeKind::kVar, {name.value, kNone, kNone}, {}); }
  NodeId op(OpId op) { return intern(NodeKind::kOp, {op.value, kNone, kNone}, {}); }
  NodeId call(NodeId callee, std::span<const NodeId> args) {
    std::array<NodeId, 3> operands;
    operands[0] = callee;
    std::copy(args.begin(), args.end(), operands.begin() + 1);
    return intern(NodeKind::kCall, {kNone, kNone, kNone},
                  std::span<const NodeId>(operands.data(), 1 + args.size()));
  }

  [[nodiscard]] std::size_t nodes() const { return nodes_.size(); }
  [[nodiscard]] std::size_t memory_bytes() const {
    return nodes_.capacity() * sizeof(Node) + operands_.capacity() * sizeof(NodeId) +
           memo_.capacity() * (sizeof(decltype(memo_)::value_type) + 1);
  }
  [[nodiscard]] static std::size_t shared_bytes() { return 0; }

 private:
  struct Key {
    NodeKind kind;
    std::uint8_t operand_count;
    std::array<std::uint32_t, 3> payload;
    std::array<NodeId, 3> operands;  // unused slots stay none

    friend bool operator==(const Key&, const Key&) = default;
    template <class H>
    friend H AbslHashValue(H state, const Key& key) {
      return H::combine(std::move(state), key.kind, key.payload,
                        absl::MakeSpan(key.operands.data(), key.operand_count));
    }
  };

  NodeId intern(NodeKind kind, std::array<std::uint32_t, 3> payload,
                std::span<const NodeId> operands) {
    Key key{kind, static_cast<std::uint8_t>(operands.size()), payload, {}};
    std::copy(operands.begin(), operands.end(), key.operands.begin());
    auto [slot, inserted] =
        memo_.try_emplace(key, NodeId(static_cast<std::uint32_t>(nodes_.size())));
    if (inserted) push(kind, payload, operands);
    return slot->second;
  }

  NodeId push(NodeKind kind, std::array<std::uint32_t, 3> payload,
              std::span<const NodeId> operands) {
    NodeId id(static_cast<std::uint32_t>(nodes_.size()));
    Node node;
    node.kind = kind;
    node.first_operand = static_cast<std::uint32_t>(operands_.size());
    node.operand_count = static_cast<std::uint32_t>(operands.size());
    node.payload = payload;
    operands_.insert(operands_.end(), operands.begin(), operands.end());
    nodes_.push_back(node);
    return id;
  }

  std::vector<Node> nodes_;
  std::vector<NodeId> operands_;
  absl::flat_hash_map<Key, NodeId> memo_;
};

/// Issues every request of `workload` to `arena`; results[k] is the node request k returned.
template <class Arena>
void build(Arena& arena, const Workload& workload, std::span<NodeId> results) {
  for (std::size_t k = 0; k < workload.requests.size(); ++k) {
    const Request& request = workload.requests[k];
    if (request.kind == NodeKind::kVar) {
      results[k] = arena.var(StringId(request.payload));
    } else if (request.kind == NodeKind::kOp) {
      results[k] = arena.op(OpId(request.payload));
    } else {
      std::array<NodeId, 2> args;
      for (std::size_t i = 1; i < request.operand_count; ++i) {
        args[i - 1] = results[request.operands[i]];
      }
      results[k] = arena.call(results[request.operands[0]],
                              std::span<const NodeId>(args.data(), request.operand_count - 1u));
    }
  }
}

/// The timing body shared by floor and builder; returns the ns per node it reported.
template <class Arena>
double run(benchmark::State& state, const Shape& shape, std::uint32_t nodes) {
  const Workload& work = workload(shape, nodes);
  std::vector<NodeId> results(work.requests.size());
  double seconds = 0;
  std::size_t built = 0;
  std::size_t memory_bytes = 0;
  std::size_t heap_bytes = 0;
  {  // warm-up, untimed: leaves the heap holding this size's memory (see main)
    Arena arena;
    build(arena, work, results);
  }
  for (auto _ : state) {
    std::optional<Arena> arena;
    const std::size_t heap_before = live_heap_bytes();
    const std::clock_t start = std::clock();
    arena.emplace();
    build(*arena, work, results);
    benchmark::ClobberMemory();
    const double elapsed = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    built = arena->nodes();
    memory_bytes = arena->memory_bytes();
    heap_bytes = live_heap_bytes() - heap_before;
  }  // the arena is destroyed here, outside the timed region
  if (built != work.nodes) {
    state.SkipWithError("the arena holds a different number of nodes than the workload makes");
    return 0;
  }
  const double per_node = 1.0 / static_cast<double>(built);
  const double ns_per_node = seconds * 1e9 / static_cast<double>(state.iterations()) * per_node;
  state.counters["nodes"] = static_cast<double>(built);
  state.counters["requests"] = static_cast<double>(work.requests.size());
  state.counters["ns_per_node"] = ns_per_node;
  state.counters["bytes_per_node"] = static_cast<double>(memory_bytes) * per_node;
  state.counters["heap_bytes_per_node"] = static_cast<double>(heap_bytes) * per_node;
  state.counters["ctx_bytes_per_node"] = static_cast<double>(Arena::shared_bytes()) * per_node;
  return ns_per_node;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // Keep freed memory in the process (no trimming, no mmap'd blocks) so that, after the warm-up
  // build, iterations reuse pages already touched: the figures are the arenas' own work, not the
  // kernel's page-fault path (which, on a VM, can cost several times the building itself).
  mallopt(M_TRIM_THRESHOLD, -1);
  mallopt(M_MMAP_MAX, 0);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  // Floor ns/node by (workload, size), filled by each floor benchmark for the builder after it.
  static std::map<std::pair<const Shape*, std::uint32_t>, double> floor_ns_per_node;
  struct Size {
    std::uint32_t nodes;
    benchmark::IterationCount iterations;  // 0: let the library choose
  };
  constexpr std::array<Size, 3> kSizes = {{{10'000, 0}, {1'000'000, 5}, {10'000'000, 1}}};

  for (const Shape& shape : kShapes) {
    for (const Size& size : kSizes) {
      const Shape* key_shape = &shape;
      const std::uint32_t nodes = size.nodes;
      const std::string suffix = std::string(shape.name) + "/" + std::to_string(nodes);
      benchmark::internal::Benchmark* floor_bench = benchmark::RegisterBenchmark(
          ("BM_Floor_" + suffix).c_str(), [key_shape, nodes](benchmark::State& state) {
            floor_ns_per_node[{key_shape, nodes}] = run<FloorArena>(state, *key_shape, nodes);
          });
      benchmark::internal::Benchmark* builder_bench = benchmark::RegisterBenchmark(
          ("BM_Builder_" + suffix).c_str(), [key_shape, nodes](benchmark::State& state) {
            const double ns = run<BuilderArena>(state, *key_shape, nodes);
            auto found = floor_ns_per_node.find({key_shape, nodes});
            if (ns > 0 && found != floor_ns_per_node.end() && found->second > 0) {
              state.counters["ratio_to_floor"] = ns / found->second;
            }
          });
      for (benchmark::internal::Benchmark* bench : {floor_bench, builder_bench}) {
        bench->Unit(benchmark::kMillisecond)->UseManualTime();
        if (size.iterations > 0) bench->Iterations(size.iterations);
      }
    }
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
