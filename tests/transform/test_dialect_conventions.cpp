// The dialect seam (issue 22): the engines take every name from the dialect. On the arith test
// dialect, whose conventions name nothing of Relay's, the DSL's `*` is `mul`, and partition,
// MergeComposite and rewrite write arith's own attributes and parameter names; a dialect that
// declares no conventions gets the neutral defaults. Expected graphs are built with the Builder
// and compared structurally. And the engines' headers (pattern/, transform/, analysis/) name no
// Relay op or attribute in their code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>
#include <graphpat/pattern/explain.hpp>
#include <graphpat/pattern/matcher.hpp>
#include <graphpat/rewrite.hpp>
#include <graphpat/transform/cse.hpp>
#include <graphpat/transform/merge_composite.hpp>
#include <graphpat/transform/partition.hpp>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/arith_dialect.hpp"

using namespace graphpat;
using namespace graphpat::dsl;
using testing::ArithBuilder;
using testing::ArithDialect;
using testing::ArithGraph;
using ArithModule = Module<ArithDialect>;

namespace {

/// arith's ops with no conventions declared: the neutral defaults.
struct BareArithDialect {
  static constexpr std::string_view kName = "bare_arith";
  static void register_ops(Context& context) { ArithDialect::register_ops(context); }
};

/// arith's conventions plus Relay's associativity retries.
struct RetryingArithDialect {
  static constexpr std::string_view kName = "retrying_arith";
  static constexpr DialectConventions kConventions = [] {
    DialectConventions conventions = ArithDialect::kConventions;
    conventions.associativity_retries = true;
    return conventions;
  }();
  static void register_ops(Context& context) { ArithDialect::register_ops(context); }
};

/// The attribute object arith's partition gives an outlined function.
AttrValueId arith_function_attrs(
    ArithGraph& graph,
    std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  AttrTable& attrs = graph.context().attrs;
  std::vector<AttrField> built;
  for (const auto& [key, value] : fields) {
    built.push_back({graph.context().strings.intern(key), attrs.string(value)});
  }
  return attrs.object("arith.FunctionAttrs", built);
}

void check_equal(const ArithModule& actual, const ArithModule& expected) {
  auto difference = first_difference(actual, expected);
  INFO((difference ? difference->reason : std::string("equal")));
  CHECK_FALSE(difference.has_value());
  CHECK(verify(actual).ok());
}

}  // namespace

TEST_CASE("the DSL's arithmetic sugar is the matched dialect's op", "[dialect][pattern]") {
  ArithGraph graph;
  ArithBuilder b(graph);
  NodeId x = b.var("x"), y = b.var("y");
  NodeId product = b.call("mul", {x, y});
  NodeId sum = b.call("add", {x, y});
  NodeId difference = b.call("sub", {x, y});
  NodeId quotient = b.call("div", {x, y});
  Pattern a = wildcard(), c = wildcard();
  CHECK(match(a * c, graph, product));
  CHECK_FALSE(match(a * c, graph, sum));
  CHECK(match(a + c, graph, sum));
  CHECK(match(a - c, graph, difference));
  CHECK(match(a / c, graph, quotient));
  CHECK_FALSE(match(is_op("multiply")(a, c), graph, product));  // Relay's name is not arith's
  CHECK(explain(a * c, graph, sum) == "expected op mul, got add");

  // describe() spells the sugar as the dialect does; without one, as Relay (the text syntax).
  CHECK(describe<ArithDialect>(a * c) == "is_op('mul')(wildcard(), wildcard())");
  CHECK(describe(a * c) == "is_op('multiply')(wildcard(), wildcard())");
  CHECK(describe<relay::Dialect>(a / c) == "is_op('divide')(wildcard(), wildcard())");
  // The text syntax's `*` is the same sugar.
  absl::StatusOr<Pattern> parsed = parse_pattern("wildcard() * wildcard()");
  REQUIRE(parsed.ok());
  CHECK(match(*parsed, graph, product));
}

