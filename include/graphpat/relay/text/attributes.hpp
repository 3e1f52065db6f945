// Relay attribute values in text (docs/relay-formats.md §1.4, §2.1): reading a value
// (`[1, 1]`, `"NCHW"`, `1e-05f`, `None`, `{k=v}`) into an interned AttrValue, putting a call's
// `key=value` pairs into the canonical form shared with the JSON reader (an object of the op's
// schema type key holding every field in declaration order, defaults filled in, each value in
// the form relay::field_storage says), and printing them back with TVM's default elision.
//
//   detail::AttrSchemaCache& cache = detail::AttrSchemaCache::of(context);
//   absl::StatusOr<AttrValueId> attrs = cache.canonical(*schema, written, "nn.conv2d", 3, 9);
//   std::string text = detail::call_attrs_text(context, cache, attrs, schema);  // "strides=[2, 2]"
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/container/inlined_vector.h>
#include <absl/status/statusor.h>
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "graphpat/ir/context.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/limits.hpp"
#include "graphpat/relay/attr_fields.hpp"
#include "graphpat/relay/text/lexer.hpp"
#include "graphpat/relay/text/literals.hpp"

// Last, and undefined at the end of this file (see status_macros.hpp).
#include "graphpat/detail/status_macros.hpp"

namespace graphpat::detail {

/// Type key of an attribute object whose struct is unknown (attrs written on an op that has
/// none, such as `nn.relu(%x, axis=1)` printed by `str()` for a mismatched attrs object).
inline constexpr std::string_view kUnknownAttrsKey = "graphpat.relay_text.UnknownAttrs";
/// Field of a one-field object standing for a `meta[KEY][i]` attribute value whose metadata
/// section was not given; the object's type key is KEY. It prints back as the same reference.
inline constexpr std::string_view kMetaIndexField = "graphpat.meta_index";
/// Type key of a GlobalVar attribute value printed `'name'`; its one field is `name_hint`.
inline constexpr std::string_view kGlobalVarKey = "GlobalVar";

/// Undoes StrEscape (§1.4): `\"` `\\` `\t` `\r` `\n` `\xHH`; nullopt on a bad escape.
inline std::optional<std::string> unescape_string(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    if (++i >= raw.size()) return std::nullopt;
    switch (raw[i]) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'n': out += '\n'; break;
      case 'x': {
        auto hex = [](char c) -> int {
          if (c >= '0' && c <= '9') return c - '0';
          if (c >= 'a' && c <= 'f') return c - 'a' + 10;
          if (c >= 'A' && c <= 'F') return c - 'A' + 10;
          return -1;
        };
        if (i + 2 >= raw.size() + 0 && i + 2 > raw.size()) return std::nullopt;
        int high = i + 1 < raw.size() ? hex(raw[i + 1]) : -1;
        int low = i + 2 < raw.size() ? hex(raw[i + 2]) : -1;
        if (high < 0 || low < 0) return std::nullopt;
        out += static_cast<char>(high * 16 + low);
        i += 2;
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

/// Resolves `meta[KEY][i]` inside an attribute value.
using MetaAttrResolver = std::function<absl::StatusOr<AttrValueId>(const Token&)>;

/// Keeps, of the items given one key more than once, only the last, at its place: TVM's parser
/// keeps keyword arguments, function attributes and braced entries in a Map, where the last of
/// a repeated key wins (and a field twice in one object would not read back from JSON).
/// `alongside` (a list parallel to `items`, such as their places) loses the same entries.
template <class Items, class KeyOf, class Others = std::vector<char>>
void keep_last_of_each_key(Items& items, KeyOf key_of, Others* alongside = nullptr) {
  // Most lists are short with no key twice: checked pairwise without allocating.
  constexpr std::size_t kPairwise = 16;
  if (items.size() <= kPairwise) {
    bool repeated = false;
    for (std::size_t i = 1; i < items.size() && !repeated; ++i) {
      for (std::size_t j = 0; j < i && !repeated; ++j) repeated = key_of(items[i]) == key_of(items[j]);
    }
    if (!repeated) return;
  }
  using Key = std::decay_t<decltype(key_of(items.front()))>;
  absl::flat_hash_set<Key> seen;
  std::vector<bool> keep(items.size());
  for (std::size_t i = items.size(); i-- > 0;) keep[i] = seen.insert(key_of(items[i])).second;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!keep[i]) continue;
    items[kept] = items[i];
    if (alongside != nullptr) (*alongside)[kept] = (*alongside)[i];
    ++kept;
  }
  items.resize(kept);
  if (alongside != nullptr) alongside->resize(kept);
}

/// Reads one attribute value in its generic form: ints and floats keep their suffix width,
/// True/False are bools, strings are unescaped, `(v)` is v, `[..]` an array, `{k=v}` a map
/// (quoted keys) or an object (plain keys), `'name'` a GlobalVar.
class AttrValueReader {
 public:
  AttrValueReader(Context& context, RelayLexer& lexer, std::uint32_t max_depth,
                  MetaAttrResolver resolve_meta = {})
      : context_(context),
        lexer_(lexer),
        max_depth_(max_depth),
        resolve_meta_(std::move(resolve_meta)) {}

