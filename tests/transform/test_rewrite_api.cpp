// The rewrite API a user meets (issue 22): rewrite(callbacks, module) over every function of a
// module, named callbacks with a benefit and their per-callback counts, and Rewriter::call, the
// one-line replacement call with attributes. Expected values are derived by hand from the
// inputs (counted in the input text, or written out).
#include <string>
#include <string_view>
#include <vector>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/pattern.hpp>
#include <graphpat/rewrite.hpp>

#include "support/arith_dialect.hpp"
#include "support/test_files.hpp"

using namespace graphpat;
using namespace graphpat::dsl;
using namespace graphpat::testing;

namespace {

using Callback = RewriteCallback<relay::Dialect>;
using Rw = Rewriter<relay::Dialect>&;

/// add(a, b) -> `op`(a, b).
Callback add_to(std::string name, std::string op, int benefit = 0) {
  return {.name = std::move(name),
          .pattern = is_op("add")(wildcard(), wildcard()),
          .rewrite = [op](NodeId, NodeId post, const RewriteBindings&, Rw rw) {
            auto args = rw.graph().args(post);
            return rw.builder().call(op, {args[0], args[1]});
          },
          .benefit = benefit};
}

std::string_view op_of(const relay::Graph& graph, NodeId call) {
  return graph.context().op_name(graph.called_op(call));
}

relay::Module parse(std::string_view text) {
  auto module = relay::parse_text(text);
  REQUIRE(module.ok());
  return std::move(*module);
}

}  // namespace

TEST_CASE("rewrite(callbacks, module) rewrites every function of a corpus model",
          "[rewrite][module]") {
  const std::string text = read_file(kCorpus / "models" / "resnet18.unbound.relay");
  const std::size_t relus = count_of(text, "nn.relu(");
  const std::size_t convs = count_of(text, "nn.conv2d(");
  // Counted by reading the file: relus %5, %9, ..., %85, one per line; 21 conv2d lines.
  REQUIRE(relus == 18);
  REQUIRE(convs == 21);
  relay::Module module = parse(text);
  Pattern input = wildcard();
  std::vector<Callback> callbacks = {
      {.name = "relu_to_leaky",
       .pattern = is_op("nn.relu")(input),
       .rewrite = [input](NodeId, NodeId post, const RewriteBindings& bound, Rw rw) {
         auto leaky = rw.call("nn.leaky_relu", {bound.bound(input)},
                              {{"alpha", rw.attrs().floating(0.125, 64)}});
         return leaky.ok() ? *leaky : post;
       }}};
  ModuleRewriteResult<relay::Dialect> result = rewrite(callbacks, module);
  CHECK(result.converged);
  CHECK(result.iterations == 2);  // the second finds no relu left
  CHECK(result.applications == 2);
  CHECK(result.rewrites == relus);
  REQUIRE(result.callbacks.size() == 1);
  CHECK(result.callbacks[0].name == "relu_to_leaky");
  CHECK(result.callbacks[0].applications == 2);
  CHECK(result.callbacks[0].rewrites == relus);
  CHECK(verify(result.module).ok());
  auto printed = relay::print_text(result.module);
  REQUIRE(printed.ok());
  CHECK(count_of(*printed, "nn.relu(") == 0);
  CHECK(count_of(*printed, "nn.leaky_relu(") == relus);
  CHECK(count_of(*printed, "alpha=0.125f") == relus);
  CHECK(count_of(*printed, "nn.conv2d(") == convs);
  // The same rewrite of the function alone gives the same function.
  auto alone = rewrite(callbacks, module.graph, *module.find("main"));
  CHECK(structural_equal(alone.graph, alone.root, result.module.graph,
                         *result.module.find("main")));
}

