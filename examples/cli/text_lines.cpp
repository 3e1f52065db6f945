#include "text_lines.hpp"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <charconv>

namespace graphpat::cli {

namespace {

/// The `N` of a line reading `<spaces>%N = ...`.
std::optional<std::uint32_t> bound_number(std::string_view line) {
  std::size_t at = line.find_first_not_of(' ');
  if (at == std::string_view::npos || line[at] != '%') return std::nullopt;
  std::uint32_t number = 0;
  const char* first = line.data() + at + 1;
  const char* last = line.data() + line.size();
  auto [end, error] = std::from_chars(first, last, number);
  if (error != std::errc() || end == first ||
      !std::string_view(end, last - end).starts_with(" = ")) {
    return std::nullopt;
  }
  return number;
}

std::size_t indentation(std::string_view line) {
  std::size_t at = line.find_first_not_of(' ');
  return at == std::string_view::npos ? line.size() : at;
}

}  // namespace

std::string_view TextLines::line_text(std::uint32_t line) const {
  if (line == 0 || line > line_starts.size()) return {};
  std::size_t start = line_starts[line - 1];
  std::size_t end = line < line_starts.size() ? line_starts[line] - 1 : text.size();
  return std::string_view(text).substr(start, end - start);
}

std::string_view TextLines::statement(std::uint32_t line) const {
  std::string_view text = line_text(line);
  text.remove_prefix(indentation(text));
  return text;
}

std::string TextLines::place(std::uint32_t line) const {
  if (same_as_input) return fmt::format("{}:{}", name, line);
  return fmt::format("{}, printed as Relay text, line {}", name, line);
}

NodeNames TextLines::names(const relay::Module& module) const {
  absl::flat_hash_map<std::uint32_t, std::string_view> functions;  // node -> @name
  for (const GlobalFunction& function : module.functions()) {
    functions.emplace(function.function.index(), module.name(function));
  }
  return NodeNames([this, &module, functions = std::move(functions)](NodeId node) {
    if (std::uint32_t number = binding_of(node); number != kUnbound) {
      return fmt::format("%{}", number);
    }
    if (node.valid() && module.graph.kind(node) == NodeKind::kVar) {
      return fmt::format("%{}", module.graph.name(node));
    }
    if (auto function = functions.find(node.index()); function != functions.end()) {
      return fmt::format("@{}", function->second);
    }
    if (std::uint32_t line = line_of(node); line != 0) return fmt::format("node on line {}", line);
    return fmt::format("(graph node {}, not printed)", node.index());
  });
}

absl::StatusOr<TextLines> print_with_lines(const Loaded& input) {
  absl::StatusOr<TextLines> lines = print_with_lines(input.module, input.envelope);
  if (!lines.ok()) return lines.status();
  lines->name = input.name;
  lines->same_as_input = input.format == Format::kText && input.text == lines->text;
  return lines;
}

absl::StatusOr<TextLines> print_with_lines(const relay::Module& module,
                                           relay::TextEnvelope envelope) {
  const relay::Graph& graph = module.graph;
  TextLines result;
  detail::RelayTextPrinter printer(graph, envelope);
  absl::StatusOr<std::string> text = printer.print_module(module);
  if (!text.ok()) return text.status();
  result.text = std::move(*text);
  result.line_starts.push_back(0);
  for (std::size_t i = 0; i < result.text.size(); ++i) {
    if (result.text[i] == '\n' && i + 1 < result.text.size()) result.line_starts.push_back(i + 1);
  }
  auto line_count = static_cast<std::uint32_t>(result.line_starts.size());

  absl::flat_hash_map<std::uint32_t, std::uint32_t> binding_lines;  // %N -> line
  absl::flat_hash_map<std::string_view, std::uint32_t> def_lines;   // @name -> line
  for (std::uint32_t line = 1; line <= line_count; ++line) {
    std::string_view text = result.line_text(line);
    if (auto number = bound_number(text)) binding_lines.emplace(*number, line);
    if (text.starts_with("def @")) def_lines.emplace(text.substr(5, text.find('(') - 5), line);
  }
  // The line closing the block opened on `open`: the next line indented as `open`, starting
  // with '}'.
  auto closing_line = [&](std::uint32_t open) -> std::uint32_t {
    std::size_t depth = indentation(result.line_text(open));
    for (std::uint32_t line = open + 1; line <= line_count; ++line) {
      std::string_view text = result.line_text(line);
      if (indentation(text) == depth && text.substr(depth).starts_with('}')) return line;
    }
    return 0;
  };

  std::vector<std::uint32_t>& lines = result.node_lines;
  lines.assign(graph.size(), 0);
  result.node_bindings.assign(graph.size(), TextLines::kUnbound);
  result.bound_nodes.assign(binding_lines.size(), NodeId());
  for (std::uint32_t i = 0; i < graph.size(); ++i) {
    if (auto number = printer.binding_number(NodeId(i))) {
      result.node_bindings[i] = *number;
      if (*number >= result.bound_nodes.size()) result.bound_nodes.resize(*number + 1);
      result.bound_nodes[*number] = NodeId(i);
      auto found = binding_lines.find(*number);
      if (found != binding_lines.end()) lines[i] = found->second;
    }
  }
  for (const GlobalFunction& function : module.functions()) {
    auto found = def_lines.find(module.name(function));
    if (found != def_lines.end()) lines[function.function.index()] = found->second;
  }
  // Users come after their operands, so a downward scan sees every user of a node first.
  for (std::uint32_t i = graph.size(); i-- > 0;) {
    NodeId id(i);
    if (lines[i] == 0) continue;
    if (graph.kind(id) == NodeKind::kFunction) {
      NodeId body = graph.body(id);
      if (lines[body.index()] == 0) {
        std::uint32_t close = closing_line(lines[i]);
        if (close > lines[i] + 1) lines[body.index()] = close - 1;
      }
    }
    for (NodeId operand : graph.operands(id)) {
      if (lines[operand.index()] == 0) lines[operand.index()] = lines[i];
    }
  }
  return result;
}

}  // namespace graphpat::cli
