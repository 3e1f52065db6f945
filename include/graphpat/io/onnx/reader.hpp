// The ONNX reader's internals: a parsed ModelProto -> an onnx::Module (see io/onnx.hpp for the
// mapping and the errors). One forward pass over the initializers, the graph inputs and the
// nodes in a topological order found with Kahn's algorithm; nothing recursive.
//
//   auto model = std::make_shared<onnx::ModelProto>();  // parsed by onnx::load
//   graphpat::onnx::detail::OnnxReader reader(model, limits);
//   absl::StatusOr<graphpat::onnx::LoadedOnnx> loaded = reader.read();
#pragma once

#include <absl/status/statusor.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/analysis/compact.hpp"
#include "graphpat/detail/text_map.hpp"
#include "graphpat/io/onnx/conversions.hpp"
#include "graphpat/io/onnx/model_header.hpp"
#include "graphpat/io/onnx/provenance.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/onnx/dialect.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::onnx {

/// A loaded file: the module (function `main`) and what writing it back needs.
struct LoadedOnnx {
  Module module;
  OnnxProvenance provenance;
};

namespace detail {

inline constexpr absl::StatusCode kBadInput = absl::StatusCode::kInvalidArgument;

/// "node 3 'Conv_0'": how messages name a NodeProto.
inline std::string node_place(std::size_t index, const ::onnx::NodeProto& node) {
  return fmt::format("node {} '{}' ({})", index, node.name(),
                     op_name(node.domain(), node.op_type()));
}

class OnnxReader {
  /// Where a value name comes from.
  struct Producer {
    enum class Kind : std::uint8_t { kInput, kInitializer, kNode };
    Kind kind = Kind::kInput;
    std::uint32_t index = 0;   // graph input, initializer or node index
    std::uint32_t output = 0;  // kNode: which output
  };

  /// What is being read: main's graph, a FunctionProto's body, or a subgraph (a GRAPH
  /// attribute's graph, which may read the values of the graphs around it).
  struct Scope {
    enum class Kind : std::uint8_t { kMain, kFunction, kSubgraph };
    using Nodes = google::protobuf::RepeatedPtrField<::onnx::NodeProto>;
    Scope(const Nodes& nodes, std::string place, Kind kind, Scope* outer = nullptr)
        : nodes(&nodes),
          place(std::move(place)),
          kind(kind),
          outer(outer),
          calls(static_cast<std::size_t>(nodes.size())) {}

    const Nodes* nodes;
    std::string place;  // put before the places of errors: "" in main
    Kind kind;
    Scope* outer;  // of a subgraph: the graph whose node holds it
    // Keyed by views of the names in model_, which outlives the reader.
    graphpat::detail::TextMap<Producer> producers;
    graphpat::detail::TextMap<NodeId> values;
    std::vector<NodeId> calls;               // per node
    // Per node input, what topological_order found defines it (none: the empty name, or a value
    // of a graph around; a copy, as the map's slot is long out of cache when the node is read);
    // node i's are from first_input[i].
    std::vector<std::optional<Producer>> input_producers;
    std::vector<std::uint32_t> first_input;
    std::vector<std::string_view> captured;  // a subgraph's reads of outer values, in order
    std::vector<NodeId> capture_params;      // the Var standing for each in the subgraph
  };

  /// Makes `scope` the one being read for the guard's lifetime.
  class Entered {
   public:
    Entered(OnnxReader& reader, Scope& scope) : reader_(reader), saved_(reader.scope_) {
      reader.scope_ = &scope;
    }
    ~Entered() { reader_.scope_ = saved_; }
    Entered(const Entered&) = delete;
    Entered& operator=(const Entered&) = delete;

   private:
    OnnxReader& reader_;
    Scope* saved_;
  };

 public:
  OnnxReader(std::shared_ptr<const ::onnx::ModelProto> model, const InputLimits& limits)
      : model_(std::move(model)), graph_proto_(model_->graph()), limits_(limits) {
    origin_ = std::make_shared<OnnxOrigin>();
    origin_->model = model_;
    origin_->context = loaded_.module.graph.shared_context();
    origin_->node_attrs.resize(static_cast<std::size_t>(graph_proto_.node_size()));
  }

  absl::StatusOr<LoadedOnnx> read() {
    GRAPHPAT_RETURN_IF_ERROR(check_supported());
    std::size_t node_count = static_cast<std::size_t>(graph_proto_.node_size());
    if (node_count + elsewhere_node_count() +
            static_cast<std::size_t>(graph_proto_.initializer_size()) +
            static_cast<std::size_t>(graph_proto_.input_size()) >
        limits_.max_nodes) {
      return make_error(
          kBadInput, "onnx.too_many_nodes",
          fmt::format("graph: {}", graphpat::detail::too_many_nodes_problem(limits_.max_nodes)));
    }
    std::size_t values = node_count + static_cast<std::size_t>(graph_proto_.initializer_size()) +
                         static_cast<std::size_t>(graph_proto_.input_size());
    scope_->producers.reserve(values);
    loaded_.module.graph.reserve(2 * values, 2 * values);
    // main first in the module, then the functions in file order.
    loaded_.module.add_function("main", NodeId());
    GRAPHPAT_RETURN_IF_ERROR(read_functions());
    GRAPHPAT_RETURN_IF_ERROR(read_value_types());
    GRAPHPAT_RETURN_IF_ERROR(read_initializers());
    GRAPHPAT_ASSIGN_OR_RETURN(std::vector<NodeId> params, read_inputs());
    GRAPHPAT_RETURN_IF_ERROR(index_node_outputs());
    GRAPHPAT_ASSIGN_OR_RETURN(std::vector<std::uint32_t> order, topological_order());
    for (std::uint32_t index : order) GRAPHPAT_RETURN_IF_ERROR(read_node(index));
    GRAPHPAT_ASSIGN_OR_RETURN(NodeId body, read_outputs());
    note_value_info_of_nothing();
    NodeId function = builder_.function(params, body);
    loaded_.module.add_function("main", function);
    loaded_.module.attrs = model_header(context(), *model_);
    origin_->header = loaded_.module.attrs;
    note_unreached(function, order);
    keep_functions();
    loaded_.provenance = OnnxProvenance(std::move(origin_));
    return std::move(loaded_);
  }

