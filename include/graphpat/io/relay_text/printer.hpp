// The Relay text printer (docs/relay-formats.md §1.1, §1.4-§1.9): reproduces TVM v0.14's
// `astext()` / `str()` byte for byte — the scope / inline / `%N` algorithm of §1.8 (post-order
// DFS, op before args, bindings emitted when their consumer is rendered, one counter and one
// name allocator for the whole print), annotations, meta numbering and the envelopes.
// Nothing recurses: dataflow is walked with an explicit stack, and a scope nested in another
// (a fn body, an if branch, a let value) is printed by tasks on a stack, not by a call.
//
//   detail::RelayTextPrinter printer(module.graph, relay::TextEnvelope::kStr);
//   std::string text = printer.print_module(module);
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphpat/io/relay_text/metadata.hpp"
#include "graphpat/io/relay_text/metadata_writer.hpp"
#include "graphpat/io/relay_text/options.hpp"
#include "graphpat/relay/dialect.hpp"
#include "graphpat/relay/text/attributes.hpp"
#include "graphpat/relay/text/literals.hpp"

namespace graphpat::detail {

inline constexpr std::string_view kOmittedTrailer =
    "/* For debugging purposes the metadata section has been omitted.\n"
    " * If you would like to see the full metadata section you can set the \n"
    " * option to `True` when invoking `astext`. \n"
    " */";

// The bytes of `pieces` together.
inline std::size_t total_size(std::span<const std::string> pieces) {
  std::size_t size = 0;
  for (const std::string& piece : pieces) size += piece.size();
  return size;
}

// TVM's Doc::Indent(2, ...) adds two spaces after every line feed of a block. Indenting each
// block as it is built copies it once per enclosing block, so fns or ifs nested D deep cost
// O(D^3); instead append_block() only brackets the block with two marker bytes, and
// expand_into() turns the brackets into spaces once, when the whole text is written out. The
// markers are ASCII control bytes that occur in no string of the context: every printed text that
// is not the printer's own (names, spans, attribute strings, dtypes) is one of them, so a marker is
// never a byte of the model's. When the strings use up every candidate, blocks are indented as they
// are built.
//
//   BlockIndenter indenter(context.strings);
//   std::string text = "{";
//   indenter.append_block(text, "body");
//   std::string out;
//   indenter.expand_into(out, text + "\n}");   // out == "{\n  body\n}"
class BlockIndenter {
 public:
  explicit BlockIndenter(const StringPool& strings) {
    for (int byte = 1; byte < 0x80; ++byte) {
      bool control = byte < 0x20 || byte == 0x7F;
      bool printed_as_is = byte == '\t' || byte == '\n' || byte == '\r';
      if (!control || printed_as_is || strings.holds_control_byte(static_cast<unsigned char>(byte))) {
        continue;
      }
      if (in_ != 0) {
        out_ = static_cast<char>(byte);
        break;
      }
      in_ = static_cast<char>(byte);
    }
    if (out_ == 0) in_ = 0;  // fewer than two are free
  }

  /// Appends a line feed and `text` to `out` as a block indented by two more spaces after each
  /// of its line feeds (a function's body is most of a big module's text: it is copied once).
  void append_block(std::string& out, std::string_view text) const { append_block(out, {}, text); }
  /// The same for a block given as `pieces`, then `rest` (a scope's lines, then its body),
  /// which are not joined first.
  void append_block(std::string& out, std::span<const std::string> pieces,
                    std::string_view rest) const {
    out.reserve(out.size() + total_size(pieces) + rest.size() + 4);
    if (!deferred()) {
      out += "\n  ";
      for (const std::string& piece : pieces) append_indented(out, piece, 1);
      append_indented(out, rest, 1);
      return;
    }
    out += in_;
    out += '\n';
    for (const std::string& piece : pieces) out += piece;
    out += rest;
    out += out_;
  }

  /// Appends the finished text, every block's indentation in place, of `text`.
  void expand_into(std::string& out, std::string_view text) const {
    std::size_t level = 0;
    expand_into(out, text, level);
  }
  /// The same for a text given as `pieces`, then `rest` (a scope's lines, then its result),
  /// which are not joined first.
  void expand_into(std::string& out, std::span<const std::string> pieces,
                   std::string_view rest) const {
    std::size_t level = 0;
    expand_pieces_into(out, pieces, rest, level);
  }
  /// Appends the expansion of the block append_block(pieces, rest) would append, without
  /// building it: a definition's body, written once.
  void expand_block_into(std::string& out, std::span<const std::string> pieces,
                         std::string_view rest) const {
    if (!deferred()) {
      append_block(out, pieces, rest);  // indented as appended; nothing to expand
      return;
    }
    out += "\n  ";  // the opening marker, then its line feed at the block's level
    std::size_t level = 1;
    expand_pieces_into(out, pieces, rest, level);
  }

 private:
  // expand_into from block depth `level`, left at the depth the text ends at: a text expanded
  // in pieces reads as the pieces joined.
  void expand_into(std::string& out, std::string_view text, std::size_t& level) const {
    if (!deferred()) {
      out += text;
      return;
    }
    out.reserve(out.size() + text.size() + text.size() / 4);
    // The next of each stop byte is found with a memchr-like search, each searched again only
    // once passed: a lookup per byte of the text cost 9% of a print.
    auto next = [&](char byte, std::size_t from) {
      return std::min(text.find(byte, from), text.size());
    };
    std::size_t next_in = next(in_, 0);
    std::size_t next_out = next(out_, 0);
    std::size_t next_line_feed = next('\n', 0);
    std::size_t start = 0;
    while (true) {
      const std::size_t stop = std::min({next_in, next_out, next_line_feed});
      out.append(text.substr(start, stop - start));
      if (stop == text.size()) break;
      if (stop == next_in) {
        ++level;
        next_in = next(in_, stop + 1);
      } else if (stop == next_out) {
        level -= level > 0;
        next_out = next(out_, stop + 1);
      } else {
        out += '\n';
        out.append(2 * level, ' ');
        next_line_feed = next('\n', stop + 1);
      }
      start = stop + 1;
    }
  }

  [[nodiscard]] bool deferred() const { return in_ != 0; }
  void expand_pieces_into(std::string& out, std::span<const std::string> pieces,
                          std::string_view rest, std::size_t& level) const {
    const std::size_t size = total_size(pieces) + rest.size();
    out.reserve(out.size() + size + size / 4);
    for (const std::string& piece : pieces) expand_into(out, piece, level);
    expand_into(out, rest, level);
  }

