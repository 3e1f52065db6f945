// graph JSON (include/graphpat/io/graph_json.hpp, docs/graph-json.md): the exact text of a
// hand-written graph, round trips of every corpus model, bad input with exact messages, and a
// 1,000,000-node chain.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/io/graph_json.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>
#include <limits>
#include <string>
#include <vector>

#include "support/scale.hpp"
#include "support/test_files.hpp"

namespace {

using graphpat::NodeId;
using graphpat::relay::Module;
using graphpat::testing::message;
using graphpat::testing::read_file;

// print → parse → structurally equal (types too) → print gives the same bytes.
void check_round_trip(const Module& module) {
  auto printed = graphpat::relay::print_graph_json(module);
  REQUIRE(printed.ok());
  auto parsed = graphpat::relay::parse_graph_json(*printed);
  INFO(message(parsed.status()));
  REQUIRE(parsed.ok());
  auto difference = graphpat::first_difference(module, *parsed, {.compare_types = true});
  INFO((difference ? difference->reason : std::string()));
  CHECK(!difference);
  auto again = graphpat::relay::print_graph_json(*parsed);
  REQUIRE(again.ok());
  CHECK(*again == *printed);
}

}  // namespace

TEST_CASE("graph_json: every corpus model round-trips", "[graph_json]") {
  std::vector<std::filesystem::path> models;
  for (const auto& entry :
       std::filesystem::directory_iterator(graphpat::testing::kCorpus / "models")) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".relay") || name.ends_with(".unbound.json")) models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  REQUIRE(models.size() == 22);  // 16 Relay texts, 6 TVM JSON files
  for (const auto& path : models) {
    std::string name = path.filename().string();
    DYNAMIC_SECTION(name) {
      std::string content = read_file(path);
      if (name.ends_with(".relay")) {
        auto module = graphpat::relay::parse_text(content);
        INFO(message(module.status()));
        REQUIRE(module.ok());
        check_round_trip(*module);
      } else {
        auto loaded = graphpat::relay::load_json(content);
        INFO(message(loaded.status()));
        REQUIRE(loaded.ok());
        check_round_trip(loaded->module);
      }
    }
  }
}

TEST_CASE("graph_json: a hand-written file reads as the Relay text it transcribes",
          "[graph_json]") {
  std::filesystem::path dir = std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "graph_json";
  std::string json = read_file(dir / "small.json");
  REQUIRE(graphpat::relay::looks_like_graph_json(json));
  auto module = graphpat::relay::parse_graph_json(json);
  INFO(message(module.status()));
  REQUIRE(module.ok());
  auto expected = graphpat::relay::parse_text(read_file(dir / "small.relay"));
  REQUIRE(expected.ok());
  auto difference = graphpat::first_difference(*expected, *module);
  INFO((difference ? difference->reason : std::string()));
  CHECK(!difference);

  // The constant holds 1, 2, 3, 4 as float32.
  const graphpat::relay::Graph& graph = module->graph;
  NodeId main = *module->find("main");
  NodeId relu = graph.fields(graph.tuple(graph.body(main)))[0];
  NodeId bias_add = graph.args(relu)[0];
  REQUIRE(graph.kind(bias_add) == graphpat::NodeKind::kCall);
  const graphpat::Tensor& tensor = graph.tensor(graph.args(bias_add)[1]);
  REQUIRE(tensor.has_data());
  float values[4];
  REQUIRE(tensor.data->size == sizeof values);
  std::memcpy(values, tensor.data->view().data(), sizeof values);
  CHECK(values[0] == 1.0f);
  CHECK(values[3] == 4.0f);

  // The file is written in the printer's own layout, so printing gives it back byte for byte.
  auto printed = graphpat::relay::print_graph_json(*module);
  REQUIRE(printed.ok());
  CHECK(*printed == json);
  check_round_trip(*module);
}

