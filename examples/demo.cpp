// graphpat_demo: builds a ResNet-style basic block (conv2d -> batch_norm -> relu -> conv2d ->
// batch_norm, plus the residual add) through the hash-consing builder, the way TVM's MXNet
// importer emits it: a separate `%N.0` TupleGetItem for every consumer of a batch_norm output,
// the shape behind TVM's MobileNetV2 partition failure. It prints the graph one node a line,
// then what the analyses say about it.
//
//   build/examples/graphpat_demo
#include <fmt/format.h>

#include <cstdint>
#include <graphpat/graphpat.hpp>
#include <string>
#include <vector>

namespace {

using graphpat::NodeId;
using graphpat::NodeKind;

/// One line of the listing: `%7 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1]) : Tensor[...]`.
std::string describe(const graphpat::relay::Graph& graph, NodeId id) {
  const graphpat::Context& context = graph.context();
  auto operand_list = [&](std::span<const NodeId> operands) {
    return fmt::format("{}", fmt::join(operands, ", "));
  };
  auto attrs_suffix = [&](graphpat::AttrValueId attrs) {
    std::string text;
    if (!attrs.valid()) return text;
    for (std::size_t i = 0; i < context.attrs.entry_count(attrs); ++i) {
      text += fmt::format(", {}={}", context.strings.view(context.attrs.field_key(attrs, i)),
                          graphpat::show(context, context.attrs.entry_value(attrs, i)));
    }
    return text;
  };
  std::string body;
  switch (graph.kind(id)) {
    case NodeKind::kVar:
      body =
          fmt::format("var {}: {}", graph.name(id), graphpat::show(context, graph.annotation(id)));
      break;
    case NodeKind::kOp:
      body = fmt::format("op {}", context.op_name(graph.op(id)));
      break;
    case NodeKind::kCall:
      body = fmt::format("{}({}{})", context.op_name(graph.called_op(id)),
                         operand_list(graph.args(id)), attrs_suffix(graph.attrs(id)));
      break;
    case NodeKind::kTupleGetItem:
      body = fmt::format("{}.{}{}", graph.tuple(id), graph.index(id),
                         graph.is_fresh(id) ? "   <- a second, identical node" : "");
      break;
    case NodeKind::kFunction:
      body = fmt::format("fn ({}) {{ {} }}", operand_list(graph.params(id)), graph.body(id));
      break;
    default:
      body =
          fmt::format("{}({})", node_kind_name(graph.kind(id)), operand_list(graph.operands(id)));
  }
  return fmt::format("{:>4} = {}", id, body);
}

}  // namespace

int main() {
  graphpat::relay::Graph graph;
  graphpat::relay::Builder b(graph);
  graphpat::Context& ctx = graph.context();
  graphpat::TypeTable& types = ctx.types;
  auto tensor = [&](std::vector<std::int64_t> shape) {
    std::vector<graphpat::DimId> dims;
    for (std::int64_t extent : shape) dims.push_back(types.dim(extent));
    return types.tensor("float32", dims);
  };
  auto conv_attrs = ctx.attrs.object(
      "relay.attrs.Conv2DAttrs",
      {{"padding", ctx.attrs.array({ctx.attrs.integer(1), ctx.attrs.integer(1),
                                    ctx.attrs.integer(1), ctx.attrs.integer(1)})},
       {"channels", ctx.attrs.integer(64)},
       {"kernel_size", ctx.attrs.array({ctx.attrs.integer(3), ctx.attrs.integer(3)})}});

  NodeId data = b.var("data", tensor({1, 64, 56, 56}));
  std::vector<NodeId> params{data};
  auto conv_bn = [&](NodeId input, int index) {
    NodeId weight = b.var(fmt::format("conv{}_weight", index), tensor({64, 64, 3, 3}));
    std::vector<NodeId> bn_args{b.call("nn.conv2d", {input, weight}, {.attrs = conv_attrs})};
    params.push_back(weight);
    for (const char* part : {"gamma", "beta", "moving_mean", "moving_var"}) {
      bn_args.push_back(b.var(fmt::format("bn{}_{}", index, part), tensor({64})));
      params.push_back(bn_args.back());
    }
    return b.call("nn.batch_norm", bn_args);
  };
  NodeId bn1 = conv_bn(data, 1);
  NodeId relu1 = b.call("nn.relu", {b.tuple_get_item(bn1, 0)});
  NodeId bn2 = conv_bn(relu1, 2);
  // The importer's duplicate: the residual add reads `%bn2.0` through a node of its own.
  NodeId bn2_out = b.tuple_get_item(bn2, 0);
  NodeId bn2_out_again = b.tuple_get_item(bn2, 0, {.fresh = true});
  NodeId sum = b.call("add", {bn2_out, b.call("nn.relu", {bn2_out_again})});
  NodeId block = b.function(params, b.call("nn.relu", {sum}));
  // Asking again for a node that exists returns it: nothing is added.
  std::uint32_t size_before = graph.size();
  NodeId relu1_again = b.call("nn.relu", {b.tuple_get_item(bn1, 0)});

  fmt::print("A ResNet basic block, {} nodes:\n", graph.size());
  for (std::uint32_t i = 0; i < graph.size(); ++i) fmt::print("{}\n", describe(graph, NodeId(i)));

  auto users = graphpat::UsersIndex::build(graph);
  auto post_dominators = graphpat::PostDominatorTree::build(graph, std::span(&block, 1));
  fmt::print(
      "\nhash-consing: asking again for relu(%bn1.0) gave {} (was {}), graph still {} nodes: {}\n",
      relu1_again, relu1, graph.size(), graph.size() == size_before ? "yes" : "no");
  fmt::print("users of batch_norm {}: {}\n", bn2, fmt::join(users.users(bn2), ", "));
  fmt::print("immediate post-dominator of {}: {} (the residual add)\n", bn2,
             post_dominators.immediate_post_dominator(bn2));
  absl::Status status = graphpat::verify(graph);
  fmt::print("verify: {}\n", status.ok() ? "ok" : std::string(status.message()));
  return status.ok() ? 0 : 1;
}