  // Appends `text` with 2 * `levels` spaces after each of its line feeds.
  static void append_indented(std::string& out, std::string_view text, std::size_t levels) {
    for (std::size_t start = 0; start < text.size();) {
      std::size_t line_feed = std::min(text.find('\n', start), text.size());
      out.append(text.substr(start, line_feed - start));
      if (line_feed == text.size()) break;
      out += '\n';
      out.append(2 * levels, ' ');
      start = line_feed + 1;
    }
  }

  char in_ = 0;  // 0: no marker bytes free, blocks are indented as built
  char out_ = 0;
};

// The lines of a scope being printed, each ended by a line feed, in pieces of up to about
// 64 KB: one string per line cost an allocation per binding, and one string per scope, doubling
// as a million-line body grew, was copied and faulted in again at each doubling. The first
// piece grows as lines come (most scopes are small); once a scope fills one, each next piece
// is made full size at once.
//
//   ScopeLines lines;
//   lines.line() += "%0 = nn.relu(%x);\n";
//   std::string text;
//   lines.append_to(text);   // "%0 = nn.relu(%x);\n"
class ScopeLines {
 public:
  /// The piece to append a line to (the caller ends it with a line feed).
  std::string& line() {
    if (pieces_.empty()) {
      pieces_.emplace_back();
    } else if (pieces_.back().size() >= kPieceBytes) {
      pieces_.emplace_back().reserve(kPieceBytes + kLineSlack);
    }
    return pieces_.back();
  }
  [[nodiscard]] std::size_t size() const { return total_size(pieces_); }
  void append_to(std::string& out) const {
    for (const std::string& piece : pieces_) out += piece;
  }
  [[nodiscard]] std::span<const std::string> pieces() const { return pieces_; }

 private:
  static constexpr std::size_t kPieceBytes = std::size_t{64} << 10;
  static constexpr std::size_t kLineSlack = 4096;  // the line that fills a piece goes past it
  std::vector<std::string> pieces_;
};

// What printing learns of a context's interned types and attribute values that holds for every
// module of the context: the text of each type that prints with no refusal and no meta
// reference, and the attribute values check_attrs passes with neither. Kept with the context
// (Context::derived): a second print of its modules starts with them.
struct RelayTextPrintMemo {
  explicit RelayTextPrintMemo(Context& /*context*/) {}
  absl::flat_hash_map<TypeId, std::string> type_texts;
  absl::flat_hash_set<std::pair<std::uint32_t, bool>> checked_attrs;  // (attrs, call)
};

class RelayTextPrinter {
 public:
  RelayTextPrinter(const relay::Graph& graph, relay::TextEnvelope envelope)
      : graph_(graph),
        context_(graph.context()),
        envelope_(envelope),
        cache_(AttrSchemaCache::of(graph.context())),  // only interns the schemas' defaults
        memo_(graph.context().derived<RelayTextPrintMemo>()),
        indenter_(graph.context().strings),
        parents_(graph.size(), 0),
        temps_(graph.size(), kUnbound),
        leaf_texts_(graph.size()),
        has_leaf_text_(graph.size(), false),
        declared_(graph.size(), false),
        annotated_(graph.size(), false) {
    // The memos a model fills with a few dozen entries (distinct types, attributes, constants)
    // start at that size rather than doubling up to it.
    const std::size_t few = std::min<std::size_t>(graph.size(), kFewEntries);
    type_texts_.reserve(few);
    checked_attrs_.reserve(few);
    meta_index_.reserve(few);
  }

  /// The module's text, or `relay_text.unprintable` naming the first node with a name the
  /// reader would not read back as written.
  absl::StatusOr<std::string> print_module(const relay::Module& module) {
    std::string out = header();
    std::vector<const GlobalFunction*> functions;
    for (const GlobalFunction& function : module.functions()) functions.push_back(&function);
    std::sort(functions.begin(), functions.end(), [&](const auto* a, const auto* b) {
      return module.name(*a) < module.name(*b);
    });
    bool first = true;
    for (const GlobalFunction* function : functions) {
      if (!first) out += '\n';
      first = false;
      count_parents(function->function);
      if (!is_relay_global_name(module.name(*function))) {
        refuse(function->function, "function name", module.name(*function), kIdentifierRule);
      }
      print_definition(out, function->function, fmt::format("def @{}", module.name(*function)));
      out += '\n';
    }
    if (!status_.ok()) return status_;
    append_trailer(out, module.text_metadata, /*is_module=*/true);
    return out;
  }

  /// The expression's text, or `relay_text.unprintable` as print_module.
  absl::StatusOr<std::string> print_expression(NodeId root, std::string_view kept_metadata = {}) {
    std::string out = header();
    count_parents(root);
    scopes_.emplace_back();
    std::string result = print_expr(root, /*try_inline=*/true);
    indenter_.expand_into(out, scopes_.back().pieces(), result);
    scopes_.pop_back();
    if (!status_.ok()) return status_;
    append_trailer(out, kept_metadata, /*is_module=*/false);
    return out;
  }

  /// After a print: the `N` of the `%N = ...` line `node` was printed on, or nullopt when it
  /// was printed inline (tools use it to map nodes to lines of the text).
  [[nodiscard]] std::optional<std::uint32_t> binding_number(NodeId node) const {
    if (temps_[node.index()] == kUnbound) return std::nullopt;
    return temps_[node.index()];
  }

 private:
  [[nodiscard]] std::string header() const {
    return envelope_ == relay::TextEnvelope::kStr ? std::string()
                                                  : std::string("#[version = \"0.0.5\"]\n");
  }

  void append_trailer(std::string& out, std::string_view kept, bool is_module) {
    if (meta_order_.empty()) return;
    switch (envelope_) {
      case relay::TextEnvelope::kStr:
        out += '\n';
        return;
      case relay::TextEnvelope::kAstextNoMeta:
        out += '\n';
        out += kOmittedTrailer;
        return;
      case relay::TextEnvelope::kAstext: {
        std::optional<std::string> section = metadata_json(kept);
        if (!section) {
          // Not writable: the show_meta_data=False trailer, which reads back (a `#[metadata]`
          // line followed by the comment would not).
          out += '\n';
          out += kOmittedTrailer;
          return;
        }
        out += is_module ? "\n" : "";
        out += is_module ? "#[metadata]\n" : "\n#[metadata]\n";
        out += *section;
        return;
      }
    }
  }

