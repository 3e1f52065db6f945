// The synthetic workloads: graphs of a requested size built through graphpat::relay::Builder,
// with the attributes (canonical objects of each op's schema, as the Relay readers make them)
// and checked types TVM would give them, parameters unbound as in the corpus's
// NAME.unbound.relay files. Each becomes `def @main(params) { body }`; every node is reachable
// from the body, so printing and re-parsing keeps the node count.
//
//   chain        x, then nn.relu and sigmoid in turn, each on the node before it
//   resnet       stacked residual blocks: conv2d, batch_norm, .0, relu, conv2d, batch_norm, .0,
//                add (the block input), relu; fresh weight and batch_norm params per block
//   transformer  encoder blocks: nn.dense for q, k, v; nn.batch_matmul q·kᵀ; nn.softmax;
//                nn.batch_matmul by v; nn.dense; add; nn.layer_norm; nn.dense, nn.relu,
//                nn.dense feed-forward; add; nn.layer_norm
//   qkv          blocks of three nn.dense calls of one input x, each with a weight of its own
//                (a parameter), then x = add(add(q, k), v): eight nodes a block, one QKV
//                graph-pattern match each
//   dag          a random DAG of add/multiply/subtract/maximum calls, half of them fresh
//                duplicates (as an importer makes them) of a uniformly chosen earlier call:
//                same op, same operands, so each reaches back to a random depth; the other half
//                are originals reading the previous original and that duplicate
//   mobilenet    MobileNetV2's origin shape scaled up: units of an inverted-residual block
//                without a residual (1x1 conv2d, depthwise 3x3 conv2d, 1x1 conv2d, each with
//                batch_norm and clip) ending in a batch_norm P, then one with a residual whose
//                add reads P through a second fresh TupleGetItem (two distinct `%N.0` on P)
// Sizes are reached to within one block; the generators are deterministic (fixed seed).
//
// One ONNX shape, a serialized ModelProto built with libonnx's generated protobuf classes:
//   onnx_chain   input x (float [1, 64]), then Relu and Add (of a 64-float initializer `bias`)
//                in turn, each on the node before it; exactly `nodes` NodeProtos, named
//                `Relu_N` / `Add_N` with outputs `tN`, and one graph output, the last
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/relay/dialect.hpp>
#include <onnx/onnx_pb.h>

#include "workload.hpp"

namespace bench {
namespace {

using graphpat::AttrValueId;
using graphpat::NodeId;
using graphpat::TypeId;

/// SplitMix64: a fixed, portable sequence (the std distributions differ between libraries).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform enough in [0, bound) for bound < 2^32.
  std::uint32_t below(std::size_t bound) {
    return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32);
  }

 private:
  std::uint64_t state_;
};

/// The builder plus what every generator needs: float32 tensor types, canonical call
/// attributes, typed parameters, and the final `def @main`.
class Writer {
 public:
  explicit Writer(graphpat::relay::Module& module)
      : module_(module), b_(module.graph), context_(module.graph.context()) {}

  [[nodiscard]] std::uint32_t size() const { return module_.graph.size(); }
  [[nodiscard]] const graphpat::relay::Graph& graph() const { return module_.graph; }

  TypeId tensor(std::initializer_list<std::int64_t> shape) {
    std::vector<graphpat::DimId> dims;
    for (std::int64_t extent : shape) dims.push_back(context_.types.dim(extent));
    return context_.types.tensor("float32", dims);
  }
  TypeId tuple(std::initializer_list<TypeId> fields) { return context_.types.tuple(fields); }

  graphpat::AttrTable& attr() { return context_.attrs; }
  AttrValueId ints(std::initializer_list<std::int64_t> values) {
    std::vector<AttrValueId> elements;
    for (std::int64_t value : values) elements.push_back(context_.attrs.integer(value));
    return context_.attrs.array(elements);
  }
  /// The canonical attribute object of `op` with `fields` set and every other field at its
  /// declared default: what the Relay text and JSON readers build for such a call.
  AttrValueId attrs(std::string_view op,
                    const std::vector<std::pair<std::string_view, AttrValueId>>& fields) {
    auto canonical = graphpat::relay::call_attrs(context_, op, fields);
    if (!canonical.ok()) throw std::logic_error(canonical.status().ToString());
    return *canonical;
  }

