// Rewrite rules as text, egg-style: `pattern => replacement`, both written as terms in the
// dialect's own op names, applied with rewrite() (transform/rewrite.hpp) to a bounded fixed point.
//
//   absl::StatusOr<graphpat::RewriteRules> rules = graphpat::parse_rewrite_rules(R"(
//     # Relay
//     double_relu: nn.relu(nn.relu(%x)) => nn.relu(%x)
//     nn.conv2d(%x, %w, strides=[1, 1]) => nn.conv2d(%x, %w, strides=[2, 2])
//   )");
//   auto result = graphpat::apply_rewrite_rules(*rules, module);   // every function of it
//   for (const auto& rule : result->callbacks) fmt::print("{}: {}\n", rule.name, rule.rewrites);
//
// The text: one rule per line (a rule may go on while a parenthesis or bracket is open), `#`
// to the end of a line is a comment. A rule is `[name:] term => term`; unnamed rules are named
// `line N`. A term is a variable (a name, with or without Relay's `%`) or a call
// `op(argument, ..., key=value, ...)`, where op is the dialect's name (`nn.relu`, `Relu`) and a
// value is an integer, a float, a string in double quotes, True, False, None or a list of
// values in brackets.
//
// The pattern: a call term is is_op(op) of its arguments, with has_attr of its `key=value`s; a
// variable is a wildcard, one node however often it is written (`add(%x, %x)` matches an add
// of one node twice); the pattern's top must be a call. The replacement: a variable is the node
// the pattern bound; a term written exactly as one of the pattern's is the node that term bound
// (`nn.relu(%x)` above keeps the inner relu itself, its name and type); another call is built,
// with the attributes of the pattern's first call of the same op (copied), overridden by the
// `key=value`s written, and the dialect's defaults for the rest where it has canonical
// attributes (Relay). Rules apply as rewrite() callbacks in file order (RewriteOptions: budget,
// modes, opaque functions), and the result counts each rule's rewrites.
//
// Errors, located at line:column of the rules text: `rewrite_rules.syntax`,
// `rewrite_rules.unbound_name` (a replacement's variable the pattern does not bind),
// `rewrite_rules.bad_pattern` (a pattern that is a variable), `rewrite_rules.unknown_op` (an op
// the graph's dialect does not have, refused before anything is rewritten) and
// `rewrite_rules.bad_replacement` (attributes the dialect refuses for the op, found when a rule
// first applies; the rewrite is then abandoned and nothing is returned but the error).
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>
#include <absl/status/statusor.h>
#include <absl/strings/numbers.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/detail/text_map.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/module.hpp"
#include "graphpat/pattern/dsl.hpp"
#include "graphpat/transform/rewrite.hpp"

#include "graphpat/detail/status_macros.hpp"  // the last include: undefined at the end

namespace graphpat {

/// A term of a rule: a variable, or a call of an op.
struct RuleTerm {
  enum class Kind : std::uint8_t { kVariable, kCall };
  Kind kind = Kind::kVariable;
  std::string name;                  // the variable's (without `%`) or the op's
  std::vector<std::uint32_t> args;   // kCall: the arguments, indexes into RewriteRules::terms
  PatternAttrs attrs;                // kCall: the `key=value`s, in the order written
  std::uint32_t line = 0, column = 0;
};

struct RewriteRule {
  std::string name;
  std::uint32_t pattern = 0, replacement = 0;  // indexes into RewriteRules::terms
};

struct RewriteRules {
  std::vector<RuleTerm> terms;
  std::vector<RewriteRule> rules;
};

namespace detail {

/// The terms of the tree at `root`, each before its arguments (walked with a stack, not
/// recursion: a term may have any number of arguments). Backwards, each comes after them.
inline std::vector<std::uint32_t> terms_top_down(const RewriteRules& rules, std::uint32_t root) {
  std::vector<std::uint32_t> order;
  std::vector<std::uint32_t> stack{root};
  while (!stack.empty()) {
    std::uint32_t term = stack.back();
    stack.pop_back();
    order.push_back(term);
    for (std::uint32_t argument : rules.terms[term].args) stack.push_back(argument);
  }
  return order;
}

/// Reads rules text (see the top of this file).
class RewriteRuleParser {
 public:
  explicit RewriteRuleParser(std::string_view text) : text_(text) {}

