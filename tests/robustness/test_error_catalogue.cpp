// The catalogue of error ids (docs/errors.md) against the code: every id the sources under
// include/ and examples/cli/ can make has a row, every row names an id they make, and every id
// of the bad-input manifest (tests/bad_inputs/MANIFEST.tsv) has a row.
//
// An id is made by a call of one of kIdMakers with a string literal in its id argument:
// `make_error(code, "cli.bad_node", ...)` makes cli.bad_node, `json_error("unsupported", ...)`
// relay_json.unsupported. The sources are read as C++ tokens, enough to skip comments and
// literals and to take a call's arguments apart. A call that passes an id on from a variable
// instead (a helper's own body) cannot be read that way, so each such call is listed in
// kForwardingCalls: a new one fails the test until its ids are literals at a helper's call or
// it is listed with the reason it is safe.
//
// A catalogue row is a Markdown table row whose first cell is an id in backticks
// (`graphpat.relay_text.bad_type`); its last cell is an example message, which must carry the
// row's id.

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/test_files.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = GRAPHPAT_SOURCE_DIR;

/// A function that makes an error: which argument is the id, and the component it prefixes
/// ("" when the argument is the whole id, "cli.bad_node").
struct IdMaker {
  std::string_view function;
  std::size_t id_argument;
  std::string_view component;
};

constexpr IdMaker kIdMakers[] = {
    {"make_error", 1, ""},                      // ir/errors.hpp
    {"io_error", 0, ""},                        // examples/cli/io.cpp
    {"json_error", 0, "relay_json"},            // io/relay_json/document.hpp
    {"text_error", 0, "relay_text"},            // relay/text/lexer.hpp
    {"graph_json_error", 0, "graph_json"},      // io/graph_json/attr_values.hpp
    {"pattern_text_error", 0, "pattern_text"},  // pattern/text_syntax.hpp
    {"error_at", 1, "pattern_text"},            // pattern/text_evaluator.hpp, placed at a syntax node
    {"verify_error", 0, "verify"},              // analysis/verify.hpp
    {"rule_error", 0, "rewrite_rules"},         // transform/rewrite_rules.hpp
    // AttrSchemaCache::canonical's callback (relay/text/attributes.hpp): the Relay text
    // readers make relay_text.<id> of it; the graph JSON reader makes graph_json.bad_attribute
    // whatever the id, a literal at its own call.
    {"refuse_attribute", 0, "relay_text"},
};

/// The calls whose id argument is not a literal, as `file: function(argument)`: the bodies of
/// the helpers, which pass their parameter on with their component's prefix, and the two Relay
/// text callbacks of refuse_attribute, which do the same with relay_text.
const std::multiset<std::string> kForwardingCalls = {
    // io_error
    "examples/cli/io.cpp: make_error(what)",
    // verify_error
    "include/graphpat/analysis/verify.hpp: make_error(fmt::format(\"verify.{}\", what))",
    // graph_json_error, and its overload for a JsonPath
    "include/graphpat/io/graph_json/attr_values.hpp: make_error(fmt::format(\"graph_json.{}\", "
    "id))",
    "include/graphpat/io/graph_json/attr_values.hpp: graph_json_error(id)",
    // json_error
    "include/graphpat/io/relay_json/document.hpp: make_error(fmt::format(\"relay_json.{}\", "
    "what))",
    // call_attrs's refuse_attribute, which has no place
    "include/graphpat/relay/call_attrs.hpp: make_error(fmt::format(\"relay_text.{}\", id))",
    // the Relay text reader's refuse_attribute (AttrSchemaCache::canonical with a place)
    "include/graphpat/relay/text/attributes.hpp: text_error(id)",
    // text_error
    "include/graphpat/relay/text/lexer.hpp: make_error(fmt::format(\"relay_text.{}\", id))",
    // error_at
    "include/graphpat/pattern/text_evaluator.hpp: pattern_text_error(what)",
    // pattern_text_error
    "include/graphpat/pattern/text_syntax.hpp: make_error(fmt::format(\"pattern_text.{}\", "
    "what))",
    // rule_error
    "include/graphpat/transform/rewrite_rules.hpp: make_error(fmt::format(\"rewrite_rules.{}\", "
    "what))",
};

