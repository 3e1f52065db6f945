// The ONNX reader and writer (graphpat/io/onnx.hpp): every model of ONNX's own test suite and
// of the PyTorch corpus saves back byte for byte; the graphs of small models checked by hand
// against ONNX's test generators; a changed model passes onnx's checker and keeps its names;
// model-local functions and GRAPH attributes (nested functions with explicit captures) read,
// written back as they were, and written from the graph when changed; bad files get exact
// located messages.
#include <fmt/format.h>
#include <onnx/checker.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/analysis/verify.hpp"
#include "graphpat/io/onnx.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/transform/cse.hpp"
#include "support/onnx_files.hpp"
#include "support/test_files.hpp"

namespace {

namespace fs = std::filesystem;
using graphpat::NodeId;
using graphpat::NodeKind;
using graphpat::onnx::LoadedOnnx;
using graphpat::testing::kOnnxData;
using graphpat::testing::kOnnxTestdata;
using graphpat::testing::load_path;
using graphpat::testing::main_of;
using graphpat::testing::message;

std::string load_error(const onnx::ModelProto& model, graphpat::InputLimits limits = {}) {
  absl::StatusOr<LoadedOnnx> loaded =
      graphpat::onnx::load(model.SerializeAsString(), {.limits = limits});
  REQUIRE_FALSE(loaded.ok());
  return message(loaded.status());
}

/// A model of opset 17 whose graph has float input `x` of shape [2] and output `y`.
onnx::ModelProto tiny_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("tiny");
  for (const char* name : {"x", "y"}) {
    onnx::ValueInfoProto* info =
        name == std::string_view("x") ? graph->add_input() : graph->add_output();
    info->set_name(name);
    onnx::TypeProto_Tensor* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(2);
  }
  return model;
}

onnx::NodeProto* add_node(onnx::ModelProto& model, const std::string& name, const std::string& op,
                          std::vector<std::string> inputs, std::vector<std::string> outputs) {
  onnx::NodeProto* node = model.mutable_graph()->add_node();
  node->set_name(name);
  node->set_op_type(op);
  for (const std::string& input : inputs) node->add_input(input);
  for (const std::string& output : outputs) node->add_output(output);
  return node;
}

/// A new attribute `name` of `type` on `node`, its value left for the caller to set.
onnx::AttributeProto* add_attribute(onnx::NodeProto* node, const char* name,
                                    onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(type);
  return attribute;
}

onnx::TensorProto* add_initializer(onnx::ModelProto& model, const std::string& name,
                                   std::vector<std::int64_t> dims) {
  onnx::TensorProto* tensor = model.mutable_graph()->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (std::int64_t dim : dims) tensor->add_dims(dim);
  return tensor;
}

/// tiny_model() whose graph is y = custom.relu_neg(x), a model-local function computing
/// Neg(Relu(a)) in domain "custom" (imported at version 1).
onnx::ModelProto model_with_function() {
  onnx::ModelProto model = tiny_model();
  onnx::OperatorSetIdProto* custom = model.add_opset_import();
  custom->set_domain("custom");
  custom->set_version(1);
  add_node(model, "call0", "relu_neg", {"x"}, {"y"})->set_domain("custom");
  onnx::FunctionProto* function = model.add_functions();
  function->set_name("relu_neg");
  function->set_domain("custom");
  function->add_input("a");
  function->add_output("b");
  *function->add_opset_import() = model.opset_import(0);
  for (auto [name, op, input, output] : {std::array<const char*, 4>{"r", "Relu", "a", "t"},
                                         std::array<const char*, 4>{"n", "Neg", "t", "b"}}) {
    onnx::NodeProto* node = function->add_node();
    node->set_name(name);
    node->set_op_type(op);
    node->add_input(input);
    node->add_output(output);
  }
  return model;
}

std::string type_text(const graphpat::onnx::Graph& graph, graphpat::TypeId type) {
  return fmt::format("{}", graphpat::show(graph.context(), type));
}

std::string op_of(const graphpat::onnx::Graph& graph, NodeId call) {
  return std::string(graph.context().op_name(graph.called_op(call)));
}

}  // namespace

TEST_CASE("every libonnx-testdata model saves back byte for byte", "[onnx][io][corpus]") {
  // Every model reads, the 22 with GRAPH attributes (If, Loop, Scan and SequenceMap bodies,
  // and the Loops of expanded SequenceMap and Range) included.
  std::vector<fs::path> models;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kOnnxTestdata)) {
    if (entry.path().filename() == "model.onnx") models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  std::size_t identical = 0;
  std::size_t with_subgraphs = 0;
  for (const fs::path& path : models) {
    std::string name = path.parent_path().lexically_relative(kOnnxTestdata).generic_string();
    std::string bytes = graphpat::testing::read_file(path);
    absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
    INFO(name);
    REQUIRE(loaded.ok());
    CHECK(graphpat::verify(loaded->module.graph).ok());
    if (!loaded->provenance.origin()->subgraph_functions.empty()) ++with_subgraphs;
    absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
    REQUIRE(saved.ok());
    if (*saved == bytes)
      ++identical;
    else
      FAIL_CHECK("saved bytes differ");
  }
  CHECK(models.size() == 1072);
  CHECK(identical == 1072);
  CHECK(with_subgraphs == 22);
}

TEST_CASE(
    "every corpus model saves back byte for byte, with the node and initializer counts "
    "of counts.json",
    "[onnx][io][corpus]") {
  nlohmann::json counts =
      nlohmann::json::parse(graphpat::testing::read_file(kOnnxData / "counts.json"));
  std::size_t models = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kOnnxData)) {
    if (entry.path().extension() != ".onnx") continue;
    ++models;
    std::string name = entry.path().filename().string();
    INFO(name);
    std::string bytes = graphpat::testing::read_file(entry.path());
    LoadedOnnx loaded = load_path(entry.path());
    const graphpat::onnx::Graph& graph = loaded.module.graph;
    std::size_t calls = 0;
    std::size_t constants = 0;
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      calls += graph.kind(NodeId(i)) == NodeKind::kCall ? 1 : 0;
      constants += graph.kind(NodeId(i)) == NodeKind::kConstant ? 1 : 0;
    }
    CHECK(calls == counts.at(name).at("nodes").get<std::size_t>());
    CHECK(constants == counts.at(name).at("initializers").get<std::size_t>());
    CHECK(graphpat::verify(graph).ok());
    absl::StatusOr<std::string> saved = graphpat::onnx::save(loaded);
    REQUIRE(saved.ok());
    CHECK((*saved == bytes));
  }
  CHECK(models == 16);
}

TEST_CASE("test_relu reads as main(%x) { Relu(%x) } with the declared types", "[onnx][io]") {
  // ONNX's generator (onnx/backend/test/case/node/relu.py): x = randn(3, 4, 5) float32, one
  // node Relu(x) -> y.
  LoadedOnnx loaded = load_path(kOnnxTestdata / "node/test_relu/model.onnx");
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  NodeId main = main_of(loaded.module);
  REQUIRE(graph.params(main).size() == 1);
  NodeId x = graph.params(main)[0];
  CHECK(graph.name(x) == "x");
  CHECK(type_text(graph, graph.annotation(x)) == "Tensor[(3, 4, 5), float32]");
  NodeId body = graph.body(main);
  REQUIRE(graph.kind(body) == NodeKind::kCall);
  CHECK(op_of(graph, body) == "Relu");
  CHECK(std::vector<NodeId>(graph.args(body).begin(), graph.args(body).end()) ==
        std::vector<NodeId>{x});
  CHECK(type_text(graph, graph.type(body)) == "Tensor[(3, 4, 5), float32]");
  CHECK_FALSE(graph.attrs(body).valid());
  CHECK(graph.is_fresh(body));
  const graphpat::Span& span = graph.context().spans.get(graph.span(body));
  CHECK(graph.context().strings.view(span.source) == "");
  CHECK(span.line == 1);
  CHECK(loaded.module.functions().size() == 1);
}

