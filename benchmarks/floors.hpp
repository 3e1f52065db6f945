// The floors every pass is divided by, and the replay both the builder pass and the hash-cons
// floor run, so the two do exactly the same requests.
//
//   linear_scan  reads every node record of the node array and its operands, in id order
//   dfs          iterative post-order DFS from the module's roots with an explicit stack and
//                a visited byte per node
//   HashConsFloor  what a builder minimally does: push a 32-byte graphpat::Node and its
//                operands onto two vectors, hash-consing every node but vars through one
//                absl::flat_hash_map keyed by (kind, payload, type, up to 6 operands) held in
//                the key;
//                the builder additionally checks for stateful callees and keeps only node ids
//                in its table, comparing keys through the node and operand arrays; the floor
//                reserves its vectors and table for the source's size, the builder grows them
//   memcpy       of the text or JSON bytes (floors.cpp), into a buffer allocated and touched
//                during setup
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>
#include <absl/types/span.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <graphpat/relay/dialect.hpp>

namespace bench {

/// Re-creates every node of `source` in id order through `arena.copy(source, id, operands)`,
/// operands mapped to what the arena returned for them.
template <class Arena>
void replay(const graphpat::relay::Graph& source, Arena& arena) {
  std::vector<graphpat::NodeId> map(source.size());
  std::vector<graphpat::NodeId> operands;
  for (std::uint32_t i = 0; i < source.size(); ++i) {
    const graphpat::NodeId id(i);
    operands.clear();
    for (graphpat::NodeId operand : source.operands(id)) operands.push_back(map[operand.index()]);
    map[i] = arena.copy(source, id, operands);
  }
}

/// The hash-cons floor (see the top of this file); a replay target like a Builder.
class HashConsFloor {
 public:
  /// Room for the nodes and operands of `source`: a floor may know the size up front.
  explicit HashConsFloor(const graphpat::relay::Graph& source) {
    if (source.size() == 0) return;
    const graphpat::Node& last = source.node(graphpat::NodeId(source.size() - 1));
    nodes_.reserve(source.size());
    operands_.reserve(last.first_operand + last.operand_count);
    memo_.reserve(source.size());
  }

  graphpat::NodeId copy(const graphpat::relay::Graph& source, graphpat::NodeId id,
                        std::span<const graphpat::NodeId> operands) {
    const graphpat::Node& node = source.node(id);
    if (node.kind == graphpat::NodeKind::kVar || operands.size() > kKeyOperands) {
      return push(node, operands);
    }
    Key key{node.kind, static_cast<std::uint8_t>(operands.size()), node.payload, node.type, {}};
    std::copy(operands.begin(), operands.end(), key.operands.begin());
    auto [slot, inserted] =
        memo_.try_emplace(key, graphpat::NodeId(static_cast<std::uint32_t>(nodes_.size())));
    if (inserted) push(node, operands);
    return slot->second;
  }
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }

 private:
  // Operands held in the key; nodes with more (functions, wide tuples: a handful per graph)
  // skip the table, a corner a floor may cut. A batch_norm call has 6.
  static constexpr std::size_t kKeyOperands = 6;
  struct Key {
    graphpat::NodeKind kind;
    std::uint8_t operand_count;
    std::array<std::uint32_t, 3> payload;
    graphpat::TypeId type;
    std::array<graphpat::NodeId, kKeyOperands> operands;  // unused slots stay none

    friend bool operator==(const Key&, const Key&) = default;
    template <class H>
    friend H AbslHashValue(H state, const Key& key) {
      return H::combine(std::move(state), key.kind, key.payload, key.type,
                        absl::MakeSpan(key.operands.data(), key.operand_count));
    }
  };

  graphpat::NodeId push(const graphpat::Node& source, std::span<const graphpat::NodeId> operands) {
    const graphpat::NodeId id(static_cast<std::uint32_t>(nodes_.size()));
    graphpat::Node node = source;
    node.first_operand = static_cast<std::uint32_t>(operands_.size());
    operands_.insert(operands_.end(), operands.begin(), operands.end());
    nodes_.push_back(node);
    return id;
  }

  std::vector<graphpat::Node> nodes_;
  std::vector<graphpat::NodeId> operands_;
  absl::flat_hash_map<Key, graphpat::NodeId> memo_;
};

/// Reads every node and its operands in id order; returns a checksum.
inline std::uint64_t linear_scan(const graphpat::relay::Graph& graph) {
  std::uint64_t sum = 0;
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    const graphpat::NodeId id(i);
    sum += static_cast<std::uint64_t>(graph.node(id).kind);
    for (graphpat::NodeId operand : graph.operands(id)) sum += operand.value;
  }
  return sum;
}

/// Post-order DFS over everything reachable from `roots`; returns the nodes visited.
inline std::uint64_t dfs(const graphpat::relay::Graph& graph,
                         std::span<const graphpat::NodeId> roots) {
  std::vector<std::uint8_t> visited(graph.size(), 0);
  std::vector<std::pair<graphpat::NodeId, std::uint32_t>> stack;  // node, next operand
  std::uint64_t emitted = 0;
  for (graphpat::NodeId root : roots) {
    if (visited[root.index()] != 0) continue;
    visited[root.index()] = 1;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const std::span<const graphpat::NodeId> operands = graph.operands(node);
      if (next < operands.size()) {
        const graphpat::NodeId operand = operands[next++];
        if (visited[operand.index()] == 0) {
          visited[operand.index()] = 1;
          stack.emplace_back(operand, 0);
        }
      } else {
        ++emitted;
        stack.pop_back();
      }
    }
  }
  return emitted;
}

}  // namespace bench