TEST_CASE("graph_json: format detection", "[graph_json]") {
  CHECK(graphpat::relay::looks_like_graph_json(
      "  {\"format\": \"graphpat.graph\", \"version\": 1, \"functions\": []}"));
  CHECK_FALSE(graphpat::relay::looks_like_graph_json(
      "{\n  \"root\": 1,\n  \"nodes\": [\n    {\n      \"type_key\": \"\"\n    }]}"));
  CHECK_FALSE(graphpat::relay::looks_like_graph_json("#[version = \"0.0.5\"]\ndef @main() { 1f }"));
  CHECK_FALSE(graphpat::relay::looks_like_graph_json("{\"format\": \"other\"}"));
  CHECK_FALSE(graphpat::relay::looks_like_graph_json(""));
}

namespace {

// A file with one function "main" whose nodes are `nodes` and whose output is `output`.
std::string file_with(const std::string& nodes, const std::string& output = "0",
                      const std::string& params = "") {
  return R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main", "params": [)" +
         params + R"(], "nodes": [)" + nodes + R"(], "outputs": [)" + output + "]}]}";
}

const std::string kVar = R"({"id": 0, "kind": "var", "name": "x"})";

}  // namespace

TEST_CASE("graph_json: bad input is refused with the place and the problem", "[graph_json]") {
  struct Case {
    std::string json;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"format\": \"graphpat.graph\",\n  \"version\": }",
       "[graphpat.graph_json.bad_json] 2:14: syntax error while parsing value - unexpected '}'; "
       "expected '[', '{', or a literal"},
      {R"(["format"])", "[graphpat.graph_json.bad_format] /: expected an object, found array"},
      {R"({"format": "tvm", "version": 1, "functions": []})",
       R"([graphpat.graph_json.bad_format] /format: expected "graphpat.graph")"},
      {R"({"format": "graphpat.graph", "version": 2, "functions": []})",
       "[graphpat.graph_json.bad_format] /version: expected version 1 (this reader reads "
       "version 1 only)"},
      {R"({"format": "graphpat.graph", "version": 2, "functions": [{"name": "main", "nodes": [{"id": 0}], "outputs": [0]}]})",
       "[graphpat.graph_json.bad_format] /version: expected version 1 (this reader reads "
       "version 1 only)"},
      {R"({"format": "graphpat.graph", "version": 1, "functions": [7]})",
       "[graphpat.graph_json.bad_field] /functions/0: expected an object, found number"},
      {file_with(R"(3)"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/0: expected a node object, found "
       "number"},
      {R"({"format": "graphpat.graph", "version": 1})",
       R"([graphpat.graph_json.bad_field] /: missing field "functions")"},
      {file_with(kVar + R"(, {"id": 1, "kind": "call", "op": "nn.relu", "inputs": [40]})", "1"),
       "[graphpat.graph_json.bad_reference] /functions/0/nodes/1/inputs/0: node 40 is not "
       "defined before its use"},
      {file_with(kVar + R"(, {"id": 1, "kind": "call", "op": "nn.relu", "inputs": [1]})", "1"),
       "[graphpat.graph_json.bad_reference] /functions/0/nodes/1/inputs/0: node 1 is not "
       "defined before its use"},
      {file_with(kVar + R"(, {"id": 0, "kind": "var", "name": "y"})"),
       "[graphpat.graph_json.duplicate_id] /functions/0/nodes/1/id: node 0 is defined twice"},
      {file_with(R"({"id": 5, "kind": "var", "name": "x"}, {"id": 1, "kind": "var", "name": "y"})",
                 "5"),
       "[graphpat.graph_json.bad_id] /functions/0/nodes/1/id: node ids must increase through "
       "the file: 1 after 5"},
      {file_with(kVar + R"(, {"id": 1, "kind": "call", "op": "nn.relu", "inputs": "0"})", "1"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/1/inputs: expected an array of node "
       "ids, found string"},
      {file_with(R"({"id": 0, "kind": "var", "name": 7})"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/0/name: expected a string, found "
       "number"},
      {file_with(R"({"id": 0, "kind": "var"})"),
       R"([graphpat.graph_json.bad_field] /functions/0/nodes/0: missing field "name")"},
      {file_with(R"({"id": 0, "kind": "lambda"})"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/0/kind: unknown node kind \"lambda\" "
       "(kinds: var, const, call, tuple, get, function, let, if, global, op)"},
      {file_with(R"({"id": 0, "kind": "var", "name": "x", "colour": "red"})"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/0/colour: unknown field (fields of a "
       "var node: id, kind, name, annotation, type, span)"},
      {file_with(R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [2], "data": "AA*A"})"),
       "[graphpat.graph_json.bad_constant] /functions/0/nodes/0/data: not valid base64"},
      {file_with(
           R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [4], "data": "AACAPwAAAEA="})"),
       "[graphpat.graph_json.bad_constant] /functions/0/nodes/0/data: 8 bytes, but 4 elements "
       "of float32 take 16"},
      {file_with(R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [2, -1]})"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/0/shape/1: expected an extent (a "
       "non-negative integer), found -1"},
      {file_with(
           R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [4294967296, 4294967296], "data": ""})"),
       "[graphpat.graph_json.tensor_too_large] /functions/0/nodes/0/shape: the constant needs at "
       "least 2^64 bytes, more than the limit of 4294967296 (max_tensor_bytes)"},
      {file_with(
           R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [4611686018427387904, 4], "data": "AAAA"})"),
       "[graphpat.graph_json.tensor_too_large] /functions/0/nodes/0/shape: the constant needs at "
       "least 2^64 bytes, more than the limit of 4294967296 (max_tensor_bytes)"},
      {file_with(
           R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [1073741824, 5], "data": ""})"),
       "[graphpat.graph_json.tensor_too_large] /functions/0/nodes/0/shape: the constant needs "
       "21474836480 bytes, more than the limit of 4294967296 (max_tensor_bytes)"},
      {file_with(
           R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [1073741824], "data": ""})"),
       "[graphpat.graph_json.bad_constant] /functions/0/nodes/0/data: 0 bytes, but 1073741824 "
       "elements of float32 take 4294967296"},
      {"{\"format\": \"graphpat.graph\", \"version\": 1, \"functions\": [], \"attrs\": {\"k\": "
       "\"x\xff\"}}",
       // The byte nlohmann quotes is escaped: the message stays UTF-8.
       "[graphpat.graph_json.bad_json] 1:78: syntax error while parsing value - invalid string: "
       "ill-formed UTF-8 byte; last read: '\"x\\xFF'"},
      {file_with(R"({"id": 99999999999999999999, "kind": "var", "name": "x"})"),
       "[graphpat.graph_json.bad_number] /functions/0/nodes/0/id: the integer "
       "99999999999999999999 does not fit in 64 bits"},
      {file_with(R"({"id": 4294967295, "kind": "var", "name": "x"})", "4294967295"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/0/id: a node id 4294967295 is too "
       "large (the limit is 4294967294)"},
      {file_with(
           R"({"id": 0, "kind": "var", "name": "x", "annotation": "Tensor[(1, 3) float32]"})"),
       "[graphpat.graph_json.bad_type] /functions/0/nodes/0/annotation: cannot read the type "
       "'Tensor[(1, 3) float32]': 1:15: expected ',' after the shape, found 'float32'"},
      {file_with(
           kVar +
               R"(, {"id": 1, "kind": "call", "op": "nn.conv2d", "inputs": [0, 0], "attrs": {"channels": "four"}})",
           "1"),
       "[graphpat.graph_json.bad_attribute] /functions/0/nodes/1/attrs/channels: "
       "relay.attrs.Conv2DAttrs: attribute 'channels' of nn.conv2d (IndexExpr) cannot hold a "
       "string"},
      {file_with(
           kVar +
               R"(, {"id": 1, "kind": "call", "op": "x.y", "inputs": [0], "attrs": {"k": {"bits": 8}}})",
           "1"),
       "[graphpat.graph_json.bad_attribute] /functions/0/nodes/1/attrs/k: an object attribute "
       "value needs one of the fields \"int\", \"uint\", \"float\", \"dtype\", \"base64\", "
       "\"map\" or \"object\""},
      {file_with(kVar + R"(, {"id": 1, "kind": "get", "inputs": [0, 0], "index": 0})", "1"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/1/inputs: a get node takes 1 inputs, "
       "found 2"},
      {file_with(
           kVar +
               R"(, {"id": 1, "kind": "let", "inputs": [0, 0, 0]}, {"id": 2, "kind": "let", "inputs": [1, 0, 0]})",
           "2"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/2/inputs/0: the variable a let binds "
       "must be a var node"},
      {file_with(kVar + R"(, {"id": 1, "kind": "tuple", "inputs": [0]})", "1", "1"),
       "[graphpat.graph_json.bad_field] /functions/0/params/0: a parameter must be a var node"},
      {R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main", "nodes": []}]})",
       R"([graphpat.graph_json.bad_field] /functions/0: missing field "outputs")"},
      {R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "f", "nodes": [{"id": 0, "kind": "var", "name": "x"}], "outputs": [0]}, {"name": "f", "nodes": [], "outputs": [0]}]})",
       "[graphpat.graph_json.bad_field] /functions/1/name: function @f is defined twice"},
      {file_with(
           kVar +
               R"(, {"id": 1, "kind": "function", "params": [0], "body": 0, "type_params": ["A"]})",
           "1"),
       "[graphpat.graph_json.unsupported] /functions/0/nodes/1/type_params: functions with type "
       "parameters are not supported"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(i << ": " << cases[i].json);
    auto module = graphpat::relay::parse_graph_json(cases[i].json);
    REQUIRE_FALSE(module.ok());
    CHECK(message(module.status()) == cases[i].message);
  }
}

