// The post-dominator tree of the nodes reachable from a set of roots: node A post-dominates B
// when every path from B to a root passes through A. The roots hang under a virtual exit. Built
// in one backward scan (a user always has a larger id than its operands, so its place in the
// tree is final before its operands are visited) that meets each node's users in the tree;
// skew-binary jump pointers make each meeting O(log n), so a node with a million users (the op
// node of a long chain) costs n log n, not n^2. Queries are O(1) through pre-order intervals of
// the tree. No recursion.
//
//   auto tree = graphpat::PostDominatorTree::build(graph, std::vector{main});
//   if (tree.post_dominates(root, interior_user)) { /* the group may duplicate the interior */ }
//   graphpat::NodeId parent = tree.immediate_post_dominator(node);  // invalid: the exit
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "graphpat/analysis/reachability.hpp"
#include "graphpat/ir/graph.hpp"

namespace graphpat {

class PostDominatorTree {
 public:
  template <Dialect D>
  static PostDominatorTree build(const Graph<D>& graph, std::span<const NodeId> roots) {
    PostDominatorTree tree;
    const std::uint32_t size = graph.size();
    const std::uint32_t exit = size;  // the virtual exit, above every node
    tree.live_ = reachable_from(graph, roots);
    tree.parent_.assign(size + 1, kUnset);
    for (NodeId root : roots) tree.parent_[root.index()] = exit;
    // Depths and skew-binary jump pointers of the nodes whose parent is final, so that an
    // intersection takes O(log n) steps instead of a walk up the tree (walking made a node
    // with many users, such as the op node of a long chain of calls, quadratic).
    std::vector<std::uint32_t> depth(size + 1, 0);
    std::vector<std::uint32_t> jump(size + 1, exit);
    auto place = [&](std::uint32_t node) {
      std::uint32_t parent = tree.parent_[node];
      std::uint32_t up = jump[parent];
      depth[node] = depth[parent] + 1;
      jump[node] = depth[parent] - depth[up] == depth[up] - depth[jump[up]] ? jump[up] : parent;
    };
    auto intersect = [&](std::uint32_t a, std::uint32_t b) {
      if (depth[a] < depth[b]) std::swap(a, b);
      while (depth[a] > depth[b]) a = depth[jump[a]] >= depth[b] ? jump[a] : tree.parent_[a];
      while (a != b) {
        if (jump[a] != jump[b]) {
          a = jump[a];
          b = jump[b];
        } else {
          a = tree.parent_[a];
          b = tree.parent_[b];
        }
      }
      return a;
    };
    for (std::uint32_t user = size; user-- > 0;) {
      if (!tree.live_[user]) continue;
      // Every user of `user` has a larger id and has already been folded in: parent_ is final.
      place(user);
      for (NodeId operand : graph.operands(NodeId(user))) {
        std::uint32_t& parent = tree.parent_[operand.index()];
        parent = parent == kUnset ? user : intersect(parent, user);
      }
    }
    tree.number_subtrees();
    return tree;
  }

  /// True when `id` is reachable from the roots (only those nodes are in the tree).
  [[nodiscard]] bool contains(NodeId id) const {
    return id.index() < live_.size() && live_[id.index()];
  }
  /// The closest strict post-dominator of `id`; invalid when that is the virtual exit.
  [[nodiscard]] NodeId immediate_post_dominator(NodeId id) const {
    std::uint32_t parent = parent_[id.index()];
    return parent >= live_.size() ? NodeId() : NodeId(parent);
  }
  /// Whether every path from `node` to a root passes through `dominator` (a node post-dominates
  /// itself). Both must be in the tree.
  [[nodiscard]] bool post_dominates(NodeId dominator, NodeId node) const {
    return enter_[dominator.index()] <= enter_[node.index()] &&
           enter_[node.index()] < leave_[dominator.index()];
  }

 private:
  static constexpr std::uint32_t kUnset = NodeId::kNone;

  // Pre-order numbering of the tree from the exit: enter_[x] .. leave_[x] covers x's subtree.
  void number_subtrees() {
    const std::uint32_t nodes = static_cast<std::uint32_t>(parent_.size());  // + the exit
    const std::uint32_t exit = nodes - 1;
    std::vector<std::uint32_t> child_offsets(nodes + 1, 0);
    for (std::uint32_t i = 0; i < exit; ++i) {
      if (parent_[i] != kUnset) ++child_offsets[parent_[i] + 1];
    }
    for (std::uint32_t i = 0; i < nodes; ++i) child_offsets[i + 1] += child_offsets[i];
    std::vector<std::uint32_t> children(child_offsets[nodes]);
    std::vector<std::uint32_t> cursor(child_offsets.begin(), child_offsets.end() - 1);
    for (std::uint32_t i = 0; i < exit; ++i) {
      if (parent_[i] != kUnset) children[cursor[parent_[i]]++] = i;
    }
    enter_.assign(nodes, 0);
    leave_.assign(nodes, 0);
    std::uint32_t counter = 0;
    struct Frame {
      std::uint32_t node;
      std::uint32_t next_child;
    };
    std::vector<Frame> stack{{exit, child_offsets[exit]}};
    enter_[exit] = counter++;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next_child == child_offsets[top.node + 1]) {
        leave_[top.node] = counter;
        stack.pop_back();
        continue;
      }
      std::uint32_t child = children[top.next_child++];
      enter_[child] = counter++;
      stack.push_back({child, child_offsets[child]});
    }
  }

  std::vector<bool> live_;
  std::vector<std::uint32_t> parent_;  // indexed by node; the last slot is the exit
  std::vector<std::uint32_t> enter_;
  std::vector<std::uint32_t> leave_;
};

}  // namespace graphpat