struct Token {
  enum class Kind { kIdentifier, kString, kOther };
  Kind kind = Kind::kOther;
  std::string text;  // a name, a string literal's contents as written, or one other character
  std::size_t line = 0;
};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The end of the quoted text that starts after `open` (the index of the closing `quote`),
/// skipping backslash escapes.
std::size_t closing_quote(std::string_view source, std::size_t open, char quote) {
  std::size_t at = open + 1;
  while (at < source.size() && source[at] != quote) at += source[at] == '\\' ? 2 : 1;
  return std::min(at, source.size());
}

/// `source` as names, string literals and single characters; comments, spaces and character
/// literals dropped, a raw string's contents kept as written.
std::vector<Token> tokenize(std::string_view source) {
  std::vector<Token> tokens;
  std::size_t line = 1;
  auto skip_to = [&](std::size_t from, std::size_t to) {
    line += static_cast<std::size_t>(std::count(source.begin() + static_cast<std::ptrdiff_t>(from),
                                                source.begin() + static_cast<std::ptrdiff_t>(to),
                                                '\n'));
    return to;
  };
  std::size_t at = 0;
  while (at < source.size()) {
    char c = source[at];
    std::string_view rest = source.substr(at);
    if (std::isspace(static_cast<unsigned char>(c))) {
      at = skip_to(at, at + 1);
    } else if (rest.starts_with("//")) {
      at = std::min(source.find('\n', at), source.size());
    } else if (rest.starts_with("/*")) {
      std::size_t end = source.find("*/", at + 2);
      at = skip_to(at, end == std::string_view::npos ? source.size() : end + 2);
    } else if (c == '"') {
      std::size_t end = closing_quote(source, at, '"');
      tokens.push_back(
          {Token::Kind::kString, std::string(source.substr(at + 1, end - at - 1)), line});
      at = skip_to(at, std::min(end + 1, source.size()));
    } else if (c == '\'') {
      at = std::min(closing_quote(source, at, '\'') + 1, source.size());
    } else if (is_word_char(c)) {
      std::size_t end = at;
      bool number = std::isdigit(static_cast<unsigned char>(c)) != 0;
      while (end < source.size() &&
             (is_word_char(source[end]) ||
              (number && source[end] == '\'' && end + 1 < source.size() &&
               is_word_char(source[end + 1])))) {  // a digit separator, 1'000'000
        ++end;
      }
      std::string_view word = source.substr(at, end - at);
      bool quote_follows = end < source.size() && source[end] == '"';
      if (quote_follows && word.ends_with('R')) {  // R"delimiter( ... )delimiter"
        std::size_t open = source.find('(', end);
        std::string closing = ")" + std::string(source.substr(end + 1, open - end - 1)) + "\"";
        std::size_t close = source.find(closing, open);
        if (close == std::string_view::npos) close = source.size();
        tokens.push_back(
            {Token::Kind::kString, std::string(source.substr(open + 1, close - open - 1)), line});
        at = skip_to(at, std::min(close + closing.size(), source.size()));
      } else if (quote_follows) {  // an encoding prefix (u8"...", L"..."): the string follows
        at = end;
      } else {
        tokens.push_back(
            {number ? Token::Kind::kOther : Token::Kind::kIdentifier, std::string(word), line});
        at = end;
      }
    } else {
      tokens.push_back({Token::Kind::kOther, std::string(1, c), line});
      ++at;
    }
  }
  return tokens;
}

/// The arguments of the call whose `(` is tokens[open], each as its tokens.
std::vector<std::vector<Token>> call_arguments(const std::vector<Token>& tokens, std::size_t open) {
  std::vector<std::vector<Token>> arguments(1);
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    const Token& token = tokens[i];
    bool punct = token.kind == Token::Kind::kOther;
    if (punct && (token.text == "(" || token.text == "[" || token.text == "{")) {
      if (depth++ == 0) continue;
    } else if (punct && (token.text == ")" || token.text == "]" || token.text == "}")) {
      if (--depth == 0) break;
    } else if (punct && depth == 1 && token.text == ",") {
      arguments.emplace_back();
      continue;
    }
    arguments.back().push_back(token);
  }
  return arguments;
}

