// The pattern text syntax: golden describe() texts, golden explain() texts, describe -> parse
// -> describe stability, and malformed patterns with their exact located errors.
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "pattern/corpus_support.hpp"
#include "support/timing.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

struct Golden {
  const char* text;
  const char* described;
};

// describe() of each text, written from describe.hpp's rules: TVM's Python spelling, sugar
// expanded, shared nodes named p0, p1, ... in order of definition, redirects last.
const Golden kDescribe[] = {
    {"wildcard()", "wildcard()"},
    {"is_op(\"add\")", "is_op('add')"},
    {"is_var()", "is_var()"},
    {"is_var(name=\"x\")", "is_var('x')"},
    {"is_constant()", "is_constant()"},
    {"wildcard()(None)", "wildcard()(None)"},
    {"is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
     "wildcard()), 0)",
     "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
     "wildcard()), 0)"},
    {"is_tuple_get_item(wildcard())", "is_tuple_get_item(wildcard())"},
    {"TupleGetItemPattern(wildcard(), 1)", "is_tuple_get_item(wildcard(), 1)"},
    {"is_tuple_get_item(wildcard(), -1)", "is_tuple_get_item(wildcard())"},  // TVM's "any"
    {"is_op('concatenate')(is_tuple(None))", "is_op('concatenate')(is_tuple(None))"},
    {"is_tuple((is_var(\"x\"), wildcard()))", "is_tuple([is_var('x'), wildcard()])"},
    {"TuplePattern([])", "is_tuple([])"},
    {"CallPattern(is_op('nn.relu'), [wildcard()])", "is_op('nn.relu')(wildcard())"},
    {"(is_op('nn.relu') | is_op('clip'))(wildcard())",
     "(is_op('nn.relu') | is_op('clip'))(wildcard())"},
    {"is_op('nn.conv2d')(wildcard(), wildcard()).has_attr({'kernel_size': [3, 3]})",
     "is_op('nn.conv2d')(wildcard(), wildcard()).has_attr({'kernel_size': [3, 3]})"},
    {"has_dtype(\"float32\")", "wildcard().has_dtype('float32')"},
    {"has_shape((10, 10))", "wildcard().has_shape([10, 10])"},
    {"has_type(relay.TensorType((10, 10), \"float32\"))",
     "wildcard().has_type(relay.TensorType([10, 10], 'float32'))"},
    {"has_type('Tensor[(1, ?), int8]')",
     "wildcard().has_type(relay.TensorType([1, relay.Any()], 'int8'))"},
    {"has_type('(float32, Tensor[(2), int8])')",
     "wildcard().has_type(relay.TupleType([relay.TensorType([], 'float32'), relay.TensorType([2], "
     "'int8')]))"},
    {"x = wildcard()\ny = wildcard()\n(x + y) * (x - y)",
     "p0 = wildcard()\np1 = wildcard()\n"
     "is_op('multiply')(is_op('add')(p0, p1), is_op('subtract')(p0, p1))"},
    {"is_op('nn.conv2d')(wildcard(), wildcard()).optional(lambda x: is_op('nn.bias_add')(x, "
     "wildcard())).optional(lambda x: is_op('nn.relu')(x))",
     "p0 = is_op('nn.conv2d')(wildcard(), wildcard())\n"
     "p1 = p0 | is_op('nn.bias_add')(p0, wildcard())\n"
     "p1 | is_op('nn.relu')(p1)"},
    {"is_op('nn.conv2d')(wildcard(), wildcard()).optional(is_op('nn.relu'))",
     "p0 = is_op('nn.conv2d')(wildcard(), wildcard())\np0 | is_op('nn.relu')(p0)"},
    {"~is_op('nn.relu')(wildcard()) & is_constant()",
     "~is_op('nn.relu')(wildcard()) & is_constant()"},
    {"!(is_var() | is_constant())", "~(is_var() | is_constant())"},
    {"is_var() | is_constant() & wildcard()", "is_var() | is_constant() & wildcard()"},
    {"(is_var() | is_constant()) & wildcard()", "(is_var() | is_constant()) & wildcard()"},
    {"(is_var() | is_constant()) | wildcard()", "is_var() | is_constant() | wildcard()"},
    {"is_var() | (is_constant() | wildcard())", "is_var() | (is_constant() | wildcard())"},
    {"FunctionPattern(None, wildcard() + wildcard())(None) + wildcard()",
     "is_op('add')(FunctionPattern(None, is_op('add')(wildcard(), wildcard()))(None), wildcard())"},
    {"a = wildcard()\nFunctionPattern([a], is_op('nn.relu')(a))",
     "p0 = wildcard()\nFunctionPattern([p0], is_op('nn.relu')(p0))"},
    {"is_conv2d = is_op(\"nn.conv2d\")(wildcard(), wildcard())\n"
     "is_unary_elemwise = (wildcard().has_attr({\"TOpPattern\": 0}))(wildcard())\n"
     "reduction = is_op(\"add\")(wildcard(), wildcard())\n"
     "dominates(is_conv2d, is_unary_elemwise, reduction)",
     "dominates(is_op('nn.conv2d')(wildcard(), wildcard()), "
     "wildcard().has_attr({'TOpPattern': 0})(wildcard()), is_op('add')(wildcard(), wildcard()))"},
    {"is_op('add')(None).dominates(is_op('nn.conv2d')(None))",
     "dominates(is_op('nn.conv2d')(None), wildcard(), is_op('add')(None))"},
    {"dense_pattern = is_op(\"nn.dense\")(wildcard(), wildcard())\n"
     "wildcard_redirect = wildcard()\n"
     "the_pattern = is_op(\"cast\")(wildcard_redirect)\n"
     "the_pattern2 = the_pattern | dense_pattern\n"
     "wildcard_redirect.redirect_to(the_pattern2)\n"
     "the_pattern",
     "p0 = wildcard()\np1 = is_op('cast')(p0)\n"
     "p0.redirect_to(p1 | is_op('nn.dense')(wildcard(), wildcard()))\np1"},
    {"x = is_var(\"x\")\ny = is_var(\"y\")\nis_if(is_op(\"less\")(x, y), x, y)",
     "p0 = is_var('x')\np1 = is_var('y')\nis_if(is_op('less')(p0, p1), p0, p1)"},
    {"v = is_var('let')\nis_let(v, is_op('less')(wildcard(), wildcard()), v)",
     "p0 = is_var('let')\nis_let(p0, is_op('less')(wildcard(), wildcard()), p0)"},
    {"wildcard().has_attr({'alpha': 0.5, 'layout': \"N'C\", 'flag': True, 'eps': 1e-05, 'x': None, "
     "'n': -3})",
     "wildcard().has_attr({'alpha': 0.5, 'layout': 'N\\'C', 'flag': True, 'eps': 1e-05, 'x': None, "
     "'n': -3})"},
    {"is_op('cast')(wildcard()).has_attr({'dtype': 'float32'}).has_dtype('float32')",
     "is_op('cast')(wildcard()).has_attr({'dtype': 'float32'}).has_dtype('float32')"},
    {"# a comment\nc = is_op('nn.conv2d')(wildcard(), wildcard())  # the conv\n\nis_op('add')(c, "
     "c)",
     "p0 = is_op('nn.conv2d')(wildcard(), wildcard())\nis_op('add')(p0, p0)"},
};

}  // namespace

