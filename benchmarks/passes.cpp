// graphpat's passes as the harness measures them: one registration each (see registry.hpp).
//
// To add a pass once it lands, append one registration to add_passes() below and, for a new
// header, its #include; nothing else changes.
//
// The floor says what a pass is divided by: kHashCons for passes that rebuild the graph
// through a table, kLinearScan / kDfs for traversals, kMemcpyText / kMemcpyJson for readers
// and writers of those bytes (which also makes the table show their MB/s), kProtobufParse /
// kProtobufSerialize for the ONNX reader and writer (which run on the ONNX workloads only).
#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <graphpat/cse.hpp>
#include <graphpat/io/onnx.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>
#include <graphpat/pattern/graph_matcher.hpp>
#include <graphpat/pattern/matcher.hpp>
#include <graphpat/rewrite.hpp>
#include <graphpat/transform/cse.hpp>
#include <graphpat/transform/graph_partition.hpp>
#include <graphpat/transform/merge_composite.hpp>
#include <graphpat/transform/partition.hpp>
#include <graphpat/transform/rewrite_bindings.hpp>

#include "floors.hpp"
#include "registry.hpp"

namespace bench {
namespace {

/// The harness keeps under ~8 GB. TVM JSON is 0.9-1.6 KB per node of a synthetic workload
/// and load_json / save_json peak at 2-5 KB per node; print_text peaks at 400-800 B per node
/// (and making the parser's input at 1e7 is a print_text): at 1e7 nodes each would need
/// 10 GB or more, so the text and JSON passes stop at 1e6.
constexpr PassOptions kBytesLimit{.max_nodes = 1'000'000};
/// partition and merge_composite run ten partitions (each after a CSE) per run: on the 1e7
/// chain one partition run had taken over 4 CPU minutes, the process 8.4 GB, when it was
/// stopped, so they and rewrite (a CSE and two passes over five callbacks) stop at 1e6 too.
constexpr PassOptions kPatternLimit{.max_nodes = 1'000'000};

/// Replay target: every node through a Builder, pure nodes hash-consed whatever the source
/// said (importer-made duplicates come back as the existing node).
struct BuilderTarget {
  graphpat::relay::Builder& builder;
  graphpat::NodeId copy(const graphpat::relay::Graph& source, graphpat::NodeId id,
                        std::span<const graphpat::NodeId> operands) {
    return builder.copy(source, id, operands, graphpat::Sharing::kHashCons);
  }
};

/// Runs `pass(pattern)` for every corpus pattern; the sum of what it counts.
template <class Pass>
absl::StatusOr<std::size_t> for_each_pattern(CorpusPatterns& patterns, Pass&& pass) {
  if (!patterns.ok()) return patterns.status();
  std::size_t total = 0;
  for (const auto& entry : *patterns) total += pass(entry.pattern);
  return total;
}

using graphpat::NodeId;
using Rewriter = graphpat::Rewriter<graphpat::relay::Dialect>;
using RewriteCallbacks = std::vector<graphpat::RewriteCallback<graphpat::relay::Dialect>>;

/// Outlines the expression at `root` (of the rewriter's graph) down to `inputs` as a function
/// carrying `Composite=name`, as merge_composite makes them, and returns its call on `inputs`.
/// The functions are marked as partitioned, so later applications do not look inside them.
NodeId call_composite(Rewriter& rewriter, const std::string& name, NodeId root,
                      std::span<const NodeId> inputs) {
  graphpat::relay::Graph& graph = rewriter.graph();
  graphpat::relay::Builder& builder = rewriter.builder();
  absl::flat_hash_map<NodeId, NodeId> copy;  // input or body node -> its copy in the function
  std::vector<NodeId> params;
  for (NodeId input : inputs) {
    params.push_back(
        builder.var(fmt::format("FunctionVar_{}", params.size()), {}, {.type = graph.type(input)}));
    copy.emplace(input, params.back());
  }
  // The body in post-order: what `root` reaches without passing an input (op nodes are shared).
  std::vector<NodeId> body;
  std::vector<std::pair<NodeId, std::uint32_t>> stack = {{root, 0}};
  copy.emplace(root, NodeId());
  while (!stack.empty()) {
    auto [node, next] = stack.back();
    const std::span<const NodeId> operands = graph.operands(node);
    if (next == operands.size()) {
      body.push_back(node);
      stack.pop_back();
      continue;
    }
    ++stack.back().second;
    const NodeId operand = operands[next];
    if (graph.kind(operand) != graphpat::NodeKind::kOp && copy.emplace(operand, NodeId()).second) {
      stack.emplace_back(operand, 0);
    }
  }
  std::vector<NodeId> operands;
  for (NodeId node : body) {
    operands.clear();
    for (NodeId operand : graph.operands(node)) {
      auto found = copy.find(operand);
      operands.push_back(found == copy.end() ? operand : found->second);
    }
    copy[node] = builder.copy(graph, node, operands);
  }
  const graphpat::PartitionOptions<graphpat::relay::Dialect> attrs{.attrs = {{"Composite", name}}};
  const NodeId function = builder.function(
      params, copy.at(root), {.attrs = graphpat::detail::partition_attrs(graph, name, attrs)});
  return builder.call(function, inputs, {.type = graph.type(root)});
}

/// The rewrite pass's five callbacks; each says which workloads it fires on.
RewriteCallbacks rewrite_callbacks() {
  using namespace graphpat::dsl;
  RewriteCallbacks callbacks;
  // relu(sigmoid(x)) -> sigmoid(x): relu is the identity on (0, 1). Fires on chain.
  {
    Pattern sigmoid = is_op("sigmoid")(wildcard());
    callbacks.push_back({.pattern = is_op("nn.relu")(sigmoid),
                         .rewrite = [sigmoid](NodeId, NodeId, const graphpat::RewriteBindings& b,
                                              Rewriter&) { return b.bound(sigmoid); }});
  }
  // subtract(a, b) -> add(a, negative(b)), a legalization for targets without subtract.
  // Fires on dag.
  {
    Pattern a = wildcard(), b = wildcard();
    callbacks.push_back({.pattern = is_op("subtract")(a, b),
                         .rewrite = [a, b](NodeId, NodeId post,
                                           const graphpat::RewriteBindings& bound, Rewriter& r) {
                           const NodeId rhs = bound.bound(b);
                           const NodeId negated =
                               r.builder().call("negative", {rhs}, {.type = r.graph().type(rhs)});
                           return r.builder().call("add", {bound.bound(a), negated},
                                                   {.type = r.graph().type(post)});
                         }});
  }
  // Three fusions into composite calls, one per kind of network.
  auto composite = [&](std::string name, Pattern pattern, std::vector<Pattern> inputs) {
    callbacks.push_back(
        {.pattern = std::move(pattern),
         .rewrite = [name = std::move(name), inputs = std::move(inputs)](
                        NodeId, NodeId post, const graphpat::RewriteBindings& b, Rewriter& r) {
           std::vector<NodeId> args;
           for (const Pattern& input : inputs) args.push_back(b.bound(input));
           return call_composite(r, name, post, args);
         }});
  };
  // The batch norms of resnet, mobilenet and the corpus's convolutional networks.
  {
    Pattern x = wildcard(), gamma = wildcard(), beta = wildcard(), mean = wildcard(),
            var = wildcard();
    composite("batch_norm", is_tuple_get_item(is_op("nn.batch_norm")(x, gamma, beta, mean, var), 0),
              {x, gamma, beta, mean, var});
  }
  // A bias after a dense or convolution layer (mlp, lstm, squeezenet, the classifier heads).
  {
    Pattern x = wildcard(), weight = wildcard(), bias = wildcard();
    composite("bias_add",
              is_op("nn.bias_add")((is_op("nn.dense") | is_op("nn.conv2d"))(x, weight), bias),
              {x, weight, bias});
  }
  // The transformer's residual add and layer norm.
  {
    Pattern a = wildcard(), b = wildcard(), gamma = wildcard(), beta = wildcard();
    composite("add_layer_norm", is_op("nn.layer_norm")(is_op("add")(a, b), gamma, beta),
              {a, b, gamma, beta});
  }
  return callbacks;
}

/// Relax's test_attention_qkv context: three nn.dense calls of one input.
struct QkvPatterns {
  graphpat::Pattern input = graphpat::dsl::wildcard();
  std::vector<graphpat::Pattern> weights, projections;
  graphpat::PatternContext context;

