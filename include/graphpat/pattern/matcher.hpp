// The matcher: does a pattern match at a node, what did each pattern node bind, and where does
// a pattern match in a graph. Semantics are Relay's DFPatternMatcher (docs/semantics.md §3):
// memoised identity binding with rollback, committed alternation, non-injective
// binding, attribute and type rules, the dominator algorithm, recursive patterns. Types are the
// nodes' stored types: nothing is inferred.
//
//   using namespace graphpat::dsl;
//   graphpat::Pattern conv = is_op("nn.conv2d")(wildcard(), wildcard());
//   graphpat::Pattern pattern = is_op("nn.relu")(conv);
//   graphpat::Matcher<relay::Dialect> matcher(pattern, graph);     // compiles once per graph
//   for (std::uint32_t i = 0; i < graph.size(); ++i) count += matcher.matches(NodeId(i));
//   if (graphpat::Match m = matcher.match(node)) fmt::print("conv is {}\n", m.bound(conv));
//   for (const graphpat::Match& found : matcher.find_matches(root)) { ... }
//
//   graphpat::Match once = graphpat::match(pattern, graph, node);  // one-off: a Matcher per call
//
// Cost model. A pattern is compiled (the pattern nodes reachable from its root copied) once per
// dialect and kept with the pattern (up to 4,096 nodes; redirect_to forgets it). A Matcher
// looks up the pattern's ops in the graph's registry when constructed and keeps its tables
// between calls; the free functions match(), find_matches() and explain() (explain.hpp)
// construct a Matcher per call, so matching many nodes through them pays that set-up each time.
// With a dominator pattern, the matcher also builds a post-dominator tree of the graph reachable
// from the scope (below), once per scope: Matcher::find_matches(root) builds one for the whole
// search, while match(node) takes the node as its scope, so matching node after node builds a
// tree for each (pass one scope, Matcher::match(node, scope), to build it once).
//
// Threads. A Matcher is not thread-safe; make one per thread. A finished Pattern is an
// immutable value: threads may share one handle, and one const graph, each with its own Matcher.
//
// Matching never recurses on the graph: it runs on an explicit stack of frames, so recursive
// patterns and dominator paths may walk chains of any length.
//
// Default mode versus MatchOptions::relay_compat: Relay retries a call with its two arguments
// reversed only when the pattern's callee is written as is_op("add") or is_op("multiply");
// by default graphpat retries whenever the matched call's op is commutative in the op registry
// (OpInfo::commutative), whatever the callee pattern. Both modes apply Relay's two
// divide/multiply associativity retries where the dialect asks for them
// (DialectConventions::associativity_retries, with its arithmetic ops; Relay does).
//
// The dominator pattern's post-dominance is taken over the graph reachable from a scope root:
// match() uses the node itself (as Relay's `pattern.match(expr)` does); find_matches() uses
// the root it searches from (as Relay's partition does).
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graphpat/analysis/post_dominators.hpp"
#include "graphpat/analysis/reachability.hpp"
#include "graphpat/ir/graph.hpp"
#include "graphpat/pattern/expr_pattern.hpp"
#include "graphpat/pattern/match.hpp"
#include "graphpat/pattern/node_words.hpp"
#include "graphpat/pattern/pattern_graph.hpp"
#include "graphpat/pattern/values.hpp"

namespace graphpat {

/// A matcher for one pattern over one graph, reusable across many nodes (its tables are kept
/// between calls; see the cost model at the top of this file). Not thread-safe; make one per
/// thread.
template <Dialect D>
class Matcher {
 public:
  Matcher(const Pattern& pattern, const Graph<D>& graph, MatchOptions options = {})
      : Matcher(std::span(&pattern, 1), graph, options) {}
  /// A matcher of several patterns under one memo (the nodes of a graph pattern,
  /// graph_matcher.hpp); match() and matches() try the first.
  Matcher(std::span<const Pattern> roots, const Graph<D>& graph, MatchOptions options = {})
      : compiled_(compile(roots)),
        graph_(graph),
        options_(options),
        step_limit_(options.max_steps != 0
                        ? options.max_steps
                        : std::max<std::uint64_t>(65'536, 16 * (std::uint64_t{graph.size()} +
                                                                compiled_->graph.size()))) {
    const PatternGraph& patterns = compiled_->graph;
    memo_.resize(patterns.size());
    op_ids_.resize(patterns.size());
    const OpRegistry& ops = graph.context().ops;
    std::vector<std::string_view> unregistered;
    for (std::uint32_t i = 0; i < patterns.size(); ++i) {
      const PatternNode& node = patterns.node(PatternId(i));
      if (node.kind == PatternKind::kOp && !(node.role && node.name.empty())) {
        op_ids_[i] = ops.find(node.name);
        if (!op_ids_[i].valid() && i < compiled_->user_size &&
            std::find(unregistered.begin(), unregistered.end(), node.name) == unregistered.end()) {
          unregistered.push_back(node.name);
          warnings_.push_back(fmt::format("{}: is_op('{}') matches nothing",
                                          detail::unregistered_op_text(node.name, D::kName),
                                          node.name));
        }
      }
    }
    add_op_ = find_named(ops, kConventions.arithmetic.add);
    multiply_op_ = find_named(ops, kConventions.arithmetic.multiply);
    divide_op_ = find_named(ops, kConventions.arithmetic.divide);
    compute_filters();
  }

  /// What compiling the pattern for this graph noticed, one line each: an op the pattern names
  /// that the graph's registry does not have (neither the dialect's nor one the graph's readers
  /// met), which matches nothing (TVM's `is_op` raises for it): "no op nn.rleu is registered in
  /// dialect relay: is_op('nn.rleu') matches nothing". Empty when there is nothing to say.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }

  /// The nodes where a match attempt stopped at MatchOptions::max_steps (taken as no match),
  /// in the order they were tried.
  [[nodiscard]] const std::vector<NodeId>& stopped() const { return stopped_; }

  /// Whether the pattern matches at `node`; bindings in the result on success only.
  Match match(NodeId node) { return match(node, node); }
  /// The same, with dominator post-dominance taken over the graph reachable from `scope`.
  Match match(NodeId node, NodeId scope) {
    Match result;
    result.compiled_ = compiled_;
    result.root_ = node;
    result.matched_ = run(node, scope);
    if (result.matched_) collect(result);
    return result;
  }
  /// Whether the pattern matches at `node` (no bindings are copied out).
  bool matches(NodeId node) { return run(node, node); }
  bool matches(NodeId node, NodeId scope) { return run(node, scope); }

