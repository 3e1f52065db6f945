// Words for a partition report's lines (report.hpp): one sentence per refused group or
// duplicated interior node, naming nodes of the graph the report's ids are of (the graph the
// caller passed to partition, merge_composite or rewrite), by graph id `%12` or by the caller's
// numbering (a NodeNames, ir/format.hpp), and saying which table entry the line comes from.
//
//   for (const graphpat::RejectedGroup& r : result.report.rejected) {
//     fmt::print("{}\n", graphpat::describe(r, module.graph));
//   }
//   // "group at %12 (nn.conv2d) refused: interior %10 (nn.relu) is used by %15 (add) outside
//   //  the group, which the group's root does not post-dominate"
//   graphpat::describe(r, module.graph, names, table[r.entry].name);
//   // "group of 'conv_relu' at %3 (nn.relu) refused: ..."
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "graphpat/ir/format.hpp"
#include "graphpat/ir/graph.hpp"
#include "graphpat/transform/partition/report.hpp"

namespace graphpat {

namespace detail {

/// A node and what it is: "%12 (nn.conv2d)", "%3 (call)", "%0 (var x)", "%7 (TupleGetItem)".
template <Dialect D>
std::string named_node(const Graph<D>& graph, NodeId id, const NodeNames& names) {
  std::string what;
  switch (graph.kind(id)) {
    case NodeKind::kCall:
      what = graph.called_op(id).valid()
                 ? std::string(graph.context().op_name(graph.called_op(id)))
                 : std::string("call");
      break;
    case NodeKind::kVar:
      what = fmt::format("var {}", graph.name(id));
      break;
    case NodeKind::kOp:
      what = fmt::format("op {}", graph.context().op_name(graph.op(id)));
      break;
    default:
      what = std::string(node_kind_name(graph.kind(id)));
  }
  return fmt::format("{} ({})", names(id), what);
}

/// "group at %12 (nn.relu)", or with an entry name "group of 'conv_relu' at %12 (nn.relu)".
template <Dialect D>
std::string group_words(const Graph<D>& graph, NodeId root, const NodeNames& names,
                        std::string_view entry_name) {
  std::string node = named_node(graph, root, names);
  if (entry_name.empty()) return fmt::format("group at {}", node);
  return fmt::format("group of '{}' at {}", entry_name, node);
}

}  // namespace detail

/// One refused group in a sentence: where it is, which entry it is of (when `entry_name` is
/// given), and why it was refused, with the nodes at fault. `graph` is the graph the report's
/// ids are of.
template <Dialect D>
std::string describe(const RejectedGroup& rejected, const Graph<D>& graph,
                     const NodeNames& names = {}, std::string_view entry_name = {}) {
  std::string group = detail::group_words(graph, rejected.root, names, entry_name);
  auto node = [&](NodeId id) { return detail::named_node(graph, id, names); };
  switch (rejected.reason) {
    case RejectionReason::kOverlap:
      if (rejected.node == rejected.root) {
        return fmt::format("{} refused: its root already belongs to an earlier group", group);
      }
      return fmt::format("{} refused: interior {} already belongs to an earlier group", group,
                         node(rejected.node));
    case RejectionReason::kUsedOutside:
      return fmt::format(
          "{} refused: interior {} is used by {} outside the group, which the group's root does "
          "not post-dominate",
          group, node(rejected.node), node(rejected.user));
    case RejectionReason::kCheckFailed:
      return fmt::format("{} refused: the check returned false", group);
    case RejectionReason::kDuplicatesStateful:
      return fmt::format(
          "{} refused: an interior node is also used by {} outside the group, so the function "
          "would compute a second time the stateful call {}",
          group, node(rejected.user), node(rejected.node));
    case RejectionReason::kEscapingVariable:
      return fmt::format(
          "{} refused: {} binds a variable that {}, outside the group, reads", group,
          node(rejected.node), node(rejected.user));
  }
  return fmt::format("{} refused", group);  // not a RejectionReason
}

/// One interior node an outlined group computes a second time, in a sentence.
template <Dialect D>
std::string describe(const DuplicatedInterior& duplicated, const Graph<D>& graph,
                     const NodeNames& names = {}, std::string_view entry_name = {}) {
  return fmt::format(
      "{} computes interior {} a second time: {}, outside the group, also uses it (the group's "
      "root post-dominates it)",
      detail::group_words(graph, duplicated.root, names, entry_name),
      detail::named_node(graph, duplicated.node, names),
      detail::named_node(graph, duplicated.user, names));
}

}  // namespace graphpat
