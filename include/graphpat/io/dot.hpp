// Graphviz export: one global function of a module as a DOT digraph, for looking at a model
// and at what a pattern matched. Ops are labelled with their name and their non-default
// attributes (`nn.conv2d\nstrides=[2, 2] channels=32`), constants are folded into their users'
// labels so a real model stays readable, and groups of nodes (the matches of a pattern, or the
// bodies of partitioned functions) are drawn as filled, labelled clusters. This header draws
// Relay modules; graphpat::onnx::to_dot (io/onnx.hpp) draws ONNX ones with the same writer.
//
//   auto dot = graphpat::relay::to_dot(module, {.cluster_partitioned_functions = true});
//   if (!dot.ok()) return dot.status();   // "[graphpat.dot.unknown_function] @main: ..."
//   std::ofstream("model.dot") << *dot;   // then: dot -Tsvg model.dot -o model.svg
//
// Node kinds: vars are ellipses (name and tensor type), calls boxes, tuples `tuple`,
// projections `get N`, a call of a global `@name`, a function literal `fn` (with its composite
// or partitioned-from name: the dialect's attributes, `Composite` and `PartitionedFromPattern`
// in Relay). With cluster_partitioned_functions a call of a function carrying one of them (or
// of a module function DotOptions::clustered_functions names) is replaced by the function's
// body, its parameters wired to the call's arguments, inside a cluster labelled with that name;
// calls of partitioned functions inside such a body are drawn as plain boxes (one level).
// Every walk is iterative; the text is linear in what is drawn (a body once per call).
// DOT has no reader here, so its writer rule is: node ids are graphpat's own (`n12`, `c3_n4`),
// and every label and name goes through dot_escape, so Graphviz shows the exact name (bytes it
// cannot show spelt `\xNN`) and nothing in a name ends the quoted string or makes an escape.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/text_map.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/relay/dialect.hpp"
#include "graphpat/relay/text/attributes.hpp"

namespace graphpat {

/// One coloured cluster: nodes of the drawn function, and the label it is shown with.
struct DotCluster {
  std::string label;
  std::vector<NodeId> nodes;
};

struct DotOptions {
  std::vector<DotCluster> clusters{};          // e.g. one per match (label = pattern name); a node
                                               // listed in two clusters is drawn in the first
  bool cluster_partitioned_functions = false;  // draw each call of a function carrying the
                                               // dialect's composite or partitioned-from attr
                                               // ("Composite", "PartitionedFromPattern" in
                                               // Relay) as a cluster of its body, labelled by it
  bool fold_constants = true;                  // constants drawn inside their user's label
  std::string function = "main";               // which global function to draw
  // With cluster_partitioned_functions, module functions whose calls are drawn the same way,
  // labelled by their name: groups a file holds as functions of their own (an ONNX model's
  // FunctionProtos partition wrote, read back as `graphpat.<name>`).
  std::vector<std::string> clustered_functions{};
  // A module function's body is drawn once per call: at most this many nodes drawn again,
  // beyond each body's first drawing (else `dot.too_large`), so that a small file whose
  // function is called many times cannot make a picture without bound.
  std::size_t max_redrawn_nodes = 1'000'000;
};

}  // namespace graphpat

namespace graphpat::relay {
using graphpat::DotCluster;
using graphpat::DotOptions;
}  // namespace graphpat::relay