  // The section read with the module when it still lists exactly what was printed (same keys
  // and counts, same constant contents in order); otherwise a fresh one for the constants, or
  // nullopt when that cannot be written.
  std::optional<std::string> metadata_json(std::string_view kept) {
    if (!kept.empty() && kept_section_matches(kept)) {
      std::size_t start = kept.find_first_not_of(" \t\r\n");
      return std::string(kept.substr(start == std::string_view::npos ? kept.size() : start));
    }
    return fresh_metadata();
  }

  bool kept_section_matches(std::string_view kept) {
    auto section = read_metadata(kept);
    if (!section.ok()) return false;
    if (section->keys.size() != meta_order_.size()) return false;
    for (const auto& [key, count] : meta_counts_) {
      if (section->count(key) != count) return false;
    }
    Context& context = const_cast<Context&>(context_);
    for (std::size_t i = 0; i < meta_constants_.size(); ++i) {
      const nlohmann::json* node = section->node("relay.Constant", static_cast<std::int64_t>(i));
      if (node == nullptr) return false;
      auto tensor = metadata_constant(context, *section, *node);
      if (!tensor.ok()) return false;
      const Tensor& printed = graph_.tensor(meta_constants_[i]);
      if (!printed.has_data()) continue;  // only the type was known: trust the section
      auto a = tensor->data->view();
      auto b = printed.data->view();
      if (tensor->dtype != printed.dtype || tensor->shape != printed.shape ||
          !std::equal(a.begin(), a.end(), b.begin(), b.end())) {
        return false;
      }
    }
    return true;
  }

  // A section for what graphpat knows of the printed constants (§3): each constant with its
  // bytes and type, TVM's shared unconstrained VirtualDevice, no object sharing beyond that.
  // Constants known only by their type (text read without its metadata section) cannot be
  // written: nullopt, and the caller prints the "omitted" comment as show_meta_data=False does.
  std::optional<std::string> fresh_metadata() {
    for (NodeId constant : meta_constants_) {
      if (!graph_.tensor(constant).has_data()) return std::nullopt;
    }
    return write_constants_metadata(context_, graph_, meta_constants_);
  }

  // ----- names the reader would not read back ---------------------------------------------
  static constexpr std::string_view kIdentifierRule =
      "an identifier (a letter or '_', then letters, digits, '_' or '/')";
  static constexpr std::string_view kOpNameRule =
      "identifiers (a letter or '_', then letters, digits, '_' or '/') joined by '.', the first "
      "not a keyword";
  static constexpr std::string_view kLocalNameRule =
      "letters, digits, '_' and '/', with '.' or '::' between them";

  // Records the first name that cannot be printed (print_module and print_expression return
  // it instead of the text): `node %3: op name 'a;b' is not identifiers ...`.
  void refuse(NodeId node, std::string_view problem) {
    ++findings_;
    if (!status_.ok()) return;
    status_ = make_error(absl::StatusCode::kInvalidArgument, "relay_text.unprintable",
                         fmt::format("node {}: {}", node, problem));
  }
  void refuse(NodeId node, std::string_view what, std::string_view name, std::string_view rule) {
    refuse(node, fmt::format("{} '{}' cannot be printed: it is not {}", what,
                             escape_unprintable(name), rule));
  }

  // A variable bound a second time (TVM's printer names it `%x-malformed-ir`, which no parser
  // reads): each binding in the text makes a new variable (fuzz_writer_roundtrip, session 16: a
  // graph JSON let binding the function's own parameter read back as a new `%x1`).
  void refuse_rebinding(NodeId var, std::string_view binder) {
    refuse(var, fmt::format("{} is bound by {} but was bound or declared before (a parameter, a "
                            "let or a free var): the text would read it back as two variables",
                            leaf_texts_[var.index()], binder));
  }

  // The keys of call attributes (`k=v`, identifiers, never attrs_type_key, which the reader
  // takes as the struct's name) or function attributes (dotted), and every name inside their
  // values: object fields `{k=v}` and global names `'g'` (identifiers), meta references.
  void check_attrs(NodeId node, AttrValueId attrs, bool call) {
    // What it finds depends on the attributes alone, and only the first refusal is kept:
    // interned attributes shared by many calls are checked once.
    if (memo_.checked_attrs.contains({attrs.index(), call}) ||
        !checked_attrs_.insert({attrs.index(), call}).second) {
      return;
    }
    const std::uint32_t findings = findings_;
    const AttrTable& table = context_.attrs;
    std::vector<AttrValueId>& values = attr_stack_;
    values.clear();
    for (std::size_t i = 0; i < table.entry_count(attrs); ++i) {
      std::string_view key = context_.strings.view(table.field_key(attrs, i));
      if (call ? !is_relay_identifier(key) || key == "attrs_type_key"
               : !is_relay_dotted_name(key)) {
        refuse(node, call ? "attribute name" : "function attribute name", key,
               call ? "an identifier other than attrs_type_key (a letter or '_', then letters, "
                      "digits, '_' or '/')"
                    : "identifiers (a letter or '_', then letters, digits, '_' or '/') joined "
                      "by '.'");
      }
      values.push_back(table.entry_value(attrs, i));
    }
    while (!values.empty()) {
      AttrValueId value = values.back();
      values.pop_back();
      if (table.kind(value) == AttrKind::kArray) {
        for (AttrValueId element : table.elements(value)) values.push_back(element);
      } else if (table.kind(value) == AttrKind::kMap) {
        for (std::size_t i = 0; i < table.entry_count(value); ++i) {
          values.push_back(table.map_key(value, i));
          values.push_back(table.entry_value(value, i));
        }
      } else if (table.kind(value) == AttrKind::kObject) {
        if (cache_.meta_index(value)) {
          check_meta_text(node, "attribute value", cache_.value_text(value));
        } else if (cache_.value_text(value).starts_with("'")) {  // a GlobalVar: 'name'
          std::string_view global = table.text(table.entry_value(value, 0));
          if (!is_relay_identifier(global)) refuse(node, "global name", global, kIdentifierRule);
        } else {
          for (std::size_t i = 0; i < table.entry_count(value); ++i) {
            std::string_view key = context_.strings.view(table.field_key(value, i));
            if (!is_relay_identifier(key)) {
              refuse(node, "attribute field name", key, kIdentifierRule);
            }
            values.push_back(table.entry_value(value, i));
          }
        }
      }
    }
    if (findings_ == findings) memo_.checked_attrs.insert({attrs.index(), call});
  }