TEST_CASE("a dialect without conventions: the sugar matches nothing and says why",
          "[dialect][pattern]") {
  Graph<BareArithDialect> graph;
  Builder<BareArithDialect> b(graph);
  NodeId product = b.call("mul", {b.var("x"), b.var("y")});
  NodeId op = graph.callee(product);
  Pattern a = wildcard(), c = wildcard();
  CHECK_FALSE(match(a * c, graph, product));
  CHECK(explain(a * c, graph, product) ==
        "expected the op of '*', which dialect bare_arith does not name, got mul");
  CHECK(describe<BareArithDialect>(a * c) == "is_op('')(wildcard(), wildcard())");
  // Nor does has_attr on an op read any property.
  CHECK_FALSE(match(is_op("mul").has_attr({{"TOpPattern", 0}}), graph, op));
  CHECK(match(is_op("mul")(a, c), graph, product));
}

TEST_CASE("op properties are read under the dialect's attribute names", "[dialect][pattern]") {
  ArithGraph graph;
  ArithBuilder b(graph);
  NodeId draw = b.call("rand", {b.var("seed")});
  NodeId op = graph.callee(draw);
  CHECK(match(is_op("rand").has_attr({{"arith.stateful", 1}}), graph, op));
  CHECK(match(wildcard().has_attr({{"arith.kind", 0}})(any_args), graph, draw));  // kElemWise
  CHECK_FALSE(match(is_op("rand").has_attr({{"TOpIsStateful", 1}}), graph, op));
  CHECK_FALSE(match(is_op("rand").has_attr({{"TOpPattern", 0}}), graph, op));
}

TEST_CASE("associativity retries only where the dialect asks for them", "[dialect][pattern]") {
  // (a * b) / c also matches b * (a / c) in Relay; arith does not opt in, so it does not.
  Pattern a = wildcard(), p = wildcard(), c = wildcard();
  Pattern pattern = (a * p) / c;
  ArithGraph arith;
  ArithBuilder ab(arith);
  NodeId at_arith = ab.call("mul", {ab.var("y"), ab.call("div", {ab.var("x"), ab.var("z")})});
  CHECK_FALSE(match(pattern, arith, at_arith));
  Graph<RetryingArithDialect> retrying;
  Builder<RetryingArithDialect> rb(retrying);
  NodeId x = rb.var("x"), y = rb.var("y"), z = rb.var("z");
  NodeId at_retrying = rb.call("mul", {y, rb.call("div", {x, z})});
  Match found = match(pattern, retrying, at_retrying);
  REQUIRE(found);
  CHECK(found.bound(a) == x);
  CHECK(found.bound(p) == y);
  CHECK(found.bound(c) == z);
}

TEST_CASE("partition outlines with the dialect's attributes and parameter names",
          "[dialect][partition]") {
  ArithModule input;
  {
    ArithBuilder b(input.graph);
    NodeId x = b.var("x"), y = b.var("y"), z = b.var("z");
    input.add_function("main", b.function({x, y, z}, b.call("add", {b.call("mul", {x, y}), z})));
  }
  PartitionResult<ArithDialect> result =
      partition(wildcard() * wildcard(), input, {.attrs = {{"arith.target", "dsp"}}});
  CHECK(result.report.accepted == 1);

  // fn (%x, %y, %z) {
  //   %0 = fn (%in0_0, %in0_1, arith.FunctionAttrs{arith.outlined_from="mul_",
  //            arith.target="dsp"}) { mul(%in0_0, %in0_1) };
  //   add(%0(%x, %y), %z)
  // }
  ArithModule expected;
  ArithBuilder b(expected.graph);
  NodeId x = b.var("x"), y = b.var("y"), z = b.var("z");
  NodeId p0 = b.var("in0_0"), p1 = b.var("in0_1");
  NodeId outlined =
      b.function({p0, p1}, b.call("mul", {p0, p1}),
                 {.attrs = arith_function_attrs(
                      expected.graph, {{"arith.outlined_from", "mul_"}, {"arith.target", "dsp"}})});
  expected.add_function("main",
                        b.function({x, y, z}, b.call("add", {b.call(outlined, {x, y}), z})));
  check_equal(result.module, expected);

  // The names themselves, read back from the result.
  const ArithGraph& out = result.module.graph;
  NodeId main_body = out.body(*result.module.find("main"));
  NodeId function = out.callee(out.args(main_body)[0]);
  REQUIRE(out.kind(function) == NodeKind::kFunction);
  CHECK(out.context().attrs.text(out.attrs(function)) == "arith.FunctionAttrs");
  CHECK(out.name(out.params(function)[0]) == "in0_0");
  CHECK(out.name(out.params(function)[1]) == "in0_1");

  // The function made is opaque to a second partition: it carries arith.outlined_from.
  PartitionResult<ArithDialect> again = partition(wildcard() * wildcard(), result.module);
  CHECK(again.report.accepted == 0);
  check_equal(again.module, expected);
}