  NodeId param(std::string_view name, TypeId type) {
    NodeId var = b_.var(name, type, {.type = type});
    params_.push_back(var);
    return var;
  }
  NodeId call(std::string_view op, std::initializer_list<NodeId> args, TypeId type,
              AttrValueId attrs = {}, bool fresh = false) {
    return b_.call(op, args, {.attrs = attrs, .type = type, .fresh = fresh});
  }
  NodeId call(NodeId op, std::span<const NodeId> args, TypeId type, bool fresh) {
    return b_.call(op, args, {.type = type, .fresh = fresh});
  }
  NodeId op(std::string_view name) { return b_.op(name); }
  /// `body.0`, always a new node (MXNet-style importers make one per consumer).
  NodeId first(NodeId tuple, TypeId type) {
    return b_.tuple_get_item(tuple, 0, {.type = type, .fresh = true});
  }

  /// Wraps everything into `def @main(params) -> type { body }`.
  void finish(NodeId body, TypeId type) {
    module_.add_function("main", b_.function(params_, body, {.result_type = type}));
  }

 private:
  graphpat::relay::Module& module_;
  graphpat::relay::Builder b_;
  graphpat::Context& context_;
  std::vector<NodeId> params_;
};

void chain(std::uint64_t nodes, Writer& w) {
  const TypeId type = w.tensor({1, 1024});
  NodeId previous = w.param("x", type);
  for (std::uint64_t i = 0; w.size() + 1 < nodes; ++i) {
    previous = w.call(i % 2 == 0 ? "nn.relu" : "sigmoid", {previous}, type);
  }
  w.finish(previous, type);
}

void qkv(std::uint64_t nodes, Writer& w) {
  constexpr std::int64_t kRows = 16, kHidden = 64;
  const TypeId hidden = w.tensor({kRows, kHidden});
  const TypeId square = w.tensor({kHidden, kHidden});
  const AttrValueId dense = w.attrs("nn.dense", {{"units", w.attr().integer(kHidden)}});
  NodeId x = w.param("x", hidden);
  for (std::uint64_t block = 0; w.size() + 1 < nodes; ++block) {
    NodeId projections[3];
    for (int i = 0; i < 3; ++i) {
      NodeId weight = w.param(fmt::format("w{}_{}", block, "qkv"[i]), square);
      projections[i] = w.call("nn.dense", {x, weight}, hidden, dense);
    }
    x = w.call("add", {w.call("add", {projections[0], projections[1]}, hidden), projections[2]},
               hidden);
  }
  w.finish(x, hidden);
}

/// batch_norm of `input` with fresh gamma/beta/mean/var params named `prefix`_*.
NodeId batch_norm(Writer& w, const std::string& prefix, NodeId input, TypeId type,
                  std::int64_t channels, AttrValueId attrs) {
  const TypeId vector = w.tensor({channels});
  return w.call("nn.batch_norm",
                {input, w.param(prefix + "_gamma", vector), w.param(prefix + "_beta", vector),
                 w.param(prefix + "_moving_mean", vector), w.param(prefix + "_moving_var", vector)},
                w.tuple({type, vector, vector}), attrs);
}

void resnet(std::uint64_t nodes, Writer& w) {
  constexpr std::int64_t kChannels = 64;
  const TypeId image = w.tensor({1, kChannels, 56, 56});
  const TypeId kernel = w.tensor({kChannels, kChannels, 3, 3});
  const AttrValueId conv = w.attrs("nn.conv2d", {{"padding", w.ints({1, 1, 1, 1})},
                                                 {"channels", w.attr().integer(kChannels)},
                                                 {"kernel_size", w.ints({3, 3})}});
  const AttrValueId bn = w.attrs("nn.batch_norm", {{"epsilon", w.attr().floating(2e-5, 64)}});
  NodeId x = w.param("data", image);
  for (std::uint64_t block = 0; w.size() + 1 < nodes; ++block) {
    const std::string prefix = fmt::format("stage_unit{}", block);
    NodeId y = x;
    for (int half = 0; half < 2; ++half) {
      const std::string name = fmt::format("{}_{}", prefix, half);
      y = w.call("nn.conv2d", {y, w.param(name + "_conv_weight", kernel)}, image, conv);
      y = w.first(batch_norm(w, name + "_bn", y, image, kChannels, bn), image);
      if (half == 1) y = w.call("add", {y, x}, image);
      y = w.call("nn.relu", {y}, image);
    }
    x = y;
  }
  w.finish(x, image);
}

