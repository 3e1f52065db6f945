// What an ONNX module carries of its ModelProto besides the graph's nodes and values: the
// module attribute `onnx.Model`, which the reader sets and the writer writes the model's fields
// from, so that they travel with the module (through passes, and through graph JSON) rather
// than only with the provenance of a load.
//
//   {object "onnx.Model": ir_version 8, opset_import [["", 17], ["graphpat", 1]] (a domain the
//    file leaves unset is null: [null, 11]),
//    producer_name "pytorch", producer_version "1.13.1", domain "", model_version 0,
//    doc_string "", metadata_props [["key", "value"]], graph_name "torch_jit",
//    graph_doc_string "", output_names ["logits"], rest "<bytes>"}
//
//   loaded->module.attrs = graphpat::onnx::detail::model_header(context, model);
//   absl::Status status = graphpat::onnx::detail::apply_model_header(context, attrs, out);
//
// Each field is present when the file sets it (output_names always). Integers are 32-bit
// values when they fit, else 64-bit. `rest` holds what has no field of its own (training_info,
// the graph's quantization_annotation, unknown fields) as a serialized ModelProto of only
// those parts, present when there are any.
#pragma once

#include <absl/status/status.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphpat/ir/context.hpp"

namespace graphpat::onnx::detail {

/// The type key of the module attribute that holds a model's header.
inline constexpr std::string_view kModelTypeKey = "onnx.Model";

inline AttrValueId header_integer(AttrTable& attrs, std::int64_t value) {
  bool fits32 = value >= std::numeric_limits<std::int32_t>::min() &&
                value <= std::numeric_limits<std::int32_t>::max();
  return attrs.integer(value, fits32 ? 32 : 64);
}

/// The header value of `model` (see the top of this file).
inline AttrValueId model_header(Context& context, const ::onnx::ModelProto& model) {
  AttrTable& attrs = context.attrs;
  std::vector<AttrField> fields;
  auto add = [&](std::string_view key, AttrValueId value) {
    fields.push_back({context.strings.intern(key), value});
  };
  if (model.has_ir_version()) add("ir_version", header_integer(attrs, model.ir_version()));
  std::vector<AttrValueId> opsets;
  for (const ::onnx::OperatorSetIdProto& opset : model.opset_import()) {
    AttrValueId domain = opset.has_domain() ? attrs.string(opset.domain()) : attrs.null();
    opsets.push_back(attrs.array({domain, header_integer(attrs, opset.version())}));
  }
  add("opset_import", attrs.array(opsets));
  if (model.has_producer_name()) add("producer_name", attrs.string(model.producer_name()));
  if (model.has_producer_version()) {
    add("producer_version", attrs.string(model.producer_version()));
  }
  if (model.has_domain()) add("domain", attrs.string(model.domain()));
  if (model.has_model_version()) {
    add("model_version", header_integer(attrs, model.model_version()));
  }
  if (model.has_doc_string()) add("doc_string", attrs.string(model.doc_string()));
  if (model.metadata_props_size() > 0) {
    std::vector<AttrValueId> props;
    for (const ::onnx::StringStringEntryProto& entry : model.metadata_props()) {
      props.push_back(attrs.array({attrs.string(entry.key()), attrs.string(entry.value())}));
    }
    add("metadata_props", attrs.array(props));
  }
  const ::onnx::GraphProto& graph = model.graph();
  if (graph.has_name()) add("graph_name", attrs.string(graph.name()));
  if (graph.has_doc_string()) add("graph_doc_string", attrs.string(graph.doc_string()));
  std::vector<AttrValueId> outputs;
  for (const ::onnx::ValueInfoProto& output : graph.output()) {
    outputs.push_back(attrs.string(output.name()));
  }
  add("output_names", attrs.array(outputs));
  ::onnx::ModelProto rest;
  *rest.mutable_training_info() = model.training_info();
  rest.mutable_unknown_fields()->MergeFrom(model.unknown_fields());
  if (graph.quantization_annotation_size() > 0 || !graph.unknown_fields().empty()) {
    *rest.mutable_graph()->mutable_quantization_annotation() = graph.quantization_annotation();
    rest.mutable_graph()->mutable_unknown_fields()->MergeFrom(graph.unknown_fields());
  }
  if (rest.ByteSizeLong() > 0) add("rest", attrs.string(rest.SerializeAsString()));
  return attrs.object(kModelTypeKey, fields);
}

/// Whether `attrs` is a header value (an object of kModelTypeKey).
inline bool is_model_header(const Context& context, AttrValueId attrs) {
  return attrs.valid() && context.attrs.kind(attrs) == AttrKind::kObject &&
         context.attrs.text(attrs) == kModelTypeKey;
}

/// Sets `model`'s fields (and its graph's name, doc string and the rest) from header `header`;
/// a field of the wrong form is an error naming it. `output_names` is the writer's to use.
inline absl::Status apply_model_header(const Context& context, AttrValueId header,
                                       ::onnx::ModelProto& model) {
  const AttrTable& attrs = context.attrs;
  auto problem = [](std::string_view key, std::string_view expected) {
    return absl::InvalidArgumentError(
        fmt::format("module attribute {} field '{}': expected {}", kModelTypeKey, key, expected));
  };
  auto integer = [&](AttrValueId value) -> std::optional<std::int64_t> {
    if (attrs.kind(value) != AttrKind::kInt || attrs.get(value).is_unsigned) return std::nullopt;
    return attrs.as_int(value);
  };
  auto string = [&](AttrValueId value) -> std::optional<std::string> {
    if (attrs.kind(value) != AttrKind::kString) return std::nullopt;
    return std::string(attrs.text(value));
  };
  // An array of [string, X] pairs, each handed to `take` (a null string: the key is unset).
  auto pairs = [&](AttrValueId value, auto&& take) {
    if (attrs.kind(value) != AttrKind::kArray) return false;
    for (AttrValueId pair : attrs.elements(value)) {
      if (attrs.kind(pair) != AttrKind::kArray || attrs.elements(pair).size() != 2) return false;
      AttrValueId first = attrs.elements(pair)[0];
      std::optional<std::string> key = string(first);
      if (!key && attrs.kind(first) != AttrKind::kNull) return false;
      if (!take(key, attrs.elements(pair)[1])) return false;
    }
    return true;
  };
  for (std::size_t i = 0; i < attrs.entry_count(header); ++i) {
    std::string_view key = context.strings.view(attrs.field_key(header, i));
    AttrValueId value = attrs.entry_value(header, i);
    if (key == "ir_version" || key == "model_version") {
      std::optional<std::int64_t> number = integer(value);
      if (!number) return problem(key, "an integer");
      if (key == "ir_version") {
        model.set_ir_version(*number);
      } else {
        model.set_model_version(*number);
      }
    } else if (key == "opset_import") {
      bool ok = pairs(value, [&](const std::optional<std::string>& domain, AttrValueId version) {
        std::optional<std::int64_t> number = integer(version);
        if (!number) return false;
        ::onnx::OperatorSetIdProto* opset = model.add_opset_import();
        if (domain) opset->set_domain(*domain);
        opset->set_version(*number);
        return true;
      });
      if (!ok) return problem(key, "[[domain or null, version], ...]");
    } else if (key == "metadata_props") {
      bool ok = pairs(value, [&](const std::optional<std::string>& name, AttrValueId text) {
        std::optional<std::string> entry = string(text);
        if (!name || !entry) return false;
        ::onnx::StringStringEntryProto* prop = model.add_metadata_props();
        prop->set_key(*name);
        prop->set_value(*entry);
        return true;
      });
      if (!ok) return problem(key, "[[key, value], ...] of strings");
    } else if (key == "output_names") {
      if (attrs.kind(value) != AttrKind::kArray) return problem(key, "an array of strings");
      for (AttrValueId name : attrs.elements(value)) {
        if (!string(name)) return problem(key, "an array of strings");
      }
    } else if (key == "rest") {
      std::optional<std::string> bytes = string(value);
      ::onnx::ModelProto rest;
      if (!bytes || !rest.ParseFromString(*bytes)) {
        return problem(key, "the bytes of a serialized onnx.ModelProto");
      }
      *model.mutable_training_info() = rest.training_info();
      model.mutable_unknown_fields()->MergeFrom(rest.unknown_fields());
      *model.mutable_graph()->mutable_quantization_annotation() =
          rest.graph().quantization_annotation();
      model.mutable_graph()->mutable_unknown_fields()->MergeFrom(rest.graph().unknown_fields());
    } else {
      std::optional<std::string> text = string(value);
      if (!text) return problem(key, "a string");
      if (key == "producer_name") {
        model.set_producer_name(*text);
      } else if (key == "producer_version") {
        model.set_producer_version(*text);
      } else if (key == "domain") {
        model.set_domain(*text);
      } else if (key == "doc_string") {
        model.set_doc_string(*text);
      } else if (key == "graph_name") {
        model.mutable_graph()->set_name(*text);
      } else if (key == "graph_doc_string") {
        model.mutable_graph()->set_doc_string(*text);
      } else {
        return absl::InvalidArgumentError(
            fmt::format("module attribute {}: unknown field '{}'", kModelTypeKey, key));
      }
    }
  }
  return absl::OkStatus();
}

/// The header's output names, when it has them (each a string).
inline std::vector<std::string_view> header_output_names(const Context& context,
                                                         AttrValueId header) {
  std::vector<std::string_view> names;
  if (!is_model_header(context, header)) return names;
  std::optional<AttrValueId> list = context.attrs.find_field(header, "output_names");
  if (!list || context.attrs.kind(*list) != AttrKind::kArray) return names;
  for (AttrValueId name : context.attrs.elements(*list)) {
    if (context.attrs.kind(name) != AttrKind::kString) return {};
    names.push_back(context.attrs.text(name));
  }
  return names;
}

}  // namespace graphpat::onnx::detail