  // ----- dependency graph (§1.8 "use count") ---------------------------------------------
  void count_parents(NodeId root) {
    for (std::uint32_t touched : touched_) parents_[touched] = 0;
    touched_.clear();
    // A node is walked from when it gets its first parent (the root has none: operands come
    // before their users).
    std::vector<NodeId> stack{root};
    while (!stack.empty()) {
      NodeId node = stack.back();
      stack.pop_back();
      for (NodeId operand : graph_.operands(node)) {
        if (parents_[operand.index()]++ == 0) {
          touched_.push_back(operand.index());
          stack.push_back(operand);
        }
      }
    }
  }
  [[nodiscard]] bool unique(NodeId node) const { return parents_[node.index()] <= 1; }

  [[nodiscard]] bool atomic(NodeId node) const {
    NodeKind kind = graph_.kind(node);
    return kind == NodeKind::kVar || kind == NodeKind::kGlobalVar || kind == NodeKind::kOp ||
           kind == NodeKind::kConstant;
  }
  [[nodiscard]] bool dataflow(NodeId node) const {
    NodeKind kind = graph_.kind(node);
    return kind == NodeKind::kCall || kind == NodeKind::kTuple || kind == NodeKind::kTupleGetItem;
  }

  // ----- annotations, types, names -------------------------------------------------------
  // `node` is the node the type is printed for (named if the type cannot be printed).
  const std::string& type_text(TypeId type, NodeId node) {
    if (auto known = memo_.type_texts.find(type); known != memo_.type_texts.end()) {
      return known->second;
    }
    if (auto known = type_texts_.find(type); known != type_texts_.end()) return known->second;
    const std::uint32_t findings = findings_;
    scan_type(type, node);
    std::string text = to_string(context_, type);
    auto& texts = findings_ == findings ? memo_.type_texts : type_texts_;
    return texts.emplace(type, std::move(text)).first->second;
  }
  // Notes the meta references in a type and refuses the names in it the reader would not read
  // back as the same type (once per type: type_text's memo).
  void scan_type(TypeId root, NodeId node) {
    std::vector<TypeId>& stack = type_stack_;
    stack.assign(1, root);
    const TypeTable& types = context_.types;
    while (!stack.empty()) {
      TypeId type = stack.back();
      stack.pop_back();
      const TypeRecord& record = types.get(type);
      std::string_view name = record.name.valid() ? context_.strings.view(record.name) : "";
      switch (record.kind) {
        case TypeKind::kTensor:
          if (!is_relay_identifier(name)) refuse(node, "dtype", name, kIdentifierRule);
          for (DimId dim : types.dims(type)) {
            const Dim& d = types.get_dim(dim);
            if (d.kind != Dim::Kind::kSymbol) continue;
            check_meta_text(node, "dimension", context_.strings.view(d.symbol));
            note_meta_text(context_.strings.view(d.symbol));
          }
          break;
        case TypeKind::kOpaque:
          check_meta_text(node, "type", name);
          note_meta_text(name);
          break;
        case TypeKind::kTypeVar:
          // Read back by name: a dtype or a type keyword would read as something else.
          if (!is_relay_identifier(name) || parse_dtype(name) || name == "Tensor" || name == "fn" ||
              name == "_" || name == "ref") {
            refuse(node, "type variable name", name,
                   "an identifier that is not a dtype, 'Tensor', 'fn', 'ref' or '_'");
          }
          break;
        case TypeKind::kGlobalTypeVar:
        case TypeKind::kTypeCall:
        case TypeKind::kIncomplete:
          refuse(node, "type", to_string(context_, type), "a type the Relay text reader reads");
          break;
        default:
          for (TypeId child : types.children(type)) stack.push_back(child);
          break;
      }
    }
  }
  // A symbolic dimension or an opaque type is printed as its text: it must be one meta[KEY][i]
  // reference, as the reader reads it.
  void check_meta_text(NodeId node, std::string_view what, std::string_view text) {
    ++findings_;
    RelayLexer lexer(text);
    Token token = lexer.next();
    bool one_reference = token.kind == TokenKind::kMeta && token.text.data() == text.data() &&
                         token.text.size() == text.size() && lexer.peek().kind == TokenKind::kEnd &&
                         lexer.status().ok();
    if (!one_reference) refuse(node, what, text, "a meta[KEY][INDEX] reference");
  }
  // A verbatim `meta[KEY][i]` text: counted once per distinct reference.
  void note_meta_text(std::string_view text) {
    ++findings_;
    if (!text.starts_with("meta[")) return;
    if (!seen_meta_texts_.insert(std::string(text)).second) return;
    std::string_view key = text.substr(5, text.find(']') - 5);
    note_meta_key(std::string(key));
  }
  void note_meta_key(const std::string& key) {
    auto [slot, inserted] = meta_counts_.try_emplace(key, 0);
    if (inserted) meta_order_.push_back(key);
    ++slot->second;
  }

  // A constant known only by its type (Relay text read without its metadata section) prints as
  // `meta[relay.Constant][i]` with no section to hold its dtype and shape: without a node type,
  // its annotation says them, as the reader takes them from it (TVM's `/* ty= */`). One
  // without a dtype either (read with no annotation) prints bare and reads back as it was.
  TypeId printed_type(NodeId node) {
    TypeId type = graph_.type(node);
    if (type.valid() || graph_.kind(node) != NodeKind::kConstant) return type;
    const Tensor& tensor = graph_.tensor(node);
    if (tensor.has_data() || context_.strings.view(tensor.dtype).empty()) return type;
    TypeTable& types = const_cast<Context&>(context_).types;  // interning adds, never changes
    std::vector<DimId> dims;
    for (std::int64_t extent : tensor.shape) {
      dims.push_back(extent < 0 ? types.any_dim() : types.dim(extent));
    }
    return types.tensor(tensor.dtype, dims);
  }

  /// Appends the ` /* ty=... span=... */` comment of `node` (nothing when it has neither).
  void append_annotation(std::string& out, NodeId node) {
    using namespace std::string_view_literals;
    TypeId type = printed_type(node);
    SpanId span = graph_.span(node);
    if (!type.valid() && !span.valid()) return;
    out += " /*"sv;
    if (type.valid()) {
      out += " ty="sv;
      out += type_text(type, node);
    }
    if (span.valid()) {
      const Span& s = context_.spans.get(span);
      std::string_view source = context_.strings.view(s.source);
      // The reader takes the name up to the span's last two colons, trimmed, from a comment
      // that ends at `*/` (and nests at `/*`); a line feed would be indented.
      if (source.find_first_of("\n") != std::string_view::npos ||
          source.find("/*") != std::string_view::npos ||
          source.find("*/") != std::string_view::npos ||
          (!source.empty() && (source[0] == ' ' || source[0] == '\t'))) {
        refuse(node, "span source name", source,
               "text without a line feed, '/*' or '*/' that does not start with a blank");
      }
      fmt::format_to(std::back_inserter(out), " span={}:{}:{}", source, s.line, s.column);
    }
    out += " */"sv;
  }

