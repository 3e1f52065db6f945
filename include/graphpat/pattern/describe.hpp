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
// Arithmetic sugar and optional() print in their expanded forms (`is_op('add')(a, b)`, `p | q`):
// `describe<D>(pattern)` spells the op of `a * b` as dialect D names it (ir/conventions.hpp), and
// `describe(pattern)` as Relay does, the language of the text syntax (relay/pattern_text.hpp).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "graphpat/ir/context.hpp"
#include "graphpat/pattern/pattern_graph.hpp"
#include "graphpat/pattern/values.hpp"

namespace graphpat {

namespace detail {

class PatternDescriber {
 public:
  PatternDescriber(const PatternGraph& graph, PatternId root, const ArithmeticOps& arithmetic)
      : graph_(graph),
        root_(root),
        arithmetic_(arithmetic),
        names_(graph.size()),
        uses_(graph.size(), 0) {}

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

  // A piece of an expression's text: literal text, or node `id` (valid) to write where the
  // context needs precedence `min_level`.
  struct Piece {
    std::string text;
    PatternId id;
    int min_level = 0;
  };

  // The text of `root` where the context needs precedence `min_level` (Python's: | 1, & 2,
  // unary ~ 5, call / method 6, atom 7): a named node is its name; any other is its expression,
  // in parentheses when it binds looser. Nested patterns are expanded from a stack of pieces,
  // in order, so that a pattern built in code however deep never recurses.
  std::string expression(PatternId root, int min_level) {
    std::string out;
    std::vector<Piece> stack{{{}, root, min_level}};
    std::vector<Piece> pieces;
    while (!stack.empty()) {
      Piece piece = std::move(stack.back());
      stack.pop_back();
      if (!piece.id.valid()) {
        out += piece.text;
      } else if (!names_[piece.id.index()].empty()) {
        out += names_[piece.id.index()];
      } else {
        pieces.clear();
        int level = pieces_of(piece.id, pieces);
        bool wrap = level < piece.min_level;
        if (wrap) stack.push_back({")", {}, 0});
        for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) stack.push_back(std::move(*it));
        if (wrap) stack.push_back({"(", {}, 0});
      }
    }
    return out;
  }

  // Appends the pieces of node `id`'s expression to `out`; returns its precedence level.
  int pieces_of(PatternId id, std::vector<Piece>& out) {
    const PatternNode& node = graph_.node(id);
    const std::vector<PatternId>& ops = node.operands;
    auto text = [&](std::string piece) { out.push_back({std::move(piece), {}, 0}); };
    auto operand = [&](PatternId operand_id, int min_level) { out.push_back({{}, operand_id, min_level}); };
    auto list = [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        if (i > first) text(", ");
        operand(ops[i], 0);
      }
    };
    switch (node.kind) {
      case PatternKind::kWildcard:
        text("wildcard()");
        return 7;
      case PatternKind::kExpr:
        text(fmt::format("is_expr({})", node.name));
        return 7;
      case PatternKind::kOp:
        text(fmt::format(
            "is_op({})",
            python_string(node.role ? std::string(arithmetic_.of(*node.role)) : node.name)));
        return 7;
      case PatternKind::kVar:
        text(node.name.empty() ? "is_var()" : fmt::format("is_var({})", python_string(node.name)));
        return 7;
      case PatternKind::kConstant:
        text("is_constant()");
        return 7;
      case PatternKind::kCall:
        operand(ops[0], 6);
        if (node.any_arity) {
          text("(None)");
        } else {
          text("(");
          list(1, ops.size());
          text(")");
        }
        return 6;
      case PatternKind::kFunction:
        text("FunctionPattern(");
        if (node.any_arity) {
          text("None");
        } else {
          text("[");
          list(0, ops.size() - 1);
          text("]");
        }
        text(", ");
        operand(ops.back(), 0);
        text(")");
        return 7;
      case PatternKind::kTuple:
        if (node.any_arity) {
          text("is_tuple(None)");
        } else {
          text("is_tuple([");
          list(0, ops.size());
          text("])");
        }
        return 7;
      case PatternKind::kUnorderedTuple:
        text("is_tuple([");
        list(0, ops.size());
        text("], unordered=True)");
        return 7;
      case PatternKind::kTupleGetItem:
        text("is_tuple_get_item(");
        operand(ops[0], 0);
        text(node.index == -1 ? std::string(")") : fmt::format(", {})", node.index));
        return 7;
      case PatternKind::kIf:
        text("is_if(");
        list(0, 3);
        text(")");
        return 7;
      case PatternKind::kLet:
        text("is_let(");
        list(0, 3);
        text(")");
        return 7;
      case PatternKind::kAlt:
        operand(ops[0], 1);
        text(" | ");
        operand(ops[1], 2);
        return 1;
      case PatternKind::kAnd:
        operand(ops[0], 2);
        text(" & ");
        operand(ops[1], 3);
        return 2;
      case PatternKind::kNot:
        text("~");
        operand(ops[0], 5);
        return 5;
      case PatternKind::kAttr: {
        std::string dict;
        for (const auto& [key, value] : node.attrs) {
          if (!dict.empty()) dict += ", ";
          dict += python_string(key) + ": " + python_value(value);
        }
        operand(ops[0], 6);
        text(".has_attr({" + dict + "})");
        return 6;
      }
      case PatternKind::kType:
        operand(ops[0], 6);
        text(".has_type(" + python_type(node.type) + ")");
        return 6;
      case PatternKind::kDataType:
        operand(ops[0], 6);
        text(".has_dtype(" + python_string(node.name) + ")");
        return 6;
      case PatternKind::kShape:
        operand(ops[0], 6);
        text(".has_shape(" + shape_text(node.shape, true) + ")");
        return 6;
      case PatternKind::kDominator:
        text("dominates(");
        list(0, 3);
        text(")");
        return 7;
    }
    text("wildcard()");
    return 7;
  }

  const PatternGraph& graph_;
  PatternId root_;
  ArithmeticOps arithmetic_;  // how the op of arithmetic sugar is spelled
  std::vector<std::string> names_;
  std::vector<int> uses_;
};

}  // namespace detail

/// The pattern in the text syntax of parse_pattern (see the top of this file), arithmetic sugar
/// spelled as dialect `D` names its ops.
template <Dialect D>
std::string describe(const PatternGraph& graph, PatternId root) {
  return detail::PatternDescriber(graph, root, dialect_conventions<D>().arithmetic).describe();
}
template <Dialect D>
std::string describe(const Pattern& pattern) {
  return describe<D>(pattern.graph(), pattern.id());
}

}  // namespace graphpat
