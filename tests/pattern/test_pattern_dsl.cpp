// The C++ DSL: every pattern kind spelled as TVM users know it, identity of handles across
// graph merges, and agreement with the text syntax (same describe()); handles that always name
// a node, and redirects that refuse a cycle consuming no node.
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "pattern/corpus_support.hpp"

using namespace graphpat;
using namespace graphpat::dsl;
using namespace graphpat::testing;

TEST_CASE("the DSL builds what the text syntax builds", "[pattern][dsl]") {
  struct Pair {
    Pattern built;
    const char* text;
  };
  Pattern x = wildcard(), y = wildcard();
  Pattern conv = is_op("nn.conv2d")(wildcard(), wildcard());
  Pattern w = wildcard();
  Pattern cast = is_op("cast")(w);
  REQUIRE(w.redirect_to(cast | is_op("nn.dense")(wildcard(), wildcard())).ok());
  const Pair pairs[] = {
      {wildcard(), "wildcard()"},
      {is_op("nn.conv2d"), "is_op('nn.conv2d')"},
      {is_var("x"), "is_var('x')"},
      {is_constant(), "is_constant()"},
      {is_op("add")(wildcard(), wildcard()), "is_op('add')(wildcard(), wildcard())"},
      {wildcard()(any_args), "wildcard()(None)"},
      {is_tuple({wildcard(), is_var()}), "is_tuple([wildcard(), is_var()])"},
      {is_tuple(any_args), "is_tuple(None)"},
      {is_tuple_get_item(wildcard(), 0), "is_tuple_get_item(wildcard(), 0)"},
      {is_tuple_get_item(wildcard()), "is_tuple_get_item(wildcard())"},
      {is_if(wildcard(), wildcard(), wildcard()), "is_if(wildcard(), wildcard(), wildcard())"},
      {is_let(is_var(), wildcard(), wildcard()), "is_let(is_var(), wildcard(), wildcard())"},
      {function_pattern({x}, is_op("nn.relu")(x)),
       "x = wildcard()\nFunctionPattern([x], is_op('nn.relu')(x))"},
      {function_pattern(any_args, wildcard()), "FunctionPattern(None, wildcard())"},
      {is_var() | is_constant(), "is_var() | is_constant()"},
      {is_var() & !is_var("x"), "is_var() & ~is_var('x')"},
      {conv.optional([](const Pattern& p) { return is_op("nn.bias_add")(p, wildcard()); }),
       "c = is_op('nn.conv2d')(wildcard(), wildcard())\nc.optional(lambda x: "
       "is_op('nn.bias_add')(x, wildcard()))"},
      {conv.optional(is_op("nn.relu")),
       "c = is_op('nn.conv2d')(wildcard(), wildcard())\nc | is_op('nn.relu')(c)"},
      {conv.has_attr({{"data_layout", "NCHW"}, {"kernel_size", {3, 3}}, {"groups", 1}}),
       "is_op('nn.conv2d')(wildcard(), wildcard()).has_attr({'data_layout': 'NCHW', 'kernel_size': "
       "[3, 3], 'groups': 1})"},
      {has_type(tensor_type({10, 10}, "float32")),
       "has_type(relay.TensorType((10, 10), 'float32'))"},
      {has_dtype("float16"), "has_dtype('float16')"},
      {has_shape({1, 64, 56, 56}), "has_shape([1, 64, 56, 56])"},
      {dominates(conv, is_op("nn.relu")(wildcard()), is_op("add")(any_args)),
       "dominates(is_op('nn.conv2d')(wildcard(), wildcard()), is_op('nn.relu')(wildcard()), "
       "is_op('add')(None))"},
      {is_op("add")(any_args).dominates(conv),
       "is_op('add')(None).dominates(is_op('nn.conv2d')(wildcard(), wildcard()))"},
      {(x + y) * (x - y) / x, "x = wildcard()\ny = wildcard()\n(x + y) * (x - y) / x"},
      {cast,
       "w = wildcard()\nc = is_op('cast')(w)\nw.redirect_to(c | is_op('nn.dense')(wildcard(), "
       "wildcard()))\nc"},
  };
  for (const Pair& pair : pairs) {
    INFO(pair.text);
    CHECK(describe(pair.built) == describe(pattern_of(pair.text)));
  }
}

TEST_CASE("a handle is one pattern node, however graphs were merged", "[pattern][dsl]") {
  Pattern x = wildcard();
  Pattern y = wildcard();
  Pattern a = is_op("add")(x, y);       // merges x's and y's graphs
  Pattern s = is_op("subtract")(x, y);  // another graph holding x and y again
  Pattern product = a * s;              // merges both: x and y must stay single nodes
  // x, y, the three op patterns and the three calls: x and y are not duplicated.
  CHECK(product.graph().post_order(product.id()).size() == 8);
  const PatternGraph& graph = product.graph();
  PatternId add_node = graph.operands(product.id())[1];
  PatternId sub_node = graph.operands(product.id())[2];
  CHECK(graph.operands(add_node)[1] == graph.operands(sub_node)[1]);
  CHECK(graph.operands(add_node)[1] == x.id());
  Pattern copy = x;
  CHECK(copy.same_as(x));
  CHECK_FALSE(x.same_as(y));
  CHECK(x.uid() != y.uid());
  // Matching sees the sharing: (x + y) * (x - y) needs the same x on both sides.
  relay::Module m = parse_module_text(
      "#[version = \"0.0.5\"]\ndef @main(%a, %b, %c) { multiply(add(%a, %b), subtract(%c, %b)) }");
  CHECK_FALSE(match(product, m.graph, m.graph.body(*m.find("main"))));
}