TEST_CASE("MergeComposite marks with the dialect's composite key and skips its opaque functions",
          "[dialect][merge_composite]") {
  ArithModule input;
  {
    ArithBuilder b(input.graph);
    NodeId x = b.var("x"), y = b.var("y"), z = b.var("z");
    input.add_function("main", b.function({x, y, z}, b.call("add", {b.call("mul", {x, y}), z})));
    NodeId u = b.var("u"), v = b.var("v");
    AttrTable& attrs = input.graph.context().attrs;
    AttrField external{input.graph.context().strings.intern("arith.external"), attrs.string("dsp")};
    input.add_function("external",
                       b.function({u, v}, b.call("add", {b.call("mul", {u, v}), v}),
                                  {.attrs = attrs.object("arith.FunctionAttrs", {&external, 1})}));
  }
  std::vector<CompositePattern<ArithDialect>> table = {
      {.name = "mul_add", .pattern = wildcard() * wildcard() + wildcard()}};
  PartitionResult<ArithDialect> result = merge_composite(table, input);
  CHECK(result.report.accepted == 1);

  // @main's mul-add becomes a composite; @external, carrying arith.external, is left alone.
  ArithModule expected;
  ArithBuilder b(expected.graph);
  NodeId x = b.var("x"), y = b.var("y"), z = b.var("z");
  NodeId p0 = b.var("in0_0"), p1 = b.var("in0_1"), p2 = b.var("in0_2");
  NodeId composite = b.function(
      {p0, p1, p2}, b.call("add", {b.call("mul", {p0, p1}), p2}),
      {.attrs = arith_function_attrs(
           expected.graph, {{"arith.outlined_from", "mul_add_"}, {"arith.composite", "mul_add"}})});
  expected.add_function("main", b.function({x, y, z}, b.call(composite, {x, y, z})));
  NodeId u = b.var("u"), v = b.var("v");
  expected.add_function(
      "external",
      b.function({u, v}, b.call("add", {b.call("mul", {u, v}), v}),
                 {.attrs = arith_function_attrs(expected.graph, {{"arith.external", "dsp"}})}));
  check_equal(result.module, expected);
}

TEST_CASE("rewrite replaces what the DSL's sugar matched in the dialect", "[dialect][rewrite]") {
  // a * b - c  ->  add(mul(a, b), neg(c))
  ArithGraph graph;
  NodeId root;
  {
    ArithBuilder b(graph);
    NodeId x = b.var("x"), y = b.var("y"), z = b.var("z");
    root = b.call("sub", {b.call("mul", {x, y}), z});
  }
  Pattern a = wildcard(), p = wildcard(), c = wildcard();
  Pattern product = a * p;
  std::vector<RewriteCallback<ArithDialect>> callbacks = {
      {.pattern = product - c,
       .rewrite = [&](NodeId, NodeId, const RewriteBindings& bindings,
                      Rewriter<ArithDialect>& rewriter) {
         Builder<ArithDialect>& b = rewriter.builder();
         return b.call("add", {bindings.bound(product), b.call("neg", {bindings.bound(c)})});
       }}};
  RewriteResult<ArithDialect> result = rewrite(callbacks, graph, root);
  CHECK(result.converged);
  CHECK(result.rewrites == 1);

  ArithGraph expected;
  ArithBuilder b(expected);
  NodeId x = b.var("x"), y = b.var("y"), z = b.var("z");
  NodeId expected_root = b.call("add", {b.call("mul", {x, y}), b.call("neg", {z})});
  auto difference = first_difference(result.graph, result.root, expected, expected_root);
  INFO((difference ? difference->reason : std::string("equal")));
  CHECK_FALSE(difference.has_value());
}

