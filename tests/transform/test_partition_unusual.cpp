// Partition, merge_composite and rewrite with patterns that bind variables, constants, ops,
// functions or everything (issue 21, class 1). What TVM v0.14's PatternGrouper does with them
// (src/relay/ir/dataflow_matcher.cc), which the expected texts below are derived from:
//  - a match whose root the pattern binds by a leaf (wildcard(), is_var(), has_dtype on a
//    wildcard) makes the root an input; MatchExtractor replaces it by its parameter without
//    memoizing it, so no node is assigned the group and nothing is rewritten: no group;
//  - an Op and a Function are never inputs, and a constant bound by is_constant() is embedded,
//    so a match rooted at one is outlined as a call of a function without parameters;
//  - a node an earlier group holds (an op inside its body) is not visited again.
// Where TVM makes an invalid graph, graphpat refuses: a module definition is never a group
// root (TVM's MergeComposite aborts in Downcast<Function>), a Var is never one (it may sit in a
// parameter list), and a group that would pass a variable bound inside it out of its scope is
// refused (escaping_variable). Then every corpus model × such patterns: verify() passes, the
// printed text reads back, and partition-then-inline gives back the (CSE'd) input.
#include <string>
#include <vector>

#include <graphpat/analysis/compact.hpp>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/cse.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/rewrite.hpp>

#include "support/inline_calls.hpp"
#include "support/transform_cases.hpp"

using namespace graphpat;
using namespace graphpat::testing;

namespace {

constexpr const char* kSmall = R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %0 = add(%x, %y);
  multiply(%0, 2f)
}
)";

/// Fails the test unless `module` verifies and its printed text reads back equal.
void require_sound(const relay::Module& module) {
  absl::Status verified = verify(module);
  INFO(verified.ToString());
  REQUIRE(verified.ok());
  absl::StatusOr<std::string> printed = relay::print_text(module);
  INFO(printed.status().ToString());
  REQUIRE(printed.ok());
  const std::string& text = *printed;
  absl::StatusOr<relay::Module> again = relay::parse_text(text);
  INFO(text << "\n" << again.status().ToString());
  REQUIRE(again.ok());
  require_equal(*again, module);
}

/// partition-then-inline gives back `input` (already CSE'd in the default mode); where an
/// interior node is computed twice (report.duplicated), the two agree once CSE'd.
void require_inlines_to(const PartitionResult<relay::Dialect>& result,
                        const relay::Module& input) {
  relay::Module inlined = inline_function_calls(result.module);
  if (result.report.duplicated.empty()) {
    require_equal(inlined, compact(input));
  } else {
    require_equal(eliminate_common_subexpr(inlined).module,
                  eliminate_common_subexpr(input).module);
  }
}

}  // namespace

TEST_CASE("wildcard() outlines only the ops: every other root is its own input",
          "[partition][unusual]") {
  relay::Module input = parse_module_text(kSmall);
  // Each call, variable and constant is bound by the wildcard as the root itself: no group;
  // the ops add and multiply become functions without parameters; @main is a definition.
  relay::Module expected = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %0 = fn (PartitionedFromPattern="") {
    add
  };
  %1 = %0();
  %2 = %1(%x, %y);
  %3 = fn (PartitionedFromPattern="") {
    multiply
  };
  %4 = %3();
  %4(%2, 2f)
}
)");
  for (bool relay_compat : {true, false}) {
    DYNAMIC_SECTION("relay_compat " << relay_compat) {
      auto result = partition(pattern_of("wildcard()"), input, {.relay_compat = relay_compat});
      CHECK(result.report.accepted == 2);
      CHECK(result.report.rejected.empty());
      CHECK(result.report.not_outlined == 6);  // %x, %y, add(..), 2f, multiply(..), @main
      require_equal(result.module, expected);
      require_sound(result.module);
      require_inlines_to(result, input);
    }
  }
}