TEST_CASE("describe() writes the pattern in the text syntax", "[pattern][text][describe]") {
  int count = 0;
  for (const Golden& golden : kDescribe) {
    INFO(golden.text);
    Pattern pattern = pattern_of(golden.text);
    CHECK(describe(pattern) == golden.described);
    // describe -> parse -> describe is stable.
    CHECK(describe(pattern_of(describe(pattern))) == describe(pattern));
    ++count;
  }
  CHECK(count >= 20);
}

TEST_CASE("describe() names is_expr patterns by the names they were given",
          "[pattern][text][describe]") {
  auto zero = relay::parse_expression("0f");
  REQUIRE(zero.ok());
  PatternParseOptions options;
  options.names.insert_or_assign("zero", dsl::is_expr(zero->module.graph, zero->root, "zero"));
  Pattern pattern = pattern_of("x = wildcard()\nx + is_expr(zero)", options);
  CHECK(describe(pattern) == "is_op('add')(wildcard(), is_expr(zero))");
  CHECK(describe(pattern_of(describe(pattern), options)) == describe(pattern));
}

TEST_CASE("describe() of a pattern built a million deep in code does not recurse",
          "[pattern][text][describe][large]") {
  // The text parser refuses such nesting (max_depth), the DSL does not; describe() once
  // recursed per level. relu(...) and (... | is_constant()) alternate: an alternation is a
  // call's argument and a call the left of `|`, neither in parentheses.
  constexpr int kPairs = 500'000;
  Pattern pattern = dsl::wildcard();
  for (int i = 0; i < kPairs; ++i) pattern = dsl::is_op("nn.relu")(pattern) | dsl::is_constant();
  std::string expected;
  for (int i = 0; i < kPairs; ++i) expected += "is_op('nn.relu')(";
  expected += "wildcard()";
  for (int i = 0; i < kPairs; ++i) expected += ") | is_constant()";
  CHECK(describe(pattern) == expected);
}

