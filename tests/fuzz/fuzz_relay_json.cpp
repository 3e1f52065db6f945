// libFuzzer target for the TVM JSON reader and writer: any bytes given to load_json must give
// a module or an error, never a crash; whatever loads must save (with its provenance and
// without, where it can be written: a save may refuse only what relay_json.hpp documents), and
// what is saved must load again into a structurally equal module. Every input also goes through
// both readers of the envelope: the fast one (simdjson) takes only what the SAX one takes, as it
// takes it.
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_json/fast_document.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.hpp"

namespace {

using graphpat::fuzz::message;
using graphpat::fuzz::require;
using graphpat::fuzz::require_error_id;
using graphpat::fuzz::require_ok;
using graphpat::fuzz::require_same;

/// Loads `saved` and checks it is `loaded` again.
void check_reload(const graphpat::relay::LoadedJson& loaded, const std::string& saved) {
  absl::StatusOr<graphpat::relay::LoadedJson> again = graphpat::relay::load_json(saved);
  require_ok(again.status(), "the saved JSON does not load", saved);
  require(loaded.expression.has_value() == again->expression.has_value(),
          "an expression came back as a module, or the reverse", saved);
  auto difference =
      loaded.expression
          ? graphpat::first_difference(loaded.module.graph, *loaded.expression,
                                       again->module.graph, *again->expression)
          : graphpat::first_difference(loaded.module, again->module);
  require_same(difference, "the saved JSON loads to a different module", saved);
}

/// A save may refuse only a text that would read back as a reference (a field of a type
/// without layout whose text is a node index of the larger saved file: relay_json.hpp).
void require_ambiguous_text(const absl::Status& status, std::string_view what) {
  require(graphpat::error_id(status) == "graphpat.relay_json.ambiguous_text", what,
          message(status));
}

/// The fast reader (simdjson) takes a file only as the SAX reader does: into the same table.
void check_fast_reader(std::string_view json) {
  graphpat::relay::detail::JsonDocument fast;
  if (!graphpat::relay::detail::FastDocumentReader(fast, graphpat::kDefaultLimits.max_nodes)
           .read(json)) {
    return;
  }
  graphpat::relay::detail::JsonDocument sax;
  require_ok(graphpat::relay::detail::parse_document(json, sax),
             "the fast reader took a file the SAX reader refuses");
  require(fast.same_table(sax), "the fast and the SAX reader read different tables");
}

}  // namespace

GRAPHPAT_FUZZ_TARGET(fuzz_relay_json) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  check_fast_reader(json);
  absl::StatusOr<graphpat::relay::LoadedJson> loaded = graphpat::relay::load_json(json);
  if (!loaded.ok()) {
    require_error_id(loaded.status());
    return 0;
  }
  require(graphpat::verify(loaded->module).ok(), "the loaded module does not verify");
  absl::StatusOr<std::string> exact = graphpat::relay::save_json(*loaded);
  if (exact.ok()) {
    check_reload(*loaded, *exact);
  } else {
    require_ambiguous_text(exact.status(), "save_json with provenance failed");
  }
  absl::StatusOr<std::string> fresh =
      loaded->expression
          ? graphpat::relay::save_json(loaded->module.graph, *loaded->expression)
          : graphpat::relay::save_json(loaded->module);
  if (fresh.ok()) {
    check_reload(*loaded, *fresh);
  } else if (graphpat::error_id(fresh.status()) != "graphpat.relay_json.unsupported") {
    // Documented: TIR arithmetic in a dimension (`Mul(n, 2)`) is kept as text, which only the
    // file it was read from can write back.
    require_ambiguous_text(fresh.status(), "save_json without provenance failed");
  }
  return 0;
}