TEST_CASE("a node of several outputs is a tuple-typed call read through TupleGetItems",
          "[onnx][io]") {
  SECTION("test_batchnorm_example_training_mode: all three outputs are graph outputs") {
    // batchnorm.py: x (2, 3, 4, 5); s, bias, mean, var (3); outputs y, output_mean, output_var.
    LoadedOnnx loaded =
        load_path(kOnnxTestdata / "node/test_batchnorm_example_training_mode/model.onnx");
    const graphpat::onnx::Graph& graph = loaded.module.graph;
    NodeId body = graph.body(main_of(loaded.module));
    REQUIRE(graph.kind(body) == NodeKind::kTuple);
    REQUIRE(graph.fields(body).size() == 3);
    NodeId call = graph.tuple(graph.fields(body)[0]);
    CHECK(op_of(graph, call) == "BatchNormalization");
    CHECK(type_text(graph, graph.type(call)) ==
          "(Tensor[(2, 3, 4, 5), float32], Tensor[(3), float32], Tensor[(3), float32])");
    for (std::uint32_t k = 0; k < 3; ++k) {
      NodeId item = graph.fields(body)[k];
      REQUIRE(graph.kind(item) == NodeKind::kTupleGetItem);
      CHECK(graph.tuple(item) == call);
      CHECK(graph.index(item) == k);
    }
    CHECK(fmt::format("{}", graphpat::show(graph.context(), graph.attrs(call))) ==
          "{training_mode=1i64}");
  }
  SECTION("mobilenet_v2.train: each BatchNormalization has five outputs, the next op reads 0") {
    LoadedOnnx loaded = load_path(kOnnxData / "mobilenet_v2.train.external.onnx");
    const graphpat::onnx::Graph& graph = loaded.module.graph;
    std::map<NodeId, std::vector<NodeId>> items;  // batch norm -> its TupleGetItems
    std::size_t batch_norms = 0;
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      NodeId id(i);
      if (graph.kind(id) == NodeKind::kCall && op_of(graph, id) == "BatchNormalization") {
        ++batch_norms;
        REQUIRE(graph.context().types.kind(graph.type(id)) == graphpat::TypeKind::kTuple);
        CHECK(graph.context().types.children(graph.type(id)).size() == 5);
        items[id];
      }
      if (graph.kind(id) == NodeKind::kTupleGetItem) items[graph.tuple(id)].push_back(id);
    }
    CHECK(batch_norms == 52);  // counts.json's bn0
    for (const auto& [batch_norm, reads] : items) {
      REQUIRE(reads.size() == 1);
      CHECK(graph.index(reads[0]) == 0);
    }
    // The first: Conv -> BatchNormalization -> ReLU6, which the exporter writes as Clip.
    NodeId first = items.begin()->first;
    NodeId item = items.begin()->second[0];
    bool read_by_clip = false;
    for (std::uint32_t i = item.index() + 1; i < graph.size(); ++i) {
      NodeId id(i);
      if (graph.kind(id) != NodeKind::kCall) continue;
      auto args = graph.args(id);
      if (std::find(args.begin(), args.end(), item) != args.end())
        read_by_clip = op_of(graph, id) == "Clip";
    }
    CHECK(read_by_clip);
    CHECK(op_of(graph, graph.args(first)[0]) == "Conv");
  }
}

TEST_CASE("external initializers are constants without bytes; inline ones alias the file",
          "[onnx][io]") {
  LoadedOnnx external = load_path(kOnnxData / "resnet18.external.onnx");
  LoadedOnnx inline_weights = load_path(kOnnxData / "lstm_tagger.onnx");
  for (const LoadedOnnx* loaded : {&external, &inline_weights}) {
    const graphpat::onnx::Graph& graph = loaded->module.graph;
    const onnx::GraphProto& proto = loaded->provenance.model().graph();
    std::size_t index = 0;
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      if (graph.kind(NodeId(i)) != NodeKind::kConstant) continue;
      const onnx::TensorProto& initializer = proto.initializer(static_cast<int>(index++));
      const graphpat::Tensor& tensor = graph.tensor(NodeId(i));
      CHECK(std::vector<std::int64_t>(initializer.dims().begin(), initializer.dims().end()) ==
            tensor.shape);
      if (initializer.data_location() == onnx::TensorProto::EXTERNAL) {
        CHECK_FALSE(tensor.has_data());
      } else if (initializer.has_raw_data()) {
        REQUIRE(tensor.has_data());
        CHECK(static_cast<const void*>(tensor.data->data.get()) ==
              static_cast<const void*>(initializer.raw_data().data()));
        CHECK(tensor.data->size == initializer.raw_data().size());
      }
    }
    CHECK(index == static_cast<std::size_t>(proto.initializer_size()));
  }
  CHECK(external.provenance.model().graph().initializer(0).data_location() ==
        onnx::TensorProto::EXTERNAL);
}

TEST_CASE("an absent optional input is the empty tuple, and saves back as \"\"", "[onnx][io]") {
  // clip.py, test_clip_default_int8_max: Clip(x, "", max) on int8 x (3, 4, 5).
  LoadedOnnx loaded = load_path(kOnnxTestdata / "node/test_clip_default_int8_max/model.onnx");
  const graphpat::onnx::Graph& graph = loaded.module.graph;
  NodeId main = main_of(loaded.module);
  NodeId body = graph.body(main);
  CHECK(op_of(graph, body) == "Clip");
  auto args = graph.args(body);
  REQUIRE(args.size() == 3);
  CHECK(args[0] == graph.params(main)[0]);
  CHECK(graph.kind(args[1]) == NodeKind::kTuple);
  CHECK(graph.fields(args[1]).empty());
  CHECK(graph.name(args[2]) == "max");
}

TEST_CASE("every NodeProto is its own call, in a topological order", "[onnx][io]") {
  onnx::ModelProto model = tiny_model();
  // Written consumers first: y = Add(a, b); a = Relu(x); b = Relu(x), twice the same Relu.
  add_node(model, "add", "Add", {"a", "b"}, {"y"});
  add_node(model, "relu_a", "Relu", {"x"}, {"a"});
  add_node(model, "relu_b", "Relu", {"x"}, {"b"});
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  const graphpat::onnx::Graph& graph = loaded->module.graph;
  NodeId body = graph.body(main_of(loaded->module));
  CHECK(op_of(graph, body) == "Add");
  auto args = graph.args(body);
  REQUIRE(args.size() == 2);
  CHECK(args[0] != args[1]);
  CHECK(args[0] < body);
  CHECK(args[1] < body);
  const graphpat::SpanTable& spans = graph.context().spans;
  CHECK(graph.context().strings.view(spans.get(graph.span(args[0])).source) == "relu_a");
  CHECK(spans.get(graph.span(args[0])).line == 2);
  CHECK(graph.context().strings.view(spans.get(graph.span(args[1])).source) == "relu_b");
  CHECK(spans.get(graph.span(args[1])).line == 3);
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  CHECK((*saved == bytes));
}

TEST_CASE("attributes are an object of the file's fields in order", "[onnx][io]") {
  onnx::ModelProto model = tiny_model();
  onnx::NodeProto* node = add_node(model, "n", "Custom", {"x"}, {"y"});
  node->set_domain("com.example");
  add_attribute(node, "i", onnx::AttributeProto::INT)->set_i(-3);
  add_attribute(node, "f", onnx::AttributeProto::FLOAT)->set_f(0.5F);
  add_attribute(node, "s", onnx::AttributeProto::STRING)->set_s("NOTSET");
  onnx::AttributeProto* ints = add_attribute(node, "ints", onnx::AttributeProto::INTS);
  ints->add_ints(1);
  ints->add_ints(2);
  add_attribute(node, "floats", onnx::AttributeProto::FLOATS)->add_floats(1.5F);
  add_attribute(node, "strings", onnx::AttributeProto::STRINGS)->add_strings("a");
  onnx::TensorProto* t = add_attribute(node, "t", onnx::AttributeProto::TENSOR)->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_float_data(2.0F);
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  const graphpat::onnx::Graph& graph = loaded->module.graph;
  graphpat::Context& context = graph.context();
  NodeId call = graph.body(main_of(loaded->module));
  CHECK(op_of(graph, call) == "com.example.Custom");
  CHECK_FALSE(context.ops.info(graph.called_op(call)).known);
  graphpat::AttrValueId attrs = graph.attrs(call);
  graphpat::AttrTable& table = context.attrs;
  CHECK(table.text(attrs) == "com.example.Custom");
  graphpat::AttrValueId tensor =
      table.object("onnx.TensorProto", {{"proto", table.string(t->SerializeAsString())}});
  graphpat::AttrValueId expected = table.object(
      "com.example.Custom", {{"i", table.integer(-3, 64)},
                             {"f", table.floating(0.5, 32)},
                             {"s", table.string("NOTSET")},
                             {"ints", table.array({table.integer(1, 64), table.integer(2, 64)})},
                             {"floats", table.array({table.floating(1.5, 32)})},
                             {"strings", table.array({table.string("a")})},
                             {"t", tensor}});
  CHECK(attrs == expected);
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  CHECK((*saved == bytes));
}

