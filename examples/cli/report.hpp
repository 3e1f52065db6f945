// Short descriptions of graph nodes and pass reports for the `graphpat` commands' output.
//
//   fmt::print("{} {}\n", describe_node(graph, node), describe_merges(result.report));
//   // "nn.relu" "5 nodes merged (TupleGetItem: 5)"
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <graphpat/relay/dialect.hpp>
#include <graphpat/transform/cse.hpp>
#include <graphpat/transform/partition/report.hpp>

namespace graphpat::cli {

/// The ending of a noun counted `count` times: "" for one, else `ending`
/// (`fmt::format("{} node{}", n, plural(n))`, `fmt::format("{} match{}", n, plural(n, "es"))`).
std::string_view plural(std::size_t count, std::string_view ending = "s");
/// What a node is in one word: the op of an op call, `%name` for a var, else its kind
/// ("TupleGetItem", "Function", "Constant").
std::string describe_node(const relay::Graph& graph, NodeId node);
/// Which operand `operand` (an index into graph.operands(node)) is, in words: "callee",
/// "arg 0", "param 1", "body", "field 2", "tuple", "condition", "then", "else", "var", "value".
std::string describe_operand(const relay::Graph& graph, NodeId node, std::uint32_t operand);
/// "5 nodes merged (TupleGetItem: 5)", "1 node merged (Call nn.relu: 1)", "0 nodes merged".
std::string describe_merges(const CseReport& report);
/// The summary line of what partition / merge-composite merged before grouping:
/// "duplicates merged first: 5 nodes merged (TupleGetItem: 5)\n".
std::string describe_merged_first(const CseReport& report, bool relay_compat);
/// The interior nodes a partition computes twice, "" when there are none: a count line, then,
/// given the graph the report's ids are of, one line each:
/// "1 interior node computed twice (...)\n  node 5 (nn.conv2d) of the group at node 7 ...\n".
std::string describe_duplicated(const PartitionReport& report, const relay::Graph* graph);
/// The matches that made no group because a call cannot replace their root, "" when there are
/// none: "12 matches not outlined (the root is a variable, a definition, or its own input)\n".
std::string describe_not_outlined(const PartitionReport& report);

}  // namespace graphpat::cli
