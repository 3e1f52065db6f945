// Test support: the `check` functions of TVM's partition and MergeComposite tests, ported from
// the one-line descriptions in the conformance cases' case.json (options.check).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <graphpat/relay/dialect.hpp>

namespace graphpat::testing {

using PartitionCheck = std::function<bool(const relay::Graph&, NodeId)>;

/// The `data_layout` attribute of call `id` ("" when absent).
inline std::string data_layout(const relay::Graph& graph, NodeId id) {
  if (graph.kind(id) != NodeKind::kCall || !graph.attrs(id).valid()) return "";
  const AttrTable& attrs = graph.context().attrs;
  std::optional<AttrValueId> layout = attrs.find_field(graph.attrs(id), "data_layout");
  return layout ? std::string(attrs.text(*layout)) : "";
}

/// The first extent of the checked type of `id`, or nullopt when it has none.
inline std::optional<std::int64_t> batch_of(const relay::Graph& graph, NodeId id) {
  TypeId type = graph.type(id);
  const TypeTable& types = graph.context().types;
  if (!type.valid() || types.kind(type) != TypeKind::kTensor || types.dims(type).empty()) {
    return std::nullopt;
  }
  const Dim& dim = types.get_dim(types.dims(type)[0]);
  if (dim.kind != Dim::Kind::kInt) return std::nullopt;
  return dim.value;
}

/// The i-th argument of call `id`.
inline NodeId arg(const relay::Graph& graph, NodeId id, std::size_t i) {
  return graph.args(id)[i];
}

/// The check a description stands for; nullopt for a description not ported here.
inline std::optional<PartitionCheck> check_from_description(std::string_view description) {
  if (description.starts_with("pre.args[0].attrs.data_layout == \"NCHW\"")) {
    return [](const relay::Graph& g, NodeId pre) { return data_layout(g, arg(g, pre, 0)) == "NCHW"; };
  }
  if (description.starts_with(
          "conv = pre.args[0]; conv.attrs.data_layout == \"NCHW\" and conv.checked_type.shape[0] == 1")) {
    return [](const relay::Graph& g, NodeId pre) {
      NodeId conv = arg(g, pre, 0);
      return data_layout(g, conv) == "NCHW" && batch_of(g, conv) == 1;
    };
  }
  for (std::string layout : {"NCHW", "NHWC"}) {
    if (description.starts_with("conv = extract.args[0].args[0] (extract = the matched relu); "
                                "conv.attrs.data_layout == \"" + layout + "\"")) {
      return [layout](const relay::Graph& g, NodeId extract) {
        return data_layout(g, arg(g, arg(g, extract, 0), 0)) == layout;
      };
    }
  }
  for (bool batch_one : {false, true}) {
    std::string text = std::string("conv = extract.args[0].args[0]; conv.checked_type.shape[0] ") +
                       (batch_one ? "==" : "!=") + " 1";
    if (description.starts_with(text)) {
      return [batch_one](const relay::Graph& g, NodeId extract) {
        return (batch_of(g, arg(g, arg(g, extract, 0), 0)) == 1) == batch_one;
      };
    }
  }
  return std::nullopt;
}

}  // namespace graphpat::testing