 private:
  /// The nodes, inputs and initializers the file holds outside main's own lists: in its
  /// FunctionProtos and in every subgraph at any depth (an explicit stack: nothing recursive).
  [[nodiscard]] std::size_t elsewhere_node_count() const {
    std::size_t count = 0;
    std::vector<const ::onnx::NodeProto*> stack;
    for (const ::onnx::NodeProto& node : graph_proto_.node()) stack.push_back(&node);
    for (const ::onnx::FunctionProto& function : model_->functions()) {
      count += static_cast<std::size_t>(function.node_size() + function.input_size());
      for (const ::onnx::NodeProto& node : function.node()) stack.push_back(&node);
    }
    while (!stack.empty()) {
      const ::onnx::NodeProto* node = stack.back();
      stack.pop_back();
      auto add = [&](const ::onnx::GraphProto& graph) {
        count += static_cast<std::size_t>(graph.node_size() + graph.input_size() +
                                          graph.initializer_size());
        for (const ::onnx::NodeProto& inner : graph.node()) stack.push_back(&inner);
      };
      for (const ::onnx::AttributeProto& attribute : node->attribute()) {
        if (attribute.has_g()) add(attribute.g());
        for (const ::onnx::GraphProto& graph : attribute.graphs()) add(graph);
      }
    }
    return count;
  }

  absl::Status unsupported(std::string_view place, std::string_view what) const {
    return make_error(kBadInput, "onnx.unsupported",
                      fmt::format("{}: {} (not yet supported by graphpat)", place, what));
  }

  absl::Status check_supported() const {
    if (graph_proto_.sparse_initializer_size() > 0) {
      return unsupported(
          "graph", fmt::format("{} sparse initializers", graph_proto_.sparse_initializer_size()));
    }
    return absl::OkStatus();
  }

  /// "node 3 'Conv_0' (Conv)", in a function "function 0 'd.f': node 3 ...".
  [[nodiscard]] std::string place_of(std::size_t index, const ::onnx::NodeProto& node) const {
    return scope_->place + node_place(index, node);
  }

  [[nodiscard]] bool in_main() const { return scope_->kind == Scope::Kind::kMain; }
  /// Whether names read now share main's namespace (main and its subgraphs; a FunctionProto's
  /// names are its own).
  [[nodiscard]] bool in_model_namespace() const { return scope_->kind != Scope::Kind::kFunction; }

  /// Each FunctionProto as module function `domain.name`: its inputs are Vars (untyped: a
  /// FunctionProto declares no types), its nodes calls as main's are, its outputs the body.
  /// A node of (domain, op_type) naming a function is a call of that global.
  absl::Status read_functions() {
    for (int f = 0; f < model_->functions_size(); ++f) {
      const ::onnx::FunctionProto& function = model_->functions(f);
      std::string name = op_name(function.domain(), function.name());
      if (name == "main" || !function_names_.insert(name).second) {
        return make_error(kBadInput, "onnx.duplicate_value",
                          fmt::format("function {} '{}': {}", f, name,
                                      name == "main" ? "the name of the main graph"
                                                     : "another function has this name"));
      }
    }
    for (int f = 0; f < model_->functions_size(); ++f) {
      const ::onnx::FunctionProto& function = model_->functions(f);
      std::string name = op_name(function.domain(), function.name());
      std::string place = fmt::format("function {} '{}'", f, name);
      if (function.attribute_size() > 0) {
        return unsupported(place,
                           fmt::format("{} attribute parameters", function.attribute_size()));
      }
      Scope scope(function.node(), place + ": ", Scope::Kind::kFunction);
      Entered entered(*this, scope);
      std::vector<NodeId> params;
      for (int i = 0; i < function.input_size(); ++i) {
        GRAPHPAT_ASSIGN_OR_RETURN(NodeId param, read_input(function.input(i), i, TypeId(), place));
        params.push_back(param);
      }
      GRAPHPAT_ASSIGN_OR_RETURN(NodeId body, read_nodes_and_outputs(function.output(), place));
      NodeId read = builder_.function(params, body);
      loaded_.module.add_function(name, read);
      origin_->function_nodes.push_back(read);
    }
    return absl::OkStatus();
  }

  /// value_info and graph outputs: the declared type of each value, by name.
  absl::Status read_value_types() {
    // note_type notes the name: fresh names must not take it, even when it names no value.
    for (const ::onnx::ValueInfoProto& info : graph_proto_.value_info()) note_type(info);
    origin_->output_types.reserve(static_cast<std::size_t>(graph_proto_.output_size()));
    // A value may be output twice, but one value has one type.
    graphpat::detail::TextMap<int> first_output;
    for (int i = 0; i < graph_proto_.output_size(); ++i) {
      const ::onnx::ValueInfoProto& info = graph_proto_.output(i);
      TypeId type = info.has_type() ? type_of(context(), info.type()) : TypeId();
      auto [first, inserted] = first_output.try_emplace(info.name(), i);
      if (!inserted && origin_->output_types[static_cast<std::size_t>(first->second)] != type) {
        return make_error(kBadInput, "onnx.duplicate_value",
                          fmt::format("graph output {} '{}': the value is already graph output "
                                      "{}, declared with another type",
                                      i, info.name(), first->second));
      }
      if (type.valid()) declared_types_[info.name()] = type;
      origin_->output_types.push_back(type);
    }
    return absl::OkStatus();
  }