  absl::StatusOr<RewriteRules> parse() {
    while (true) {
      skip_blank(/*newlines=*/true);
      if (at_ >= text_.size()) break;
      GRAPHPAT_RETURN_IF_ERROR(parse_rule());
    }
    return std::move(rules_);
  }

 private:
  static constexpr std::uint32_t kMaxDepth = 256;

  // The error rewrite_rules.<what> at line:column.
  static absl::Status rule_error(std::string_view what, std::uint32_t line, std::uint32_t column,
                                std::string_view problem) {
    return make_error(absl::StatusCode::kInvalidArgument, fmt::format("rewrite_rules.{}", what),
                      fmt::format("{}:{}: {}", line, column, problem));
  }
  absl::Status syntax(std::string_view problem) const {
    return rule_error("syntax", line_, column(), problem);
  }
  [[nodiscard]] std::uint32_t column() const {
    return static_cast<std::uint32_t>(at_ - line_start_) + 1;
  }

  // Spaces and comments; newlines too inside brackets (`newlines`).
  void skip_blank(bool newlines) {
    while (at_ < text_.size()) {
      char c = text_[at_];
      if (c == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == '\n' && newlines) {
        ++at_;
        ++line_;
        line_start_ = at_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++at_;
      } else {
        break;
      }
    }
  }
  bool accept(std::string_view token) {
    skip_blank(depth_ > 0);
    if (text_.substr(at_).starts_with(token)) {
      at_ += token.size();
      return true;
    }
    return false;
  }
  absl::Status expect(std::string_view token, std::string_view what) {
    if (accept(token)) return absl::OkStatus();
    return syntax(fmt::format("expected {}", what));
  }
  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9') || c == '.'; }
  // A name (`%` dropped), or "" when none starts here.
  std::string_view name() {
    skip_blank(depth_ > 0);
    std::size_t start = at_;
    if (at_ < text_.size() && text_[at_] == '%') ++at_;
    if (at_ >= text_.size() || !name_start(text_[at_])) {
      at_ = start;
      return {};
    }
    std::size_t first = at_;
    while (at_ < text_.size() && name_char(text_[at_])) ++at_;
    return text_.substr(first, at_ - first);
  }

  absl::Status parse_rule() {
    const std::uint32_t line = line_;
    std::size_t start = at_;
    std::string rule_name;
    if (std::string_view word = name(); !word.empty() && accept(":")) {
      rule_name = std::string(word);
    } else {
      at_ = start;
      rule_name = fmt::format("line {}", line);
    }
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t pattern, parse_term(0));
    GRAPHPAT_RETURN_IF_ERROR(expect("=>", "'=>' between the pattern and its replacement"));
    GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t replacement, parse_term(0));
    skip_blank(false);
    if (at_ < text_.size() && text_[at_] != '\n') return syntax("expected the end of the rule");
    const RuleTerm& top = rules_.terms[pattern];
    if (top.kind == RuleTerm::Kind::kVariable) {
      return rule_error("bad_pattern", top.line, top.column,
                   fmt::format("the pattern is the variable '{}', which matches every node; "
                               "a pattern starts with a call",
                               top.name));
    }
    GRAPHPAT_RETURN_IF_ERROR(check_bound(pattern, replacement));
    rules_.rules.push_back({std::move(rule_name), pattern, replacement});
    return absl::OkStatus();
  }