TEST_CASE("rewrite(callbacks, module) keeps calls between functions and leaves opaque ones",
          "[rewrite][module]") {
  const relay::Module module = parse(R"(#[version = "0.0.5"]
def @f(%a) {
  add(%a, %a)
}

def @ext(%b, Compiler="ccompiler") {
  %0 = add(%b, %b);
  %1 = add(%b, %b);
  multiply(%0, %1)
}

def @main(%x) {
  %0 = negative(%x);
  %1 = negative(%x);
  %2 = @f(%0);
  add(%2, %1)
}
)");
  const std::string expected_f_and_ext = R"(#[version = "0.0.5"]
def @f(%a) {
  subtract(%a, %a)
}

def @ext(%b, Compiler="ccompiler") {
  %0 = add(%b, %b);
  %1 = add(%b, %b);
  multiply(%0, %1)
}

)";
  // By default the two negative(%x) of @main are merged first; under relay_compat they stay.
  const relay::Module expected_merged = parse(expected_f_and_ext + R"(def @main(%x) {
  %0 = negative(%x);
  %1 = @f(%0);
  subtract(%1, %0)
}
)");
  const relay::Module expected_as_given = parse(expected_f_and_ext + R"(def @main(%x) {
  %0 = negative(%x);
  %1 = negative(%x);
  %2 = @f(%0);
  subtract(%2, %1)
}
)");
  std::vector<Callback> callbacks = {add_to("add_to_subtract", "subtract")};
  for (bool relay_compat : {false, true}) {
    INFO("relay_compat " << relay_compat);
    auto result = rewrite(callbacks, module, {.relay_compat = relay_compat});
    CHECK(result.converged);
    CHECK(result.rewrites == 2);  // @f's add and @main's; @ext's two are not searched
    CHECK(verify(result.module).ok());
    CHECK(structural_equal(result.module, relay_compat ? expected_as_given : expected_merged));
    CHECK_FALSE(structural_equal(expected_as_given, expected_merged));  // sharing is compared
    const relay::Graph& graph = result.module.graph;
    std::vector<std::string_view> names;
    for (const GlobalFunction& function : result.module.functions()) {
      names.push_back(result.module.name(function));
    }
    CHECK(names == std::vector<std::string_view>{"f", "ext", "main"});
    // @main still calls @f by name.
    NodeId main_body = graph.body(*result.module.find("main"));
    NodeId call_f = graph.args(main_body)[0];
    REQUIRE(graph.kind(graph.callee(call_f)) == NodeKind::kGlobalVar);
    CHECK(graph.name(graph.callee(call_f)) == "f");
    // @ext's duplicates stay two nodes in either mode; @main's negatives are merged first by
    // default, and only then.
    NodeId ext_body = graph.body(*result.module.find("ext"));
    CHECK(graph.args(ext_body)[0] != graph.args(ext_body)[1]);
    CHECK(result.report.cse.merged == (relay_compat ? 0u : 1u));
    CHECK((graph.args(call_f)[0] == graph.args(main_body)[1]) == !relay_compat);
  }
}

TEST_CASE("calls callbacks build are nodes of their own in TVM's mode and merged by default",
          "[rewrite][module]") {
  // Two relus of one %x, each rewritten into leaky_relu(%x, alpha=0.5): TVM's callbacks return
  // two Call objects, so add reads two nodes; merged first, the relus are one and so is the call.
  const relay::Module module =
      parse("def @main(%x) {\n  %0 = nn.relu(%x);\n  %1 = nn.relu(%x);\n  add(%0, %1)\n}\n");
  Callback leaky{.name = "leaky",
                 .pattern = is_op("nn.relu")(wildcard()),
                 .rewrite = [](NodeId, NodeId post, const RewriteBindings&, Rw rw) {
                   absl::StatusOr<NodeId> made =
                       rw.call("nn.leaky_relu", {rw.graph().args(post)[0]},
                               {{"alpha", rw.attrs().floating(0.5, 64)}});
                   return made.ok() ? *made : post;
                 }};
  for (bool relay_compat : {true, false}) {
    CAPTURE(relay_compat);
    auto result = rewrite({leaky}, module, {.relay_compat = relay_compat});
    CHECK(result.rewrites == (relay_compat ? 2u : 1u));
    const relay::Graph& graph = result.module.graph;
    NodeId add = graph.body(*result.module.find("main"));
    auto args = graph.args(add);
    CHECK(op_of(graph, args[0]) == "nn.leaky_relu");
    CHECK((args[0] != args[1]) == relay_compat);
    CHECK(structural_equal(graph, args[0], graph, args[1]));
    auto text = relay::print_text(result.module, relay::TextEnvelope::kStr);
    REQUIRE(text.ok());
    CHECK(*text == (relay_compat ? "def @main(%x) {\n  %0 = nn.leaky_relu(%x, alpha=0.5f);\n"
                                   "  %1 = nn.leaky_relu(%x, alpha=0.5f);\n  add(%0, %1)\n}\n"
                                 : "def @main(%x) {\n  %0 = nn.leaky_relu(%x, alpha=0.5f);\n"
                                   "  add(%0, %0)\n}\n"));
  }
}

TEST_CASE("a module rewrite that changes nothing gives the input module back",
          "[rewrite][module]") {
  const relay::Module module = parse("def @main(%x) {\n  negative(%x)\n}\n");
  auto result = rewrite({add_to("add_to_subtract", "subtract")}, module, {.relay_compat = true});
  CHECK(result.converged);
  CHECK(result.iterations == 1);
  CHECK(result.rewrites == 0);
  CHECK(result.module.graph.size() == module.graph.size());
  CHECK(result.module.roots() == module.roots());
}

