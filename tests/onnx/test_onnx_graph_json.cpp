// Graph JSON for ONNX modules (graphpat/io/onnx/graph_json.hpp, docs/graph-json.md "Dialects"):
// every libonnx-testdata and corpus model reads back equal (types, attributes, spans and the
// model header included) and saves from the JSON alone as the model it came from; a small
// model's file checked line by line against the spec; ONNX type text; bad files get exact
// located errors.
#include <absl/strings/escaping.h>
#include <fmt/format.h>
#include <onnx/checker.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/graph_json.hpp"
#include "graphpat/io/onnx.hpp"
#include "graphpat/io/onnx/graph_json.hpp"
#include "graphpat/io/onnx/type_text.hpp"
#include "support/onnx_files.hpp"
#include "support/test_files.hpp"

namespace {

namespace fs = std::filesystem;
using graphpat::NodeId;
using graphpat::NodeKind;
using graphpat::onnx::LoadedOnnx;
using graphpat::testing::kOnnxData;
using graphpat::testing::kOnnxTestdata;
using graphpat::testing::load_bytes;
using graphpat::testing::main_of;
using graphpat::testing::message;

/// Every model.onnx of libonnx-testdata, then the corpus models, sorted.
std::vector<fs::path> every_model() {
  std::vector<fs::path> models;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kOnnxTestdata)) {
    if (entry.path().filename() == "model.onnx") models.push_back(entry.path());
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(kOnnxData)) {
    if (entry.path().extension() == ".onnx") models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  return models;
}

/// The ModelProto without its graph's contents and its functions: what the header carries.
onnx::ModelProto header_of(const onnx::ModelProto& model) {
  onnx::ModelProto header = model;
  header.clear_functions();
  onnx::GraphProto graph;
  graph.set_name(model.graph().name());
  if (model.graph().has_doc_string()) graph.set_doc_string(model.graph().doc_string());
  *graph.mutable_quantization_annotation() = model.graph().quantization_annotation();
  *header.mutable_graph() = graph;
  return header;
}

/// A model holding what graph JSON spells for ONNX alone: a dim_param that is not an
/// identifier, a sequence type, a node of two outputs of a custom domain with TENSOR, STRING
/// and FLOATS attributes, an initializer, named nodes and metadata.
onnx::ModelProto spelling_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("hand");
  for (auto [domain, version] : {std::pair{"", 17}, std::pair{"com.example", 1}}) {
    onnx::OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(version);
  }
  onnx::StringStringEntryProto* prop = model.add_metadata_props();
  prop->set_key("k");
  prop->set_value("v");
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  auto tensor_type = [](onnx::TypeProto* type) {
    onnx::TypeProto_Tensor* tensor = type->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_param("batch size");
    tensor->mutable_shape()->add_dim()->set_dim_value(3);
  };
  onnx::ValueInfoProto* x = graph->add_input();
  x->set_name("x");
  tensor_type(x->mutable_type());
  onnx::ValueInfoProto* s = graph->add_input();
  s->set_name("s");
  s->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorProto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  for (float value : {1.0F, 2.0F, 4.0F}) w->add_float_data(value);
  onnx::NodeProto* mul = graph->add_node();
  mul->set_name("mul0");
  mul->set_op_type("Mul");
  mul->add_input("x");
  mul->add_input("w");
  mul->add_output("m");
  onnx::NodeProto* pair = graph->add_node();
  pair->set_name("pair0");
  pair->set_domain("com.example");
  pair->set_op_type("Pair");
  pair->add_input("m");
  pair->add_input("s");
  pair->add_output("p0");
  pair->add_output("p1");
  onnx::AttributeProto* t = pair->add_attribute();
  t->set_name("t");
  t->set_type(onnx::AttributeProto::TENSOR);
  t->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  t->mutable_t()->add_int64_data(-1);
  onnx::AttributeProto* mode = pair->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("fast");
  onnx::AttributeProto* scales = pair->add_attribute();
  scales->set_name("scales");
  scales->set_type(onnx::AttributeProto::FLOATS);
  scales->add_floats(0.5F);
  onnx::ValueInfoProto* y = graph->add_output();
  y->set_name("p1");
  tensor_type(y->mutable_type());
  return model;
}

}  // namespace

