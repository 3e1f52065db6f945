// A node's ONNX attributes as text, spelt as ONNX's text syntax spells them (onnx/defs/parser.h,
// the spelling of the op registry's defaults): `kernel_shape=[3, 3]`, `epsilon=1e-05`,
// `mode="constant"`. For pictures and messages: a tensor, a graph and a type are shown by their
// kind (`value=<tensor>`), not their contents, so this text is not read back.
//
//   std::vector<std::string> texts =
//       graphpat::onnx::attribute_texts(graph.context().attrs, graph.attrs(call));
//   // {"kernel_shape=[3, 3]", "pads=[1, 1, 1, 1]", "strides=[1, 1]"}
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "graphpat/io/onnx/conversions.hpp"
#include "graphpat/ir/attrs.hpp"
#include "graphpat/onnx/dialect.hpp"

namespace graphpat::onnx {

/// One attribute value as ONNX text writes it: an INT `3`, a FLOAT `0.5` (`1.0`, never `1`), a
/// STRING quoted (`"NOTSET"`), a list `[1, 2]`; a TENSOR `<tensor>`, a GRAPH `<graph>`, a
/// TYPE_PROTO `<type>`. Values no ONNX file gives (put there by a pass or a user): a bool as
/// `1` or `0`, a dtype quoted, `<map>`, `<none>`.
inline std::string attribute_value_text(const AttrTable& attrs, AttrValueId value) {
  switch (attrs.kind(value)) {
    case AttrKind::kInt:
      return fmt::format("{}", attrs.as_int(value));
    case AttrKind::kFloat:
      return detail::float_text(static_cast<float>(attrs.as_float(value)));
    case AttrKind::kString:
      return detail::string_text(attrs.text(value));
    case AttrKind::kArray: {
      std::string text = "[";
      bool first = true;
      for (AttrValueId element : attrs.elements(value)) {
        if (!first) text += ", ";
        first = false;
        text += attribute_value_text(attrs, element);  // depth 2 at most: a list of tensors
      }
      return text + "]";
    }
    case AttrKind::kObject: {
      std::string_view key = attrs.text(value);
      if (key == detail::kTensorTypeKey) return "<tensor>";
      if (key == detail::kGraphTypeKey) return "<graph>";
      if (key == detail::kTypeProtoTypeKey) return "<type>";
      return fmt::format("<{}>", key);
    }
    case AttrKind::kBool:  // no ONNX attribute is one (a flag is an INT); a graph built so
      return attrs.as_bool(value) ? "1" : "0";
    case AttrKind::kDataType:
      return detail::string_text(attrs.text(value));
    case AttrKind::kMap:
      return "<map>";
    case AttrKind::kNull:
      break;
  }
  return "<none>";
}

/// `name=value` for each attribute of `node_attrs` (a call's attributes object), in the
/// file's order.
inline std::vector<std::string> attribute_texts(const AttrTable& attrs, AttrValueId node_attrs) {
  std::vector<std::string> texts;
  if (!node_attrs.valid() || attrs.kind(node_attrs) != AttrKind::kObject) return texts;
  for (std::size_t i = 0; i < attrs.entry_count(node_attrs); ++i) {
    texts.push_back(fmt::format("{}={}", attrs.strings().view(attrs.field_key(node_attrs, i)),
                                attribute_value_text(attrs, attrs.entry_value(node_attrs, i))));
  }
  return texts;
}

}  // namespace graphpat::onnx
