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
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/analysis/structural_equal.hpp"
#include "graphpat/detail/text_map.hpp"
#include "graphpat/io/onnx/attribute_writer.hpp"
#include "graphpat/io/onnx/conversions.hpp"
#include "graphpat/io/onnx/function_writer.hpp"
#include "graphpat/io/onnx/model_header.hpp"
#include "graphpat/io/onnx/provenance.hpp"
#include "graphpat/ir/conventions.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/onnx/dialect.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::onnx::detail {

/// What a module without provenance is written as: ONNX 1.12's IR version and opset.
inline constexpr std::int64_t kFreshIrVersion = 8;
inline constexpr std::int64_t kFreshOpsetVersion = 17;

/// The value name of each written node that is one value (a graph input, an initializer, a
/// call's only output or an item of one; "" for an absent optional input), by node index: the
/// writer looks one up per argument, so a table rather than a map.
class NodeNames {
 public:
  void set(NodeId id, std::string_view name) {
    if (id.index() >= names_.size()) names_.resize(id.index() + 1);
    names_[id.index()] = name.data() == nullptr ? std::string_view("") : name;
  }
  [[nodiscard]] std::optional<std::string_view> find(NodeId id) const {
    if (id.index() >= names_.size() || names_[id.index()].data() == nullptr) return std::nullopt;
    return names_[id.index()];
  }
  [[nodiscard]] bool contains(NodeId id) const { return find(id).has_value(); }

 private:
  std::vector<std::string_view> names_;  // a null data(): not written
};

class OnnxWriter {
 public:
  OnnxWriter(const Module& module, const OnnxOrigin* origin, std::string function_domain)
      : module_(module),
        graph_(module.graph),
        context_(module.graph.context()),
        origin_(origin),
        attributes_(module.graph, origin),
        function_domain_(std::move(function_domain)) {
    // A header the module carries, unless it is the one its provenance's model has.
    use_header_ = is_model_header(context_, module.attrs) &&
                  (origin_ == nullptr || module.attrs != origin_->header);
    if (use_header_) header_status_ = apply_model_header(context_, module.attrs, header_);
    if (origin_ != nullptr) {
      claimed_.assign(static_cast<std::size_t>(origin_->model->graph().node_size()), false);
    }
    const ::onnx::ModelProto* opsets = use_header_          ? &header_
                                       : origin_ != nullptr ? origin_->model.get()
                                                            : nullptr;
    if (opsets != nullptr) {
      for (const ::onnx::OperatorSetIdProto& opset : opsets->opset_import()) {
        if (!is_default_domain(opset.domain())) domains_.push_back(opset.domain());
      }
    }
    if (std::find(domains_.begin(), domains_.end(), function_domain_) == domains_.end()) {
      domains_.push_back(function_domain_);
    }
  }