TEST_CASE("a changed model passes onnx's checker and keeps its names", "[onnx][io]") {
  std::string bytes = graphpat::testing::read_file(kOnnxData / "lstm_tagger.onnx");
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  graphpat::onnx::Module& module = loaded->module;
  graphpat::onnx::Graph& graph = module.graph;
  NodeId main = main_of(module);
  NodeId output = graph.body(main);
  REQUIRE(graph.kind(output) == NodeKind::kCall);
  graphpat::onnx::Builder builder(graph);
  NodeId relu = builder.call("Relu", {output}, {.type = graph.type(output)});
  std::vector<NodeId> params(graph.params(main).begin(), graph.params(main).end());
  module.add_function("main", builder.function(params, relu));

  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  std::string problem;
  try {
    onnx::checker::check_model(written);
  } catch (const std::exception& error) {
    problem = error.what();
  }
  CHECK(problem == "");

  const onnx::ModelProto& original = loaded->provenance.model();
  REQUIRE(written.graph().node_size() == original.graph().node_size() + 1);
  std::set<std::string> names;  // every node and value name of the original
  for (const onnx::NodeProto& node : original.graph().node()) {
    names.insert(node.name());
    names.insert(node.output().begin(), node.output().end());
  }
  for (const onnx::ValueInfoProto& input : original.graph().input()) names.insert(input.name());
  for (const onnx::TensorProto& init : original.graph().initializer()) names.insert(init.name());
  // Every original node is written unchanged, the new one last with fresh names.
  for (int i = 0; i < original.graph().node_size(); ++i) {
    CHECK(written.graph().node(i).SerializeAsString() ==
          original.graph().node(i).SerializeAsString());
  }
  const onnx::NodeProto& added = written.graph().node(original.graph().node_size());
  CHECK(added.op_type() == "Relu");
  CHECK(added.domain() == "");
  CHECK(added.name() == "graphpat_0");
  REQUIRE(added.output_size() == 1);
  CHECK(added.output(0) == "graphpat_1");
  CHECK(names.count(added.name()) == 0);
  CHECK(names.count(added.output(0)) == 0);
  REQUIRE(added.input_size() == 1);
  CHECK(added.input(0) == original.graph().output(0).name());
  REQUIRE(written.graph().output_size() == 1);
  CHECK(written.graph().output(0).name() == "graphpat_1");
  CHECK(written.graph().output(0).type().SerializeAsString() ==
        original.graph().output(0).type().SerializeAsString());
  CHECK(written.graph().input_size() == original.graph().input_size());
  for (int i = 0; i < original.graph().input_size(); ++i) {
    CHECK(written.graph().input(i).SerializeAsString() ==
          original.graph().input(i).SerializeAsString());
  }
  CHECK(written.graph().initializer_size() == original.graph().initializer_size());
  CHECK(written.opset_import(0).SerializeAsString() ==
        original.opset_import(0).SerializeAsString());
  CHECK(written.producer_name() == original.producer_name());
}

TEST_CASE("bad ONNX files get exact located errors", "[onnx][io][errors]") {
  SECTION("not a ModelProto") {
    std::string bytes = graphpat::testing::read_file(kOnnxTestdata / "node/test_relu/model.onnx");
    std::string half = bytes.substr(0, bytes.size() / 2);
    absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(half);
    REQUIRE_FALSE(loaded.ok());
    CHECK(message(loaded.status()) ==
          fmt::format("[graphpat.onnx.not_onnx] model: protobuf cannot parse these {} bytes as "
                      "an onnx.ModelProto (truncated, or another format)",
                      half.size()));
    absl::StatusOr<LoadedOnnx> empty = graphpat::onnx::load("");
    REQUIRE_FALSE(empty.ok());
    CHECK(message(empty.status()) == "[graphpat.onnx.not_onnx] model: the ModelProto has no graph");
  }
  SECTION("a file that cannot be read") {
    absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load_file("/nonexistent/model.onnx");
    REQUIRE_FALSE(loaded.ok());
    CHECK(message(loaded.status()) ==
          "[graphpat.onnx.unreadable_file] /nonexistent/model.onnx: cannot read the file");
  }
  SECTION("a dangling value name") {
    onnx::ModelProto model = tiny_model();
    add_node(model, "relu0", "Relu", {"w"}, {"y"});
    CHECK(load_error(model) ==
          "[graphpat.onnx.dangling_value] node 0 'relu0' (Relu): input 0 'w' is not a graph "
          "input, an initializer or an output of any node");
    onnx::ModelProto no_output = tiny_model();
    add_node(no_output, "relu0", "Relu", {"x"}, {"z"});
    CHECK(load_error(no_output) ==
          "[graphpat.onnx.dangling_value] graph output 0 'y': no graph input, initializer or "
          "node defines the value");
  }
  SECTION("two producers of one value") {
    onnx::ModelProto model = tiny_model();
    add_node(model, "a", "Relu", {"x"}, {"y"});
    add_node(model, "b", "Neg", {"x"}, {"y"});
    CHECK(load_error(model) ==
          "[graphpat.onnx.duplicate_value] node 1 'b' (Neg): value 'y' is already defined by "
          "output 0 of node 0 'a' (Relu)");
    onnx::ModelProto shadow = tiny_model();
    add_node(shadow, "a", "Relu", {"x"}, {"x"});
    CHECK(load_error(shadow) ==
          "[graphpat.onnx.duplicate_value] node 0 'a' (Relu): value 'x' is already defined by "
          "graph input 0");
  }
  SECTION("a graph input or initializer named by the empty name") {
    // Found by fuzz_onnx (regression_empty_input_name.onnx): a graph input named "" was what
    // a graph output named "" read, and the writer refused the output as no value. ONNX keeps
    // "" for an absent optional value; such a name defines nothing.
    onnx::ModelProto model = tiny_model();
    model.mutable_graph()->add_input()->set_name("");
    add_node(model, "relu0", "Relu", {"x"}, {"y"});
    CHECK(load_error(model) ==
          "[graphpat.onnx.unnamed_value] graph input 1 '': has the empty name, which ONNX keeps "
          "for an absent optional value");
    onnx::ModelProto initializer = tiny_model();
    add_node(initializer, "relu0", "Relu", {"x"}, {"y"});
    add_initializer(initializer, "", {2})->set_raw_data(std::string(8, '\0'));
    CHECK(load_error(initializer) ==
          "[graphpat.onnx.unnamed_value] initializer 0 '': has the empty name, which ONNX keeps "
          "for an absent optional value");
  }
  SECTION("an attribute of the wrong type") {
    onnx::ModelProto model = tiny_model();
    onnx::AttributeProto* alpha =
        add_node(model, "lrelu", "LeakyRelu", {"x"}, {"y"})->add_attribute();
    alpha->set_name("alpha");
    alpha->set_type(onnx::AttributeProto::FLOAT);
    alpha->add_ints(1);
    CHECK(load_error(model) ==
          "[graphpat.onnx.bad_attribute] node 0 'lrelu' (LeakyRelu): attribute 'alpha': declared "
          "FLOAT but holds a value of another type");
    alpha->clear_ints();
    alpha->set_type(onnx::AttributeProto::UNDEFINED);
    alpha->set_f(0.5F);
    CHECK(load_error(model) ==
          "[graphpat.onnx.bad_attribute] node 0 'lrelu' (LeakyRelu): attribute 'alpha': declared "
          "type 0 is not an attribute type");
  }
  SECTION("tensor bytes that disagree with the dims") {
    onnx::ModelProto model = tiny_model();
    add_node(model, "add", "Add", {"x", "w"}, {"y"});
    onnx::TensorProto* w = add_initializer(model, "w", {2, 3});
    w->set_raw_data(std::string(20, '\0'));
    CHECK(load_error(model) ==
          "[graphpat.onnx.bad_tensor] initializer 0 'w': raw_data holds 20 bytes, but dims 2x3 "
          "of float32 need 24");
    w->clear_raw_data();
    for (int i = 0; i < 5; ++i) w->add_float_data(1.0F);
    CHECK(load_error(model) ==
          "[graphpat.onnx.bad_tensor] initializer 0 'w': float_data holds 5 values, but dims 2x3 "
          "of float32 need 6");
    w->set_dims(0, -1);
    CHECK(load_error(model) ==
          "[graphpat.onnx.bad_tensor] initializer 0 'w': dimension -1 is negative");
  }
  SECTION("absurd dims and the limits") {
    onnx::ModelProto model = tiny_model();
    add_node(model, "add", "Add", {"x", "w"}, {"y"});
    onnx::TensorProto* w =
        add_initializer(model, "w", {std::int64_t{1} << 40, std::int64_t{1} << 40});
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    CHECK(load_error(model) ==
          "[graphpat.onnx.tensor_too_large] initializer 0 'w': the tensor's shape has 2^64 "
          "elements or more, more than the limit of 4294967296 bytes (max_tensor_bytes)");
    w->set_dims(0, 2);
    w->set_dims(1, 3);
    CHECK(load_error(model, {.max_tensor_bytes = 16}) ==
          "[graphpat.onnx.tensor_too_large] initializer 0 'w': the tensor needs 24 bytes, more "
          "than the limit of 16 (max_tensor_bytes)");
    // One graph input, one initializer, one node: three nodes.
    CHECK(load_error(model, {.max_nodes = 2}) ==
          "[graphpat.onnx.too_many_nodes] graph: more than 2 nodes (max_nodes)");
  }
  SECTION("a cycle") {
    onnx::ModelProto model = tiny_model();
    add_node(model, "a", "Relu", {"z"}, {"y"});
    add_node(model, "b", "Neg", {"y"}, {"z"});
    CHECK(load_error(model) ==
          "[graphpat.onnx.cycle] node 0 'a' (Relu): the node is on a cycle or reads one (its "
          "inputs depend on its own outputs)");
  }
  SECTION("what graphpat does not read yet") {
    onnx::ModelProto model = tiny_model();
    add_node(model, "relu0", "Relu", {"x"}, {"y"});
    onnx::ModelProto with_sparse = model;
    with_sparse.mutable_graph()->add_sparse_initializer();
    CHECK(load_error(with_sparse) ==
          "[graphpat.onnx.unsupported] graph: 1 sparse initializers (not yet supported by "
          "graphpat)");
  }
}

