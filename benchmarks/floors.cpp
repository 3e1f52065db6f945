// Registers the floors of floors.hpp as passes of their own (Floor::kNone): they run on every
// workload before the passes divided by them.
#include "floors.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "registry.hpp"

namespace bench {
namespace {

/// A destination buffer for the memcpy floor, allocated and touched during setup.
struct CopyTarget {
  std::vector<char> bytes;
};

void add_memcpy(PassRegistry& registry, Floor floor, Input bytes,
                const std::string& (Workload::*input)() const) {
  registry.add_with_setup(
      floor_pass_name(floor), Floor::kNone,
      [input](const Workload& w) { return CopyTarget{std::vector<char>((w.*input)().size(), 1)}; },
      [input](const Workload& w, CopyTarget& target) {
        const std::string& source = (w.*input)();
        std::memcpy(target.bytes.data(), source.data(), source.size());
        return target.bytes[source.size() / 2];
      },
      {.input = bytes});
}

}  // namespace

const char* floor_pass_name(Floor floor) {
  switch (floor) {
    case Floor::kLinearScan: return "floor.linear_scan";
    case Floor::kDfs: return "floor.dfs";
    case Floor::kHashCons: return "floor.hash_cons";
    case Floor::kMemcpyText: return "floor.memcpy_text";
    case Floor::kMemcpyJson: return "floor.memcpy_json";
    case Floor::kNone: break;
  }
  return "";
}

void add_floors(PassRegistry& registry) {
  registry.add(floor_pass_name(Floor::kLinearScan), Floor::kNone,
               [](const Workload& w) { return linear_scan(w.module().graph); });
  registry.add(floor_pass_name(Floor::kDfs), Floor::kNone, [](const Workload& w) {
    const std::vector<graphpat::NodeId> roots = w.module().roots();
    return dfs(w.module().graph, roots);
  });
  registry.add(floor_pass_name(Floor::kHashCons), Floor::kNone,
               [](const Workload& w) {
                 HashConsFloor floor(w.module().graph);
                 replay(w.module().graph, floor);
                 return floor;
               });
  add_memcpy(registry, Floor::kMemcpyText, Input::kText, &Workload::text);
  add_memcpy(registry, Floor::kMemcpyJson, Input::kJson, &Workload::json);
}

}  // namespace bench
