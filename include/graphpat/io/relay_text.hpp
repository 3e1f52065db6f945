// Relay text import and export: reads what TVM prints (`mod.astext()`, `str(mod)`, with or
// without `#[version = "0.0.5"]` and `#[metadata]`) into a relay::Module, and prints a module
// back byte for byte as TVM v0.14 does (docs/relay-formats.md §1).
//
//   absl::StatusOr<graphpat::relay::Module> module = graphpat::relay::parse_text(text);
//   if (!module.ok()) return module.status();  // "[graphpat.relay_text.unexpected_token] 12:7: ..."
//   std::string again = graphpat::relay::print_text(*module, graphpat::relay::TextEnvelope::kStr);
//
// What the reader builds (the JSON reader follows the same rules, so both give equal graphs):
// - every node the text defines is a fresh node; `%N` / `%x` references resolve to it; each
//   scalar literal is its own 0-d constant; `meta[relay.Constant][i]` twice is one node.
// - `/* ty=T span=NAME:L:C */` comments become the node's type and span; `%x: T` the var's
//   annotation; `-> R` the result type; `[A, B]` type params a tuple type of type vars.
// - call attributes: the canonical object of the op's schema (relay/attr_fields.hpp), with
//   defaults filled in; fields a schema does not know are kept as written; attributes on an op
//   without a schema or a call of a non-op without `attrs_type_key` use the type key
//   "graphpat.relay_text.UnknownAttrs". Function attributes: a "DictAttrs" object in written
//   order. A `meta[KEY][i]` attribute value without a metadata section is kept as a
//   one-field object (type key KEY, field "graphpat.meta_index") and printed back as written.
// - `meta[relay.Constant][i]` without a `#[metadata]` section: a tensor with the dtype and
//   shape of its `/* ty=... */` annotation and no bytes; with neither, the error
//   `relay_text.untyped_constant`. Symbolic dims and `meta[...]` types keep their text.
// - the `#[metadata]` JSON is kept in Module::text_metadata and re-emitted verbatim by
//   print_text while it still lists what is printed; otherwise a fresh one is written.
// - `%N` bindings live in one table for the whole text (a later binding of the same number
//   replaces the earlier one; TVM keeps the first), so a binding made inside an if-branch can
//   be used after it, as TVM's printer requires. Such a use is refused (`relay_text.undefined`,
//   "%2 reads %x2, which is not in scope here") when the value reads a variable out of scope
//   there, such as another definition's parameter.
// - refused with `relay_text.unsupported` (never silently dropped): ADT type definitions and
//   types, `match`, `ref`/`ref_read`/`ref_write`, parameter virtual devices.
// - refused with a located error: a constant whose `/* ty= */` disagrees with its value
//   (`relay_text.type_mismatch`), raw string bytes that are not UTF-8 (`bad_string`), an
//   attribute value of the wrong kind (`bad_attribute`, at the attribute), input over
//   TextParseOptions::limits (`too_deep`, `too_many_nodes`, `tensor_too_large`), a parameter
//   twice in one list (`duplicate_parameter`), a let whose value reads the variable it binds
//   (`recursive_let`: TVM binds it before reading the value), a call of a global the module does
//   not define (`undefined`), a projection past the fields of its tuple's type (`bad_index`),
//   and a dtype, dimension or literal its type cannot hold (`bad_type`, `bad_literal`: checked by
//   ir/validation.hpp, as the JSON readers check theirs).
// - read although TVM's own parser refuses them: escaped strings (`\"`, `\xHH`), `nanf`/`inff16`
//   literals, INT64_MIN, ONNX-style names (`%input.1`, `%onnx::Conv_0`; `%x.0.1` is the longest
//   such name in scope, projected by the indices after it), modules without the version header
//   (unless TextParseOptions::require_version).
// - read as TVM's parser reads them: a key given twice among a call's attributes, a function's
//   attributes or a braced object's or map's entries counts once, by its last value (TVM keeps
//   them in a Map), at the place of the last.
// The printer departs from TVM's where TVM's text does not read back: a let chain ends at a body
// Let used elsewhere too, which prints bound once as `%k = (...)`; TVM prints its lines again
// and names its variable a second time `%v-malformed-ir`.
//
// The writer rule (print_text, print_expression; a fuzz target checks it): the text reads back
// structurally equal to what was printed, or the print is refused with `relay_text.unprintable`
// naming the first node at fault (`node %3: op name 'a;b' cannot be printed: it is not
// identifiers ...`). Names are printed raw, so each must be spelt as the lexer reads it
// (lexer.hpp holds the one definition both use): op names and function attribute keys are
// identifiers joined by '.', an op's first one not a keyword; global names, call attribute keys
// (never attrs_type_key), object field keys, `'global'` values, dtypes and type variable names
// are identifiers (a letter or '_', then letters, digits, '_' or '/'; not `inff`, which is a
// number); `%` names may hold '.' and '::' between those; symbolic dimensions and opaque types
// must be one `meta[KEY][i]`; span source names hold no line feed, '/*' or '*/' and do not start
// with a blank. Variables are renamed as TVM renames them (a `v` before a name that does not
// start with a letter, a number after a name already used: `_x` prints `%v_x`), which
// structural equality does not see. String values are escaped as StrEscape does and the reader
// undoes exactly that (NUL, quotes, backslashes, line feeds, bytes that are not UTF-8). A
// constant without bytes and without a node type prints its dtype and shape as its `/* ty= */`
// (which the reader reads them from). Values are refused where the reader would read another
// one: a field of the op's own struct holding a kind its reader refuses (an int in an
// Array<IndexExpr>), and a call of an op with an attrs struct that has none, which reads back
// with the struct at its defaults, as in TVM. Known departures from the rule, not refused yet:
// doubles print with TVM's 6 digits; a nested attribute object prints `{k=v}`, which reads back with
// the type key "Attrs"; astext() of a module with a constant without bytes omits the metadata
// section, so the constants with bytes lose them too (str() never writes bytes).
#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <string_view>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/io/relay_text/options.hpp"
#include "graphpat/relay/dialect.hpp"