TEST_CASE("a changed node keeps its name and output names; a dropped one is gone", "[onnx][io]") {
  onnx::ModelProto model = tiny_model();
  add_node(model, "relu_a", "Relu", {"x"}, {"a"});
  add_node(model, "relu_b", "Relu", {"x"}, {"b"});
  add_node(model, "add", "Add", {"a", "b"}, {"y"})->set_doc_string("the sum");
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(model.SerializeAsString());
  REQUIRE(loaded.ok());
  graphpat::onnx::Module& module = loaded->module;
  graphpat::onnx::Graph& graph = module.graph;
  NodeId main = main_of(module);
  NodeId add = graph.body(main);
  NodeId relu_a = graph.args(add)[0];
  // Add(a, a): the same node (its span), other inputs; relu_b no longer read.
  graphpat::onnx::Builder builder(graph);
  NodeId changed = builder.call(graph.callee(add), {relu_a, relu_a},
                                {.type = graph.type(add), .span = graph.span(add), .fresh = true});
  std::vector<NodeId> params(graph.params(main).begin(), graph.params(main).end());
  module.add_function("main", builder.function(params, changed));
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  REQUIRE(written.graph().node_size() == 2);
  CHECK(written.graph().node(0).SerializeAsString() == model.graph().node(0).SerializeAsString());
  const onnx::NodeProto& node = written.graph().node(1);
  CHECK(node.name() == "add");
  CHECK(node.op_type() == "Add");
  CHECK(std::vector<std::string>(node.input().begin(), node.input().end()) ==
        std::vector<std::string>{"a", "a"});
  CHECK(std::vector<std::string>(node.output().begin(), node.output().end()) ==
        std::vector<std::string>{"y"});
  CHECK(node.doc_string() == "");
  CHECK(written.graph().output(0).SerializeAsString() ==
        model.graph().output(0).SerializeAsString());
  CHECK(written.graph().input(0).SerializeAsString() == model.graph().input(0).SerializeAsString());
  CHECK(written.graph().name() == "tiny");
}

TEST_CASE("a module built without a file is written with fresh names and passes the checker",
          "[onnx][io]") {
  graphpat::onnx::Module module;
  graphpat::onnx::Graph& graph = module.graph;
  graphpat::onnx::Builder builder(graph);
  graphpat::TypeTable& types = graph.context().types;
  graphpat::TypeId type =
      types.tensor("float32", {types.symbolic_dim("n", "onnx.dim_param"), types.dim(4)});
  NodeId x = builder.var("x", type, {.type = type});
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(16, std::uint8_t{0});
  graphpat::TensorId tensor =
      graph.context().tensors.add({.dtype = graph.context().strings.intern("float32"),
                                   .shape = {4},
                                   .data = graphpat::share_bytes(bytes)});
  NodeId bias = builder.constant(tensor, {.type = types.tensor("float32", {types.dim(4)})});
  NodeId sum = builder.call("Add", {x, bias}, {.type = type});
  NodeId relu = builder.call("Relu", {sum}, {.type = type});
  module.add_function("main", builder.function({x}, relu));
  absl::StatusOr<std::string> saved = graphpat::onnx::save(module);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  std::string problem;
  try {
    onnx::checker::check_model(written);
  } catch (const std::exception& error) {
    problem = error.what();
  }
  CHECK(problem == "");
  CHECK(written.ir_version() == 8);
  REQUIRE(written.opset_import_size() == 1);
  CHECK(written.opset_import(0).domain() == "");
  CHECK(written.opset_import(0).version() == 17);
  const onnx::GraphProto& g = written.graph();
  REQUIRE(g.initializer_size() == 1);
  CHECK(g.initializer(0).name() == "graphpat_0");
  CHECK(g.initializer(0).raw_data() == std::string(16, '\0'));
  REQUIRE(g.node_size() == 2);
  CHECK(g.node(0).name() == "graphpat_1");
  CHECK(std::vector<std::string>(g.node(0).input().begin(), g.node(0).input().end()) ==
        std::vector<std::string>{"x", "graphpat_0"});
  CHECK(g.node(0).output(0) == "graphpat_2");
  CHECK(g.node(1).name() == "graphpat_3");
  CHECK(g.node(1).output(0) == "graphpat_4");
  REQUIRE(g.output_size() == 1);
  CHECK(g.output(0).name() == "graphpat_4");
  CHECK(g.input(0).type().tensor_type().shape().dim(0).dim_param() == "n");
  CHECK(g.input(0).type().tensor_type().shape().dim(1).dim_value() == 4);
  REQUIRE(g.value_info_size() == 1);
  CHECK(g.value_info(0).name() == "graphpat_2");

  // Read back: the same graph.
  absl::StatusOr<LoadedOnnx> again = graphpat::onnx::load(*saved);
  REQUIRE(again.ok());
  const graphpat::onnx::Graph& read = again->module.graph;
  NodeId body = read.body(main_of(again->module));
  CHECK(op_of(read, body) == "Relu");
  CHECK(type_text(read, read.type(body)) == "Tensor[(n, 4), float32]");
  CHECK(op_of(read, read.args(body)[0]) == "Add");
}

TEST_CASE("what no ModelProto holds is refused when saving", "[onnx][io][errors]") {
  graphpat::onnx::Module module;
  graphpat::onnx::Builder builder(module.graph);
  NodeId x = builder.var("x");
  NodeId y = builder.var("y");
  absl::StatusOr<std::string> none = graphpat::onnx::save(module);
  REQUIRE_FALSE(none.ok());
  CHECK(message(none.status()) ==
        "[graphpat.onnx.unsupported] the module has no function main (ONNX cannot hold it, or "
        "graphpat does not write it yet)");
  LoadedOnnx relu = load_path(kOnnxTestdata / "node/test_relu/model.onnx");
  absl::StatusOr<std::string> foreign = graphpat::onnx::save(module, relu.provenance);
  REQUIRE_FALSE(foreign.ok());
  CHECK(message(foreign.status()) ==
        "[graphpat.onnx.unsupported] a provenance of a graph of another context (pass the "
        "provenance of the load that made this graph, or of the graph a pass made of it) (ONNX "
        "cannot hold it, or graphpat does not write it yet)");
  module.add_function("main", builder.function({x}, builder.call("Add", {x, y})));
  absl::StatusOr<std::string> free_var = graphpat::onnx::save(module);
  REQUIRE_FALSE(free_var.ok());
  CHECK(message(free_var.status()) ==
        "[graphpat.onnx.unsupported] node %1: variable 'y' is not a parameter of main (ONNX "
        "cannot hold it, or graphpat does not write it yet)");
}

