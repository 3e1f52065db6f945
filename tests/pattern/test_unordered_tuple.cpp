// Relax's unordered tuple pattern, `is_tuple(fields, unordered=True)` (docs/semantics.md):
// TVM's own cases, which field pattern takes which field, bindings shared between fields and
// undone with a failed branch, nesting, the text syntax, explain, another dialect, and the step
// limit on a search that would otherwise take factorial time.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "pattern/corpus_support.hpp"
#include "support/arith_dialect.hpp"

using namespace graphpat;
using namespace graphpat::dsl;
using namespace graphpat::testing;

namespace {

struct UnorderedProgram {
  relay::Module module;
  NodeId body;
  const relay::Graph& graph() const { return module.graph; }
};

// `main_body` is main's body; main takes float32 scalars %x, %y and %z.
UnorderedProgram unordered_program(const std::string& main_body) {
  UnorderedProgram p{parse_module_text("#[version = \"0.0.5\"]\ndef @main(%x: float32, "
                                       "%y: float32, %z: float32) {\n" +
                                       main_body + "\n}"),
                     NodeId()};
  p.body = p.module.graph.body(*p.module.find("main"));
  return p;
}

bool unordered_matches(const Pattern& pattern, const UnorderedProgram& p) {
  return static_cast<bool>(match(pattern, p.graph(), p.body));
}

}  // namespace

TEST_CASE("Relax test_unordered_tuple_pattern: the fields in either order",
          "[pattern][matcher][unordered]") {
  // tests/python/relax/test_dataflow_pattern.py: is_tuple([is_const(), is_dfv()], unordered=True)
  // matches (const, dfv) and (dfv, const), not (dfv, dfv) nor (). A DataflowVar is a var here.
  Pattern t = is_unordered_tuple({is_constant(), is_var()});
  CHECK(t.kind() == PatternKind::kUnorderedTuple);
  CHECK(pattern_kind_name(t.kind()) == "UnorderedTuplePattern");
  CHECK(unordered_matches(t, unordered_program("(1f, %x)")));
  CHECK(unordered_matches(t, unordered_program("(%x, 1f)")));
  CHECK_FALSE(unordered_matches(t, unordered_program("(%x, %y)")));
  CHECK_FALSE(unordered_matches(t, unordered_program("()")));
}

TEST_CASE("an unordered tuple takes tuples of its own arity only",
          "[pattern][matcher][unordered]") {
  Pattern t = is_unordered_tuple({wildcard(), wildcard()});
  UnorderedProgram three = unordered_program("(%x, %y, %z)");
  CHECK_FALSE(unordered_matches(t, three));
  CHECK(explain(t, three.graph(), three.body) ==
        fmt::format("expected 2 fields, got 3 in {} = (...)", three.body));
  UnorderedProgram call = unordered_program("negative(%x)");
  CHECK(explain(t, call.graph(), call.body) ==
        fmt::format("expected a tuple, got {} = negative(...)", call.body));
  CHECK(unordered_matches(is_unordered_tuple({}), unordered_program("()")));
}

TEST_CASE("unordered tuple: field pattern 0 takes the first field it matches",
          "[pattern][matcher][unordered]") {
  UnorderedProgram p = unordered_program("(%x, %y)");
  const relay::Graph& g = p.graph();
  Pattern a = wildcard(), b = wildcard();
  Match m = match(is_unordered_tuple({a, b}), g, p.body);
  REQUIRE(m);
  CHECK(m.bound(a) == g.fields(p.body)[0]);
  CHECK(m.bound(b) == g.fields(p.body)[1]);

  // a takes 1f first; c = is_constant() then finds only %x and fails, so a gives 1f back and
  // takes %x, and c takes 1f. (TVM keeps a's first binding in its memo when it backtracks, so
  // its matcher answers False here; docs/semantics.md.)
  UnorderedProgram q = unordered_program("(1f, %x)");
  Pattern c = is_constant();
  Match n = match(is_unordered_tuple({a, c}), q.graph(), q.body);
  REQUIRE(n);
  CHECK(n.bound(a) == q.graph().fields(q.body)[1]);
  CHECK(n.bound(c) == q.graph().fields(q.body)[0]);
}