TEST_CASE("a handle always names a pattern node", "[pattern][dsl]") {
  // No empty handle can be made (issue 21: a default-constructed Pattern crashed the DSL in a
  // Release build), and moving copies, so a handle moved from still names its node.
  STATIC_REQUIRE_FALSE(std::is_default_constructible_v<Pattern>);
  Pattern x = wildcard();
  Pattern moved = std::move(x);
  CHECK(x.same_as(moved));  // NOLINT(bugprone-use-after-move): what is checked
  CHECK(describe(x + moved) == "p0 = wildcard()\nis_op('add')(p0, p0)");
}

TEST_CASE("redirect_to refuses a cycle that consumes no node", "[pattern][dsl][recursion]") {
  // Each would be tried at the same graph node for ever (issue 21: memory grew to bad_alloc).
  const std::string prefix =
      "[graphpat.pattern.unconsumed_cycle] the redirect closes a cycle that "
      "consumes no node (";
  const std::string suffix = "): each turn would match the same node again";
  Pattern w = wildcard();
  absl::Status status = w.redirect_to(w);
  CHECK(std::string(status.message()) == prefix + "WildcardPattern -> WildcardPattern" + suffix);
  status = w.redirect_to(w | is_op("nn.relu")(w));
  CHECK(std::string(status.message()) ==
        prefix + "WildcardPattern -> AltPattern -> WildcardPattern" + suffix);
  status = w.redirect_to(is_op("nn.relu")(wildcard()) | (w & is_var()).has_dtype("float32"));
  CHECK(std::string(status.message()) ==
        prefix + "WildcardPattern -> AltPattern -> DataTypePattern -> AndPattern -> " +
            "WildcardPattern" + suffix);
  status = w.redirect_to(!w.has_attr({{"a", 1}}));
  CHECK(std::string(status.message()) ==
        prefix + "WildcardPattern -> NotPattern -> AttrPattern -> WildcardPattern" + suffix);
  status = w.redirect_to(
      w.optional(is_op("nn.relu")).has_shape({1}).has_type(tensor_type({1}, "float32")));
  CHECK(std::string(status.message()) ==
        prefix + "WildcardPattern -> TypePattern -> ShapePattern -> AltPattern -> " +
            "WildcardPattern" + suffix);
  status = w.redirect_to(dominates(wildcard(), wildcard(), w));
  CHECK(std::string(status.message()) ==
        prefix + "WildcardPattern -> DominatorPattern -> WildcardPattern" + suffix);
  // a -> b -> a: the second redirect closes the cycle.
  Pattern a = wildcard();
  Pattern b = wildcard();
  REQUIRE(a.redirect_to(b).ok());
  status = b.redirect_to(a);
  CHECK(std::string(status.message()) ==
        prefix + "WildcardPattern -> WildcardPattern -> WildcardPattern" + suffix);
  // A refused redirect leaves the pattern as it was: w is still a plain wildcard.
  CHECK(describe(w) == "wildcard()");
  CHECK(describe(b) == "wildcard()");
  CHECK(std::string(is_op("add").redirect_to(w).message()) ==
        "[graphpat.pattern.redirect_not_wildcard] only a wildcard can be redirected, not "
        "OpPattern");

  // Cycles through a node-consuming operand are recursion that ends: TVM's
  // test_rewrite_with_pattern_recursion shape, a tuple field, a tuple item's tuple, a
  // dominator's parent and path, a function's body.
  Pattern r = wildcard();
  CHECK(r.redirect_to(is_op("add")(r, wildcard()) | wildcard()).ok());
  for (const auto& make : std::vector<std::function<Pattern(const Pattern&)>>{
           [](const Pattern& p) { return is_tuple({p}) | wildcard(); },
           [](const Pattern& p) { return is_tuple_get_item(p, 0) | wildcard(); },
           [](const Pattern& p) { return dominates(p, wildcard(), is_op("nn.relu")(any_args)); },
           [](const Pattern& p) { return dominates(wildcard(), p, wildcard()); },
           [](const Pattern& p) { return function_pattern(any_args, p) | wildcard(); },
           [](const Pattern& p) { return p(wildcard()) | is_op("nn.relu"); }}) {
    Pattern q = wildcard();
    CHECK(q.redirect_to(make(q)).ok());
  }
  relay::Module m =
      parse_module_text("#[version = \"0.0.5\"]\ndef @main(%a, %b) { add(add(%a, %b), %b) }");
  CHECK(match(r, m.graph, m.graph.body(*m.find("main"))));
}