/// An argument as it reads in the source, without spaces except after a comma and between two
/// names.
std::string spelled(const std::vector<Token>& argument) {
  std::string out;
  for (std::size_t i = 0; i < argument.size(); ++i) {
    const Token& token = argument[i];
    if (i > 0 && ((argument[i - 1].kind == Token::Kind::kOther && argument[i - 1].text == ",") ||
                  (token.kind == Token::Kind::kIdentifier &&
                   argument[i - 1].kind == Token::Kind::kIdentifier))) {
      out += ' ';
    }
    out += token.kind == Token::Kind::kString ? "\"" + token.text + "\"" : token.text;
  }
  return out;
}

bool is_name(std::string_view text) {
  return !text.empty() && std::islower(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::islower(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)) || c == '_';
         });
}

/// Whether `id` is `component.what`, both lower-case names.
bool is_id(std::string_view id) {
  std::size_t dot = id.find('.');
  return dot != std::string_view::npos && is_name(id.substr(0, dot)) && is_name(id.substr(dot + 1));
}

/// What the sources make: each id with the places that make it (`file:line`), the forwarding
/// calls (as kForwardingCalls spells them) with their places, and literals in an id argument
/// that are not ids.
struct SourceIds {
  std::map<std::string, std::vector<std::string>> places;
  std::vector<std::pair<std::string, std::string>> forwarding;
  std::vector<std::string> not_ids;
};

void scan_file(const fs::path& path, SourceIds& found) {
  std::string file = path.lexically_relative(kSourceDir).generic_string();
  std::vector<Token> tokens = tokenize(graphpat::testing::read_file(path));
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].kind != Token::Kind::kIdentifier || tokens[i + 1].text != "(") continue;
    const auto* maker =
        std::find_if(std::begin(kIdMakers), std::end(kIdMakers),
                     [&](const IdMaker& m) { return m.function == tokens[i].text; });
    if (maker == std::end(kIdMakers)) continue;
    // `absl::Status json_error(std::string_view what, ...)` declares the helper.
    if (i > 0 && tokens[i - 1].kind == Token::Kind::kIdentifier && tokens[i - 1].text != "return") {
      continue;
    }
    std::string place = fmt::format("{}:{}", file, tokens[i].line);
    std::vector<std::vector<Token>> arguments = call_arguments(tokens, i + 1);
    if (arguments.size() <= maker->id_argument) {
      found.not_ids.push_back(fmt::format("{}: {} without an id argument", place, maker->function));
      continue;
    }
    const std::vector<Token>& argument = arguments[maker->id_argument];
    bool literal = !argument.empty() && std::all_of(argument.begin(), argument.end(), [](auto& t) {
      return t.kind == Token::Kind::kString;
    });
    if (!literal) {
      found.forwarding.emplace_back(
          fmt::format("{}: {}({})", file, maker->function, spelled(argument)), place);
      continue;
    }
    std::string text;
    for (const Token& token : argument) text += token.text;
    std::string id = maker->component.empty() ? text : fmt::format("{}.{}", maker->component, text);
    if (!is_id(id) || (!maker->component.empty() && !is_name(text))) {
      found.not_ids.push_back(fmt::format("{}: {}(\"{}\")", place, maker->function, text));
      continue;
    }
    found.places[id].push_back(place);
  }
}