TEST_CASE("graph_json: limits", "[graph_json]") {
  std::string two =
      file_with(kVar + R"(, {"id": 1, "kind": "call", "op": "nn.relu", "inputs": [0]})", "1");
  auto refused = graphpat::relay::parse_graph_json(two, {.limits = {.max_nodes = 1}});
  REQUIRE_FALSE(refused.ok());
  CHECK(message(refused.status()) ==
        "[graphpat.graph_json.too_many_nodes] /functions/0/nodes/1: more than 1 nodes "
        "(max_nodes)");
  CHECK(graphpat::relay::parse_graph_json(two, {.limits = {.max_nodes = 2}}).ok());
  std::string deep = file_with(
      kVar + R"(, {"id": 1, "kind": "call", "op": "x.y", "inputs": [0], "attrs": {"k": [[[1]]]}})",
      "1");
  auto too_deep = graphpat::relay::parse_graph_json(deep, {.limits = {.max_depth = 2}});
  REQUIRE_FALSE(too_deep.ok());
  CHECK(message(too_deep.status()) ==
        "[graphpat.graph_json.too_deep] /functions/0/nodes/1/attrs/k/0/0: nesting deeper than 2 "
        "levels (max_depth)");
  CHECK(graphpat::relay::parse_graph_json(deep, {.limits = {.max_depth = 4}}).ok());
  // Type text is bounded by the same max_depth.
  std::string deep_type =
      file_with(R"j({"id": 0, "kind": "var", "name": "x", "annotation": "((((int32))))"})j");
  auto type_too_deep = graphpat::relay::parse_graph_json(deep_type, {.limits = {.max_depth = 2}});
  REQUIRE_FALSE(type_too_deep.ok());
  CHECK(message(type_too_deep.status()) ==
        "[graphpat.graph_json.too_deep] /functions/0/nodes/0/annotation: nesting deeper than 2 "
        "levels (max_depth)");
  CHECK(graphpat::relay::parse_graph_json(deep_type).ok());
  // max_tensor_bytes bounds a constant that carries its bytes; one without them holds none.
  std::string constant = file_with(
      R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [2, 2], "data": "AAAAAAAAAAAAAAAAAAAAAA=="})");
  auto too_large = graphpat::relay::parse_graph_json(constant, {.limits = {.max_tensor_bytes = 8}});
  REQUIRE_FALSE(too_large.ok());
  CHECK(message(too_large.status()) ==
        "[graphpat.graph_json.tensor_too_large] /functions/0/nodes/0/shape: the constant needs 16 "
        "bytes, more than the limit of 8 (max_tensor_bytes)");
  CHECK(graphpat::relay::parse_graph_json(constant, {.limits = {.max_tensor_bytes = 16}}).ok());
  CHECK(graphpat::relay::parse_graph_json(
            file_with(R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [2, 2]})"),
            {.limits = {.max_tensor_bytes = 8}})
            .ok());
  // An extent of 0 makes an empty tensor, however large the other extents.
  CHECK(graphpat::relay::parse_graph_json(
            file_with(
                R"({"id": 0, "kind": "const", "dtype": "float32", "shape": [4611686018427387904, 4, 0], "data": ""})"))
            .ok());
}

