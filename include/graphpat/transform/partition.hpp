// Partition: outline every accepted match of a pattern into a function literal called in its
// place, as Relay's `pattern.partition(expr, attrs, check)` does (docs/semantics.md §4).
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern bn0 = is_tuple_get_item(is_op("nn.batch_norm")(any_args), 0);
//   auto result = graphpat::partition(bn0, module, {.attrs = {{"Composite", "bn"}}});
//   fmt::print("{} groups, {} rejected\n", result.report.accepted, result.report.rejected.size());
//   auto tvm = graphpat::partition(bn0, module, {.relay_compat = true});   // TVM's 48, not 53
//
// Groups are found on the input graph, output side first (a downward scan of the ids); a group's
// parameters are its pattern's leaf bindings in pattern post-order, deduplicated by node and
// named `FunctionVar_<g>_<i>` (Relay's outlined_parameter_prefix: every name a partition writes
// is the dialect's, ir/conventions.hpp); constants are embedded iff bound by is_constant() or
// is_expr(constant). A group is rejected when one of its interior nodes already belongs to an
// earlier group (first claimant wins) or has a user outside the group that the group's root does
// not post-dominate (when it does, the interior is duplicated: the function computes its own copy,
// listed in `report.duplicated`, and the outside user keeps the original). Functions carrying
// `PartitionedFromPattern` are opaque. All of it is decided with the users index and the
// post-dominator tree: time linear in the graph plus the matched groups, no recursion.
//
// What is never outlined, whatever the pattern (so a partition always gives a graph verify()
// accepts): a match is a group only if a call can take its root's place. As in TVM v0.14
// (dataflow_matcher.cc), a root the pattern binds by a leaf (wildcard(), is_var(), is_expr of a
// variable, a wildcard under has_dtype) is its own input, and Relay's extractor then claims no
// node, so nothing is rewritten: `wildcard()` outlines only ops (`fn () { add }` called as the
// callee, TVM's output too), function literals and is_constant() constants, none of which is an
// input; a FunctionPattern at the top outlines nothing (TVM: "Partitioning a Function that
// isn't called doesn't make sense"). Where TVM makes an invalid graph, graphpat refuses: a Var is never a root (a pattern
// binding none, `~is_op('x')`, would otherwise put a call in a parameter list), nor is a
// module's definition (TVM's partition of mod["main"] by wildcard() returns a Call and its
// MergeComposite aborts in Downcast<Function>); these count in `report.not_outlined`. A group
// that would pass a variable bound inside it (by a function or let it contains) out of its
// scope is refused as `escaping_variable` (TVM outlines is_let(wildcard(), wildcard(),
// wildcard()) with the let's variable as an argument of the call, outside its let).
//
// Modes (docs/semantics.md §1): by default partition uses graphpat's matcher rules, first
// merges duplicated pure nodes (eliminate_common_subexpr), so two `%20.0` on one batch_norm are
// one node and the batch_norm is partitioned (the origin bug, apache/tvm#5928), and refuses a
// group whose function would compute a stateful call (nn.dropout) a second time, which TVM
// accepts (`duplicates_stateful`: two dropouts draw two masks). Each of the three is an option
// of its own (`match`, `merge_duplicates_first`, `refuse_stateful_copies`); `relay_compat` is
// the preset that sets all three as TVM v0.14 does, reproducing TVM exactly, and a field set
// beside it overrides it:
//
//   auto tvm_after_cse = graphpat::partition(bn0, module, {.relay_compat = true,
//                                                         .merge_duplicates_first = true});
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/analysis/compact.hpp"
#include "graphpat/analysis/reachability.hpp"
#include "graphpat/ir/builder.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/transform/cse.hpp"
#include "graphpat/transform/partition/describe.hpp"
#include "graphpat/transform/partition/grouper.hpp"
#include "graphpat/transform/partition/report.hpp"
#include "graphpat/transform/partition_interface.hpp"