TEST_CASE("explain() gives the first failing path in words", "[pattern][text][explain]") {
  relay::Module module = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(4, 8), float32], %b: Tensor[(4), float32]) {
  %0 = nn.dense(%x, %w, units=None) /* ty=Tensor[(1, 4), float32] */;
  %1 = nn.bias_add(%0, %b) /* ty=Tensor[(1, 4), float32] */;
  %2 = nn.relu(%1) /* ty=Tensor[(1, 4), float32] */;
  %3 = (%2, %1);
  %4 = %3.1;
  %5 = multiply(%4, 2f);
  add(%2, %5)
})");
  const relay::Graph& g = module.graph;
  NodeId main = *module.find("main");
  NodeId root = g.body(main);
  NodeId relu = g.args(root)[0], mul = g.args(root)[1];
  NodeId item = g.args(mul)[0], tuple = g.tuple(item);
  NodeId bias = g.args(relu)[0], dense = g.args(bias)[0];
  NodeId x = g.args(dense)[0];
  struct Case {
    std::string pattern;
    NodeId at;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"is_op('nn.bias_add')(is_op('nn.conv2d')(wildcard(), wildcard()), wildcard())", bias,
       fmt::format("expected op nn.conv2d, got nn.dense; in operand 0 of {} = nn.bias_add(...)",
                   bias)},
      {"is_op('add')(wildcard(), wildcard())", root, "matched"},
      {"is_op('subtract')(wildcard(), wildcard())", root, "expected op subtract, got add"},
      {"is_op('nn.relu')(wildcard())", x, "expected a call, got var %x"},
      {"is_op('add')(wildcard())", root,
       fmt::format("expected 1 argument, got 2 in {} = add(...)", root)},
      {"is_tuple([wildcard()])", tuple,
       fmt::format("expected 1 field, got 2 in {} = (...)", tuple)},
      {"is_tuple_get_item(wildcard(), 0)", item,
       fmt::format("expected index 0, got 1 in {} = {}.1", item, tuple)},
      {"is_tuple_get_item(is_tuple([is_op('nn.relu')(wildcard()), is_constant()]))", item,
       fmt::format("expected a constant, got {} = nn.bias_add(...); in field 1 of {} = (...); "
                   "in the tuple of {} = {}.1",
                   bias, tuple, item, tuple)},
      {"is_var('y')", x, "expected var %y, got var %x"},
      {"is_constant()", x, "expected a constant, got var %x"},
      {"wildcard().has_dtype('int8')", relu,
       fmt::format("dtype of {} = nn.relu(...) is float32, expected int8", relu)},
      {"has_shape([1, 8])", relu,
       fmt::format("type of {} = nn.relu(...) is Tensor[(1, 4), float32], expected shape (1, 8)",
                   relu)},
      {"has_type('Tensor[(1, 4), float16]')", relu,
       fmt::format("type of {} = nn.relu(...) is Tensor[(1, 4), float32], expected "
                   "Tensor[(1, 4), float16]",
                   relu)},
      {"has_dtype('float32')", tuple,
       fmt::format("{} = (...) has no type (the matcher reads stored types and infers none)",
                   tuple)},
      {"is_op('nn.dense')(wildcard(), wildcard()).has_attr({'units': 4})", dense,
       fmt::format("attribute units of {} = nn.dense(...) is None, expected 4", dense)},
      {"is_op('nn.dense')(wildcard(), wildcard()).has_attr({'color': 'red'})", dense,
       fmt::format("{} = nn.dense(...) has no attribute color", dense)},
      {"is_op('nn.relu').has_attr({'TOpPattern': 1})(wildcard())", relu,
       "attribute TOpPattern of op nn.relu is 0, expected 1"},
      {"wildcard().has_attr({'Composite': 'x'})", x,
       "attributes belong to ops, calls and functions, got var %x"},
      {"x = wildcard()\nis_op('add')(x, x)", root,
       fmt::format("expected the node this pattern already bound ({} = nn.relu(...)), got {} = "
                   "multiply(...); in operand 1 of {} = add(...)",
                   relu, mul, root)},
      {"~is_op('add')(wildcard(), wildcard())", root,
       fmt::format("matched a negated pattern at {} = add(...)", root)},
      {"is_op('nn.relu')(wildcard()) | is_op('nn.sigmoid')(wildcard())", bias,
       "expected op nn.relu, got nn.bias_add"},
      {"dominates(is_op('nn.conv2d')(None), wildcard(), is_op('add')(None))", root,
       fmt::format("{} = nn.dense(...) has no input on a dominator path; "
                   "on the dominator path at operand 0 of {} = nn.bias_add(...); "
                   "on the dominator path at operand 0 of {} = nn.relu(...); "
                   "on the dominator path at operand 0 of {} = add(...)",
                   dense, bias, relu, root)},
      {"is_op('multiply')(wildcard(), is_constant())", mul, "matched"},
      {"FunctionPattern([wildcard()], wildcard())", main,
       fmt::format("expected 1 parameter, got 3 in {} = fn (...)", main)},
      {"FunctionPattern(None, is_op('nn.relu')(wildcard()))", main,
       fmt::format("expected op nn.relu, got add; in the body of {} = fn (...)", main)},
  };
  for (const Case& c : cases) {
    INFO(c.pattern);
    Pattern pattern = pattern_of(c.pattern);
    CHECK(explain(pattern, g, c.at) == c.expected);
    CHECK(describe(pattern_of(describe(pattern))) == describe(pattern));
  }
  CHECK(cases.size() >= 20);
}

