// Where each node of a module appears in its Relay text, and what the text calls it: `match`
// reports the line of every match and takes `--explain %3`, explanations and `diff` name nodes
// as the text does.
//
//   absl::StatusOr<graphpat::cli::TextLines> lines = graphpat::cli::print_with_lines(input);
//   std::uint32_t at = lines->line_of(node);        // 1-based, 0 when the node is not printed
//   std::string_view text = lines->line_text(at);   // "  %3 = nn.relu(%2) /* ty=... */;"
//   std::string place = lines->place(at);           // "model.relay:7"
//   graphpat::NodeNames names = lines->names(input.module);
//   std::string why = matcher.explain(node, names);  // "... in operand 0 of %3 = nn.relu(...)"
//
// A node bound to `%N` is on its `%N = ...` line; a function of the module on its `def` line,
// and a function body printed without a binding on the line before the function's closing
// brace; any other node (inlined into its user's text: vars, constants, ops, single-use
// expressions) on the line of its last user.
//
// The text is the model printed as `graphpat convert` prints it, in the input's envelope. For
// a Relay text file as TVM printed it, that is the file itself, byte for byte (the printer
// reproduces TVM's), so its `%N` and lines are the file's; `same_as_input` says whether it is.
#pragma once

#include <cstdint>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/ir/format.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "io.hpp"

namespace graphpat::cli {

struct TextLines {
  static constexpr std::uint32_t kUnbound = NodeId::kNone;

  std::string name;                          // the input's name, as Loaded::name
  bool same_as_input = false;                // the input is Relay text equal to `text`
  std::string text;                          // the whole print
  std::vector<std::size_t> line_starts;      // offset of each line in `text`
  std::vector<std::uint32_t> node_lines;     // per node id; 0: not printed
  std::vector<std::uint32_t> node_bindings;  // per node id: N of its `%N = ...`, or kUnbound
  std::vector<NodeId> bound_nodes;           // per N: the node bound to %N

  [[nodiscard]] std::uint32_t line_of(NodeId node) const {
    return node.valid() && node.index() < node_lines.size() ? node_lines[node.index()] : 0;
  }
  /// The N of `%N = ...` that `node` is bound to, or kUnbound.
  [[nodiscard]] std::uint32_t binding_of(NodeId node) const {
    return node.valid() && node.index() < node_bindings.size() ? node_bindings[node.index()]
                                                               : kUnbound;
  }
  /// The text of 1-based line `line`, without its line feed.
  [[nodiscard]] std::string_view line_text(std::uint32_t line) const;
  /// The same without its indentation.
  [[nodiscard]] std::string_view statement(std::uint32_t line) const;
  /// Where line `line` is: "model.relay:7" when the print is the input file, else
  /// "model.json, printed as Relay text, line 7".
  [[nodiscard]] std::string place(std::uint32_t line) const;

  /// How explanations and reports name nodes of `module` (the module printed): `%3` for a
  /// node bound to %3, `%x` for a variable, `@main` for a function of the module, "node on line 12"
  /// for any other node (printed inline on line 12), `(graph node 17, not printed)` for a node
  /// the text does not show. `module` and these lines must outlive the names.
  [[nodiscard]] NodeNames names(const relay::Module& module) const;
};

/// Prints `module` as print_text does and records the line and the `%N` of every node.
/// The print and its maps, or the printer's refusal (`relay_text.unprintable`).
absl::StatusOr<TextLines> print_with_lines(const relay::Module& module,
                                           relay::TextEnvelope envelope);
/// The same for a model read from a file, in its envelope; sets `name` and `same_as_input`.
absl::StatusOr<TextLines> print_with_lines(const Loaded& input);

}  // namespace graphpat::cli