TEST_CASE("CSE's output saves with the file's names and passes the checker", "[onnx][io]") {
  // torch's exporter writes the same Constant and Shape nodes several times; CSE merges them.
  LoadedOnnx loaded = load_path(kOnnxData / "lstm_tagger.onnx");
  graphpat::CseResult<graphpat::onnx::Dialect> result =
      graphpat::eliminate_common_subexpr(loaded.module);
  std::uint32_t merged_calls = 0;
  for (const auto& [what, count] : result.report.merged_by) {
    if (what.starts_with("Call ")) merged_calls += count;
  }
  REQUIRE(merged_calls > 0);
  absl::StatusOr<std::string> saved = graphpat::onnx::save(result.module, loaded.provenance);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  std::string problem;
  try {
    onnx::checker::check_model(written);
  } catch (const std::exception& error) {
    problem = error.what();
  }
  CHECK(problem == "");
  const onnx::GraphProto& original = loaded.provenance.model().graph();
  CHECK(written.graph().node_size() == original.node_size() - static_cast<int>(merged_calls));
  std::map<std::string, const onnx::NodeProto*> by_name;
  for (const onnx::NodeProto& node : original.node()) by_name[node.name()] = &node;
  for (const onnx::NodeProto& node : written.graph().node()) {
    INFO(node.name());
    REQUIRE(by_name.count(node.name()) == 1);  // no new node, every name the file's
    const onnx::NodeProto& source = *by_name[node.name()];
    CHECK(node.op_type() == source.op_type());
    CHECK(std::vector<std::string>(node.output().begin(), node.output().end()) ==
          std::vector<std::string>(source.output().begin(), source.output().end()));
  }
  CHECK(written.graph().output(0).SerializeAsString() == original.output(0).SerializeAsString());
  CHECK(written.graph().initializer_size() == original.initializer_size());
}

TEST_CASE(
    "node names and value names are separate namespaces; dead nodes and unread "
    "initializers are kept",
    "[onnx][io]") {
  onnx::ModelProto model = tiny_model();
  add_node(model, "y", "Relu", {"x"}, {"y"});                      // a node named as its output
  add_node(model, "dead", "Add", {"x", "only_dead"}, {"unused"});  // nothing reads `unused`
  add_initializer(model, "only_dead", {2})->set_raw_data(std::string(8, '\0'));
  add_initializer(model, "spare", {1})->add_float_data(3.0F);  // nothing reads `spare`
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  CHECK((*saved == bytes));

  // Changed (a Relu on the output): the dead node and the spare initializer stay.
  graphpat::onnx::Module& module = loaded->module;
  graphpat::onnx::Graph& graph = module.graph;
  NodeId main = main_of(module);
  graphpat::onnx::Builder builder(graph);
  NodeId relu = builder.call("Relu", {graph.body(main)}, {.type = graph.type(graph.body(main))});
  std::vector<NodeId> params(graph.params(main).begin(), graph.params(main).end());
  module.add_function("main", builder.function(params, relu));
  absl::StatusOr<std::string> changed = graphpat::onnx::save(*loaded);
  REQUIRE(changed.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*changed));
  std::vector<std::string> nodes;
  for (const onnx::NodeProto& node : written.graph().node()) nodes.push_back(node.name());
  CHECK(nodes == std::vector<std::string>{"y", "graphpat_0", "dead"});
  REQUIRE(written.graph().initializer_size() == 2);
  CHECK(written.graph().initializer(0).name() == "only_dead");  // in the file's order
  CHECK(written.graph().initializer(1).name() == "spare");
}

TEST_CASE("unknown dims are Any; a type graphpat does not model is an opaque type of its text",
          "[onnx][io]") {
  onnx::ModelProto model = tiny_model();
  onnx::GraphProto* graph_proto = model.mutable_graph();
  // x: float tensor with dims [unknown, batch]; s: a sequence of float tensors of shape [2].
  graph_proto->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->clear_dim_value();
  graph_proto->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->add_dim()
      ->set_dim_param("batch");
  onnx::ValueInfoProto* s = graph_proto->add_input();
  s->set_name("s");
  onnx::TypeProto_Tensor* element =
      s->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
  element->set_elem_type(onnx::TensorProto::FLOAT);
  element->mutable_shape()->add_dim()->set_dim_value(2);
  add_node(model, "at", "SequenceAt", {"s", "i"}, {"y"});
  onnx::TensorProto* i = graph_proto->add_initializer();
  i->set_name("i");
  i->set_data_type(onnx::TensorProto::INT64);
  i->add_int64_data(0);
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  graphpat::onnx::Module& module = loaded->module;
  graphpat::onnx::Graph& graph = module.graph;
  NodeId main = main_of(module);
  REQUIRE(graph.params(main).size() == 2);
  CHECK(type_text(graph, graph.annotation(graph.params(main)[0])) == "Tensor[(?, batch), float32]");
  graphpat::TypeId sequence = graph.annotation(graph.params(main)[1]);
  REQUIRE(graph.context().types.kind(sequence) == graphpat::TypeKind::kOpaque);
  CHECK(graph.context().strings.view(graph.context().types.get(sequence).name) ==
        "onnx.TypeProto{sequence_type { elem_type { tensor_type { elem_type: 1 shape { dim { "
        "dim_value: 2 } } } } }}");
  // The int64 initializer's bytes alias int64_data.
  NodeId index = graph.args(graph.body(main))[1];
  REQUIRE(graph.kind(index) == NodeKind::kConstant);
  CHECK(static_cast<const void*>(graph.tensor(index).data->data.get()) ==
        static_cast<const void*>(
            loaded->provenance.model().graph().initializer(0).int64_data().data()));

  // Both types written back for new parameters: a module of the same graph under new Vars.
  graphpat::onnx::Builder builder(graph);
  NodeId x2 = builder.var("x2", graph.annotation(graph.params(main)[0]));
  NodeId s2 = builder.var("s2", sequence);
  NodeId at = builder.call("SequenceAt", {s2, index}, {.type = graph.type(graph.body(main))});
  NodeId add = builder.call("Add", {at, x2}, {.type = graph.type(graph.body(main))});
  module.add_function("main", builder.function({x2, s2}, add));
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  REQUIRE(written.graph().input_size() == 2);
  CHECK(written.graph().input(0).name() == "x2");
  CHECK(written.graph().input(0).type().SerializeAsString() ==
        model.graph().input(0).type().SerializeAsString());
  CHECK(written.graph().input(1).name() == "s2");
  CHECK(written.graph().input(1).type().SerializeAsString() ==
        model.graph().input(1).type().SerializeAsString());
}

TEST_CASE(
    "an initializer only a dead node reads, listed as a graph input, is kept (fuzz_onnx finding)",
    "[onnx][io]") {
  // y = Relu(x) is the output; dead = Add(x, w) feeds nothing, and only it reads `w`, which is
  // also listed as a graph input. Nothing changed, so the save is the file byte for byte.
  onnx::ModelProto model = tiny_model();
  add_initializer(model, "w", {2})->set_raw_data(std::string(8, '\0'));
  model.mutable_graph()->add_input()->set_name("w");
  add_node(model, "relu", "Relu", {"x"}, {"y"});
  add_node(model, "dead", "Add", {"x", "w"}, {"unused"});
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  CHECK(graphpat::onnx::save(*loaded).value() == bytes);
}