const SourceIds& source_ids() {
  static const SourceIds found = [] {
    SourceIds ids;
    std::vector<fs::path> files;
    for (const char* root : {"include", "examples/cli"}) {
      for (const auto& entry : fs::recursive_directory_iterator(kSourceDir / root)) {
        std::string extension = entry.path().extension().string();
        if (entry.is_regular_file() && (extension == ".hpp" || extension == ".cpp")) {
          files.push_back(entry.path());
        }
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) scan_file(file, ids);
    return ids;
  }();
  return found;
}

struct CatalogueRow {
  std::size_t line = 0;
  std::string id;  // without "graphpat."
  std::string example;
};

/// The cells of a Markdown table row, split at `|` not escaped as `\|`, trimmed.
std::vector<std::string> table_cells(std::string_view row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {  // row[0] is the opening '|'
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (row[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  for (std::string& c : cells) {
    std::size_t first = c.find_first_not_of(' ');
    c = first == std::string::npos ? "" : c.substr(first, c.find_last_not_of(' ') - first + 1);
  }
  return cells;
}

std::vector<CatalogueRow> catalogue_rows() {
  std::istringstream in(graphpat::testing::read_file(kSourceDir / "docs" / "errors.md"));
  std::vector<CatalogueRow> rows;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.starts_with("| `graphpat.")) continue;
    std::vector<std::string> cells = table_cells(line);
    std::string id = cells[0].substr(std::string_view("`graphpat.").size());
    if (id.ends_with('`')) id.pop_back();
    rows.push_back({number, id, cells.size() >= 3 ? cells.back() : ""});
  }
  return rows;
}

std::set<std::string> catalogue_ids() {
  std::set<std::string> ids;
  for (const CatalogueRow& row : catalogue_rows()) ids.insert(row.id);
  return ids;
}

}  // namespace

TEST_CASE("the error-id scan reads the sources", "[errors]") {
  const SourceIds& found = source_ids();
  // Far fewer would mean the scan lost its way (a path, a helper renamed).
  CHECK(found.places.size() > 100);
  CHECK(found.places.contains("relay_text.unexpected_token"));
  CHECK(found.places.contains("cli.bad_node"));
  CHECK(found.not_ids == std::vector<std::string>{});
}

TEST_CASE("an id passed on through a variable is one of the known forwarding calls", "[errors]") {
  // A new entry here is a call whose ids the scan cannot see: make them literals at a call of
  // a helper of kIdMakers (as relocate in io/relay_text/parser.hpp does), or list the call in
  // kForwardingCalls when it only passes on its own parameter.
  std::multiset<std::string> listed = kForwardingCalls;
  std::vector<std::string> unlisted;
  for (const auto& [call, place] : source_ids().forwarding) {
    auto found = listed.find(call);
    if (found == listed.end()) {
      unlisted.push_back(fmt::format("{} (at {})", call, place));
    } else {
      listed.erase(found);
    }
  }
  CHECK(unlisted == std::vector<std::string>{});
  // An entry no call matches any more: remove it from kForwardingCalls.
  CHECK(std::vector<std::string>(listed.begin(), listed.end()) == std::vector<std::string>{});
}

TEST_CASE("every error id the sources make has a row in docs/errors.md", "[errors]") {
  std::set<std::string> catalogue = catalogue_ids();
  std::vector<std::string> missing;
  for (const auto& [id, places] : source_ids().places) {
    if (!catalogue.contains(id)) missing.push_back(fmt::format("{} (made at {})", id, places[0]));
  }
  CHECK(missing == std::vector<std::string>{});
}

TEST_CASE("every row of docs/errors.md names an id the sources make, once", "[errors]") {
  const SourceIds& found = source_ids();
  std::vector<std::string> unknown;
  std::vector<std::string> repeated;
  std::set<std::string> seen;
  for (const CatalogueRow& row : catalogue_rows()) {
    if (!found.places.contains(row.id)) {
      unknown.push_back(fmt::format("{} (docs/errors.md:{})", row.id, row.line));
    }
    if (!seen.insert(row.id).second) {
      repeated.push_back(fmt::format("{} (docs/errors.md:{})", row.id, row.line));
    }
  }
  CHECK(seen.size() > 100);
  CHECK(unknown == std::vector<std::string>{});
  CHECK(repeated == std::vector<std::string>{});
}

TEST_CASE("every example message in docs/errors.md carries its row's id", "[errors]") {
  std::vector<std::string> wrong;
  for (const CatalogueRow& row : catalogue_rows()) {
    if (row.example.find(fmt::format("[graphpat.{}]", row.id)) == std::string::npos) {
      wrong.push_back(fmt::format("{} (docs/errors.md:{}): {}", row.id, row.line, row.example));
    }
  }
  CHECK(wrong == std::vector<std::string>{});
}

TEST_CASE("every error id of the bad-input manifest has a row in docs/errors.md", "[errors]") {
  std::set<std::string> catalogue = catalogue_ids();
  std::istringstream in(
      graphpat::testing::read_file(kSourceDir / "tests" / "bad_inputs" / "MANIFEST.tsv"));
  std::vector<std::string> missing;
  std::size_t rows = 0;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line.starts_with('#')) continue;
    ++rows;
    std::istringstream fields(line);
    std::string input, loader, id;
    std::getline(fields, input, '\t');
    std::getline(fields, loader, '\t');
    std::getline(fields, id, '\t');
    if (!catalogue.contains(id)) {
      missing.push_back(fmt::format("{} (MANIFEST.tsv:{})", id, number));
    }
  }
  CHECK(rows > 100);
  CHECK(missing == std::vector<std::string>{});
}