  absl::StatusOr<AttrValueId> read(std::uint32_t depth = 0) {
    AttrTable& attrs = context_.attrs;
    Token token = lexer_.next();
    if (depth > max_depth_) {
      return text_error("too_deep", token.line, token.column, too_deep_problem(max_depth_));
    }
    switch (token.kind) {
      case TokenKind::kNumber: {
        std::string error;
        auto literal = read_number(token.text, error, /*allow_unsuffixed_float=*/true);
        if (!literal) return text_error("bad_literal", token.line, token.column, error);
        return literal->is_float ? attrs.floating(literal->floating, literal->bits)
                                 : attrs.integer(literal->integer, literal->bits);
      }
      case TokenKind::kString: {
        auto value = unescape_string(token.text);
        if (!value) return text_error("bad_literal", token.line, token.column, "bad escape in string");
        return attrs.string(*value);
      }
      case TokenKind::kMeta:
        if (resolve_meta_) return resolve_meta_(token);
        return attrs.object(token.meta_key,
                            {{kMetaIndexField, attrs.integer(token.meta_index, 64)}});
      case TokenKind::kIdent:
        if (token.text == "True" || token.text == "False") return attrs.boolean(token.text == "True");
        if (token.text == "None" || token.text == "nullptr") return attrs.null();
        break;
      case TokenKind::kPunct:
        if (token.is('(')) {
          GRAPHPAT_ASSIGN_OR_RETURN(auto inner, read(depth + 1));
          GRAPHPAT_RETURN_IF_ERROR(expect(')', "after a parenthesised attribute value"));
          return inner;
        }
        if (token.is('[')) {
          absl::InlinedVector<AttrValueId, 8> elements;
          while (!lexer_.peek().is(']')) {
            GRAPHPAT_ASSIGN_OR_RETURN(auto element, read(depth + 1));
            elements.push_back(element);
            if (!lexer_.peek().is(',')) break;
            lexer_.next();
          }
          GRAPHPAT_RETURN_IF_ERROR(expect(']', "after array elements"));
          return attrs.array(elements);
        }
        if (token.is('{')) return read_braced(depth);
        if (token.is('\'')) {
          Token name = lexer_.next();
          if (name.kind != TokenKind::kIdent) break;
          GRAPHPAT_RETURN_IF_ERROR(expect('\'', "after a global name"));
          return attrs.object(kGlobalVarKey, {{"name_hint", attrs.string(name.text)}});
        }
        break;
      default:
        break;
    }
    GRAPHPAT_RETURN_IF_ERROR(lexer_.status());
    return text_error("bad_attribute", token.line, token.column,
                      fmt::format("expected an attribute value, found {}", describe(token)));
  }

