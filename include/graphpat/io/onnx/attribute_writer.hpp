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
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

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

  /// The call's attributes: a loaded node's AttributeProtos when the value is one the reader
  /// made, else each field by its value's kind.
  absl::Status write(NodeId call, ::onnx::NodeProto& proto) const {
    AttrValueId attrs = graph_.attrs(call);
    if (auto found = attrs_source_.find(attrs); attrs.valid() && found != attrs_source_.end()) {
      *proto.mutable_attribute() =
          origin_->model->graph().node(static_cast<int>(found->second)).attribute();
      return absl::OkStatus();
    }
    return write_fields(call, attrs, {}, proto);
  }

  /// Each field of `attrs` (an object, or none) but those whose key is in `skipped`, by its
  /// value's kind; `owner` is the node errors name.
  absl::Status write_fields(NodeId owner, AttrValueId attrs,
                            std::initializer_list<std::string_view> skipped,
                            ::onnx::NodeProto& proto) const {
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
      GRAPHPAT_RETURN_IF_ERROR(write_attribute(owner, table.entry_value(attrs, i), *attribute));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status write_attribute(NodeId call, AttrValueId value, ::onnx::AttributeProto& out) const {
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