namespace graphpat {

namespace detail {

/// The matcher's rules `options` ask for (PartitionOptions, MergeCompositeOptions,
/// RewriteOptions): its `match`, or the `relay_compat` preset's.
template <class Options>
MatchOptions match_rules(const Options& options) {
  return options.match.value_or(MatchOptions{.relay_compat = options.relay_compat});
}

/// Whether `options` ask to merge duplicated nodes before the pass: their
/// `merge_duplicates_first`, or the `relay_compat` preset's.
template <class Options>
bool merges_duplicates_first(const Options& options) {
  return options.merge_duplicates_first.value_or(!options.relay_compat);
}

/// Whether `options` ask to refuse groups computing a stateful call twice: their
/// `refuse_stateful_copies`, or the `relay_compat` preset's.
template <class Options>
bool refuses_stateful_copies(const Options& options) {
  return options.refuse_stateful_copies.value_or(!options.relay_compat);
}

/// What eliminate_common_subexpr makes of a pass's input, `(module)` or `(graph, root)`, when
/// `options` merge duplicates first; nullopt when the pass runs on the input itself, which is
/// then not copied.
template <class Options, class... Input>
auto merged_input(const Options& options, const Input&... input)
    -> std::optional<decltype(eliminate_common_subexpr(input...))> {
  if (!merges_duplicates_first(options)) return std::nullopt;
  return eliminate_common_subexpr(input...);
}

/// The origins of a pass that changed nothing: every node stands for itself.
inline std::vector<NodeId> identity_origins(std::uint32_t size) {
  std::vector<NodeId> origins(size);
  for (std::uint32_t k = 0; k < size; ++k) origins[k] = NodeId(k);
  return origins;
}

/// Inverts a pass's `old_to_new` (CseResult's): for each of its `size` output nodes, the first
/// input node, in id order, mapped to it (invalid for none).
inline std::vector<NodeId> first_origins(const std::vector<NodeId>& old_to_new,
                                         std::uint32_t size) {
  std::vector<NodeId> origins(size);
  for (std::uint32_t k = 0; k < old_to_new.size(); ++k) {
    NodeId made = old_to_new[k];
    if (made.valid() && !origins[made.index()].valid()) origins[made.index()] = NodeId(k);
  }
  return origins;
}

/// Origins through two passes: `later` maps the second pass's output to its input, whose
/// nodes `earlier` maps to the first pass's input.
inline std::vector<NodeId> compose_origins(const std::vector<NodeId>& earlier,
                                           std::vector<NodeId> later) {
  for (NodeId& origin : later) {
    if (origin.valid()) origin = earlier[origin.index()];
  }
  return later;
}

/// Restates the report's lines from `rejected_from` and `duplicated_from` on: their ids become
/// those of the input `origins` maps them to, and their entry `entry`.
inline void restate_lines(PartitionReport& report, std::size_t rejected_from,
                          std::size_t duplicated_from, const std::vector<NodeId>& origins,
                          std::uint32_t entry) {
  auto origin = [&](NodeId id) { return id.valid() ? origins[id.index()] : id; };
  for (std::size_t k = rejected_from; k < report.rejected.size(); ++k) {
    RejectedGroup& line = report.rejected[k];
    line = {origin(line.root), line.reason, origin(line.node), origin(line.user), entry};
  }
  for (std::size_t k = duplicated_from; k < report.duplicated.size(); ++k) {
    DuplicatedInterior& line = report.duplicated[k];
    line = {origin(line.root), origin(line.node), origin(line.user), entry};
  }
}

/// The function attributes of a group, an object of the dialect's outlined_function_attrs_type:
/// its partitioned_from_key, then the user's.
template <Dialect D>
AttrValueId partition_attrs(Graph<D>& graph, const std::string& name,
                            const PartitionOptions<D>& options) {
  constexpr DialectConventions kConventions = dialect_conventions<D>();
  AttrTable& attrs = graph.context().attrs;
  StringPool& strings = graph.context().strings;
  std::vector<AttrField> fields;
  fields.push_back({strings.intern(kConventions.partitioned_from_key), attrs.string(name)});
  for (const auto& [key, value] : options.attrs) {
    fields.push_back({strings.intern(key), attrs.string(value)});
  }
  return attrs.object(kConventions.outlined_function_attrs_type, fields);
}

/// The order outline_groups builds the nodes in, and what a use waits for. Without
/// multi-output groups it is id order (`nodes` empty): every node reads lower ids. A group with
/// outputs is built in one step at its root (the call, then the items its outside users read),
/// which may have to precede nodes of lower id than that root: `nodes` is then an order in
/// which such a group is one node, as close to id order as the uses allow.
struct BuildOrder {
  std::vector<std::uint32_t> nodes;
  std::vector<NodeId> output_root;  // per node: the root of the multi-output group returning it
  std::vector<NodeId> member_of;    // per node: the root of the multi-output group holding it