TEST_CASE("two nodes of one name both keep it (fuzz_onnx finding)", "[onnx][io]") {
  // Node names are for diagnostics only; a file may repeat one, and an unchanged model still
  // saves byte for byte. A changed node keeps its name even when another node has it too.
  onnx::ModelProto model = tiny_model();
  add_node(model, "same", "Relu", {"x"}, {"a"});
  add_node(model, "same", "Relu", {"a"}, {"y"});
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  CHECK(graphpat::onnx::save(*loaded).value() == bytes);

  // The second Relu reads x instead of a (same span, other input): changed, still "same".
  graphpat::onnx::Module& module = loaded->module;
  graphpat::onnx::Graph& graph = module.graph;
  NodeId main = main_of(module);
  NodeId second = graph.body(main);
  NodeId x = graph.params(main)[0];
  graphpat::onnx::Builder builder(graph);
  NodeId changed =
      builder.call(graph.callee(second), {x},
                   {.type = graph.type(second), .span = graph.span(second), .fresh = true});
  module.add_function("main", builder.function(std::vector<NodeId>{x}, changed));
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(graphpat::onnx::save(*loaded).value()));
  REQUIRE(written.graph().node_size() == 1);
  CHECK(written.graph().node(0).name() == "same");
  CHECK(std::vector<std::string>(written.graph().node(0).input().begin(),
                                 written.graph().node(0).input().end()) ==
        std::vector<std::string>{"x"});
  CHECK(written.graph().node(0).output(0) == "y");
}