  // `hint` is a string of the context's pool (a variable's name), which outlives the printer.
  std::string allocate_name(std::string_view hint) {
    // `%`, then the name, built in place; names_ is keyed by the name (the text after `%`),
    // held by the pool when it is the hint itself, else by owned_names_.
    std::string text;
    text.reserve(hint.size() + 2);
    text += '%';
    const bool prefixed =
        hint.empty() || !((hint[0] >= 'a' && hint[0] <= 'z') || (hint[0] >= 'A' && hint[0] <= 'Z'));
    if (prefixed) text += 'v';
    text += hint;
    auto name = [&] { return absl::string_view(text.data() + 1, text.size() - 1); };
    bool added = false;
    auto found = names_.lazy_emplace(name(), [&](const auto& construct) {
      added = true;
      construct(prefixed ? owned_name(name()) : absl::string_view(hint.data(), hint.size()), 0);
    });
    if (added) return text;
    const std::size_t base = text.size();
    while (true) {
      text.resize(base);
      fmt::format_int number(++found->second);
      text.append(number.data(), number.size());
      if (!names_.contains(name())) break;
    }
    names_.emplace(owned_name(name()), 0);
    return text;
  }
  // A copy of `name` that lives as long as the printer.
  absl::string_view owned_name(absl::string_view name) {
    const std::string& owned = owned_names_.emplace_back(name.data(), name.size());
    return absl::string_view(owned.data(), owned.size());
  }

  // `%name` for `var`: TVM's renaming (a `v` before a name that does not start with a letter,
  // a number after a name already used), which structural equality does not see; a name that
  // still does not lex as that one variable is refused.
  std::string var_name(NodeId var) {
    std::string name = allocate_name(graph_.name(var));
    if (!is_relay_local_name(std::string_view(name).substr(1))) {
      refuse(var, "variable name", graph_.name(var), kLocalNameRule);
    }
    return name;
  }

  // A variable's declaration text (`%x: T /* ty=T */`); allocates its name.
  std::string declare_var(NodeId var) {
    std::string out;
    out.reserve(kUsualTextBytes);  // `%name: T /* ty=T */` without growing
    append_declaration(out, var);
    return out;
  }
  // Appends declare_var's text to `out`.
  void append_declaration(std::string& out, NodeId var) {
    using namespace std::string_view_literals;
    set_leaf_text(var, var_name(var));
    out += leaf_texts_[var.index()];
    declared_[var.index()] = true;
    if (graph_.annotation(var).valid()) {
      out += ": "sv;
      out += type_text(graph_.annotation(var), var);
    }
    append_annotation(out, var);
  }

  // ----- the task stack ------------------------------------------------------------------
  // A scope inside another would make printing recurse as deep as scopes nest. Instead, what
  // opens a scope pushes the work that follows it as a task, then starts the scope, whose own
  // tasks go on top; a finished text goes on results_ for the task that waits for it.
  void run_tasks(std::size_t floor) {
    while (tasks_.size() > floor) {
      std::function<void()> task = std::move(tasks_.back());
      tasks_.pop_back();
      task();
    }
  }
  std::string take_result() {
    std::string text = std::move(results_.back());
    results_.pop_back();
    return text;
  }
  // Runs `start` (which leaves one text on results_ once its tasks ran) to the end.
  template <class Start>
  std::string complete(Start start) {
    std::size_t floor = tasks_.size();
    start();
    run_tasks(floor);
    return take_result();
  }

  // ----- expressions -----------------------------------------------------------------------
  // Appends a line to the current scope's lines.
  void emit(std::string_view line) {
    std::string& lines = scopes_.back().line();
    lines += line;
    lines += '\n';
  }

  // The text of `node` where it is used: `%N` when it is bound (its binding line emitted in the
  // current scope the first time), else the text itself.
  std::string print_expr(NodeId node, bool try_inline) {
    return complete([&] { start_print_expr(node, try_inline); });
  }
  // Appends print_expr(node, false): in place when the text is known already (a binding's
  // `%N`, a visited op, constant or global, a declared variable) or the node only waits to be
  // bound (a visited call, tuple or projection), which is what a call's callee and arguments
  // mostly are, as the walk visits them first.
  void append_expr(std::string& out, NodeId node) {
    const std::uint32_t i = node.index();
    if (temps_[i] != kUnbound) {
      append_temp(out, temps_[i]);
      return;
    }
    if (graph_.kind(node) == NodeKind::kVar) {
      if (declared_[i] && has_leaf_text_[i] && !being_bound_.contains(i)) {
        out += leaf_texts_[i];
        return;
      }
    } else if (atomic(node) && has_leaf_text_[i]) {
      out += leaf_texts_[i];
      return;
    } else if (!atomic(node) && visited(node)) {
      out += finish_expr(node, /*inline_it=*/false);  // what start_print_expr would push
      return;
    }
    out += print_expr(node, false);
  }

  void start_print_expr(NodeId node, bool try_inline) {
    if (temps_[node.index()] != kUnbound) {
      results_.push_back(temp_text(temps_[node.index()]));
      return;
    }
    if (graph_.kind(node) == NodeKind::kVar) {
      if (!has_leaf_text_[node.index()]) set_leaf_text(node, var_name(node));
      if (being_bound_.contains(node.index())) {
        // TVM's parser binds the let's variable before reading its value; graphpat's refuses
        // the use (`relay_text.recursive_let`), and anything printed of it hoisted above the
        // let line would not be in scope (fuzz_writer_roundtrip, session 15: a TVM JSON let).
        refuse(node, fmt::format("{} is read by the value of the let that binds it (a recursive "
                                 "let), which the text reader refuses",
                                 leaf_texts_[node.index()]));
      }
      if (!declared_[node.index()]) {
        declared_[node.index()] = true;
        std::string decl = leaf_texts_[node.index()];
        if (graph_.annotation(node).valid()) {
          decl += ": ";
          decl += type_text(graph_.annotation(node), node);
        }
        append_annotation(decl, node);
        emit("free_var " + decl + ";");
      }
      results_.push_back(leaf_texts_[node.index()]);
      return;
    }
    bool inline_it = atomic(node) || (try_inline && unique(node));
    if (visited(node)) {
      results_.push_back(finish_expr(node, inline_it));
      return;
    }
    tasks_.push_back([this, node, inline_it] { results_.push_back(finish_expr(node, inline_it)); });
    start_visit(node);
  }