TEST_CASE("the higher benefit is applied first; equal benefits keep list order",
          "[rewrite][benefit]") {
  const relay::Module module = parse("def @main(%x, %y) {\n  add(%x, %y)\n}\n");
  struct Case {
    std::vector<Callback> callbacks;
    std::string_view op;  // what add(%x, %y) becomes
    std::size_t winner;   // the index of the callback that rewrote it
  };
  const std::vector<Case> cases = {
      {{add_to("to_multiply", "multiply"), add_to("to_subtract", "subtract", 1)}, "subtract", 1},
      {{add_to("to_subtract", "subtract", 1), add_to("to_multiply", "multiply")}, "subtract", 0},
      {{add_to("to_multiply", "multiply", -1), add_to("to_subtract", "subtract", -2)},
       "multiply", 0},
      {{add_to("to_multiply", "multiply"), add_to("to_subtract", "subtract")}, "multiply", 0},
      {{add_to("to_subtract", "subtract"), add_to("to_multiply", "multiply")}, "subtract", 0},
  };
  for (const Case& c : cases) {
    INFO(c.callbacks[0].name << " " << c.callbacks[0].benefit << ", " << c.callbacks[1].name
                             << " " << c.callbacks[1].benefit);
    auto result = rewrite(c.callbacks, module);
    const relay::Graph& graph = result.module.graph;
    CHECK(op_of(graph, graph.body(*result.module.find("main"))) == c.op);
    // Two iterations (the second changes nothing), each applying both callbacks.
    CHECK(result.iterations == 2);
    CHECK(result.applications == 4);
    CHECK(result.rewrites == 1);
    REQUIRE(result.callbacks.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(result.callbacks[k].name == c.callbacks[k].name);
      CHECK(result.callbacks[k].applications == 2);
      CHECK(result.callbacks[k].rewrites == (k == c.winner ? 1u : 0u));
    }
  }
}

TEST_CASE("Rewriter::call builds the call the reader reads, or says why not",
          "[rewrite][call]") {
  const relay::Module module = parse("def @main(%x, %w) {\n  nn.conv2d(%x, %w)\n}\n");
  const relay::Module strided =
      parse("def @main(%x, %w) {\n  nn.conv2d(%x, %w, strides=[2, 2])\n}\n");
  Pattern x = wildcard(), w = wildcard();
  std::vector<std::string> errors;
  auto call_with = [&](std::string op, std::vector<std::pair<std::string_view, AttrValueId>>
                                           (*fields)(AttrTable&)) {
    return Callback{.pattern = is_op("nn.conv2d")(x, w),
                    .rewrite = [=, &errors](NodeId, NodeId post, const RewriteBindings& bound,
                                            Rw rw) {
                      auto written = fields(rw.attrs());
                      auto call = rw.call(op, std::vector<NodeId>{bound.bound(x), bound.bound(w)},
                                          written);
                      if (call.ok()) return *call;
                      errors.push_back(message(call.status()));
                      return post;
                    }};
  };
  SECTION("strides written as a field, every other field at its default") {
    auto result = rewrite({call_with("nn.conv2d",
                                     [](AttrTable& attrs) {
                                       return std::vector<std::pair<std::string_view, AttrValueId>>{
                                           {"strides",
                                            attrs.array({attrs.integer(2), attrs.integer(2)})}};
                                     })},
                          module);
    CHECK(errors.empty());
    CHECK(result.converged);
    CHECK(result.callbacks[0].rewrites == 1);  // the second iteration builds the same node
    CHECK(structural_equal(result.module, strided));  // attributes compared field by field
  }
  SECTION("a required field left out") {
    auto result = rewrite({call_with("nn.dense", [](AttrTable&) {
                             return std::vector<std::pair<std::string_view, AttrValueId>>{};
                           })},
                          module);
    CHECK(result.rewrites == 0);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] ==
          "[graphpat.relay_text.missing_attribute] relay.attrs.DenseAttrs: cannot find required "
          "field 'units' of nn.dense");
  }
  SECTION("a value the field cannot hold") {
    auto result = rewrite({call_with("nn.conv2d",
                                     [](AttrTable& attrs) {
                                       return std::vector<std::pair<std::string_view, AttrValueId>>{
                                           {"groups", attrs.string("a")}};
                                     })},
                          module);
    CHECK(result.rewrites == 0);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] ==
          "[graphpat.relay_text.bad_attribute] relay.attrs.Conv2DAttrs: attribute 'groups' of "
          "nn.conv2d (int) cannot hold a string");
  }
}