  /// The first failing path in words, or "matched" (see explain.hpp); nodes are named by
  /// `names` (their graph ids by default).
  std::string explain(NodeId node, const NodeNames& names = {}) {
    explaining_ = true;
    names_ = &names;
    pending_ = {};
    std::size_t stopped_before = stopped_.size();
    bool matched = run(node, node);
    explaining_ = false;
    names_ = nullptr;
    if (matched) return "matched";
    if (stopped_.size() != stopped_before) {
      return fmt::format("stopped without an answer at the step limit "
                         "(MatchOptions::max_steps = {})",
                         step_limit_);
    }
    if (!pending_.active) return "did not match";
    std::string text = pending_.message;
    std::size_t shown = std::min<std::size_t>(pending_.contexts.size(), kMaxContexts);
    for (std::size_t i = 0; i < shown; ++i) text += "; " + pending_.contexts[i];
    if (pending_.contexts.size() > shown) {
      text += fmt::format("; ... ({} more)", pending_.contexts.size() - shown);
    }
    return text;
  }

  /// Every node reachable from `root` where the pattern matches, in increasing id order.
  std::vector<Match> find_matches(NodeId root) {
    // What the root reaches, a byte per node (vector<bool>'s bit operations cost more).
    std::vector<std::uint8_t> live(root.index() + 1, 0);
    detail::mark_reachable(graph_, std::span(&root, 1), live);
    std::vector<Match> found;
    for (std::uint32_t i = 0; i <= root.index(); ++i) {
      if (live[i] == 0 || !may_match(NodeId(i))) continue;
      Match m = match(NodeId(i), root);
      if (m) found.push_back(std::move(m));
    }
    return found;
  }

  [[nodiscard]] const PatternGraph& pattern_graph() const { return compiled_->graph; }

  /// A cheap necessary condition for a match at `node`, read off the pattern's root: the node
  /// kinds it can match (a tuple item pattern only tuple items, `a | b` what either side can)
  /// and, for a call of an op (through attribute, type, `&` and dominator constraints), the ops
  /// called. False means match(node) is no match, so a search may skip the node.
  [[nodiscard]] bool may_match(NodeId node) const {
    return admits(filters_[compiled_->root.index()], node);
  }

 private:
  static constexpr std::size_t kMaxContexts = 12;

  struct Frame {
    PatternId pattern;
    NodeId node;
    std::uint32_t watermark = 0;       // trail size when the visit began
    std::uint32_t args_watermark = 0;  // call: trail size after the callee matched
    std::uint32_t index = 0;           // the operand (argument, field, part, input) at hand
    std::uint32_t checked = 0;         // dominator path: inputs checked
    std::uint8_t step = 0;             // the handler's step, an enum of its own
    bool path = false;  // a dominator-path frame (MatchesPath), not a visit
  };
  struct Step {
    bool done;
    bool result;
    PatternId pattern;
    NodeId node;
    bool path;
  };
  static Step done(bool result) { return {true, result, {}, {}, false}; }
  static Step visit(PatternId pattern, NodeId node) { return {false, false, pattern, node, false}; }
  static Step walk_path(PatternId dominator, NodeId node) {
    return {false, false, dominator, node, true};
  }

  // A child's result delivered to its parent frame, or none on a frame's first step.
  struct Incoming {
    std::uint8_t state = 0;  // 0 none, 1 false, 2 true
    Incoming& operator=(bool value) {
      state = value ? 2 : 1;
      return *this;
    }
    void reset() { state = 0; }
    explicit operator bool() const { return state != 0; }
    bool operator*() const { return state == 2; }
    bool value_or(bool fallback) const { return state == 0 ? fallback : state == 2; }
  };

  // The assignment an unordered tuple frame is building: which fields are taken, the field each
  // field pattern holds or tries, the trail size before it tried, and the furthest field
  // pattern reached (for explain).
  struct UnorderedSearch {
    std::vector<bool> taken;
    std::vector<std::uint32_t> field_of;
    std::vector<std::uint32_t> trail_mark;
    std::uint32_t deepest = 0;
  };

  struct Pending {
    bool active = false;
    std::size_t depth = 0;
    std::string message;
    std::vector<std::string> contexts;
  };

  // ----- the driver ---------------------------------------------------------------------------

  bool run(NodeId node, NodeId scope) {
    forget_bindings(scope);
    return drive(compiled_->root, node);
  }

  // Forgets every binding; dominator post-dominance is taken from `scope` on.
  void forget_bindings(NodeId scope) {
    for (PatternId touched : touched_) memo_[touched.index()].clear();
    touched_.clear();
    trail_.clear();
    frames_.clear();
    unordered_searches_.clear();
    memoize_ = true;
    scope_ = scope;
  }

  // Matches `pattern` at `node` on top of the bindings made so far.
  bool drive(PatternId pattern, NodeId node) {
    forget_walked_paths();
    Incoming incoming;
    std::uint64_t steps = 0;
    begin_visit(pattern, node, incoming, steps);
    for (; !frames_.empty(); ++steps) {
      if (steps == step_limit_) {
        frames_.clear();
        unordered_searches_.clear();
        stopped_.push_back(node);
        return false;
      }
      std::size_t top = frames_.size() - 1;
      lifted_ = false;
      if (explaining_ && incoming && !*incoming && pending_.active && pending_.depth == top + 2) {
        pending_.depth = top + 1;
        lifted_ = true;
      }
      Step step = advance(top, incoming);
      if (step.done) {
        finish(top, step.result);
        incoming = step.result;
      } else if (step.path) {
        incoming.reset();
        frames_.push_back({step.pattern, step.node, 0, 0, 0, 0, 0, true});
      } else {
        incoming.reset();
        std::uint64_t next = steps + 1;
        begin_visit(step.pattern, step.node, incoming, next);
        steps = next - 1;  // one more when a leaf was decided at once; the loop adds one
      }
    }
    return incoming.value_or(false);
  }

  bool synthetic(PatternId id) const { return id.index() >= compiled_->user_size; }

  // Starts matching `pattern` at `node`: a frame, whose first step is number `next_step`, or
  // at once: a pattern node bound already answers from its memo, and a leaf (below) in what
  // would have been its frame's one step, counted (++next_step) as that step.
  void begin_visit(PatternId pattern, NodeId node, Incoming& incoming, std::uint64_t& next_step) {
    const Memo& memo = memo_[pattern.index()];
    if (memoize_ && !memo.empty()) {
      incoming = memo.front() == node;
      if (!*incoming) {
        fail(frames_.size() + 1, [&] {
          const PatternNode& p = compiled_->graph.node(pattern);
          if (p.kind == PatternKind::kOp) return op_mismatch(pattern, node);  // ops are singletons
          return fmt::format("expected the node this pattern already bound ({}), got {}",
                             words(memo.front()), words(node));
        });
      }
      return;
    }
    if (!explaining_ && next_step != step_limit_) {
      if (std::optional<bool> result = leaf_result(pattern, node)) {
        ++next_step;
        if (*result) bind(pattern, node);
        incoming = *result;
        return;
      }
    }
    frames_.push_back({pattern, node, static_cast<std::uint32_t>(trail_.size())});
  }