  [[nodiscard]] TypeId declared_type(std::string_view name) const {
    auto found = declared_types_.find(name);
    return found == declared_types_.end() ? TypeId() : found->second;
  }

  /// Records where value `name` comes from; `place()` names the definer in an error.
  template <class Place>
  absl::Status define(const std::string& name, Producer producer, const Place& place) {
    if (name.empty()) {
      // A graph input or initializer named "" would be what every absent input reads.
      return make_error(kBadInput, "onnx.unnamed_value",
                        fmt::format("{}: has the empty name, which ONNX keeps for an absent "
                                    "optional value",
                                    place()));
    }
    if (in_model_namespace()) note_name(name);
    auto [slot, inserted] = scope_->producers.try_emplace(name, producer);
    if (!inserted) {
      return make_error(kBadInput, "onnx.duplicate_value",
                        fmt::format("{}: value '{}' is already defined by {}", place(), name,
                                    describe(slot->second)));
    }
    return absl::OkStatus();
  }

  [[nodiscard]] std::string describe(const Producer& producer) const {
    switch (producer.kind) {
      case Producer::Kind::kInput:
        return in_main() ? fmt::format("graph input {}", producer.index)
                         : fmt::format("input {}", producer.index);
      case Producer::Kind::kInitializer:
        return fmt::format("initializer {}", producer.index);
      case Producer::Kind::kNode:
        return fmt::format(
            "output {} of {}", producer.output,
            place_of(producer.index, (*scope_->nodes)[static_cast<int>(producer.index)]));
    }
    return {};
  }

  /// Keeps `name` when a fresh name could take it.
  void note_name(std::string_view name) {
    if (name.starts_with(kFreshNamePrefix)) origin_->names.insert(name);
  }

  absl::Status read_initializers() {
    for (int i = 0; i < graph_proto_.initializer_size(); ++i) {
      const ::onnx::TensorProto& proto = graph_proto_.initializer(i);
      auto place = [&] { return fmt::format("initializer {} '{}'", i, proto.name()); };
      GRAPHPAT_ASSIGN_OR_RETURN(NodeId constant,
                                read_initializer(proto, static_cast<std::uint32_t>(i), place));
      origin_->initializer_of.emplace(builder_.graph().tensor_id(constant),
                                      static_cast<std::uint32_t>(i));
      constants_.push_back(constant);
      scope_->values.emplace(proto.name(), constant);
    }
    return absl::OkStatus();
  }

  /// Initializer `i` of the graph being read, defined and made a constant.
  template <class Place>
  absl::StatusOr<NodeId> read_initializer(const ::onnx::TensorProto& proto, std::uint32_t i,
                                          const Place& place) {
    GRAPHPAT_RETURN_IF_ERROR(define(proto.name(), {Producer::Kind::kInitializer, i, 0}, place));
    GRAPHPAT_ASSIGN_OR_RETURN(Tensor tensor, read_tensor(proto, place));
    std::string_view dtype = context().strings.view(tensor.dtype);
    std::vector<DimId> dims;
    dims.reserve(tensor.shape.size());
    for (std::int64_t extent : tensor.shape) dims.push_back(context().types.dim(extent));
    TypeId type = context().types.tensor(dtype, dims);
    TensorId id = context().tensors.add(std::move(tensor));
    return builder_.constant(id, {.type = type, .fresh = true});
  }