  absl::StatusOr<std::string> write() {
    if (origin_ != nullptr && origin_->context.get() != &context_) {
      return write_unsupported(
          "a provenance of a graph of another context (pass the provenance of the load that made "
          "this graph, or of the graph a pass made of it)");
    }
    if (function_domain_.empty()) {
      return write_unsupported("an empty function domain (the default domain holds ONNX's ops)");
    }
    if (!header_status_.ok()) {
      return make_error(absl::StatusCode::kInvalidArgument, "onnx.bad_header",
                        std::string(header_status_.message()));
    }
    GRAPHPAT_ASSIGN_OR_RETURN(NodeId main, find_main());
    reserve_names(main);
    GRAPHPAT_RETURN_IF_ERROR(write_module_functions(main));
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
  absl::StatusOr<NodeId> find_main() const {
    std::optional<NodeId> main = module_.find("main");
    if (!main || graph_.kind(*main) != NodeKind::kFunction) {
      return write_unsupported("the module has no function main");
    }
    return *main;
  }

  /// Module functions besides main, as FunctionProtos in module order: a function the reader
  /// made of a FunctionProto as that proto while its name and graph are the same, else
  /// written from the graph under its name `domain.name`.
  absl::Status write_module_functions(NodeId main) {
    for (const GlobalFunction& global : module_.functions()) {
      std::string_view name = module_.name(global);
      if (global.function != main) function_names_.emplace(name);
    }
    for (const GlobalFunction& global : module_.functions()) {
      if (global.function == main) continue;
      std::string_view name = module_.name(global);
      std::string place = fmt::format("module function '{}'", name);
      if (graph_.kind(global.function) != NodeKind::kFunction) {
        return write_unsupported(fmt::format("{}: not a function", place));
      }
      if (std::optional<std::uint32_t> original = original_function(name, global.function)) {
        functions_.push_back({*original, {}});
        continue;
      }
      OpIdentity identity = split_op_name(name, domains_);
      if (identity.domain.empty()) {
        return write_unsupported(
            fmt::format("{}: an ONNX function needs a domain (name it 'domain.{}')", place, name));
      }
      GRAPHPAT_ASSIGN_OR_RETURN(WrittenBody written,
                                write_function(global.function, place, /*lift_constants=*/false));
      ::onnx::FunctionProto proto = function_proto(std::move(written));
      proto.set_domain(std::string(identity.domain));
      proto.set_name(std::string(identity.op_type));
      used_domains_.insert(std::string(identity.domain));
      functions_.push_back({kNew, std::move(proto)});
    }
    return absl::OkStatus();
  }

  /// The index of the FunctionProto the reader made module function `name` of, while the
  /// function is the one it made.
  [[nodiscard]] std::optional<std::uint32_t> original_function(std::string_view name,
                                                               NodeId function) const {
    if (origin_ == nullptr) return std::nullopt;
    for (std::size_t i = 0; i < origin_->function_nodes.size(); ++i) {
      const ::onnx::FunctionProto& proto = origin_->model->functions(static_cast<int>(i));
      if (op_name(proto.domain(), proto.name()) == name &&
          unchanged_function(function, origin_->function_nodes[i])) {
        return static_cast<std::uint32_t>(i);
      }
    }
    return std::nullopt;
  }

  /// How a function body's calls are resolved: as main's, but a function literal called
  /// inside a function is refused (its lifted constants would have to pass through).
  std::function<absl::StatusOr<Callee>(NodeId)> body_callee() {
    return [this](NodeId call) -> absl::StatusOr<Callee> {
      if (graph_.kind(graph_.callee(call)) == NodeKind::kFunction) {
        return write_unsupported(
            fmt::format("node %{}: a call of a function literal inside a function", call.index()));
      }
      return callee_of(call);
    };
  }

  /// What `call` calls: an op, a module function (by its global name), or a function literal
  /// (written as a FunctionProto of the function domain when first called).
  absl::StatusOr<Callee> callee_of(NodeId call) {
    NodeId callee = graph_.callee(call);
    Callee result;
    TypeId type = graph_.type(call);
    result.tuple_typed = type.valid() && context_.types.kind(type) == TypeKind::kTuple;
    result.outputs = result.tuple_typed ? context_.types.children(type).size() : 1;
    GRAPHPAT_ASSIGN_OR_RETURN(result.inputs, node_inputs(call));
    switch (graph_.kind(callee)) {
      case NodeKind::kOp:
        name_callee(context_.op_name(graph_.op(callee)), result);
        return result;
      case NodeKind::kGlobalVar: {
        std::string_view name = graph_.name(callee);
        std::optional<NodeId> function = module_.find(name);
        if (!function || !function_names_.contains(std::string(name)) ||
            graph_.kind(*function) != NodeKind::kFunction) {
          return write_unsupported(fmt::format(
              "node %{}: a call of @{}, which is no function of the module besides main",
              call.index(), name));
        }
        // As many outputs as the call's type says (the reader types a call of several
        // outputs), else as the function returns.
        if (!type.valid()) set_arity(*function, result);
        name_callee(name, result);
        return result;
      }
      case NodeKind::kFunction: {
        GRAPHPAT_ASSIGN_OR_RETURN(const Callee* literal, literal_function(callee));
        Callee called = *literal;
        called.inputs = result.inputs;
        return called;
      }
      default:
        return write_unsupported(fmt::format("node %{}: a call of a {}", call.index(),
                                             node_kind_name(graph_.kind(callee))));
    }
  }

  /// How many of `call`'s arguments are node inputs: those before its GRAPH attributes'
  /// functions and captures, which must follow them in order (as the reader lays them out).
  absl::StatusOr<std::size_t> node_inputs(NodeId call) const {
    auto args = graph_.args(call);
    std::vector<std::pair<std::size_t, std::size_t>> refs =
        attributes_.graph_refs(graph_.attrs(call));
    if (refs.empty()) return args.size();
    std::sort(refs.begin(), refs.end());
    std::size_t next = refs.front().first;
    for (auto [arg, captures] : refs) {
      if (arg != next || arg + captures >= args.size() ||
          graph_.kind(args[arg]) != NodeKind::kFunction) {
        next = ~std::size_t{0};
        break;
      }
      next = arg + 1 + captures;
    }
    if (next != args.size()) {
      return write_unsupported(fmt::format(
          "node %{}: GRAPH attributes that do not describe the call's last arguments (each a "
          "function, then the values it captures)",
          call.index()));
    }
    return refs.front().first;
  }

  /// A function's outputs: the fields of a tuple body, else the one value.
  void set_arity(NodeId function, Callee& callee) const {
    NodeId body = graph_.body(function);
    callee.tuple_typed = graph_.kind(body) == NodeKind::kTuple;
    callee.outputs = callee.tuple_typed ? graph_.fields(body).size() : 1;
  }

  /// Sets the callee's name and its (domain, op_type), importing the domain.
  void name_callee(std::string_view name, Callee& callee) {
    OpIdentity identity = split_op_name(name, domains_);
    callee.name = std::string(name);
    callee.domain = std::string(identity.domain);
    callee.op_type = std::string(identity.op_type);
    if (!callee.domain.empty()) {
      if (std::find(domains_.begin(), domains_.end(), callee.domain) == domains_.end()) {
        domains_.push_back(callee.domain);
      }
      used_domains_.insert(callee.domain);
    }
  }

  /// The FunctionProto of function literal `function`, written on first use: named after its
  /// composite_key or partitioned_from_key attribute (`_2`, `_3`, ... for another body of a
  /// name already taken), one per distinct body.
  absl::StatusOr<const Callee*> literal_function(NodeId function) {
    if (auto found = literals_.find(function); found != literals_.end()) return &found->second;
    std::string base = literal_name(function);
    GRAPHPAT_ASSIGN_OR_RETURN(
        WrittenBody written,
        write_function(function, fmt::format("function %{} ('{}')", function.index(), base),
                       /*lift_constants=*/true));
    std::vector<NodeId> lifted = std::move(written.lifted);
    ::onnx::FunctionProto proto = function_proto(std::move(written));
    std::string body = proto.SerializeAsString();
    std::string name;
    if (auto same = function_by_body_.find(body); same != function_by_body_.end()) {
      name = same->second;
    } else {
      for (int k = 1;; ++k) {
        name = k == 1 ? base : fmt::format("{}_{}", base, k);
        if (!function_names_.contains(op_name(function_domain_, name))) break;
      }
      function_names_.insert(op_name(function_domain_, name));
      function_by_body_.emplace(std::move(body), name);
      proto.set_domain(function_domain_);
      proto.set_name(name);
      functions_.push_back({kNew, std::move(proto)});
    }
    Callee callee;
    set_arity(function, callee);
    name_callee(op_name(function_domain_, name), callee);
    callee.lifted = std::move(lifted);
    return &literals_.emplace(function, std::move(callee)).first->second;
  }

  /// A function's body for a FunctionProto: canonical names (x0, v0, n0: the function's own
  /// namespace); a constant lifted to a trailing input, or refused.
  absl::StatusOr<WrittenBody> write_function(NodeId function, const std::string& place,
                                             bool lift_constants) {
    std::array<std::size_t, 3> next = {0, 0, 0};
    BodyOptions options{.place = place,
                        .first_captured = ~std::size_t{0},
                        .captured_names = {},
                        .fresh =
                            [&next](NameKind kind) {
                              static constexpr std::array<char, 3> kPrefix = {'x', 'v', 'n'};
                              auto k = static_cast<std::size_t>(kind);
                              return fmt::format("{}{}", kPrefix[k], next[k]++);
                            },
                        .constant_name = nullptr};
    if (!lift_constants) {
      options.constant_name = [&](NodeId constant) -> absl::StatusOr<std::string> {
        return write_unsupported(
            fmt::format("{}, node %{}: a constant (an ONNX function holds no initializers)", place,
                        constant.index()));
      };
    }
    return write_body(graph_, attributes_, function, options, body_callee(),
                      [this](NodeId call, std::size_t arg, const std::vector<std::string>& captured,
                             ::onnx::GraphProto& out) {
                        return write_subgraph(call, arg, captured, /*in_function=*/true, out);
                      });
  }

  static ::onnx::FunctionProto function_proto(WrittenBody body) {
    ::onnx::FunctionProto proto;
    for (auto& [name, node] : body.inputs) proto.add_input(std::move(name));
    for (auto& [name, node] : body.outputs) proto.add_output(std::move(name));
    proto.mutable_node()->Swap(&body.nodes);
    return proto;
  }

  /// How deep subgraphs may nest in what the writer writes (a file cannot be parsed with more:
  /// protobuf's recursion limit).
  static constexpr int kMaxSubgraphDepth = 32;

  /// The GRAPH attribute of `call` whose function is argument `arg`, its captures the values
  /// `captured` names: the function's parameters before the captures are the graph's inputs,
  /// its values fresh names of the file, a constant the main graph's initializer (read by name;
  /// refused inside a FunctionProto, which sees no initializer).
  absl::Status write_subgraph(NodeId call, std::size_t arg,
                              const std::vector<std::string>& captured, bool in_function,
                              ::onnx::GraphProto& out) {
    NodeId function = graph_.args(call)[arg];
    std::string place = fmt::format("node %{}: the subgraph of argument {}", call.index(), arg);
    std::size_t params = graph_.params(function).size();
    if (captured.size() > params) {
      return write_unsupported(
          fmt::format("{}: {} captures but {} parameters", place, captured.size(), params));
    }
    if (subgraph_depth_ >= kMaxSubgraphDepth) {
      return write_unsupported(
          fmt::format("{}: subgraphs nested more than {} deep", place, kMaxSubgraphDepth));
    }
    BodyOptions options{
        .place = place,
        .first_captured = params - captured.size(),
        .captured_names = captured,
        .fresh =
            [this](NameKind kind) {
              return std::string(fresh_name(kind == NameKind::kNode ? used_nodes_ : used_values_));
            },
        .constant_name = [&](NodeId constant) -> absl::StatusOr<std::string> {
          if (in_function) {
            return write_unsupported(fmt::format(
                "{}, node %{}: a constant in a subgraph of a function (an ONNX function holds no "
                "initializers)",
                place, constant.index()));
          }
          if (!names_.contains(constant)) GRAPHPAT_RETURN_IF_ERROR(write_constant(constant));
          return std::string(*names_.find(constant));
        }};
    ++subgraph_depth_;
    absl::StatusOr<WrittenBody> written =
        write_body(graph_, attributes_, function, options, body_callee(),
                   [&](NodeId inner, std::size_t inner_arg,
                       const std::vector<std::string>& inner_captured, ::onnx::GraphProto& graph) {
                     return write_subgraph(inner, inner_arg, inner_captured, in_function, graph);
                   });
    --subgraph_depth_;
    if (!written.ok()) return written.status();
    out.set_name(std::string(fresh_name(used_nodes_)));
    for (const auto& [name, param] : written->inputs) {
      *out.add_input() = value_info(name, graph_.annotation(param));
    }
    for (const auto& [name, node] : written->outputs) {
      *out.add_output() = value_info(name, graph_.type(node));
    }
    out.mutable_node()->Swap(&written->nodes);
    return absl::OkStatus();
  }

  /// A function literal's name: its composite_key attribute, else its partitioned_from_key.
  [[nodiscard]] std::string literal_name(NodeId function) const {
    AttrValueId attrs = graph_.attrs(function);
    const AttrTable& table = context_.attrs;
    if (attrs.valid() && table.kind(attrs) == AttrKind::kObject) {
      for (std::string_view key : {kConventions.composite_key, kConventions.partitioned_from_key}) {
        std::optional<AttrValueId> value = table.find_field(attrs, key);
        if (value && table.kind(*value) == AttrKind::kString && !table.text(*value).empty()) {
          return std::string(table.text(*value));
        }
      }
    }
    return "function";
  }

  /// Which nodes main (`root`) reaches: one backward scan, since operands precede their
  /// users. A function literal main calls is a callee, written as a FunctionProto: its body is
  /// not main's.
  [[nodiscard]] std::vector<bool> reachable(NodeId root) const {
    std::vector<bool> reached(root.index() + 1, false);
    reached[root.index()] = true;
    for (std::uint32_t index = root.index() + 1; index-- > 0;) {
      if (!reached[index]) continue;
      if (index != root.index() && graph_.kind(NodeId(index)) == NodeKind::kFunction) continue;
      for (NodeId operand : graph_.operands(NodeId(index))) reached[operand.index()] = true;
    }
    return reached;
  }

  /// The names the writer gives before any fresh name: the header's output names, each to the
  /// value main's output of that position is (wanted_outputs_), and, for a module without
  /// provenance, the node names its calls' spans carry.
  void reserve_names(NodeId main) {
    std::vector<NodeId> fields = output_values(graph_, graph_.body(main));
    std::vector<std::string_view> names = header_output_names(context_, module_.attrs);
    if (names.size() == fields.size()) {
      // A parameter keeps its name wherever it comes in graph order: an output never takes it.
      graphpat::detail::TextSet params;
      for (NodeId param : graph_.params(main)) params.insert(graph_.name(param));
      for (std::size_t i = 0; i < fields.size(); ++i) {
        NodeId value = fields[i];
        std::uint32_t output = 0;
        if (graph_.kind(value) == NodeKind::kTupleGetItem) {
          output = graph_.index(value);
          value = graph_.tuple(value);
        }
        if (graph_.kind(value) != NodeKind::kCall || names[i].empty() ||
            params.contains(names[i])) {
          continue;
        }
        wanted_outputs_.try_emplace({value, output}, names[i]);
        reserved_names_.insert(names[i]);
      }
    }
    if (origin_ != nullptr) return;
    for (std::uint32_t index = 0; index < main.index(); ++index) {
      if (graph_.kind(NodeId(index)) == NodeKind::kCall) {
        if (std::optional<std::string_view> name = span_name(NodeId(index))) {
          reserved_names_.insert(*name);
        }
      }
    }
  }

  /// The node name a call's span carries, if it carries one ("" is a node without a name).
  [[nodiscard]] std::optional<std::string_view> span_name(NodeId call) const {
    SpanId span = graph_.span(call);
    if (!span.valid() || !context_.spans.get(span).source.valid()) return std::nullopt;
    return context_.strings.view(context_.spans.get(span).source);
  }

  /// The name output `k` of `call` gets when it has none of its own: the header's name of the
  /// main output it is, while free, else a fresh one.
  std::string_view new_output_name(NodeId call, std::size_t k) {
    auto wanted = wanted_outputs_.find({call, static_cast<std::uint32_t>(k)});
    if (wanted != wanted_outputs_.end() && claim_value(wanted->second)) return wanted->second;
    return fresh_name(used_values_);
  }

  /// A name no part of the file and nothing written so far uses, claimed in `names`.
  std::string_view fresh_name(graphpat::detail::TextSet& names) {
    while (true) {
      std::string name = fmt::format("{}{}", kFreshNamePrefix, next_fresh_++);
      bool taken = used_values_.contains(name) || used_nodes_.contains(name) ||
                   reserved_names_.contains(name) ||
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
      case NodeKind::kGlobalVar:
      case NodeKind::kFunction:
        return absl::OkStatus();  // callees
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
          return write_unsupported(
              fmt::format("node %{}: a TupleGetItem not of an output of a call", id.index()));
        }
        names_.set(id, found->second[graph_.index(id)]);
        return absl::OkStatus();
      }
      case NodeKind::kTuple:
        if (graph_.fields(id).empty()) {
          names_.set(id, "");  // an absent optional input
          return absl::OkStatus();
        }
        if (id == body) return absl::OkStatus();
        return write_unsupported(
            fmt::format("node %{}: a tuple other than main's outputs", id.index()));
      default:
        return write_unsupported(
            fmt::format("node %{}: a {} node", id.index(), node_kind_name(graph_.kind(id))));
    }
  }

  absl::Status write_var(NodeId id) {
    std::string_view name = graph_.name(id);
    if (!params_.contains(id)) {
      return write_unsupported(
          fmt::format("node %{}: variable '{}' is not a parameter of main", id.index(), name));
    }
    if (name.empty() || !claim_value(name)) {
      return write_unsupported(fmt::format(
          "node %{}: parameter name '{}' is empty or names another value", id.index(), name));
    }
    names_.set(id, name);
    return absl::OkStatus();
  }

  absl::Status write_constant(NodeId id) {
    TensorId tensor = graph_.tensor_id(id);
    if (auto named = constant_names_.find(tensor); named != constant_names_.end()) {
      names_.set(id, named->second);
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
          names_.set(id, name);
          return absl::OkStatus();
        }
      }
    }
    std::string_view name = fresh_name(used_values_);
    const Tensor& value = context_.tensors.get(tensor);
    std::string_view dtype = context_.strings.view(value.dtype);
    std::int32_t data_type = data_type_of(dtype);
    if (data_type == 0 || !value.has_data() || element_bytes(data_type) == 0) {
      return write_unsupported(fmt::format("node %{}: a new constant of dtype {} {}", id.index(),
                                           dtype, value.has_data() ? "" : "without bytes"));
    }
    ::onnx::TensorProto& proto = new_initializers_.emplace_back();
    proto.set_name(std::string(name));
    proto.set_data_type(data_type);
    for (std::int64_t extent : value.shape) proto.add_dims(extent);
    std::span<const std::uint8_t> bytes = value.data->view();
    proto.set_raw_data(bytes.data(), bytes.size());
    constant_names_[tensor] = name;
    names_.set(id, name);
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

  /// Where a call of function literal `function` takes its node name and output names from:
  /// the NodeProto its body's result was (the result call, or the call whose output the
  /// result is), so main keeps the names its readers read.
  std::pair<const ::onnx::NodeProto*, std::vector<std::string_view>> literal_source(
      NodeId function) {
    NodeId result = graph_.body(function);
    std::uint32_t output = 0;
    if (graph_.kind(result) == NodeKind::kTupleGetItem) {
      output = graph_.index(result);
      result = graph_.tuple(result);
    }
    if (graph_.kind(result) != NodeKind::kCall) return {};
    std::optional<std::uint32_t> original = original_of(result);
    if (!original) return {};
    const ::onnx::NodeProto& source = origin_->model->graph().node(static_cast<int>(*original));
    if (output >= static_cast<std::uint32_t>(source.output_size())) return {&source, {}};
    return {&source, {source.output(static_cast<int>(output))}};
  }

  /// The type of output `k` of `call`: from the call's type, else (a call of a function
  /// literal, which passes leave untyped) from the function's result.
  [[nodiscard]] TypeId output_type(NodeId call, const Callee& callee, std::size_t k) const {
    TypeId type = graph_.type(call);
    if (!type.valid() && graph_.kind(graph_.callee(call)) == NodeKind::kFunction) {
      NodeId body = graph_.body(graph_.callee(call));
      return callee.tuple_typed ? graph_.type(graph_.fields(body)[k]) : graph_.type(body);
    }
    if (!callee.tuple_typed) return type;
    if (!type.valid() || context_.types.kind(type) != TypeKind::kTuple ||
        k >= context_.types.children(type).size()) {
      return TypeId();
    }
    return context_.types.children(type)[k];
  }

  absl::Status write_call(NodeId id) {
    GRAPHPAT_ASSIGN_OR_RETURN(Callee callee, callee_of(id));
    std::vector<std::string_view> arg_names;  // "" for a GRAPH attribute's function
    for (NodeId arg : graph_.args(id)) {
      std::optional<std::string_view> found = names_.find(arg);
      if (graph_.kind(arg) == NodeKind::kFunction && arg_names.size() >= callee.inputs) {
        arg_names.emplace_back();
      } else if (!found) {
        return write_unsupported(
            fmt::format("node %{}: argument %{} is not one value", id.index(), arg.index()));
      } else {
        arg_names.push_back(*found);
      }
    }
    std::vector<std::string_view> inputs(
        arg_names.begin(), arg_names.begin() + static_cast<std::ptrdiff_t>(callee.inputs));
    for (NodeId constant : callee.lifted) {
      if (!names_.contains(constant)) GRAPHPAT_RETURN_IF_ERROR(write_constant(constant));
      inputs.push_back(*names_.find(constant));
    }

    bool literal = graph_.kind(graph_.callee(id)) == NodeKind::kFunction;
    std::optional<std::uint32_t> original;  // the NodeProto this call still is, if any
    const ::onnx::NodeProto* source = nullptr;
    std::vector<std::string_view> kept_names;  // output names to keep where still free
    if (literal) {
      std::tie(source, kept_names) = literal_source(graph_.callee(id));
    } else if ((original = original_of(id))) {
      source = &origin_->model->graph().node(static_cast<int>(*original));
      kept_names.assign(source->output().begin(), source->output().end());
      if (is_unchanged(id, callee, inputs, *original) &&
          subgraphs_unchanged(id, *original, arg_names)) {
        // Node names are not claimed: a file may give two nodes one name, and each keeps it.
        for (std::string_view output : kept_names) {
          if (!output.empty()) used_values_.insert(output);
        }
        set_outputs(id, callee.tuple_typed, std::move(kept_names));
        nodes_.push_back({*original});
        return absl::OkStatus();
      }
    }

    ::onnx::NodeProto proto;
    if (source != nullptr && !source->name().empty()) {
      proto.set_name(source->name());
    } else if (std::optional<std::string_view> name =
                   origin_ == nullptr ? span_name(id) : std::nullopt) {
      if (!name->empty()) proto.set_name(std::string(*name));
    } else {
      proto.set_name(std::string(fresh_name(used_nodes_)));
    }
    proto.set_op_type(callee.op_type);
    if (!callee.domain.empty()) proto.set_domain(callee.domain);
    for (std::string_view input : inputs) proto.add_input(std::string(input));
    std::vector<std::string_view> outputs;
    for (std::size_t k = 0; k < callee.outputs; ++k) {
      std::string_view name;
      if (k < kept_names.size()) {
        name = kept_names[k];
        if (!name.empty() && !claim_value(name)) name = fresh_name(used_values_);
      } else {
        name = new_output_name(id, k);
        new_value_types_.emplace_back(name, output_type(id, callee, k));
      }
      proto.add_output(std::string(name));
      outputs.push_back(name);
    }
    // A subgraph the call still has as read is written as it was, any other from its function.
    std::size_t graph_attribute = 0;
    auto write_graph = [&](std::size_t arg, std::size_t captures, ::onnx::GraphProto& graph) {
      std::vector<std::string> captured(
          arg_names.begin() + static_cast<std::ptrdiff_t>(arg + 1),
          arg_names.begin() + static_cast<std::ptrdiff_t>(arg + 1 + captures));
      std::size_t k = graph_attribute++;
      if (original) {
        if (const ::onnx::GraphProto* kept = kept_subgraph(id, *original, k, arg, captured)) {
          graph = *kept;
          return absl::OkStatus();
        }
      }
      return write_subgraph(id, arg, captured, /*in_function=*/false, graph);
    };
    if (literal) {
      // The function's name says what the two convention keys would.
      GRAPHPAT_RETURN_IF_ERROR(attributes_.write_fields(
          id, graph_.attrs(graph_.callee(id)),
          {kConventions.composite_key, kConventions.partitioned_from_key}, proto, write_graph));
    } else {
      GRAPHPAT_RETURN_IF_ERROR(attributes_.write(id, proto, write_graph));
    }
    set_outputs(id, callee.tuple_typed, std::move(outputs));
    nodes_.push_back({kNew, std::make_unique<::onnx::NodeProto>(std::move(proto))});
    return absl::OkStatus();
  }

  /// Whether `function` is, structurally and with its types, the function `kept` (in the
  /// reader's copy) that the reader made of a FunctionProto or subgraph.
  [[nodiscard]] bool unchanged_function(NodeId function, NodeId kept) const {
    return structural_equal(graph_, function, *origin_->kept, kept, {.compare_types = true});
  }

  /// The GraphProto of the `k`-th GRAPH attribute of NodeProto `original`, when call `id`'s
  /// function at argument `arg` is still the one the reader made of it and the values it
  /// captures are still written under the names the subgraph reads (`captured`).
  const ::onnx::GraphProto* kept_subgraph(NodeId id, std::uint32_t original, std::size_t k,
                                          std::size_t arg,
                                          const std::vector<std::string>& captured) const {
    auto read = origin_->subgraph_functions.find(original);
    if (read == origin_->subgraph_functions.end() || k >= read->second.size()) return nullptr;
    NodeId function = graph_.args(id)[arg];
    if (!unchanged_function(function, read->second[k])) return nullptr;
    auto params = graph_.params(function);
    for (std::size_t c = 0; c < captured.size(); ++c) {
      if (graph_.name(params[params.size() - captured.size() + c]) != captured[c]) return nullptr;
    }
    const ::onnx::NodeProto& node = origin_->model->graph().node(static_cast<int>(original));
    std::size_t seen = 0;
    for (const ::onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.type() != ::onnx::AttributeProto::GRAPH) continue;
      if (seen++ == k) return &attribute.g();
    }
    return nullptr;
  }

  /// Whether the subgraphs of call `id` are still those of NodeProto `original`: each function
  /// is the one the reader made of it, and each value they capture is still written under the
  /// name the subgraph reads it by (its parameter's name).
  bool subgraphs_unchanged(NodeId id, std::uint32_t original,
                           const std::vector<std::string_view>& arg_names) const {
    std::vector<std::pair<std::size_t, std::size_t>> refs =
        attributes_.graph_refs(graph_.attrs(id));
    for (std::size_t k = 0; k < refs.size(); ++k) {
      auto [arg, captures] = refs[k];
      std::vector<std::string> captured(
          arg_names.begin() + static_cast<std::ptrdiff_t>(arg + 1),
          arg_names.begin() + static_cast<std::ptrdiff_t>(arg + 1 + captures));
      if (kept_subgraph(id, original, k, arg, captured) == nullptr) return false;
    }
    return true;
  }

  /// Whether call `id` is still NodeProto `original` as read: same callee, attributes,
  /// output count and inputs, and its output names not taken since.
  bool is_unchanged(NodeId id, const Callee& callee, std::span<const std::string_view> inputs,
                    std::uint32_t original) const {
    const ::onnx::NodeProto& source = origin_->model->graph().node(static_cast<int>(original));
    return callee.name == op_name(source.domain(), source.op_type()) &&
           graph_.attrs(id) == origin_->node_attrs[original] &&
           callee.outputs == static_cast<std::size_t>(source.output_size()) &&
           std::equal(inputs.begin(), inputs.end(), source.input().begin(), source.input().end()) &&
           std::none_of(source.output().begin(), source.output().end(),
                        [&](const std::string& output) {
                          return !output.empty() && used_values_.contains(output);
                        });
  }

  /// Records a call's output names; a call of one output (not tuple-typed) is that value.
  void set_outputs(NodeId call, bool tuple_typed, std::vector<std::string_view> outputs) {
    if (tuple_typed) {
      outputs_[call] = std::move(outputs);
    } else {
      names_.set(call, outputs.front());
    }
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
      nodes_.push_back({index});
    }
  }

  absl::Status write_outputs(NodeId body) {
    std::vector<NodeId> fields = output_values(graph_, body);
    const ::onnx::GraphProto* original = origin_ != nullptr ? &origin_->model->graph() : nullptr;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      std::optional<std::string_view> found = names_.find(fields[i]);
      if (!found || found->empty()) {
        return write_unsupported(
            fmt::format("output {} of main (node %{}) is not one value", i, fields[i].index()));
      }
      TypeId type = graph_.type(fields[i]);
      if (original != nullptr && i < static_cast<std::size_t>(original->output_size()) &&
          original->output(static_cast<int>(i)).name() == *found &&
          (origin_->output_types[i] == type || !type.valid() ||
           graph_.kind(fields[i]) == NodeKind::kVar ||
           graph_.kind(fields[i]) == NodeKind::kConstant)) {
        outputs_written_.push_back(original->output(static_cast<int>(i)));
        ++kept_outputs_;
        continue;
      }
      outputs_written_.push_back(value_info(*found, type));
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
    graphpat::detail::TextMap<std::uint32_t> var_inputs;  // by name, not yet taken
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
    graphpat::detail::TextSet outputs;
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
    if (origin_ == nullptr || use_header_) return false;
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
    if (functions_.size() != static_cast<std::size_t>(origin_->model->functions_size())) {
      return false;
    }
    for (std::size_t i = 0; i < functions_.size(); ++i) {
      if (functions_[i].original != i) return false;
    }
    return kept_value_info_.size() == static_cast<std::size_t>(graph.value_info_size()) &&
           new_value_info_.empty();
  }

  absl::StatusOr<std::string> serialize() {
    ::onnx::ModelProto model;
    ::onnx::GraphProto* graph = model.mutable_graph();
    if (use_header_) {
      model = header_;
      graph = model.mutable_graph();
    } else if (origin_ != nullptr) {
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
    for (WrittenFunctionProto& function : functions_) {
      if (function.original == kNew) {
        *function.proto.mutable_opset_import() = model.opset_import();
        *model.add_functions() = std::move(function.proto);
      } else {
        *model.add_functions() = origin_->model->functions(static_cast<int>(function.original));
      }
    }
    for (WrittenNode& node : nodes_) {
      if (node.original == kNew) {
        *graph->add_node() = std::move(*node.proto);
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
      return write_unsupported("a model of 2 GiB or more, protobuf's limit");
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

  /// A node to write: the loaded file's node `original` unchanged, or `proto` (apart: most
  /// nodes of a file are kept, and an empty NodeProto per node costs).
  struct WrittenNode {
    std::uint32_t original = kNew;
    std::unique_ptr<::onnx::NodeProto> proto = nullptr;
  };

  /// A function to write: the loaded file's FunctionProto `original`, or `proto`.
  struct WrittenFunctionProto {
    std::uint32_t original = kNew;
    ::onnx::FunctionProto proto;
  };

  static constexpr DialectConventions kConventions = dialect_conventions<Dialect>();

  const Module& module_;
  const Graph& graph_;
  Context& context_;
  const OnnxOrigin* origin_;
  bool use_header_ = false;     // the module's header attribute gives the model's fields
  ::onnx::ModelProto header_;   // those fields (graph name, doc string and rest included)
  absl::Status header_status_;  // what is wrong with the header attribute, if anything
  AttributeWriter attributes_;
  std::string function_domain_;       // of the FunctionProtos written for function literals
  std::vector<std::string> domains_;  // the file's non-default opset domains, for split_op_name
  absl::flat_hash_set<std::string> used_domains_;
  std::vector<bool> claimed_;
  absl::flat_hash_set<NodeId> params_;
  graphpat::detail::TextSet used_values_;     // into the file, the graph or fresh_names_
  graphpat::detail::TextSet used_nodes_;      // fresh node names (the file's stay)
  graphpat::detail::TextSet reserved_names_;  // not for fresh names (reserve_names)
  absl::flat_hash_map<std::pair<NodeId, std::uint32_t>, std::string_view> wanted_outputs_;
  std::deque<std::string> fresh_names_;                // the names fresh_name made
  std::uint64_t next_fresh_ = 0;
  int subgraph_depth_ = 0;                               // of the subgraph being written
  NodeNames names_;
  absl::flat_hash_map<NodeId, std::vector<std::string_view>> outputs_;  // tuple-typed calls'
  absl::flat_hash_map<TensorId, std::string_view> constant_names_;
  std::vector<WrittenNode> nodes_;
  std::vector<WrittenFunctionProto> functions_;
  absl::flat_hash_set<std::string> function_names_;  // op_name(domain, name) of each function
  absl::flat_hash_map<NodeId, Callee> literals_;     // function literals written, as callees
  absl::flat_hash_map<std::string, std::string> function_by_body_;  // body bytes -> name
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