  // print_expr once `node` is visited.
  std::string finish_expr(NodeId node, bool inline_it) {
    using namespace std::string_view_literals;
    // A bound node's text is emitted once and never read again, so it is moved, not copied.
    std::string text = atomic(node) || inline_it ? leaf_text(node) : std::move(leaf_texts_[node.index()]);
    if (atomic(node)) return text;
    if (!inline_it && graph_.kind(node) == NodeKind::kLet) {
      std::string wrapped = "(";
      indenter_.append_block(wrapped, text);
      wrapped += "\n)";
      text = std::move(wrapped);
    }
    const bool annotate = !annotated_[node.index()];
    annotated_[node.index()] = true;
    if (inline_it) {
      if (annotate) append_annotation(text, node);
      return text;
    }
    // The binding line is written in place: `%N = `, the text, its annotation.
    std::uint32_t number = counter_++;
    temps_[node.index()] = number;
    std::string& lines = scopes_.back().line();
    append_temp(lines, number);
    lines += " = "sv;
    lines += text;
    if (annotate) append_annotation(lines, node);
    lines += ";\n"sv;
    return temp_text(number);
  }

  // `%N`, how a binding is read.
  static std::string temp_text(std::uint32_t number) {
    std::string text;
    append_temp(text, number);
    return text;
  }
  static void append_temp(std::string& out, std::uint32_t number) {
    fmt::format_int digits(number);
    out += '%';
    out.append(digits.data(), digits.size());
  }

  [[nodiscard]] bool visited(NodeId node) const {
    return has_leaf_text_[node.index()] || temps_[node.index()] != kUnbound;
  }

  // The node's own text, computed once: a post-order DFS over the dataflow nodes below it
  // (op before args, args left to right) builds each text when its children are done. At a
  // fn, if or let the walk waits (as a task) for the tasks that print its scopes.
  struct VisitFrame {
    NodeId node;
    bool expanded;
  };
  void start_visit(NodeId root) {
    if (!visited(root)) continue_visit(std::make_shared<std::vector<VisitFrame>>(1, VisitFrame{root, false}));
  }
  void continue_visit(const std::shared_ptr<std::vector<VisitFrame>>& stack) {
    while (!stack->empty()) {
      VisitFrame& frame = stack->back();
      NodeId node = frame.node;
      if (visited(node)) {
        stack->pop_back();
      } else if (frame.expanded || !dataflow(node)) {
        stack->pop_back();
        if (opens_scope(node)) {
          tasks_.push_back([this, stack] { continue_visit(stack); });
          tasks_.push_back([this, node] { set_leaf_text(node, take_result()); });
          // A task too, so that a fn directly in a fn does not start it from here.
          tasks_.push_back([this, node] { start_scoped_text(node); });
          return;
        }
        visit_leaf(node);
      } else {
        frame.expanded = true;
        auto operands = graph_.operands(node);
        for (std::size_t i = operands.size(); i-- > 0;) {
          if (!visited(operands[i])) stack->push_back({operands[i], false});
        }
      }
    }
  }
  [[nodiscard]] bool opens_scope(NodeId node) const {
    NodeKind kind = graph_.kind(node);
    return kind == NodeKind::kFunction || kind == NodeKind::kIf || kind == NodeKind::kLet;
  }
  // Starts the text of a fn, if or let (pushed on results_ once the tasks ran).
  void start_scoped_text(NodeId node) {
    switch (graph_.kind(node)) {
      case NodeKind::kFunction:
        start_function(node, "fn ", /*nested=*/true);
        return;
      case NodeKind::kIf:
        start_if(node);
        return;
      default:
        continue_let(node, std::make_shared<std::vector<std::string>>());
        return;
    }
  }
  std::string leaf_text(NodeId node) {
    if (temps_[node.index()] != kUnbound) return temp_text(temps_[node.index()]);
    return leaf_texts_[node.index()];
  }

  // The text of a node without scopes, its operands visited.
  void visit_leaf(NodeId node) {
    using namespace std::string_view_literals;
    std::string text;
    switch (graph_.kind(node)) {
      case NodeKind::kVar:
        set_leaf_text(node, var_name(node));
        return;
      case NodeKind::kOp:
        text = std::string(context_.op_name(graph_.op(node)));
        if (!is_relay_dotted_name(text) || is_relay_keyword(text.substr(0, text.find('.')))) {
          refuse(node, "op name", text, kOpNameRule);
        }
        break;
      case NodeKind::kGlobalVar:
        if (!is_relay_global_name(graph_.name(node))) {
          refuse(node, "global name", graph_.name(node), kIdentifierRule);
        }
        text = fmt::format("@{}", graph_.name(node));
        break;
      case NodeKind::kConstant:
        text = constant_text(node);
        append_annotation(text, node);
        break;
      case NodeKind::kCall:
        text = call_text(node);
        break;
      case NodeKind::kTuple: {
        auto fields = graph_.fields(node);
        text += '(';
        for (std::size_t k = 0; k < fields.size(); ++k) {
          if (k > 0) text += ", "sv;
          append_expr(text, fields[k]);
        }
        if (fields.size() == 1) text += ',';
        text += ')';
        break;
      }
      case NodeKind::kTupleGetItem: {
        append_expr(text, graph_.tuple(node));
        // `%t.0` reads as a variable named `t.0` when there is one (ONNX names), so a
        // projection of `%t` is bracketed then: `(%t).0`.
        fmt::format_int index(graph_.index(node));
        text += '.';
        text.append(index.data(), index.size());
        if (text.starts_with('%') &&
            names_.contains(absl::string_view(text.data() + 1, text.size() - 1))) {
          text.insert(text.size() - index.size() - 1, ")");
          text.insert(0, "(");
        }
        break;
      }
      case NodeKind::kFunction:
      case NodeKind::kIf:
      case NodeKind::kLet:
        return;  // opens_scope: printed by start_scoped_text
    }
    set_leaf_text(node, std::move(text));
  }
  void set_leaf_text(NodeId node, std::string text) {
    leaf_texts_[node.index()] = std::move(text);
    has_leaf_text_[node.index()] = true;
  }

