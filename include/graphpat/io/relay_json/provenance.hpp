// What save_json needs to write a loaded file back byte for byte: the node table as read (after
// any version upgrade) and, for every JSON node index, the graph entity it became (node, type,
// attribute value, span), plus the way back from NodeIds to indices. graphpat's IR keeps only
// the meaning of a model; TVM's JSON also records object identities (which nodes share one type
// object, per-parameter VirtualDevices of parsed modules, the source map, map orders), and this
// is where they are kept.
//
//   const graphpat::relay::detail::ProvenanceData& data = ...;   // made by the reader
//   std::uint32_t index = data.index_of(call);   // the JSON node the call was read from
//   bool unchanged = data.type_of[index_of_type] == graph.type(call);
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graphpat/io/relay_json/document.hpp"
#include "graphpat/io/relay_json/layouts.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/ids.hpp"

namespace graphpat::relay::detail {

inline constexpr std::uint32_t kNoIndex = Id<void>::kNone;

struct ProvenanceData {
  JsonDocument document{known_json_names()};
  const Context* context = nullptr;  // the context every id below belongs to
  bool module_root = false;          // the root was an IRModule (else a bare expression)
  std::vector<NodeId> node_of;       // per JSON index: the graph node (expressions)
  std::vector<TypeId> type_of;       // per JSON index: the type (objects read as types)
  std::vector<AttrValueId> attr_of;  // per JSON index: the value (objects read as values)
  std::vector<SpanId> span_of;       // per JSON index: the span
  std::vector<std::uint32_t> index_of_node;  // per NodeId of the loaded graph: its JSON index
  /// Name → JSON index of the GlobalVar keying that function in IRModule.functions.
  absl::flat_hash_map<std::string, std::uint32_t> global_vars;
  /// The VirtualDevice most expressions share (TVM's unconstrained singleton), or 0.
  std::uint32_t shared_virtual_device = 0;

  /// The JSON index node `id` was read from, or kNoIndex.
  [[nodiscard]] std::uint32_t index_of(NodeId id) const {
    return id.index() < index_of_node.size() ? index_of_node[id.index()] : kNoIndex;
  }
};

}  // namespace graphpat::relay::detail
