// Test support: random patterns, as pattern text (TVM's Python DPL spelling, what parse_pattern
// reads), drawn from a grammar of the whole pattern language: wildcard, is_var, is_constant,
// is_op(name)(args) with the names and arities of a module's calls, alternation, `&`, `~`,
// optional, has_attr / has_type / has_dtype / has_shape, tuples, tuple_get_item, dominates,
// FunctionPattern, names bound twice (one node used twice) and recursive patterns written with
// redirect_to, among them cycles that consume no node (issue 21 class 3: `w.redirect_to(w)`,
// `a -> b -> a`), which parse_pattern must refuse or the matcher must end on.
// Shared by tests/fuzz/fuzz_pattern_graph.cpp (choices from the fuzzer's bytes) and
// tests/robustness/test_pattern_properties.cpp (choices from a seeded engine).
//
//   graphpat::testing::PatternVocabulary words = graphpat::testing::PatternVocabulary::of(module);
//   std::mt19937 engine(1);
//   auto choose = [&](std::size_t n) { return std::size_t(engine() % n); };
//   graphpat::testing::RandomPattern p = graphpat::testing::random_pattern(words, choose);
//   absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(p.text);
//
// `choose(n)` returns a number in [0, n); choice 0 is always the smallest option (a leaf, no
// more decoration), so a source that runs dry (a fuzzer's bytes) ends the pattern early.
#pragma once

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <graphpat/relay/dialect.hpp>

namespace graphpat::testing {

/// What the patterns are made of: the calls, variables and tensor types of a module.
struct PatternVocabulary {
  std::vector<std::pair<std::string, std::size_t>> calls;  // op name, an arity it is called with
  std::vector<std::string> vars;                           // var name hints
  std::vector<std::string> dtypes{"float32", "int32"};
  std::vector<std::vector<std::int64_t>> shapes{{1}};      // tensor shapes of known extents

  static PatternVocabulary of(const relay::Module& module) {
    PatternVocabulary words;
    const relay::Graph& graph = module.graph;
    const Context& context = graph.context();
    const TypeTable& types = context.types;
    absl::flat_hash_set<std::pair<std::string, std::size_t>> calls;
    absl::flat_hash_set<std::string> vars, dtypes{"float32", "int32"};
    absl::flat_hash_set<std::vector<std::int64_t>> shapes{{1}};
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      NodeId id(i);
      if (graph.kind(id) == NodeKind::kCall && graph.called_op(id).valid()) {
        auto call = std::pair(std::string(context.ops.name(graph.called_op(id))),
                              graph.args(id).size());
        if (calls.insert(call).second) words.calls.push_back(call);
      } else if (graph.kind(id) == NodeKind::kVar && !graph.name(id).empty()) {
        if (vars.insert(std::string(graph.name(id))).second) words.vars.emplace_back(graph.name(id));
      }
      TypeId type = graph.type(id);
      if (!type.valid() || types.kind(type) != TypeKind::kTensor) continue;
      std::string dtype(types.strings().view(types.get(type).name));
      if (dtypes.insert(dtype).second) words.dtypes.push_back(dtype);
      std::vector<std::int64_t> shape;
      bool known = true;
      for (DimId dim : types.dims(type)) {
        known &= types.get_dim(dim).kind == Dim::Kind::kInt;
        shape.push_back(types.get_dim(dim).value);
      }
      if (known && shapes.insert(shape).second) words.shapes.push_back(shape);
    }
    if (words.calls.empty()) words.calls.emplace_back("add", 2);
    // Sorted, so that a seed draws the same patterns whatever the hash sets' order.
    std::sort(words.calls.begin(), words.calls.end());
    std::sort(words.vars.begin(), words.vars.end());
    std::sort(words.dtypes.begin(), words.dtypes.end());
    std::sort(words.shapes.begin(), words.shapes.end());
    return words;
  }
};

/// A drawn pattern.
struct RandomPattern {
  std::string text;
  /// Whether the text holds a redirect cycle along which matching stays on one node (through
  /// `|`, `&`, `~`, predicates, a dominator's child or another redirect): parse_pattern may
  /// refuse it; if it accepts it, every pass must still end.
  bool consumes_no_node = false;
};

namespace detail {

template <class Choose>
class PatternDrawer {
 public:
  PatternDrawer(const PatternVocabulary& words, Choose& choose, int max_depth)
      : words_(words), choose_(choose), max_depth_(max_depth) {}