TEST_CASE("a value output twice is read when both outputs declare one type (fuzz_onnx finding)",
          "[onnx][io][errors]") {
  onnx::ModelProto model = tiny_model();
  add_node(model, "relu", "Relu", {"x"}, {"y"});
  *model.mutable_graph()->add_output() = model.graph().output(0);
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  CHECK(graphpat::onnx::save(*loaded).value() == bytes);

  // The second declares shape [4]: y cannot have both types.
  model.mutable_graph()
      ->mutable_output(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(4);
  CHECK(load_error(model) ==
        "[graphpat.onnx.duplicate_value] graph output 1 'y': the value is already graph output "
        "0, declared with another type");
}

TEST_CASE("a value_info naming no value of the file is kept as it was (fuzz_onnx finding)",
          "[onnx][io]") {
  onnx::ModelProto model = tiny_model();
  add_node(model, "relu", "Relu", {"x"}, {"y"});
  model.mutable_graph()->add_value_info()->set_name("stale");
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  CHECK(graphpat::onnx::save(*loaded).value() == bytes);
}

TEST_CASE("a model-local function is a module function domain.name, saved back byte for byte",
          "[onnx][io][functions]") {
  onnx::ModelProto model = model_with_function();
  REQUIRE(graphpat::testing::checker_problem(model) == "");
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  const graphpat::onnx::Module& module = loaded->module;
  const graphpat::onnx::Graph& graph = module.graph;
  std::vector<std::string> names;
  for (const graphpat::GlobalFunction& function : module.functions()) {
    names.emplace_back(module.name(function));
  }
  CHECK(names == std::vector<std::string>{"main", "custom.relu_neg"});
  // custom.relu_neg(%a) { Neg(Relu(%a)) }: untyped, since a FunctionProto declares no types.
  NodeId function = *module.find("custom.relu_neg");
  REQUIRE(graph.params(function).size() == 1);
  NodeId a = graph.params(function)[0];
  CHECK(graph.name(a) == "a");
  NodeId neg = graph.body(function);
  CHECK(op_of(graph, neg) == "Neg");
  CHECK_FALSE(graph.type(neg).valid());
  NodeId relu = graph.args(neg)[0];
  CHECK(op_of(graph, relu) == "Relu");
  CHECK(graph.args(relu)[0] == a);
  // main(%x) { @custom.relu_neg(%x) }
  NodeId main = main_of(module);
  NodeId call = graph.body(main);
  REQUIRE(graph.kind(call) == NodeKind::kCall);
  REQUIRE(graph.kind(graph.callee(call)) == NodeKind::kGlobalVar);
  CHECK(graph.name(graph.callee(call)) == "custom.relu_neg");
  CHECK(graph.args(call)[0] == graph.params(main)[0]);
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  CHECK(*saved == bytes);
}

TEST_CASE("an unchanged function is written as it was, a changed one with canonical names",
          "[onnx][io][functions]") {
  onnx::ModelProto model = model_with_function();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(model.SerializeAsString());
  REQUIRE(loaded.ok());
  graphpat::onnx::Module& module = loaded->module;
  graphpat::onnx::Builder builder(module.graph);
  NodeId main = main_of(module);
  NodeId x = module.graph.params(main)[0];
  NodeId call = module.graph.body(main);
  module.add_function(
      "main",
      builder.function({x}, builder.call("Relu", {call}, {.type = module.graph.type(call)})));
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  CHECK(graphpat::testing::checker_problem(written) == "");
  REQUIRE(written.functions_size() == 1);
  CHECK(written.functions(0).SerializeAsString() == model.functions(0).SerializeAsString());
  REQUIRE(written.graph().node_size() == 2);
  CHECK(written.graph().node(0).SerializeAsString() == model.graph().node(0).SerializeAsString());

  // A new body for custom.relu_neg: Sigmoid(%p).
  NodeId p = builder.var("p");
  module.add_function("custom.relu_neg", builder.function({p}, builder.call("Sigmoid", {p})));
  saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  REQUIRE(written.ParseFromString(*saved));
  CHECK(graphpat::testing::checker_problem(written) == "");
  REQUIRE(written.functions_size() == 1);
  const onnx::FunctionProto& function = written.functions(0);
  CHECK(function.domain() == "custom");
  CHECK(function.name() == "relu_neg");
  CHECK(std::vector<std::string>(function.input().begin(), function.input().end()) ==
        std::vector<std::string>{"x0"});
  CHECK(std::vector<std::string>(function.output().begin(), function.output().end()) ==
        std::vector<std::string>{"v0"});
  REQUIRE(function.node_size() == 1);
  CHECK(function.node(0).name() == "n0");
  CHECK(function.node(0).op_type() == "Sigmoid");
  CHECK(function.node(0).input(0) == "x0");
  CHECK(function.node(0).output(0) == "v0");
  // The function imports what the model does.
  REQUIRE(function.opset_import_size() == 2);
  CHECK(function.opset_import(0).SerializeAsString() == model.opset_import(0).SerializeAsString());
  CHECK(function.opset_import(1).SerializeAsString() == model.opset_import(1).SerializeAsString());

  // A module function needs a domain.
  module.add_function("plain", builder.function({p}, builder.call("Sigmoid", {p})));
  saved = graphpat::onnx::save(*loaded);
  REQUIRE_FALSE(saved.ok());
  CHECK(message(saved.status()) ==
        "[graphpat.onnx.unsupported] module function 'plain': an ONNX function needs a domain "
        "(name it 'domain.plain') (ONNX cannot hold it, or graphpat does not write it yet)");
}

TEST_CASE("bad model-local functions get exact located errors", "[onnx][io][functions][errors]") {
  onnx::ModelProto twice = model_with_function();
  *twice.add_functions() = twice.functions(0);
  CHECK(load_error(twice) ==
        "[graphpat.onnx.duplicate_value] function 1 'custom.relu_neg': another function has this "
        "name");
  onnx::ModelProto dangling_output = model_with_function();
  dangling_output.mutable_functions(0)->set_output(0, "zz");
  CHECK(load_error(dangling_output) ==
        "[graphpat.onnx.dangling_value] function 0 'custom.relu_neg': output 0 'zz' is not an "
        "input of the function or an output of any of its nodes");
  onnx::ModelProto dangling_input = model_with_function();
  dangling_input.mutable_functions(0)->mutable_node(1)->set_input(0, "q");
  CHECK(load_error(dangling_input) ==
        "[graphpat.onnx.dangling_value] function 0 'custom.relu_neg': node 1 'n' (Neg): input 0 "
        "'q' is not an input of the function or an output of any of its nodes");
  onnx::ModelProto input_twice = model_with_function();
  input_twice.mutable_functions(0)->mutable_node(0)->set_output(0, "a");
  CHECK(load_error(input_twice) ==
        "[graphpat.onnx.duplicate_value] function 0 'custom.relu_neg': node 0 'r' (Relu): value "
        "'a' is already defined by input 0");
  onnx::ModelProto with_attribute = model_with_function();
  with_attribute.mutable_functions(0)->add_attribute("alpha");
  CHECK(load_error(with_attribute) ==
        "[graphpat.onnx.unsupported] function 0 'custom.relu_neg': 1 attribute parameters (not "
        "yet supported by graphpat)");
  onnx::ModelProto named_main = model_with_function();
  named_main.mutable_functions(0)->set_domain("");
  named_main.mutable_functions(0)->set_name("main");
  CHECK(load_error(named_main) ==
        "[graphpat.onnx.duplicate_value] function 0 'main': the name of the main graph");
  // Its nodes count against max_nodes: 2 graph nodes and inputs + 3 of the function.
  CHECK(load_error(model_with_function(), {.max_nodes = 4}) ==
        "[graphpat.onnx.too_many_nodes] graph: more than 4 nodes (max_nodes)");
}

namespace {

/// tiny_model() whose graph is y = If(c) then Relu(x) else Neg(x), the branches reading the
/// main graph's x; c is a bool input. The If is node `if_node` of the file.
onnx::ModelProto model_with_if(bool producer_first = true) {
  onnx::ModelProto model = tiny_model();
  onnx::ValueInfoProto* c = model.mutable_graph()->add_input();
  c->set_name("c");
  c->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
  c->mutable_type()->mutable_tensor_type()->mutable_shape();
  auto branch = [&](const char* name, const char* op, const char* output) {
    onnx::GraphProto graph;
    graph.set_name(name);
    onnx::NodeProto* node = graph.add_node();
    node->set_name(std::string(name) + "_node");
    node->set_op_type(op);
    node->add_input("x2");
    node->add_output(output);
    *graph.add_output() = model.graph().output(0);
    graph.mutable_output(0)->set_name(output);
    return graph;
  };
  onnx::NodeProto twice;  // x2 = Add(x, x): a node of main the branches read
  twice.set_name("twice");
  twice.set_op_type("Add");
  twice.add_input("x");
  twice.add_input("x");
  twice.add_output("x2");
  onnx::NodeProto if_node;
  if_node.set_name("if_node");
  if_node.set_op_type("If");
  if_node.add_input("c");
  if_node.add_output("y");
  for (auto [attribute, graph] : {std::pair{"then_branch", branch("then", "Relu", "t")},
                                  std::pair{"else_branch", branch("else", "Neg", "e")}}) {
    onnx::AttributeProto* a = if_node.add_attribute();
    a->set_name(attribute);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = graph;
  }
  *model.mutable_graph()->add_node() = producer_first ? twice : if_node;
  *model.mutable_graph()->add_node() = producer_first ? if_node : twice;
  return model;
}

}  // namespace

TEST_CASE("a GRAPH attribute is a function argument, the outer values it reads captured",
          "[onnx][io][subgraphs]") {
  onnx::ModelProto model = model_with_if();
  REQUIRE(graphpat::testing::checker_problem(model) == "");
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  const graphpat::onnx::Graph& graph = loaded->module.graph;
  NodeId main = main_of(loaded->module);
  NodeId call = graph.body(main);
  CHECK(op_of(graph, call) == "If");
  // If(%c, fn(%x2) { Relu(%x2) }, %x2, fn(%x2) { Neg(%x2) }, %x2)
  auto args = graph.args(call);
  REQUIRE(args.size() == 5);
  NodeId c = graph.params(main)[1];
  CHECK(graph.name(c) == "c");
  CHECK(args[0] == c);
  NodeId twice = args[2];
  CHECK(op_of(graph, twice) == "Add");
  CHECK(args[4] == twice);
  for (auto [k, op] : {std::pair{1, "Relu"}, std::pair{3, "Neg"}}) {
    NodeId function = args[k];
    REQUIRE(graph.kind(function) == NodeKind::kFunction);
    REQUIRE(graph.params(function).size() == 1);
    NodeId captured = graph.params(function)[0];
    CHECK(graph.name(captured) == "x2");
    NodeId body = graph.body(function);
    CHECK(op_of(graph, body) == op);
    CHECK(graph.args(body)[0] == captured);
  }
  // Each GRAPH attribute says where its function and captures are (the printer leaves out
  // the objects' type key, onnx.Graph).
  CHECK(fmt::format("{}", graphpat::show(graph.context(), graph.attrs(call))) ==
        "{then_branch={arg=1i64, captures=1i64}, else_branch={arg=3i64, captures=1i64}}");
  const graphpat::AttrTable& attrs = graph.context().attrs;
  for (std::string_view key : {"then_branch", "else_branch"}) {
    CHECK(attrs.text(*attrs.find_field(graph.attrs(call), key)) == "onnx.Graph");
  }
  CHECK(graphpat::verify(loaded->module).ok());
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  CHECK(*saved == bytes);

  // A file with the If before the Add whose value its branches read: sorted on import.
  absl::StatusOr<LoadedOnnx> unsorted =
      graphpat::onnx::load(model_with_if(/*producer_first=*/false).SerializeAsString());
  REQUIRE(unsorted.ok());
  CHECK(graphpat::structural_equal(unsorted->module, loaded->module));
}

TEST_CASE("names graphpat makes up skip the file's names of their form, subgraphs' too",
          "[onnx][io][subgraphs]") {
  // The reader keeps only the names a fresh one could take (graphpat_N); these are in the main
  // graph (a node, an input, a value_info naming no value) and in a branch (a value).
  onnx::ModelProto model = model_with_if();
  onnx::GraphProto& main_graph = *model.mutable_graph();
  main_graph.mutable_node(0)->set_name("graphpat_0");
  main_graph.mutable_input(1)->set_name("graphpat_3");
  main_graph.mutable_node(1)->set_input(0, "graphpat_3");
  main_graph.add_value_info()->set_name("graphpat_2");
  onnx::GraphProto& then_branch = *main_graph.mutable_node(1)->mutable_attribute(0)->mutable_g();
  then_branch.mutable_node(0)->set_output(0, "graphpat_1");
  then_branch.mutable_output(0)->set_name("graphpat_1");
  std::string bytes = model.SerializeAsString();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(bytes);
  REQUIRE(loaded.ok());
  graphpat::onnx::Graph& graph = loaded->module.graph;
  NodeId main = main_of(loaded->module);
  graphpat::onnx::Builder builder(graph);
  NodeId relu = builder.call("Relu", {graph.body(main)}, {.type = graph.type(graph.body(main))});
  std::vector<NodeId> params(graph.params(main).begin(), graph.params(main).end());
  loaded->module.add_function("main", builder.function(params, relu));
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  REQUIRE(written.graph().node_size() == 3);
  const onnx::NodeProto& added = written.graph().node(2);
  CHECK(added.op_type() == "Relu");
  CHECK(added.name() == "graphpat_4");
  CHECK(std::vector<std::string>(added.output().begin(), added.output().end()) ==
        std::vector<std::string>{"graphpat_5"});
  CHECK(written.graph().node(1).SerializeAsString() == main_graph.node(1).SerializeAsString());
}

TEST_CASE("a changed subgraph is written from its function; an unchanged one as it was",
          "[onnx][io][subgraphs]") {
  onnx::ModelProto model = model_with_if();
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(model.SerializeAsString());
  REQUIRE(loaded.ok());
  graphpat::onnx::Module& module = loaded->module;
  graphpat::onnx::Graph& graph = module.graph;
  graphpat::onnx::Builder builder(graph);
  NodeId main = main_of(module);
  NodeId call = graph.body(main);
  // The If with a new then-branch, fn(%x2) { Abs(%x2) }, its output read by a new Sigmoid.
  std::vector<NodeId> args(graph.args(call).begin(), graph.args(call).end());
  NodeId then_function = args[1];
  NodeId captured = builder.var("x2", graph.annotation(graph.params(then_function)[0]));
  args[1] = builder.function(
      {captured}, builder.call("Abs", {captured}, {.type = graph.type(graph.body(then_function))}));
  NodeId changed = builder.call(graph.callee(call), args,
                                {.attrs = graph.attrs(call),
                                 .type = graph.type(call),
                                 .span = graph.span(call),
                                 .fresh = true});
  NodeId sigmoid = builder.call("Sigmoid", {changed}, {.type = graph.type(call)});
  std::vector<NodeId> params(graph.params(main).begin(), graph.params(main).end());
  module.add_function("main", builder.function(params, sigmoid));
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  REQUIRE(saved.ok());
  onnx::ModelProto written;
  REQUIRE(written.ParseFromString(*saved));
  CHECK(graphpat::testing::checker_problem(written) == "");
  REQUIRE(written.graph().node_size() == 3);
  CHECK(written.graph().node(0).SerializeAsString() == model.graph().node(0).SerializeAsString());
  const onnx::NodeProto& if_node = written.graph().node(1);
  const onnx::NodeProto& original = model.graph().node(1);
  CHECK(if_node.name() == "if_node");
  CHECK(std::vector<std::string>(if_node.input().begin(), if_node.input().end()) ==
        std::vector<std::string>{"c"});
  CHECK(std::vector<std::string>(if_node.output().begin(), if_node.output().end()) ==
        std::vector<std::string>{"y"});
  REQUIRE(if_node.attribute_size() == 2);
  CHECK(if_node.attribute(0).name() == "then_branch");
  CHECK(if_node.attribute(0).type() == onnx::AttributeProto::GRAPH);
  const onnx::GraphProto& branch = if_node.attribute(0).g();
  CHECK(branch.input_size() == 0);
  REQUIRE(branch.node_size() == 1);
  CHECK(branch.node(0).op_type() == "Abs");
  // It reads the main graph's value by its name; its own names are fresh in the file.
  CHECK(std::vector<std::string>(branch.node(0).input().begin(), branch.node(0).input().end()) ==
        std::vector<std::string>{"x2"});
  // Fresh names are numbered in writing order: the Abs node, its output, then the graph.
  CHECK(branch.node(0).name() == "graphpat_0");
  CHECK(branch.node(0).output(0) == "graphpat_1");
  CHECK(branch.name() == "graphpat_2");
  REQUIRE(branch.output_size() == 1);
  CHECK(branch.output(0).name() == "graphpat_1");
  CHECK(branch.output(0).type().SerializeAsString() ==
        model.graph().output(0).type().SerializeAsString());
  // The else-branch is the file's.
  CHECK(if_node.attribute(1).SerializeAsString() == original.attribute(1).SerializeAsString());
  // Read back: the module written, captures and all.
  absl::StatusOr<LoadedOnnx> reread = graphpat::onnx::load(*saved);
  REQUIRE(reread.ok());
  CHECK(graphpat::structural_equal(reread->module, module));
}

TEST_CASE("bad subgraphs get exact located errors", "[onnx][io][subgraphs][errors]") {
  onnx::ModelProto dangling = model_with_if();
  dangling.mutable_graph()
      ->mutable_node(1)
      ->mutable_attribute(0)
      ->mutable_g()
      ->mutable_node(0)
      ->set_input(0, "q");
  CHECK(load_error(dangling) ==
        "[graphpat.onnx.dangling_value] node 1 'if_node' (If): attribute 'then_branch': node 0 "
        "'then_node' (Relu): input 0 'q' is not an input or initializer of the subgraph, an "
        "output of its nodes, or a value of a graph around it");
  onnx::ModelProto dangling_output = model_with_if();
  dangling_output.mutable_graph()
      ->mutable_node(1)
      ->mutable_attribute(1)
      ->mutable_g()
      ->mutable_output(0)
      ->set_name("q");
  CHECK(load_error(dangling_output) ==
        "[graphpat.onnx.dangling_value] node 1 'if_node' (If): attribute 'else_branch': output 0 "
        "'q' is not an input or initializer of the subgraph, an output of its nodes, or a value "
        "of a graph around it");
  // A branch reading the If's own output: the If would run before itself.
  onnx::ModelProto cycle = model_with_if();
  cycle.mutable_graph()
      ->mutable_node(1)
      ->mutable_attribute(0)
      ->mutable_g()
      ->mutable_node(0)
      ->set_input(0, "y");
  CHECK(load_error(cycle) ==
        "[graphpat.onnx.cycle] node 1 'if_node' (If): the node is on a cycle or reads one (its "
        "inputs depend on its own outputs)");
  // Subgraph nodes count against max_nodes: main's 2 nodes and 2 inputs, a node per branch.
  CHECK(load_error(model_with_if(), {.max_nodes = 5}) ==
        "[graphpat.onnx.too_many_nodes] graph: more than 5 nodes (max_nodes)");
  CHECK(
      graphpat::onnx::load(model_with_if().SerializeAsString(), {.limits = {.max_nodes = 6}}).ok());
}

TEST_CASE("every model with subgraphs written from its graph alone reads back equal",
          "[onnx][io][subgraphs]") {
  // Saved without its provenance, every node and subgraph is written from the graph: fresh
  // names in the whole file, a subgraph's captures read by their names around it.
  std::size_t models = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kOnnxTestdata)) {
    if (entry.path().filename() != "model.onnx") continue;
    LoadedOnnx loaded = graphpat::testing::load_bytes(graphpat::testing::read_file(entry.path()));
    if (loaded.provenance.origin()->subgraph_functions.empty()) continue;
    INFO(entry.path().string());
    ++models;
    absl::StatusOr<std::string> saved = graphpat::onnx::save(loaded.module);
    REQUIRE(saved.ok());
    LoadedOnnx again = graphpat::testing::load_bytes(*saved);
    CHECK(graphpat::structural_equal(again.module, loaded.module, {.compare_types = true}));
  }
  CHECK(models == 22);
}

