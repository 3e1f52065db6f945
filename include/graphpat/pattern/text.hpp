// parse_pattern: reads a pattern written in TVM's Python DPL spelling, as TVM's tests and
// users write them, into a Pattern.
//
//   absl::StatusOr<graphpat::Pattern> p = graphpat::parse_pattern(
//       "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(),"
//       " wildcard(), wildcard()), 0)");
//   if (!p.ok()) return p.status();   // "[graphpat.pattern_text.unknown_name] 1:5: ..."
//
//   // Several lines: `name = expr` statements, the last line is the pattern. A name used twice
//   // is one pattern node (identity binding).
//   auto diamond = graphpat::parse_pattern(R"(
//       conv = is_op('nn.conv2d')(wildcard(), wildcard())
//       is_op('add')(is_op('nn.relu')(conv), is_op('nn.leaky_relu')(conv)))");
//
// What it reads: wildcard, is_op, is_var, is_constant, is_expr, is_tuple, is_tuple_get_item,
// is_if, is_let, has_attr, has_type, has_dtype, has_shape, dominates; the classes
// FunctionPattern, CallPattern, TuplePattern, TupleGetItemPattern, WildcardPattern, VarPattern,
// ConstantPattern, ExprPattern, AltPattern, IfPattern, LetPattern, DominatorPattern; methods
// .has_attr .has_type .has_dtype .has_shape .optional .dominates .redirect_to; calling a
// pattern (`p(a, b)`, `p(None)` for any arguments); `|` `&` `~` `!` `+` `-` `*` `/`;
// `lambda x: ...` in optional; relay.TensorType / relay.TupleType / relay.Any() and types in
// Relay syntax given as strings (`has_type('Tensor[(10, 10), float32]')`). is_expr(name) takes
// `name` from PatternParseOptions::names, where the caller put a dsl::is_expr pattern.
//
// Graph patterns (graph_pattern.hpp) are read by parse_graph_pattern from a Relax
// `with PatternContext() as ctx:` block pasted as it is, or from a text without one, which is
// then the context's body:
//   auto qkv = graphpat::parse_graph_pattern(R"(
//   with PatternContext() as ctx:
//       inp = wildcard()
//       q = is_op('nn.dense')(inp, wildcard())
//       k = is_op('nn.dense')(inp, wildcard())
//       q.used_by(is_op('nn.relu')(None)) >> is_op('nn.softmax')(None))");
//   qkv->find("q");   // the pattern named q; qkv->context: the PatternContext
// Besides parse_pattern's language: PatternContext(), `a ^ b` and `a >> b` (Relax's PatternSeq:
// a chain `a >> b >> c` and its methods .used_by(other, index) .only_used_by(other, index)
// .dup()), and the patterns' methods .used_by, .only_used_by, .fork_to(*patterns), .dup(),
// .same_shape_as(*patterns). As in Relax, a call pattern made inside the context adds
// `arg ^ call` for each argument (index i); an `a ^ b` outside the context is refused
// (`pattern_text.no_context`), as is a block inside another and a second block.
//
// Errors are located and carry stable ids: `[graphpat.pattern_text.<what>] line:column: ...`.
#pragma once

#include <absl/status/statusor.h>

#include <string_view>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/pattern/pattern_graph.hpp"
#include "graphpat/pattern/text_options.hpp"

namespace graphpat {

/// Reads a pattern from its text (see the top of this file).
GRAPHPAT_ENTRY absl::StatusOr<Pattern> parse_pattern(std::string_view text,
                                                     const PatternParseOptions& options = {});
/// Reads a graph pattern from its text (see the top of this file); refuses what
/// PatternContext::validate refuses.
GRAPHPAT_ENTRY absl::StatusOr<ParsedGraphPattern> parse_graph_pattern(
    std::string_view text, const PatternParseOptions& options = {});

}  // namespace graphpat

#if GRAPHPAT_ENTRY_DEFINITIONS
#include "graphpat/pattern/text_evaluator.hpp"

namespace graphpat {

GRAPHPAT_ENTRY absl::StatusOr<Pattern> parse_pattern(std::string_view text,
                                                     const PatternParseOptions& options) {
  return detail::PatternEvaluator(text, options).run();
}
GRAPHPAT_ENTRY absl::StatusOr<ParsedGraphPattern> parse_graph_pattern(
    std::string_view text, const PatternParseOptions& options) {
  return detail::PatternEvaluator(text, options).run_graph();
}

}  // namespace graphpat
#endif  // GRAPHPAT_ENTRY_DEFINITIONS