  RandomPattern draw() {
    RandomPattern result;
    std::string last;
    switch (pick(8)) {
      case 1:  // a recursive pattern whose cycle goes through a call, a tuple or a projection
        last = recursive(false);
        break;
      case 2:  // a cycle that consumes no node
        last = recursive(true);
        result.consumes_no_node = true;
        break;
      case 3:  // a named node used twice (identity binding: both uses are one node)
        lines_ += fmt::format("s = {}\n", pattern(1));
        shared_ = true;
        last = pattern(0);
        break;
      default:
        last = pattern(0);
        break;
    }
    result.text = lines_ + last;
    return result;
  }

 private:
  std::size_t pick(std::size_t n) { return n <= 1 ? 0 : static_cast<std::size_t>(choose_(n)) % n; }
  template <class T>
  const T& pick_of(const std::vector<T>& items) {
    return items[pick(items.size())];
  }
  static std::string quoted(std::string_view text) {
    std::string out = "'";
    for (char c : text) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    return out + "'";
  }

  std::string leaf() {
    switch (pick(7)) {
      case 1:
        return "is_var()";
      case 2:
        return words_.vars.empty() ? "is_var()" : fmt::format("is_var({})", quoted(pick_of(words_.vars)));
      case 3:
        return "is_constant()";
      case 4:
        if (shared_) return "s";
        [[fallthrough]];
      case 5:
        if (!recursive_name_.empty() && consumed_ > 0) return recursive_name_;
        [[fallthrough]];
      default:
        return "wildcard()";
    }
  }

  std::string shape_text(const std::vector<std::int64_t>& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", shape[i]);
    return out + "]";
  }

  std::string type_text() {
    const std::vector<std::int64_t>& shape = pick_of(words_.shapes);
    std::string dims;
    for (std::size_t i = 0; i < shape.size(); ++i) dims += fmt::format("{}{}", i ? ", " : "", shape[i]);
    if (shape.size() == 1) dims += ",";
    return fmt::format("'Tensor[({}), {}]'", dims, pick_of(words_.dtypes));
  }

  std::string attrs_text() {
    static constexpr std::string_view kAttrs[] = {
        "{'data_layout': 'NCHW'}", "{'kernel_size': [3, 3]}", "{'strides': [2, 2]}",
        "{'axis': 1}",             "{'epsilon': 1e-05}",       "{'units': None}",
        "{'TOpPattern': 0}",       "{'groups': 1}",            "{'padding': [1, 1, 1, 1]}"};
    return std::string(kAttrs[pick(std::size(kAttrs))]);
  }

  // The arguments of a call of arity `arity` (sometimes the wrong arity, or None).
  std::string args(std::size_t arity, int depth) {
    switch (pick(6)) {
      case 1:
        return "None";
      case 2:
        arity = pick(4);
        break;
      default:
        break;
    }
    ++consumed_;
    std::string out;
    for (std::size_t i = 0; i < arity; ++i) out += (i ? ", " : "") + pattern(depth + 1);
    --consumed_;
    return out;
  }

  std::string call(int depth) {
    const auto& [op, arity] = pick_of(words_.calls);
    switch (pick(6)) {
      case 1: {  // an alternation of ops as the callee
        const auto& other = pick_of(words_.calls).first;
        return fmt::format("(is_op({}) | is_op({}))({})", quoted(op), quoted(other), args(arity, depth));
      }
      case 2:  // any callee
        return fmt::format("wildcard()({})", args(arity, depth));
      default:
        return fmt::format("is_op({})({})", quoted(op), args(arity, depth));
    }
  }

