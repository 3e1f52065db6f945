// The users (def-use) index: for every node, the nodes that take it as an operand, in
// increasing id order, each user once. Stored as one flat array with offsets (CSR), built in
// two forward scans.
//
//   graphpat::UsersIndex users = graphpat::UsersIndex::build(graph);
//   for (graphpat::NodeId user : users.users(bn)) { ... }   // e.g. both `%20.0` nodes
//   bool shared = users.user_count(node) > 1;
#pragma once

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