namespace {

/// `source` with its comments blanked out (string and character literals kept).
std::string code_only(std::string_view source) {
  std::string code;
  enum class State { kCode, kString, kCharacter, kLineComment, kBlockComment } state = State::kCode;
  for (std::size_t i = 0; i < source.size(); ++i) {
    char ch = source[i];
    char next = i + 1 < source.size() ? source[i + 1] : '\0';
    switch (state) {
      case State::kCode:
        if (ch == '/' && next == '/') {
          state = State::kLineComment;
          continue;
        }
        if (ch == '/' && next == '*') {
          state = State::kBlockComment;
          ++i;
          continue;
        }
        if (ch == '"') state = State::kString;
        if (ch == '\'') state = State::kCharacter;
        break;
      case State::kString:
      case State::kCharacter:
        if (ch == '\\') {
          code += ch;
          code += next;
          ++i;
          continue;
        }
        if (ch == (state == State::kString ? '"' : '\'')) state = State::kCode;
        break;
      case State::kLineComment:
        if (ch != '\n') continue;
        state = State::kCode;
        break;
      case State::kBlockComment:
        if (ch == '*' && next == '/') {
          state = State::kCode;
          ++i;
        }
        if (ch != '\n') continue;
        break;
    }
    code += ch;
  }
  return code;
}

}  // namespace

TEST_CASE("the engines' code names no op or attribute of Relay", "[dialect][source]") {
  // Quoted op names (identifiers such as `multiply_retry` are the engines' own words) and
  // Relay's attribute keys, parameter prefix and op namespace anywhere in code.
  const std::vector<std::string> relay_names = {"\"add\"",
                                                "\"subtract\"",
                                                "\"multiply\"",
                                                "\"divide\"",
                                                "TOpPattern",
                                                "TOpIsStateful",
                                                "DictAttrs",
                                                "FunctionVar_",
                                                "PartitionedFromPattern",
                                                "\"Composite\"",
                                                "\"Compiler\"",
                                                "\"Extern\"",
                                                "\"SkipOptimization\"",
                                                "\"Primitive\"",
                                                "\"nn."};
  CHECK(code_only("x = \"add\"; // \"divide\"\n/* \"nn.relu\" */ y = '\"';") ==
        "x = \"add\"; \n y = '\"';");
  std::size_t headers = 0;
  std::string found;  // "path:line: code" of each offending line
  for (const char* layer : {"pattern", "transform", "analysis"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(
             std::filesystem::path(GRAPHPAT_INCLUDE_DIR) / "graphpat" / layer)) {
      if (entry.path().extension() != ".hpp") continue;
      ++headers;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      std::string code = code_only(text.str());
      std::size_t line = 1, start = 0;
      while (start < code.size()) {
        std::size_t end = code.find('\n', start);
        if (end == std::string::npos) end = code.size();
        std::string_view code_line(code.data() + start, end - start);
        for (const std::string& name : relay_names) {
          if (code_line.find(name) == std::string_view::npos) continue;
          found += entry.path().string() + ":" + std::to_string(line) + ": " +
                   std::string(code_line) + "\n";
        }
        start = end + 1;
        ++line;
      }
    }
  }
  CHECK(headers >= 20);
  CHECK(found == "");
}