  std::string pattern(int depth) {
    if (depth >= max_depth_) return leaf();
    switch (pick(24)) {
      case 0:
      case 1:
      case 2:
        return leaf();
      case 3:
      case 4:
      case 5:
      case 6:
      case 7:
        return call(depth);
      case 8:
        return fmt::format("({} | {})", pattern(depth + 1), pattern(depth + 1));
      case 9:
        return fmt::format("({} & {})", pattern(depth + 1), pattern(depth + 1));
      case 10:
        return fmt::format("~{}", pattern(depth + 1));
      case 11:
        return fmt::format("{}.optional(lambda x: is_op({})(x))", pattern(depth + 1),
                           quoted(pick_of(words_.calls).first));
      case 12:
        return fmt::format("{}.has_attr({})", pattern(depth + 1), attrs_text());
      case 13:
        return fmt::format("is_op({}).has_attr({})({})", quoted(pick_of(words_.calls).first),
                           attrs_text(), args(pick_of(words_.calls).second, depth));
      case 14:
        return fmt::format("{}.has_type({})", pattern(depth + 1), type_text());
      case 15:
        return fmt::format("{}.has_dtype({})", pattern(depth + 1), quoted(pick_of(words_.dtypes)));
      case 16:
        return fmt::format("{}.has_shape({})", pattern(depth + 1), shape_text(pick_of(words_.shapes)));
      case 17: {
        std::size_t form = pick(3);  // any arity, fields in any order, fields in order
        if (form == 0) return "is_tuple(None)";
        ++consumed_;
        std::string fields;
        for (std::size_t i = 0, n = 1 + pick(3); i < n; ++i) fields += (i ? ", " : "") + pattern(depth + 1);
        --consumed_;
        return fmt::format("is_tuple([{}]{})", fields, form == 1 ? ", unordered=True" : "");
      }
      case 18:
      case 19: {
        ++consumed_;
        std::string tuple = pick(2) ? call(depth + 1) : pattern(depth + 1);
        --consumed_;
        std::size_t index = pick(4);
        return index == 3 ? fmt::format("is_tuple_get_item({})", tuple)
                          : fmt::format("is_tuple_get_item({}, {})", tuple, index);
      }
      case 20: {
        ++consumed_;
        std::string parent = pattern(depth + 1);
        std::string path = pattern(depth + 1);
        --consumed_;
        return fmt::format("dominates({}, {}, {})", parent, path, call(depth + 1));
      }
      case 21: {
        ++consumed_;
        std::string params = pick(2) ? "None" : fmt::format("[{}]", pick(2) ? "is_var()" : "wildcard()");
        std::string body = pattern(depth + 1);
        --consumed_;
        return fmt::format("FunctionPattern({}, {})", params, body);
      }
      default:
        return call(depth);
    }
  }

  // `w = wildcard()`, a redirect of it, and its use: the recursion goes through a call's
  // arguments (`consumes_no_node` false), or reaches `w` again on the same node.
  std::string recursive(bool consumes_no_node) {
    lines_ += "w = wildcard()\n";
    if (!consumes_no_node) {
      recursive_name_ = "w";
      const auto& [op, arity] = pick_of(words_.calls);
      std::string arguments;
      std::size_t at = pick(std::max<std::size_t>(arity, 1));
      for (std::size_t i = 0; i < std::max<std::size_t>(arity, 1); ++i) {
        arguments += (i ? ", " : "") + (i == at ? std::string("w") : pattern(2));
      }
      lines_ += fmt::format("w.redirect_to(is_op({})({}) | {})\n", quoted(op), arguments, pattern(2));
      return pick(2) ? "w" : fmt::format("is_op({})(w)", quoted(pick_of(words_.calls).first));
    }
    switch (pick(6)) {
      case 0:
        lines_ += "w.redirect_to(w)\n";
        break;
      case 1:  // an alternation of w itself with a call of it
        lines_ += fmt::format("w.redirect_to(w | is_op({})(w))\n", quoted(pick_of(words_.calls).first));
        break;
      case 2:  // a -> b -> a
        lines_ += "v = wildcard()\nw.redirect_to(v)\nv.redirect_to(w)\n";
        break;
      case 3:  // through predicates
        lines_ += fmt::format("w.redirect_to((w & {}).has_dtype({}))\n", pattern(2),
                              quoted(pick_of(words_.dtypes)));
        break;
      case 4:  // a negation, then a dominator's child
        lines_ += fmt::format("w.redirect_to(~dominates({}, wildcard(), w))\n", pattern(2));
        break;
      default:  // a call that fails first, then the cycle
        lines_ += fmt::format("w.redirect_to({} | w)\n", call(2));
        break;
    }
    return pick(2) ? "w" : fmt::format("is_op({})(w)", quoted(pick_of(words_.calls).first));
  }

  const PatternVocabulary& words_;
  Choose& choose_;
  int max_depth_;
  std::string lines_;
  bool shared_ = false;
  std::string recursive_name_;  // the redirected wildcard, usable where a node is consumed
  int consumed_ = 0;            // how many call / tuple / projection operands we are inside
};

}  // namespace detail

/// A random pattern over `words`, nesting at most `max_depth` levels.
template <class Choose>
RandomPattern random_pattern(const PatternVocabulary& words, Choose&& choose, int max_depth = 4) {
  return detail::PatternDrawer<std::remove_reference_t<Choose>>(words, choose, max_depth).draw();
}

}  // namespace graphpat::testing
