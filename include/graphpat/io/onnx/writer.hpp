// The ONNX writer's internals: an onnx::Module (function `main`) -> a serialized ModelProto
// (see io/onnx.hpp for the rules). One forward scan over the nodes `main` reaches; a Call whose
// span names a NodeProto of the loaded file (source = its name, line = its index + 1) is that
// node: written as the original NodeProto when nothing about it changed, else with the
// original's name and output value names. When every part of the file comes back unchanged the
// parsed ModelProto itself is serialized, so the bytes are the file's.
//
//   graphpat::onnx::detail::OnnxWriter writer(module, provenance.origin());
//   absl::StatusOr<std::string> bytes = writer.write();
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/io/onnx/conversions.hpp"
#include "graphpat/io/onnx/provenance.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/onnx/dialect.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::onnx::detail {

/// What a module without provenance is written as: ONNX 1.12's IR version and opset.
inline constexpr std::int64_t kFreshIrVersion = 8;
inline constexpr std::int64_t kFreshOpsetVersion = 17;

class OnnxWriter {
 public:
  OnnxWriter(const Module& module, const OnnxOrigin* origin)
      : module_(module), graph_(module.graph), context_(module.graph.context()), origin_(origin) {
    if (origin_ != nullptr) {
      const ::onnx::GraphProto& graph = origin_->model->graph();
      for (int i = 0; i < graph.node_size(); ++i) {
        attrs_source_.try_emplace(origin_->node_attrs[static_cast<std::size_t>(i)],
                                  static_cast<std::uint32_t>(i));
      }
      claimed_.assign(static_cast<std::size_t>(graph.node_size()), false);
      for (const ::onnx::OperatorSetIdProto& opset : origin_->model->opset_import()) {
        if (!is_default_domain(opset.domain())) domains_.push_back(opset.domain());
      }
    }
  }

  absl::StatusOr<std::string> write() {
    if (origin_ != nullptr && origin_->context.get() != &context_) {
      return unsupported(
          "a provenance of a graph of another context (pass the provenance of the load that made "
          "this graph, or of the graph a pass made of it)");
    }
    GRAPHPAT_ASSIGN_OR_RETURN(NodeId main, find_main());
    std::vector<bool> reached = reachable(main);
    for (NodeId param : graph_.params(main)) {
      params_.insert(param);
    }
    NodeId body = graph_.body(main);
    for (std::uint32_t index = 0; index < main.index(); ++index) {
      if (!reached[index]) continue;
      GRAPHPAT_RETURN_IF_ERROR(write_node(NodeId(index), body));
    }
    GRAPHPAT_RETURN_IF_ERROR(write_outputs(body));
    write_initializers();
    write_dead_nodes();
    write_inputs(main);
    write_value_info();
    if (unchanged()) return origin_->model->SerializeAsString();
    return serialize();
  }

 private:
  absl::Status unsupported(std::string_view what) const {
    return make_error(
        absl::StatusCode::kInvalidArgument, "onnx.unsupported",
        fmt::format("{} (ONNX cannot hold it, or graphpat does not write it yet)", what));
  }

  absl::StatusOr<NodeId> find_main() const {
    std::optional<NodeId> main = module_.find("main");
    if (!main || graph_.kind(*main) != NodeKind::kFunction) {
      return unsupported("the module has no function main");
    }
    if (module_.functions().size() != 1) {
      return unsupported("functions besides main (model-local functions)");
    }
    return *main;
  }

  /// Which nodes `root` reaches: one backward scan, since operands precede their users.
  [[nodiscard]] std::vector<bool> reachable(NodeId root) const {
    std::vector<bool> reached(root.index() + 1, false);
    reached[root.index()] = true;
    for (std::uint32_t index = root.index() + 1; index-- > 0;) {
      if (!reached[index]) continue;
      for (NodeId operand : graph_.operands(NodeId(index))) reached[operand.index()] = true;
    }
    return reached;
  }

  /// A name no part of the file and nothing written so far uses, claimed in `names`.
  std::string_view fresh_name(absl::flat_hash_set<std::string_view>& names) {
    while (true) {
      std::string name = fmt::format("graphpat_{}", next_fresh_++);
      bool taken = used_values_.contains(name) || used_nodes_.contains(name) ||
                   (origin_ != nullptr && origin_->names.contains(name));
      if (!taken) {
        std::string_view kept = fresh_names_.emplace_back(std::move(name));
        names.insert(kept);
        return kept;
      }
    }
  }