  /// What `user`'s use of `operand` waits for: the root of the group that returns `operand`,
  /// when the user is outside that group; `operand` itself otherwise.
  [[nodiscard]] NodeId source(NodeId user, NodeId operand) const {
    if (output_root.empty()) return operand;
    NodeId root = output_root[operand.index()];
    return root.valid() && member_of[user.index()] != root ? root : operand;
  }
};

/// The build order of the live nodes of `graph` with the `outlined` groups, some of which have
/// outputs (called only then: without such groups the order is id order). A multi-output group
/// that closes a cycle with others (its output is read, through other such groups, by its own
/// inputs) is refused (`used_outside`) and taken out of `outlined`; so is every multi-output
/// group that waits on such a cycle, which each group's own check (the grouper's) cannot see.
template <Dialect D>
BuildOrder build_order(const Graph<D>& graph, const std::vector<bool>& live,
                       std::vector<const PartitionGroup*>& outlined, PartitionReport& report) {
  BuildOrder order;
  const std::uint32_t n = graph.size();
  std::vector<std::uint32_t> pending(n);
  std::vector<std::uint32_t> first_dependent(n + 1);
  std::vector<std::uint32_t> dependents;
  std::vector<std::uint32_t> ready;
  std::vector<bool> emitted(n);
  while (true) {
    order.output_root.assign(n, NodeId());
    order.member_of.assign(n, NodeId());
    for (const PartitionGroup* group : outlined) {
      if (group == nullptr || group->outputs.empty()) continue;
      for (NodeId node : group->body) order.member_of[node.index()] = group->root;
      for (NodeId node : group->outputs) order.output_root[node.index()] = group->root;
    }
    // What each live node waits for: its operands (or the group returning them), and a
    // multi-output group's root its whole body.
    auto for_each_dependency = [&](std::uint32_t i, auto&& visit) {
      const PartitionGroup* group = outlined[i];
      if (group != nullptr && !group->outputs.empty()) {
        for (NodeId node : group->body) {
          if (node.index() != i) visit(node.index());
        }
      }
      for (NodeId operand : graph.operands(NodeId(i))) {
        visit(order.source(NodeId(i), operand).index());
      }
    };
    std::fill(pending.begin(), pending.end(), 0);
    std::fill(first_dependent.begin(), first_dependent.end(), 0);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!live[i]) continue;
      for_each_dependency(i, [&](std::uint32_t dependency) {
        ++pending[i];
        ++first_dependent[dependency + 1];
      });
    }
    for (std::uint32_t i = 0; i < n; ++i) first_dependent[i + 1] += first_dependent[i];
    dependents.resize(first_dependent[n]);
    std::vector<std::uint32_t> next(first_dependent.begin(), first_dependent.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!live[i]) continue;
      for_each_dependency(i, [&](std::uint32_t dependency) { dependents[next[dependency]++] = i; });
    }
    // Id order, except that a node whose turn has come before what it waits for follows it.
    order.nodes.clear();
    std::fill(emitted.begin(), emitted.end(), false);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!live[i] || pending[i] != 0) continue;
      ready.push_back(i);
      while (!ready.empty()) {
        std::uint32_t node = ready.back();
        ready.pop_back();
        emitted[node] = true;
        order.nodes.push_back(node);
        for (std::uint32_t k = first_dependent[node]; k < first_dependent[node + 1]; ++k) {
          if (--pending[dependents[k]] == 0 && dependents[k] < i) ready.push_back(dependents[k]);
        }
      }
    }
    bool refused = false;
    for (std::uint32_t i = 0; i < n; ++i) {
      const PartitionGroup* group = outlined[i];
      if (group == nullptr || group->outputs.empty() || emitted[i]) continue;
      report.rejected.push_back({group->root, RejectionReason::kUsedOutside, group->output_node,
                                 group->output_user});
      outlined[i] = nullptr;
      refused = true;
    }
    if (!refused) return order;
  }
}

