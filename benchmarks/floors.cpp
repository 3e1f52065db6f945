// Registers the floors of floors.hpp as passes of their own (Floor::kNone): they run on every
// workload before the passes divided by them.
#include "floors.hpp"

#include <absl/status/statusor.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <memory>
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
    case Floor::kProtobufParse: return "floor.protobuf_parse";
    case Floor::kProtobufSerialize: return "floor.protobuf_serialize";
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
  // What onnx::load and onnx::save do at least: protobuf's own parse of the same bytes, and
  // its serialization of the message parsed from them (untimed).
  registry.add(
      floor_pass_name(Floor::kProtobufParse), Floor::kNone,
      [](const Workload& w) -> absl::StatusOr<std::unique_ptr<::onnx::ModelProto>> {
        auto model = std::make_unique<::onnx::ModelProto>();
        if (!model->ParseFromString(w.onnx())) return absl::InvalidArgumentError("not a model");
        return model;
      },
      {.input = Input::kOnnx});
  registry.add_with_setup(
      floor_pass_name(Floor::kProtobufSerialize), Floor::kNone,
      [](const Workload& w) {
        ::onnx::ModelProto model;
        model.ParseFromString(w.onnx());
        return model;
      },
      [](const Workload&, const ::onnx::ModelProto& model) {
        std::string bytes;
        model.SerializeToString(&bytes);
        return bytes;
      },
      {.input = Input::kOnnx});
}

}  // namespace bench