 private:
  absl::Status expect(char punct, std::string_view where) {
    Token token = lexer_.next();
    if (token.is(punct)) return absl::OkStatus();
    GRAPHPAT_RETURN_IF_ERROR(lexer_.status());
    return text_error("unexpected_token", token.line, token.column,
                      fmt::format("expected '{}' {}, found {}", punct, where, describe(token)));
  }

  absl::StatusOr<AttrValueId> read_braced(std::uint32_t depth) {
    AttrTable& attrs = context_.attrs;
    bool plain_keys = lexer_.peek().kind == TokenKind::kIdent;
    std::vector<std::pair<AttrValueId, AttrValueId>> entries;
    std::vector<AttrField> fields;
    while (!lexer_.peek().is('}')) {
      if (plain_keys) {
        Token key = lexer_.next();
        if (key.kind != TokenKind::kIdent) {
          return text_error("bad_attribute", key.line, key.column, "expected a field name");
        }
        GRAPHPAT_RETURN_IF_ERROR(expect('=', "after a field name"));
        GRAPHPAT_ASSIGN_OR_RETURN(auto value, read(depth + 1));
        fields.push_back({context_.strings.intern(key.text), value});
      } else {
        GRAPHPAT_ASSIGN_OR_RETURN(auto key, read(depth + 1));
        GRAPHPAT_RETURN_IF_ERROR(expect('=', "after a map key"));
        GRAPHPAT_ASSIGN_OR_RETURN(auto value, read(depth + 1));
        entries.emplace_back(key, value);
      }
      if (!lexer_.peek().is(',')) break;
      lexer_.next();
    }
    GRAPHPAT_RETURN_IF_ERROR(expect('}', "after map entries"));
    if (plain_keys) {
      keep_last_of_each_key(fields, [](const AttrField& field) { return field.key; });
      return attrs.object("Attrs", fields);
    }
    keep_last_of_each_key(entries, [](const auto& entry) { return entry.first; });
    return attrs.map(entries);
  }