/// The names of outlined parameters, `<prefix><g>_<i>` (FunctionVar_0_1), kept with a context
/// (Context::derived): every partition of a context names the same few per group, and each is
/// formatted and interned once. Kept for the first kPositions positions of a group, in one
/// array per position indexed by group (4 bytes a name; the numbers of a partition's groups are
/// dense); a later position is interned at each use.
class OutlinedParameterNames {
 public:
  static constexpr std::uint32_t kPositions = 8;

  explicit OutlinedParameterNames(Context& context) : context_(context) {}

  /// The name of parameter `position` of group `group`; `prefix` is the context's dialect's
  /// outlined_parameter_prefix (one per context).
  StringId name(std::string_view prefix, std::uint32_t group, std::uint32_t position) {
    if (position >= kPositions) return intern(prefix, group, position);
    std::vector<StringId>& by_group = names_[position];
    if (group >= by_group.size()) by_group.resize(std::size_t{group} + 1);
    StringId& known = by_group[group];
    if (!known.valid()) known = intern(prefix, group, position);
    return known;
  }

 private:
  StringId intern(std::string_view prefix, std::uint32_t group, std::uint32_t position) {
    fmt::format_int number(group), index(position);
    text_.assign(prefix).append(number.data(), number.size()) += '_';
    text_.append(index.data(), index.size());
    return context_.strings.intern(text_);
  }

  Context& context_;
  std::array<std::vector<StringId>, kPositions> names_;  // by position, then group
  std::string text_;
};

/// The same graph, the same roots: what a partition that outlines nothing returns (nullopt, and
/// `new_roots` and `origins` as for the graph itself), which spares a copy of the graph to a
/// caller that owns it.
inline std::nullopt_t unchanged_graph(std::span<const NodeId> roots, std::uint32_t size,
                                      std::vector<NodeId>& new_roots,
                                      std::vector<NodeId>* origins) {
  new_roots.assign(roots.begin(), roots.end());
  if (origins != nullptr) *origins = identity_origins(size);
  return std::nullopt;
}

/// What a partition hands back: the graph or module it made, else the input it owns (the
/// default mode's CSE output, `merged`: moved, not copied), else a copy of the caller's `input`.
template <class Output>
Output partition_output(std::optional<Output>&& partitioned, Output* merged, const Output& input) {
  if (partitioned) return std::move(*partitioned);
  if (merged != nullptr) return std::move(*merged);
  return input;
}