  /// Claims value name `name` (which outlives the write); false when a value already has it.
  bool claim_value(std::string_view name) { return used_values_.insert(name).second; }

  absl::Status write_node(NodeId id, NodeId body) {
    switch (graph_.kind(id)) {
      case NodeKind::kOp:
        return absl::OkStatus();
      case NodeKind::kVar:
        return write_var(id);
      case NodeKind::kConstant:
        return write_constant(id);
      case NodeKind::kCall:
        return write_call(id);
      case NodeKind::kTupleGetItem: {
        NodeId tuple = graph_.tuple(id);
        auto found = outputs_.find(tuple);
        if (graph_.kind(tuple) != NodeKind::kCall || found == outputs_.end() ||
            graph_.index(id) >= found->second.size()) {
          return unsupported(
              fmt::format("node %{}: a TupleGetItem not of an output of a call", id.index()));
        }
        names_[id] = found->second[graph_.index(id)];
        return absl::OkStatus();
      }
      case NodeKind::kTuple:
        if (graph_.fields(id).empty()) {
          names_[id] = "";  // an absent optional input
          return absl::OkStatus();
        }
        if (id == body) return absl::OkStatus();
        return unsupported(fmt::format("node %{}: a tuple other than main's outputs", id.index()));
      default:
        return unsupported(
            fmt::format("node %{}: a {} node", id.index(), node_kind_name(graph_.kind(id))));
    }
  }

  absl::Status write_var(NodeId id) {
    std::string_view name = graph_.name(id);
    if (!params_.contains(id)) {
      return unsupported(
          fmt::format("node %{}: variable '{}' is not a parameter of main", id.index(), name));
    }
    if (name.empty() || !claim_value(name)) {
      return unsupported(fmt::format(
          "node %{}: parameter name '{}' is empty or names another value", id.index(), name));
    }
    names_[id] = name;
    return absl::OkStatus();
  }

  absl::Status write_constant(NodeId id) {
    TensorId tensor = graph_.tensor_id(id);
    if (auto named = constant_names_.find(tensor); named != constant_names_.end()) {
      names_[id] = named->second;
      return absl::OkStatus();
    }
    if (origin_ != nullptr) {
      if (auto found = origin_->initializer_of.find(tensor);
          found != origin_->initializer_of.end()) {
        std::string_view name =
            origin_->model->graph().initializer(static_cast<int>(found->second)).name();
        if (claim_value(name)) {
          kept_initializers_.push_back(found->second);
          constant_names_[tensor] = name;
          names_[id] = name;
          return absl::OkStatus();
        }
      }
    }
    std::string_view name = fresh_name(used_values_);
    const Tensor& value = context_.tensors.get(tensor);
    std::string_view dtype = context_.strings.view(value.dtype);
    std::int32_t data_type = data_type_of(dtype);
    if (data_type == 0 || !value.has_data() || element_bytes(data_type) == 0) {
      return unsupported(fmt::format("node %{}: a new constant of dtype {} {}", id.index(), dtype,
                                     value.has_data() ? "" : "without bytes"));
    }
    ::onnx::TensorProto& proto = new_initializers_.emplace_back();
    proto.set_name(std::string(name));
    proto.set_data_type(data_type);
    for (std::int64_t extent : value.shape) proto.add_dims(extent);
    std::span<const std::uint8_t> bytes = value.data->view();
    proto.set_raw_data(bytes.data(), bytes.size());
    constant_names_[tensor] = name;
    names_[id] = name;
    return absl::OkStatus();
  }

  /// The NodeProto a call's span names, if it names one not yet claimed.
  std::optional<std::uint32_t> original_of(NodeId call) {
    if (origin_ == nullptr || !graph_.span(call).valid()) return std::nullopt;
    const Span& span = context_.spans.get(graph_.span(call));
    const ::onnx::GraphProto& graph = origin_->model->graph();
    if (span.line < 1 || span.line > graph.node_size()) return std::nullopt;
    auto index = static_cast<std::uint32_t>(span.line - 1);
    if (claimed_[index] ||
        graph.node(static_cast<int>(index)).name() != context_.strings.view(span.source)) {
      return std::nullopt;
    }
    claimed_[index] = true;
    return index;
  }