  std::string constant_text(NodeId node) {
    using namespace std::string_view_literals;
    const Tensor& tensor = graph_.tensor(node);
    if (auto literal = scalar_literal(context_, tensor)) return *literal;
    auto [slot, inserted] =
        meta_index_.try_emplace(node.index(), static_cast<std::uint32_t>(meta_constants_.size()));
    if (inserted) {
      meta_constants_.push_back(node);
      note_meta_key("relay.Constant");
    }
    fmt::format_int index(slot->second);
    std::string text;
    text.reserve(kUsualTextBytes);  // and its annotation, which follows
    text += "meta[relay.Constant]["sv;
    text.append(index.data(), index.size());
    text += ']';
    return text;
  }

  std::string call_text(NodeId node) {
    using namespace std::string_view_literals;
    // The arguments are printed before the callee (which may bind lines of its own), each
    // after a ", ". An op binds nothing: its name starts the text, which the arguments then
    // follow in place.
    NodeId callee = graph_.callee(node);
    const bool op_callee = graph_.kind(callee) == NodeKind::kOp;
    std::string text;
    if (op_callee) {
      text.reserve(kUsualTextBytes);
      append_expr(text, callee);
      text += '(';
    }
    std::string separate_args;
    std::string& args = op_callee ? text : separate_args;
    bool first = true;
    auto add_arg = [&](std::string_view arg) {
      if (!first) args += ", "sv;
      first = false;
      args += arg;
    };
    for (NodeId arg : graph_.args(node)) {
      if (!first) args += ", "sv;
      first = false;
      append_expr(args, arg);
    }
    AttrValueId attrs = graph_.attrs(node);
    if (attrs.valid()) {
      const AttrTable& table = context_.attrs;
      std::string_view key = table.text(attrs);
      const AttrSchema* op_schema = nullptr;
      if (graph_.kind(callee) == NodeKind::kOp) {
        op_schema = context_.ops.schema(context_.ops.info(graph_.op(callee)));
      }
      bool matches = op_schema != nullptr && context_.strings.view(op_schema->type_key) == key;
      if (auto index = cache_.meta_index(attrs)) {
        check_meta_text(node, "attributes", cache_.value_text(attrs));
        note_meta_text(cache_.value_text(attrs));
        add_arg(cache_.value_text(attrs));
      } else if (!matches && graph_.kind(callee) == NodeKind::kOp &&
                 envelope_ == relay::TextEnvelope::kAstext &&
                 context_.ops.find_schema(key) != nullptr) {
        auto counted = meta_counts_.find(std::string(key));
        auto [slot, inserted] = meta_attrs_.try_emplace(
            attrs, static_cast<std::uint32_t>(counted == meta_counts_.end() ? 0 : counted->second));
        if (inserted) note_meta_key(std::string(key));
        add_arg(fmt::format("meta[{}][{}]", key, slot->second));
      } else {
        check_attrs(node, attrs, /*call=*/true);
        // Only the first refusal is kept; a readable object is one probe of the cache's memo.
        if (matches) {
          if (auto problem = cache_.unreadable_field(attrs, *op_schema)) refuse(node, *problem);
        }
        for (const std::string& field : cache_.field_texts(attrs)) add_arg(field);
        // TVM names the struct of a call whose callee is not an op. An op's call names it too
        // when it is a struct no registry knows (a vendor's, or `on(attrs_type_key="DictA")`
        // read from text): TVM has no such call, and without the name the reader would give
        // the op's own struct, or none (fuzz_relay_text, session 9).
        bool names_struct = graph_.kind(callee) != NodeKind::kOp ||
                            (!matches && context_.ops.find_schema(key) == nullptr);
        if (names_struct && key != kUnknownAttrsKey) {
          add_arg(fmt::format("attrs_type_key=\"{}\"", escape_string(key)));
        }
      }
    } else if (graph_.kind(graph_.callee(node)) == NodeKind::kOp) {
      // No text says "no attributes": the reader gives an op with a struct its defaults, as
      // TVM's does (fuzz_writer_roundtrip, session 13: a TVM JSON conv2d with null attrs).
      const OpInfo& info = context_.ops.info(graph_.op(graph_.callee(node)));
      if (const AttrSchema* op_schema = context_.ops.schema(info)) {
        refuse(node, fmt::format("the {} call has no attributes, which its text reader would "
                                 "read as {} at its defaults",
                                 context_.strings.view(info.name),
                                 context_.strings.view(op_schema->type_key)));
      }
    }
    if (!op_callee) {
      text = print_expr(callee, false);
      text.reserve(text.size() + args.size() + 2);
      text += '(';
      text += args;
    }
    text += ')';
    return text;
  }

  // Appends the definition `prefix` `function` to the module's text `module_text`, expanded.
  void print_definition(std::string& module_text, NodeId function, std::string_view prefix) {
    const std::size_t floor = tasks_.size();
    start_function(function, prefix, /*nested=*/false, &module_text);
    run_tasks(floor);
  }

  // A fn's text, pushed on results_; or with `module_text` (a definition, not nested), appended
  // to it expanded: the body's lines go there once, not into a text of the function first.
  void start_function(NodeId function, std::string_view prefix, bool nested,
                      std::string* module_text = nullptr) {
    std::string out(prefix);
    TypeId type_params = graph_.type_params(function);
    if (type_params.valid()) {
      std::vector<std::string> names;
      for (TypeId param : context_.types.children(type_params)) {
        names.push_back(type_text(param, function));
      }
      out += fmt::format("[{}]", fmt::join(names, ", "));
    }
    // The parameters' declarations, then the attributes, written in place.
    out += '(';
    bool first = true;
    auto separate = [&] {
      if (!first) out += ", ";
      first = false;
    };
    for (NodeId param : graph_.params(function)) {
      separate();
      if (declared_[param.index()]) {
        refuse_rebinding(param, "a parameter");
        out += leaf_texts_[param.index()];
      } else {
        append_declaration(out, param);
      }
    }
    AttrValueId attrs = graph_.attrs(function);
    if (attrs.valid()) {
      const AttrTable& table = context_.attrs;
      check_attrs(function, attrs, /*call=*/false);
      for (std::size_t i = 0; i < table.entry_count(attrs); ++i) {
        std::string value = cache_.value_text(table.entry_value(attrs, i));
        if (cache_.meta_index(table.entry_value(attrs, i))) note_meta_text(value);
        separate();
        out += context_.strings.view(table.field_key(attrs, i));
        out += '=';
        out += value;
      }
    }
    out += ") ";
    if (graph_.result_type(function).valid()) {
      out += "-> " + type_text(graph_.result_type(function), function) + " ";
    }
    // The body's scope, as start_scope opens one, but its lines are indented straight into the
    // function's text rather than joined into a text of their own first.
    scopes_.emplace_back();
    tasks_.push_back([this, function, nested, module_text, out = std::move(out)]() mutable {
      std::string body = take_result();
      out += '{';
      if (module_text != nullptr) {
        indenter_.expand_into(*module_text, out);
        indenter_.expand_block_into(*module_text, scopes_.back().pieces(), body);
        scopes_.pop_back();
        *module_text += "\n}";
        return;
      }
      indenter_.append_block(out, scopes_.back().pieces(), body);
      scopes_.pop_back();
      out += "\n}";
      if (nested) {
        annotated_[function.index()] = true;
        append_annotation(out, function);
      }
      results_.push_back(std::move(out));
    });
    start_print_expr(graph_.body(function), /*try_inline=*/true);
  }

