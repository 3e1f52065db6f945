// Short descriptions of graph nodes and pass reports for the `graphpat` commands' output.
//
//   fmt::print("{} {}\n", describe_node(graph, node), describe_merges(result.report));
//   // "nn.relu" "5 nodes merged (TupleGetItem: 5)"
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <graphpat/ir/format.hpp>
#include <graphpat/onnx/dialect.hpp>
#include <graphpat/relay/dialect.hpp>
#include <graphpat/transform/cse.hpp>
#include <graphpat/transform/partition/report.hpp>

#include "text_lines.hpp"

namespace graphpat::cli {

/// The ending of a noun counted `count` times: "" for one, else `ending`
/// (`fmt::format("{} node{}", n, plural(n))`, `fmt::format("{} match{}", n, plural(n, "es"))`).
std::string_view plural(std::size_t count, std::string_view ending = "s");
// The functions taking a graph are defined for relay::Dialect and onnx::Dialect.

/// What a node is in one word: the op of an op call, `@name` for a call of a global, `%name`
/// for a var, else its kind ("TupleGetItem", "Function", "Constant").
template <Dialect D>
std::string describe_node(const Graph<D>& graph, NodeId node);
/// Which operand `operand` (an index into graph.operands(node)) is, in words: "callee",
/// "arg 0", "param 1", "body", "field 2", "tuple", "condition", "then", "else", "var", "value".
template <Dialect D>
std::string describe_operand(const Graph<D>& graph, NodeId node, std::uint32_t operand);
/// "5 nodes merged (TupleGetItem: 5)", "1 node merged (Call nn.relu: 1)", "0 nodes merged".
std::string describe_merges(const CseReport& report);
/// The summary line of what partition / merge-composite merged before grouping:
/// "duplicates merged first: 5 nodes merged (TupleGetItem: 5)\n".
std::string describe_merged_first(const CseReport& report, bool relay_compat);
/// Names for the report of a pass run on `input`'s module. Relay: the Relay text's
/// (TextLines::names), or graph ids ("graph node 12") when the module cannot be printed. ONNX:
/// as the file names things: a node by its name (`node 'conv1/Conv'`, or `node #12` by its
/// place in the file when it has none), a graph input or function parameter by its value name
/// (`input 'x'`), an output of a node of several (`output 1 of node 'bn'`), anything else by
/// its graph id (`graph node 17`).
NodeNames report_names(const Loaded& input);
/// The groups refused: a count line, then each in the library's words (describe), its nodes
/// named by `names` in `graph` (the pass's input), with its table entry's name when
/// `entry_names` (the table's names, in table order) is not empty:
/// "1 group rejected\n  group at %3 (add) refused: ...\n".
template <Dialect D>
std::string describe_rejected(const PartitionReport& report, const Graph<D>& graph,
                              const NodeNames& names,
                              std::span<const std::string> entry_names = {});
/// The interior nodes a partition computes twice, "" when there are none: a count line, then
/// one line each as describe_rejected's:
/// "1 interior node computed twice (...)\n  group at %2 (nn.bias_add) computes ...\n".
template <Dialect D>
std::string describe_duplicated(const PartitionReport& report, const Graph<D>& graph,
                                const NodeNames& names,
                                std::span<const std::string> entry_names = {});
/// The matches that made no group because a call cannot replace their root, "" when there are
/// none: "12 matches not outlined (the root is a variable, a definition, or its own input)\n".
std::string describe_not_outlined(const PartitionReport& report);
/// "N match attempts stopped at the step limit ...", or nothing when none stopped.
std::string describe_stopped_matches(std::size_t stopped);

}  // namespace graphpat::cli