void transformer(std::uint64_t nodes, Writer& w) {
  constexpr std::int64_t kSeq = 128, kHidden = 768, kFfn = 3072;
  const TypeId hidden = w.tensor({1, kSeq, kHidden});
  const TypeId wide = w.tensor({1, kSeq, kFfn});
  const TypeId scores = w.tensor({1, kSeq, kSeq});
  const TypeId square = w.tensor({kHidden, kHidden});
  const TypeId up = w.tensor({kFfn, kHidden});
  const TypeId down = w.tensor({kHidden, kFfn});
  const TypeId vector = w.tensor({kHidden});
  const AttrValueId dense = w.attrs("nn.dense", {{"units", w.attr().integer(kHidden)}});
  const AttrValueId dense_up = w.attrs("nn.dense", {{"units", w.attr().integer(kFfn)}});
  const AttrValueId qk = w.attrs("nn.batch_matmul", {{"transpose_b", w.attr().boolean(true)}});
  const AttrValueId pv = w.attrs("nn.batch_matmul", {{"transpose_b", w.attr().boolean(false)}});
  const AttrValueId softmax = w.attrs("nn.softmax", {{"axis", w.attr().integer(-1)}});
  const AttrValueId norm = w.attrs("nn.layer_norm", {{"epsilon", w.attr().floating(1e-12, 64)}});
  NodeId x = w.param("input", hidden);
  for (std::uint64_t layer = 0; w.size() + 1 < nodes; ++layer) {
    const std::string p = fmt::format("encoder_layer{}", layer);
    auto weight = [&](std::string_view name, TypeId type) {
      return w.param(fmt::format("{}_{}", p, name), type);
    };
    NodeId q = w.call("nn.dense", {x, weight("query_weight", square)}, hidden, dense);
    NodeId k = w.call("nn.dense", {x, weight("key_weight", square)}, hidden, dense);
    NodeId v = w.call("nn.dense", {x, weight("value_weight", square)}, hidden, dense);
    NodeId s = w.call("nn.batch_matmul", {q, k}, scores, qk);
    s = w.call("nn.softmax", {s}, scores, softmax);
    NodeId c = w.call("nn.batch_matmul", {s, v}, hidden, pv);
    NodeId o = w.call("nn.dense", {c, weight("output_weight", square)}, hidden, dense);
    NodeId r = w.call("add", {o, x}, hidden);
    NodeId n = w.call("nn.layer_norm", {r, weight("ln1_gamma", vector), weight("ln1_beta", vector)},
                      hidden, norm);
    NodeId f = w.call("nn.dense", {n, weight("ffn_up_weight", up)}, wide, dense_up);
    f = w.call("nn.relu", {f}, wide);
    f = w.call("nn.dense", {f, weight("ffn_down_weight", down)}, hidden, dense);
    r = w.call("add", {f, n}, hidden);
    x = w.call("nn.layer_norm", {r, weight("ln2_gamma", vector), weight("ln2_beta", vector)},
               hidden, norm);
  }
  w.finish(x, hidden);
}

void dag(std::uint64_t nodes, Writer& w) {
  const TypeId type = w.tensor({1, 256});
  const std::vector<NodeId> ops = {w.op("add"), w.op("multiply"), w.op("subtract"),
                                   w.op("maximum")};
  Random random(0x6772617068706174ULL);
  auto original = [&](NodeId lhs, NodeId rhs) {
    const NodeId args[] = {lhs, rhs};
    return w.call(ops[random.below(ops.size())], args, type, /*fresh=*/false);
  };
  const NodeId x = w.param("x", type);
  std::vector<NodeId> originals = {original(x, w.param("y", type))};
  while (w.size() + 1 < nodes) {
    const std::span<const NodeId> copied =
        w.graph().operands(originals[random.below(originals.size())]);
    const NodeId duplicate = w.call(copied.front(), copied.subspan(1), type, /*fresh=*/true);
    originals.push_back(original(originals.back(), duplicate));
  }
  w.finish(originals.back(), type);
}