  // Every variable of `replacement` is one of `pattern`'s.
  absl::Status check_bound(std::uint32_t pattern, std::uint32_t replacement) const {
    graphpat::detail::TextSet bound;
    for (std::uint32_t term_id : terms_top_down(rules_, pattern)) {
      const RuleTerm& term = rules_.terms[term_id];
      if (term.kind == RuleTerm::Kind::kVariable) bound.insert(term.name);
    }
    for (std::uint32_t term_id : terms_top_down(rules_, replacement)) {
      const RuleTerm& term = rules_.terms[term_id];
      if (term.kind == RuleTerm::Kind::kVariable && !bound.contains(term.name)) {
        return rule_error("unbound_name", term.line, term.column,
                     fmt::format("'{}' is not a variable of the rule's pattern", term.name));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::uint32_t> parse_term(std::uint32_t depth) {
    if (depth > kMaxDepth) return syntax(fmt::format("terms nest deeper than {}", kMaxDepth));
    skip_blank(depth_ > 0);
    RuleTerm term;
    term.line = line_;
    term.column = column();
    std::string_view word = name();
    if (word.empty()) return syntax("expected a variable or an op's call");
    term.name = std::string(word);
    if (accept("(")) {
      term.kind = RuleTerm::Kind::kCall;
      ++depth_;
      if (!accept(")")) {
        do {
          skip_blank(true);
          std::size_t start = at_;
          std::string_view key = name();
          if (!key.empty() && accept("=") && !accept(">")) {
            GRAPHPAT_ASSIGN_OR_RETURN(PatternValue value, parse_value(depth + 1));
            term.attrs.emplace_back(std::string(key), std::move(value));
            continue;
          }
          at_ = start;
          if (!term.attrs.empty()) return syntax("an argument after a key=value attribute");
          GRAPHPAT_ASSIGN_OR_RETURN(std::uint32_t argument, parse_term(depth + 1));
          term.args.push_back(argument);
        } while (accept(","));
        GRAPHPAT_RETURN_IF_ERROR(expect(")", "',' or ')' after an argument"));
      }
      --depth_;
    }
    rules_.terms.push_back(std::move(term));
    return static_cast<std::uint32_t>(rules_.terms.size() - 1);
  }

  absl::StatusOr<PatternValue> parse_value(std::uint32_t depth) {
    if (depth > kMaxDepth) return syntax(fmt::format("values nest deeper than {}", kMaxDepth));
    skip_blank(true);
    if (accept("[")) {
      std::vector<PatternValue> elements;
      if (!accept("]")) {
        do {
          GRAPHPAT_ASSIGN_OR_RETURN(PatternValue element, parse_value(depth + 1));
          elements.push_back(std::move(element));
        } while (accept(","));
        GRAPHPAT_RETURN_IF_ERROR(expect("]", "',' or ']' in a list"));
      }
      return PatternValue::array(std::move(elements));
    }
    if (at_ < text_.size() && text_[at_] == '"') {
      std::string value;
      for (++at_; at_ < text_.size() && text_[at_] != '"' && text_[at_] != '\n'; ++at_) {
        if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
        value += text_[at_];
      }
      if (at_ >= text_.size() || text_[at_] != '"') return syntax("unterminated string");
      ++at_;
      return PatternValue(std::move(value));
    }
    std::string_view word = name();
    if (word == "True" || word == "False") return PatternValue::boolean(word == "True");
    if (word == "None") return PatternValue();
    if (!word.empty()) return syntax(fmt::format("'{}' is not a value", word));
    std::size_t start = at_;
    if (at_ < text_.size() && (text_[at_] == '-' || text_[at_] == '+')) ++at_;
    while (at_ < text_.size() &&
           ((text_[at_] >= '0' && text_[at_] <= '9') || text_[at_] == '.' || text_[at_] == 'e' ||
            text_[at_] == 'E' ||
            ((text_[at_] == '-' || text_[at_] == '+') && (text_[at_ - 1] | 0x20) == 'e'))) {
      ++at_;
    }
    std::string number(text_.substr(start, at_ - start));
    std::int64_t integer = 0;
    double floating = 0;
    if (absl::SimpleAtoi(number, &integer)) return PatternValue(integer);
    if (number.find_first_of(".eE") != std::string::npos && absl::SimpleAtod(number, &floating)) {
      return PatternValue(floating);
    }
    at_ = start;
    return syntax("expected a value (a number, a string, True, False, None or a list)");
  }

  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_start_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t depth_ = 0;  // open parentheses: newlines are spaces inside
  RewriteRules rules_;
};

/// An attribute value of a rule as a value of `attrs`.
inline AttrValueId rule_attr_value(const PatternValue& value, AttrTable& attrs) {
  switch (value.kind) {
    case PatternValue::Kind::kNull: return attrs.null();
    case PatternValue::Kind::kBool: return attrs.boolean(value.integer != 0);
    case PatternValue::Kind::kInt: return attrs.integer(value.integer);
    case PatternValue::Kind::kFloat: return attrs.floating(value.floating, 64);
    case PatternValue::Kind::kString: return attrs.string(value.text);
    case PatternValue::Kind::kArray: {
      std::vector<AttrValueId> elements;
      for (const PatternValue& element : value.elements) {
        elements.push_back(rule_attr_value(element, attrs));
      }
      return attrs.array(elements);
    }
  }
  return attrs.null();
}

/// Classes of terms by how they are written: two terms get one class exactly when they are
/// written alike (one kind, name and attributes, and arguments of the same classes in order).
/// Interning each term's class from its arguments' finds a term's equals in one hash look-up,
/// where comparing it with every other term would be quadratic in a long rule.
class WrittenTermClasses {
 public:
  explicit WrittenTermClasses(const RewriteRules& rules) : rules_(&rules) {}

  /// The class of `term`, whose arguments have been given theirs.
  std::uint32_t add(std::uint32_t term) {
    const RuleTerm& written = rules_->terms[term];
    Key key{.term = &written, .argument_classes = {}};
    key.argument_classes.reserve(written.args.size());
    for (std::uint32_t argument : written.args) {
      key.argument_classes.push_back(class_of_.at(argument));
    }
    const auto next_class = static_cast<std::uint32_t>(classes_.size());
    const std::uint32_t term_class = classes_.try_emplace(std::move(key), next_class).first->second;
    class_of_.emplace(term, term_class);
    return term_class;
  }

 private:
  struct Key {
    const RuleTerm* term = nullptr;  // its kind, name and attributes
    std::vector<std::uint32_t> argument_classes;
    friend bool operator==(const Key& a, const Key& b) {
      return a.term->kind == b.term->kind && a.term->name == b.term->name &&
             a.term->attrs == b.term->attrs && a.argument_classes == b.argument_classes;
    }
    template <typename H>
    friend H AbslHashValue(H state, const Key& key) {
      return H::combine(std::move(state), key.term->kind, key.term->name, key.term->attrs,
                        key.argument_classes);
    }
  };
  const RewriteRules* rules_;
  absl::flat_hash_map<Key, std::uint32_t> classes_;
  absl::flat_hash_map<std::uint32_t, std::uint32_t> class_of_;  // by term id
};

/// One rule as a rewrite() callback: its pattern, and a replacement builder whose first failure
/// goes to `failure`.
template <Dialect D>
RewriteCallback<D> rule_callback(const RewriteRules& rules, const RewriteRule& rule,
                                 std::shared_ptr<absl::Status> failure) {
  // The pattern node of every term of the pattern (a variable's one node for all its uses),
  // built from the leaves up: terms come after their arguments. Where several pattern terms
  // could serve (a replacement term written as more than one of them, a replacement call of an
  // op the pattern calls more than once), the first built serves.
  WrittenTermClasses classes(rules);
  absl::flat_hash_map<std::uint32_t, Pattern> pattern_of_term;
  graphpat::detail::TextMap<Pattern> variables;
  absl::flat_hash_map<std::uint32_t, Pattern> first_pattern_of_class;
  graphpat::detail::TextMap<Pattern> first_call_of_op;
  const std::vector<std::uint32_t> pattern_terms = terms_top_down(rules, rule.pattern);
  for (auto it = pattern_terms.rbegin(); it != pattern_terms.rend(); ++it) {
    const RuleTerm& term = rules.terms[*it];
    const Pattern made = [&]() -> Pattern {
      if (term.kind == RuleTerm::Kind::kVariable) {
        auto known = variables.find(term.name);
        if (known == variables.end()) known = variables.emplace(term.name, dsl::wildcard()).first;
        return known->second;
      }
      std::vector<Pattern> args;
      args.reserve(term.args.size());
      for (std::uint32_t argument : term.args) args.push_back(pattern_of_term.at(argument));
      Pattern call = dsl::is_op(term.name).call(args);
      return term.attrs.empty() ? call : call.has_attr(term.attrs);
    }();
    if (term.kind == RuleTerm::Kind::kCall) first_call_of_op.try_emplace(term.name, made);
    first_pattern_of_class.try_emplace(classes.add(*it), made);
    pattern_of_term.emplace(*it, made);
  }
  const Pattern top = pattern_of_term.at(rule.pattern);

  // The pattern term each replacement term is written as, if any.
  absl::flat_hash_map<std::uint32_t, Pattern> reusable;
  const std::vector<std::uint32_t> replacement_terms = terms_top_down(rules, rule.replacement);
  for (auto it = replacement_terms.rbegin(); it != replacement_terms.rend(); ++it) {
    auto same = first_pattern_of_class.find(classes.add(*it));
    if (same != first_pattern_of_class.end()) reusable.emplace(*it, same->second);
  }

  // The replacement as steps in post-order, fixed once per rule: a term written exactly as a
  // pattern term is that term's node; any other is a call of its arguments' steps, with the
  // attributes of the pattern's first call of its op (if any) under those written.
  struct Step {
    std::uint32_t term = 0;
    std::optional<Pattern> reused;      // the pattern term whose node this term is
    std::vector<std::size_t> args;      // steps, for a call built
    std::optional<Pattern> attrs_from;  // the pattern call whose attributes are copied
  };
  auto steps = std::make_shared<std::vector<Step>>();
  std::vector<std::pair<std::uint32_t, std::size_t>> frames{{rule.replacement, 0}};
  std::vector<std::size_t> done;  // the steps of the finished arguments of the open frames
  while (!frames.empty()) {
    const std::uint32_t term_id = frames.back().first;
    std::size_t& next = frames.back().second;
    const RuleTerm& term = rules.terms[term_id];
    if (next == 0) {
      if (auto same = reusable.find(term_id); same != reusable.end()) {
        steps->push_back({.term = term_id, .reused = same->second, .args = {}, .attrs_from = {}});
        done.push_back(steps->size() - 1);
        frames.pop_back();
        continue;
      }
    }
    if (next < term.args.size()) {
      frames.emplace_back(term.args[next++], 0);
      continue;
    }
    Step step{.term = term_id, .reused = {}, .args = {}, .attrs_from = {}};
    step.args.assign(done.end() - static_cast<std::ptrdiff_t>(term.args.size()), done.end());
    done.resize(done.size() - term.args.size());
    if (auto source = first_call_of_op.find(term.name); source != first_call_of_op.end()) {
      step.attrs_from = source->second;
    }
    steps->push_back(std::move(step));
    done.push_back(steps->size() - 1);
    frames.pop_back();
  }

  auto build = [&rules, steps, failure](NodeId, NodeId post, const RewriteBindings& bound,
                                        Rewriter<D>& rewriter) {
    if (!failure->ok()) return post;
    Graph<D>& graph = rewriter.graph();
    Context& context = graph.context();
    std::vector<NodeId> made;  // per step
    made.reserve(steps->size());
    for (const Step& step : *steps) {
      if (step.reused) {
        made.push_back(bound.bound(*step.reused));
        continue;
      }
      const RuleTerm& term = rules.terms[step.term];
      std::vector<NodeId> args;
      for (std::size_t argument : step.args) args.push_back(made[argument]);
      std::vector<AttrField> fields;
      NodeId matched = step.attrs_from ? bound.bound(*step.attrs_from) : NodeId();
      AttrValueId copied = matched.valid() ? graph.attrs(matched) : AttrValueId();
      if (copied.valid() && context.attrs.kind(copied) == AttrKind::kObject) {
        for (std::size_t k = 0; k < context.attrs.entry_count(copied); ++k) {
          fields.push_back({context.attrs.field_key(copied, k), context.attrs.entry_value(copied, k)});
        }
      }
      // A written key replaces the value of the first field of that key, or comes last. The
      // fields are indexed by key once: a call may be written with any number of attributes.
      absl::flat_hash_map<StringId, std::size_t> field_of_key;
      if (!term.attrs.empty()) {
        for (std::size_t k = 0; k < fields.size(); ++k) field_of_key.try_emplace(fields[k].key, k);
      }
      for (const auto& [key, value] : term.attrs) {
        StringId interned = context.strings.intern(key);
        AttrValueId written_value = rule_attr_value(value, context.attrs);
        auto [field, added] = field_of_key.try_emplace(interned, fields.size());
        if (added) {
          fields.push_back({interned, written_value});
        } else {
          fields[field->second].value = written_value;
        }
      }
      absl::StatusOr<AttrValueId> attrs = AttrValueId();
      if constexpr (CanonicalisesCallAttrs<D>) {
        attrs = D::canonical_call_attrs(context, term.name, fields);
      } else if (!fields.empty()) {
        attrs = context.attrs.object(term.name, fields);
      }
      if (!attrs.ok()) {
        *failure = make_error(absl::StatusCode::kInvalidArgument, "rewrite_rules.bad_replacement",
                              fmt::format("{}:{}: {}", term.line, term.column,
                                          error_problem(attrs.status())));
        return post;
      }
      made.push_back(rewriter.builder().call(term.name, args,
                                             {.attrs = *attrs, .fresh = rewriter.fresh_calls()}));
    }
    return made.back();
  };
  return RewriteCallback<D>{.name = rule.name, .pattern = top, .rewrite = build,
                            .rewrite_once = false, .benefit = 0};
}

}  // namespace detail

/// Reads rules text (see the top of this file).
inline absl::StatusOr<RewriteRules> parse_rewrite_rules(std::string_view text) {
  return detail::RewriteRuleParser(text).parse();
}

/// Applies `rules` to every function of `module` with rewrite() (see the top of this file).
/// Refuses rules that name an op the module's dialect does not have.
template <Dialect D>
absl::StatusOr<ModuleRewriteResult<D>> apply_rewrite_rules(const RewriteRules& rules,
                                                           const Module<D>& module,
                                                           const RewriteOptions& options = {}) {
  const Context& context = module.graph.context();
  for (const RuleTerm& term : rules.terms) {
    if (term.kind == RuleTerm::Kind::kCall && !context.ops.find(term.name).valid()) {
      return make_error(absl::StatusCode::kInvalidArgument, "rewrite_rules.unknown_op",
                        fmt::format("{}:{}: the graph's dialect has no op '{}'", term.line,
                                    term.column, term.name));
    }
  }
  auto failure = std::make_shared<absl::Status>();
  std::vector<RewriteCallback<D>> callbacks;
  for (const RewriteRule& rule : rules.rules) {
    callbacks.push_back(detail::rule_callback<D>(rules, rule, failure));
  }
  ModuleRewriteResult<D> result = rewrite(callbacks, module, options);
  if (!failure->ok()) return *failure;
  return result;
}

}  // namespace graphpat

#include "graphpat/detail/status_macros_undef.hpp"