TEST_CASE("to_dot labels a node with its attributes in ONNX text syntax", "[onnx][io][dot]") {
  // An op of a custom domain (carried opaque) with one attribute of each kind a picture shows;
  // the expected texts are ONNX's text syntax (onnx/defs/parser.h) for these values.
  onnx::ModelProto model = tiny_model();
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  onnx::NodeProto* node = add_node(model, "every_kind", "Everything", {"x"}, {"y"});
  node->set_domain("com.example");
  add_attribute(node, "axis", onnx::AttributeProto::INT)->set_i(-1);
  add_attribute(node, "epsilon", onnx::AttributeProto::FLOAT)->set_f(1e-5F);
  add_attribute(node, "alpha", onnx::AttributeProto::FLOAT)->set_f(1.0F);
  add_attribute(node, "mode", onnx::AttributeProto::STRING)->set_s("say \"hi\"");
  onnx::AttributeProto* pads = add_attribute(node, "pads", onnx::AttributeProto::INTS);
  for (std::int64_t pad : {0, 1, 0, 1}) pads->add_ints(pad);
  onnx::AttributeProto* scales = add_attribute(node, "scales", onnx::AttributeProto::FLOATS);
  for (float scale : {0.5F, 2.0F}) scales->add_floats(scale);
  onnx::AttributeProto* names = add_attribute(node, "names", onnx::AttributeProto::STRINGS);
  for (const char* name : {"a", "b"}) names->add_strings(name);
  onnx::TensorProto* value = add_attribute(node, "value", onnx::AttributeProto::TENSOR)->mutable_t();
  value->set_data_type(onnx::TensorProto::FLOAT);
  value->add_float_data(3.0F);
  absl::StatusOr<LoadedOnnx> loaded = graphpat::onnx::load(model.SerializeAsString());
  REQUIRE(loaded.ok());
  const graphpat::onnx::Graph& graph = loaded->module.graph;
  NodeId call = graph.body(main_of(loaded->module));
  CHECK(graphpat::onnx::attribute_texts(graph.context().attrs, graph.attrs(call)) ==
        std::vector<std::string>{"axis=-1", "epsilon=1e-05", "alpha=1.0", R"(mode="say \"hi\"")",
                                 "pads=[0, 1, 0, 1]", "scales=[0.5, 2.0]", R"(names=["a", "b"])",
                                 "value=<tensor>"});
  absl::StatusOr<std::string> dot = graphpat::onnx::to_dot(loaded->module);
  REQUIRE(dot.ok());
  INFO(*dot);
  // Six attributes of eight shown, two to a line (io/dot.hpp), each value cut at 24
  // characters; the var with its type.
  CHECK(dot->find(R"(n2 [label="com.example.Everything\naxis=-1 epsilon=1e-05\nalpha=1.0 )"
                  R"(mode=\"say \\\"hi\\\"\"\npads=[0, 1, 0, 1] scales=[0.5, 2.0] ..."];)") !=
        std::string::npos);
  CHECK(dot->find(R"(n0 [label="x\nfloat32[2]", shape=ellipse];)") != std::string::npos);
  CHECK(dot->find("n0 -> n2;") != std::string::npos);  // n1 is the op

  // A GRAPH attribute is shown as <graph>; its function is drawn as an `fn` node.
  absl::StatusOr<LoadedOnnx> with_if = graphpat::onnx::load(model_with_if().SerializeAsString());
  REQUIRE(with_if.ok());
  const graphpat::onnx::Graph& if_graph = with_if->module.graph;
  NodeId if_call = if_graph.body(main_of(with_if->module));
  CHECK(graphpat::onnx::attribute_texts(if_graph.context().attrs, if_graph.attrs(if_call)) ==
        std::vector<std::string>{"then_branch=<graph>", "else_branch=<graph>"});
}
