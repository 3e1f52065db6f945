// libFuzzer target for the Relay text reader and printer: any bytes given to parse_text and
// parse_expression must give a module or an error, never a crash; whatever parses must print,
// and the print must parse again into a structurally equal module (or expression), except
// where the text form cannot carry it (print_cannot_parse_back, text_cannot_carry).
#include <fmt/format.h>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/relay_text.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.hpp"
#include "fuzz/text_round_trip.hpp"

namespace {

using graphpat::fuzz::message;
using graphpat::fuzz::require;
using graphpat::fuzz::require_error_id;
using graphpat::fuzz::require_ok;
using graphpat::fuzz::require_same;
using graphpat::fuzz::constant_left_out_of_metadata;
using graphpat::fuzz::print_cannot_parse_back;
using graphpat::fuzz::text_cannot_carry;

void check_module(std::string_view text) {
  absl::StatusOr<graphpat::relay::Module> module = graphpat::relay::parse_text(text);
  if (!module.ok()) {
    require_error_id(module.status());
    return;
  }
  require(graphpat::verify(*module).ok(), "the parsed module does not verify");
  graphpat::fuzz::check_text_round_trip(*module);
}

void check_expression(std::string_view text) {
  absl::StatusOr<graphpat::relay::ParsedExpression> parsed =
      graphpat::relay::parse_expression(text);
  if (!parsed.ok()) {
    require_error_id(parsed.status());
    return;
  }
  require(graphpat::verify(parsed->module.graph).ok(), "the parsed expression does not verify");
  absl::StatusOr<std::string> print = graphpat::relay::print_expression(*parsed);
  if (!print.ok()) {  // a name the text cannot spell: refused with a located error
    require_error_id(print.status());
    return;
  }
  std::string printed = std::move(*print);
  absl::StatusOr<graphpat::relay::ParsedExpression> again =
      graphpat::relay::parse_expression(printed);
  if (!again.ok() && print_cannot_parse_back(again.status(), printed, /*expression=*/true)) {
    return;
  }
  require_ok(again.status(), "the printed expression does not parse", printed);
  auto difference = graphpat::first_difference(parsed->module.graph, parsed->root,
                                                again->module.graph, again->root);
  if (difference && (text_cannot_carry(*difference) ||
                     constant_left_out_of_metadata(printed, again->module.graph, *difference))) {
    return;
  }
  require_same(difference, "the printed expression parses to a different expression", printed);
}

}  // namespace

GRAPHPAT_FUZZ_TARGET(fuzz_relay_text) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check_module(text);
  check_expression(text);
  return 0;
}
