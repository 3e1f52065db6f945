// Module<Dialect>: global names mapped to functions, like Relay's IRModule. All functions live
// in one graph, so a call of `@f` from `@main` is a GlobalVar node of the same graph. Functions
// keep the order they were added in (a JSON file's order); type definitions (ADTs) and module
// attributes are carried through unchanged.
//
//   graphpat::relay::Module module;
//   graphpat::relay::Builder b(module.graph);
//   auto x = b.var("x");
//   module.add_function("main", b.function({x}, b.call("nn.relu", {x})));
//   graphpat::NodeId main = *module.find("main");
#pragma once

#include <absl/container/flat_hash_map.h>

#include <concepts>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/ir/graph.hpp"

namespace graphpat {

/// A type definition graphpat does not interpret (a Relay ADT), kept as written.
struct TypeDefinition {
  std::string name;  // "List"
  std::string text;  // the whole definition as it appeared in the input
};

/// One named function of a module.
struct GlobalFunction {
  StringId name;  // without the `@`
  NodeId function;
};

template <Dialect D>
class Module {
 public:
  Module() = default;
  explicit Module(Graph<D> graph) : graph(std::move(graph)) {}

  /// Adds `function` as `@name`, or replaces the function of that name (keeping its place).
  void add_function(std::string_view name, NodeId function) {
    StringId id = graph.context().strings.intern(name);
    auto [slot, inserted] = index_.try_emplace(id, functions_.size());
    if (inserted) {
      functions_.push_back({id, function});
    } else {
      functions_[slot->second].function = function;
    }
  }
  /// The function called `name`, if any.
  [[nodiscard]] std::optional<NodeId> find(std::string_view name) const {
    StringId id = graph.context().strings.find(name);
    auto found = id.valid() ? index_.find(id) : index_.end();
    if (found == index_.end()) return std::nullopt;
    return functions_[found->second].function;
  }
  /// The functions in the order they were added.
  [[nodiscard]] const std::vector<GlobalFunction>& functions() const { return functions_; }
  [[nodiscard]] std::string_view name(const GlobalFunction& function) const {
    return graph.context().strings.view(function.name);
  }
  /// The root of every function, in order (what analyses start from).
  /// The module a pass produced: `graph` holding this module's functions at the ids `map`
  /// gives, with this module's type definitions, attributes and metadata carried over.
  template <std::invocable<NodeId> NodeMap>
  [[nodiscard]] Module remapped(Graph<D> new_graph, NodeMap&& map) const {
    Module result(std::move(new_graph));
    for (const GlobalFunction& function : functions_) {
      result.add_function(name(function), map(function.function));
    }
    result.type_definitions = type_definitions;
    result.attrs = attrs;
    result.text_metadata = text_metadata;
    return result;
  }
  /// The module a pass produced that keeps every function in place: function k of this module
  /// is `new_roots[k]` of `new_graph` (new_roots in the order roots() gives).
  [[nodiscard]] Module remapped(Graph<D> new_graph, std::span<const NodeId> new_roots) const {
    std::size_t next = 0;  // remapped visits the functions in module order
    return remapped(std::move(new_graph), [&](NodeId) { return new_roots[next++]; });
  }
  [[nodiscard]] std::vector<NodeId> roots() const {
    std::vector<NodeId> result;
    result.reserve(functions_.size());
    for (const GlobalFunction& function : functions_) result.push_back(function.function);
    return result;
  }

  Graph<D> graph;
  std::vector<TypeDefinition> type_definitions;
  AttrValueId attrs;  // module attributes (an object value), or none
  /// The `#[metadata]` JSON of the Relay text the module was read from, verbatim. The object
  /// sharing TVM records in it (types, IntImms shared between constants) cannot be derived
  /// from the graph, so the text printer re-emits it while the module still references exactly
  /// the entries it lists, and writes a fresh section otherwise. Empty when not read from text.
  std::string text_metadata;

 private:
  std::vector<GlobalFunction> functions_;
  absl::flat_hash_map<StringId, std::size_t> index_;
};

}  // namespace graphpat