  absl::Status write_call(NodeId id) {
    NodeId callee = graph_.callee(id);
    if (graph_.kind(callee) != NodeKind::kOp) {
      return unsupported(
          fmt::format("node %{}: a call of a {}", id.index(), node_kind_name(graph_.kind(callee))));
    }
    std::string_view op = context_.op_name(graph_.op(callee));
    std::vector<std::string_view> inputs;
    for (NodeId arg : graph_.args(id)) {
      auto found = names_.find(arg);
      if (found == names_.end()) {
        return unsupported(
            fmt::format("node %{}: argument %{} is not one value", id.index(), arg.index()));
      }
      inputs.push_back(found->second);
    }
    TypeId type = graph_.type(id);
    bool tuple_typed = type.valid() && context_.types.kind(type) == TypeKind::kTuple;
    std::size_t output_count = tuple_typed ? context_.types.children(type).size() : 1;

    std::optional<std::uint32_t> original = original_of(id);
    const ::onnx::NodeProto* source =
        original ? &origin_->model->graph().node(static_cast<int>(*original)) : nullptr;
    if (source != nullptr && op == op_name(source->domain(), source->op_type()) &&
        graph_.attrs(id) == origin_->node_attrs[*original] &&
        output_count == static_cast<std::size_t>(source->output_size()) &&
        std::equal(inputs.begin(), inputs.end(), source->input().begin(), source->input().end())) {
      bool names_free = true;
      for (const std::string& output : source->output()) {
        if (!output.empty() && used_values_.contains(output)) names_free = false;
      }
      // Node names are not claimed: a file may give two nodes one name, and each keeps it.
      if (names_free) {
        std::vector<std::string_view> outputs(source->output().begin(), source->output().end());
        for (std::string_view output : outputs) {
          if (!output.empty()) used_values_.insert(output);
        }
        set_outputs(id, tuple_typed, std::move(outputs));
        nodes_.push_back({*original, {}});
        return absl::OkStatus();
      }
    }

    ::onnx::NodeProto proto;
    if (source != nullptr && !source->name().empty()) {
      proto.set_name(source->name());
    } else {
      proto.set_name(std::string(fresh_name(used_nodes_)));
    }
    OpIdentity identity = split_op_name(op, domains_);
    proto.set_op_type(std::string(identity.op_type));
    if (!identity.domain.empty()) {
      proto.set_domain(std::string(identity.domain));
      if (std::find(domains_.begin(), domains_.end(), identity.domain) == domains_.end()) {
        domains_.emplace_back(identity.domain);
      }
      used_domains_.insert(std::string(identity.domain));
    }
    for (std::string_view input : inputs) proto.add_input(std::string(input));
    std::vector<std::string_view> outputs;
    for (std::size_t k = 0; k < output_count; ++k) {
      std::string_view name;
      if (source != nullptr && k < static_cast<std::size_t>(source->output_size())) {
        name = source->output(static_cast<int>(k));
        if (!name.empty() && !claim_value(name)) name = fresh_name(used_values_);
      } else {
        name = fresh_name(used_values_);
        new_value_types_.emplace_back(name, tuple_typed ? context_.types.children(type)[k] : type);
      }
      proto.add_output(std::string(name));
      outputs.push_back(name);
    }
    GRAPHPAT_RETURN_IF_ERROR(write_attributes(id, proto));
    set_outputs(id, tuple_typed, std::move(outputs));
    nodes_.push_back({kNew, std::move(proto)});
    return absl::OkStatus();
  }

  /// Records a call's output names; a call of one output (not tuple-typed) is that value.
  void set_outputs(NodeId call, bool tuple_typed, std::vector<std::string_view> outputs) {
    if (tuple_typed) {
      outputs_[call] = std::move(outputs);
    } else {
      names_[call] = outputs.front();
    }
  }