/// Outlines `groups` (found on `graph`, output side first) into functions called in their
/// place, under `roots`, whose ids in the result `new_roots` receives; `live` marks the nodes
/// the roots reach. Reports what it outlines and refuses; `origins` as in partition_graph.
/// Nullopt when no group is outlined (unchanged_graph).
template <Dialect D>
std::optional<Graph<D>> outline_groups(const Graph<D>& graph, std::span<const NodeId> roots,
                                       const std::vector<bool>& live,
                                       std::vector<PartitionGroup>& groups,
                                       const PartitionOptions<D>& options,
                                       std::vector<NodeId>& new_roots, PartitionReport& report,
                                       std::vector<NodeId>* origins) {
  // Which groups are outlined, by root: a check that sees the input graph decides here, in id
  // order (the groups come output side first). One that sees the function's body can run only
  // once the body is built: then every live node is copied and what outlining left dead is
  // dropped afterwards (compact).
  const bool checks_built_body = options.check && options.check_sees_group_only;
  std::vector<const PartitionGroup*> outlined(graph.size(), nullptr);
  bool multi_output = false;
  for (auto group = groups.rbegin(); group != groups.rend(); ++group) {
    if (options.check && !options.check_sees_group_only && !options.check(graph, group->root)) {
      report.rejected.push_back({group->root, RejectionReason::kCheckFailed, {}, {}});
    } else {
      outlined[group->root.index()] = &*group;
      multi_output = multi_output || !group->outputs.empty();
    }
  }
  const BuildOrder order =
      multi_output ? build_order(graph, live, outlined, report) : BuildOrder{};
  const std::uint32_t steps = order.nodes.empty() ? graph.size()
                                                  : static_cast<std::uint32_t>(order.nodes.size());
  auto node_at = [&](std::uint32_t step) {  // the node built at `step`
    return order.nodes.empty() ? step : order.nodes[step];
  };

  // What the result keeps, so that only that is built: `keep_value[x]`, whether what x becomes
  // is used (its copy, or for an outlined root the call of its function); `keep_copy[x]`, whether
  // x's own copy is (for an outlined root only when its body is that copy: a group without
  // inputs). Everything is built after what it reads, so one pass from the last node back
  // decides. The rest is the groups' interiors, which their functions' bodies replace.
  std::vector<std::uint8_t> keep_value(graph.size(), 0);  // bytes: read and set per node
  if (checks_built_body) std::copy(live.begin(), live.end(), keep_value.begin());
  std::vector<std::uint8_t> keep_copy = keep_value;
  if (!checks_built_body) {
    for (NodeId root : roots) keep_value[root.index()] = true;
    absl::flat_hash_set<NodeId> reads_param;  // a group's inputs and the body nodes above them
    for (std::uint32_t step = steps; step-- > 0;) {
      const std::uint32_t i = node_at(step);
      if (!keep_value[i]) continue;
      const PartitionGroup* group = outlined[i];
      if (group == nullptr) {
        keep_copy[i] = true;
        for (NodeId operand : graph.operands(NodeId(i))) {
          keep_value[order.source(NodeId(i), operand).index()] = true;
        }
        continue;
      }
      reads_param.clear();
      reads_param.insert(group->inputs.begin(), group->inputs.end());
      for (NodeId input : group->inputs) {
        keep_value[order.source(group->root, input).index()] = true;
      }
      for (NodeId node : group->body) {
        auto node_operands = graph.operands(node);
        if (std::none_of(node_operands.begin(), node_operands.end(),
                         [&](NodeId operand) { return reads_param.contains(operand); })) {
          // Unchanged: the body shares the node's copy outside.
          if (node.index() == i) {
            keep_copy[i] = true;
            for (NodeId operand : node_operands) keep_value[operand.index()] = true;
          } else {
            keep_value[node.index()] = true;
          }
          continue;
        }
        reads_param.insert(node);
        for (NodeId operand : node_operands) {
          if (!reads_param.contains(operand)) keep_value[operand.index()] = true;
        }
      }
    }
  }

  Graph<D> out(graph.shared_context());
  out.reserve(graph.size(), graph.operand_count());  // about the input's: no table growth
  Builder<D> builder(out);
  std::vector<NodeId> map(graph.size());
  std::vector<NodeId> operands;
  // A group's body: per input node, its copy (invalid: none); `inner_set` lists what is set.
  std::vector<NodeId> inner(graph.size());
  std::vector<NodeId> inner_set;
  auto set_inner = [&](NodeId node, NodeId copy) {
    inner[node.index()] = copy;
    inner_set.push_back(node);
  };
  std::vector<NodeId> params;                 // a group's function parameters
  std::vector<NodeId> args;                   // and its call's arguments
  OutlinedParameterNames& param_names = out.context().template derived<OutlinedParameterNames>();
  std::string function_attrs_name;  // the group name `function_attrs` was made for
  AttrValueId function_attrs;
  std::vector<NodeId> out_origins;  // RejectedGroup's rule, per node of `out`: for `origins` only
  if (origins != nullptr) out_origins.reserve(graph.size());
  auto stands_for = [&](NodeId made, NodeId input) {
    if (origins == nullptr) return;
    if (made.index() >= out_origins.size()) out_origins.resize(made.index() + 1);
    if (!out_origins[made.index()].valid()) out_origins[made.index()] = input;
  };
  std::uint32_t accepted = 0;
  std::vector<NodeId> fields;  // a multi-output group's body: the root and its outputs
  for (std::uint32_t step = 0; step < steps; ++step) {
    const std::uint32_t i = node_at(step);
    if (!live[i]) continue;
    NodeId id(i);
    if (keep_copy[i]) {
      map[i] = builder.copy_mapped(graph, id, map);
      stands_for(map[i], id);
    }
    const PartitionGroup* outlined_root = outlined[i];
    if (outlined_root == nullptr) continue;
    const PartitionGroup& group = *outlined_root;
    if (!keep_value[i]) {  // outlined, but nothing uses the call: nothing to build
      report.duplicated.insert(report.duplicated.end(), group.duplicated.begin(),
                               group.duplicated.end());
      ++accepted;
      continue;
    }
    // The body: unchanged subexpressions are the outside nodes themselves (Relay's mutator
    // returns the same object), the rest are copies reading the parameters.
    for (NodeId node : inner_set) inner[node.index()] = NodeId();
    inner_set.clear();
    params.clear();
    args.clear();
    auto add_param = [&](NodeId input) {
      params.push_back(
          builder.var(param_names.name(dialect_conventions<D>().outlined_parameter_prefix,
                                       group.number, static_cast<std::uint32_t>(params.size()))));
      args.push_back(map[input.index()]);
      stands_for(params.back(), input);
      return params.back();
    };
    // With separate_duplicate_inputs, one parameter per use of an input (body order), grouped
    // by input in parameter order; otherwise one per input.
    absl::flat_hash_map<std::pair<NodeId, std::uint32_t>, NodeId> use_param;
    if (options.separate_duplicate_inputs) {
      absl::flat_hash_map<NodeId, std::vector<std::pair<NodeId, std::uint32_t>>> uses;
      for (NodeId input : group.inputs) uses[input];
      for (NodeId node : group.body) {
        auto node_operands = graph.operands(node);
        for (std::uint32_t slot = 0; slot < node_operands.size(); ++slot) {
          auto found = uses.find(node_operands[slot]);
          if (found != uses.end()) found->second.emplace_back(node, slot);
        }
      }
      for (NodeId input : group.inputs) {
        for (const auto& use : uses.at(input)) use_param.emplace(use, add_param(input));
      }
    } else {
      for (NodeId input : group.inputs) set_inner(input, add_param(input));
    }
    for (NodeId node : group.body) {
      operands.clear();
      bool changed = false;
      auto node_operands = graph.operands(node);
      for (std::uint32_t slot = 0; slot < node_operands.size(); ++slot) {
        NodeId operand = node_operands[slot];
        NodeId copy = inner[operand.index()];
        NodeId mapped = copy.valid() ? copy : map[operand.index()];
        if (auto param = use_param.find({node, slot}); param != use_param.end()) {
          mapped = param->second;
        }
        changed |= mapped != map[operand.index()];
        operands.push_back(mapped);
      }
      set_inner(node, changed ? builder.copy(graph, node, operands) : map[node.index()]);
      stands_for(inner[node.index()], node);
    }
    NodeId body = inner[id.index()];
    if (options.check && options.check_sees_group_only && !options.check(out, body)) {
      report.rejected.push_back({id, RejectionReason::kCheckFailed, {}, {}});
      continue;
    }
    if (!group.outputs.empty()) {
      fields.clear();
      for (NodeId output : group.outputs) fields.push_back(inner[output.index()]);
      body = builder.tuple(fields);
    }
    if (!function_attrs.valid() || group.name != function_attrs_name) {
      function_attrs_name = group.name;
      function_attrs = partition_attrs(out, group.name, options);
    }
    NodeId function = builder.function(params, body, {.attrs = function_attrs});
    map[i] = builder.call(function, args);
    stands_for(function, id);
    stands_for(map[i], id);
    if (!group.outputs.empty()) {  // every use reads its item of the call
      NodeId call = map[i];
      for (std::uint32_t k = 0; k < group.outputs.size(); ++k) {
        NodeId output = group.outputs[k];
        map[output.index()] = builder.tuple_get_item(call, k);
        stands_for(map[output.index()], output);
      }
      report.outputs += static_cast<std::uint32_t>(group.outputs.size() - 1);
    }
    report.duplicated.insert(report.duplicated.end(), group.duplicated.begin(),
                             group.duplicated.end());
    ++accepted;
  }
  report.accepted += accepted;
  new_roots.clear();
  for (NodeId root : roots) new_roots.push_back(map[root.index()]);
  if (accepted == 0) return unchanged_graph(roots, graph.size(), new_roots, origins);
  if (!checks_built_body) {
    if (origins != nullptr) {
      out_origins.resize(out.size());
      *origins = std::move(out_origins);
    }
    return out;
  }
  Compacted<D> compacted = compact(out, new_roots);
  for (NodeId& root : new_roots) root = compacted.map(root);
  if (origins != nullptr) {
    origins->assign(compacted.graph.size(), NodeId());
    for (std::uint32_t k = 0; k < out_origins.size(); ++k) {
      NodeId kept = compacted.map(NodeId(k));
      if (kept.valid()) (*origins)[kept.index()] = out_origins[k];
    }
  }
  return std::move(compacted.graph);
}