TEST_CASE("malformed patterns give located errors with stable ids", "[pattern][text][errors]") {
  struct Bad {
    std::string text;
    std::string message;
  };
  const std::vector<Bad> table = {
      {"", "[graphpat.pattern_text.no_pattern] 1:1: the text holds no pattern"},
      {"wildcard(",
       "[graphpat.pattern_text.unexpected_end] 1:10: unexpected end of the text where an "
       "expression should start"},
      {"is_op('add'",
       "[graphpat.pattern_text.unexpected_end] 1:12: expected ')' after call arguments, found end "
       "of the text"},
      {"foo()", "[graphpat.pattern_text.unknown_name] 1:1: unknown name 'foo'"},
      {"is_op()",
       "[graphpat.pattern_text.argument_count] 1:1: is_op() is missing its argument 'op_name'"},
      {"is_op(1)",
       "[graphpat.pattern_text.bad_argument] 1:7: the op name must be a string, got an int"},
      {"is_op('')", "[graphpat.pattern_text.bad_argument] 1:7: the op name is empty"},
      {"wildcard() +",
       "[graphpat.pattern_text.unexpected_end] 1:13: unexpected end of the text where an "
       "expression should start"},
      {"wildcard() + 1",
       "[graphpat.pattern_text.bad_operand] 1:12: '+' needs two patterns, got a pattern and an "
       "int"},
      {"is_op('add')(wildcard(), 3)",
       "[graphpat.pattern_text.not_a_pattern] 1:26: a call argument must be a pattern, got an int"},
      {"is_op('add')(None, wildcard())",
       "[graphpat.pattern_text.not_a_pattern] 1:14: a call argument must be a pattern, got None"},
      {"wildcard().has_attr(['x'])",
       "[graphpat.pattern_text.bad_attribute] 1:21: has_attr takes a dict, got a list"},
      {"wildcard().has_attr({1: 2})",
       "[graphpat.pattern_text.bad_attribute] 1:22: attribute names must be strings"},
      {"wildcard().has_attr({'a': wildcard()})",
       "[graphpat.pattern_text.bad_attribute] 1:27: an attribute value cannot be a pattern"},
      {"wildcard().has_attr({'a': [1, wildcard()]})",
       "[graphpat.pattern_text.bad_attribute] 1:31: an attribute value cannot be a pattern"},
      {"d = {'a': wildcard()}\nwildcard().has_attr(d)",
       "[graphpat.pattern_text.bad_attribute] 2:21: an attribute value cannot be a pattern"},
      {"wildcard().has_shape(3)",
       "[graphpat.pattern_text.bad_shape] 1:22: a shape is a list of dims, got an int"},
      {"wildcard().has_shape([1.5])",
       "[graphpat.pattern_text.bad_shape] 1:22: a dim is an int, relay.Any() or a name, got a "
       "float"},
      {"has_type('Tensor[(1, 2), float32')",
       "[graphpat.pattern_text.bad_type] 1:10: 'Tensor[(1, 2), float32' is not a Relay type"},
      {"has_type(3)", "[graphpat.pattern_text.bad_type] 1:10: expected a type, got an int"},
      {"wildcard().frobnicate()",
       "[graphpat.pattern_text.unknown_method] 1:12: patterns have no method 'frobnicate'"},
      {"is_op('add').redirect_to(wildcard())",
       "[graphpat.pattern_text.redirect_not_wildcard] 1:14: only a wildcard can be redirected, not "
       "OpPattern"},
      {"x = wildcard()",
       "[graphpat.pattern_text.no_pattern] 1:1: the last line must be the pattern expression, not "
       "an assignment"},
      {"3", "[graphpat.pattern_text.not_a_pattern] 1:1: the last line is an int, not a pattern"},
      {"is_op('add') = wildcard()",
       "[graphpat.pattern_text.bad_assignment] 1:14: only a plain name can be assigned to"},
      {"wildcard() wildcard()",
       "[graphpat.pattern_text.unexpected_token] 1:12: unexpected name 'wildcard' after an "
       "expression"},
      {"is_op('add)",
       "[graphpat.pattern_text.unterminated_string] 1:7: string is not closed on its line"},
      {"wildcard() $",
       "[graphpat.pattern_text.unexpected_character] 1:12: unexpected character '$'"},
      {"is_tuple_get_item(wildcard(), 'a')",
       "[graphpat.pattern_text.bad_argument] 1:31: the index must be an int or None, got a string"},
      {"is_tuple(wildcard())",
       "[graphpat.pattern_text.bad_argument] 1:10: the tuple fields must be a list of patterns or "
       "None, got a pattern"},
      {"is_tuple([wildcard(), 1])",
       "[graphpat.pattern_text.not_a_pattern] 1:10: the tuple fields must hold patterns, got an "
       "int"},
      {"wildcard().optional(3)",
       "[graphpat.pattern_text.bad_argument] 1:21: optional takes a lambda or a pattern, got an "
       "int"},
      {"wildcard().optional(lambda: wildcard())",
       "[graphpat.pattern_text.bad_lambda] 1:27: a lambda takes exactly one parameter name"},
      {"wildcard().optional(lambda x: 3)",
       "[graphpat.pattern_text.not_a_pattern] 1:21: the lambda's result must be a pattern, got an "
       "int"},
      {"is_var(name=1)",
       "[graphpat.pattern_text.bad_argument] 1:13: the var name must be a string, got an int"},
      {"is_var(nme='x')",
       "[graphpat.pattern_text.bad_argument] 1:12: is_var() has no parameter 'nme'"},
      {"is_op('a', 'b')",
       "[graphpat.pattern_text.argument_count] 1:12: is_op() takes 1 argument, got 2"},
      {"is_expr(x)", "[graphpat.pattern_text.unknown_name] 1:9: unknown name 'x'"},
      {"is_expr(wildcard())",
       "[graphpat.pattern_text.bad_expr] 1:9: is_expr takes an expression given in "
       "PatternParseOptions::names"},
      {"3(wildcard())", "[graphpat.pattern_text.not_callable] 1:1: an int cannot be called"},
      {"-wildcard()",
       "[graphpat.pattern_text.bad_operand] 1:1: unary '-' needs a number, got a pattern"},
      {"~3", "[graphpat.pattern_text.bad_operand] 1:1: '~' needs a pattern, got an int"},
      {std::string(300, '(') + "wildcard()" + std::string(300, ')'),
       "[graphpat.pattern_text.too_deep] 1:258: nesting deeper than 256 levels (max_depth)"},
      {"1x", "[graphpat.pattern_text.bad_number] 1:1: malformed number '1x'"},
      {"x = wildcard()\ny = is_op('add')(x, z)",
       "[graphpat.pattern_text.unknown_name] 2:21: unknown name 'z'"},
      {"wildcard()[0]",
       "[graphpat.pattern_text.unsupported] 1:11: subscripts are not part of the pattern syntax"},
      {"relay.Foo()", "[graphpat.pattern_text.unknown_name] 1:7: unknown name 'relay.Foo'"},
      {"is_op('add')(wildcard(), name=wildcard())",
       "[graphpat.pattern_text.bad_argument] 1:1: a pattern call takes no keyword arguments"},
      {"is_op('add')(is_var(), wildcard(),",
       "[graphpat.pattern_text.unexpected_end] 1:35: unexpected end of the text where an "
       "expression should start"},
      // A recursion that consumes no node (issue 21), refused at the redirect_to.
      {"w = wildcard()\nw.redirect_to(w)\nw",
       "[graphpat.pattern_text.unconsumed_cycle] 2:3: the redirect closes a cycle that consumes "
       "no node (WildcardPattern -> WildcardPattern): each turn would match the same node again"},
      {"w = wildcard()\nw.redirect_to(w | is_op('nn.relu')(w))\nw",
       "[graphpat.pattern_text.unconsumed_cycle] 2:3: the redirect closes a cycle that consumes "
       "no node (WildcardPattern -> AltPattern -> WildcardPattern): each turn would match the "
       "same node again"},
      {"a = wildcard()\nb = wildcard()\na.redirect_to(b)\nb.redirect_to(a)\na",
       "[graphpat.pattern_text.unconsumed_cycle] 4:3: the redirect closes a cycle that consumes "
       "no node (WildcardPattern -> WildcardPattern -> WildcardPattern): each turn would match "
       "the same node again"},
      // -1 is TVM's "any index"; no other negative index exists.
      {"is_tuple_get_item(wildcard(), -2)",
       "[graphpat.pattern_text.bad_index] 1:31: a tuple index is 0 or more, or -1 or None for "
       "any index, got -2"},
      {"TupleGetItemPattern(wildcard(), index=-9223372036854775807)",
       "[graphpat.pattern_text.bad_index] 1:39: a tuple index is 0 or more, or -1 or None for "
       "any index, got -9223372036854775807"},
      // Prefix operators are nesting (unlike a chain of binary operators or postfix links).
      {std::string(300, '~') + "wildcard()",
       "[graphpat.pattern_text.too_deep] 1:258: nesting deeper than 256 levels (max_depth)"},
      // A malformed token after a syntax error is reported first, as before tokens were cut
      // on demand.
      {"wildcard() wildcard() 'x",
       "[graphpat.pattern_text.unterminated_string] 1:23: string is not closed on its line"},
  };
  for (const Bad& bad : table) {
    INFO(bad.text);
    absl::StatusOr<Pattern> pattern = parse_pattern(bad.text);
    REQUIRE_FALSE(pattern.ok());
    CHECK(std::string(pattern.status().message()) == bad.message);
    CHECK(error_id(pattern.status()).starts_with("graphpat.pattern_text."));
  }
  CHECK(table.size() >= 30);
}

