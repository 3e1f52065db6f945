#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include <graphpat/transform/partition/describe.hpp>

namespace graphpat::cli {

std::string_view plural(std::size_t count, std::string_view ending) {
  return count == 1 ? std::string_view() : ending;
}

template <Dialect D>
std::string describe_node(const Graph<D>& graph, NodeId node) {
  switch (graph.kind(node)) {
    case NodeKind::kCall:
      if (graph.called_op(node).valid()) {
        return std::string(graph.context().op_name(graph.called_op(node)));
      }
      if (graph.kind(graph.callee(node)) == NodeKind::kGlobalVar) {
        return fmt::format("@{}", graph.name(graph.callee(node)));
      }
      return "Call";
    case NodeKind::kVar:
      return fmt::format("%{}", graph.name(node));
    case NodeKind::kOp:
      return fmt::format("Op {}", graph.context().op_name(graph.op(node)));
    default:
      return std::string(node_kind_name(graph.kind(node)));
  }
}

template <Dialect D>
std::string describe_operand(const Graph<D>& graph, NodeId node, std::uint32_t operand) {
  switch (graph.kind(node)) {
    case NodeKind::kCall:
      return operand == 0 ? "callee" : fmt::format("arg {}", operand - 1);
    case NodeKind::kFunction:
      return operand < graph.params(node).size() ? fmt::format("param {}", operand) : "body";
    case NodeKind::kTuple:
      return fmt::format("field {}", operand);
    case NodeKind::kTupleGetItem:
      return "tuple";
    case NodeKind::kLet: {
      constexpr std::string_view kNames[] = {"var", "value", "body"};
      return std::string(kNames[std::min<std::uint32_t>(operand, 2)]);
    }
    case NodeKind::kIf: {
      constexpr std::string_view kNames[] = {"condition", "then", "else"};
      return std::string(kNames[std::min<std::uint32_t>(operand, 2)]);
    }
    default:
      return fmt::format("operand {}", operand);
  }
}

std::string describe_merges(const CseReport& report) {
  std::string text = fmt::format("{} node{} merged", report.merged, plural(report.merged));
  if (report.merged_by.empty()) return text;
  std::vector<std::string> parts;
  for (const auto& [what, count] : report.merged_by) parts.push_back(fmt::format("{}: {}", what, count));
  return fmt::format("{} ({})", text, fmt::join(parts, ", "));
}

std::string describe_merged_first(const CseReport& report, bool relay_compat) {
  if (relay_compat) return "duplicates merged first: none (--relay-compat)\n";
  return fmt::format("duplicates merged first: {}\n", describe_merges(report));
}

namespace {

NodeNames relay_names(const relay::Module& module, relay::TextEnvelope envelope) {
  auto lines = std::make_shared<absl::StatusOr<TextLines>>(print_with_lines(module, envelope));
  if (!lines->ok()) {
    return NodeNames([](NodeId id) { return fmt::format("graph node {}", id.index()); });
  }
  NodeNames names = (*lines)->names(module);
  // `names` refers to the lines it was built from: keep them alive with it.
  return NodeNames([lines, names = std::move(names)](NodeId id) { return names(id); });
}

NodeNames onnx_names(const onnx::Module& module) {
  const onnx::Graph& graph = module.graph;
  const Context& context = graph.context();
  // A Call's span is the NodeProto's name and its place in the file (line = index + 1).
  auto call_name = [&graph, &context](NodeId id) {
    SpanId span = graph.span(id);
    if (!context.spans.contains(span)) return fmt::format("graph node {}", id.index());
    const Span& place = context.spans.get(span);
    std::string_view name = context.strings.view(place.source);
    if (name.empty()) return fmt::format("node #{}", place.line - 1);
    return fmt::format("node '{}'", name);
  };
  return NodeNames([&graph, call_name](NodeId id) {
    switch (graph.kind(id)) {
      case NodeKind::kVar:
        return fmt::format("input '{}'", graph.name(id));
      case NodeKind::kCall:
        return call_name(id);
      case NodeKind::kTupleGetItem: {
        NodeId tuple = graph.operands(id)[0];
        if (graph.kind(tuple) != NodeKind::kCall) break;
        return fmt::format("output {} of {}", graph.index(id), call_name(tuple));
      }
      default:
        break;
    }
    return fmt::format("graph node {}", id.index());
  });
}

}  // namespace

NodeNames report_names(const Loaded& input) {
  return input.onnx ? onnx_names(input.onnx->module) : relay_names(input.module, input.envelope);
}

namespace {

std::string_view entry_name(std::span<const std::string> entry_names, std::uint32_t entry) {
  return entry < entry_names.size() ? std::string_view(entry_names[entry]) : std::string_view();
}

}  // namespace

template <Dialect D>
std::string describe_rejected(const PartitionReport& report, const Graph<D>& graph,
                              const NodeNames& names, std::span<const std::string> entry_names) {
  std::string out = fmt::format("{} group{} rejected\n", report.rejected.size(),
                                plural(report.rejected.size()));
  for (const RejectedGroup& rejected : report.rejected) {
    out += fmt::format("  {}\n",
                       describe(rejected, graph, names, entry_name(entry_names, rejected.entry)));
  }
  return out;
}

template <Dialect D>
std::string describe_duplicated(const PartitionReport& report, const Graph<D>& graph,
                                const NodeNames& names, std::span<const std::string> entry_names) {
  if (report.duplicated.empty()) return {};
  std::string out = fmt::format(
      "{} interior node{} computed twice (also used outside the group, by a node the group's "
      "root post-dominates)\n",
      report.duplicated.size(), plural(report.duplicated.size()));
  for (const DuplicatedInterior& duplicated : report.duplicated) {
    out += fmt::format(
        "  {}\n", describe(duplicated, graph, names, entry_name(entry_names, duplicated.entry)));
  }
  return out;
}

std::string describe_not_outlined(const PartitionReport& report) {
  if (report.not_outlined == 0) return {};
  return fmt::format(
      "{} match{} not outlined (the root is a variable, a definition, or its own input)\n",
      report.not_outlined, plural(report.not_outlined, "es"));
}

std::string describe_stopped_matches(std::size_t stopped) {
  if (stopped == 0) return {};
  return fmt::format(
      "{} match attempt{} stopped at the step limit and taken as no match (the pattern "
      "backtracks exponentially on this graph; MatchOptions::max_steps)\n",
      stopped, plural(stopped));
}

template std::string describe_node(const Graph<relay::Dialect>&, NodeId);
template std::string describe_operand(const Graph<relay::Dialect>&, NodeId, std::uint32_t);
template std::string describe_rejected(const PartitionReport&, const Graph<relay::Dialect>&,
                                       const NodeNames&, std::span<const std::string>);
template std::string describe_duplicated(const PartitionReport&, const Graph<relay::Dialect>&,
                                         const NodeNames&, std::span<const std::string>);
template std::string describe_node(const Graph<onnx::Dialect>&, NodeId);
template std::string describe_operand(const Graph<onnx::Dialect>&, NodeId, std::uint32_t);
template std::string describe_rejected(const PartitionReport&, const Graph<onnx::Dialect>&,
                                       const NodeNames&, std::span<const std::string>);
template std::string describe_duplicated(const PartitionReport&, const Graph<onnx::Dialect>&,
                                         const NodeNames&, std::span<const std::string>);

}  // namespace graphpat::cli