TEST_CASE("is_var() and has_dtype on a wildcard outline nothing", "[partition][unusual]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) -> Tensor[(2), float32] {
  %0 = add(%x, %y) /* ty=Tensor[(2), float32] */;
  multiply(%0, 2f /* ty=float32 */) /* ty=Tensor[(2), float32] */
}
)");
  NodeId main = *input.find("main");
  struct Case {
    const char* pattern;
    std::uint32_t matches;
  };
  for (Case c : {Case{"is_var()", 2}, Case{"wildcard().has_dtype('float32')", 5}}) {
    for (bool relay_compat : {true, false}) {
      DYNAMIC_SECTION(c.pattern << " relay_compat " << relay_compat) {
        auto result = partition(pattern_of(c.pattern), input, {.relay_compat = relay_compat});
        CHECK(result.report.accepted == 0);
        CHECK(result.report.rejected.empty());
        CHECK(result.report.not_outlined == c.matches);
        CHECK(*result.module.find("main") == main);
        CHECK(result.module.graph.size() == input.graph.size());
        require_sound(result.module);
      }
    }
  }
}

TEST_CASE("is_constant() outlines each constant, as TVM embeds it", "[partition][unusual]") {
  relay::Module input = parse_module_text(kSmall);
  auto result = partition(pattern_of("is_constant()"), input, {.relay_compat = true});
  CHECK(result.report.accepted == 1);
  require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %0 = add(%x, %y);
  %1 = fn (PartitionedFromPattern="") {
    2f
  };
  %2 = %1();
  multiply(%0, %2)
}
)"));
  require_sound(result.module);
  require_inlines_to(result, input);
}

TEST_CASE("an alternation with wildcard(): the add group holds its op, the other op is outlined",
          "[partition][unusual]") {
  relay::Module input = parse_module_text(kSmall);
  auto result = partition(pattern_of("is_op('add')(wildcard(), wildcard()) | wildcard()"), input,
                          {.relay_compat = true});
  CHECK(result.report.accepted == 2);
  // The op add, held by the add group, matches the wildcard too; Relay visits it no more.
  REQUIRE(result.report.rejected.size() == 1);
  CHECK(result.report.rejected[0].reason == RejectionReason::kOverlap);
  CHECK(input.graph.kind(result.report.rejected[0].root) == NodeKind::kOp);
  require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %0 = fn (%a, %b, PartitionedFromPattern="add_") {
    add(%a, %b)
  };
  %1 = %0(%x, %y);
  %2 = fn (PartitionedFromPattern="") {
    multiply
  };
  %3 = %2();
  %3(%1, 2f)
}
)"));
  require_sound(result.module);
  require_inlines_to(result, input);
}

TEST_CASE("merge_composite with a `w: wildcard()` row after a real one", "[partition][unusual]") {
  relay::Module input = parse_module_text(kSmall);
  std::vector<CompositePattern<relay::Dialect>> table = {
      {.name = "add", .pattern = pattern_of("is_op('add')(wildcard(), wildcard())")},
      {.name = "w", .pattern = pattern_of("wildcard()")}};
  for (bool relay_compat : {true, false}) {
    DYNAMIC_SECTION("relay_compat " << relay_compat) {
      auto result = merge_composite(table, input, {.relay_compat = relay_compat});
      CHECK(result.report.accepted == 2);
      // The add composite's function is opaque to the second row; its call, %x, %y, 2f, the
      // multiply call and @main are not outlined.
      CHECK(result.report.not_outlined == 6);
      require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x, %y) {
  %0 = fn (%a, %b, PartitionedFromPattern="add_", Composite="add") {
    add(%a, %b)
  };
  %1 = %0(%x, %y);
  %2 = fn (PartitionedFromPattern="", Composite="w") {
    multiply
  };
  %3 = %2();
  %3(%1, 2f)
}
)"));
      require_sound(result.module);
    }
  }
}

TEST_CASE("a Var or a definition is never replaced, even when no leaf binds it",
          "[partition][unusual]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  nn.relu(%x)
}
)");
  // ~is_op('nn.dense') binds nothing: it matches %x and @main as roots (neither outlined), and
  // the op nn.relu (outlined).
  auto result = partition(pattern_of("~is_op('nn.dense')"), input, {.relay_compat = true});
  CHECK(result.report.not_outlined == 2);
  // The relu call's group would hold %x, a parameter of @main.
  REQUIRE(result.report.rejected.size() == 1);
  CHECK(result.report.rejected[0].reason == RejectionReason::kUsedOutside);
  CHECK(input.graph.kind(result.report.rejected[0].node) == NodeKind::kVar);
  CHECK(result.report.accepted == 1);
  require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = fn (PartitionedFromPattern="") {
    nn.relu
  };
  %1 = %0();
  %1(%x)
}
)"));
  require_sound(result.module);
}