  // The result of a leaf, a pattern its frame would decide in its first step without a
  // message to record (none is recorded unless explaining): a wildcard without a redirect, an
  // op, a var or a constant pattern; none for every other pattern.
  std::optional<bool> leaf_result(PatternId pattern, NodeId node) const {
    const PatternNode& p = compiled_->graph.node(pattern);
    const Graph<D>& g = graph_;
    switch (p.kind) {
      case PatternKind::kWildcard:
        if (p.redirect.valid()) return std::nullopt;
        return true;
      case PatternKind::kOp: {
        OpId op = op_ids_[pattern.index()];
        return g.kind(node) == NodeKind::kOp && op.valid() && g.op(node) == op;
      }
      case PatternKind::kVar:
        return g.kind(node) == NodeKind::kVar && (p.name.empty() || g.name(node) == p.name);
      case PatternKind::kConstant:
        return g.kind(node) == NodeKind::kConstant;
      default:
        return std::nullopt;
    }
  }

  // Records that `pattern` bound `node` (a synthetic pattern binds nothing).
  void bind(PatternId pattern, NodeId node) {
    if (synthetic(pattern)) return;
    Memo& memo = memo_[pattern.index()];
    if (memo.empty()) touched_.push_back(pattern);
    memo.push_back(node);
    trail_.push_back(pattern);
  }

  void finish(std::size_t top, bool result) {
    Frame frame = frames_[top];
    frames_.pop_back();
    if (explaining_ && result && pending_.active && pending_.depth >= top + 1) pending_ = {};
    if (frame.path) {
      if (result) path_walked_[frame.node.index()] = path_walk_epoch_;
      return;
    }
    if (result) {
      bind(frame.pattern, frame.node);
    } else {
      clear_to(frame.watermark);
    }
  }

  void clear_to(std::size_t watermark) {
    for (std::size_t i = watermark; i < trail_.size(); ++i) memo_[trail_[i].index()].clear();
    // erase, not resize: the vector's resize is not inlined (6% of a small search's time).
    if (watermark < trail_.size()) {
      trail_.erase(trail_.begin() + static_cast<std::ptrdiff_t>(watermark), trail_.end());
    }
  }

  template <class MakeMessage>
  void fail(std::size_t depth, MakeMessage&& make) {
    if (!explaining_ || pending_.active) return;
    pending_.active = true;
    pending_.depth = depth;
    pending_.message = make();
    pending_.contexts.clear();
  }
  template <class MakeContext>
  void context(MakeContext&& make) {
    if (lifted_) pending_.contexts.push_back(make());
  }
  std::string words(NodeId node) const {
    return detail::node_words(graph_, node, names_ != nullptr ? *names_ : NodeNames());
  }
  static std::string count(std::size_t n, std::string_view noun) {
    return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
  }
  std::string op_mismatch(PatternId pattern, NodeId node) const {
    const PatternNode& p = compiled_->graph.node(pattern);
    std::string got = graph_.kind(node) == NodeKind::kOp
                          ? std::string(graph_.context().op_name(graph_.op(node)))
                          : words(node);
    if (p.role && p.name.empty()) {
      return fmt::format("expected the op of '{}', which dialect {} does not name, got {}",
                         arithmetic_symbol(*p.role), D::kName, got);
    }
    if (!op_ids_[pattern.index()].valid()) {
      return fmt::format("expected op {} (no op {} is registered), got {}", p.name, p.name, got);
    }
    return fmt::format("expected op {}, got {}", p.name, got);
  }
  static OpId find_named(const OpRegistry& ops, std::string_view name) {
    return name.empty() ? OpId() : ops.find(name);
  }

  // ----- one step of one frame ------------------------------------------------------------------

  // One step of the frame on top: the handler of its pattern kind. A handler starts at step 0
  // (its enum's kStart), and is called again with each child's result (`in`) until it is done;
  // its steps are named by an enum of its own.
  Step advance(std::size_t top, Incoming in) {
    Frame& f = frames_[top];
    if (f.path) return advance_path(top, f, in);
    const PatternNode& p = compiled_->graph.node(f.pattern);
    const std::size_t depth = top + 1;
    switch (p.kind) {
      case PatternKind::kWildcard: return advance_wildcard(f, p, in);
      case PatternKind::kExpr: return check_expr(f, p, depth);
      case PatternKind::kOp:
      case PatternKind::kVar:
      case PatternKind::kConstant:
        return check_leaf(f, p, depth);
      case PatternKind::kCall: return advance_call(f, p, depth, in);
      case PatternKind::kFunction: return advance_function(f, p, depth, in);
      case PatternKind::kTuple: return advance_tuple(f, p, depth, in);
      case PatternKind::kTupleGetItem: return advance_tuple_get_item(f, p, depth, in);
      case PatternKind::kIf:
      case PatternKind::kLet: return advance_if_or_let(f, p, depth, in);
      case PatternKind::kAlt:
      case PatternKind::kAnd: return advance_alt_or_and(f, p, in);
      case PatternKind::kNot: return advance_not(f, p, depth, in);
      case PatternKind::kAttr: return advance_attr(f, p, depth, in);
      case PatternKind::kType:
      case PatternKind::kDataType:
      case PatternKind::kShape: return advance_type(f, p, depth, in);
      case PatternKind::kDominator: return advance_dominator(f, p, depth, in);
      case PatternKind::kUnorderedTuple: return advance_unordered_tuple(f, p, depth, in);
    }
    return done(false);
  }

  // A failure at `depth` (recorded in words when explaining) that ends the frame.
  template <class MakeMessage>
  Step fail_with(std::size_t depth, MakeMessage&& make) {
    fail(depth, make);
    return done(false);
  }

  // wildcard(): anything; a recursive pattern's placeholder matches what it redirects to.
  Step advance_wildcard(Frame& f, const PatternNode& p, Incoming in) {
    enum : std::uint8_t { kStart, kRedirected };
    if (f.step == kRedirected) return done(*in);
    if (!p.redirect.valid()) return done(true);
    f.step = kRedirected;
    return visit(p.redirect, f.node);
  }

  Step check_expr(const Frame& f, const PatternNode& p, std::size_t depth) {
    if (expr_matches(f.pattern, p, f.node)) return done(true);
    return fail_with(depth, [&] {
      return fmt::format("expected an expression equal to is_expr({}), got {}", p.name,
                         words(f.node));
    });
  }