  /// The call's attributes: a loaded node's AttributeProtos when the value is one the reader
  /// made, else each field by its value's kind.
  absl::Status write_attributes(NodeId call, ::onnx::NodeProto& proto) {
    AttrValueId attrs = graph_.attrs(call);
    if (!attrs.valid()) return absl::OkStatus();
    if (auto found = attrs_source_.find(attrs); found != attrs_source_.end()) {
      *proto.mutable_attribute() =
          origin_->model->graph().node(static_cast<int>(found->second)).attribute();
      return absl::OkStatus();
    }
    const AttrTable& table = context_.attrs;
    if (table.kind(attrs) != AttrKind::kObject) {
      return unsupported(fmt::format("node %{}: attributes that are not an object", call.index()));
    }
    for (std::size_t i = 0; i < table.entry_count(attrs); ++i) {
      ::onnx::AttributeProto* attribute = proto.add_attribute();
      attribute->set_name(std::string(context_.strings.view(table.field_key(attrs, i))));
      GRAPHPAT_RETURN_IF_ERROR(write_attribute(call, table.entry_value(attrs, i), *attribute));
    }
    return absl::OkStatus();
  }

  absl::Status write_attribute(NodeId call, AttrValueId value, ::onnx::AttributeProto& out) {
    using A = ::onnx::AttributeProto;
    const AttrTable& table = context_.attrs;
    auto tensor = [&](AttrValueId id, ::onnx::TensorProto* proto) {
      std::optional<AttrValueId> bytes =
          table.kind(id) == AttrKind::kObject && table.text(id) == kTensorTypeKey
              ? table.find_field(id, "proto")
              : std::nullopt;
      return bytes && table.kind(*bytes) == AttrKind::kString &&
             proto->ParseFromString(std::string(table.text(*bytes)));
    };
    switch (table.kind(value)) {
      case AttrKind::kInt:
        out.set_type(A::INT);
        out.set_i(table.as_int(value));
        return absl::OkStatus();
      case AttrKind::kFloat:
        out.set_type(A::FLOAT);
        out.set_f(static_cast<float>(table.as_float(value)));
        return absl::OkStatus();
      case AttrKind::kString:
        out.set_type(A::STRING);
        out.set_s(std::string(table.text(value)));
        return absl::OkStatus();
      case AttrKind::kObject:
        out.set_type(A::TENSOR);
        if (tensor(value, out.mutable_t())) return absl::OkStatus();
        break;
      case AttrKind::kArray: {
        auto elements = table.elements(value);
        AttrKind kind = elements.empty() ? AttrKind::kInt : table.kind(elements[0]);
        bool same = std::all_of(elements.begin(), elements.end(),
                                [&](AttrValueId e) { return table.kind(e) == kind; });
        if (!same) break;
        if (kind == AttrKind::kInt) {
          out.set_type(A::INTS);
          for (AttrValueId e : elements) out.add_ints(table.as_int(e));
          return absl::OkStatus();
        }
        if (kind == AttrKind::kFloat) {
          out.set_type(A::FLOATS);
          for (AttrValueId e : elements) out.add_floats(static_cast<float>(table.as_float(e)));
          return absl::OkStatus();
        }
        if (kind == AttrKind::kString) {
          out.set_type(A::STRINGS);
          for (AttrValueId e : elements) out.add_strings(std::string(table.text(e)));
          return absl::OkStatus();
        }
        if (kind == AttrKind::kObject) {
          out.set_type(A::TENSORS);
          bool all = true;
          for (AttrValueId e : elements) all = all && tensor(e, out.add_tensors());
          if (all) return absl::OkStatus();
        }
        break;
      }
      default:
        break;
    }
    return unsupported(
        fmt::format("node %{}: attribute '{}' has a value no ONNX attribute type holds",
                    call.index(), out.name()));
  }

  /// The file's nodes no output depended on, each while what it reads is still written and its
  /// output names are free.
  void write_dead_nodes() {
    if (origin_ == nullptr) return;
    for (std::uint32_t index : origin_->dead_nodes) {
      if (claimed_[index]) continue;
      const ::onnx::NodeProto& node = origin_->model->graph().node(static_cast<int>(index));
      bool inputs_written = std::all_of(
          node.input().begin(), node.input().end(),
          [&](const std::string& input) { return input.empty() || used_values_.contains(input); });
      bool outputs_free =
          std::none_of(node.output().begin(), node.output().end(), [&](const std::string& output) {
            return !output.empty() && used_values_.contains(output);
          });
      if (!inputs_written || !outputs_free) continue;
      claimed_[index] = true;
      for (const std::string& output : node.output()) {
        if (!output.empty()) used_values_.insert(output);
      }
      nodes_.push_back({index, {}});
    }
  }