namespace graphpat::detail {

/// Text as the body of a DOT double-quoted string that Graphviz shows as exactly `text`: `"`
/// and `\` backslashed (so no name ends the string or makes a `\N`, `\l` escape), `&` as
/// `&amp;` (Graphviz reads entities in every label), a line feed as the line break `\n`; the
/// bytes it cannot show (other control bytes, bytes that are not UTF-8) are spelt `\xNN`, as in
/// graphpat's messages, never passed raw. Every label, id and cluster name goes through it.
inline std::string dot_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t bad = invalid_utf8_at(text);
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    auto byte = static_cast<unsigned char>(c);
    if (i == bad) {
      fmt::format_to(std::back_inserter(out), "\\\\x{:02X}", byte);
      std::size_t next = invalid_utf8_at(text.substr(i + 1));
      bad = next == std::string_view::npos ? next : i + 1 + next;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte == 0x7F) {
      fmt::format_to(std::back_inserter(out), "\\\\x{:02X}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

/// Writes one function of a module of dialect D; `attribute_texts` gives the `name=value`
/// texts of a call's attributes as the dialect writes them (those worth showing, in order).
template <Dialect D>
class DotWriter {
 public:
  using AttributeTexts = std::function<std::vector<std::string>(AttrValueId)>;

  DotWriter(const Module<D>& module, const DotOptions& options, AttributeTexts attribute_texts)
      : module_(module),
        graph_(module.graph),
        context_(graph_.context()),
        options_(options),
        attribute_texts_(std::move(attribute_texts)) {
    for (const std::string& name : options_.clustered_functions) {
      std::optional<NodeId> function = module_.find(name);
      if (function && graph_.kind(*function) == NodeKind::kFunction) {
        clustered_functions_.emplace(name, *function);
      }
    }
  }

  absl::StatusOr<std::string> write() {
    std::optional<NodeId> function = module_.find(options_.function);
    if (!function || graph_.kind(*function) != NodeKind::kFunction) {
      return make_error(absl::StatusCode::kNotFound, "dot.unknown_function",
                        fmt::format("@{}: no such function in the module", options_.function));
    }
    names_.assign(graph_.size(), std::string());
    cluster_of_.assign(graph_.size(), kNoCluster);
    for (std::size_t i = 0; i < options_.clusters.size(); ++i) {
      clusters_.push_back({options_.clusters[i].label, {}});
      for (NodeId node : options_.clusters[i].nodes) {
        if (graph_.contains(node) && cluster_of_[node.index()] == kNoCluster) {
          cluster_of_[node.index()] = static_cast<std::uint32_t>(i);
        }
      }
    }
    std::vector<NodeId> top = collect(graph_.operands(*function), {});
    const absl::flat_hash_map<NodeId, std::string> no_substitutes;  // the top level has none
    for (NodeId node : top) {
      draw(node, "", no_substitutes, cluster_of_[node.index()]);
      if (too_large_) {
        return make_error(absl::StatusCode::kResourceExhausted, "dot.too_large",
                          fmt::format("@{}: drawing each call of a function as a cluster of its "
                                      "body draws more than {} nodes again "
                                      "(DotOptions::max_redrawn_nodes)",
                                      options_.function, options_.max_redrawn_nodes));
      }
    }

    std::string out = fmt::format("digraph \"{}\" {{\n", dot_escape(options_.function));
    out +=
        "  graph [fontname=\"Helvetica\"];\n"
        "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];\n"
        "  edge [arrowsize=0.6];\n";
    for (const std::string& line : loose_) out += "  " + line + "\n";
    for (std::size_t i = 0; i < clusters_.size(); ++i) {
      if (clusters_[i].lines.empty()) continue;
      fmt::format_to(std::back_inserter(out),
                     "  subgraph cluster_{} {{\n    label=\"{}\";\n    style=\"rounded,filled\";\n"
                     "    fillcolor=\"{}\";\n",
                     i, dot_escape(clusters_[i].label), kPalette[i % kPalette.size()]);
      for (const std::string& line : clusters_[i].lines) out += "    " + line + "\n";
      out += "  }\n";
    }
    for (const std::string& edge : edges_) out += "  " + edge + "\n";
    out += "}\n";
    return out;
  }

 private:
  static constexpr std::uint32_t kNoCluster = NodeId::kNone;
  static constexpr std::array<std::string_view, 10> kPalette = {
      "#cfe2f3", "#f4cccc", "#d9ead3", "#fff2cc", "#d9d2e9",
      "#fce5cd", "#d0e0e3", "#ead1dc", "#e6e6e6", "#c9daf8"};

  struct Cluster {
    std::string label;
    std::vector<std::string> lines;
  };

  // The name of the partitioned function `function` stands for, or nullopt.
  std::optional<std::string_view> partition_name(NodeId function) const {
    if (graph_.kind(function) != NodeKind::kFunction) return std::nullopt;
    AttrValueId attrs = graph_.attrs(function);
    if (!attrs.valid() || context_.attrs.kind(attrs) != AttrKind::kObject) return std::nullopt;
    constexpr DialectConventions kConventions = dialect_conventions<D>();
    for (std::string_view key : {kConventions.composite_key, kConventions.partitioned_from_key}) {
      std::optional<AttrValueId> value = context_.attrs.find_field(attrs, key);
      if (value && context_.attrs.kind(*value) == AttrKind::kString) {
        return context_.attrs.text(*value);
      }
    }
    return std::nullopt;
  }

  // The function whose body a call of `callee` is drawn as, with the cluster's label: a
  // partitioned function literal, or a module function of options_.clustered_functions.
  std::optional<std::pair<NodeId, std::string_view>> clustered(NodeId callee) const {
    if (std::optional<std::string_view> name = partition_name(callee)) {
      return std::pair(callee, *name);
    }
    if (graph_.kind(callee) != NodeKind::kGlobalVar) return std::nullopt;
    auto found = clustered_functions_.find(graph_.name(callee));
    if (found == clustered_functions_.end()) return std::nullopt;
    return std::pair(found->second, found->first);
  }

  // A call drawn as the inlined body of a partitioned function.
  bool inlined(NodeId node, bool nested) const {
    return !nested && options_.cluster_partitioned_functions &&
           graph_.kind(node) == NodeKind::kCall && clustered(graph_.callee(node));
  }

  // Whether a call's callee is drawn as a node of its own (not an op, a global or a
  // partitioned function, which the call's label names).
  bool drawn_callee(NodeId call) const {
    NodeId callee = graph_.callee(call);
    return graph_.kind(callee) != NodeKind::kOp && graph_.kind(callee) != NodeKind::kGlobalVar &&
           !partition_name(callee);
  }

  // The operands a drawn `node` has edges from, and that collect walks on to: a call's
  // arguments when its callee is not drawn, none for a function literal.
  std::span<const NodeId> drawn_inputs(NodeId node) const {
    switch (graph_.kind(node)) {
      case NodeKind::kFunction:
        return {};
      case NodeKind::kCall:
        return drawn_callee(node) ? graph_.operands(node) : graph_.args(node);
      default:
        return graph_.operands(node);
    }
  }

  // The constant folded into a user's label when the user has `input` as an operand: the
  // input itself, or the constant argument an inlined body's parameter stands for.
  std::optional<NodeId> folded_constant(NodeId input) const {
    if (!options_.fold_constants) return std::nullopt;
    if (graph_.kind(input) == NodeKind::kConstant) return input;
    if (auto found = constant_params_.find(input); found != constant_params_.end()) {
      return found->second;
    }
    return std::nullopt;
  }

  // The nodes reachable from `starts` (ascending ids), stopping at `stops` (parameters of an
  // inlined body), at function literals and at the op or global a call calls.
  std::vector<NodeId> collect(std::span<const NodeId> starts, std::span<const NodeId> stops) {
    std::vector<NodeId> stack(starts.begin(), starts.end());
    std::vector<NodeId> found;
    seen_.clear();
    for (NodeId stop : stops) seen_.insert(stop);
    while (!stack.empty()) {
      NodeId node = stack.back();
      stack.pop_back();
      if (!seen_.insert(node).second) continue;
      found.push_back(node);
      for (NodeId input : drawn_inputs(node)) stack.push_back(input);
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  // Short tensor type text: `float32[1, 3, 224, 224]`; other types as Relay writes them.
  std::string short_type(TypeId type) const {
    if (!type.valid()) return {};
    const TypeTable& types = context_.types;
    if (types.kind(type) != TypeKind::kTensor) return to_string(context_, type);
    std::string out(context_.strings.view(types.get(type).name));
    out += '[';
    bool first = true;
    for (DimId dim : types.dims(type)) {
      if (!first) out += ", ";
      first = false;
      append_dim(out, context_, dim);
    }
    return out + ']';
  }

  std::string constant_text(NodeId node) const {
    const Tensor& tensor = graph_.tensor(node);
    return fmt::format("const {}[{}]", context_.strings.view(tensor.dtype),
                       fmt::join(tensor.shape, ", "));
  }

  // `name=value` of the non-default attributes, values cut to 24 characters, at most six,
  // two to a line.
  std::vector<std::string> attribute_lines(AttrValueId attrs) {
    std::vector<std::string> lines;
    if (!attrs.valid() || context_.attrs.kind(attrs) != AttrKind::kObject) return lines;
    std::vector<std::string> fields = attribute_texts_(attrs);
    constexpr std::size_t kMaxFields = 6, kMaxValue = 24, kPerLine = 2;
    for (std::size_t i = 0; i < fields.size() && i < kMaxFields; ++i) {
      std::string field = fields[i];
      std::size_t equals = field.find('=');
      if (equals != std::string::npos && field.size() - equals - 1 > kMaxValue) {
        field = field.substr(0, equals + 1 + kMaxValue - 3) + "...";
      }
      if (i % kPerLine == 0) {
        lines.push_back(field);
      } else {
        lines.back() += " " + field;
      }
    }
    if (fields.size() > kMaxFields) lines.back() += " ...";
    return lines;
  }

  std::string_view name_of(NodeId node, std::string_view prefix,
                           const absl::flat_hash_map<NodeId, std::string>& substitutes) {
    if (auto found = substitutes.find(node); found != substitutes.end()) return found->second;
    if (!prefix.empty()) {
      auto found = inner_names_.find(node);
      return found == inner_names_.end() ? std::string_view() : found->second;
    }
    return names_[node.index()];
  }

  // Draws `node` as DOT node `<prefix>n<id>` with edges from its drawn operands; `substitutes`
  // maps an inlined body's parameters (and inlined calls) to the names that stand for them.
  void draw(NodeId node, std::string_view prefix,
            const absl::flat_hash_map<NodeId, std::string>& substitutes, std::uint32_t cluster) {
    NodeKind kind = graph_.kind(node);
    if (kind == NodeKind::kConstant && options_.fold_constants) return;
    if (inlined(node, !prefix.empty())) {
      draw_inlined(node);
      return;
    }
    std::string name = fmt::format("{}n{}", prefix, node.index());
    if (prefix.empty()) {
      names_[node.index()] = name;
    } else {
      inner_names_[node] = name;
    }
    std::vector<std::string> lines;
    std::string shape;
    std::span<const NodeId> inputs = drawn_inputs(node);
    switch (kind) {
      case NodeKind::kVar:
        lines.emplace_back(graph_.name(node));
        if (graph_.annotation(node).valid()) lines.push_back(short_type(graph_.annotation(node)));
        shape = "ellipse";
        break;
      case NodeKind::kConstant:
        lines.push_back(constant_text(node));
        break;
      case NodeKind::kOp:
        lines.emplace_back(context_.op_name(graph_.op(node)));
        break;
      case NodeKind::kCall: {
        NodeId callee = graph_.callee(node);
        if (graph_.kind(callee) == NodeKind::kOp) {
          lines.emplace_back(context_.op_name(graph_.op(callee)));
        } else if (graph_.kind(callee) == NodeKind::kGlobalVar) {
          lines.push_back(fmt::format("@{}", graph_.name(callee)));
        } else {
          std::optional<std::string_view> partitioned = partition_name(callee);
          lines.push_back(partitioned ? fmt::format("call {}", *partitioned) : "call");
        }
        for (std::string& line : attribute_lines(graph_.attrs(node)))
          lines.push_back(std::move(line));
        break;
      }
      case NodeKind::kTuple:
        lines.emplace_back("tuple");
        break;
      case NodeKind::kTupleGetItem:
        lines.push_back(fmt::format("get {}", graph_.index(node)));
        break;
      case NodeKind::kFunction: {
        std::optional<std::string_view> partitioned = partition_name(node);
        lines.push_back(partitioned ? fmt::format("fn {}", *partitioned) : "fn");
        shape = "component";
        break;
      }
      case NodeKind::kLet:
        lines.emplace_back("let");
        break;
      case NodeKind::kIf:
        lines.emplace_back("if");
        shape = "diamond";
        break;
      case NodeKind::kGlobalVar:
        lines.push_back(fmt::format("@{}", graph_.name(node)));
        break;
    }
    // Folded constants: one line per distinct description, with a count when repeated.
    std::vector<std::pair<std::string, int>> folded;
    for (NodeId input : inputs) {
      std::optional<NodeId> constant = folded_constant(input);
      if (!constant) continue;
      std::string text = constant_text(*constant);
      auto same = std::find_if(folded.begin(), folded.end(),
                               [&](const auto& entry) { return entry.first == text; });
      if (same == folded.end()) {
        folded.emplace_back(std::move(text), 1);
      } else {
        ++same->second;
      }
    }
    for (const auto& [text, count] : folded) {
      lines.push_back(count == 1 ? text : fmt::format("{} x{}", text, count));
    }
    std::string label;
    for (const std::string& line : lines) {
      if (!label.empty()) label += "\\n";
      label += dot_escape(line);
    }
    std::string declaration =
        fmt::format("{} [label=\"{}\"{}];", name, label, shape.empty() ? "" : ", shape=" + shape);
    if (cluster == kNoCluster) {
      loose_.push_back(std::move(declaration));
    } else {
      clusters_[cluster].lines.push_back(std::move(declaration));
    }
    for (NodeId input : inputs) {
      if (folded_constant(input)) continue;
      std::string_view from = name_of(input, prefix, substitutes);
      if (!from.empty()) edges_.push_back(fmt::format("{} -> {};", from, name));
    }
  }

  // A call of a partitioned function: its body in a new cluster, parameters wired to the
  // call's arguments; later users of the call see the body's root.
  void draw_inlined(NodeId call) {
    auto [function, label] = *clustered(graph_.callee(call));
    auto params = graph_.params(function);
    auto args = graph_.args(call);
    auto cluster = static_cast<std::uint32_t>(clusters_.size());
    clusters_.push_back({std::string(label), {}});
    absl::flat_hash_map<NodeId, std::string> substitutes;
    constant_params_.clear();
    for (std::size_t i = 0; i < params.size() && i < args.size(); ++i) {
      substitutes[params[i]] = names_[args[i].index()];
      if (auto constant = folded_constant(args[i])) constant_params_[params[i]] = *constant;
    }
    std::string prefix = fmt::format("c{}_", call.index());
    inner_names_.clear();
    NodeId body = graph_.body(function);
    std::vector<NodeId> inner = collect(std::span(&body, 1), params);
    if (!drawn_bodies_.insert(function).second) {
      redrawn_ += inner.size();
      if (redrawn_ > options_.max_redrawn_nodes) {
        too_large_ = true;
        return;
      }
    }
    for (NodeId node : inner) {
      if (substitutes.contains(node)) continue;
      draw(node, prefix, substitutes, cluster);
    }
    names_[call.index()] = std::string(name_of(body, prefix, substitutes));
    constant_params_.clear();
  }

  const Module<D>& module_;
  const Graph<D>& graph_;
  Context& context_;
  const DotOptions& options_;
  // options_.clustered_functions that name functions of the module, resolved once (a picture
  // asks for each call).
  graphpat::detail::TextMap<NodeId> clustered_functions_;
  absl::flat_hash_set<NodeId> drawn_bodies_;  // functions whose body a cluster shows already
  std::size_t redrawn_ = 0;                   // nodes of bodies drawn again
  bool too_large_ = false;                    // redrawn_ passed options_.max_redrawn_nodes
  AttributeTexts attribute_texts_;
  std::vector<std::string> names_;  // DOT name of each drawn top-level node ("" if not drawn)
  absl::flat_hash_map<NodeId, std::string> inner_names_;  // of the body being inlined
  absl::flat_hash_map<NodeId, NodeId> constant_params_;   // of the body being inlined
  absl::flat_hash_set<NodeId> seen_;
  std::vector<std::uint32_t> cluster_of_;
  std::vector<Cluster> clusters_;
  std::vector<std::string> loose_;
  std::vector<std::string> edges_;
};

}  // namespace graphpat::detail

namespace graphpat::relay {

/// The function `options.function` of `module` as Graphviz DOT text.
inline absl::StatusOr<std::string> to_dot(const Module& module, const DotOptions& options = {}) {
  graphpat::detail::AttrSchemaCache& cache =
      graphpat::detail::AttrSchemaCache::of(module.graph.context());
  return graphpat::detail::DotWriter<Dialect>(
             module, options, [&cache](AttrValueId attrs) { return cache.field_texts(attrs); })
      .write();
}

}  // namespace graphpat::relay