TEST_CASE("every ONNX model reads back from graph JSON equal, and saves from it as it was",
          "[onnx][graph_json][corpus]") {
  std::size_t models = 0;
  std::size_t saved_equal = 0;
  std::size_t external = 0;
  for (const fs::path& path : every_model()) {
    INFO(path.string());
    std::string bytes = graphpat::testing::read_file(path);
    LoadedOnnx loaded = load_bytes(bytes);
    ++models;
    absl::StatusOr<std::string> json = graphpat::onnx::print_graph_json(loaded.module);
    REQUIRE(json.ok());
    absl::StatusOr<graphpat::onnx::Module> again = graphpat::onnx::parse_graph_json(*json);
    REQUIRE(again.ok());
    CHECK(graphpat::verify(again->graph).ok());
    CHECK(graphpat::structural_equal(loaded.module, *again, {.compare_types = true}));
    // Spans and the module's header, which structural equality leaves aside, print the same.
    absl::StatusOr<std::string> json_again = graphpat::onnx::print_graph_json(*again);
    REQUIRE(json_again.ok());
    CHECK(*json_again == *json);

    // Saved from the JSON alone (no provenance): the same graph, header and output names.
    absl::StatusOr<std::string> saved = graphpat::onnx::save(*again);
    if (!saved.ok()) {
      // Only constants whose bytes are external data (kept in the file, not in the module).
      CHECK_THAT(message(saved.status()), Catch::Contains("without bytes"));
      CHECK(path.filename().string().find(".external.") != std::string::npos);
      ++external;
      continue;
    }
    LoadedOnnx back = load_bytes(*saved);
    CHECK(graphpat::structural_equal(loaded.module, back.module, {.compare_types = true}));
    const onnx::ModelProto& original = loaded.provenance.model();
    const onnx::ModelProto& written = back.provenance.model();
    CHECK(header_of(written).SerializeAsString() == header_of(original).SerializeAsString());
    REQUIRE(written.graph().output_size() == original.graph().output_size());
    for (int k = 0; k < original.graph().output_size(); ++k) {
      CHECK(written.graph().output(k).name() == original.graph().output(k).name());
    }
    ++saved_equal;
  }
  CHECK(models == 1072 + 16);
  CHECK(external == 14);
  CHECK(saved_equal == 1072 + 2);
}

