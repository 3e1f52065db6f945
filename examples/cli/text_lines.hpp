// Where each node of a module appears in its Relay text: `match` reports the line of every
// match and `diff` shows the line of each differing node.
//
//   graphpat::cli::TextLines lines = graphpat::cli::print_with_lines(module, envelope);
//   std::uint32_t at = lines.line_of(node);        // 1-based, 0 when the node is not printed
//   std::string_view text = lines.line_text(at);   // "  %3 = nn.relu(%2) /* ty=... */;"
//
// A node bound to `%N` is on its `%N = ...` line; a function of the module on its `def` line,
// and a function body printed without a binding on the line before the function's closing
// brace; any other node (inlined into its user's text: vars, constants, ops, single-use
// expressions) on the line of its last user.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <graphpat/io/relay_text.hpp>

namespace graphpat::cli {

struct TextLines {
  std::string text;                        // the whole print
  std::vector<std::size_t> line_starts;    // offset of each line in `text`
  std::vector<std::uint32_t> node_lines;   // per node id; 0: not printed

  [[nodiscard]] std::uint32_t line_of(NodeId node) const {
    return node.valid() && node.index() < node_lines.size() ? node_lines[node.index()] : 0;
  }
  /// The text of 1-based line `line`, without its line feed.
  [[nodiscard]] std::string_view line_text(std::uint32_t line) const;
  /// The same without its indentation.
  [[nodiscard]] std::string_view statement(std::uint32_t line) const;
};

/// Prints `module` as print_text does and records the line of every node.
/// The print and its line map, or the printer's refusal (`relay_text.unprintable`).
absl::StatusOr<TextLines> print_with_lines(const relay::Module& module,
                                           relay::TextEnvelope envelope);

}  // namespace graphpat::cli