  Context& context_;
  RelayLexer& lexer_;
  std::uint32_t max_depth_;
  MetaAttrResolver resolve_meta_;
};

/// Converts a generic value to the form a field of `storage` holds (the contract of
/// relay/attr_fields.hpp); nullopt when the value cannot be such a field.
inline std::optional<AttrValueId> to_field_form(Context& context, relay::FieldStorage storage,
                                                AttrValueId value) {
  AttrTable& attrs = context.attrs;
  const AttrRecord& record = attrs.get(value);
  switch (storage) {
    case relay::FieldStorage::kInt:
      if (record.kind == AttrKind::kInt) return attrs.integer(attrs.as_int(value), 32);
      if (record.kind == AttrKind::kBool) return attrs.integer(attrs.as_bool(value) ? 1 : 0, 32);
      return std::nullopt;
    case relay::FieldStorage::kBool:
      if (record.kind == AttrKind::kBool) return value;
      if (record.kind == AttrKind::kInt) return attrs.boolean(attrs.as_int(value) != 0);
      return std::nullopt;
    case relay::FieldStorage::kDouble:
      if (record.kind == AttrKind::kFloat) return attrs.floating(attrs.as_float(value), 64);
      if (record.kind == AttrKind::kInt) {
        return attrs.floating(static_cast<double>(attrs.as_int(value)), 64);
      }
      return std::nullopt;
    case relay::FieldStorage::kStdString:
      if (record.kind == AttrKind::kString) return value;
      return std::nullopt;
    case relay::FieldStorage::kDataType:
      if (record.kind == AttrKind::kString || record.kind == AttrKind::kDataType) {
        return attrs.data_type(attrs.text(value));
      }
      return std::nullopt;
    case relay::FieldStorage::kObject:
      return value;
  }
  return std::nullopt;
}

/// "an int", "a string", ...: a value kind in an error message.
inline std::string_view attr_kind_phrase(AttrKind kind) {
  switch (kind) {
    case AttrKind::kNull: return "None";
    case AttrKind::kBool: return "a bool";
    case AttrKind::kInt: return "an int";
    case AttrKind::kFloat: return "a float";
    case AttrKind::kString: return "a string";
    case AttrKind::kDataType: return "a dtype";
    case AttrKind::kArray: return "an array";
    case AttrKind::kMap: return "a map";
    case AttrKind::kObject: return "an object";
  }
  return "a value";
}

/// What a field's C++ type lets an index field hold: IndexExpr, Integer (a scalar), arrays of
/// them, or anything else (not checked here).
enum class IndexField : std::uint8_t { kNone, kScalar, kArray };
constexpr IndexField index_field(std::string_view cpp_type) {
  if (cpp_type == "IndexExpr" || cpp_type == "Integer" || cpp_type == "Optional<Integer>") {
    return IndexField::kScalar;
  }
  if (cpp_type == "Array<IndexExpr>" || cpp_type == "Array<Integer>" ||
      cpp_type == "Optional<Array<Integer>>" || cpp_type == "Array<PrimExpr>") {
    return IndexField::kArray;
  }
  return IndexField::kNone;
}

/// For an index field (IndexExpr, Integer and arrays of them), the kind of the (element) value
/// it cannot hold, e.g. a string among `strides`; nullopt when `value` is acceptable or the
/// field is not one of these.
inline std::optional<AttrKind> refused_kind(IndexField field, const AttrTable& attrs,
                                            AttrValueId value) {
  auto scalar_refused = [](AttrKind kind) {
    return kind == AttrKind::kFloat || kind == AttrKind::kString || kind == AttrKind::kDataType ||
           kind == AttrKind::kArray || kind == AttrKind::kMap;
  };
  AttrKind kind = attrs.get(value).kind;
  if (field == IndexField::kScalar) {
    return scalar_refused(kind) ? std::optional(kind) : std::nullopt;
  }
  if (field == IndexField::kArray) {
    if (kind != AttrKind::kArray) return kind == AttrKind::kNull ? std::nullopt : std::optional(kind);
    for (AttrValueId element : attrs.elements(value)) {
      if (scalar_refused(attrs.get(element).kind)) return attrs.get(element).kind;
    }
  }
  return std::nullopt;
}

/// Per-context cache of every schema's parsed defaults and of each attribute object's text,
/// and the canonicaliser. One per context (`of`), shared by its readers and writers: a
/// schema's defaults are parsed once per context, an object's fields printed once.
class AttrSchemaCache {
 public:
  /// The context's cache.
  static AttrSchemaCache& of(Context& context) { return context.derived<AttrSchemaCache>(); }
  explicit AttrSchemaCache(Context& context) : context_(context) {}

  /// The declared default of each field of `schema`, in field order (nullopt: no default, or
  /// one graphpat cannot read such as `VirtualDevice(?)`).
  const std::vector<std::optional<AttrValueId>>& defaults(const AttrSchema& schema) {
    auto [slot, inserted] = defaults_.try_emplace(schema.type_key);
    if (!inserted) return slot->second;
    for (const AttrSchemaField& field : schema.fields) {
      std::optional<AttrValueId> value;
      if (field.has_default) {
        RelayLexer lexer(context_.strings.view(field.default_value));
        AttrValueReader reader(context_, lexer, 64);
        auto parsed = reader.read();
        if (parsed.ok() && lexer.peek().kind == TokenKind::kEnd) {
          value = to_field_form(context_, storage(field), *parsed);
        }
      }
      slot->second.push_back(value);
    }
    return slot->second;
  }

  [[nodiscard]] relay::FieldStorage storage(const AttrSchemaField& field) const {
    return relay::field_storage(context_.strings.view(field.cpp_type));
  }