namespace {

std::string repeat(std::string_view piece, std::size_t n) {
  std::string out;
  out.reserve(piece.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += piece;
  return out;
}

// `first` then `link` n times, e.g. chain("a", " | a", 3) == "a | a | a | a".
std::string chain(std::string_view first, std::string_view link, std::size_t n) {
  return std::string(first) + repeat(link, n);
}

}  // namespace

TEST_CASE("a flat chain is not nesting: 300 links of every operator and postfix parse",
          "[pattern][text][limits]") {
  // Issue 21: `a | b | ...` of 300 terms was refused as "nesting deeper than 256 levels".
  constexpr std::size_t kLinks = 300;
  struct Chain {
    std::string text, described;
  };
  const std::string w = "wildcard()";
  const Chain chains[] = {
      {chain(w, " | wildcard()", kLinks), chain(w, " | wildcard()", kLinks)},
      {chain(w, " & wildcard()", kLinks), chain(w, " & wildcard()", kLinks)},
      {chain(w, " + wildcard()", kLinks),
       repeat("is_op('add')(", kLinks) + w + repeat(", wildcard())", kLinks)},
      {chain(w, " * wildcard()", kLinks),
       repeat("is_op('multiply')(", kLinks) + w + repeat(", wildcard())", kLinks)},
      {chain(w, " - wildcard()", kLinks),
       repeat("is_op('subtract')(", kLinks) + w + repeat(", wildcard())", kLinks)},
      {chain(w, " / wildcard()", kLinks),
       repeat("is_op('divide')(", kLinks) + w + repeat(", wildcard())", kLinks)},
      {chain(w, ".has_dtype('float32')", kLinks), chain(w, ".has_dtype('float32')", kLinks)},
      {chain(w, ".has_attr({'a': 1}).has_shape([1])", kLinks),
       chain(w, ".has_attr({'a': 1}).has_shape([1])", kLinks)},
      {chain(w, "(wildcard())", kLinks), chain(w, "(wildcard())", kLinks)},
      {chain("is_op('nn.relu')", "(None)", kLinks), chain("is_op('nn.relu')", "(None)", kLinks)},
  };
  for (const Chain& c : chains) {
    INFO(c.text.substr(0, 40));
    absl::StatusOr<Pattern> pattern = parse_pattern(c.text);
    REQUIRE(pattern.ok());
    CHECK(describe(*pattern) == c.described);
  }
  // Real nesting keeps its limit: 256 levels pass, 257 do not.
  CHECK(parse_pattern(repeat("~", 256) + w).ok());
  CHECK(parse_pattern(repeat("(", 256) + w + repeat(")", 256)).ok());
  CHECK(std::string(parse_pattern(repeat("(", 257) + w + repeat(")", 257)).status().message()) ==
        "[graphpat.pattern_text.too_deep] 1:258: nesting deeper than 256 levels (max_depth)");
}

TEST_CASE("max_nodes stops the reader before it builds the rest", "[pattern][text][limits]") {
  // 2,000,000 alternatives (26 MB) once used 2.2 GB before they were refused; now the count of
  // syntax nodes stops the reader at the limit. Each `wildcard()` is a name and a call, each
  // `|` one node made after its right side: with max_nodes = 30, ten alternatives and their
  // nine `|` make 29, the 11th alternative's name the 30th, and its call, placed where its
  // callee starts (1:131), would be the 31st.
  std::string text = chain("wildcard()", " | wildcard()", 1'999'999);
  absl::StatusOr<Pattern> refused = parse_pattern(text, {.limits = {.max_nodes = 30}});
  CHECK(std::string(refused.status().message()) ==
        "[graphpat.pattern_text.too_many_nodes] 1:131: more than 30 nodes (max_nodes)");
  // A lambda applied many times builds more than its text holds: each application counts.
  std::string lambdas =
      "f = lambda x: x | x | x | x\n" + chain("f(wildcard())", " | f(wildcard())", 9);
  CHECK(parse_pattern(lambdas, {.limits = {.max_nodes = 200}}).ok());
  CHECK(std::string(parse_pattern(lambdas, {.limits = {.max_nodes = 100}}).status().message())
            .starts_with("[graphpat.pattern_text.too_many_nodes] "));
}

TEST_CASE("the pattern reader is linear in its input", "[pattern][text][scaling][timing]") {
  graphpat::testing::keep_freed_memory();
  // Each construct at n and 10 n; time(10 n) / time(n) stays far below the 100 of a quadratic
  // reader (processor time, the small size's best of three runs and the large one's best of
  // two, to keep a loaded machine's noise out; ctest runs it alone, RUN_SERIAL; sizes
  // beyond the caches, whose misses would add to the ratio), and the pattern built has the
  // size the text says.
  struct Construct {
    const char* name;
    std::function<std::string(std::size_t)> text;
    std::function<std::size_t(std::size_t)> nodes;  // pattern nodes reachable from the root
    std::size_t n;
  };
  const Construct constructs[] = {
      {"postfix .has_attr chain",
       [](std::size_t n) { return chain("wildcard()", ".has_attr({'a': 1})", n); },
       [](std::size_t n) { return n + 1; }, 5'000},
      {"postfix call chain", [](std::size_t n) { return chain("wildcard()", "(wildcard())", n); },
       [](std::size_t n) { return 2 * n + 1; }, 5'000},
      {"flat |", [](std::size_t n) { return "a = wildcard()\n" + chain("a", " | a", n); },
       [](std::size_t n) { return n + 1; }, 10'000},
      {"flat +", [](std::size_t n) { return "a = wildcard()\n" + chain("a", " + a", n); },
       [](std::size_t n) { return 2 * n + 1; }, 10'000},
      {"tuple fields",
       [](std::size_t n) { return "a = wildcard()\nis_tuple([a" + repeat(", a", n) + "])"; },
       [](std::size_t) { return std::size_t{2}; }, 20'000},
      {"call arguments",
       [](std::size_t n) {
         return "a = wildcard()\nis_op('concatenate')(a" + repeat(", a", n) + ")";
       },
       [](std::size_t) { return std::size_t{3}; }, 20'000},
      {"lambdas applied in many statements",
       [](std::size_t n) {
         std::string text = "f = lambda x: x.has_dtype('float32')\n";
         for (std::size_t i = 0; i < n; ++i) text += fmt::format("p{} = f(wildcard())\n", i);
         return text + "p0";
       },
       [](std::size_t) { return std::size_t{2}; }, 2'000},
  };
  auto seconds = [](const std::string& text, std::size_t expected_nodes, int runs) {
    double best = 1e9;
    for (int run = 0; run < runs; ++run) {
      std::clock_t start = std::clock();
      absl::StatusOr<Pattern> pattern = parse_pattern(text, {.limits = {.max_nodes = 10'000'000}});
      best = std::min(best, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
      REQUIRE(pattern.ok());
      CHECK(pattern->graph().post_order(pattern->id()).size() == expected_nodes);
    }
    return best;
  };
  for (const Construct& c : constructs) {
    INFO(c.name);
    double small = seconds(c.text(c.n), c.nodes(c.n), 3);
    double large = seconds(c.text(10 * c.n), c.nodes(10 * c.n), 2);
    WARN(c.name << ": " << small << " s at " << c.n << ", " << large << " s at " << 10 * c.n);
    CHECK(large / std::max(small, 1e-4) < 30);
  }
}

TEST_CASE("the pattern reader is linear in prefix operators, which nest",
          "[pattern][text][scaling][timing]") {
  graphpat::testing::keep_freed_memory();
  // Prefix operators nest (max_depth bounds them) but are read and applied in loops: within a
  // raised limit they are linear too, and take no stack per level.
  double small = 0, large = 0;
  for (std::size_t size : {10'000, 100'000}) {
    std::string text = repeat("~", size) + "wildcard()";
    double best = 1e9;
    for (int run = 0; run < (size == 10'000 ? 3 : 2); ++run) {
      std::clock_t start = std::clock();
      absl::StatusOr<Pattern> pattern =
          parse_pattern(text, {.limits = {.max_depth = 200'000, .max_nodes = 10'000'000}});
      best = std::min(best, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
      REQUIRE(pattern.ok());
      CHECK(pattern->graph().post_order(pattern->id()).size() == size + 1);
    }
    (size == 10'000 ? small : large) = best;
  }
  WARN("prefix ~: " << small << " s at 10000, " << large << " s at 100000");
  CHECK(large / std::max(small, 1e-4) < 30);
}
