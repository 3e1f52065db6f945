// Graphviz export (include/graphpat/io/dot.hpp): the exact DOT text of a small graph, with and
// without folded constants and with a cluster; partitioned functions drawn as clusters; and the
// real `dot` rendering the partitioned MobileNetV2 with one cluster per partitioned function;
// odd names (quotes, backslashes, entities, control bytes, bytes that are not UTF-8) escaped.
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <graphpat/io/dot.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>
#include <string>

#include "support/scale.hpp"
#include "support/test_files.hpp"

namespace {

using graphpat::NodeId;
using graphpat::testing::count_of;
using graphpat::testing::message;
using graphpat::testing::read_file;

// The Relay text of tests/data/graph_json/small.relay. The parser numbers nodes in reading
// order, a callee before its arguments: %x 0, %w 1, op nn.conv2d 2, its call 3, op nn.bias_add
// 4, the constant 5, the call 6, op nn.relu 7, its call 8, op vendor.fused 9, its call 10, the
// tuple 11, the projection 12.
graphpat::relay::Module small_module() {
  auto module = graphpat::relay::parse_text(
      read_file(std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "graph_json" / "small.relay"));
  REQUIRE(module.ok());
  return std::move(*module);
}

constexpr std::string_view kHeader =
    "digraph \"main\" {\n"
    "  graph [fontname=\"Helvetica\"];\n"
    "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];\n"
    "  edge [arrowsize=0.6];\n";

}  // namespace

TEST_CASE("dot: a small graph, constants folded, one cluster", "[dot]") {
  graphpat::relay::Module module = small_module();
  auto dot = graphpat::relay::to_dot(
      module, {.clusters = {{.label = "act \"1\"", .nodes = {NodeId(8), NodeId(10)}}}});
  INFO(message(dot.status()));
  REQUIRE(dot.ok());
  CHECK(*dot ==
        std::string(kHeader) +
            "  n0 [label=\"x\\nfloat32[1, 3, 8, 8]\", shape=ellipse];\n"
            "  n1 [label=\"w\\nfloat32[4, 3, 3, 3]\", shape=ellipse];\n"
            "  n3 [label=\"nn.conv2d\\nstrides=[2, 2] padding=[1, 1, 1, 1]\\nchannels=4 "
            "kernel_size=[3, 3]\\nout_dtype=\\\"float32\\\"\"];\n"
            "  n6 [label=\"nn.bias_add\\nconst float32[4]\"];\n"
            "  n11 [label=\"tuple\"];\n"
            "  n12 [label=\"get 1\"];\n"
            "  subgraph cluster_0 {\n"
            "    label=\"act \\\"1\\\"\";\n"
            "    style=\"rounded,filled\";\n"
            "    fillcolor=\"#cfe2f3\";\n"
            "    n8 [label=\"nn.relu\"];\n"
            "    n10 [label=\"vendor.fused\\nmode=\\\"fast\\\" scale=0.5f\\nsizes=[1i64]\"];\n"
            "  }\n"
            "  n0 -> n3;\n"
            "  n1 -> n3;\n"
            "  n3 -> n6;\n"
            "  n6 -> n8;\n"
            "  n8 -> n10;\n"
            "  n8 -> n11;\n"
            "  n10 -> n11;\n"
            "  n11 -> n12;\n"
            "}\n");
}

TEST_CASE("dot: constants drawn as nodes when not folded", "[dot]") {
  graphpat::relay::Module module = small_module();
  auto dot = graphpat::relay::to_dot(module, {.fold_constants = false});
  REQUIRE(dot.ok());
  INFO(*dot);
  CHECK(dot->find("  n5 [label=\"const float32[4]\"];\n  n6 [label=\"nn.bias_add\"];\n") !=
        std::string::npos);
  CHECK(dot->find("  n3 -> n6;\n  n5 -> n6;\n") != std::string::npos);
}

TEST_CASE("dot: labels are escaped; an unknown function is an error", "[dot]") {
  graphpat::relay::Module module;
  graphpat::relay::Builder b(module.graph);
  NodeId x = b.var("a\"b\\c");
  module.add_function("main", b.function({x}, b.call("nn.relu", {x})));
  auto dot = graphpat::relay::to_dot(module);
  REQUIRE(dot.ok());
  CHECK(dot->find("  n0 [label=\"a\\\"b\\\\c\", shape=ellipse];\n") != std::string::npos);
  auto missing = graphpat::relay::to_dot(module, {.function = "other"});
  REQUIRE_FALSE(missing.ok());
  CHECK(message(missing.status()) ==
        "[graphpat.dot.unknown_function] @other: no such function in the module");
}

