// The C++ DSL: every pattern kind spelled as TVM users know it, identity of handles across
// graph merges, and agreement with the text syntax (same describe()).
#include <string>

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
  w.redirect_to(cast | is_op("nn.dense")(wildcard(), wildcard()));
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