TEST_CASE("unordered tuple: a sub-pattern shared by two fields binds one node",
          "[pattern][matcher][unordered]") {
  Pattern w = wildcard();
  Pattern negated = is_op("negative")(w);
  // negated skips %x, takes field 1 and binds w to %x; w then takes field 0, %x again.
  UnorderedProgram same = unordered_program("(%x, negative(%x))");
  Match m = match(is_unordered_tuple({negated, w}), same.graph(), same.body);
  REQUIRE(m);
  CHECK(m.bound(w) == same.graph().fields(same.body)[0]);
  CHECK(m.bindings(w).size() == 1);
  // w is %x, so it cannot take %y: no assignment.
  CHECK_FALSE(unordered_matches(is_unordered_tuple({negated, w}),
                                unordered_program("(%y, negative(%x))")));
  // w first takes negative(%x); negated then fails on %x, so w gives that field back with its
  // binding, takes %x, and negated takes negative(%x) with w = %x: a binding of a failed branch
  // must not survive it.
  UnorderedProgram swapped = unordered_program("(negative(%x), %x)");
  Match s = match(is_unordered_tuple({w, negated}), swapped.graph(), swapped.body);
  REQUIRE(s);
  CHECK(s.bound(w) == swapped.graph().fields(swapped.body)[1]);
  CHECK(s.bound(negated) == swapped.graph().fields(swapped.body)[0]);
  // The same wildcard twice matches a tuple of one node twice only.
  CHECK(unordered_matches(is_unordered_tuple({w, w}), unordered_program("(%x, %x)")));
  CHECK_FALSE(unordered_matches(is_unordered_tuple({w, w}), unordered_program("(%x, %y)")));
}

TEST_CASE("unordered tuples nest", "[pattern][matcher][unordered]") {
  Pattern inner_var = is_var(), outer_var = is_var();
  Pattern inner = is_unordered_tuple({is_constant(), inner_var});
  Pattern outer = is_unordered_tuple({inner, outer_var});
  UnorderedProgram p = unordered_program("%0 = (%x, 1f);\n(%y, %0)");
  const relay::Graph& g = p.graph();
  Match m = match(outer, g, p.body);
  REQUIRE(m);
  NodeId inner_tuple = g.fields(p.body)[1];
  CHECK(m.bound(inner) == inner_tuple);
  CHECK(m.bound(inner_var) == g.fields(inner_tuple)[0]);
  CHECK(m.bound(outer_var) == g.fields(p.body)[0]);
  CHECK_FALSE(unordered_matches(outer, unordered_program("%0 = (%x, %z);\n(%y, %0)")));
}

TEST_CASE("unordered tuple text: Relax's spelling, read back equal, bad arguments located",
          "[pattern][text][unordered]") {
  const std::string text = "is_tuple([is_constant(), is_var('x')], unordered=True)";
  Pattern parsed = pattern_of(text);
  CHECK(parsed.kind() == PatternKind::kUnorderedTuple);
  CHECK(describe(parsed) == text);
  CHECK(describe(pattern_of(describe(parsed))) == text);
  CHECK(describe(pattern_of("UnorderedTuplePattern([is_constant(), is_var('x')])")) == text);
  CHECK(describe(is_unordered_tuple({wildcard(), wildcard()})) ==
        "is_tuple([wildcard(), wildcard()], unordered=True)");
  CHECK(describe(pattern_of("is_tuple([wildcard()], unordered=False)")) ==
        "is_tuple([wildcard()])");

  struct BadUnordered {
    std::string text;
    std::string message;
  };
  const std::vector<BadUnordered> table = {
      {"is_tuple([wildcard()], unordered=1)",
       "[graphpat.pattern_text.bad_argument] 1:34: unordered must be a bool, got an int"},
      {"is_tuple(None, unordered=True)",
       "[graphpat.pattern_text.bad_argument] 1:10: an unordered tuple takes a list of fields, "
       "not None"},
  };
  for (const BadUnordered& bad : table) {
    INFO(bad.text);
    absl::StatusOr<Pattern> pattern = parse_pattern(bad.text);
    REQUIRE_FALSE(pattern.ok());
    CHECK(std::string(pattern.status().message()) == bad.message);
  }
  std::string many = "is_tuple([wildcard()";
  for (std::size_t i = 1; i <= kMaxUnorderedFields; ++i) many += ", wildcard()";
  absl::StatusOr<Pattern> too_many = parse_pattern(many + "], unordered=True)");
  REQUIRE_FALSE(too_many.ok());
  CHECK(std::string(too_many.status().message()) ==
        "[graphpat.pattern_text.bad_argument] 1:10: an unordered tuple has at most 255 fields, "
        "got 256");
}

