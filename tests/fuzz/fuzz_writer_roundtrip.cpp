// libFuzzer target for the writers (issue 21 class 7): whatever a reader accepts, every writer
// either refuses with a Status carrying an error id or writes something that reads back
// structurally equal. The first byte chooses the reader (its value modulo 3: '0' Relay text,
// '1' TVM JSON, '2' graph JSON), the rest is the file. What is read must verify; then
// - print_text reads back with parse_text (except the text form's documented limits,
//   text_round_trip.hpp);
// - save_json reads back with load_json (a refusal is allowed: relay_json.hpp documents which);
// - print_graph_json reads back with parse_graph_json;
// - to_dot of every function, plain and with partitioned functions clustered, gives text or an
//   error, never a crash.
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/dot.hpp>
#include <graphpat/io/graph_json.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.hpp"
#include "fuzz/text_round_trip.hpp"

namespace {

namespace relay = graphpat::relay;
using graphpat::fuzz::message;
using graphpat::fuzz::require;
using graphpat::fuzz::require_error_id;
using graphpat::fuzz::require_ok;
using graphpat::fuzz::require_same;

void check_json(const relay::Module& module) {
  absl::StatusOr<std::string> saved = relay::save_json(module);
  if (!saved.ok()) {
    require_error_id(saved.status());
    return;
  }
  absl::StatusOr<relay::LoadedJson> again = relay::load_json(*saved);
  require_ok(again.status(), "what save_json wrote does not load", *saved);
  require(!again->expression.has_value(), "a saved module loads as an expression", *saved);
  require_same(graphpat::first_difference(module, again->module),
               "what save_json wrote loads to a different module", *saved);
}

void check_graph_json(const relay::Module& module) {
  absl::StatusOr<std::string> written = relay::print_graph_json(module);
  if (!written.ok()) {
    require_error_id(written.status());
    return;
  }
  absl::StatusOr<relay::Module> again = relay::parse_graph_json(*written);
  require_ok(again.status(), "what print_graph_json wrote does not parse", *written);
  require_same(graphpat::first_difference(module, *again),
               "what print_graph_json wrote parses to a different module", *written);
}

void check_dot(const relay::Module& module) {
  for (const graphpat::GlobalFunction& function : module.functions()) {
    for (bool clustered : {false, true}) {
      absl::StatusOr<std::string> dot =
          relay::to_dot(module, {.cluster_partitioned_functions = clustered,
                                 .function = std::string(module.name(function))});
      if (!dot.ok()) require_error_id(dot.status());
    }
  }
}

}  // namespace

GRAPHPAT_FUZZ_TARGET(fuzz_writer_roundtrip) {
  if (size == 0) return 0;
  std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  relay::Module module;
  absl::Status status;
  switch (data[0] % 3) {
    case 0: {
      absl::StatusOr<relay::Module> read = relay::parse_text(file);
      status = read.status();
      if (read.ok()) module = std::move(*read);
      break;
    }
    case 1: {
      absl::StatusOr<relay::LoadedJson> read = relay::load_json(file);
      status = read.status();
      if (read.ok() && read->expression) return 0;  // a bare expression: fuzz_relay_json's
      if (read.ok()) module = std::move(read->module);
      break;
    }
    default: {
      absl::StatusOr<relay::Module> read = relay::parse_graph_json(file);
      status = read.status();
      if (read.ok()) module = std::move(*read);
      break;
    }
  }
  if (!status.ok()) {
    require_error_id(status);
    return 0;
  }
  absl::Status verified = graphpat::verify(module);
  require(verified.ok(), "a reader accepted a module that does not verify", message(verified));
  graphpat::fuzz::check_text_round_trip(module);
  check_json(module);
  check_graph_json(module);
  check_dot(module);
  return 0;
}