TEST_CASE("graph_json: what the format cannot hold is refused when printing", "[graph_json]") {
  graphpat::relay::Module module;
  graphpat::relay::Builder b(module.graph);
  graphpat::Context& context = module.graph.context();
  auto x = b.var("x");
  graphpat::TypeId a = context.types.type_var("A");
  module.add_function("main", b.function({x}, x, {.type_params = context.types.tuple({a})}));
  auto printed = graphpat::relay::print_graph_json(module);
  REQUIRE_FALSE(printed.ok());
  CHECK(message(printed.status()) ==
        "[graphpat.graph_json.unsupported] /functions/0: functions with type parameters are not "
        "supported");
}

TEST_CASE("graph_json: every attribute value form reads back bit for bit", "[graph_json]") {
  graphpat::relay::Module module;
  graphpat::relay::Builder b(module.graph);
  graphpat::AttrTable& attrs = module.graph.context().attrs;
  auto x = b.var("x");
  graphpat::AttrValueId value = attrs.object(
      "vendor.Attrs",
      {{"null", attrs.null()},
       {"bool", attrs.boolean(true)},
       {"i32", attrs.integer(-7)},
       {"i64", attrs.integer(1LL << 40, 64)},
       {"u8", attrs.integer(200, 8, true)},
       {"f64", attrs.floating(0.1, 64)},
       {"f64_integral", attrs.floating(3.0, 64)},
       {"f32", attrs.floating(0.25, 32)},
       {"nan", attrs.floating(std::numeric_limits<double>::quiet_NaN(), 32)},
       {"inf", attrs.floating(-std::numeric_limits<double>::infinity(), 64)},
       {"nan_payload", attrs.floating(std::bit_cast<double>(0xfff0000000000001ULL), 32)},
       {"string", attrs.string("a \"quoted\"\n/line")},
       {"bytes", attrs.string(std::string("\xFF\0a", 3))},
       {"dtype", attrs.data_type("int8")},
       {"array", attrs.array({attrs.integer(1), attrs.string("two")})},
       {"map", attrs.map(std::vector{std::pair{attrs.string("k"), attrs.integer(1)}})},
       {"object", attrs.object("Inner", {{"a/b~c", attrs.integer(2)}})}});
  module.add_function("main", b.function({x}, b.call(b.opaque_op("vendor.op"), {x}, {.attrs = value})));
  check_round_trip(module);
  auto printed = graphpat::relay::print_graph_json(module);
  REQUIRE(printed.ok());
  CHECK(
      printed->find(
          R"("attrs": {"null": null, "bool": true, "i32": -7, "i64": {"int": 1099511627776, "bits": 64}, )"
          R"("u8": {"uint": 200, "bits": 8}, "f64": 0.1, "f64_integral": 3.0, )"
          R"("f32": {"float": 0.25, "bits": 32}, "nan": {"float": "nan", "bits": 32}, )"
          R"("inf": {"float": "-inf", "bits": 64}, )"
          R"("nan_payload": {"float": "nan:0xfff0000000000001", "bits": 32}, )"
          R"("string": "a \"quoted\"\n/line", )"
          R"("bytes": {"base64": "/wBh"}, )"
          R"("dtype": {"dtype": "int8"}, "array": [1, "two"], "map": {"map": [["k", 1]]}, )"
          R"("object": {"object": "Inner", "fields": {"a/b~c": 2}}}, "attrs_type": "vendor.Attrs")") !=
      std::string::npos);
}