  /// A TensorProto as a graphpat tensor whose bytes alias the parsed model where the file's
  /// layout is the tensor's (raw_data, and the typed fields of 4- and 8-byte elements), are
  /// converted where it is not (the narrower types ONNX stores widened in int32_data), and are
  /// absent for external data, which is never loaded.
  template <class Place>
  absl::StatusOr<Tensor> read_tensor(const ::onnx::TensorProto& proto, const Place& place) {
    std::optional<std::string_view> dtype = dtype_of(proto.data_type());
    if (!dtype) {
      return unsupported(place(), fmt::format("element type {}", proto.data_type()));
    }
    if (proto.has_segment()) return unsupported(place(), "a segmented tensor");
    Tensor tensor;
    tensor.dtype = context().strings.intern(*dtype);
    tensor.shape.assign(proto.dims().begin(), proto.dims().end());
    for (std::int64_t extent : tensor.shape) {
      if (extent < 0) {
        return make_error(kBadInput, "onnx.bad_tensor",
                          fmt::format("{}: dimension {} is negative", place(), extent));
      }
    }
    std::optional<std::uint64_t> count = checked_tensor_bytes(tensor.shape, 1);
    std::uint64_t width = element_bytes(proto.data_type());
    std::optional<std::uint64_t> bytes = checked_tensor_bytes(tensor.shape, width == 0 ? 1 : width);
    if (!count || !bytes || *bytes > limits_.max_tensor_bytes) {
      return make_error(
          kBadInput, "onnx.tensor_too_large",
          fmt::format("{}: {}", place(),
                      bytes ? graphpat::detail::tensor_too_large_problem("the tensor", *bytes,
                                                                         limits_.max_tensor_bytes)
                            : fmt::format("the tensor's shape has 2^64 elements or more, more than "
                                          "the limit of {} bytes (max_tensor_bytes)",
                                          limits_.max_tensor_bytes)));
    }
    std::uint64_t element_count = *count;
    if (proto.data_location() == ::onnx::TensorProto::EXTERNAL) return tensor;
    std::string dims = fmt::format("{}", fmt::join(tensor.shape, "x"));  // before `tensor` moves
    auto disagree = [&](std::string_view field, std::uint64_t found, std::uint64_t wanted) {
      return make_error(
          kBadInput, "onnx.bad_tensor",
          fmt::format("{}: {} holds {} {}, but dims {} of {} need {}", place(), field, found,
                      field == "raw_data" ? "bytes" : "values", dims, *dtype, wanted));
    };
    if (proto.has_raw_data()) {
      if (width == 0) return unsupported(place(), "raw_data of a string tensor");
      if (proto.raw_data().size() != *bytes)
        return disagree("raw_data", proto.raw_data().size(), *bytes);
      tensor.data = alias(proto.raw_data().data(), proto.raw_data().size());
      return tensor;
    }
    using P = ::onnx::TensorProto;
    switch (proto.data_type()) {
      case P::FLOAT:
        return typed(std::move(tensor), proto.float_data(), "float_data", element_count, disagree);
      case P::COMPLEX64:
        return typed(std::move(tensor), proto.float_data(), "float_data", 2 * element_count,
                     disagree);
      case P::INT64:
        return typed(std::move(tensor), proto.int64_data(), "int64_data", element_count, disagree);
      case P::INT32:
        return typed(std::move(tensor), proto.int32_data(), "int32_data", element_count, disagree);
      case P::DOUBLE:
        return typed(std::move(tensor), proto.double_data(), "double_data", element_count,
                     disagree);
      case P::COMPLEX128:
        return typed(std::move(tensor), proto.double_data(), "double_data", 2 * element_count,
                     disagree);
      case P::UINT64:
        return typed(std::move(tensor), proto.uint64_data(), "uint64_data", element_count,
                     disagree);
      case P::UINT32:
        return narrowed<std::uint32_t>(std::move(tensor), proto.uint64_data(), "uint64_data",
                                       element_count, disagree);
      case P::UINT8:
      case P::BOOL:
        return narrowed<std::uint8_t>(std::move(tensor), proto.int32_data(), "int32_data",
                                      element_count, disagree);
      case P::INT8:
        return narrowed<std::int8_t>(std::move(tensor), proto.int32_data(), "int32_data",
                                     element_count, disagree);
      case P::UINT16:
      case P::FLOAT16:
      case P::BFLOAT16:
        return narrowed<std::uint16_t>(std::move(tensor), proto.int32_data(), "int32_data",
                                       element_count, disagree);
      case P::INT16:
        return narrowed<std::int16_t>(std::move(tensor), proto.int32_data(), "int32_data",
                                      element_count, disagree);
      case P::STRING:
        // Strings have no byte form: the constant keeps dtype and shape, the writer the proto.
        if (static_cast<std::uint64_t>(proto.string_data_size()) != element_count) {
          return disagree("string_data", static_cast<std::uint64_t>(proto.string_data_size()),
                          element_count);
        }
        return tensor;
      default:
        return unsupported(place(), fmt::format("element type {}", proto.data_type()));
    }
  }

  TensorBytes alias(const void* data, std::size_t size) const {
    return TensorBytes{
        std::shared_ptr<const std::uint8_t>(model_, static_cast<const std::uint8_t*>(data)), size};
  }

  template <class Field, class Disagree>
  absl::StatusOr<Tensor> typed(Tensor tensor, const Field& field, std::string_view name,
                               std::uint64_t wanted, Disagree& disagree) const {
    if (static_cast<std::uint64_t>(field.size()) != wanted) {
      return disagree(name, static_cast<std::uint64_t>(field.size()), wanted);
    }
    // An empty field's data() may be null: the bytes are then an empty span.
    tensor.data =
        field.empty()
            ? TensorBytes{}
            : alias(field.data(), static_cast<std::size_t>(field.size()) * sizeof(field.Get(0)));
    return tensor;
  }

  template <class Element, class Field, class Disagree>
  absl::StatusOr<Tensor> narrowed(Tensor tensor, const Field& field, std::string_view name,
                                  std::uint64_t wanted, Disagree& disagree) const {
    if (static_cast<std::uint64_t>(field.size()) != wanted) {
      return disagree(name, static_cast<std::uint64_t>(field.size()), wanted);
    }
    auto buffer = std::make_shared<std::vector<std::uint8_t>>(
        static_cast<std::size_t>(field.size()) * sizeof(Element));
    for (int i = 0; i < field.size(); ++i) {
      auto value = static_cast<Element>(field.Get(i));
      std::memcpy(buffer->data() + static_cast<std::size_t>(i) * sizeof(Element), &value,
                  sizeof(Element));
    }
    tensor.data = share_bytes(std::shared_ptr<const std::vector<std::uint8_t>>(std::move(buffer)));
    return tensor;
  }

  absl::StatusOr<std::vector<NodeId>> read_inputs() {
    std::vector<NodeId> params;
    origin_->input_types.reserve(static_cast<std::size_t>(graph_proto_.input_size()));
    for (int i = 0; i < graph_proto_.input_size(); ++i) {
      const ::onnx::ValueInfoProto& input = graph_proto_.input(i);
      auto place = [&] { return fmt::format("graph input {} '{}'", i, input.name()); };
      if (auto found = scope_->producers.find(input.name());
          found != scope_->producers.end() && found->second.kind == Producer::Kind::kInitializer &&
          listed_initializers_.insert(input.name()).second) {
        // an initializer's input: the constant
        origin_->input_types.push_back(TypeId());
        origin_->input_is_initializer.push_back(true);
        continue;
      }
      GRAPHPAT_RETURN_IF_ERROR(
          define(input.name(), {Producer::Kind::kInput, static_cast<std::uint32_t>(i), 0}, place));
      TypeId type = input.has_type() ? type_of(context(), input.type()) : TypeId();
      origin_->input_types.push_back(type);
      origin_->input_is_initializer.push_back(false);
      NodeId var = builder_.var(input.name(), type, {.type = type});
      scope_->values.emplace(input.name(), var);
      params.push_back(var);
    }
    return params;
  }

