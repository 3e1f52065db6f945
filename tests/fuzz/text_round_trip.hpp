// Shared by the libFuzzer targets that print Relay text: what the text form documents it cannot
// carry (TVM's own print limits, listed in tests/io/test_relay_formats.cpp and README.md here),
// and the round trip of a module through print_text and parse_text that allows exactly those.
//
//   graphpat::fuzz::check_text_round_trip(module);  // aborts on any other difference
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/io/relay_text.hpp>

#include "fuzz/fuzz_support.hpp"

namespace graphpat::fuzz {

// Documented limits of the text form (tests/io/test_relay_formats.cpp, kTextCannotCarry): an
// incomplete type (`%x: _`) prints as `IncompleteType`, which no parser reads back (TVM prints
// `meta[IncompleteType][0]`, which TVM cannot read back either).
inline bool text_cannot_carry(const absl::Status& status, std::string_view printed) {
  return graphpat::error_id(status) == "graphpat.relay_text.unsupported" &&
         printed.find("IncompleteType") != std::string_view::npos;
}

// Whether `reason` is "attrs A vs B" with A and B the same text.
inline bool attrs_print_the_same(std::string_view reason) {
  constexpr std::string_view kPrefix = "attrs ", kVs = " vs ";
  if (!reason.starts_with(kPrefix)) return false;
  std::string_view sides = reason.substr(kPrefix.size());
  if (sides.size() < kVs.size() || (sides.size() - kVs.size()) % 2 != 0) return false;
  std::size_t half = (sides.size() - kVs.size()) / 2;
  return sides.substr(half, kVs.size()) == kVs && sides.substr(0, half) == sides.substr(half + kVs.size());
}

// The other documented limit: attrs of another struct (`nn.relu(%x, meta[relay.attrs.X][0])`
// resolved from the metadata section) print as the same reference, and when the section is
// not re-emitted verbatim the reprint reads it back as an unresolved reference.
inline bool text_cannot_carry(const graphpat::Difference& difference) {
  return difference.reason.find("graphpat.meta_index") != std::string::npos ||
         // And TVM prints a scalar float constant with 6 significant digits
         // (docs/relay-formats.md §1.5), so `1.234517e+06f` reads back as 1.23452e+06.
         (difference.reason.starts_with("constant float") &&
          difference.reason.find("[] vs float") != std::string::npos) ||
         // So it prints a double attribute (kTextCannotCarry's attrs_double_formats):
         // `alpha=5.333333f` reads back as 5.33333, attrs that differ but print the same.
         attrs_print_the_same(difference.reason);
}

// And a print that omits the metadata section (a constant in it has no bytes to write, so it is
// the show_meta_data=False form, docs/relay-formats.md §1.9) carries no constant printed as
// `meta[relay.Constant][i]` (an int8 scalar, a tensor): it reads back without bytes and, with no
// `/* ty= */`, without dtype or shape. TVM cannot read such text at all.
template <class Graph>
inline bool constant_left_out_of_metadata(std::string_view printed, const Graph& again,
                                   const graphpat::Difference& difference) {
  return printed.find("the metadata section has been omitted") != std::string_view::npos &&
         difference.reason.starts_with("constant ") && difference.rhs.valid() &&
         !again.tensor(difference.rhs).has_data();
}

// Where a reader error is (`[id] L:C: ...`); nullopt if the message names no place.
struct ErrorPlace {
  std::size_t line = 0;
  std::size_t column = 0;
};

inline std::optional<ErrorPlace> error_place(std::string_view text) {
  std::size_t place = text.find("] ");
  if (place == std::string_view::npos) return std::nullopt;
  const char* end = text.data() + text.size();
  ErrorPlace at;
  auto [after_line, line_error] = std::from_chars(text.data() + place + 2, end, at.line);
  if (line_error != std::errc() || after_line == end || *after_line != ':') return std::nullopt;
  if (std::from_chars(after_line + 1, end, at.column).ec != std::errc()) return std::nullopt;
  return at;
}

// The line and the name of an undefined-name error (`[..] L:C: %x is not a variable in scope`,
// `[..] L:C: %3 is used before it is bound`) and what the message says of the name.
struct UndefinedName {
  std::size_t line = 0;
  std::string_view name;     // `%x`
  std::string_view problem;  // `is not a variable in scope`
};

inline std::optional<UndefinedName> undefined_name(const absl::Status& status) {
  if (graphpat::error_id(status) != "graphpat.relay_text.undefined") return std::nullopt;
  std::string_view text = message(status);
  std::optional<ErrorPlace> at = error_place(text);
  std::size_t name_at = text.find(": %");
  std::size_t name_end = name_at == std::string_view::npos ? name_at : text.find(' ', name_at + 2);
  if (!at || name_end == std::string_view::npos) return std::nullopt;
  UndefinedName undefined;
  undefined.line = at->line;
  undefined.name = text.substr(name_at + 2, name_end - name_at - 2);
  undefined.problem = text.substr(name_end + 1);
  return undefined;
}

// Calls visit(line number, indentation, text after the indentation) for each line of `printed`
// until it returns true; whether one did.
template <class Visit>
inline bool any_line(std::string_view printed, Visit visit) {
  std::size_t line = 1;
  for (std::size_t start = 0; start < printed.size(); ++line) {
    std::size_t end = std::min(printed.find('\n', start), printed.size());
    std::string_view row = printed.substr(start, end - start);
    std::size_t indent = std::min(row.find_first_not_of(' '), row.size());
    if (visit(line, indent, row.substr(indent))) return true;
    start = end + 1;
  }
  return false;
}

// A third, of expression prints only: TVM emits `free_var %x;` into the scope being printed
// when %x is first met (docs/relay-formats.md §1.8, free_var), so a free var first used inside
// a let that is printed as a nested scope (an indented line; an expression's own lines are not)
// is declared there, and a later use outside it does not parse back (nor does it in TVM).
inline bool free_var_declared_in_nested_scope(const absl::Status& status, std::string_view printed) {
  std::optional<UndefinedName> undefined = undefined_name(status);
  if (!undefined || undefined->problem != "is not a variable in scope") return false;
  std::string declaration = fmt::format("free_var {}", undefined->name);
  return any_line(printed, [&](std::size_t, std::size_t indent, std::string_view row) {
    return indent > 0 && row.starts_with(declaration) &&
           (row.substr(declaration.size()).starts_with(':') ||
            row.substr(declaration.size()).starts_with(';'));
  });
}

// And a projection of a number (`5 .0`, TupleGetItem of the constant 5, which TVM's parser
// reads too) prints as `5.0`, a float literal without its suffix (printing never writes a float
// constant that way, so the message names this case only).
inline bool projected_number(const absl::Status& status) {
  return graphpat::error_id(status) == "graphpat.relay_text.bad_literal" &&
         message(status).find("a float literal needs an 'f' suffix") != std::string_view::npos;
}

// And TVM binds a node in the scope being printed when its first consumer is
// (docs/relay-formats.md §1.8 rules 2 and 6): a node a nested fn uses is bound in the fn's
// body, and the fn's own binding comes after the bindings of its call's arguments, so an
// argument that uses the same node reads it lines before its binding
// (`%1 = (%0, %x); ... %3 = fn (..) { %0 = add(..); ..`). TVM's parser refuses that text too.
// Recognised by the binding: after the use, indented deeper.
inline bool bound_later_in_nested_scope(const absl::Status& status, std::string_view printed) {
  std::optional<UndefinedName> undefined = undefined_name(status);
  if (!undefined || undefined->line == 0 || undefined->problem != "is used before it is bound") {
    return false;
  }
  std::string binding = fmt::format("{} = ", undefined->name);
  std::size_t use_indent = 0;
  bool deeper = false;
  any_line(printed, [&](std::size_t line, std::size_t indent, std::string_view row) {
    if (line == undefined->line) use_indent = indent;
    if (line <= undefined->line || !row.starts_with(binding)) return false;
    deeper = indent > use_indent;
    return true;
  });
  return deeper;
}

// And a let whose value is a let used once prints that let inline, as TVM prints a let value
// (docs/relay-formats.md §1.8, let: as a scope result), so the line reads `let %x = let %y = ..;`,
// which no parser reads back (TVM's neither). Recognised by the `let` the error is at following
// `= ` on a line that is a let binding.
inline bool let_printed_as_let_value(const absl::Status& status, std::string_view printed) {
  constexpr std::string_view kFoundLet = "expected an expression, found 'let'";
  std::string_view text = message(status);
  if (graphpat::error_id(status) != "graphpat.relay_text.unexpected_token" ||
      !text.ends_with(kFoundLet)) {
    return false;
  }
  std::optional<ErrorPlace> at = error_place(text);
  if (!at) return false;
  return any_line(printed, [&](std::size_t line, std::size_t indent, std::string_view row) {
    if (line != at->line || at->column <= indent + 1) return false;
    std::string_view before = row.substr(0, at->column - 1 - indent);
    return row.starts_with("let ") && before.ends_with(" = ") &&
           row.substr(before.size()).starts_with("let ");
  });
}

// Whether parsing `printed` again failed with `status` on a documented limit of the text
// form. The free var case is of expression prints only: a module's function may hold a free
// var too (`free_var %w;` in a def, reached from another def through a graph binding), but a
// module print that cannot parse back that way is still reported.
inline bool print_cannot_parse_back(const absl::Status& status, std::string_view printed,
                             bool expression) {
  return text_cannot_carry(status, printed) || projected_number(status) ||
         bound_later_in_nested_scope(status, printed) ||
         let_printed_as_let_value(status, printed) ||
         (expression && free_var_declared_in_nested_scope(status, printed));
}

// And TVM decides whether to bind a node by its uses in the definition being printed, so a node
// two definitions share (one reads the other's `%N`) and each uses once prints inline in both,
// and reads back as two nodes (TVM's print and parse do the same). Recognised by every
// function being equal to its reprint alone, only the sharing between functions differing.
inline bool shared_between_definitions(const graphpat::relay::Module& module,
                                const graphpat::relay::Module& again,
                                const graphpat::Difference& difference) {
  if (!difference.reason.starts_with("sharing differs")) return false;
  for (const graphpat::GlobalFunction& function : module.functions()) {
    std::optional<graphpat::NodeId> other = again.find(module.name(function));
    if (!other || graphpat::first_difference(module.graph, function.function, again.graph, *other)) {
      return false;
    }
  }
  return true;
}

/// Prints `module` (which verifies) and parses the print again: it must parse into a
/// structurally equal module, except where the text form documents that it cannot.
inline void check_text_round_trip(const relay::Module& module) {
  absl::StatusOr<std::string> print = relay::print_text(module);
  if (!print.ok()) {  // a name the text cannot spell: refused with a located error
    require_error_id(print.status());
    return;
  }
  const std::string& printed = *print;
  absl::StatusOr<relay::Module> again = relay::parse_text(printed);
  if (!again.ok() && print_cannot_parse_back(again.status(), printed, /*expression=*/false)) {
    return;
  }
  require_ok(again.status(), "the printed module does not parse", printed);
  auto difference = first_difference(module, *again);
  if (difference && (text_cannot_carry(*difference) ||
                     shared_between_definitions(module, *again, *difference) ||
                     constant_left_out_of_metadata(printed, again->graph, *difference))) {
    return;
  }
  require_same(difference, "the printed module parses to a different module", printed);
}

}  // namespace graphpat::fuzz
