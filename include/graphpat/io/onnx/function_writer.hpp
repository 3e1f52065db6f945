// The ONNX writer's bodies: a function of the graph as the nodes of an onnx.FunctionProto (a
// module function, or a function literal that partition or merge_composite made) or of a
// subgraph (a GRAPH attribute: If's branches, Loop's and Scan's bodies). The caller says how
// values are named and what a constant becomes:
// - a FunctionProto's names are its own and canonical (inputs `x0`, `x1`, ..., values `v0`,
//   ..., nodes `n0`, ...), so two functions of one structure are written as the same bytes and
//   the writer keeps one of them; a function literal's constants (a matched weight) become
//   trailing inputs that each call passes (`lifted`), so initializers stay in the main graph
//   and external data stays a reference;
// - a subgraph shares the model's namespace (names fresh in the whole file), reads the values
//   its captured parameters stand for by their names in the graph around it, and reads a
//   constant as the main graph's initializer, by name.
// One forward scan in id order; a GRAPH attribute of a node inside is written by the caller's
// `write_graph`, so nesting recurses once per level of subgraph (bounded by the caller).
//
//   absl::StatusOr<WrittenBody> body = write_body(graph, attributes, function, options, resolve);
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/io/onnx/attribute_writer.hpp"
#include "graphpat/onnx/dialect.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::onnx::detail {

/// The values a function (or main) outputs: the fields of a tuple body, else the body itself.
inline std::vector<NodeId> output_values(const Graph& graph, NodeId body) {
  if (graph.kind(body) != NodeKind::kTuple) return {body};
  return {graph.fields(body).begin(), graph.fields(body).end()};
}

/// What a call calls, as a NodeProto spells it.
struct Callee {
  std::string name;    // the op's or module function's name, or op_name(domain, op_type)
  std::string domain;  // "" for the default domain
  std::string op_type;
  std::size_t outputs = 1;
  bool tuple_typed = false;    // several outputs (or none), read through TupleGetItems
  std::size_t inputs = 0;      // how many arguments are node inputs (the rest: GRAPH attributes')
  std::vector<NodeId> lifted;  // constants a function literal takes after the call's arguments
};

/// What a new name names: a declared input, another value, a node.
enum class NameKind : std::uint8_t { kInput, kValue, kNode };

/// How write_body names things and reads constants.
struct BodyOptions {
  std::string_view place;  // the function, in errors
  /// The parameters from this index on stand for values of the graph around (a subgraph's
  /// captures), read by `captured_names`, not declared as inputs.
  std::size_t first_captured = ~std::size_t{0};
  std::vector<std::string> captured_names;
  /// A new name of that kind.
  std::function<std::string(NameKind)> fresh;
  /// The name a constant is read by (an outer value); none: the constant becomes a trailing
  /// input (`lifted`).
  std::function<absl::StatusOr<std::string>(NodeId constant)> constant_name;
};

/// A function's body as NodeProtos.
struct WrittenBody {
  std::vector<std::pair<std::string, NodeId>> inputs;  // declared: parameters, then lifted
  std::vector<std::pair<std::string, NodeId>> outputs;
  google::protobuf::RepeatedPtrField<::onnx::NodeProto> nodes;
  std::vector<NodeId> lifted;  // the constants behind the trailing inputs, in order
};