/// Partitions the expressions at `roots` of `graph` (no CSE), except those `opaque_roots` marks,
/// which are only carried over. `new_roots` receives their ids in the result graph; nullopt
/// when nothing is outlined (unchanged_graph).
template <Dialect D>
std::optional<Graph<D>> partition_graph(const Pattern& pattern, const Graph<D>& graph,
                                        std::span<const NodeId> roots,
                                        const PartitionOptions<D>& options,
                                        std::vector<NodeId>& new_roots, PartitionReport& report,
                                        const std::vector<bool>* opaque_roots = nullptr,
                                        bool roots_are_definitions = false,
                                        std::vector<NodeId>* origins = nullptr) {
  auto unchanged = [&] { return unchanged_graph(roots, graph.size(), new_roots, origins); };
  // Relay's partitioner returns its input for a FunctionPattern at the top ("Partitioning a
  // Function that isn't called doesn't make sense"); one that is called is matched by a call of
  // it, FunctionPattern(...)(args).
  if (pattern.kind() == PatternKind::kFunction) return unchanged();
  PartitionGrouper<D> grouper(pattern, graph, roots,
                              {.match = match_rules(options),
                               .refuse_stateful_copies = refuses_stateful_copies(options),
                               .roots_are_definitions = roots_are_definitions,
                               .outline_outside_uses = options.outline_outside_uses},
                              opaque_roots);
  std::vector<PartitionGroup> groups = grouper.run(report);
  if (groups.empty()) return unchanged();
  return outline_groups(graph, roots, grouper.live(), groups, options, new_roots, report,
                        origins);
}