TEST_CASE("a group that would pass a variable bound inside it out of scope is refused",
          "[partition][unusual]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  let %v = nn.relu(%x);
  add(%v, %x)
}
)");
  NodeId let = input.graph.body(*input.find("main"));
  SECTION("the let's variable bound as an input (TVM passes %v from outside its let)") {
    auto result = partition(pattern_of("is_let(wildcard(), wildcard(), wildcard())"), input,
                            {.relay_compat = true});
    CHECK(result.report.accepted == 0);
    REQUIRE(result.report.rejected.size() == 1);
    const RejectedGroup& rejected = result.report.rejected[0];
    CHECK(rejected.reason == RejectionReason::kEscapingVariable);
    CHECK(rejected.root == let);
    CHECK(rejected.node == let);
    CHECK(rejected.user == input.graph.let_var(let));
    CHECK(rejection_reason_name(rejected.reason) == "escaping_variable");
  }
  SECTION("the let's body, which reads %v, bound as an input") {
    auto result = partition(pattern_of("is_let(~is_constant(), wildcard(), wildcard())"), input,
                            {.relay_compat = true});
    CHECK(result.report.accepted == 0);
    REQUIRE(result.report.rejected.size() == 1);
    CHECK(result.report.rejected[0].reason == RejectionReason::kEscapingVariable);
    CHECK(result.report.rejected[0].user == input.graph.body(let));  // add(%v, %x)
  }
  SECTION("a let whose variable stays inside is outlined") {
    auto result =
        partition(pattern_of("is_let(~is_constant(), wildcard(), is_op('add')(~is_constant(), "
                             "wildcard()))"),
                  input, {.relay_compat = true});
    CHECK(result.report.accepted == 1);
    require_equal(result.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %1 = fn (%p, %q, PartitionedFromPattern="add_Let_") {
    let %v = %p;
    add(%v, %q)
  };
  %0 = nn.relu(%x);
  %1(%0, %x)
}
)"));
    require_sound(result.module);
    require_inlines_to(result, input);
  }
}

TEST_CASE("a FunctionPattern at the top outlines nothing, as TVM", "[partition][unusual]") {
  relay::Module input = parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %0 = fn (%a) {
    nn.relu(%a)
  };
  %0(%x)
}
)");
  NodeId main = *input.find("main");
  for (const char* pattern : {"FunctionPattern(None, wildcard())",
                              "FunctionPattern([wildcard()], is_op('nn.relu')(wildcard()))"}) {
    for (bool relay_compat : {true, false}) {
      DYNAMIC_SECTION(pattern << " relay_compat " << relay_compat) {
        auto result = partition(pattern_of(pattern), input, {.relay_compat = relay_compat});
        CHECK(result.report.accepted == 0);
        CHECK(result.report.rejected.empty());
        CHECK(*result.module.find("main") == main);
        CHECK(result.module.graph.size() == input.graph.size());
      }
    }
  }
  // Called, it is matched by the call: the function literal is embedded (080_partition_function).
  auto called = partition(pattern_of("FunctionPattern(None, wildcard())(wildcard())"), input,
                          {.relay_compat = true});
  CHECK(called.report.accepted == 1);
  require_equal(called.module, parse_module_text(R"(#[version = "0.0.5"]
def @main(%x) {
  %1 = fn (%p, PartitionedFromPattern="nn.relu_FunctionCall_") {
    %0 = fn (%a) {
      nn.relu(%a)
    };
    %0(%p)
  };
  %1(%x)
}
)"));
}

TEST_CASE("rewrite with an is_var() callback calls it nowhere, as TVM", "[rewrite][unusual]") {
  relay::Module input = parse_module_text(kSmall);
  NodeId main = *input.find("main");
  int calls = 0;
  std::vector<RewriteCallback<relay::Dialect>> callbacks = {
      {.pattern = pattern_of("is_var()"), .rewrite = [&](NodeId, NodeId post, const auto&, auto& rw) {
         ++calls;
         return rw.builder().call("negative", {post});
       }}};
  for (bool relay_compat : {true, false}) {
    DYNAMIC_SECTION("relay_compat " << relay_compat) {
      calls = 0;
      auto result = rewrite(callbacks, input.graph, main, {.relay_compat = relay_compat});
      CHECK(calls == 0);
      CHECK(result.converged);
      CHECK(result.rewrites == 0);
      CHECK(result.report.not_outlined == 2);
      require_equal(result.graph, result.root, input.graph, main);
      CHECK(verify(result.graph).ok());
    }
  }
}