/// The nodes `function`'s body reaches, in id (topological) order, not entering other
/// functions (a called function literal or a subgraph is written on its own).
inline std::vector<NodeId> body_nodes(const Graph& graph, NodeId function) {
  NodeId body = graph.body(function);
  std::vector<NodeId> nodes;
  absl::flat_hash_set<NodeId> seen = {body};
  std::vector<NodeId> stack = {body};
  while (!stack.empty()) {
    NodeId node = stack.back();
    stack.pop_back();
    nodes.push_back(node);
    if (graph.kind(node) == NodeKind::kFunction) continue;
    for (NodeId operand : graph.operands(node)) {
      if (seen.insert(operand).second) stack.push_back(operand);
    }
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

/// How a writer writes a GRAPH attribute of call `call`: its function is argument `arg`,
/// `captured[k]` the name (in the caller's scope) of the value its k-th capture stands for.
using GraphWriter = std::function<absl::Status(NodeId call, std::size_t arg,
                                               const std::vector<std::string>& captured,
                                               ::onnx::GraphProto& graph)>;

/// `function`'s params and body as NodeProtos; `resolve(call)` gives each call's Callee,
/// `write_graph` each GRAPH attribute of a call inside. Refused (onnx.unsupported): a variable
/// that is not a parameter (a capture of a FunctionProto), a tuple other than the outputs, a
/// TupleGetItem not of a call's output, Let, If.
template <class Resolve>
absl::StatusOr<WrittenBody> write_body(const Graph& graph, const AttributeWriter& attributes,
                                       NodeId function, const BodyOptions& options,
                                       Resolve&& resolve, const GraphWriter& write_graph) {
  WrittenBody written;
  absl::flat_hash_map<NodeId, std::string> names;                 // nodes that are one value
  absl::flat_hash_map<NodeId, std::vector<std::string>> outputs;  // tuple-typed calls'
  auto params = graph.params(function);
  for (std::size_t k = 0; k < params.size(); ++k) {
    if (k >= options.first_captured) {
      names.emplace(params[k], options.captured_names.at(k - options.first_captured));
      continue;
    }
    std::string name = options.fresh(NameKind::kInput);
    written.inputs.emplace_back(name, params[k]);
    names.emplace(params[k], std::move(name));
  }
  NodeId body = graph.body(function);
  auto refuse = [&](NodeId id, std::string_view what) {
    return write_unsupported(fmt::format("{}, node %{}: {}", options.place, id.index(), what));
  };
  for (NodeId id : body_nodes(graph, function)) {
    switch (graph.kind(id)) {
      case NodeKind::kOp:
      case NodeKind::kGlobalVar:
      case NodeKind::kFunction:
        break;  // callees and subgraphs
      case NodeKind::kVar:
        if (!names.contains(id)) {
          return refuse(id, fmt::format("variable '{}' is not a parameter of the function (ONNX "
                                        "functions capture nothing)",
                                        graph.name(id)));
        }
        break;
      case NodeKind::kConstant: {
        if (options.constant_name) {
          GRAPHPAT_ASSIGN_OR_RETURN(std::string name, options.constant_name(id));
          names.emplace(id, std::move(name));
          break;
        }
        std::string name = options.fresh(NameKind::kInput);
        written.inputs.emplace_back(name, id);
        names.emplace(id, std::move(name));
        written.lifted.push_back(id);
        break;
      }
      case NodeKind::kCall: {
        GRAPHPAT_ASSIGN_OR_RETURN(Callee callee, resolve(id));
        ::onnx::NodeProto* node = written.nodes.Add();
        node->set_name(options.fresh(NameKind::kNode));
        node->set_op_type(callee.op_type);
        if (!callee.domain.empty()) node->set_domain(callee.domain);
        std::vector<std::string> arg_names;
        for (NodeId arg : graph.args(id)) {
          auto found = names.find(arg);
          if (graph.kind(arg) == NodeKind::kFunction) {
            arg_names.emplace_back();  // a subgraph: write_graph takes it
          } else if (found == names.end()) {
            return refuse(id, fmt::format("argument %{} is not one value", arg.index()));
          } else {
            arg_names.push_back(found->second);
          }
        }
        for (std::size_t k = 0; k < callee.inputs; ++k) node->add_input(arg_names[k]);
        std::vector<std::string> values;
        for (std::size_t k = 0; k < callee.outputs; ++k) {
          values.push_back(options.fresh(NameKind::kValue));
          node->add_output(values.back());
        }
        GRAPHPAT_RETURN_IF_ERROR(attributes.write(
            id, *node, [&](std::size_t arg, std::size_t captures, ::onnx::GraphProto& out) {
              std::vector<std::string> captured(
                  arg_names.begin() + static_cast<std::ptrdiff_t>(arg + 1),
                  arg_names.begin() + static_cast<std::ptrdiff_t>(arg + 1 + captures));
              return write_graph(id, arg, captured, out);
            }));
        if (callee.tuple_typed) {
          outputs.emplace(id, std::move(values));
        } else {
          names.emplace(id, std::move(values.front()));
        }
        break;
      }
      case NodeKind::kTupleGetItem: {
        auto found = outputs.find(graph.tuple(id));
        if (found == outputs.end() || graph.index(id) >= found->second.size()) {
          return refuse(id, "a TupleGetItem not of an output of a call");
        }
        names.emplace(id, found->second[graph.index(id)]);
        break;
      }
      case NodeKind::kTuple:
        if (graph.fields(id).empty()) {
          names.emplace(id, "");  // an absent optional input
        } else if (id != body) {
          return refuse(id, "a tuple other than the function's outputs");
        }
        break;
      default:
        return refuse(id, fmt::format("a {} node", node_kind_name(graph.kind(id))));
    }
  }
  std::vector<NodeId> results = output_values(graph, body);
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto found = names.find(results[i]);
    if (found == names.end() || found->second.empty()) {
      return refuse(results[i], fmt::format("output {} is not one value", i));
    }
    written.outputs.emplace_back(found->second, results[i]);
  }
  return written;
}

}  // namespace graphpat::onnx::detail

#include "graphpat/detail/status_macros_undef.hpp"