  /// How each field of `schema` is stored and what it may hold, read from its C++ type once.
  struct FieldRule {
    relay::FieldStorage storage;
    IndexField index;
  };
  const std::vector<FieldRule>& rules(const AttrSchema& schema) {
    auto [slot, inserted] = rules_.try_emplace(schema.type_key);
    if (inserted) {
      for (const AttrSchemaField& field : schema.fields) {
        slot->second.push_back(
            {storage(field), index_field(context_.strings.view(field.cpp_type))});
      }
    }
    return slot->second;
  }

  /// The canonical object for `written` pairs of a call of `op_name` whose struct is `schema`:
  /// every field, defaults filled in. Fields the schema does not know keep the pairs as
  /// written (nothing is dropped); a missing field without default is refused, as TVM does.
  /// A refusal is made by `refuse_attribute(id, pair, problem)`: the error id
  /// ("bad_attribute", "missing_attribute"; the Relay text readers make them relay_text ids),
  /// the index in `written` of the pair at fault (nullopt for a missing field) and the problem;
  /// each reader places it in its own terms.
  template <class RefuseAttribute>
  absl::StatusOr<AttrValueId> canonical(const AttrSchema& schema,
                                        std::span<const AttrField> written,
                                        std::string_view op_name,
                                        RefuseAttribute refuse_attribute) {
    AttrTable& attrs = context_.attrs;
    std::string_view type_key = context_.strings.view(schema.type_key);
    for (const AttrField& field : written) {
      bool known = false;
      for (const AttrSchemaField& declared : schema.fields) known |= declared.name == field.key;
      if (!known) return attrs.object(type_key, written);
    }
    const auto& declared_defaults = defaults(schema);
    std::vector<AttrField> fields;
    fields.reserve(schema.fields.size());
    for (std::size_t i = 0; i < schema.fields.size(); ++i) {
      const AttrSchemaField& declared = schema.fields[i];
      std::optional<AttrValueId> value;
      std::optional<std::size_t> pair;
      for (std::size_t j = 0; j < written.size(); ++j) {
        if (written[j].key != declared.name) continue;
        value = written[j].value;
        pair = j;
      }
      std::string_view name = context_.strings.view(declared.name);
      if (value) {
        std::string_view cpp_type = context_.strings.view(declared.cpp_type);
        std::optional<AttrKind> refused = refused_kind(index_field(cpp_type), attrs, *value);
        AttrKind given = attrs.get(*value).kind;
        value = to_field_form(context_, storage(declared), *value);
        if (!value || refused) {
          return refuse_attribute(
              "bad_attribute", pair,
              fmt::format("{}: attribute '{}' of {} ({}) cannot hold {}", type_key, name, op_name,
                          cpp_type, attr_kind_phrase(refused.value_or(given))));
        }
      } else if (declared_defaults[i]) {
        value = declared_defaults[i];
      } else if (declared.has_default) {
        value = attrs.null();
      } else {
        return refuse_attribute(
            "missing_attribute", std::nullopt,
            fmt::format("{}: cannot find required field '{}' of {}", type_key, name, op_name));
      }
      fields.push_back({declared.name, *value});
    }
    return attrs.object(type_key, fields);
  }

  /// The same, refusals placed as Relay text errors: at `places[pair]` (the line and column of
  /// each written pair) when given, else at `line`:`column`.
  absl::StatusOr<AttrValueId> canonical(
      const AttrSchema& schema, std::span<const AttrField> written, std::string_view op_name,
      std::int32_t line, std::int32_t column,
      std::span<const std::pair<std::int32_t, std::int32_t>> places = {}) {
    return canonical(schema, written, op_name,
                     [&](std::string_view id, std::optional<std::size_t> pair, std::string problem) {
                       auto [at_line, at_column] =
                           pair && *pair < places.size() ? places[*pair] : std::pair{line, column};
                       return text_error(id, at_line, at_column, problem);
                     });
  }