TEST_CASE("dot: a label shows the exact name, and no name leaves its quoted string", "[dot]") {
  graphpat::relay::Module module;
  graphpat::relay::Builder b(module.graph);
  // Quote, backslash (with a letter Graphviz would read as \N), an entity, a line feed, CR,
  // NUL, a byte that is not UTF-8, then é kept as it is.
  NodeId x = b.var(std::string("a\"b\\Nc&amp;d\ne\rf\0g\xFF\xC3\xA9", 21));
  module.add_function("main", b.function({x}, b.call("nn.relu", {x})));
  auto dot = graphpat::relay::to_dot(module);
  REQUIRE(dot.ok());
  CHECK(dot->find("  n0 [label=\"a\\\"b\\\\Nc&amp;amp;d\\ne\\\\x0Df\\\\x00g\\\\xFF\xC3\xA9\", "
                  "shape=ellipse];\n") != std::string::npos);
}

TEST_CASE("dot: a partitioned function is drawn as a cluster of its body", "[dot]") {
  graphpat::relay::Module module = small_module();
  auto pattern = graphpat::parse_pattern("is_op('nn.bias_add')(wildcard(), wildcard())");
  REQUIRE(pattern.ok());
  auto result = graphpat::partition(*pattern, module, {.attrs = {{"Composite", "bias"}}});
  REQUIRE(result.report.accepted == 1);
  auto plain = graphpat::relay::to_dot(result.module);
  REQUIRE(plain.ok());
  CHECK(plain->find("subgraph") == std::string::npos);
  CHECK(plain->find("[label=\"call bias\\nconst float32[4]\"]") != std::string::npos);

  auto dot = graphpat::relay::to_dot(result.module, {.cluster_partitioned_functions = true});
  REQUIRE(dot.ok());
  CHECK(count_of(*dot, "subgraph cluster_") == 1);
  std::size_t cluster = dot->find("  subgraph cluster_0 {\n    label=\"bias\";\n");
  REQUIRE(cluster != std::string::npos);
  // The body's bias_add, its constant argument folded in; the conv feeds it, relu reads it.
  std::size_t bias_add = dot->find("[label=\"nn.bias_add\\nconst float32[4]\"];", cluster);
  CHECK(bias_add != std::string::npos);
  CHECK(bias_add < dot->find("  }\n", cluster));
  CHECK(count_of(*dot, "nn.bias_add") == 1);
  CHECK(count_of(*dot, "-> c") == 1);  // one edge into the cluster, from the conv
  CHECK(count_of(*dot, "FunctionVar") == 0);
}

TEST_CASE("dot: MobileNetV2 partitioned on batch_norm renders with one cluster per function",
          "[dot][graphviz]") {
  auto module = graphpat::relay::parse_text(
      read_file(graphpat::testing::kCorpus / "models" / "mobilenet_v2_mxnet_style.relay"));
  REQUIRE(module.ok());
  auto pattern = graphpat::parse_pattern(
      "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
      "wildcard()), 0)");
  REQUIRE(pattern.ok());
  auto result = graphpat::partition(*pattern, *module, {.attrs = {{"Composite", "bn"}}});
  REQUIRE(result.report.accepted == 53);
  auto dot = graphpat::relay::to_dot(result.module, {.cluster_partitioned_functions = true});
  REQUIRE(dot.ok());
  CHECK(count_of(*dot, "subgraph cluster_") == 53);
  CHECK(count_of(*dot, "label=\"bn\";") == 53);

  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("graphpat_test_dot_{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::path dot_file = dir / "mobilenet_v2.dot";
  std::filesystem::path svg_file = dir / "mobilenet_v2.svg";
  std::ofstream(dot_file) << *dot;
  int status = std::system(
      fmt::format("dot -Tsvg '{}' -o '{}'", dot_file.string(), svg_file.string()).c_str());
  REQUIRE(status == 0);
  std::string svg = read_file(svg_file);
  CHECK(svg.size() > 10'000);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(count_of(svg, "class=\"cluster\"") == 53);
  std::filesystem::remove_all(dir);
}

TEST_CASE("dot: a 1,000,000-node chain is drawn without recursion", "[dot][large]") {
  constexpr int kLength = graphpat::testing::kLargeGraphNodes;  // 250,000 sanitized
  graphpat::relay::Module module;
  graphpat::relay::Builder b(module.graph);
  NodeId x = b.var("x");
  NodeId node = x;
  for (int i = 0; i < kLength; ++i) node = b.call("nn.relu", {node});
  module.add_function("main", b.function({x}, node));
  auto dot = graphpat::relay::to_dot(module);
  REQUIRE(dot.ok());
  CHECK(count_of(*dot, "[label=\"nn.relu\"];") == kLength);
  CHECK(count_of(*dot, " -> ") == kLength);
}