TEST_CASE("Rewriter::call refuses an op that is not registered, building nothing",
          "[rewrite][call]") {
  relay::Graph graph;
  relay::Builder builder(graph);
  NodeId x = builder.var("x");
  Rewriter<relay::Dialect> rewriter(graph);
  const std::size_t ops = graph.context().ops.size();
  REQUIRE(graph.size() == 1);

  // A typo of nn.relu, with and without fields.
  auto typo = rewriter.call("nn.rleu", {x}, {});
  CHECK(message(typo.status()) ==
        "[graphpat.relay_text.unregistered_op] no op nn.rleu is registered in dialect relay");
  auto with_field = rewriter.call("nn.rleu", {x}, {{"alpha", rewriter.attrs().integer(1)}});
  CHECK(message(with_field.status()) ==
        "[graphpat.relay_text.unregistered_op] no op nn.rleu is registered in dialect relay");
  CHECK(graph.size() == 1);
  CHECK(graph.context().ops.size() == ops);
  CHECK_FALSE(graph.context().ops.find("nn.rleu").valid());

  // The opaque op made on purpose: x %0, the op %1, the call %2 with its field kept as written.
  NodeId fused = rewriter.builder().opaque_op("vendor.fused");
  CHECK(fused == NodeId(1));
  auto call = rewriter.call("vendor.fused", {x}, {{"k", rewriter.attrs().integer(1)}});
  REQUIRE(call.ok());
  CHECK(*call == NodeId(2));
  CHECK(graph.callee(*call) == fused);
  CHECK(to_string(graph.context(), graph.attrs(*call)) == "{k=1}");
}

TEST_CASE("rewrite(callbacks, module) runs in another dialect", "[rewrite][module][dialect]") {
  Module<ArithDialect> input;
  {
    ArithBuilder b(input.graph);
    NodeId x = b.var("x"), y = b.var("y");
    input.add_function("main", b.function({x, y}, b.call("sub", {b.call("mul", {x, y}), y})));
    NodeId u = b.var("u"), v = b.var("v");
    AttrTable& attrs = input.graph.context().attrs;
    AttrField external{input.graph.context().strings.intern("arith.external"), attrs.string("dsp")};
    input.add_function("external",
                       b.function({u, v}, b.call("sub", {b.call("mul", {u, v}), v}),
                                  {.attrs = attrs.object("arith.FunctionAttrs", {&external, 1})}));
  }
  Pattern product = wildcard() * wildcard(), c = wildcard();
  std::vector<RewriteCallback<ArithDialect>> callbacks = {
      {.name = "sub_to_add_neg",
       .pattern = product - c,
       .rewrite = [&](NodeId, NodeId, const RewriteBindings& bound,
                      Rewriter<ArithDialect>& rewriter) {
         Builder<ArithDialect>& b = rewriter.builder();
         return b.call("add", {bound.bound(product), b.call("neg", {bound.bound(c)})});
       }}};
  ModuleRewriteResult<ArithDialect> result = rewrite(callbacks, input);
  CHECK(result.converged);
  CHECK(result.rewrites == 1);
  CHECK(result.callbacks[0].rewrites == 1);
  const ArithGraph& graph = result.module.graph;
  NodeId main_body = graph.body(*result.module.find("main"));
  CHECK(graph.context().op_name(graph.called_op(main_body)) == "add");
  CHECK(graph.context().op_name(graph.called_op(graph.args(main_body)[1])) == "neg");
  NodeId external_body = graph.body(*result.module.find("external"));
  CHECK(graph.context().op_name(graph.called_op(external_body)) == "sub");
}

TEST_CASE("a rewrite's refusals say which callback they come from", "[rewrite][report]") {
  ArithGraph graph;
  ArithBuilder b(graph);
  NodeId x = b.var("x"), y = b.var("y");
  NodeId sum = b.call("add", {x, y});
  NodeId negated = b.call("neg", {sum});
  NodeId both = b.tuple(std::vector<NodeId>{negated, sum});
  NodeId main = b.function({x, y}, both);
  auto keep = [](NodeId, NodeId post, const RewriteBindings&, Rewriter<ArithDialect>&) {
    return post;
  };
  // Callback 1's neg(add(...)) matches at `negated`, but the add is also a field of the tuple,
  // which `negated` does not post-dominate: the group is refused, for callback 1.
  std::vector<RewriteCallback<ArithDialect>> callbacks = {
      {.name = "subs", .pattern = is_op("sub")(wildcard(), wildcard()), .rewrite = keep},
      {.name = "negated sums", .pattern = is_op("neg")(is_op("add")(wildcard(), wildcard())),
       .rewrite = keep}};
  auto result = rewrite(callbacks, graph, main, {.relay_compat = true});
  REQUIRE(result.report.rejected.size() == 1);
  const RejectedGroup& refused = result.report.rejected[0];
  CHECK(refused.entry == 1);
  CHECK(refused.reason == RejectionReason::kUsedOutside);
  CHECK(refused.root == negated);  // nothing changed and nothing was merged: the input's ids
  CHECK(refused.node == sum);
  CHECK(refused.user == both);
  CHECK(result.report.accepted == 0);
  CHECK(result.callbacks[1].applications == 1);
}
