// The users (def-use) index: for every node, the nodes that take it as an operand, in
// increasing id order, each user once. Stored as one flat array with offsets (CSR), built in
// two scans (build_reachable: also which nodes a root reaches).
//
//   graphpat::UsersIndex users = graphpat::UsersIndex::build(graph);
//   for (graphpat::NodeId user : users.users(bn)) { ... }   // e.g. both `%20.0` nodes
//   bool shared = users.user_count(node) > 1;
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "graphpat/ir/graph.hpp"

namespace graphpat {

class UsersIndex {
 public:
  /// The users of every node; with `live`, only users for which live[user] is true count.
  template <Dialect D>
  static UsersIndex build(const Graph<D>& graph, const std::vector<bool>* live = nullptr) {
    UsersIndex index;
    const std::uint32_t size = graph.size();
    index.offsets_.assign(size + 1, 0);
    std::vector<std::uint32_t> last_user(size, NodeId::kNone);
    auto for_each_use = [&](auto&& visit) {
      std::fill(last_user.begin(), last_user.end(), NodeId::kNone);
      for (std::uint32_t user = 0; user < size; ++user) {
        if (live != nullptr && !(*live)[user]) continue;
        for (NodeId operand : graph.operands(NodeId(user))) {
          if (last_user[operand.index()] == user) continue;  // add(%x, %x) uses %x once
          last_user[operand.index()] = user;
          visit(operand.index(), user);
        }
      }
    };
    for_each_use([&](std::uint32_t operand, std::uint32_t) { ++index.offsets_[operand + 1]; });
    for (std::uint32_t i = 0; i < size; ++i) index.offsets_[i + 1] += index.offsets_[i];
    index.users_.resize(index.offsets_[size]);
    std::vector<std::uint32_t> cursor(index.offsets_.begin(), index.offsets_.end() - 1);
    for_each_use([&](std::uint32_t operand, std::uint32_t user) {
      index.users_[cursor[operand]++] = NodeId(user);
    });
    return index;
  }

  /// The users of every node reachable from `roots`, only users reachable too count, and in
  /// `reachable` which nodes are (reachable_from): build(graph, &reachable) in two backward
  /// scans instead of three forward ones. A node's users have higher ids, so its reachability
  /// is settled when a backward scan reaches it; each scan fills ranges from their ends, so
  /// that users still come out in increasing id order.
  template <Dialect D>
  static UsersIndex build_reachable(const Graph<D>& graph, std::span<const NodeId> roots,
                                    std::vector<bool>& reachable) {
    UsersIndex index;
    const std::uint32_t size = graph.size();
    reachable.assign(size, false);
    std::uint32_t highest = 0;
    for (NodeId root : roots) {
      reachable[root.index()] = true;
      highest = std::max(highest, root.index() + 1);
    }
    std::vector<std::uint32_t> last_user(size, NodeId::kNone);
    auto for_each_use = [&](auto&& visit) {
      for (std::uint32_t user = highest; user-- > 0;) {
        if (!reachable[user]) continue;
        for (NodeId operand : graph.operands(NodeId(user))) {
          if (last_user[operand.index()] == user) continue;  // add(%x, %x) uses %x once
          last_user[operand.index()] = user;
          visit(operand.index(), user);
        }
      }
    };
    // offsets_[k] counts k's users, then becomes the end of k's range ...
    index.offsets_.assign(size + 1, 0);
    for_each_use([&](std::uint32_t operand, std::uint32_t) {
      reachable[operand] = true;
      ++index.offsets_[operand];
    });
    for (std::uint32_t i = 1; i <= size; ++i) index.offsets_[i] += index.offsets_[i - 1];
    // ... and, each range filled from its end, its start.
    index.users_.resize(index.offsets_[size]);
    std::fill(last_user.begin(), last_user.end(), NodeId::kNone);
    for_each_use([&](std::uint32_t operand, std::uint32_t user) {
      index.users_[--index.offsets_[operand]] = NodeId(user);
    });
    return index;
  }

  [[nodiscard]] std::span<const NodeId> users(NodeId id) const {
    return {users_.data() + offsets_[id.index()], user_count(id)};
  }
  [[nodiscard]] std::uint32_t user_count(NodeId id) const {
    return offsets_[id.index() + 1] - offsets_[id.index()];
  }
  [[nodiscard]] std::size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }

 private:
  std::vector<std::uint32_t> offsets_;
  std::vector<NodeId> users_;
};

}  // namespace graphpat