  // A scope's text: the lines bound in it, then `body`.
  void start_scope(NodeId body) {
    scopes_.emplace_back();
    tasks_.push_back([this] {
      std::string result = take_result();
      std::string text;
      text.reserve(scopes_.back().size() + result.size());
      scopes_.back().append_to(text);
      scopes_.pop_back();
      text += result;
      results_.push_back(std::move(text));
    });
    start_print_expr(body, /*try_inline=*/true);
  }

  // The condition, then each branch as a scope (a scope is opened when its turn comes).
  void start_if(NodeId node) {
    tasks_.push_back([this] {
      std::string else_text = take_result();
      std::string then_text = take_result();
      std::string condition = take_result();
      std::string text = fmt::format("if ({}) {{", condition);
      indenter_.append_block(text, then_text);
      text += "\n} else {";
      indenter_.append_block(text, else_text);
      text += "\n}";
      results_.push_back(std::move(text));
    });
    tasks_.push_back([this, node] { start_scope(graph_.else_branch(node)); });
    tasks_.push_back([this, node] { start_scope(graph_.then_branch(node)); });
    start_print_expr(graph_.condition(node), /*try_inline=*/false);
  }

  // A let chain prints its `let` lines, each followed by the scope its body opens (where the
  // bindings made while printing the next value go), then the final body. `lets` holds the
  // lines so far; the scope of lets[i] is scopes_[scopes_.size() - lets.size() + i].
  // The chain ends at a body Let used elsewhere too (or already printed): walked on, its lines
  // would print a second time and read back as a second Let binding the same variable again
  // (TVM's printer walks on and names that variable `%v-malformed-ir`); it prints as any
  // shared node instead, bound once as `%k = (` ... `);` and read as `%k`.
  void continue_let(NodeId current, std::shared_ptr<std::vector<std::string>> lets) {
    bool chain_goes_on = graph_.kind(current) == NodeKind::kLet &&
                         (lets->empty() || (unique(current) && !visited(current)));
    if (!chain_goes_on) {
      tasks_.push_back([this, lets] {
        std::string rest = take_result();
        std::size_t first_scope = scopes_.size() - lets->size();
        std::size_t size = rest.size();
        for (std::size_t i = 0; i < lets->size(); ++i) {
          size += (*lets)[i].size() + 1 + scopes_[first_scope + i].size();
        }
        std::string text;
        text.reserve(size);
        for (std::size_t i = 0; i < lets->size(); ++i) {
          text += (*lets)[i];
          text += '\n';
          scopes_[first_scope + i].append_to(text);
        }
        text += rest;
        scopes_.resize(first_scope);
        results_.push_back(std::move(text));
      });
      start_print_expr(current, /*try_inline=*/true);
      return;
    }
    NodeId var = graph_.let_var(current);
    if (declared_[var.index()]) refuse_rebinding(var, "a let");
    std::string decl = declare_var(var);
    being_bound_.insert(var.index());
    tasks_.push_back([this, current, var, lets, decl = std::move(decl)] {
      being_bound_.erase(var.index());
      lets->push_back(fmt::format("let {} = {};", decl, take_result()));
      scopes_.emplace_back();
      continue_let(graph_.body(current), lets);
    });
    start_print_expr(graph_.let_value(current), /*try_inline=*/true);
  }

  const relay::Graph& graph_;
  const Context& context_;
  relay::TextEnvelope envelope_;
  AttrSchemaCache& cache_;
  RelayTextPrintMemo& memo_;
  BlockIndenter indenter_;
  std::vector<std::uint32_t> parents_;
  std::vector<std::uint32_t> touched_;
  // By node index, sized to the graph: flat arrays where hash tables keyed by node grew and
  // rehashed as the print went (a print visits most nodes of the graph).
  static constexpr std::uint32_t kUnbound = Id<void>::kNone;
  static constexpr std::size_t kFewEntries = 32;
  // Room for most calls', constants' and declarations' texts with their annotations, reserved
  // at once instead of doubling up to it.
  static constexpr std::size_t kUsualTextBytes = 128;
  std::vector<std::uint32_t> temps_;     // the N of a node's `%N = ...` line, or kUnbound
  // A visited node's own text (moved out once bound); a variable's `%name` once allocated.
  std::vector<std::string> leaf_texts_;
  std::vector<bool> has_leaf_text_;      // whether leaf_texts_ was set (it may be moved out)
  std::vector<bool> declared_;           // variables declared (a param, a let, a free var)
  std::vector<bool> annotated_;          // nodes whose annotation was appended
  std::vector<ScopeLines> scopes_;       // each open scope's lines
  std::vector<std::function<void()>> tasks_;
  std::vector<std::string> results_;
  std::uint32_t counter_ = 0;
  absl::flat_hash_map<absl::string_view, std::uint32_t> names_;  // see allocate_name
  std::deque<std::string> owned_names_;
  absl::flat_hash_set<std::uint32_t> being_bound_;  // let variables whose value is printing
  absl::flat_hash_set<std::pair<std::uint32_t, bool>> checked_attrs_;  // check_attrs's
  absl::flat_hash_map<std::uint32_t, std::uint32_t> meta_index_;
  std::vector<NodeId> meta_constants_;
  absl::flat_hash_map<AttrValueId, std::uint32_t> meta_attrs_;
  std::vector<std::string> meta_order_;
  absl::flat_hash_map<std::string, std::size_t> meta_counts_;
  absl::flat_hash_set<std::string> seen_meta_texts_;
  std::vector<TypeId> type_stack_;       // scan_type's, kept for its next call
  std::vector<AttrValueId> attr_stack_;  // check_attrs's
  absl::flat_hash_map<TypeId, std::string> type_texts_;  // the types memo_ does not hold
  // Refusals and meta references met so far: what the memo's entries must not have needed.
  std::uint32_t findings_ = 0;
  absl::Status status_;  // the first name that cannot be printed
};

}  // namespace graphpat::detail