namespace {

// Definitions, a closure reading a parameter of @main, lets, an If, a tuple and a global call.
constexpr const char* kMixed = R"(#[version = "0.0.5"]
def @g(%z) {
  nn.relu(%z)
}

def @main(%c: bool, %x: Tensor[(2), float32]) {
  %0 = fn (%a) {
    let %t = add(%a, %x);
    multiply(%t, %t)
  };
  %1 = %0(%x);
  %2 = if (%c) {
    nn.relu(%1)
  } else {
    let %u = negative(%1);
    (%u, %x).0
  };
  %3 = @g(%2);
  add(%3, 1f)
}
)";

/// Patterns that bind variables, constants, ops, functions or everything.
const char* const kUnusualPatterns[] = {
    "wildcard()",
    "is_var()",
    "is_constant()",
    "is_op('add')(wildcard(), wildcard()) | wildcard()",
    "wildcard().has_dtype('float32')",
    "~is_op('nn.relu')",
    "wildcard() & wildcard()",
    "is_var() | is_constant()",
    "is_tuple([wildcard()])",
    "is_tuple(None)",
    "is_tuple_get_item(wildcard())",
    "wildcard()(wildcard())",
    "wildcard()(None)",
    "is_op('nn.relu')(wildcard()).dominates(wildcard())",
    "wildcard().dominates(wildcard(), wildcard())",
    ("w = wildcard()\nr = is_op('nn.relu')(w) | is_op('add')(w, wildcard())\n"
     "w.redirect_to(r | wildcard())\nr"),
    "FunctionPattern(None, wildcard())",
    "FunctionPattern([wildcard()], wildcard())",
    "FunctionPattern(None, wildcard())(None)",
    "is_let(wildcard(), wildcard(), wildcard())",
    "is_let(~is_constant(), wildcard(), wildcard())",
    "is_if(wildcard(), wildcard(), wildcard())",
    "is_expr(first_param)",
    "is_expr(first_param) | wildcard()",
};

}  // namespace

TEST_CASE("unusual patterns on every corpus model give sound graphs that inline back",
          "[partition][unusual][corpus]") {
  std::vector<std::pair<std::string, std::string>> models = {{"mixed", kMixed}};
  for (const char* model : kCorpusModels) {
    models.emplace_back(model, read_file(kCorpus / "models" / (std::string(model) + ".relay")));
  }
  for (const auto& [model, text] : models) {
    relay::Module input = parse_module_text(text);
    relay::Module merged = eliminate_common_subexpr(input).module;
    NodeId main = *input.find("main");
    PatternParseOptions names;
    names.names.emplace("first_param",
                        dsl::is_expr(input.graph, input.graph.params(main)[0], "first_param"));
    for (const char* pattern_text : kUnusualPatterns) {
      Pattern pattern = pattern_of(pattern_text, names);
      DYNAMIC_SECTION(model << " " << pattern_text) {
        for (bool relay_compat : {true, false}) {
          INFO("relay_compat " << relay_compat);
          auto partitioned = partition(pattern, input, {.relay_compat = relay_compat});
          require_sound(partitioned.module);
          require_inlines_to(partitioned, relay_compat ? input : merged);

          std::vector<CompositePattern<relay::Dialect>> table = {
              {.name = "add", .pattern = pattern_of("is_op('add')(wildcard(), wildcard())")},
              {.name = "w", .pattern = pattern}};
          auto composed = merge_composite(table, input, {.relay_compat = relay_compat});
          require_sound(composed.module);

          // A callback that replaces each root it is given by `(post,).0`, once (@main too: the
          // expression rewrite takes is any expression, as in TVM).
          bool saw_var = false;
          std::vector<RewriteCallback<relay::Dialect>> callbacks = {
              {.pattern = pattern,
               .rewrite = [&](NodeId pre, NodeId post, const auto&, auto& rw) {
                 saw_var |= rw.graph().kind(pre) == NodeKind::kVar;
                 return rw.builder().tuple_get_item(rw.builder().tuple({post}), 0);
               },
               .rewrite_once = true}};
          auto rewritten = rewrite(callbacks, input.graph, main, {.relay_compat = relay_compat});
          CHECK_FALSE(saw_var);
          absl::Status verified = verify(rewritten.graph);
          INFO(verified.ToString());
          CHECK(verified.ok());
        }
      }
    }
  }
}
