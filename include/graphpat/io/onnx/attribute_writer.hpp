// The ONNX writer's attributes: a call's attribute object as AttributeProtos. A value the reader
// made of a NodeProto is written as that node's AttributeProtos (so unknown fields and the
// file's exact encoding come back); any other object field by its value's kind: int -> INT,
// float -> FLOAT, string -> STRING, an `onnx.TensorProto` object -> TENSOR, arrays of one kind
// -> INTS, FLOATS, STRINGS, TENSORS.
//
//   graphpat::onnx::detail::AttributeWriter attributes(graph, origin);
//   ::onnx::NodeProto proto;
//   absl::Status written = attributes.write(call, proto);
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
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

/// The writer's refusal: what `what` describes has no ModelProto form (yet).
inline absl::Status write_unsupported(std::string_view what) {
  return make_error(
      absl::StatusCode::kInvalidArgument, "onnx.unsupported",
      fmt::format("{} (ONNX cannot hold it, or graphpat does not write it yet)", what));
}

class AttributeWriter {
 public:
  AttributeWriter(const Graph& graph, const OnnxOrigin* origin)
      : graph_(graph), context_(graph.context()), origin_(origin) {
    if (origin_ == nullptr) return;
    const ::onnx::GraphProto& file = origin_->model->graph();
    for (int i = 0; i < file.node_size(); ++i) {
      attrs_source_.try_emplace(origin_->node_attrs[static_cast<std::size_t>(i)],
                                static_cast<std::uint32_t>(i));
    }
  }

  /// How a GRAPH attribute (a graph_ref field, conversions.hpp) is written: its function is
  /// argument `arg` of the call, the `captures` arguments after it the values it reads.
  using WriteGraph =
      std::function<absl::Status(std::size_t arg, std::size_t captures, ::onnx::GraphProto&)>;

  /// The call's attributes: a loaded node's AttributeProtos when the value is one the reader
  /// made (and holds no graph: two nodes of one layout have other subgraphs), else each field
  /// by its value's kind, GRAPH attributes by `write_graph`.
  absl::Status write(NodeId call, ::onnx::NodeProto& proto, const WriteGraph& write_graph) const {
    AttrValueId attrs = graph_.attrs(call);
    if (auto found = attrs_source_.find(attrs);
        attrs.valid() && found != attrs_source_.end() && graph_refs(attrs).empty()) {
      *proto.mutable_attribute() =
          origin_->model->graph().node(static_cast<int>(found->second)).attribute();
      return absl::OkStatus();
    }
    return write_fields(call, attrs, {}, proto, write_graph);
  }

  /// The GRAPH attributes of an attribute object: (arg, captures) of each graph_ref field, in
  /// field order; none for another value.
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> graph_refs(
      AttrValueId attrs) const {
    std::vector<std::pair<std::size_t, std::size_t>> refs;
    const AttrTable& table = context_.attrs;
    if (!attrs.valid() || table.kind(attrs) != AttrKind::kObject) return refs;
    for (std::size_t i = 0; i < table.entry_count(attrs); ++i) {
      if (auto ref = graph_ref_of(table.entry_value(attrs, i))) refs.push_back(*ref);
    }
    return refs;
  }

  /// Each field of `attrs` (an object, or none) but those whose key is in `skipped`, by its
  /// value's kind; `owner` is the node errors name.
  absl::Status write_fields(NodeId owner, AttrValueId attrs,
                            std::initializer_list<std::string_view> skipped,
                            ::onnx::NodeProto& proto, const WriteGraph& write_graph) const {
    if (!attrs.valid()) return absl::OkStatus();
    const AttrTable& table = context_.attrs;
    if (table.kind(attrs) != AttrKind::kObject) {
      return write_unsupported(
          fmt::format("node %{}: attributes that are not an object", owner.index()));
    }
    for (std::size_t i = 0; i < table.entry_count(attrs); ++i) {
      std::string_view key = context_.strings.view(table.field_key(attrs, i));
      if (std::find(skipped.begin(), skipped.end(), key) != skipped.end()) continue;
      ::onnx::AttributeProto* attribute = proto.add_attribute();
      attribute->set_name(std::string(key));
      AttrValueId value = table.entry_value(attrs, i);
      if (auto ref = graph_ref_of(value)) {
        attribute->set_type(::onnx::AttributeProto::GRAPH);
        GRAPHPAT_RETURN_IF_ERROR(write_graph(ref->first, ref->second, *attribute->mutable_g()));
        continue;
      }
      GRAPHPAT_RETURN_IF_ERROR(write_attribute(owner, value, *attribute));
    }
    return absl::OkStatus();
  }

 private:
  /// (arg, captures) of a graph_ref value.
  [[nodiscard]] std::optional<std::pair<std::size_t, std::size_t>> graph_ref_of(
      AttrValueId value) const {
    const AttrTable& table = context_.attrs;
    if (table.kind(value) != AttrKind::kObject || table.text(value) != kGraphTypeKey) {
      return std::nullopt;
    }
    std::optional<AttrValueId> arg = table.find_field(value, "arg");
    std::optional<AttrValueId> captures = table.find_field(value, "captures");
    if (!arg || !captures || table.kind(*arg) != AttrKind::kInt ||
        table.kind(*captures) != AttrKind::kInt || table.as_int(*arg) < 0 ||
        table.as_int(*captures) < 0) {
      return std::nullopt;
    }
    return std::pair{static_cast<std::size_t>(table.as_int(*arg)),
                     static_cast<std::size_t>(table.as_int(*captures))};
  }

  absl::Status write_attribute(NodeId call, AttrValueId value, ::onnx::AttributeProto& out) const {
    using A = ::onnx::AttributeProto;
    const AttrTable& table = context_.attrs;
    // A message of `type_key` (message_value in reader.hpp) parsed into `proto`.
    auto message = [&](AttrValueId id, std::string_view type_key,
                       google::protobuf::Message* proto) {
      std::optional<AttrValueId> bytes =
          table.kind(id) == AttrKind::kObject && table.text(id) == type_key
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
        if (table.text(value) == kTypeProtoTypeKey) {
          out.set_type(A::TYPE_PROTO);
          if (message(value, kTypeProtoTypeKey, out.mutable_tp())) return absl::OkStatus();
          break;
        }
        out.set_type(A::TENSOR);
        if (message(value, kTensorTypeKey, out.mutable_t())) return absl::OkStatus();
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
        if (kind == AttrKind::kObject && table.text(elements[0]) == kTypeProtoTypeKey) {
          out.set_type(A::TYPE_PROTOS);
          bool all = true;
          for (AttrValueId e : elements) {
            all = all && message(e, kTypeProtoTypeKey, out.add_type_protos());
          }
          if (all) return absl::OkStatus();
        } else if (kind == AttrKind::kObject) {
          out.set_type(A::TENSORS);
          bool all = true;
          for (AttrValueId e : elements) all = all && message(e, kTensorTypeKey, out.add_tensors());
          if (all) return absl::OkStatus();
        }
        break;
      }
      default:
        break;
    }
    return write_unsupported(
        fmt::format("node %{}: attribute '{}' has a value no ONNX attribute type holds",
                    call.index(), out.name()));
  }

  const Graph& graph_;
  const Context& context_;
  const OnnxOrigin* origin_;
  absl::flat_hash_map<AttrValueId, std::uint32_t> attrs_source_;
};

}  // namespace graphpat::onnx::detail

#include "graphpat/detail/status_macros_undef.hpp"
