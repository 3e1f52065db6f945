// The ONNX writer's functions: a function of the graph (a module function, or a function
// literal that partition or merge_composite made) as the body of an onnx.FunctionProto. Names
// inside are the function's own and canonical (inputs `x0`, `x1`, ..., values `v0`, ..., nodes
// `n0`, ...), so two functions of one structure are written as the same bytes and the writer
// keeps one of them. A function literal's constants (a matched weight) become trailing inputs
// that each call passes (`lifted`): initializers stay in the main graph, external data stays a
// reference, and inlining the call gives the constant back. One forward scan in id order;
// nothing recursive.
//
//   auto written = graphpat::onnx::detail::write_function_body(
//       graph, attributes, function, "function 'graphpat.conv_relu'", /*lift_constants=*/true,
//       [&](NodeId call) { return callee_of(call); });
//   // written->proto: input, output and node set; name, domain and opset_import are the caller's
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/io/onnx/attribute_writer.hpp"
#include "graphpat/onnx/dialect.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::onnx::detail {

/// What a call calls, as a NodeProto spells it.
struct Callee {
  std::string name;    // the op's or module function's name, or op_name(domain, op_type)
  std::string domain;  // "" for the default domain
  std::string op_type;
  std::size_t outputs = 1;
  bool tuple_typed = false;    // several outputs (or none), read through TupleGetItems
  std::vector<NodeId> lifted;  // constants a function literal takes after the call's arguments
};

/// A FunctionProto's body written from a function of the graph.
struct WrittenFunction {
  ::onnx::FunctionProto proto;
  std::vector<NodeId> lifted;  // the constants behind the trailing inputs, in order
};

/// The nodes `function`'s body reaches, in id (topological) order, not entering other
/// functions (a called function literal is a callee, written on its own).
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

/// `function`'s params and body as a FunctionProto body; `place` names the function in
/// errors; `resolve(call)` gives each call's Callee. Refused (onnx.unsupported): a variable
/// that is not a parameter (a capture), a constant when `lift_constants` is false, a tuple
/// other than the outputs, a TupleGetItem not of a call's output, Let, If.
template <class Resolve>
absl::StatusOr<WrittenFunction> write_function_body(const Graph& graph,
                                                    const AttributeWriter& attributes,
                                                    NodeId function, std::string_view place,
                                                    bool lift_constants, Resolve&& resolve) {
  WrittenFunction written;
  ::onnx::FunctionProto& proto = written.proto;
  absl::flat_hash_map<NodeId, std::string> names;                 // nodes that are one value
  absl::flat_hash_map<NodeId, std::vector<std::string>> outputs;  // tuple-typed calls'
  std::size_t next_value = 0;
  std::size_t next_node = 0;
  for (NodeId param : graph.params(function)) {
    std::string name = fmt::format("x{}", proto.input_size());
    proto.add_input(name);
    names.emplace(param, std::move(name));
  }
  NodeId body = graph.body(function);
  auto refuse = [&](NodeId id, std::string_view what) {
    return write_unsupported(fmt::format("{}, node %{}: {}", place, id.index(), what));
  };
  for (NodeId id : body_nodes(graph, function)) {
    switch (graph.kind(id)) {
      case NodeKind::kOp:
      case NodeKind::kGlobalVar:
      case NodeKind::kFunction:
        break;  // callees
      case NodeKind::kVar:
        if (!names.contains(id)) {
          return refuse(id, fmt::format("variable '{}' is not a parameter of the function (ONNX "
                                        "functions capture nothing)",
                                        graph.name(id)));
        }
        break;
      case NodeKind::kConstant: {
        if (!lift_constants) {
          return refuse(id, "a constant (an ONNX function holds no initializers)");
        }
        std::string name = fmt::format("x{}", proto.input_size());
        proto.add_input(name);
        names.emplace(id, std::move(name));
        written.lifted.push_back(id);
        break;
      }
      case NodeKind::kCall: {
        GRAPHPAT_ASSIGN_OR_RETURN(Callee callee, resolve(id));
        ::onnx::NodeProto* node = proto.add_node();
        node->set_name(fmt::format("n{}", next_node++));
        node->set_op_type(callee.op_type);
        if (!callee.domain.empty()) node->set_domain(callee.domain);
        for (NodeId arg : graph.args(id)) {
          auto found = names.find(arg);
          if (found == names.end()) {
            return refuse(id, fmt::format("argument %{} is not one value", arg.index()));
          }
          node->add_input(found->second);
        }
        std::vector<std::string> values;
        for (std::size_t k = 0; k < callee.outputs; ++k) {
          values.push_back(fmt::format("v{}", next_value++));
          node->add_output(values.back());
        }
        GRAPHPAT_RETURN_IF_ERROR(attributes.write(id, *node));
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
  std::vector<NodeId> results;
  if (graph.kind(body) == NodeKind::kTuple) {
    results.assign(graph.fields(body).begin(), graph.fields(body).end());
  } else {
    results.push_back(body);
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto found = names.find(results[i]);
    if (found == names.end() || found->second.empty()) {
      return refuse(results[i], fmt::format("output {} is not one value", i));
    }
    proto.add_output(found->second);
  }
  return written;
}

}  // namespace graphpat::onnx::detail

#include "graphpat/detail/status_macros_undef.hpp"