TEST_CASE("graph_json: nested functions, let, if, globals and shared nodes", "[graph_json]") {
  auto module = graphpat::relay::parse_text(R"(#[version = "0.0.5"]
def @helper(%a: Tensor[(2), float32]) -> Tensor[(2), float32] {
  nn.relu(%a)
}

def @main(%x: Tensor[(2), float32], %c: bool) {
  %0 = fn (%p, Primitive=1) { add(%p, %p) };
  %1 = %0(%x);
  %2 = @helper(%1);
  let %v = if (%c) { %2 } else { %1 };
  (%v, %2)
}
)");
  INFO(message(module.status()));
  REQUIRE(module.ok());
  check_round_trip(*module);
  auto printed = graphpat::relay::print_graph_json(*module);
  REQUIRE(printed.ok());
  CHECK(printed->find(R"({"id": 4, "kind": "function", "params": [3], "body": 4)") ==
        std::string::npos);
  CHECK(printed->find(R"("kind": "function", "params": [)") != std::string::npos);
  CHECK(printed->find(R"("attrs": {"Primitive": 1})") != std::string::npos);
  CHECK(printed->find(R"("kind": "global", "name": "helper")") != std::string::npos);
}

TEST_CASE("graph_json: a 1,000,000-node chain round-trips", "[graph_json][large]") {
  constexpr int kLength = graphpat::testing::kLargeGraphNodes;  // 250,000 sanitized
  graphpat::relay::Module module;
  graphpat::relay::Builder b(module.graph);
  NodeId x = b.var("x");
  NodeId node = x;
  for (int i = 0; i < kLength; ++i) node = b.call(i % 2 == 0 ? "nn.relu" : "negative", {node});
  module.add_function("main", b.function({x}, node));
  auto printed = graphpat::relay::print_graph_json(module);
  REQUIRE(printed.ok());
  auto parsed = graphpat::relay::parse_graph_json(*printed);
  REQUIRE(parsed.ok());
  CHECK(parsed->graph.size() == module.graph.size());
  CHECK(graphpat::structural_equal(module, *parsed));
  auto again = graphpat::relay::print_graph_json(*parsed);
  REQUIRE(again.ok());
  CHECK(*again == *printed);
}