  absl::Status write_outputs(NodeId body) {
    std::vector<NodeId> fields;
    if (graph_.kind(body) == NodeKind::kTuple) {
      fields.assign(graph_.fields(body).begin(), graph_.fields(body).end());
    } else {
      fields.push_back(body);
    }
    const ::onnx::GraphProto* original = origin_ != nullptr ? &origin_->model->graph() : nullptr;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      auto found = names_.find(fields[i]);
      if (found == names_.end() || found->second.empty()) {
        return unsupported(
            fmt::format("output {} of main (node %{}) is not one value", i, fields[i].index()));
      }
      TypeId type = graph_.type(fields[i]);
      if (original != nullptr && i < static_cast<std::size_t>(original->output_size()) &&
          original->output(static_cast<int>(i)).name() == found->second &&
          (origin_->output_types[i] == type || !type.valid() ||
           graph_.kind(fields[i]) == NodeKind::kVar ||
           graph_.kind(fields[i]) == NodeKind::kConstant)) {
        outputs_written_.push_back(original->output(static_cast<int>(i)));
        ++kept_outputs_;
        continue;
      }
      outputs_written_.push_back(value_info(found->second, type));
    }
    return absl::OkStatus();
  }

  [[nodiscard]] ::onnx::ValueInfoProto value_info(std::string_view name, TypeId type) const {
    ::onnx::ValueInfoProto info;
    info.set_name(std::string(name));
    if (type.valid()) {
      if (std::optional<::onnx::TypeProto> proto = type_proto_of(context_, type)) {
        *info.mutable_type() = std::move(*proto);
      }
    }
    return info;
  }

  void write_inputs(NodeId main) {
    const ::onnx::GraphProto* original = origin_ != nullptr ? &origin_->model->graph() : nullptr;
    std::size_t input_count =
        original != nullptr ? static_cast<std::size_t>(original->input_size()) : 0;
    absl::flat_hash_map<std::string_view, std::uint32_t> var_inputs;  // by name, not yet taken
    for (std::size_t i = 0; i < input_count; ++i) {
      if (!origin_->input_is_initializer[i]) {
        var_inputs.emplace(original->input(static_cast<int>(i)).name(),
                           static_cast<std::uint32_t>(i));
      }
    }
    for (NodeId param : graph_.params(main)) {
      std::string_view name = graph_.name(param);
      auto match = var_inputs.find(name);
      if (match != var_inputs.end() &&
          origin_->input_types[match->second] == graph_.annotation(param)) {
        input_sources_.push_back(match->second);
        inputs_written_.push_back(original->input(static_cast<int>(match->second)));
        var_inputs.erase(match);
      } else {
        input_sources_.push_back(kNew);
        inputs_written_.push_back(value_info(name, graph_.annotation(param)));
      }
    }
    // Inputs naming an initializer stay while the initializer does.
    for (std::size_t i = 0; i < input_count; ++i) {
      const ::onnx::ValueInfoProto& input = original->input(static_cast<int>(i));
      if (origin_->input_is_initializer[i] && used_values_.contains(input.name())) {
        input_sources_.push_back(static_cast<std::uint32_t>(i));
        inputs_written_.push_back(input);
      }
    }
    // When the parameters are the file's inputs in its order, the file's interleaving of them
    // with initializers' inputs comes back too.
    std::size_t params = graph_.params(main).size();
    bool in_order =
        std::is_sorted(input_sources_.begin(),
                       input_sources_.begin() + static_cast<std::ptrdiff_t>(params)) &&
        std::find(input_sources_.begin(), input_sources_.end(), kNew) == input_sources_.end();
    if (in_order) {
      std::vector<std::size_t> order(input_sources_.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return input_sources_[a] < input_sources_[b];
      });
      std::vector<std::uint32_t> sources;
      std::vector<::onnx::ValueInfoProto> written;
      for (std::size_t i : order) {
        sources.push_back(input_sources_[i]);
        written.push_back(std::move(inputs_written_[i]));
      }
      input_sources_ = std::move(sources);
      inputs_written_ = std::move(written);
    }
  }

  void write_initializers() {
    if (origin_ == nullptr) return;
    for (std::uint32_t index : origin_->unreached_initializers) {
      if (claim_value(origin_->model->graph().initializer(static_cast<int>(index)).name())) {
        kept_initializers_.push_back(index);
      }
    }
    std::sort(kept_initializers_.begin(), kept_initializers_.end());
  }

  /// value_info of the loaded file for the values still written (and, as they were, the
  /// entries that describe no value of the file), and of the new values whose type is known.
  void write_value_info() {
    if (origin_ != nullptr) {
      const ::onnx::GraphProto& graph = origin_->model->graph();
      for (int i = 0; i < graph.value_info_size(); ++i) {
        const ::onnx::ValueInfoProto& info = graph.value_info(i);
        if (used_values_.contains(info.name()) ||
            origin_->value_info_of_nothing.contains(static_cast<std::uint32_t>(i))) {
          kept_value_info_.push_back(&info);
        }
      }
    }
    absl::flat_hash_set<std::string_view> outputs;
    for (const ::onnx::ValueInfoProto& output : outputs_written_) outputs.insert(output.name());
    for (const auto& [name, type] : new_value_types_) {
      if (!type.valid() || outputs.contains(name)) continue;
      if (std::optional<::onnx::TypeProto> proto = type_proto_of(context_, type)) {
        ::onnx::ValueInfoProto& info = new_value_info_.emplace_back();
        info.set_name(std::string(name));
        *info.mutable_type() = std::move(*proto);
      }
    }
  }

  /// Whether every part of the loaded file comes back as it was, in its place.
  [[nodiscard]] bool unchanged() const {
    if (origin_ == nullptr) return false;
    const ::onnx::GraphProto& graph = origin_->model->graph();
    if (nodes_.size() != static_cast<std::size_t>(graph.node_size()) ||
        std::any_of(nodes_.begin(), nodes_.end(),
                    [](const WrittenNode& n) { return n.original == kNew; })) {
      return false;
    }
    if (!new_initializers_.empty() ||
        kept_initializers_.size() != static_cast<std::size_t>(graph.initializer_size())) {
      return false;
    }
    if (kept_outputs_ != static_cast<std::size_t>(graph.output_size()) ||
        outputs_written_.size() != kept_outputs_) {
      return false;
    }
    if (input_sources_.size() != static_cast<std::size_t>(graph.input_size())) return false;
    for (std::size_t i = 0; i < input_sources_.size(); ++i) {
      if (input_sources_[i] != i) return false;
    }
    return kept_value_info_.size() == static_cast<std::size_t>(graph.value_info_size()) &&
           new_value_info_.empty();
  }

  absl::StatusOr<std::string> serialize() {
    ::onnx::ModelProto model;
    ::onnx::GraphProto* graph = model.mutable_graph();
    if (origin_ != nullptr) {
      const ::onnx::ModelProto& source = *origin_->model;
      copy_model_fields(source, model);
      const ::onnx::GraphProto& source_graph = source.graph();
      if (source_graph.has_name()) graph->set_name(source_graph.name());
      if (source_graph.has_doc_string()) graph->set_doc_string(source_graph.doc_string());
      *graph->mutable_quantization_annotation() = source_graph.quantization_annotation();
      graph->mutable_unknown_fields()->MergeFrom(source_graph.unknown_fields());
    } else {
      model.set_ir_version(kFreshIrVersion);
      model.set_producer_name("graphpat");
      ::onnx::OperatorSetIdProto* opset = model.add_opset_import();
      opset->set_domain("");
      opset->set_version(kFreshOpsetVersion);
      graph->set_name("main");
    }
    for (const std::string& domain : used_domains_) {
      bool imported =
          std::any_of(model.opset_import().begin(), model.opset_import().end(),
                      [&](const ::onnx::OperatorSetIdProto& o) { return o.domain() == domain; });
      if (!imported) {
        ::onnx::OperatorSetIdProto* opset = model.add_opset_import();
        opset->set_domain(domain);
        opset->set_version(1);
      }
    }
    for (WrittenNode& node : nodes_) {
      if (node.original == kNew) {
        *graph->add_node() = std::move(node.proto);
      } else {
        *graph->add_node() = origin_->model->graph().node(static_cast<int>(node.original));
      }
    }
    for (::onnx::ValueInfoProto& input : inputs_written_) *graph->add_input() = std::move(input);
    for (::onnx::ValueInfoProto& output : outputs_written_)
      *graph->add_output() = std::move(output);
    for (std::uint32_t index : kept_initializers_) {
      *graph->add_initializer() = origin_->model->graph().initializer(static_cast<int>(index));
    }
    for (::onnx::TensorProto& tensor : new_initializers_)
      *graph->add_initializer() = std::move(tensor);
    for (const ::onnx::ValueInfoProto* info : kept_value_info_) *graph->add_value_info() = *info;
    for (::onnx::ValueInfoProto& info : new_value_info_) *graph->add_value_info() = std::move(info);
    std::string bytes;
    if (!model.SerializeToString(&bytes)) {
      return unsupported("a model of 2 GiB or more, protobuf's limit");
    }
    return bytes;
  }

  /// Everything of the model but its graph (whose parts the writer rebuilds).
  static void copy_model_fields(const ::onnx::ModelProto& source, ::onnx::ModelProto& model) {
    if (source.has_ir_version()) model.set_ir_version(source.ir_version());
    *model.mutable_opset_import() = source.opset_import();
    if (source.has_producer_name()) model.set_producer_name(source.producer_name());
    if (source.has_producer_version()) model.set_producer_version(source.producer_version());
    if (source.has_domain()) model.set_domain(source.domain());
    if (source.has_model_version()) model.set_model_version(source.model_version());
    if (source.has_doc_string()) model.set_doc_string(source.doc_string());
    *model.mutable_metadata_props() = source.metadata_props();
    *model.mutable_training_info() = source.training_info();
    model.mutable_unknown_fields()->MergeFrom(source.unknown_fields());
  }

  static constexpr std::uint32_t kNew = ~std::uint32_t{0};

  /// A node to write: the loaded file's node `original` unchanged, or `proto`.
  struct WrittenNode {
    std::uint32_t original = kNew;
    ::onnx::NodeProto proto;
  };

  const Module& module_;
  const Graph& graph_;
  Context& context_;
  const OnnxOrigin* origin_;
  std::vector<std::string> domains_;  // the file's non-default opset domains, for split_op_name
  absl::flat_hash_set<std::string> used_domains_;
  absl::flat_hash_map<AttrValueId, std::uint32_t> attrs_source_;
  std::vector<bool> claimed_;
  absl::flat_hash_set<NodeId> params_;
  absl::flat_hash_set<std::string_view> used_values_;  // into the file, the graph or fresh_names_
  absl::flat_hash_set<std::string_view> used_nodes_;   // fresh node names (the file's stay)
  std::deque<std::string> fresh_names_;                // the names fresh_name made
  std::uint64_t next_fresh_ = 0;
  absl::flat_hash_map<NodeId, std::string_view> names_;  // the nodes that are one value
  absl::flat_hash_map<NodeId, std::vector<std::string_view>> outputs_;  // tuple-typed calls'
  absl::flat_hash_map<TensorId, std::string_view> constant_names_;
  std::vector<WrittenNode> nodes_;
  std::vector<std::uint32_t> kept_initializers_;
  std::vector<::onnx::TensorProto> new_initializers_;
  std::vector<std::pair<std::string_view, TypeId>> new_value_types_;
  std::vector<::onnx::ValueInfoProto> inputs_written_;
  std::vector<std::uint32_t> input_sources_;
  std::vector<::onnx::ValueInfoProto> outputs_written_;
  std::size_t kept_outputs_ = 0;
  std::vector<const ::onnx::ValueInfoProto*> kept_value_info_;
  std::vector<::onnx::ValueInfoProto> new_value_info_;
};

}  // namespace graphpat::onnx::detail

#include "graphpat/detail/status_macros_undef.hpp"