  QkvPatterns() {
    using namespace graphpat::dsl;
    for (int i = 0; i < 3; ++i) {
      weights.push_back(wildcard());
      projections.push_back(is_op("nn.dense")(input, weights.back()));
      context.add(projections.back());
    }
  }

  /// Relax's qkv_proj_rewriter in Relay form: one dense of the concatenated weights, split.
  [[nodiscard]] absl::StatusOr<graphpat::Replacements> fuse(
      const graphpat::Match& m, graphpat::Rewriter<graphpat::relay::Dialect>& r) const {
    graphpat::NodeId stacked = r.builder().tuple(
        {m.bound(weights[0]), m.bound(weights[1]), m.bound(weights[2])});
    absl::StatusOr<graphpat::NodeId> concat = r.call("concatenate", {stacked}, {});
    if (!concat.ok()) return concat.status();
    graphpat::AttrTable& attrs = r.attrs();
    absl::StatusOr<graphpat::NodeId> dense =
        r.call("nn.dense", {m.bound(input), *concat}, {{"units", attrs.null()}});
    if (!dense.ok()) return dense.status();
    absl::StatusOr<graphpat::NodeId> split = r.call(
        "split", {*dense}, {{"indices_or_sections", attrs.integer(3)}, {"axis", attrs.integer(1)}});
    if (!split.ok()) return split.status();
    graphpat::Replacements replacements;
    for (std::uint32_t i = 0; i < 3; ++i) {
      replacements.emplace_back(m.bound(projections[i]), r.builder().tuple_get_item(*split, i));
    }
    return replacements;
  }
};

}  // namespace

void add_passes(PassRegistry& registry) {
  registry.add("build", Floor::kHashCons, [](const Workload& w) {
    graphpat::relay::Graph graph(w.module().graph.shared_context());
    graphpat::relay::Builder builder(graph);
    BuilderTarget target{builder};
    replay(w.module().graph, target);
    return graph;
  });
  registry.add("cse", Floor::kHashCons,
               [](const Workload& w) { return graphpat::eliminate_common_subexpr(w.module()); });
  registry.add("cse_relay_compat", Floor::kHashCons, [](const Workload& w) {
    return graphpat::eliminate_common_subexpr(w.module(), {.relay_compat = true});
  });
  // Every pattern of patterns.txt, TVM's semantics, every node of every function: per node
  // of the workload, the cost of trying ten patterns there.
  registry.add_with_setup(
      "find_matches", Floor::kLinearScan, [](const Workload&) { return corpus_patterns(); },
      [](const Workload& w, CorpusPatterns& patterns) {
        return for_each_pattern(patterns, [&](const graphpat::Pattern& pattern) {
          std::size_t found = 0;
          for (graphpat::NodeId root : w.module().roots()) {
            found += graphpat::find_matches(pattern, w.module().graph, root,
                                            {.relay_compat = true})
                         .size();
          }
          return found;
        });
      });
  // Graph patterns beside find_matches, per match: the QKV context (three nn.dense calls of
  // one input, Relax's test_attention_qkv) matched everywhere, and find_matches of one
  // `nn.dense(_, _)` pattern, whose matches are the calls the context assigns.
  registry.add_with_setup(
      "graph_match_qkv", Floor::kLinearScan, [](const Workload&) { return QkvPatterns(); },
      [](const Workload& w, QkvPatterns& qkv) -> absl::StatusOr<std::size_t> {
        std::size_t found = 0;
        for (graphpat::NodeId root : w.module().roots()) {
          absl::StatusOr<std::vector<graphpat::Match>> matches =
              graphpat::find_graph_matches(qkv.context, w.module().graph, root);
          if (!matches.ok()) return matches.status();
          found += matches->size();
        }
        return found;
      });
  // The same context rewritten with rewrite_bindings (QkvPatterns::fuse); counts the matches
  // rewritten.
  registry.add_with_setup(
      "rewrite_bindings_qkv", Floor::kDfs, [](const Workload&) { return QkvPatterns(); },
      [](const Workload& w, QkvPatterns& qkv) -> absl::StatusOr<std::size_t> {
        auto result = graphpat::rewrite_bindings<graphpat::relay::Dialect>(
            qkv.context, std::bind_front(&QkvPatterns::fuse, &qkv), w.module());
        if (!result.ok()) return result.status();
        return result->report.rewritten;
      },
      kPatternLimit);
  // The same context outlined by partition (default mode: CSE first): each block one function
  // returning (q, k, v); counts the functions made.
  registry.add_with_setup(
      "graph_partition_qkv", Floor::kDfs, [](const Workload&) { return QkvPatterns(); },
      [](const Workload& w, QkvPatterns& qkv) -> absl::StatusOr<std::size_t> {
        auto result = graphpat::partition(qkv.context, w.module());
        if (!result.ok()) return result.status();
        return result->report.accepted;
      },
      kPatternLimit);
  registry.add("find_matches_dense", Floor::kLinearScan, [](const Workload& w) {
    using namespace graphpat::dsl;
    graphpat::Pattern dense = is_op("nn.dense")(wildcard(), wildcard());
    std::size_t found = 0;
    for (graphpat::NodeId root : w.module().roots()) {
      found += graphpat::find_matches(dense, w.module().graph, root).size();
    }
    return found;
  });
  // Partition with each of the ten patterns in turn (default mode: CSE first), each from the
  // workload itself.
  registry.add_with_setup(
      "partition", Floor::kDfs, [](const Workload&) { return corpus_patterns(); },
      [](const Workload& w, CorpusPatterns& patterns) {
        return for_each_pattern(patterns, [&](const graphpat::Pattern& pattern) {
          return static_cast<std::size_t>(
              graphpat::partition(pattern, w.module()).report.accepted);
        });
      },
      kPatternLimit);
  // MergeComposite with the ten patterns as one table, in file order.
  registry.add_with_setup(
      "merge_composite", Floor::kDfs, [](const Workload&) { return corpus_patterns(); },
      [](const Workload& w, CorpusPatterns& table) -> absl::StatusOr<std::size_t> {
        if (!table.ok()) return table.status();
        return static_cast<std::size_t>(
            graphpat::merge_composite(*table, w.module()).report.accepted);
      },
      kPatternLimit);
  // The five callbacks of rewrite_callbacks() to a fixed point on every function (default mode:
  // CSE first); counts the rewrites applied, fails if the budget stops it first.
  registry.add_with_setup(
      "rewrite", Floor::kDfs, [](const Workload&) { return rewrite_callbacks(); },
      [](const Workload& w, RewriteCallbacks& callbacks) -> absl::StatusOr<std::uint64_t> {
        std::uint64_t rewrites = 0;
        for (NodeId root : w.module().roots()) {
          auto result = graphpat::rewrite(callbacks, w.module().graph, root);
          if (!result.converged) return absl::InternalError("rewrite did not converge");
          rewrites += result.rewrites;
        }
        return rewrites;
      },
      kPatternLimit);
  registry.add(
      "parse_text", Floor::kMemcpyText,
      [](const Workload& w) { return graphpat::relay::parse_text(w.text()); }, kBytesLimit);
  registry.add(
      "print_text", Floor::kMemcpyText,
      [](const Workload& w) { return graphpat::relay::print_text(w.module()).value(); },
      kBytesLimit);
  registry.add(
      "load_json", Floor::kMemcpyJson,
      [](const Workload& w) { return graphpat::relay::load_json(w.json()); }, kBytesLimit);
  registry.add(
      "save_json", Floor::kMemcpyJson,
      [](const Workload& w) { return graphpat::relay::save_json(w.module()); }, kBytesLimit);
  // MB/s of the model's bytes read, and written (an unchanged model saves the same bytes).
  registry.add(
      "onnx_load", Floor::kProtobufParse,
      [](const Workload& w) { return graphpat::onnx::load(w.onnx()); }, kBytesLimit);
  registry.add(
      "onnx_save", Floor::kProtobufSerialize,
      [](const Workload& w) { return graphpat::onnx::save(w.onnx_module()); }, kBytesLimit);
}

}  // namespace bench