  /// Whether `attrs` is the canonical object of `schema` (its fields, in order).
  [[nodiscard]] bool is_canonical(AttrValueId attrs, const AttrSchema& schema) const {
    const AttrTable& table = context_.attrs;
    if (table.kind(attrs) != AttrKind::kObject || table.get(attrs).text != schema.type_key ||
        table.entry_count(attrs) != schema.fields.size()) {
      return false;
    }
    for (std::size_t i = 0; i < schema.fields.size(); ++i) {
      if (table.field_key(attrs, i) != schema.fields[i].name) return false;
    }
    return true;
  }

  /// Why the text reader would refuse the `k=v` fields of `attrs`, an object of the op's own
  /// struct `schema`, when every field is one the struct declares (canonical() then reads
  /// them): the first field holding a value its type cannot hold, such as an int in an
  /// Array<IndexExpr> field (TVM's JSON loader does not check field types, so load_json keeps
  /// it). nullopt when the reader reads them all.
  /// Objects found readable are remembered (one probe next time); the others are looked at
  /// again, so that no message is kept.
  std::optional<std::string> unreadable_field(AttrValueId attrs, const AttrSchema& schema) {
    forget_if_schemas_changed();
    if (readable_fields_.contains(std::pair(attrs, &schema))) return std::nullopt;
    std::optional<std::string> problem = find_unreadable_field(attrs, schema);
    if (!problem) readable_fields_.insert(std::pair(attrs, &schema));
    return problem;
  }

  /// The `name=value` texts TVM prints for `attrs` (§2.1): for a canonical object every field
  /// that has no default or differs from it, in declaration order; otherwise every field.
  /// Made once per attribute object (a model's calls share a few); valid until the next call.
  const std::vector<std::string>& field_texts(AttrValueId attrs) {
    forget_if_schemas_changed();
    auto [slot, inserted] = field_texts_.try_emplace(attrs);
    if (inserted) slot->second = make_field_texts(attrs);
    return slot->second;
  }

 private:
  // The memos of field_texts and unreadable_field hold for the schemas they were made with: a
  // context may gain schemas (which makes objects of a new struct canonical, and may move the
  // registry's schemas).
  void forget_if_schemas_changed() {
    if (memo_schema_count_ == context_.ops.schema_count()) return;
    field_texts_.clear();
    readable_fields_.clear();
    memo_schema_count_ = context_.ops.schema_count();
  }

  std::optional<std::string> find_unreadable_field(AttrValueId attrs, const AttrSchema& schema) {
    AttrTable& table = context_.attrs;
    constexpr std::size_t kUndeclared = ~std::size_t{0};
    std::vector<std::size_t> declared(table.entry_count(attrs), kUndeclared);
    for (std::size_t i = 0; i < declared.size(); ++i) {
      for (std::size_t k = 0; k < schema.fields.size(); ++k) {
        if (schema.fields[k].name == table.field_key(attrs, i)) declared[i] = k;
      }
      if (declared[i] == kUndeclared) return std::nullopt;  // kept as written, unchecked
    }
    const auto& field_rules = rules(schema);
    for (std::size_t i = 0; i < declared.size(); ++i) {
      AttrValueId value = table.entry_value(attrs, i);
      const FieldRule& rule = field_rules[declared[i]];
      std::optional<AttrKind> refused = refused_kind(rule.index, table, value);
      if (!refused && to_field_form(context_, rule.storage, value)) continue;
      const AttrSchemaField& field = schema.fields[declared[i]];
      return fmt::format("attribute '{}' of {} ({}) holds {}, which its text reader refuses",
                         context_.strings.view(field.name), context_.strings.view(schema.type_key),
                         context_.strings.view(field.cpp_type),
                         attr_kind_phrase(refused.value_or(table.get(value).kind)));
    }
    return std::nullopt;
  }