TEST_CASE("graph_json: a partitioned MobileNetV2 round-trips with its function attributes",
          "[graph_json]") {
  auto module = graphpat::relay::parse_text(
      read_file(graphpat::testing::kCorpus / "models" / "mobilenet_v2_mxnet_style.relay"));
  REQUIRE(module.ok());
  auto pattern = graphpat::parse_pattern(
      "is_tuple_get_item(is_op('nn.batch_norm')(wildcard(), wildcard(), wildcard(), wildcard(), "
      "wildcard()), 0)");
  REQUIRE(pattern.ok());
  auto result = graphpat::partition(*pattern, *module, {.attrs = {{"Composite", "bn"}}});
  REQUIRE(result.report.accepted == 53);
  check_round_trip(result.module);
  auto printed = graphpat::relay::print_graph_json(result.module);
  REQUIRE(printed.ok());
  std::size_t functions = 0;
  for (std::size_t at = printed->find("\"kind\": \"function\""); at != std::string::npos;
       at = printed->find("\"kind\": \"function\"", at + 1)) {
    ++functions;
  }
  CHECK(functions == 53);
  CHECK(
      printed->find(
          R"("attrs": {"PartitionedFromPattern": "nn.batch_norm_TupleGetItem0_", "Composite": "bn"})") !=
      std::string::npos);
}
