// The ONNX reader's and writer's shared vocabulary: ONNX element types <-> graphpat dtypes,
// TypeProto <-> TypeId, and the attribute values a NodeProto's attributes become. One place for
// each mapping, so what the reader makes the writer turns back into the same protobuf.
//
//   std::optional<std::string_view> dtype = graphpat::onnx::detail::dtype_of(1);  // "float32"
//   TypeId type = graphpat::onnx::detail::type_of(context, value_info.type());
//   // Tensor[(1, 3, ?, n), float32]; anything else (sequence, map, unknown rank) an opaque
//   // type "onnx.TypeProto{...}" that type_proto_of parses back exactly.
#pragma once

#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graphpat/ir/context.hpp"

namespace graphpat::onnx::detail {

/// The object type key of a TENSOR attribute: one field `proto`, the TensorProto serialized, so
/// two tensor values compare equal exactly when their protobufs are equal.
inline constexpr std::string_view kTensorTypeKey = "onnx.TensorProto";
/// The type key of a TYPE_PROTO attribute's value: {proto: the serialized TypeProto}.
inline constexpr std::string_view kTypeProtoTypeKey = "onnx.TypeProto";

/// The type key of a GRAPH attribute's value: {arg: the index among the call's arguments of
/// the function its graph became, captures: how many arguments after it are the values of the
/// node's graph that the subgraph reads}. The function's params are the graph's inputs, then
/// one per captured value, in that order.
inline constexpr std::string_view kGraphTypeKey = "onnx.Graph";

inline AttrValueId graph_ref(AttrTable& attrs, std::size_t arg, std::size_t captures) {
  return attrs.object(kGraphTypeKey,
                      {{"arg", attrs.integer(static_cast<std::int64_t>(arg), 64)},
                       {"captures", attrs.integer(static_cast<std::int64_t>(captures), 64)}});
}
/// What an opaque type made of a TypeProto starts with; its text format follows, in braces.
inline constexpr std::string_view kOpaqueTypePrefix = "onnx.TypeProto{";
/// The symbol type key of a dim_param dimension.
inline constexpr std::string_view kDimParamKey = "onnx.dim_param";

/// TensorProto.DataType -> graphpat dtype, indexed by the enum value.
inline constexpr std::array<std::string_view, 17> kDtypes = {
    "",       "float32", "uint8",     "int8",       "uint16",  "int16",
    "int32",  "int64",   "string",    "bool",       "float16", "float64",
    "uint32", "uint64",  "complex64", "complex128", "bfloat16"};

/// The graphpat dtype of ONNX element type `data_type`, or nullopt for UNDEFINED and types
/// newer than ONNX 1.12.
inline std::optional<std::string_view> dtype_of(std::int32_t data_type) {
  if (data_type <= 0 || data_type >= static_cast<std::int32_t>(kDtypes.size())) {
    return std::nullopt;
  }
  return kDtypes[static_cast<std::size_t>(data_type)];
}

/// The ONNX element type of graphpat dtype `dtype`, or 0 (UNDEFINED).
inline std::int32_t data_type_of(std::string_view dtype) {
  for (std::size_t i = 1; i < kDtypes.size(); ++i) {
    if (kDtypes[i] == dtype) return static_cast<std::int32_t>(i);
  }
  return 0;
}

/// Bytes of one element in raw_data (0 for strings, which have no raw form).
inline std::uint64_t element_bytes(std::int32_t data_type) {
  using P = ::onnx::TensorProto;
  switch (data_type) {
    case P::UINT8:
    case P::INT8:
    case P::BOOL:
      return 1;
    case P::UINT16:
    case P::INT16:
    case P::FLOAT16:
    case P::BFLOAT16:
      return 2;
    case P::FLOAT:
    case P::INT32:
    case P::UINT32:
      return 4;
    case P::INT64:
    case P::UINT64:
    case P::DOUBLE:
    case P::COMPLEX64:
      return 8;
    case P::COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

/// Whether `type` is a plain tensor type graphpat models: a known element type, a shape, and
/// dims that are a non-negative value, a named parameter or unknown, none with a denotation.
inline bool is_plain_tensor_type(const ::onnx::TypeProto& type) {
  if (type.value_case() != ::onnx::TypeProto::kTensorType || type.has_denotation()) return false;
  const ::onnx::TypeProto_Tensor& tensor = type.tensor_type();
  if (!dtype_of(tensor.elem_type()) || !tensor.has_shape()) return false;
  for (const ::onnx::TensorShapeProto_Dimension& dim : tensor.shape().dim()) {
    if (dim.has_denotation()) return false;
    if (dim.has_dim_value() && dim.dim_value() < 0) return false;
    if (dim.has_dim_param() && dim.dim_param().empty()) return false;
  }
  return true;
}

/// The graphpat type of an ONNX type: a tensor type for a plain tensor type (dim_value -> dim,
/// dim_param -> symbolic dim, neither -> `?`), else an opaque type holding the TypeProto's text.
inline TypeId type_of(Context& context, const ::onnx::TypeProto& type) {
  TypeTable& types = context.types;
  if (!is_plain_tensor_type(type)) {
    std::string text;
    google::protobuf::TextFormat::Printer printer;
    printer.SetSingleLineMode(true);
    printer.PrintToString(type, &text);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return types.opaque(std::string(kOpaqueTypePrefix) + text + "}");
  }
  const ::onnx::TypeProto_Tensor& tensor = type.tensor_type();
  std::vector<DimId> dims;
  dims.reserve(static_cast<std::size_t>(tensor.shape().dim_size()));
  for (const ::onnx::TensorShapeProto_Dimension& dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) {
      dims.push_back(types.dim(dim.dim_value()));
    } else if (dim.has_dim_param()) {
      dims.push_back(types.symbolic_dim(dim.dim_param(), kDimParamKey));
    } else {
      dims.push_back(types.any_dim());
    }
  }
  return types.tensor(*dtype_of(tensor.elem_type()), dims);
}

/// The ONNX type of a graphpat type, the inverse of type_of; nullopt for a type no ONNX type
/// reads as (a tuple, a function, a tensor of a dtype ONNX lacks).
inline std::optional<::onnx::TypeProto> type_proto_of(const Context& context, TypeId id) {
  const TypeTable& types = context.types;
  ::onnx::TypeProto proto;
  const TypeRecord& record = types.get(id);
  if (record.kind == TypeKind::kOpaque) {
    std::string_view text = context.strings.view(record.name);
    if (!text.starts_with(kOpaqueTypePrefix) || !text.ends_with('}')) return std::nullopt;
    text.remove_prefix(kOpaqueTypePrefix.size());
    text.remove_suffix(1);
    if (!google::protobuf::TextFormat::ParseFromString(std::string(text), &proto)) {
      return std::nullopt;
    }
    return proto;
  }
  if (record.kind != TypeKind::kTensor) return std::nullopt;
  std::int32_t data_type = data_type_of(context.strings.view(record.name));
  if (data_type == 0) return std::nullopt;
  ::onnx::TypeProto_Tensor* tensor = proto.mutable_tensor_type();
  tensor->set_elem_type(data_type);
  ::onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (DimId dim_id : types.dims(id)) {
    const Dim& dim = types.get_dim(dim_id);
    ::onnx::TensorShapeProto_Dimension* out = shape->add_dim();
    if (dim.kind == Dim::Kind::kInt) out->set_dim_value(dim.value);
    if (dim.kind == Dim::Kind::kSymbol)
      out->set_dim_param(std::string(context.strings.view(dim.symbol)));
  }
  return proto;
}

}  // namespace graphpat::onnx::detail