TEST_CASE("a graph JSON file of the ONNX dialect, checked against the spec", "[onnx][graph_json]") {
  onnx::ModelProto model = spelling_model();
  LoadedOnnx loaded = load_bytes(model.SerializeAsString());
  absl::StatusOr<std::string> json = graphpat::onnx::print_graph_json(loaded.module);
  REQUIRE(json.ok());
  // The TENSOR attribute's value: the TensorProto's bytes, in base64 (they are not UTF-8).
  std::string tensor =
      absl::Base64Escape(model.graph().node(1).attribute(0).t().SerializeAsString());
  // Ids: the initializer, the inputs, then the nodes in order, a get per output read.
  std::string expected = fmt::format(
      R"json({{
  "format": "graphpat.graph",
  "version": 1,
  "dialect": "onnx",
  "attrs": {{"object": "onnx.Model", "fields": {{"ir_version": 8, "opset_import": [["", 17], ["com.example", 1]], "producer_name": "hand", "metadata_props": [["k", "v"]], "graph_name": "g", "output_names": ["p1"]}}}},
  "functions": [
    {{
      "name": "main",
      "params": [1, 2],
      "nodes": [
        {{"id": 0, "kind": "const", "dtype": "float32", "shape": [3], "data": "AACAPwAAAEAAAIBA", "type": "Tensor[(3), float32]"}},
        {{"id": 1, "kind": "var", "name": "x", "annotation": "Tensor[(\"batch size\", 3), float32]", "type": "Tensor[(\"batch size\", 3), float32]"}},
        {{"id": 2, "kind": "var", "name": "s", "annotation": "onnx.TypeProto{{sequence_type {{ elem_type {{ tensor_type {{ elem_type: 1 }} }} }}}}", "type": "onnx.TypeProto{{sequence_type {{ elem_type {{ tensor_type {{ elem_type: 1 }} }} }}}}"}},
        {{"id": 3, "kind": "call", "op": "Mul", "inputs": [1, 0], "span": {{"source": "mul0", "line": 1}}}},
        {{"id": 4, "kind": "call", "op": "com.example.Pair", "inputs": [3, 2], "attrs": {{"t": {{"object": "onnx.TensorProto", "fields": {{"proto": {{"base64": "{}"}}}}}}, "mode": "fast", "scales": [{{"float": 0.5, "bits": 32}}]}}, "type": "(IncompleteType, Tensor[(\"batch size\", 3), float32])", "span": {{"source": "pair0", "line": 2}}}},
        {{"id": 5, "kind": "get", "inputs": [4], "index": 1, "type": "Tensor[(\"batch size\", 3), float32]"}}
      ],
      "outputs": [5]
    }}
  ]
}}
)json",
      tensor);
  CHECK(*json == expected);

  // Read back and saved without the file: the model's graph, names and header.
  absl::StatusOr<graphpat::onnx::Module> module = graphpat::onnx::parse_graph_json(*json);
  REQUIRE(module.ok());
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*module);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  CHECK(written.ir_version() == 8);
  CHECK(written.producer_name() == "hand");
  REQUIRE(written.opset_import_size() == 2);
  CHECK(written.opset_import(1).domain() == "com.example");
  REQUIRE(written.metadata_props_size() == 1);
  CHECK(written.metadata_props(0).value() == "v");
  const onnx::GraphProto& g = written.graph();
  CHECK(g.name() == "g");
  REQUIRE(g.node_size() == 2);
  CHECK(g.node(0).name() == "mul0");
  CHECK(g.node(1).name() == "pair0");
  CHECK(g.node(1).domain() == "com.example");
  CHECK(g.node(1).attribute(0).t().SerializeAsString() ==
        model.graph().node(1).attribute(0).t().SerializeAsString());
  CHECK(g.node(1).attribute(1).s() == "fast");
  CHECK(g.node(1).attribute(2).floats(0) == 0.5F);
  REQUIRE(g.output_size() == 1);
  CHECK(g.output(0).name() == "p1");
  CHECK(g.node(1).output(1) == "p1");
  CHECK(g.output(0).type().tensor_type().shape().dim(0).dim_param() == "batch size");
  CHECK(g.input(1).type().has_sequence_type());
}