TEST_CASE("explain: no assignment, and the field limit", "[pattern][matcher][unordered]") {
  UnorderedProgram p = unordered_program("(%x, %y)");
  CHECK(explain(is_unordered_tuple({is_constant(), is_var()}), p.graph(), p.body) ==
        fmt::format("no assignment of the 2 field patterns to the fields of {} = (...): field "
                    "pattern 0 matched none of the fields left to it",
                    p.body));
  Pattern w = wildcard();
  CHECK(explain(is_unordered_tuple({w, w}), p.graph(), p.body) ==
        fmt::format("no assignment of the 2 field patterns to the fields of {} = (...): field "
                    "pattern 1 matched none of the fields left to it",
                    p.body));
  // Inside an ordered pattern, the context is added as for any field.
  UnorderedProgram q = unordered_program("%0 = (%x, %y);\n(%0, %z)");
  NodeId inner = q.graph().fields(q.body)[0];
  CHECK(explain(is_tuple({is_unordered_tuple({is_constant(), is_var()}), wildcard()}), q.graph(),
                q.body) ==
        fmt::format("no assignment of the 2 field patterns to the fields of {} = (...): field "
                    "pattern 0 matched none of the fields left to it; in field 0 of {} = (...)",
                    inner, q.body));
  std::vector<Pattern> too_many(kMaxUnorderedFields + 1, wildcard());
  CHECK(explain(is_unordered_tuple(too_many), p.graph(), p.body) ==
        "an unordered tuple pattern has at most 255 fields, this one 256");
}

TEST_CASE("unordered tuple on another dialect", "[pattern][matcher][unordered]") {
  ArithGraph graph;
  ArithBuilder b(graph);
  NodeId x = b.var("x"), y = b.var("y");
  NodeId product = b.call("mul", {x, y});
  NodeId pair = b.tuple({x, product});
  Pattern v = wildcard();
  Pattern pattern = is_unordered_tuple({v * wildcard(), v});
  Match m = match(pattern, graph, pair);
  REQUIRE(m);
  CHECK(m.bound(v) == x);
  CHECK_FALSE(match(is_unordered_tuple({is_op("add")(any_args), v}), graph, pair));
}

TEST_CASE("unordered tuple: a factorial search stops at the step limit",
          "[pattern][matcher][unordered]") {
  // Nineteen interchangeable wildcards and a constant pattern against twenty vars: every one
  // of the 20!/1 orders of the wildcards fails at the last field, so only the limit ends it.
  std::string fields, params;
  for (int i = 0; i < 20; ++i) {
    fields += fmt::format("{}%v{}", i == 0 ? "" : ", ", i);
    params += fmt::format("{}%v{}: float32", i == 0 ? "" : ", ", i);
  }
  relay::Module module = parse_module_text(
      fmt::format("#[version = \"0.0.5\"]\ndef @main({}) {{\n({})\n}}", params, fields));
  NodeId body = module.graph.body(*module.find("main"));
  std::vector<Pattern> patterns;
  for (int i = 0; i < 19; ++i) patterns.push_back(wildcard());
  patterns.push_back(is_constant());
  Pattern hostile = is_unordered_tuple(patterns);

  Matcher<relay::Dialect> limited(hostile, module.graph,
                                  {.relay_compat = false, .max_steps = 10'000});
  CHECK_FALSE(limited.match(body));
  REQUIRE(limited.stopped().size() == 1);
  CHECK(limited.stopped()[0] == body);
  CHECK(limited.explain(body) ==
        "stopped without an answer at the step limit (MatchOptions::max_steps = 10000)");
  Matcher<relay::Dialect> by_default(hostile, module.graph);
  CHECK_FALSE(by_default.match(body));
  CHECK(by_default.stopped().size() == 1);
  Matcher<relay::Dialect> fine(is_unordered_tuple(std::vector<Pattern>(20, wildcard())),
                               module.graph);
  CHECK_FALSE(fine.match(body));  // one wildcard for twenty different vars
}
