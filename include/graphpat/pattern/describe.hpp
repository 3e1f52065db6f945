// describe(pattern): the pattern in the pattern text syntax (TVM's Python spelling), so that
// parse_pattern(describe(p)) builds the same pattern again.
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern conv = is_op("nn.conv2d")(wildcard(), wildcard());
//   graphpat::describe(is_op("add")(conv, conv));
//   // p0 = is_op('nn.conv2d')(wildcard(), wildcard())
//   // is_op('add')(p0, p0)
//
// A node used more than once gets a name (`p0`, `p1`, ... in order of definition) on a line of
// its own, because sharing is identity; a redirected wildcard is defined first and redirected
// by a `pN.redirect_to(...)` statement before the last line, which is the pattern itself.
// Arithmetic sugar and optional() print in their expanded forms (`is_op('add')(a, b)`, `p | q`).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "graphpat/pattern/pattern_graph.hpp"
#include "graphpat/pattern/values.hpp"

namespace graphpat {

namespace detail {

class PatternDescriber {
 public:
  PatternDescriber(const PatternGraph& graph, PatternId root)
      : graph_(graph), root_(root), names_(graph.size()), uses_(graph.size(), 0) {}

  std::string describe() {
    std::vector<PatternId> order = definition_order();
    ++uses_[root_.index()];
    std::vector<PatternId> redirected;
    for (PatternId id : order) {
      const PatternNode& node = graph_.node(id);
      for (PatternId operand : node.operands) ++uses_[operand.index()];
      if (node.redirect.valid()) {
        ++uses_[node.redirect.index()];
        redirected.push_back(id);
      }
    }
    std::string out;
    int next_name = 0;
    // Redirected wildcards first: the cycles they close need their names.
    for (PatternId id : redirected) {
      names_[id.index()] = fmt::format("p{}", next_name++);
      out += fmt::format("{} = wildcard()\n", names_[id.index()]);
    }
    for (PatternId id : order) {
      if (!names_[id.index()].empty() || uses_[id.index()] < 2) continue;
      std::string text = expression(id, 0);
      names_[id.index()] = fmt::format("p{}", next_name++);
      out += fmt::format("{} = {}\n", names_[id.index()], text);
    }
    for (PatternId id : redirected) {
      out += fmt::format("{}.redirect_to({})\n", names_[id.index()],
                         expression(graph_.node(id).redirect, 0));
    }
    out += expression(root_, 0);
    return out;
  }

 private:
  // Reachable nodes, operands before users; redirect targets are visited as further roots.
  std::vector<PatternId> definition_order() {
    std::vector<PatternId> order;
    std::vector<bool> seen(graph_.size(), false);
    std::vector<PatternId> roots{root_};
    for (std::size_t r = 0; r < roots.size(); ++r) {
      if (seen[roots[r].index()]) continue;
      struct Frame {
        PatternId id;
        std::size_t next;
      };
      std::vector<Frame> stack{{roots[r], 0}};
      seen[roots[r].index()] = true;
      while (!stack.empty()) {
        Frame& top = stack.back();
        const PatternNode& node = graph_.node(top.id);
        if (top.next == node.operands.size()) {
          order.push_back(top.id);
          if (node.redirect.valid()) roots.push_back(node.redirect);
          stack.pop_back();
          continue;
        }
        PatternId next = node.operands[top.next++];
        if (seen[next.index()]) continue;
        seen[next.index()] = true;
        stack.push_back({next, 0});
      }
    }
    return order;
  }

  // Python precedence levels: | 1, & 2, unary ~ 5, call / method 6, atom 7.
  std::string expression(PatternId id, int min_level) {
    if (!names_[id.index()].empty()) return names_[id.index()];
    int level = 7;
    std::string text = expression_text(id, level);
    return level < min_level ? "(" + text + ")" : text;
  }

  std::string list(const std::vector<PatternId>& ids, std::size_t first, std::size_t last) {
    std::string out;
    for (std::size_t i = first; i < last; ++i) {
      if (i > first) out += ", ";
      out += expression(ids[i], 0);
    }
    return out;
  }

  // Recursion follows the nesting of the pattern (its text), never an IR graph.
  std::string expression_text(PatternId id, int& level) {
    const PatternNode& node = graph_.node(id);
    const std::vector<PatternId>& ops = node.operands;
    switch (node.kind) {
      case PatternKind::kWildcard:
        return "wildcard()";
      case PatternKind::kExpr:
        return fmt::format("is_expr({})", node.name);
      case PatternKind::kOp:
        return fmt::format("is_op({})", python_string(node.name));
      case PatternKind::kVar:
        return node.name.empty() ? "is_var()" : fmt::format("is_var({})", python_string(node.name));
      case PatternKind::kConstant:
        return "is_constant()";
      case PatternKind::kCall:
        level = 6;
        return expression(ops[0], 6) +
               (node.any_arity ? "(None)" : "(" + list(ops, 1, ops.size()) + ")");
      case PatternKind::kFunction:
        return fmt::format("FunctionPattern({}, {})",
                           node.any_arity ? "None" : "[" + list(ops, 0, ops.size() - 1) + "]",
                           expression(ops.back(), 0));
      case PatternKind::kTuple:
        return node.any_arity ? "is_tuple(None)" : "is_tuple([" + list(ops, 0, ops.size()) + "])";
      case PatternKind::kTupleGetItem:
        return node.index < 0
                   ? fmt::format("is_tuple_get_item({})", expression(ops[0], 0))
                   : fmt::format("is_tuple_get_item({}, {})", expression(ops[0], 0), node.index);
      case PatternKind::kIf:
        return "is_if(" + list(ops, 0, 3) + ")";
      case PatternKind::kLet:
        return "is_let(" + list(ops, 0, 3) + ")";
      case PatternKind::kAlt:
        level = 1;
        return expression(ops[0], 1) + " | " + expression(ops[1], 2);
      case PatternKind::kAnd:
        level = 2;
        return expression(ops[0], 2) + " & " + expression(ops[1], 3);
      case PatternKind::kNot:
        level = 5;
        return "~" + expression(ops[0], 5);
      case PatternKind::kAttr: {
        level = 6;
        std::string dict;
        for (const auto& [key, value] : node.attrs) {
          if (!dict.empty()) dict += ", ";
          dict += python_string(key) + ": " + python_value(value);
        }
        return expression(ops[0], 6) + ".has_attr({" + dict + "})";
      }
      case PatternKind::kType:
        level = 6;
        return expression(ops[0], 6) + ".has_type(" + python_type(node.type) + ")";
      case PatternKind::kDataType:
        level = 6;
        return expression(ops[0], 6) + ".has_dtype(" + python_string(node.name) + ")";
      case PatternKind::kShape:
        level = 6;
        return expression(ops[0], 6) + ".has_shape(" + shape_text(node.shape, true) + ")";
      case PatternKind::kDominator:
        return "dominates(" + list(ops, 0, 3) + ")";
    }
    return "wildcard()";
  }

  const PatternGraph& graph_;
  PatternId root_;
  std::vector<std::string> names_;
  std::vector<int> uses_;
};

}  // namespace detail

/// The pattern in the text syntax of parse_pattern (see the top of this file).
inline std::string describe(const PatternGraph& graph, PatternId root) {
  return detail::PatternDescriber(graph, root).describe();
}
inline std::string describe(const Pattern& pattern) {
  return describe(pattern.graph(), pattern.id());
}

}  // namespace graphpat