TEST_CASE("numbers of fields the op's schema types INT(S) and FLOAT(S) are plain JSON",
          "[onnx][graph_json]") {
  // ONNX's test generators: Conv with kernel_shape=[3, 3], pads=[1, 1, 1, 1]; LeakyRelu with
  // alpha=0.1 (a float32, written with the float's shortest digits).
  for (auto [model, attrs] :
       {std::pair{"node/test_basic_conv_with_padding",
                  R"("attrs": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})"},
        std::pair{"node/test_leakyrelu", R"("attrs": {"alpha": 0.1})"}}) {
    INFO(model);
    LoadedOnnx loaded =
        load_bytes(graphpat::testing::read_file(kOnnxTestdata / model / "model.onnx"));
    absl::StatusOr<std::string> json = graphpat::onnx::print_graph_json(loaded.module);
    REQUIRE(json.ok());
    CHECK_THAT(*json, Catch::Contains(attrs));
  }
  // A number of another kind in such a field is tagged, and reads back as it was.
  graphpat::onnx::Module module;
  graphpat::onnx::Builder builder(module.graph);
  graphpat::AttrTable& attrs = module.graph.context().attrs;
  NodeId x = builder.var("x");
  NodeId relu = builder.call(
      "LeakyRelu", {x}, {.attrs = attrs.object("LeakyRelu", {{"alpha", attrs.floating(0.5, 64)}})});
  NodeId flatten = builder.call(
      "Flatten", {relu}, {.attrs = attrs.object("Flatten", {{"axis", attrs.integer(1, 32)}})});
  module.add_function("main", builder.function({x}, flatten));
  absl::StatusOr<std::string> json = graphpat::onnx::print_graph_json(module);
  REQUIRE(json.ok());
  CHECK_THAT(*json, Catch::Contains(R"("attrs": {"alpha": {"float": 0.5, "bits": 64}})"));
  CHECK_THAT(*json, Catch::Contains(R"("attrs": {"axis": {"int": 1, "bits": 32}})"));
  absl::StatusOr<graphpat::onnx::Module> again = graphpat::onnx::parse_graph_json(*json);
  REQUIRE(again.ok());
  CHECK(graphpat::structural_equal(module, *again));
  // Written by hand: plain numbers read by the schema's types.
  absl::StatusOr<graphpat::onnx::Module> hand = graphpat::onnx::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "dialect": "onnx", "functions": [{"name": )"
      R"("main", "params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"}, {"id": 1, )"
      R"("kind": "call", "op": "LeakyRelu", "inputs": [0], "attrs": {"alpha": 0.1}}, {"id": )"
      R"(2, "kind": "call", "op": "Flatten", "inputs": [1], "attrs": {"axis": 1}}], )"
      R"("outputs": [2]}]})");
  REQUIRE(hand.ok());
  const graphpat::onnx::Graph& graph = hand->graph;
  const graphpat::AttrTable& read = graph.context().attrs;
  NodeId body = graph.body(main_of(*hand));
  graphpat::AttrValueId axis = read.entry_value(graph.attrs(body), 0);
  CHECK(read.get(axis).bits == 64);
  CHECK(read.as_int(axis) == 1);
  graphpat::AttrValueId alpha = read.entry_value(graph.attrs(graph.args(body)[0]), 0);
  CHECK(read.get(alpha).bits == 32);
  CHECK(read.as_float(alpha) == static_cast<double>(0.1F));
}

TEST_CASE("ONNX type text reads back as the type it was written from", "[onnx][graph_json]") {
  graphpat::onnx::Module module;
  graphpat::Context& context = module.graph.context();
  graphpat::TypeTable& types = context.types;
  auto param = [&](std::string_view name) { return types.symbolic_dim(name, "onnx.dim_param"); };
  graphpat::TypeId tensor = types.tensor(
      "int64", {types.dim(2), types.any_dim(), param("n"), param("a \"b\"\\c"), param("0n")});
  graphpat::TypeId scalar = types.tensor("bool", {});
  graphpat::TypeId one = types.tuple({scalar});
  graphpat::TypeId pair = types.tuple({tensor, types.incomplete()});
  graphpat::TypeId none = types.tuple(std::span<const graphpat::TypeId>());
  std::vector<std::pair<graphpat::TypeId, std::string>> cases = {
      {tensor, R"(Tensor[(2, ?, n, "a \"b\"\\c", "0n"), int64])"},
      {scalar, "Tensor[(), bool]"},
      {one, "(Tensor[(), bool],)"},
      {pair, R"((Tensor[(2, ?, n, "a \"b\"\\c", "0n"), int64], IncompleteType))"},
      {none, "()"}};
  for (const auto& [type, text] : cases) {
    std::optional<std::string> written = graphpat::onnx::detail::type_text(context, type);
    REQUIRE(written.has_value());
    CHECK(*written == text);
    absl::StatusOr<graphpat::TypeId> read =
        graphpat::onnx::detail::parse_type_text(context, text, 256);
    REQUIRE(read.ok());
    CHECK(*read == type);
  }
  // A TypeProto in text format that is a plain tensor type reads as the Tensor form.
  absl::StatusOr<graphpat::TypeId> plain = graphpat::onnx::detail::parse_type_text(
      context, "onnx.TypeProto{tensor_type { elem_type: 1 shape { dim { dim_value: 4 } } }}", 256);
  REQUIRE(plain.ok());
  CHECK(*plain == types.tensor("float32", {types.dim(4)}));
  // No ONNX value has a function type.
  CHECK_FALSE(graphpat::onnx::detail::type_text(context, types.func(std::vector{scalar}, scalar)));
}