void mobilenet(std::uint64_t nodes, Writer& w) {
  constexpr std::int64_t kChannels = 32, kExpanded = 192;
  const TypeId thin = w.tensor({1, kChannels, 56, 56});
  const TypeId thick = w.tensor({1, kExpanded, 56, 56});
  const TypeId expand_kernel = w.tensor({kExpanded, kChannels, 1, 1});
  const TypeId depthwise_kernel = w.tensor({kExpanded, 1, 3, 3});
  const TypeId project_kernel = w.tensor({kChannels, kExpanded, 1, 1});
  const AttrValueId expand = w.attrs("nn.conv2d", {{"channels", w.attr().integer(kExpanded)},
                                                   {"kernel_size", w.ints({1, 1})}});
  const AttrValueId depthwise = w.attrs("nn.conv2d", {{"padding", w.ints({1, 1, 1, 1})},
                                                      {"groups", w.attr().integer(kExpanded)},
                                                      {"channels", w.attr().integer(kExpanded)},
                                                      {"kernel_size", w.ints({3, 3})}});
  const AttrValueId project = w.attrs("nn.conv2d", {{"channels", w.attr().integer(kChannels)},
                                                    {"kernel_size", w.ints({1, 1})}});
  const AttrValueId bn = w.attrs("nn.batch_norm", {{"epsilon", w.attr().floating(1e-5, 64)}});
  const AttrValueId relu6 = w.attrs("clip", {{"a_min", w.attr().floating(0, 64)},
                                             {"a_max", w.attr().floating(6, 64)}});
  // An inverted-residual block from `input`; returns its last batch_norm (not yet read).
  auto block = [&](const std::string& p, NodeId input) {
    NodeId y = w.call("nn.conv2d", {input, w.param(p + "_expand_weight", expand_kernel)}, thick,
                      expand);
    y = w.call("clip", {w.first(batch_norm(w, p + "_expand_bn", y, thick, kExpanded, bn), thick)},
               thick, relu6);
    y = w.call("nn.conv2d", {y, w.param(p + "_dw_weight", depthwise_kernel)}, thick, depthwise);
    y = w.call("clip", {w.first(batch_norm(w, p + "_dw_bn", y, thick, kExpanded, bn), thick)},
               thick, relu6);
    y = w.call("nn.conv2d", {y, w.param(p + "_project_weight", project_kernel)}, thin, project);
    return batch_norm(w, p + "_project_bn", y, thin, kChannels, bn);
  };
  NodeId x = w.param("data", thin);
  for (std::uint64_t unit = 0; w.size() + 1 < nodes; ++unit) {
    const NodeId p = block(fmt::format("unit{}_a", unit), x);
    const NodeId q = block(fmt::format("unit{}_b", unit), w.first(p, thin));
    x = w.call("add", {w.first(q, thin), w.first(p, thin)}, thin);  // P's second `.0`
  }
  w.finish(x, thin);
}

struct Shape {
  const char* name;
  void (*generate)(std::uint64_t nodes, Writer& writer);
};
constexpr Shape kShapes[] = {{"chain", chain},
                             {"resnet", resnet},
                             {"transformer", transformer},
                             {"qkv", qkv},
                             {"dag", dag},
                             {"mobilenet", mobilenet}};

/// A float tensor type of shape [1, 64].
void set_row_type(::onnx::ValueInfoProto& value, std::string name) {
  value.set_name(std::move(name));
  ::onnx::TypeProto_Tensor* tensor = value.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(::onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_value(1);
  tensor->mutable_shape()->add_dim()->set_dim_value(64);
}

std::string onnx_chain(std::uint64_t nodes) {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("graphpat_bench");
  model.add_opset_import()->set_version(17);
  ::onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("onnx_chain");
  set_row_type(*graph.add_input(), "x");
  ::onnx::TensorProto& bias = *graph.add_initializer();
  bias.set_name("bias");
  bias.set_data_type(::onnx::TensorProto::FLOAT);
  bias.add_dims(64);
  bias.set_raw_data(std::string(64 * sizeof(float), '\0'));
  std::string previous = "x";
  for (std::uint64_t i = 0; i < nodes; ++i) {
    ::onnx::NodeProto& node = *graph.add_node();
    const bool relu = i % 2 == 0;
    node.set_op_type(relu ? "Relu" : "Add");
    node.set_name(fmt::format("{}_{}", node.op_type(), i));
    node.add_input(previous);
    if (!relu) node.add_input("bias");
    previous = fmt::format("t{}", i);
    node.add_output(previous);
  }
  set_row_type(*graph.add_output(), previous);
  return model.SerializeAsString();
}

struct OnnxShape {
  const char* name;
  std::string (*generate)(std::uint64_t nodes);
};
constexpr OnnxShape kOnnxShapes[] = {{"onnx_chain", onnx_chain}};

}  // namespace

std::vector<std::string> onnx_shape_names() {
  std::vector<std::string> names;
  for (const OnnxShape& shape : kOnnxShapes) names.emplace_back(shape.name);
  return names;
}

std::string generate_onnx(const std::string& name, std::uint64_t nodes) {
  for (const OnnxShape& shape : kOnnxShapes) {
    if (name == shape.name) return shape.generate(nodes);
  }
  throw std::invalid_argument(fmt::format("no synthetic ONNX workload called '{}'", name));
}

std::vector<std::string> shape_names() {
  std::vector<std::string> names;
  for (const Shape& shape : kShapes) names.emplace_back(shape.name);
  return names;
}

void generate(const std::string& name, std::uint64_t nodes, graphpat::relay::Module& module) {
  for (const Shape& shape : kShapes) {
    if (name == shape.name) {
      Writer writer(module);
      shape.generate(nodes, writer);
      return;
    }
  }
  throw std::invalid_argument(fmt::format("no synthetic workload called '{}'", name));
}

}  // namespace bench
