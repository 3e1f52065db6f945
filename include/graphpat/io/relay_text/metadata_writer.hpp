// Writes a fresh `#[metadata]` section (docs/relay-formats.md §1.9, §3) for constants whose
// section was not kept from the input: a Map {"relay.Constant": [...]} in TVM's save_json
// layout (DFS pre-order node numbering, sorted attrs keys, dmlc whitespace, b64ndarrays).
//
//   std::string json = graphpat::detail::write_constants_metadata(context, graph, constants);
#pragma once

#include <absl/strings/escaping.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "graphpat/ir/context.hpp"
#include "graphpat/relay/dialect.hpp"

namespace graphpat::detail {

/// One save_json node: type key, attrs (sorted by the caller), optional keys / data.
struct JsonNode {
  std::string type_key;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<std::string> keys;
  std::vector<std::uint32_t> data;
  bool has_data = false;
};

inline std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

/// dmlc::JSONWriter layout of a save_json document (§3.2).
inline std::string write_save_json(const std::vector<JsonNode>& nodes,
                                   const std::vector<std::string>& blobs) {
  std::string out = "{\n  \"root\": 1, \n  \"nodes\": [";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const JsonNode& node = nodes[i];
    out += i == 0 ? "\n    {" : ", \n    {";
    out += "\n      \"type_key\": " + json_quote(node.type_key);
    if (!node.attrs.empty()) {
      out += ", \n      \"attrs\": ";
      if (node.attrs.size() == 1) {
        out += fmt::format("{{{}: {}}}", json_quote(node.attrs[0].first),
                           json_quote(node.attrs[0].second));
      } else {
        out += "{";
        for (std::size_t a = 0; a < node.attrs.size(); ++a) {
          out += a == 0 ? "\n" : ", \n";
          out += fmt::format("        {}: {}", json_quote(node.attrs[a].first),
                             json_quote(node.attrs[a].second));
        }
        out += "\n      }";
      }
    }
    if (!node.keys.empty()) {
      out += ", \n      \"keys\": [";
      for (std::size_t k = 0; k < node.keys.size(); ++k) {
        out += k == 0 ? "\n" : ", \n";
        out += "        " + json_quote(node.keys[k]);
      }
      out += "\n      ]";
    }
    if (node.has_data) {
      out += ", \n      \"data\": [";
      if (node.data.size() > 10) {
        for (std::size_t d = 0; d < node.data.size(); ++d) {
          out += d == 0 ? "\n" : ", \n";
          out += fmt::format("        {}", node.data[d]);
        }
        out += "\n      ]";
      } else {
        for (std::size_t d = 0; d < node.data.size(); ++d) {
          out += fmt::format("{}{}", d == 0 ? "" : ", ", node.data[d]);
        }
        out += "]";
      }
    }
    out += "\n    }";
  }
  out += "\n  ], \n  \"b64ndarrays\": [";
  for (std::size_t b = 0; b < blobs.size(); ++b) {
    out += b == 0 ? "\n" : ", \n";
    out += "    " + json_quote(blobs[b]);
  }
  out += blobs.empty() ? "]" : "\n  ]";
  out += ", \n  \"attrs\": {\"tvm_version\": \"0.14.0\"}\n}";
  return out;
}

/// §3.6 blob of a tensor with bytes.
inline std::string encode_ndarray(const Context& context, const Tensor& tensor) {
  std::string raw;
  auto put = [&](auto value) {
    char bytes[sizeof(value)];
    std::memcpy(bytes, &value, sizeof(value));
    raw.append(bytes, sizeof(value));
  };
  auto dtype = parse_dtype(context.strings.view(tensor.dtype)).value_or(DataType{});
  std::uint8_t code = 0;
  switch (dtype.code) {
    case DataType::Code::kInt: code = 0; break;
    case DataType::Code::kUInt:
    case DataType::Code::kBool: code = 1; break;
    case DataType::Code::kFloat: code = 2; break;
    case DataType::Code::kHandle: code = 3; break;
    case DataType::Code::kBFloat: code = 4; break;
  }
  put(std::uint64_t{0xDD5E40F096B4A13FULL});
  put(std::uint64_t{0});
  put(std::int32_t{1});
  put(std::int32_t{0});
  put(static_cast<std::int32_t>(tensor.shape.size()));
  put(code);
  put(static_cast<std::uint8_t>(dtype.bits));
  put(static_cast<std::uint16_t>(dtype.lanes));
  for (std::int64_t extent : tensor.shape) put(extent);
  auto bytes = tensor.has_data() ? tensor.data->view() : std::span<const std::uint8_t>();
  put(static_cast<std::int64_t>(bytes.size()));
  raw.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::string out;
  absl::Base64Escape(absl::string_view(raw.data(), raw.size()), &out);
  return out;
}

/// The metadata section listing `constants` as meta[relay.Constant][0..n).
inline std::string write_constants_metadata(const Context& context, const relay::Graph& graph,
                                            const std::vector<NodeId>& constants) {
  std::vector<JsonNode> nodes;
  nodes.push_back({"", {}, {}, {}, false});
  nodes.push_back({"Map", {}, {"relay.Constant"}, {2}, true});
  nodes.push_back({"Array", {}, {}, {}, true});
  std::uint32_t virtual_device = 0;
  std::vector<std::string> blobs;
  for (NodeId constant : constants) {
    std::uint32_t index = static_cast<std::uint32_t>(nodes.size());
    nodes[2].data.push_back(index);
    nodes.push_back({"relay.Constant", {}, {}, {}, false});
    std::string vd_ref;
    if (virtual_device == 0) {
      virtual_device = static_cast<std::uint32_t>(nodes.size());
      nodes.push_back({"VirtualDevice",
                       {{"device_type_int", "-1"},
                        {"memory_scope", std::to_string(virtual_device + 1)},
                        {"target", "0"},
                        {"virtual_device_id", "-1"}},
                       {},
                       {},
                       false});
      nodes.push_back({"runtime.String", {}, {}, {}, false});
    }
    std::string type_ref = "0";
    TypeId type = graph.type(constant);
    const TypeTable& types = context.types;
    if (type.valid() && types.kind(type) == TypeKind::kTensor) {
      std::uint32_t type_node = static_cast<std::uint32_t>(nodes.size());
      type_ref = std::to_string(type_node);
      nodes.push_back({"relay.TensorType",
                       {{"dtype", std::string(context.strings.view(types.get(type).name))},
                        {"shape", std::to_string(type_node + 1)},
                        {"span", "0"}},
                       {},
                       {},
                       false});
      nodes.push_back({"Array", {}, {}, {}, true});
      for (DimId dim : types.dims(type)) {
        const Dim& d = types.get_dim(dim);
        nodes[type_node + 1].data.push_back(static_cast<std::uint32_t>(nodes.size()));
        nodes.push_back({"IntImm",
                         {{"dtype", d.bits == 64 ? "int64" : "int32"},
                          {"span", "0"},
                          {"value", std::to_string(d.value)}},
                         {},
                         {},
                         false});
      }
    }
    nodes[index].attrs = {{"_checked_type_", type_ref},
                          {"data", std::to_string(blobs.size())},
                          {"span", "0"},
                          {"virtual_device_", std::to_string(virtual_device)}};
    blobs.push_back(encode_ndarray(context, graph.tensor(constant)));
  }
  return write_save_json(nodes, blobs);
}

}  // namespace graphpat::detail