/// Partitions the functions of `module` (no CSE), except those `opaque_roots` marks (one flag
/// per function, in module order; may be null). `origins`, when given, receives for each node
/// of the result the node of `module` it stands for (RejectedGroup's rule). Nullopt when
/// nothing is outlined: the result is `module` itself.
template <Dialect D>
std::optional<Module<D>> partition_module(const Pattern& pattern, const Module<D>& module,
                                          const PartitionOptions<D>& options,
                                          PartitionReport& report,
                                          const std::vector<bool>* opaque_roots = nullptr,
                                          std::vector<NodeId>* origins = nullptr) {
  std::vector<NodeId> roots = module.roots();
  std::vector<NodeId> new_roots;
  std::optional<Graph<D>> graph =
      partition_graph(pattern, module.graph, roots, options, new_roots, report, opaque_roots,
                      /*roots_are_definitions=*/true, origins);
  if (!graph) return std::nullopt;
  return module.remapped(std::move(*graph), new_roots);
}

}  // namespace detail

template <Dialect D>
PartitionedExpression<D> partition(const Pattern& pattern, const Graph<D>& graph, NodeId root,
                                   const PartitionOptions<D>& options) {
  std::optional<CseFunctionResult<D>> merged = detail::merged_input(options, graph, root);
  PartitionedExpression<D> result{Graph<D>(graph.shared_context()), root, {}};
  if (merged) result.report.cse = std::move(merged->report);
  NodeId input_root = merged ? merged->root : root;
  std::vector<NodeId> roots;
  std::optional<Graph<D>> partitioned =
      detail::partition_graph(pattern, merged ? merged->graph : graph, std::span(&input_root, 1),
                              options, roots, result.report);
  result.root = roots.front();
  if (merged) {
    detail::restate_lines(result.report, 0, 0,
                          detail::first_origins(merged->old_to_new, merged->graph.size()), 0);
  }
  result.graph =
      detail::partition_output(std::move(partitioned), merged ? &merged->graph : nullptr, graph);
  return result;
}

template <Dialect D>
PartitionResult<D> partition(const Pattern& pattern, const Module<D>& module,
                             const PartitionOptions<D>& options) {
  std::optional<CseResult<D>> merged = detail::merged_input(options, module);
  PartitionReport report;
  if (merged) report.cse = std::move(merged->report);
  std::optional<Module<D>> partitioned =
      detail::partition_module(pattern, merged ? merged->module : module, options, report);
  if (merged) {
    detail::restate_lines(
        report, 0, 0, detail::first_origins(merged->old_to_new, merged->module.graph.size()), 0);
  }
  return {
      detail::partition_output(std::move(partitioned), merged ? &merged->module : nullptr, module),
      std::move(report)};
}

}  // namespace graphpat