namespace graphpat::relay {

/// Reads a module (`def @main(...) {...}` items, optionally a version header and a
/// `#[metadata]` section).
GRAPHPAT_ENTRY absl::StatusOr<Module> parse_text(std::string_view text,
                                                 const TextParseOptions& options = {});

/// Reads a bare expression (what `str(expr)` / `expr.astext()` print), e.g. `free_var %x;
/// add(%x, 1f)`.
GRAPHPAT_ENTRY absl::StatusOr<ParsedExpression> parse_expression(
    std::string_view text, const TextParseOptions& options = {});

/// Prints `module` as TVM v0.14 does in `envelope`, or refuses (`relay_text.unprintable`,
/// naming the node) a name the reader would not read back (see the top of this file).
GRAPHPAT_ENTRY absl::StatusOr<std::string> print_text(const Module& module,
                                                      TextEnvelope envelope = TextEnvelope::kAstext);

/// Prints the expression `root` of `graph` as TVM prints a bare expression (no trailing LF);
/// `metadata` is a kept `#[metadata]` section to re-emit when it still matches.
GRAPHPAT_ENTRY absl::StatusOr<std::string> print_expression(
    const Graph& graph, NodeId root, TextEnvelope envelope = TextEnvelope::kAstext,
    std::string_view metadata = {});
GRAPHPAT_ENTRY absl::StatusOr<std::string> print_expression(
    const ParsedExpression& parsed, TextEnvelope envelope = TextEnvelope::kAstext);

}  // namespace graphpat::relay

#if GRAPHPAT_ENTRY_DEFINITIONS
#include "graphpat/io/relay_text/parser.hpp"
#include "graphpat/io/relay_text/printer.hpp"

namespace graphpat::relay {

GRAPHPAT_ENTRY absl::StatusOr<Module> parse_text(std::string_view text,
                                                 const TextParseOptions& options) {
  return graphpat::detail::RelayTextParser(text, options).parse_module();
}

GRAPHPAT_ENTRY absl::StatusOr<ParsedExpression> parse_expression(
    std::string_view text, const TextParseOptions& options) {
  return graphpat::detail::RelayTextParser(text, options).parse_expression();
}

GRAPHPAT_ENTRY absl::StatusOr<std::string> print_text(const Module& module,
                                                      TextEnvelope envelope) {
  return graphpat::detail::RelayTextPrinter(module.graph, envelope).print_module(module);
}

GRAPHPAT_ENTRY absl::StatusOr<std::string> print_expression(const Graph& graph, NodeId root,
                                                            TextEnvelope envelope,
                                                            std::string_view metadata) {
  return graphpat::detail::RelayTextPrinter(graph, envelope).print_expression(root, metadata);
}

GRAPHPAT_ENTRY absl::StatusOr<std::string> print_expression(const ParsedExpression& parsed,
                                                            TextEnvelope envelope) {
  return print_expression(parsed.module.graph, parsed.root, envelope, parsed.module.text_metadata);
}

}  // namespace graphpat::relay
#endif  // GRAPHPAT_ENTRY_DEFINITIONS