  std::vector<std::string> make_field_texts(AttrValueId attrs) {
    const AttrTable& table = context_.attrs;
    std::vector<std::string> texts;
    const AttrSchema* schema = context_.ops.find_schema(table.text(attrs));
    bool canonical = schema != nullptr && is_canonical(attrs, *schema);
    const std::vector<std::optional<AttrValueId>>* declared_defaults =
        canonical ? &defaults(*schema) : nullptr;
    const std::vector<FieldRule>* field_rules = canonical ? &rules(*schema) : nullptr;
    for (std::size_t i = 0; i < table.entry_count(attrs); ++i) {
      AttrValueId value = table.entry_value(attrs, i);
      std::optional<relay::FieldStorage> kind;
      if (canonical) {
        kind = (*field_rules)[i].storage;
        const auto& fallback = (*declared_defaults)[i];
        if (fallback && equal_to_default(*kind, value, *fallback)) continue;
      }
      std::string text(context_.strings.view(table.field_key(attrs, i)));
      text += '=';
      text += value_text(value, kind);
      texts.push_back(std::move(text));
    }
    return texts;
  }

 public:
  /// A value as printed; double fields print with TVM's `f` suffix whatever their width.
  std::string value_text(AttrValueId value, std::optional<relay::FieldStorage> kind = {}) const {
    const AttrTable& table = context_.attrs;
    if (kind == relay::FieldStorage::kDouble && table.kind(value) == AttrKind::kFloat) {
      return format_float(table.as_float(value), 32);
    }
    std::string out;
    append_attr(out, context_, value, TextSyntax(*this));
    return out;
  }

  /// The index of a `meta[KEY][i]` placeholder object, if `value` is one.
  [[nodiscard]] std::optional<std::int64_t> meta_index(AttrValueId value) const {
    const AttrTable& table = context_.attrs;
    if (table.kind(value) != AttrKind::kObject || table.entry_count(value) != 1 ||
        context_.strings.view(table.field_key(value, 0)) != kMetaIndexField) {
      return std::nullopt;
    }
    return table.as_int(table.entry_value(value, 0));
  }

 private:
  // Relay's attribute syntax with what only the text has: an object standing for a metadata
  // entry prints `meta[KEY][i]`, a GlobalVar `'name'`.
  class TextSyntax : public RelayAttrSyntax {
   public:
    explicit TextSyntax(const AttrSchemaCache& cache) : cache_(cache) {}
    std::optional<bool> whole(std::string& out, const Context& context,
                              AttrValueId value) const override {
      const AttrTable& table = context.attrs;
      if (table.kind(value) != AttrKind::kObject) return std::nullopt;
      if (auto index = cache_.meta_index(value)) {
        fmt::format_to(std::back_inserter(out), "meta[{}][{}]", table.text(value), *index);
        return true;
      }
      if (table.text(value) == kGlobalVarKey && table.entry_count(value) == 1 &&
          table.kind(table.entry_value(value, 0)) == AttrKind::kString) {
        fmt::format_to(std::back_inserter(out), "'{}'", table.text(table.entry_value(value, 0)));
        return true;
      }
      return std::nullopt;
    }

   private:
    const AttrSchemaCache& cache_;
  };

  bool equal_to_default(relay::FieldStorage kind, AttrValueId value, AttrValueId fallback) const {
    const AttrTable& table = context_.attrs;
    if (kind == relay::FieldStorage::kDouble && table.kind(value) == AttrKind::kFloat &&
        table.kind(fallback) == AttrKind::kFloat) {
      return std::fabs(table.as_float(value) - table.as_float(fallback)) < 1e-9;
    }
    return value == fallback;
  }

  Context& context_;
  absl::flat_hash_map<StringId, std::vector<std::optional<AttrValueId>>> defaults_;
  absl::flat_hash_map<StringId, std::vector<FieldRule>> rules_;
  absl::flat_hash_map<AttrValueId, std::vector<std::string>> field_texts_;  // field_texts' memo
  // unreadable_field's memo: the (object, schema) pairs it found readable.
  absl::flat_hash_set<std::pair<AttrValueId, const AttrSchema*>> readable_fields_;
  std::size_t memo_schema_count_ = 0;  // the schemas the two memos were made with
};

}  // namespace graphpat::detail

#include "graphpat/detail/status_macros_undef.hpp"