  // An op, var or constant pattern (leaf_result), with what failed in words.
  Step check_leaf(const Frame& f, const PatternNode& p, std::size_t depth) {
    if (*leaf_result(f.pattern, f.node)) return done(true);
    return fail_with(depth, [&] {
      NodeId e = f.node;
      switch (p.kind) {
        case PatternKind::kOp:
          return op_mismatch(f.pattern, e);
        case PatternKind::kVar:
          return p.name.empty() ? fmt::format("expected a var, got {}", words(e))
                                : fmt::format("expected var %{}, got {}", p.name, words(e));
        default:
          return fmt::format("expected a constant, got {}", words(e));
      }
    });
  }

  // A function pattern: the parameters in order (unless any arity), then the body.
  Step advance_function(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kParams, kBody };
    const Graph<D>& g = graph_;
    NodeId e = f.node;
    const std::size_t params = p.operands.size() - 1;
    switch (f.step) {
      case kStart:
        if (g.kind(e) != NodeKind::kFunction) {
          return fail_with(depth,
                           [&] { return fmt::format("expected a function, got {}", words(e)); });
        }
        if (!p.any_arity && g.params(e).size() != params) {
          return fail_with(depth, [&] {
            return fmt::format("expected {}, got {} in {}", count(params, "parameter"),
                               g.params(e).size(), words(e));
          });
        }
        f.step = kParams;
        break;
      case kParams:
        if (!*in) {
          context([&] { return fmt::format("in parameter {} of {}", f.index, words(e)); });
          return done(false);
        }
        ++f.index;
        break;
      default:  // kBody
        if (!*in) context([&] { return fmt::format("in the body of {}", words(e)); });
        return done(*in);
    }
    if (!p.any_arity && f.index < params) return visit(p.operands[f.index], g.params(e)[f.index]);
    f.step = kBody;
    return visit(p.operands.back(), g.body(e));
  }

  // A tuple pattern: the fields in order (or any tuple, with any arity).
  Step advance_tuple(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kFields };
    const Graph<D>& g = graph_;
    NodeId e = f.node;
    if (f.step == kStart) {
      if (g.kind(e) != NodeKind::kTuple) {
        return fail_with(depth, [&] { return fmt::format("expected a tuple, got {}", words(e)); });
      }
      if (p.any_arity) return done(true);
      if (g.fields(e).size() != p.operands.size()) {
        return fail_with(depth, [&] {
          return fmt::format("expected {}, got {} in {}", count(p.operands.size(), "field"),
                             g.fields(e).size(), words(e));
        });
      }
      f.step = kFields;
    } else if (!*in) {
      context([&] { return fmt::format("in field {} of {}", f.index, words(e)); });
      return done(false);
    } else {
      ++f.index;
    }
    if (f.index == p.operands.size()) return done(true);
    return visit(p.operands[f.index], g.fields(e)[f.index]);
  }

  // An unordered tuple pattern (Relax's TryUnorderedMatch): field pattern k tries the fields no
  // earlier field pattern holds, in order; a failure moves it to the next free field, and when
  // it has none, field pattern k - 1 gives its field back (and its bindings, to the trail mark
  // taken before it matched) and moves on. The first complete assignment wins. Each try is a
  // visit, so the search counts against the step limit; the state lives in unordered_searches_,
  // one entry per unordered frame open, innermost last.
  Step advance_unordered_tuple(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kFields };
    const Graph<D>& g = graph_;
    NodeId e = f.node;
    const std::size_t n = p.operands.size();
    if (f.step == kStart) {
      if (g.kind(e) != NodeKind::kTuple) {
        return fail_with(depth, [&] { return fmt::format("expected a tuple, got {}", words(e)); });
      }
      if (n > kMaxUnorderedFields) {
        return fail_with(depth, [&] {
          return fmt::format("an unordered tuple pattern has at most {} fields, this one {}",
                             kMaxUnorderedFields, n);
        });
      }
      if (g.fields(e).size() != n) {
        return fail_with(depth, [&] {
          return fmt::format("expected {}, got {} in {}", count(n, "field"), g.fields(e).size(),
                             words(e));
        });
      }
      if (n == 0) return done(true);
      f.step = kFields;
      unordered_searches_.push_back({std::vector<bool>(n, false), std::vector<std::uint32_t>(n, 0),
                                     std::vector<std::uint32_t>(n, 0), 0});
      return try_unordered_field(f, p, depth, 0);
    }
    UnorderedSearch& search = unordered_searches_.back();
    if (*in) {
      search.taken[search.field_of[f.index]] = true;
      if (++f.index == n) {
        unordered_searches_.pop_back();
        return done(true);
      }
      return try_unordered_field(f, p, depth, 0);
    }
    // The try was a probe: its failure is no reason for the match to fail.
    if (explaining_ && pending_.active && pending_.depth >= depth) pending_ = {};
    return try_unordered_field(f, p, depth, search.field_of[f.index] + 1);
  }

  // Tries field pattern f.index at the first free field from `first` on, backtracking to the
  // earlier field patterns while it has none; done(false) when the first has none either.
  Step try_unordered_field(Frame& f, const PatternNode& p, std::size_t depth, std::uint32_t first) {
    UnorderedSearch& search = unordered_searches_.back();
    auto fields = graph_.fields(f.node);
    search.deepest = std::max(search.deepest, f.index);
    for (;;) {
      std::uint32_t i = first;
      while (i < fields.size() && search.taken[i]) ++i;
      if (i < fields.size()) {
        search.field_of[f.index] = i;
        search.trail_mark[f.index] = static_cast<std::uint32_t>(trail_.size());
        return visit(p.operands[f.index], fields[i]);
      }
      if (f.index == 0) break;
      --f.index;
      std::uint32_t given_back = search.field_of[f.index];
      search.taken[given_back] = false;
      clear_to(search.trail_mark[f.index]);
      first = given_back + 1;
    }
    std::uint32_t deepest = search.deepest;
    unordered_searches_.pop_back();
    return fail_with(depth, [&] {
      return fmt::format(
          "no assignment of the {} field patterns to the fields of {}: field "
          "pattern {} matched none of the fields left to it",
          p.operands.size(), words(f.node), deepest);
    });
  }

  // A tuple item pattern: the index (unless any), then the tuple.
  Step advance_tuple_get_item(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kTuple };
    const Graph<D>& g = graph_;
    NodeId e = f.node;
    if (f.step == kTuple) {
      if (!*in) context([&] { return fmt::format("in the tuple of {}", words(e)); });
      return done(*in);
    }
    if (g.kind(e) != NodeKind::kTupleGetItem) {
      return fail_with(depth,
                       [&] { return fmt::format("expected a tuple item, got {}", words(e)); });
    }
    if (p.index != -1 && static_cast<std::int64_t>(g.index(e)) != p.index) {
      return fail_with(depth, [&] {
        return fmt::format("expected index {}, got {} in {}", p.index, g.index(e), words(e));
      });
    }
    f.step = kTuple;
    return visit(p.operands[0], g.tuple(e));
  }

  // An if (condition, then, else) or let (variable, value, body) pattern: its three parts in
  // order.
  Step advance_if_or_let(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kParts };
    const Graph<D>& g = graph_;
    NodeId e = f.node;
    const bool is_if = p.kind == PatternKind::kIf;
    if (f.step == kStart) {
      if (g.kind(e) != (is_if ? NodeKind::kIf : NodeKind::kLet)) {
        return fail_with(depth, [&] {
          return fmt::format("expected {}, got {}", is_if ? "an if" : "a let", words(e));
        });
      }
      f.step = kParts;
    } else if (!*in) {
      static constexpr std::string_view kIfParts[] = {"the condition", "the then branch",
                                                      "the else branch"};
      static constexpr std::string_view kLetParts[] = {"the variable", "the value", "the body"};
      context([&] {
        return fmt::format("in {} of {}", (is_if ? kIfParts : kLetParts)[f.index], words(e));
      });
      return done(false);
    } else {
      ++f.index;
    }
    if (f.index == 3) return done(true);
    return visit(p.operands[f.index], g.operands(e)[f.index]);
  }

  // `a | b` (committed alternation: the right side only when the left fails) and `a & b` (the
  // right side only when the left holds): the left side's result decides.
  Step advance_alt_or_and(Frame& f, const PatternNode& p, Incoming in) {
    enum : std::uint8_t { kStart, kLeft, kRight };
    const bool try_right_when = p.kind == PatternKind::kAnd;
    switch (f.step) {
      case kStart:
        f.step = kLeft;
        return visit(p.operands[0], f.node);
      case kLeft:
        if (*in != try_right_when) return done(*in);
        f.step = kRight;
        return visit(p.operands[1], f.node);
      default:  // kRight
        return done(*in);
    }
  }

  // `~a`: holds where `a` fails.
  Step advance_not(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kNegated };
    if (f.step == kStart) {
      f.step = kNegated;
      return visit(p.operands[0], f.node);
    }
    if (*in) {
      return fail_with(depth, [&] {
        return fmt::format("matched a negated pattern at {}", words(f.node));
      });
    }
    return done(true);
  }

  // has_attr: the inner pattern, then the attributes (Relay's order).
  Step advance_attr(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kInner };
    if (f.step == kStart) {
      f.step = kInner;
      return visit(p.operands[0], f.node);
    }
    if (!*in) return done(false);
    return done(attrs_match(p, f.node, depth));
  }

  // has_type / has_dtype / has_shape: the stored type, then the inner pattern (Relay's order).
  Step advance_type(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kInner };
    if (f.step == kInner) return done(*in);
    if (!type_check(p, f.node, depth)) return done(false);
    f.step = kInner;
    return visit(p.operands[0], f.node);
  }

  // dominates(parent, path, child): the child at the node, then every path from it up to the
  // parent (advance_path), then the node post-dominating the parent bound on the way.
  Step advance_dominator(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    enum : std::uint8_t { kStart, kChild, kPaths };
    switch (f.step) {
      case kStart:
        f.step = kChild;
        return visit(p.operands[2], f.node);
      case kChild:
        if (!*in) return done(false);
        f.step = kPaths;
        forget_walked_paths();
        return walk_path(f.pattern, f.node);
      default:  // kPaths
        memoize_ = true;
        if (!*in) return done(false);
        return done(dominates_parent(p, f.node, depth));
    }
  }

  // Relay's CallPattern visit: callee, then the arguments in order, then reversed when
  // commutative; associativity retries when the callee does not match.
  Step advance_call(Frame& f, const PatternNode& p, std::size_t depth, Incoming in) {
    const Graph<D>& g = graph_;
    NodeId e = f.node;
    const std::size_t arity = p.operands.size() - 1;
    enum : std::uint8_t { kStart, kCallee, kArgs, kReversed, kDivideRetry, kMultiplyRetry };
    switch (f.step) {
      case kStart:
        if (g.kind(e) != NodeKind::kCall) {
          return fail_with(depth, [&] { return fmt::format("expected a call, got {}", words(e)); });
        }
        f.step = kCallee;
        return visit(p.operands[0], g.callee(e));
      case kCallee: {
        if (!*in) {
          clear_to(f.watermark);
          const detail::CompiledPattern& c = *compiled_;
          auto is_call_of = [&](NodeId node, OpId op) {
            return op.valid() && g.kind(node) == NodeKind::kCall && g.called_op(node) == op;
          };
          auto has_arg_call_of = [&](OpId op) {
            auto args = g.args(e);
            return args.size() >= 2 && (is_call_of(args[0], op) || is_call_of(args[1], op));
          };
          if (c.divide_retry0[f.pattern.index()].valid() && is_call_of(e, multiply_op_) &&
              has_arg_call_of(divide_op_)) {
            f.step = kDivideRetry;
            f.index = 0;
            return visit(c.divide_retry0[f.pattern.index()], e);
          }
          if (c.multiply_retry[f.pattern.index()].valid() && is_call_of(e, divide_op_) &&
              has_arg_call_of(multiply_op_)) {
            f.step = kMultiplyRetry;
            return visit(c.multiply_retry[f.pattern.index()], e);
          }
          return done(false);
        }
        f.args_watermark = static_cast<std::uint32_t>(trail_.size());
        if (p.any_arity) return done(true);
        if (g.args(e).size() != arity) {
          return fail_with(depth, [&] {
            return fmt::format("expected {}, got {} in {}", count(arity, "argument"),
                               g.args(e).size(), words(e));
          });
        }
        if (arity == 0) return done(true);
        f.step = kArgs;
        f.index = 0;
        return visit(p.operands[1], g.args(e)[0]);
      }
      case kArgs:
      case kReversed: {
        bool reversed = f.step == kReversed;
        if (*in) {
          if (++f.index == arity) return done(true);
        } else {
          clear_to(f.args_watermark);
          if (!reversed) {
            context([&] { return fmt::format("in operand {} of {}", f.index, words(e)); });
          }
          if (reversed || !commutative_retry(p, e)) return done(false);
          f.step = kReversed;
          f.index = 0;
        }
        std::size_t pattern_arg = f.step == kReversed ? arity - f.index : 1 + f.index;
        return visit(p.operands[pattern_arg], g.args(e)[f.index]);
      }
      case kDivideRetry:
        if (*in) return done(true);
        clear_to(f.watermark);
        if (f.index == 1) return done(false);
        f.index = 1;
        return visit(compiled_->divide_retry1[f.pattern.index()], e);
      case kMultiplyRetry:
        return done(*in);
    }
    return done(false);
  }

  bool commutative_retry(const PatternNode& p, NodeId e) const {
    if (options_.relay_compat) {
      PatternId callee = p.operands[0];
      if (compiled_->graph.kind(callee) != PatternKind::kOp) return false;
      return swaps_arguments(op_ids_[callee.index()]);
    }
    return swaps_arguments(graph_.called_op(e));
  }
  // Whether a call of `op` matched by a pattern calling `op` may match its arguments swapped.
  bool swaps_arguments(OpId op) const {
    if (!op.valid()) return false;
    return options_.relay_compat ? op == add_op_ || op == multiply_op_
                                 : graph_.context().ops.info(op).commutative;
  }

  // Relay's MatchesPath, one input per step: each input must match the parent (memoised, so
  // the parent binds one node) or the path (not memoised) and then satisfy the same recursively.
  // The callee and, as in Relay v0.17+, Var and Constant arguments of calls are skipped; at
  // least one input must have been checked.
  Step advance_path(std::size_t top, Frame& f, Incoming in) {
    const PatternNode& dominator = compiled_->graph.node(f.pattern);
    const Graph<D>& g = graph_;
    NodeId e = f.node;
    enum : std::uint8_t { kNext, kParent, kPath, kDeeper };
    switch (f.step) {
      case kParent:
        if (*in) {
          ++f.index;
          break;
        }
        // The parent check is a probe: its failure is no reason for the match to fail.
        if (explaining_ && pending_.active && pending_.depth >= top + 1) pending_ = {};
        memoize_ = false;
        f.step = kPath;
        return visit(dominator.operands[1], g.operands(e)[f.index]);
      case kPath:
        if (!*in) {
          context([&] { return path_context(e, f.index); });
          return done(false);
        }
        if (path_walked_[g.operands(e)[f.index].index()] == path_walk_epoch_) {
          ++f.index;  // walked from there already in this walk, with this parent: it holds
          break;
        }
        f.step = kDeeper;
        return walk_path(f.pattern, g.operands(e)[f.index]);
      case kDeeper:
        if (!*in) {
          context([&] { return path_context(e, f.index); });
          return done(false);
        }
        ++f.index;
        break;
      default:
        break;
    }
    auto operands = g.operands(e);
    bool is_call = g.kind(e) == NodeKind::kCall;
    while (f.index < operands.size()) {
      NodeId input = operands[f.index];
      bool skip = false;
      if (is_call) {
        skip =
            f.index == 0 || g.kind(input) == NodeKind::kVar || g.kind(input) == NodeKind::kConstant;
      } else if (g.kind(e) == NodeKind::kFunction || g.kind(e) == NodeKind::kLet) {
        skip = f.index + 1 != operands.size();  // only the body
      }
      if (!skip) break;
      ++f.index;
    }
    if (f.index == operands.size()) {
      if (f.checked > 0) return done(true);
      return fail_with(top + 1,
                       [&] { return fmt::format("{} has no input on a dominator path", words(e)); });
    }
    ++f.checked;
    memoize_ = true;
    f.step = kParent;
    return visit(dominator.operands[0], operands[f.index]);
  }

  // A dominator walk visits a node once per path reaching it, and the paths of a DAG can be
  // exponentially many (a chain of `(%x, %x)` tuples doubles them at each link). Walking on from
  // a node succeeds or fails the same each time within one walk (the parent, once bound, stays
  // bound; a failure ends the walk), so a node walked from successfully is not walked again.
  void forget_walked_paths() {
    if (path_walked_.size() < graph_.size()) path_walked_.resize(graph_.size(), 0);
    if (++path_walk_epoch_ == 0) {  // wrapped: older marks would read as current
      std::fill(path_walked_.begin(), path_walked_.end(), 0);
      path_walk_epoch_ = 1;
    }
  }

  std::string path_context(NodeId e, std::size_t operand) const {
    std::size_t shown = graph_.kind(e) == NodeKind::kCall ? operand - 1 : operand;
    return fmt::format("on the dominator path at operand {} of {}", shown, words(e));
  }

  bool dominates_parent(const PatternNode& dominator, NodeId e, std::size_t depth) {
    const Memo& parent = memo_[dominator.operands[0].index()];
    NodeId bound = parent.empty() ? NodeId() : parent.front();
    const PostDominatorTree& tree = post_dominators();
    bool ok = bound.valid() && bound != e && tree.contains(bound) && tree.contains(e) &&
              tree.post_dominates(e, bound);
    if (!ok) {
      fail(depth, [&] {
        return bound.valid()
                   ? fmt::format("{} does not post-dominate the parent {}", words(e), words(bound))
                   : fmt::format("no parent bound below {}", words(e));
      });
    }
    return ok;
  }

  const PostDominatorTree& post_dominators() {
    if (!tree_ || tree_scope_ != scope_) {
      tree_ = PostDominatorTree::build(graph_, std::span(&scope_, 1));
      tree_scope_ = scope_;
    }
    return *tree_;
  }

  bool expr_matches(PatternId id, const PatternNode& p, NodeId e) {
    auto key = std::pair(id.value, e.value);
    auto found = expr_cache_.find(key);
    if (found != expr_cache_.end()) return found->second;
    const auto* holder = dynamic_cast<const detail::ExprHolder<D>*>(p.expr.get());
    bool result = holder != nullptr && holder->equals(graph_, e);
    expr_cache_.emplace(key, result);
    return result;
  }

  // Relay's AttrPattern rules: op attributes for an Op, the attribute struct's fields for a
  // Call, the attribute dictionary for a Function; nothing else has attributes.
  bool attrs_match(const PatternNode& p, NodeId e, std::size_t depth) {
    const Graph<D>& g = graph_;
    const Context& context = g.context();
    NodeKind kind = g.kind(e);
    if (kind == NodeKind::kOp) {
      const OpInfo& info = context.ops.info(g.op(e));
      for (const auto& attr : p.attrs) {
        const std::string& key = attr.first;
        const PatternValue& value = attr.second;
        std::optional<std::int64_t> actual;
        if (info.known && !kConventions.op_pattern_kind_attr.empty() &&
            key == kConventions.op_pattern_kind_attr) {
          actual = static_cast<std::int64_t>(info.pattern_kind);
        }
        if (info.known && !kConventions.op_stateful_attr.empty() &&
            key == kConventions.op_stateful_attr) {
          actual = info.stateful ? 1 : 0;
        }
        bool ok =
            actual &&
            (value.kind == PatternValue::Kind::kInt || value.kind == PatternValue::Kind::kBool) &&
            value.integer == *actual;
        if (!ok) {
          fail(depth, [&] {
            return actual
                       ? fmt::format("attribute {} of op {} is {}, expected {}", key,
                                     context.op_name(g.op(e)), *actual, detail::python_value(value))
                       : fmt::format("op {} has no attribute {}", context.op_name(g.op(e)), key);
          });
          return false;
        }
      }
      return true;
    }
    if (kind != NodeKind::kCall && kind != NodeKind::kFunction) {
      fail(depth, [&] {
        return fmt::format("attributes belong to ops, calls and functions, got {}", words(e));
      });
      return false;
    }
    AttrValueId attrs = g.attrs(e);
    for (const auto& attr : p.attrs) {
      const std::string& key = attr.first;
      const PatternValue& value = attr.second;
      std::optional<AttrValueId> field;
      if (attrs.valid() && context.attrs.kind(attrs) == AttrKind::kObject) {
        field = context.attrs.find_field(attrs, key);
      }
      if (!field) {
        fail(depth, [&] { return fmt::format("{} has no attribute {}", words(e), key); });
        return false;
      }
      if (!detail::value_matches(value, context, *field)) {
        fail(depth, [&] {
          return fmt::format("attribute {} of {} is {}, expected {}", key, words(e),
                             to_string(context, *field), detail::python_value(value));
        });
        return false;
      }
    }
    return true;
  }

  // has_type / has_dtype / has_shape against the stored type (checked before the inner
  // pattern, as Relay does).
  bool type_check(const PatternNode& p, NodeId e, std::size_t depth) {
    const Context& context = graph_.context();
    TypeId type = detail::stored_type(graph_, e);
    if (!type.valid()) {
      fail(depth, [&] {
        return fmt::format("{} has no type (the matcher reads stored types and infers none)",
                           words(e));
      });
      return false;
    }
    bool tensor = context.types.kind(type) == TypeKind::kTensor;
    switch (p.kind) {
      case PatternKind::kType:
        if (detail::type_matches(p.type, context, type)) return true;
        fail(depth, [&] {
          return fmt::format("type of {} is {}, expected {}", words(e), to_string(context, type),
                             detail::relay_type_text(p.type));
        });
        return false;
      case PatternKind::kDataType:
        if (tensor && context.strings.view(context.types.get(type).name) == p.name) return true;
        fail(depth, [&] {
          return tensor ? fmt::format("dtype of {} is {}, expected {}", words(e),
                                      context.strings.view(context.types.get(type).name), p.name)
                        : fmt::format("type of {} is {}, not a tensor type", words(e),
                                      to_string(context, type));
        });
        return false;
      default:
        if (tensor && detail::shape_matches(p.shape, context, type)) return true;
        fail(depth, [&] {
          return tensor ? fmt::format("type of {} is {}, expected shape {}", words(e),
                                      to_string(context, type), detail::shape_text(p.shape, false))
                        : fmt::format("type of {} is {}, not a tensor type", words(e),
                                      to_string(context, type));
        });
        return false;
    }
  }

  // The bindings of the patterns touched, grouped by pattern id in increasing order, each
  // pattern's nodes in memo order.
  void collect(Match& result) {
    // touched_ may name a pattern twice (bound, rolled back, bound again): sorted, the
    // repeats are neighbours.
    std::vector<PatternId>& ids = collect_ids_;  // kept between matches: no allocation
    ids.assign(touched_.begin(), touched_.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::size_t count = 0;
    for (PatternId id : ids) count += memo_[id.index()].size();
    result.patterns_.reserve(count);
    result.nodes_.reserve(count);
    for (PatternId id : ids) {
      for (NodeId node : memo_[id.index()]) {
        result.patterns_.push_back(id);
        result.nodes_.push_back(node);
      }
    }
  }

  // ----- graph patterns (GraphMatcher, graph_matcher.hpp) --------------------------------------

  template <Dialect>
  friend class GraphMatcher;

  // Matches `pattern` at `node` keeping every binding made so far, so that a pattern node bound
  // before binds the same node again; on failure nothing new is kept.
  bool extend(PatternId pattern, NodeId node) {
    const std::size_t watermark = trail_.size();
    if (drive(pattern, node)) return true;
    clear_to(watermark);
    return false;
  }
  [[nodiscard]] std::size_t trail_size() const { return trail_.size(); }
  void retract(std::size_t watermark) { clear_to(watermark); }
  [[nodiscard]] NodeId first_binding(PatternId pattern) const {
    const Memo& memo = memo_[pattern.index()];
    return memo.empty() ? NodeId() : memo.front();
  }
  // Every binding made so far, as a successful match tried at `root`.
  Match snapshot(NodeId root) {
    Match result;
    result.compiled_ = compiled_;
    result.root_ = root;
    result.matched_ = true;
    collect(result);
    return result;
  }
  [[nodiscard]] const detail::CompiledPattern& compiled() const { return *compiled_; }

  // The anchor of the pattern at `id`: whether it matches calls of one op only (through
  // attribute, type, `&` and dominator constraints), and which (invalid: an op the graph does
  // not have, or none: the constraints exclude one another).
  std::pair<bool, OpId> anchor_of(PatternId id) const {
    const NodeFilter& filter = filters_[id.index()];
    if (filter.kinds != kind_bit(NodeKind::kCall) || filter.any_op || filter.op_count > 1) {
      return {false, OpId()};
    }
    return {true, filter.op_count == 0 ? OpId() : filter.ops[0]};
  }

  // What a pattern node can match, as a test of one graph node: its kind, and the op of an op
  // node or of the op a call calls, one of `ops` (unless any_op; past kMaxOps ops, any op).
  struct NodeFilter {
    static constexpr std::size_t kMaxOps = 4;
    std::uint32_t kinds = kAllKinds;  // a bit per NodeKind
    bool any_op = true;
    std::uint8_t op_count = 0;
    std::array<OpId, kMaxOps> ops{};  // sorted

    [[nodiscard]] std::span<const OpId> op_list() const { return {ops.data(), op_count}; }
    static NodeFilter of_ops(std::uint32_t kinds, std::span<const OpId> list) {
      NodeFilter filter{kinds, list.size() > kMaxOps, 0, {}};
      if (filter.any_op) return filter;
      std::copy(list.begin(), list.end(), filter.ops.begin());
      filter.op_count = static_cast<std::uint8_t>(list.size());
      return filter;
    }
  };
  static constexpr std::uint32_t kind_bit(NodeKind kind) {
    return std::uint32_t{1} << static_cast<unsigned>(kind);
  }
  static constexpr std::uint32_t kAllKinds = (std::uint32_t{1} << kNodeKindCount) - 1;

  bool admits(const NodeFilter& filter, NodeId node) const {
    const NodeKind kind = graph_.kind(node);
    if ((filter.kinds & kind_bit(kind)) == 0) return false;
    if (filter.any_op) return true;
    OpId op;
    if (kind == NodeKind::kCall) {
      op = graph_.called_op(node);
    } else if (kind == NodeKind::kOp) {
      op = graph_.op(node);
    } else {
      return true;
    }
    std::span<const OpId> ops = filter.op_list();
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }

  // The filter of every pattern node, in id order (operands come first but for a redirect's
  // cycle; an operand not done yet counts as anything). Only what the matcher tries at the node
  // itself is read: the same-node operands (detail::for_each_same_node_operand; a negation and a
  // redirect admit anything) and a call's callee.
  void compute_filters() {
    const PatternGraph& patterns = compiled_->graph;
    filters_.assign(patterns.size(), NodeFilter());
    for (std::uint32_t i = 0; i < patterns.size(); ++i) {
      const PatternId id(i);
      const PatternNode& p = patterns.node(id);
      auto operand = [&](std::size_t k) {
        PatternId o = p.operands[k];
        return o < id ? filters_[o.index()] : NodeFilter();
      };
      auto only = [](NodeKind kind) { return NodeFilter{kind_bit(kind), true, 0, {}}; };
      NodeFilter filter;
      switch (p.kind) {
        case PatternKind::kOp: {
          OpId op = op_ids_[id.index()];
          filter = NodeFilter::of_ops(kind_bit(NodeKind::kOp), {&op, op.valid() ? 1u : 0u});
          break;
        }
        case PatternKind::kVar:
          filter = only(NodeKind::kVar);
          break;
        case PatternKind::kConstant:
          filter = only(NodeKind::kConstant);
          break;
        case PatternKind::kFunction:
          filter = only(NodeKind::kFunction);
          break;
        case PatternKind::kTuple:
        case PatternKind::kUnorderedTuple:
          filter = only(NodeKind::kTuple);
          break;
        case PatternKind::kTupleGetItem:
          filter = only(NodeKind::kTupleGetItem);
          break;
        case PatternKind::kIf:
          filter = only(NodeKind::kIf);
          break;
        case PatternKind::kLet:
          filter = only(NodeKind::kLet);
          break;
        case PatternKind::kCall: {
          filter = only(NodeKind::kCall);
          NodeFilter callee = operand(0);
          const detail::CompiledPattern& c = *compiled_;
          bool retried =
              c.divide_retry0[id.index()].valid() || c.multiply_retry[id.index()].valid();
          if (!retried && callee.kinds == kind_bit(NodeKind::kOp) && !callee.any_op) {
            filter = NodeFilter::of_ops(filter.kinds, callee.op_list());
          }
          break;
        }
        case PatternKind::kAlt:
          filter = either(operand(0), operand(1));
          break;
        case PatternKind::kAnd:
          filter = both(operand(0), operand(1));
          break;
        case PatternKind::kAttr:
        case PatternKind::kType:
        case PatternKind::kDataType:
        case PatternKind::kShape:
          filter = operand(0);
          break;
        case PatternKind::kDominator:
          filter = operand(2);
          break;
        case PatternKind::kWildcard:
        case PatternKind::kExpr:
        case PatternKind::kNot:
          break;
      }
      filters_[id.index()] = filter;
    }
  }
  static NodeFilter either(const NodeFilter& a, const NodeFilter& b) {
    const std::uint32_t kinds = a.kinds | b.kinds;
    if (a.any_op || b.any_op) return {kinds, true, 0, {}};
    std::array<OpId, 2 * NodeFilter::kMaxOps> ops;
    auto end = std::set_union(a.op_list().begin(), a.op_list().end(), b.op_list().begin(),
                              b.op_list().end(), ops.begin());
    return NodeFilter::of_ops(kinds, {ops.begin(), end});
  }
  static NodeFilter both(const NodeFilter& a, const NodeFilter& b) {
    const std::uint32_t kinds = a.kinds & b.kinds;
    if (a.any_op || b.any_op) {
      NodeFilter result = a.any_op ? b : a;
      result.kinds = kinds;
      return result;
    }
    std::array<OpId, NodeFilter::kMaxOps> ops;
    auto end = std::set_intersection(a.op_list().begin(), a.op_list().end(), b.op_list().begin(),
                                     b.op_list().end(), ops.begin());
    return NodeFilter::of_ops(kinds, {ops.begin(), end});
  }

  static constexpr DialectConventions kConventions = dialect_conventions<D>();

  // One pattern is compiled once per store and dialect (detail::CompiledCache); several roots
  // (a graph pattern's nodes) each time.
  static std::shared_ptr<const detail::CompiledPattern> compile(std::span<const Pattern> roots) {
    auto make = [roots] {
      return std::make_shared<const detail::CompiledPattern>(roots, kConventions);
    };
    if (roots.size() != 1) return make();
    auto [cache, root] = detail::compiled_cache(roots.front());
    return cache->get(root, &kConventions, make);
  }

  std::shared_ptr<const detail::CompiledPattern> compiled_;
  const Graph<D>& graph_;
  MatchOptions options_;
  std::vector<OpId> op_ids_;  // per pattern id: the op an is_op pattern names
  OpId add_op_, multiply_op_, divide_op_;
  std::vector<NodeFilter> filters_;  // per pattern id

  // What a pattern node bound: one node inline (most bind one; a dominator path and a
  // recursive pattern one per use).
  using Memo = absl::InlinedVector<NodeId, 1>;
  std::vector<Memo> memo_;                 // per pattern id, Relay's memo_
  std::vector<PatternId> touched_;         // patterns whose memo is non-empty (or was)
  std::vector<PatternId> collect_ids_;     // collect()'s scratch
  std::vector<PatternId> trail_;           // Relay's matched_nodes_
  std::vector<UnorderedSearch> unordered_searches_;  // one per open unordered tuple frame
  std::vector<Frame> frames_;
  bool memoize_ = true;
  std::vector<std::uint32_t> path_walked_;  // per node: the epoch of the walk it held in
  std::uint32_t path_walk_epoch_ = 0;
  NodeId scope_;
  std::optional<PostDominatorTree> tree_;
  NodeId tree_scope_;
  absl::flat_hash_map<std::pair<std::uint32_t, std::uint32_t>, bool> expr_cache_;

  bool explaining_ = false;
  const NodeNames* names_ = nullptr;  // explain()'s while it runs; graph ids otherwise
  std::vector<std::string> warnings_;
  std::uint64_t step_limit_;
  std::vector<NodeId> stopped_;
  bool lifted_ = false;
  Pending pending_;
};

template <Dialect D>
Match match(const Pattern& pattern, const Graph<D>& graph, NodeId node, MatchOptions options) {
  return Matcher<D>(pattern, graph, options).match(node);
}

template <Dialect D>
std::vector<Match> find_matches(const Pattern& pattern, const Graph<D>& graph, NodeId root,
                                MatchOptions options) {
  return Matcher<D>(pattern, graph, options).find_matches(root);
}

}  // namespace graphpat