TEST_CASE("bad graph JSON of the ONNX dialect gets exact located errors",
          "[onnx][graph_json][errors]") {
  auto file = [](std::string_view dialect, std::string_view node) {
    return fmt::format(
        R"({{"format": "graphpat.graph", "version": 1{}, "functions": [{{"name": "main", "nodes": [{}], "outputs": [0]}}]}})",
        dialect, node);
  };
  const std::string dialect = R"(, "dialect": "onnx")";
  struct Case {
    std::string text;
    std::string message;
  };
  std::vector<Case> cases = {
      {file("", R"({"id": 0, "kind": "var", "name": "x"})"),
       R"([graphpat.graph_json.bad_format] /dialect: expected "onnx")"},
      {file(R"(, "dialect": "relay")", R"({"id": 0, "kind": "var", "name": "x"})"),
       "[graphpat.graph_json.wrong_dialect] /dialect: the file holds a module of dialect "
       "\"relay\"; this reader reads \"onnx\""},
      {file(dialect, R"({"id": 0, "kind": "var", "name": "x", "type": "Tensor[(2), float33]"})"),
       "[graphpat.graph_json.bad_type] /functions/0/nodes/0/type: cannot read the type "
       "'Tensor[(2), float33]': offset 12: 'float33' is not an ONNX element type"},
      {file(dialect, R"({"id": 0, "kind": "var", "name": "x", "type": "Tensor[(2 3), int8]"})"),
       "[graphpat.graph_json.bad_type] /functions/0/nodes/0/type: cannot read the type "
       "'Tensor[(2 3), int8]': offset 10: expected ',' or ')' after a dimension"},
      {file(dialect, R"({"id": 0, "kind": "var", "name": "x", "type": "float32"})"),
       "[graphpat.graph_json.bad_type] /functions/0/nodes/0/type: cannot read the type "
       "'float32': offset 0: expected a type: Tensor[...], a tuple (...), IncompleteType or "
       "onnx.TypeProto{...}"},
      {file(dialect,
            R"({"id": 0, "kind": "var", "name": "x", "type": "onnx.TypeProto{nonsense: 1}"})"),
       "[graphpat.graph_json.bad_type] /functions/0/nodes/0/type: cannot read the type "
       "'onnx.TypeProto{nonsense: 1}': offset 0: not an onnx.TypeProto in protobuf text format: "
       "1:9: Message type \"onnx.TypeProto\" has no field named \"nonsense\"."},
      {file(dialect, R"({"id": 0, "kind": "const", "dtype": "string", "shape": [1], "data": ""})"),
       "[graphpat.graph_json.bad_constant] /functions/0/nodes/0/dtype: a constant of dtype "
       "string has no bytes in this format"},
      {file(dialect, R"({"id": 0, "kind": "const", "dtype": "float8", "shape": [1]})"),
       "[graphpat.graph_json.bad_constant] /functions/0/nodes/0/dtype: 'float8' is not an ONNX "
       "element type"},
      {file(dialect, R"({"id": 0, "kind": "var", "name": "x", "span": {"line": -1}})"),
       "[graphpat.graph_json.bad_field] /functions/0/nodes/0/span/line: expected a position (a "
       "non-negative integer), found -1"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    absl::StatusOr<graphpat::onnx::Module> module = graphpat::onnx::parse_graph_json(c.text);
    REQUIRE_FALSE(module.ok());
    CHECK(message(module.status()) == c.message);
  }
  // The Relay reader refuses the ONNX dialect.
  absl::StatusOr<graphpat::relay::Module> relay =
      graphpat::relay::parse_graph_json(file(dialect, R"({"id": 0, "kind": "var", "name": "x"})"));
  REQUIRE_FALSE(relay.ok());
  CHECK(message(relay.status()) ==
        "[graphpat.graph_json.wrong_dialect] /dialect: the file holds a module of dialect "
        "\"onnx\"; this reader reads \"relay\"");
  CHECK(graphpat::relay::graph_json_dialect(file(dialect, "")) == "onnx");
  CHECK(graphpat::relay::graph_json_dialect(file("", "")) == "relay");
}

TEST_CASE("a node with two attributes of one name is refused, located (fuzz_onnx finding)",
          "[onnx][graph_json][errors]") {
  onnx::ModelProto model = spelling_model();
  onnx::AttributeProto* again = model.mutable_graph()->mutable_node(1)->add_attribute();
  again->set_name("mode");
  again->set_type(onnx::AttributeProto::STRING);
  again->set_s("slow");
  LoadedOnnx loaded = load_bytes(model.SerializeAsString());
  absl::StatusOr<std::string> json = graphpat::onnx::print_graph_json(loaded.module);
  REQUIRE_FALSE(json.ok());
  CHECK(message(json.status()) ==
        "[graphpat.graph_json.unsupported] /functions/0/nodes/4/attrs: an object of attributes "
        "holding the field 'mode' twice (a JSON object holds a key once)");
}

TEST_CASE("a header's output name that a parameter has stays the parameter's",
          "[onnx][graph_json]") {
  // y = Relu(w) with parameter x made after the call, and a header naming the output "x".
  graphpat::onnx::Module module;
  graphpat::onnx::Builder builder(module.graph);
  graphpat::AttrTable& attrs = module.graph.context().attrs;
  NodeId w = builder.var("w");
  NodeId relu = builder.call("Relu", {w});
  NodeId x = builder.var("x");
  module.add_function("main", builder.function({w, x}, relu));
  module.attrs = attrs.object("onnx.Model", {{"output_names", attrs.array({attrs.string("x")})}});
  absl::StatusOr<std::string> saved = graphpat::onnx::save(module);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  REQUIRE(written.graph().input_size() == 2);
  CHECK(written.graph().input(1).name() == "x");
  REQUIRE(written.graph().output_size() == 1);
  CHECK(written.graph().output(0).name() == "graphpat_1");
  CHECK(written.graph().node(0).output(0) == "graphpat_1");
}

TEST_CASE("a malformed model header is refused when saving, naming the field",
          "[onnx][graph_json][errors]") {
  LoadedOnnx loaded = load_bytes(spelling_model().SerializeAsString());
  graphpat::Context& context = loaded.module.graph.context();
  graphpat::AttrTable& attrs = context.attrs;
  loaded.module.attrs = attrs.object("onnx.Model", {{"ir_version", attrs.string("8")}});
  absl::StatusOr<std::string> saved = graphpat::onnx::save(loaded);
  REQUIRE_FALSE(saved.ok());
  CHECK(message(saved.status()) ==
        "[graphpat.onnx.bad_header] module attribute onnx.Model field 'ir_version': expected an "
        "integer");
  // A header a pass changed is the model's header: the rest comes from the provenance.
  loaded.module.attrs =
      attrs.object("onnx.Model",
                   {{"ir_version", attrs.integer(7)},
                    {"opset_import", attrs.array({attrs.array({attrs.null(), attrs.integer(16)})})},
                    {"output_names", attrs.array({attrs.string("p1")})}});
  saved = graphpat::onnx::save(loaded);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  CHECK(written.ir_version() == 7);
  // The domain of com.example.Pair is imported (at version 1) as for any op of a new domain.
  REQUIRE(written.opset_import_size() == 2);
  CHECK_FALSE(written.opset_import(0).has_domain());
  CHECK(written.opset_import(0).version() == 16);
  CHECK(written.opset_import(1).domain() == "com.example");
  CHECK_FALSE(written.has_producer_name());
  CHECK(written.graph().node(1).name() == "pair0");
}