  absl::Status index_node_outputs() {
    for (int i = 0; i < scope_->nodes->size(); ++i) {
      const ::onnx::NodeProto& node = (*scope_->nodes)[i];
      if (in_model_namespace()) note_name(node.name());
      for (int k = 0; k < node.output_size(); ++k) {
        if (node.output(k).empty()) continue;
        GRAPHPAT_RETURN_IF_ERROR(define(
            node.output(k),
            {Producer::Kind::kNode, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k)},
            [&] { return place_of(static_cast<std::size_t>(i), node); }));
      }
    }
    return absl::OkStatus();
  }

  /// Kahn's algorithm, taking the lowest ready index first: a file already in order keeps it.
  /// A file whose every node reads only earlier nodes (most are) is that order itself, found in
  /// the one pass that checks the inputs; otherwise the node-to-node edges are sorted by
  /// producer into one array (no list per node).
  absl::StatusOr<std::vector<std::uint32_t>> topological_order() {
    auto count = static_cast<std::uint32_t>(scope_->nodes->size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // (producer, reader)
    bool in_file_order = true;
    auto depend = [&](std::uint32_t i, const Producer& producer) {
      if (producer.kind != Producer::Kind::kNode) return;
      edges.emplace_back(producer.index, i);
      if (producer.index >= i) in_file_order = false;
    };
    scope_->first_input.resize(count + 1);
    for (std::uint32_t i = 0; i < count; ++i) {
      const ::onnx::NodeProto& node = (*scope_->nodes)[static_cast<int>(i)];
      scope_->first_input[i] = static_cast<std::uint32_t>(scope_->input_producers.size());
      for (int k = 0; k < node.input_size(); ++k) {
        const std::string& name = node.input(k);
        auto found = name.empty() ? scope_->producers.end() : scope_->producers.find(name);
        scope_->input_producers.push_back(found == scope_->producers.end()
                                              ? std::nullopt
                                              : std::optional<Producer>(found->second));
        if (name.empty()) continue;
        if (found != scope_->producers.end()) {
          depend(i, found->second);
        } else if (!defined_outside(name)) {
          return make_error(kBadInput, "onnx.dangling_value",
                            fmt::format("{}: input {} '{}' is not {}", place_of(i, node), k, name,
                                        undefined_here()));
        }
      }
      // A value of this graph that the node's subgraphs read is an input of the node too.
      for_each_subgraph_read(node, [&](const std::string& name) {
        auto found = scope_->producers.find(name);
        if (found != scope_->producers.end()) depend(i, found->second);
      });
    }
    scope_->first_input[count] = static_cast<std::uint32_t>(scope_->input_producers.size());
    if (in_file_order) {
      std::vector<std::uint32_t> order(count);
      std::iota(order.begin(), order.end(), 0);
      return order;
    }
    // The readers of node p are readers[first[p]] .. readers[first[p + 1] - 1]; node r waits
    // for waiting[r] of its inputs.
    std::vector<std::uint32_t> first(count + 1, 0);
    std::vector<std::uint32_t> waiting(count, 0);
    for (auto [producer, reader] : edges) {
      ++first[producer + 1];
      ++waiting[reader];
    }
    for (std::uint32_t p = 0; p < count; ++p) first[p + 1] += first[p];
    std::vector<std::uint32_t> readers(edges.size());
    {
      std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
      for (auto [producer, reader] : edges) readers[next[producer]++] = reader;
    }
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
    for (std::uint32_t i = 0; i < count; ++i) {
      if (waiting[i] == 0) ready.push(i);
    }
    std::vector<std::uint32_t> order;
    order.reserve(count);
    while (!ready.empty()) {
      std::uint32_t next = ready.top();
      ready.pop();
      order.push_back(next);
      for (std::uint32_t r = first[next]; r < first[next + 1]; ++r) {
        if (--waiting[readers[r]] == 0) ready.push(readers[r]);
      }
    }
    if (order.size() != count) {
      for (std::uint32_t i = 0; i < count; ++i) {
        if (waiting[i] == 0) continue;
        return make_error(kBadInput, "onnx.cycle",
                          fmt::format("{}: the node is on a cycle or reads one (its inputs "
                                      "depend on its own outputs)",
                                      place_of(i, (*scope_->nodes)[static_cast<int>(i)])));
      }
    }
    return order;
  }

  /// What a value name that this scope does not define is not, for errors.
  [[nodiscard]] std::string_view undefined_here() const {
    switch (scope_->kind) {
      case Scope::Kind::kMain:
        return "a graph input, an initializer or an output of any node";
      case Scope::Kind::kFunction:
        return "an input of the function or an output of any of its nodes";
      case Scope::Kind::kSubgraph:
        return "an input or initializer of the subgraph, an output of its nodes, or a value of a "
               "graph around it";
    }
    return {};
  }

  /// Whether a graph around the subgraph being read defines `name` (the subgraph may read it).
  [[nodiscard]] bool defined_outside(std::string_view name) const {
    for (const Scope* scope = scope_->outer; scope != nullptr; scope = scope->outer) {
      if (scope->producers.contains(name)) return true;
    }
    return false;
  }

  /// Calls `read(name)` for every value name the subgraphs of `node` read, at any depth (their
  /// nodes' inputs and their outputs). An explicit stack: nothing recursive.
  template <class Read>
  static void for_each_subgraph_read(const ::onnx::NodeProto& node, Read&& read) {
    std::vector<const ::onnx::GraphProto*> stack;
    auto push_subgraphs = [&](const ::onnx::NodeProto& holder) {
      for (const ::onnx::AttributeProto& attribute : holder.attribute()) {
        if (attribute.has_g()) stack.push_back(&attribute.g());
        for (const ::onnx::GraphProto& graph : attribute.graphs()) stack.push_back(&graph);
      }
    };
    push_subgraphs(node);
    while (!stack.empty()) {
      const ::onnx::GraphProto* graph = stack.back();
      stack.pop_back();
      for (const ::onnx::NodeProto& inner : graph->node()) {
        for (const std::string& input : inner.input()) read(input);
        push_subgraphs(inner);
      }
      for (const ::onnx::ValueInfoProto& output : graph->output()) read(output.name());
    }
  }

  /// The node for value `name`: a Var, a Constant, a Call, a TupleGetItem of a Call of several
  /// outputs, the empty tuple `()` for the empty name of an absent optional input, or, in a
  /// subgraph, the parameter standing for a value of a graph around it. `values` holds all but
  /// the calls of one output, which `calls` has (read already: the order is topological).
  NodeId value(std::string_view name) {
    auto produced = scope_->producers.find(name);
    return value(name, produced == scope_->producers.end() ? nullptr : &produced->second);
  }

  /// The same, given what in this scope defines `name` (null: nothing).
  NodeId value(std::string_view name, const Producer* producer) {
    if (name.empty()) return builder_.tuple(std::span<const NodeId>{});
    auto one_output = [&] {
      return (*scope_->nodes)[static_cast<int>(producer->index)].output_size() == 1;
    };
    if (producer != nullptr && producer->kind == Producer::Kind::kNode && one_output()) {
      return scope_->calls[producer->index];
    }
    auto [slot, inserted] = scope_->values.try_emplace(name);
    if (!inserted) return slot->second;  // an input, an initializer, an item or a capture
    TypeId type = declared_type(name);
    if (producer == nullptr) {
      // Captured: a parameter of the subgraph's function, the outer value an argument of the
      // node holding it (read_attributes).
      slot->second = builder_.var(name, type, {.type = type});
      scope_->captured.push_back(name);
      scope_->capture_params.push_back(slot->second);
    } else {
      // An output of a node of several (inputs and initializers are in values when defined).
      slot->second =
          builder_.tuple_get_item(scope_->calls[producer->index], producer->output, {.type = type});
    }
    return slot->second;
  }

  absl::Status read_node(std::uint32_t index) {
    const ::onnx::NodeProto& node = (*scope_->nodes)[static_cast<int>(index)];
    std::vector<NodeId> args;
    args.reserve(static_cast<std::size_t>(node.input_size()));
    const std::optional<Producer>* producers =
        scope_->input_producers.data() + scope_->first_input[index];
    for (int k = 0; k < node.input_size(); ++k) {
      args.push_back(value(node.input(k), producers[k] ? &*producers[k] : nullptr));
    }
    std::string name = op_name(node.domain(), node.op_type());
    GRAPHPAT_ASSIGN_OR_RETURN(AttrValueId attrs, read_attributes(index, node, name, args));
    TypeId type;
    if (node.output_size() == 1) {
      type = declared_type(node.output(0));
    } else {
      std::vector<TypeId> fields;
      fields.reserve(static_cast<std::size_t>(node.output_size()));
      for (const std::string& output : node.output()) {
        TypeId field = output.empty() ? TypeId() : declared_type(output);
        fields.push_back(field.valid() ? field : context().types.incomplete());
      }
      type = context().types.tuple(fields);
    }
    // A function's node has line 0: the writer takes no call of line 0 for a node of main.
    SpanId span =
        context().spans.intern({.source = context().strings.intern(node.name()),
                                .line = in_main() ? static_cast<std::int32_t>(index) + 1 : 0});
    NodeId callee = !function_names_.empty() && function_names_.contains(name)
                        ? builder_.global_var(name)
                        : builder_.opaque_op(name);
    NodeId call =
        builder_.call(callee, args, {.attrs = attrs, .type = type, .span = span, .fresh = true});
    scope_->calls[index] = call;
    if (in_main()) {
      origin_->node_attrs[index] = attrs;
      for (std::size_t k = static_cast<std::size_t>(node.input_size()); k < args.size(); ++k) {
        if (builder_.graph().kind(args[k]) == NodeKind::kFunction) {
          origin_->subgraph_functions[index].push_back(args[k]);
        }
      }
    }
    return absl::OkStatus();
  }

  /// The node's attributes as an object value whose type key is the op's name (the key of its
  /// schema in the dialect's registry), fields in the file's order; none when it has none. A
  /// GRAPH attribute's graph is a function appended to `args`, followed by the values of this
  /// graph it reads; its field says where (graph_ref, conversions.hpp).
  absl::StatusOr<AttrValueId> read_attributes(std::uint32_t index, const ::onnx::NodeProto& node,
                                              std::string_view op, std::vector<NodeId>& args) {
    if (node.attribute_size() == 0) return AttrValueId();
    std::vector<AttrField> fields;
    fields.reserve(static_cast<std::size_t>(node.attribute_size()));
    for (const ::onnx::AttributeProto& attribute : node.attribute()) {
      auto where = [&] {
        return fmt::format("{}: attribute '{}'", place_of(index, node), attribute.name());
      };
      AttrValueId field;
      if (attribute.type() == ::onnx::AttributeProto::GRAPH && attribute.ref_attr_name().empty() &&
          other_fields_set(attribute) == 0) {
        GRAPHPAT_ASSIGN_OR_RETURN(Subgraph subgraph, read_subgraph(attribute.g(), where()));
        field = graph_ref(context().attrs, args.size(), subgraph.captured.size());
        args.push_back(subgraph.function);
        for (std::string_view name : subgraph.captured) args.push_back(value(name));
      } else {
        GRAPHPAT_ASSIGN_OR_RETURN(field, read_attribute(attribute, where));
      }
      fields.push_back({context().strings.intern(attribute.name()), field});
    }
    return context().attrs.object(op, fields);
  }

  /// A subgraph read: its function (params: the graph's inputs, then a Var per outer value it
  /// reads) and the names of those outer values.
  struct Subgraph {
    NodeId function;
    std::vector<std::string_view> captured;
  };

  /// A GRAPH attribute's graph as a function. Its names share main's namespace (ONNX names are
  /// unique across a model's graphs); a name it reads but does not define is a value of a graph
  /// around it, captured. The depth of nesting is bounded by protobuf's own recursion limit on
  /// parsing (100 messages deep), so the recursion through read_node is too.
  absl::StatusOr<Subgraph> read_subgraph(const ::onnx::GraphProto& graph, std::string place) {
    if (graph.sparse_initializer_size() > 0) {
      return unsupported(place, fmt::format("a subgraph's {} sparse initializers",
                                            graph.sparse_initializer_size()));
    }
    Scope scope(graph.node(), place + ": ", Scope::Kind::kSubgraph, scope_);
    Entered entered(*this, scope);
    for (const ::onnx::ValueInfoProto& info : graph.value_info()) note_type(info);
    for (const ::onnx::ValueInfoProto& output : graph.output()) note_type(output);
    for (int i = 0; i < graph.initializer_size(); ++i) {
      const ::onnx::TensorProto& proto = graph.initializer(i);
      auto where = [&] { return fmt::format("{}: initializer {} '{}'", place, i, proto.name()); };
      GRAPHPAT_ASSIGN_OR_RETURN(NodeId constant,
                                read_initializer(proto, static_cast<std::uint32_t>(i), where));
      scope.values.emplace(proto.name(), constant);
    }
    std::vector<NodeId> params;
    for (int i = 0; i < graph.input_size(); ++i) {
      const ::onnx::ValueInfoProto& input = graph.input(i);
      if (scope.producers.contains(input.name())) continue;  // an initializer's (IR < 4)
      TypeId type = input.has_type() ? type_of(context(), input.type()) : TypeId();
      GRAPHPAT_ASSIGN_OR_RETURN(NodeId param, read_input(input.name(), i, type, place));
      params.push_back(param);
    }
    std::vector<std::string_view> outputs;
    for (const ::onnx::ValueInfoProto& output : graph.output()) outputs.push_back(output.name());
    GRAPHPAT_ASSIGN_OR_RETURN(NodeId body, read_nodes_and_outputs(outputs, place));
    params.insert(params.end(), scope.capture_params.begin(), scope.capture_params.end());
    return Subgraph{builder_.function(params, body), std::move(scope.captured)};
  }

  /// Input `i` named `name` of a function or subgraph: a Var of that name.
  absl::StatusOr<NodeId> read_input(const std::string& name, int i, TypeId type,
                                    std::string_view place) {
    GRAPHPAT_RETURN_IF_ERROR(
        define(name, {Producer::Kind::kInput, static_cast<std::uint32_t>(i), 0},
               [&] { return fmt::format("{}: input {} '{}'", place, i, name); }));
    NodeId var = builder_.var(name, type, {.type = type});
    scope_->values.emplace(name, var);
    return var;
  }

  /// Reads the nodes of the function or subgraph being read, then its outputs `outputs` as
  /// its body (one output that value, several a tuple).
  template <class Names>
  absl::StatusOr<NodeId> read_nodes_and_outputs(const Names& outputs, std::string_view place) {
    GRAPHPAT_RETURN_IF_ERROR(index_node_outputs());
    GRAPHPAT_ASSIGN_OR_RETURN(std::vector<std::uint32_t> order, topological_order());
    for (std::uint32_t index : order) GRAPHPAT_RETURN_IF_ERROR(read_node(index));
    std::vector<NodeId> results;
    std::size_t i = 0;
    for (std::string_view output : outputs) {
      if (!scope_->producers.contains(output) && !defined_outside(output)) {
        return make_error(
            kBadInput, "onnx.dangling_value",
            fmt::format("{}: output {} '{}' is not {}", place, i, output, undefined_here()));
      }
      results.push_back(value(output));
      ++i;
    }
    return results.size() == 1 ? results.front() : builder_.tuple(results);
  }

  /// Records a declared value type (value_info, graph outputs) of a graph's value.
  void note_type(const ::onnx::ValueInfoProto& info) {
    note_name(info.name());
    if (info.has_type()) declared_types_[info.name()] = type_of(context(), info.type());
  }

  /// How many of the attribute's value fields are set, the declared one excepted.
  static int other_fields_set(const ::onnx::AttributeProto& a) {
    using A = ::onnx::AttributeProto;
    std::array<std::pair<A::AttributeType, bool>, 14> set = {
        {{A::FLOAT, a.has_f()},
         {A::INT, a.has_i()},
         {A::STRING, a.has_s()},
         {A::TENSOR, a.has_t()},
         {A::GRAPH, a.has_g()},
         {A::SPARSE_TENSOR, a.has_sparse_tensor()},
         {A::TYPE_PROTO, a.has_tp()},
         {A::FLOATS, a.floats_size() > 0},
         {A::INTS, a.ints_size() > 0},
         {A::STRINGS, a.strings_size() > 0},
         {A::TENSORS, a.tensors_size() > 0},
         {A::GRAPHS, a.graphs_size() > 0},
         {A::SPARSE_TENSORS, a.sparse_tensors_size() > 0},
         {A::TYPE_PROTOS, a.type_protos_size() > 0}}};
    int others = 0;
    for (auto [type, present] : set) others += (present && type != a.type()) ? 1 : 0;
    return others;
  }

  /// A TENSOR or TYPE_PROTO attribute's message as an object of `type_key` holding its bytes.
  AttrValueId message_value(std::string_view type_key, const google::protobuf::Message& message) {
    return context().attrs.object(type_key,
                                  {{"proto", context().attrs.string(message.SerializeAsString())}});
  }

  template <class Place>
  absl::StatusOr<AttrValueId> read_attribute(const ::onnx::AttributeProto& a, const Place& where) {
    using A = ::onnx::AttributeProto;
    AttrTable& attrs = context().attrs;
    if (!a.ref_attr_name().empty()) {
      return unsupported(where(), "a reference to a function's attribute");
    }
    if (!A::AttributeType_IsValid(a.type()) || a.type() == A::UNDEFINED) {
      return make_error(kBadInput, "onnx.bad_attribute",
                        fmt::format("{}: declared type {} is not an attribute type", where(),
                                    static_cast<int>(a.type())));
    }
    if (other_fields_set(a) > 0) {
      return make_error(kBadInput, "onnx.bad_attribute",
                        fmt::format("{}: declared {} but holds a value of another type", where(),
                                    A::AttributeType_Name(a.type())));
    }
    std::vector<AttrValueId> elements;
    switch (a.type()) {
      case A::FLOAT:
        return attrs.floating(a.f(), 32);
      case A::INT:
        return attrs.integer(a.i(), 64);
      case A::STRING:
        return attrs.string(a.s());
      case A::TENSOR:
        return message_value(kTensorTypeKey, a.t());
      case A::TYPE_PROTO:
        return message_value(kTypeProtoTypeKey, a.tp());
      case A::FLOATS:
        for (float f : a.floats()) elements.push_back(attrs.floating(f, 32));
        return attrs.array(elements);
      case A::INTS:
        for (std::int64_t i : a.ints()) elements.push_back(attrs.integer(i, 64));
        return attrs.array(elements);
      case A::STRINGS:
        for (const std::string& s : a.strings()) elements.push_back(attrs.string(s));
        return attrs.array(elements);
      case A::TENSORS:
        for (const ::onnx::TensorProto& t : a.tensors()) {
          elements.push_back(message_value(kTensorTypeKey, t));
        }
        return attrs.array(elements);
      case A::TYPE_PROTOS:
        for (const ::onnx::TypeProto& t : a.type_protos()) {
          elements.push_back(message_value(kTypeProtoTypeKey, t));
        }
        return attrs.array(elements);
      default:
        return unsupported(where(), fmt::format("{} attributes", A::AttributeType_Name(a.type())));
    }
  }

  absl::StatusOr<NodeId> read_outputs() {
    std::vector<NodeId> fields;
    fields.reserve(static_cast<std::size_t>(graph_proto_.output_size()));
    for (int i = 0; i < graph_proto_.output_size(); ++i) {
      const ::onnx::ValueInfoProto& output = graph_proto_.output(i);
      note_name(output.name());
      if (!scope_->producers.contains(output.name())) {
        return make_error(kBadInput, "onnx.dangling_value",
                          fmt::format("graph output {} '{}': no graph input, initializer or node "
                                      "defines the value",
                                      i, output.name()));
      }
      fields.push_back(value(output.name()));
    }
    if (fields.size() == 1) return fields.front();
    return builder_.tuple(fields);
  }

  /// Copies the functions of FunctionProtos and of main's GRAPH attributes into origin_->kept
  /// (compact: what they reach), their ids there replacing the graph's.
  void keep_functions() {
    std::vector<NodeId> roots = origin_->function_nodes;
    for (const auto& [index, functions] : origin_->subgraph_functions) {
      roots.insert(roots.end(), functions.begin(), functions.end());
    }
    if (roots.empty()) return;
    Compacted<Dialect> kept = compact(loaded_.module.graph, roots);
    for (NodeId& function : origin_->function_nodes) function = kept.map(function);
    for (auto& [index, functions] : origin_->subgraph_functions) {
      for (NodeId& function : functions) function = kept.map(function);
    }
    origin_->kept = std::make_shared<const Graph>(std::move(kept.graph));
  }

  /// value_info entries naming no value of the file (stale after an edit, or misspelt).
  void note_value_info_of_nothing() {
    for (int i = 0; i < graph_proto_.value_info_size(); ++i) {
      if (!scope_->producers.contains(graph_proto_.value_info(i).name())) {
        origin_->value_info_of_nothing.insert(static_cast<std::uint32_t>(i));
      }
    }
  }

  /// Nodes no graph output depends on, and initializers only such nodes (or nothing) read, are
  /// not in main; the writer keeps them as they were.
  void note_unreached(NodeId function, const std::vector<std::uint32_t>& order) {
    const Graph& graph = loaded_.module.graph;
    std::vector<bool> reached(function.index() + 1, false);
    reached[function.index()] = true;
    for (std::uint32_t index = function.index() + 1; index-- > 0;) {
      if (!reached[index]) continue;
      for (NodeId operand : graph.operands(NodeId(index))) reached[operand.index()] = true;
    }
    for (std::uint32_t index : order) {
      if (!reached[scope_->calls[index].index()]) origin_->dead_nodes.push_back(index);
    }
    for (std::size_t i = 0; i < constants_.size(); ++i) {
      if (!reached[constants_[i].index()]) {
        origin_->unreached_initializers.push_back(static_cast<std::uint32_t>(i));
      }
    }
  }

  [[nodiscard]] Context& context() const { return loaded_.module.graph.context(); }

  std::shared_ptr<const ::onnx::ModelProto> model_;
  const ::onnx::GraphProto& graph_proto_;
  InputLimits limits_;
  std::shared_ptr<OnnxOrigin> origin_;
  LoadedOnnx loaded_;
  Builder builder_{loaded_.module.graph};
  // Keyed by views of the names in model_, which outlives the reader.
  graphpat::detail::TextMap<TypeId> declared_types_;
  graphpat::detail::TextSet listed_initializers_;
  std::vector<NodeId> constants_;  // per initializer of main
  Scope main_scope_{graph_proto_.node(), "", Scope::Kind::kMain};
  Scope* scope_ = &main_scope_;                      // the one being read
  absl::flat_hash_set<std::string> function_names_;  // op_name(domain, name) of each function
};

}  // namespace detail
}  // namespace graphpat::onnx

#include "graphpat/detail/status_macros_undef.hpp"
