// The writer rule (issue 21, classes 7 and 9): whatever a writer is given, it writes text its
// reader reads back structurally equal, or refuses with a located error naming the node. Graphs
// are built through the API with odd names in every place a writer prints a name or a string;
// Relay text refuses names its lexer would not read as the same name (exact messages, derived
// from the lexer's rules), the JSON writers escape them; a constant without bytes keeps its
// dtype and shape in the text. (DOT, which has no reader, is checked in test_dot.cpp.)
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <functional>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/graph_json.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/test_files.hpp"

// A named namespace (test_io is a unity build whose other files use other `Module`s).
namespace writer_tests {

using graphpat::AttrValueId;
using graphpat::Context;
using graphpat::NodeId;
using graphpat::relay::Module;
using graphpat::relay::TextEnvelope;
using graphpat::testing::message;

// The odd names: each reader accepts a graph holding them (the JSON readers any UTF-8 string).
const std::vector<std::string> kOddNames = {
    "x",
    "nn.softmax(%data); @evil",
    std::string("a\0b", 3),
    "a;b",
    "main\ndef @evil",
    "a\"b",
    "a}b",
    "a b",
    "\xC3\xA9",
    "\xE2\x80\xA8",
    "",
    "_x",
    "input.1",
    "onnx::Conv_0",
    "a:",
    "inff",
    "fn",
    "relay.reshape_only",
    "a/b",
    "a\\b",
};

// Where a name goes in the graph: %0 is the var, %1 the callee, %2 the call, %3 the function.
enum class Place { kVar, kOp, kGlobal, kFunctionName, kFunctionAttr, kCallAttr, kString, kSpan };
const Place kPlaces[] = {Place::kVar,          Place::kOp,           Place::kGlobal,
                         Place::kFunctionName, Place::kFunctionAttr, Place::kCallAttr,
                         Place::kString,       Place::kSpan};

Module module_with(Place place, const std::string& name) {
  Module module;
  graphpat::relay::Builder b(module.graph);
  Context& context = module.graph.context();
  NodeId x = b.var(place == Place::kVar ? name : "x");
  NodeId callee = place == Place::kOp       ? b.opaque_op(name)
                  : place == Place::kGlobal ? b.global_var(name.empty() ? "g" : name)
                                            : b.op("nn.relu");
  AttrValueId call_attrs;
  if (place == Place::kCallAttr) {
    call_attrs = context.attrs.object(graphpat::detail::kUnknownAttrsKey,
                                      {{name, context.attrs.integer(1)}});
  }
  graphpat::SpanId span;
  if (place == Place::kSpan) span = context.spans.intern({context.strings.intern(name), 1, 2});
  NodeId call = b.call(callee, {x}, {.attrs = call_attrs, .span = span});
  AttrValueId function_attrs;
  if (place == Place::kFunctionAttr || place == Place::kString) {
    function_attrs = context.attrs.object(
        "DictAttrs",
        {{place == Place::kString ? "Composite" : std::string_view(name),
          place == Place::kString ? context.attrs.string(name) : context.attrs.integer(1)}});
  }
  module.add_function(place == Place::kFunctionName ? name : "main",
                      b.function({x}, call, {.attrs = function_attrs}));
  if (place == Place::kGlobal) {
    NodeId y = b.var("y");
    module.add_function(name.empty() ? "g" : name, b.function({y}, y));
  }
  return module;
}

struct Writer {
  std::string_view name;
  std::string_view refusal;  // the error id of a refusal
  std::function<absl::StatusOr<std::string>(const Module&)> write;
  std::function<absl::StatusOr<Module>(const std::string&)> read;
};

const std::vector<Writer>& writers() {
  static const std::vector<Writer> all = {
      {"relay text", "graphpat.relay_text.unprintable",
       [](const Module& m) { return graphpat::relay::print_text(m); },
       [](const std::string& text) { return graphpat::relay::parse_text(text); }},
      {"relay text (str)", "graphpat.relay_text.unprintable",
       [](const Module& m) { return graphpat::relay::print_text(m, TextEnvelope::kStr); },
       [](const std::string& text) { return graphpat::relay::parse_text(text); }},
      {"TVM JSON", "graphpat.relay_json.unsupported",
       [](const Module& m) { return graphpat::relay::save_json(m); },
       [](const std::string& text) -> absl::StatusOr<Module> {
         auto loaded = graphpat::relay::load_json(text);
         if (!loaded.ok()) return loaded.status();
         return std::move(loaded->module);
       }},
      {"graph JSON", "graphpat.graph_json.unsupported",
       [](const Module& m) { return graphpat::relay::print_graph_json(m); },
       [](const std::string& text) { return graphpat::relay::parse_graph_json(text); }},
  };
  return all;
}

// What `writer` makes of `module`: "" when it wrote text that reads back structurally equal,
// its refusal's message when it refused with its own id, else what went wrong.
std::string outcome(const Writer& writer, const Module& module) {
  absl::StatusOr<std::string> written = writer.write(module);
  if (!written.ok()) {
    if (graphpat::error_id(written.status()) == writer.refusal) return message(written.status());
    return "refused with another id: " + message(written.status());
  }
  absl::StatusOr<Module> back = writer.read(*written);
  if (!back.ok()) return "wrote what does not read back: " + message(back.status());
  auto difference = graphpat::first_difference(module, *back);
  if (difference) return "wrote what reads back different: " + difference->reason;
  return "";
}

constexpr std::string_view kIdentifier =
    "an identifier (a letter or '_', then letters, digits, '_' or '/')";
constexpr std::string_view kOpName =
    "identifiers (a letter or '_', then letters, digits, '_' or '/') joined by '.', the first not "
    "a keyword";

std::string unprintable(std::string_view place, std::string_view what, std::string_view name,
                        std::string_view rule) {
  return fmt::format(
      "[graphpat.relay_text.unprintable] node {}: {} '{}' cannot be printed: it "
      "is not {}",
      place, what, name, rule);
}

TEST_CASE("every writer writes what reads back equal or refuses, over odd names",
          "[writers][relay_text][relay_json][graph_json]") {
  int written = 0;
  int refused = 0;
  for (Place place : kPlaces) {
    for (const std::string& name : kOddNames) {
      Module module = module_with(place, name);
      for (const Writer& writer : writers()) {
        INFO(fmt::format("{}, place {}, name '{}'", writer.name, static_cast<int>(place),
                         graphpat::detail::escape_unprintable(name)));
        std::string result = outcome(writer, module);
        if (result.empty()) {
          ++written;
        } else {
          CHECK(result.starts_with(fmt::format("[{}] ", writer.refusal)));
          ++refused;
        }
      }
    }
  }
  // Every name is written somewhere, and Relay text refuses most of them somewhere.
  CHECK(written > 400);
  CHECK(refused > 80);
}

TEST_CASE("the JSON writers carry every odd name; the Relay text printer the ones it can spell",
          "[writers][relay_text][relay_json][graph_json]") {
  const Writer& text = writers()[0];
  const Writer& tvm_json = writers()[2];
  const Writer& graph_json = writers()[3];
  for (const std::string& name : kOddNames) {
    INFO(graphpat::detail::escape_unprintable(name));
    for (Place place : {Place::kVar, Place::kGlobal, Place::kFunctionAttr, Place::kCallAttr,
                        Place::kString, Place::kSpan}) {
      CHECK(outcome(tvm_json, module_with(place, name)).empty());
      CHECK(outcome(graph_json, module_with(place, name)).empty());
    }
    // String values are escaped, whatever they hold (NUL, quotes, backslash, 0xff-free UTF-8).
    CHECK(outcome(text, module_with(Place::kString, name)).empty());
  }
  // The names Relay text spells: TVM's renaming of '_x' to %v_x and of "" to %v is invisible
  // to structural equality.
  for (std::string_view name : {"x", "", "_x", "input.1", "onnx::Conv_0", "inff", "fn", "a/b"}) {
    CHECK(outcome(text, module_with(Place::kVar, std::string(name))).empty());
  }
  for (std::string_view name : {"x", "relay.reshape_only", "a/b"}) {
    CHECK(outcome(text, module_with(Place::kOp, std::string(name))).empty());
    CHECK(outcome(text, module_with(Place::kFunctionAttr, std::string(name))).empty());
  }
  for (std::string_view name : {"x", "_x", "inff", "fn", "a/b"}) {
    CHECK(outcome(text, module_with(Place::kFunctionName, std::string(name))).empty());
  }
}

TEST_CASE("the Relay text printer refuses a name it cannot spell, naming the node",
          "[writers][relay_text]") {
  const Writer& text = writers()[0];
  const std::string local_rule = "letters, digits, '_' and '/', with '.' or '::' between them";
  struct Case {
    Place place;
    std::string name;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {Place::kOp, "nn.softmax(%data); @evil",
       unprintable("%1", "op name", "nn.softmax(%data); @evil", kOpName)},
      {Place::kOp, "fn", unprintable("%1", "op name", "fn", kOpName)},            // a keyword
      {Place::kOp, "nn.inff", unprintable("%1", "op name", "nn.inff", kOpName)},  // a number
      {Place::kOp, "", unprintable("%1", "op name", "", kOpName)},
      {Place::kOp, "input.1", unprintable("%1", "op name", "input.1", kOpName)},
      {Place::kFunctionName, "main\ndef @evil",
       unprintable("%3", "function name", "main\\x0Adef @evil", kIdentifier)},
      {Place::kFunctionName, "relay.main",
       unprintable("%3", "function name", "relay.main", kIdentifier)},
      {Place::kVar, std::string("a\0b", 3),
       unprintable("%0", "variable name", "a\\x00b", local_rule)},
      {Place::kVar, "x y", unprintable("%0", "variable name", "x y", local_rule)},
      {Place::kVar, "a:", unprintable("%0", "variable name", "a:", local_rule)},
      {Place::kVar, "\xC3\xA9", unprintable("%0", "variable name", "\\xC3\\xA9", local_rule)},
      {Place::kGlobal, "a}b", unprintable("%5", "function name", "a}b", kIdentifier)},
      {Place::kFunctionAttr, "a;b",
       unprintable("%3", "function attribute name", "a;b",
                   "identifiers (a letter or '_', then letters, digits, '_' or '/') joined by "
                   "'.'")},
      {Place::kCallAttr, "a.b",
       unprintable("%2", "attribute name", "a.b",
                   "an identifier other than attrs_type_key (a letter or '_', then letters, "
                   "digits, '_' or '/')")},
      {Place::kCallAttr, "attrs_type_key",
       unprintable("%2", "attribute name", "attrs_type_key",
                   "an identifier other than attrs_type_key (a letter or '_', then letters, "
                   "digits, '_' or '/')")},
      {Place::kSpan, "a\nb",
       unprintable("%2", "span source name", "a\\x0Ab",
                   "text without a line feed, '/*' or '*/' that does not start with a blank")},
      {Place::kSpan, "a*/b",
       unprintable("%2", "span source name", "a*/b",
                   "text without a line feed, '/*' or '*/' that does not start with a blank")},
      {Place::kSpan, " a",
       unprintable("%2", "span source name", " a",
                   "text without a line feed, '/*' or '*/' that does not start with a blank")},
  };
  for (const Case& c : cases) {
    INFO(c.expected);
    Module module = module_with(c.place, c.name);
    CHECK(outcome(text, module) == c.expected);
    // Again: what a print keeps with the context for the next (the texts of the types and
    // attributes it printed without a refusal) must not hide one.
    CHECK(outcome(text, module) == c.expected);
  }
}

TEST_CASE("the Relay text printer refuses type names the reader would read as another type",
          "[writers][relay_text]") {
  Module module;
  graphpat::relay::Builder b(module.graph);
  graphpat::TypeTable& types = module.graph.context().types;
  // %0 is a var of a dtype with a blank in it; %1 one of an incomplete type (read back as '_'
  // only, printed IncompleteType).
  NodeId x = b.var("x", types.tensor("float 32", {types.dim(2)}));
  module.add_function("main", b.function({x}, x));
  for (int print = 0; print < 2; ++print) {  // the second print as the first
    auto printed = graphpat::relay::print_text(module);
    REQUIRE_FALSE(printed.ok());
    CHECK(message(printed.status()) == unprintable("%0", "dtype", "float 32", kIdentifier));
  }

  Module incomplete;
  graphpat::relay::Builder c(incomplete.graph);
  NodeId y = c.var("y", incomplete.graph.context().types.incomplete());
  incomplete.add_function("main", c.function({y}, y));
  auto printed = graphpat::relay::print_text(incomplete);
  REQUIRE_FALSE(printed.ok());
  CHECK(message(printed.status()) ==
        unprintable("%0", "type", "IncompleteType", "a type the Relay text reader reads"));
}

TEST_CASE("a symbolic dimension read from TVM JSON is refused, not printed as a bare name",
          "[writers][relay_text][relay_json]") {
  // TVM prints a tir.Var dimension as meta[tir.Var][i] with the variable in the metadata
  // section; graphpat keeps its name ("n"), which printed bare reads back as no dimension.
  auto loaded = graphpat::relay::load_json(graphpat::testing::read_file(
      graphpat::testing::kCorpus / "golden" / "types_symbolic_dims" / "save_json.json"));
  REQUIRE(loaded.ok());
  const auto& graph = loaded->module.graph;
  NodeId x = graph.params(*loaded->module.find("main"))[0];
  for (int print = 0; print < 2; ++print) {  // the second print as the first
    auto printed = graphpat::relay::print_text(loaded->module);
    REQUIRE_FALSE(printed.ok());
    CHECK(message(printed.status()) ==
          unprintable(fmt::format("{}", x), "dimension", "n", "a meta[KEY][INDEX] reference"));
  }
}

TEST_CASE("the issue's injections are refused where they were written verbatim",
          "[writers][relay_text][relay_json][graph_json]") {
  // An op name read from TVM JSON: a module saved with nn.softmax, the name then changed.
  Module softmax;
  graphpat::relay::Builder b(softmax.graph);
  NodeId data = b.var("data");
  softmax.add_function("main", b.function({data}, b.call("nn.softmax", {data})));
  auto json = graphpat::relay::save_json(softmax);
  REQUIRE(json.ok());
  std::string evil = *json;
  std::size_t at = evil.find("\"nn.softmax\"");
  REQUIRE(at != std::string::npos);
  evil.replace(at, 12, "\"nn.softmax(%data); @evil\"");
  auto loaded = graphpat::relay::load_json(evil);
  REQUIRE(loaded.ok());
  auto printed = graphpat::relay::print_text(loaded->module);
  REQUIRE_FALSE(printed.ok());
  NodeId op = loaded->module.graph.callee(loaded->module.graph.body(*loaded->module.find("main")));
  CHECK(message(printed.status()) ==
        unprintable(fmt::format("{}", op), "op name", "nn.softmax(%data); @evil", kOpName));

  // A function name read from graph JSON (nodes: %0 the var, %1 the op, %2 the call, %3 the fn).
  auto graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main\ndef @evil",)"
      R"( "params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "call", "op": "nn.relu", "inputs": [0]}], "outputs": [1]}]})");
  REQUIRE(graph.ok());
  printed = graphpat::relay::print_text(*graph);
  REQUIRE_FALSE(printed.ok());
  CHECK(message(printed.status()) ==
        unprintable("%3", "function name", "main\\x0Adef @evil", kIdentifier));
}

TEST_CASE("a projection of %t is bracketed when a variable is named t.0", "[writers][relay_text]") {
  // The reader takes `%t.0` for the variable `t.0` when one is in scope, else %t projected.
  Module module;
  graphpat::relay::Builder b(module.graph);
  NodeId t = b.var("t");
  NodeId t0 = b.var("t.0");
  NodeId body = b.tuple({b.tuple_get_item(t, 0), t0, b.tuple_get_item(t, 1)});
  module.add_function("main", b.function({t, t0}, body));
  auto printed = graphpat::relay::print_text(module, TextEnvelope::kStr);
  REQUIRE(printed.ok());
  // Tuple fields that are not atoms are bound (docs/relay-formats.md §1.8).
  CHECK(*printed ==
        "def @main(%t, %t.0) {\n  %0 = (%t).0;\n  %1 = %t.1;\n  (%0, %t.0, %1)\n}\n");
  auto back = graphpat::relay::parse_text(*printed);
  REQUIRE(back.ok());
  CHECK(graphpat::structural_equal(module, *back));
}

TEST_CASE("string attribute values print escaped and read back as the same bytes",
          "[writers][relay_text]") {
  // NUL, quote, backslash, TAB, CR, LF, 0xFF (a byte that is not UTF-8), U+2028: StrEscape's
  // forms, which the reader undoes.
  std::string value = std::string("q\"b\\s\tt\rr\nn\0", 12) + "\xFF\xE2\x80\xA8";
  Module module = module_with(Place::kString, value);
  auto printed = graphpat::relay::print_text(module, TextEnvelope::kStr);
  REQUIRE(printed.ok());
  CHECK(*printed ==
        "def @main(%x, Composite=\"q\\\"b\\\\s\\tt\\rr\\nn\\x00\\xFF\\xE2\\x80\\xA8\") {\n"
        "  nn.relu(%x)\n"
        "}\n");
  auto back = graphpat::relay::parse_text(*printed);
  REQUIRE(back.ok());
  CHECK(graphpat::structural_equal(module, *back));
  const auto& graph = back->graph;
  AttrValueId attrs = graph.attrs(*back->find("main"));
  CHECK(graph.context().attrs.text(graph.context().attrs.entry_value(attrs, 0)) == value);
}

TEST_CASE("save_json refuses attrs out of the name order TVM JSON keeps them in",
          "[writers][relay_json]") {
  // A field Conv2DAttrs does not declare: the Relay text reader keeps the pairs as written, and
  // load_json keeps the fields of a struct that does not fit its layout in name order (TVM's
  // writer prints attrs keys sorted), so 'strides' before 'grouPs' cannot be written.
  auto read = graphpat::relay::parse_text(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {\n"
      "  nn.conv2d(%x, %w, strides=[2, 2], grouPs=2)\n"
      "}\n");
  REQUIRE(read.ok());
  NodeId call = read->graph.body(*read->find("main"));
  auto json = graphpat::relay::save_json(*read);
  REQUIRE_FALSE(json.ok());
  CHECK(message(json.status()) ==
        fmt::format("[graphpat.relay_json.unsupported] node {}: attrs of "
                    "relay.attrs.Conv2DAttrs: field 'grouPs' comes after 'strides', but TVM JSON "
                    "keeps the fields of a struct that does not fit its layout in name order",
                    call));

  // The same fields in name order are written, and read back with their kinds.
  read = graphpat::relay::parse_text(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {\n"
      "  nn.conv2d(%x, %w, grouPs=2, strides=[2, 2])\n"
      "}\n");
  REQUIRE(read.ok());
  json = graphpat::relay::save_json(*read);
  REQUIRE(json.ok());
  auto loaded = graphpat::relay::load_json(*json);
  REQUIRE(loaded.ok());
  CHECK(graphpat::structural_equal(*read, loaded->module));

  // An op graphpat has no schema for, from graph JSON: its attrs are a struct no layout knows.
  auto graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main",)"
      R"( "params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "call", "op": "vendor.fused", "inputs": [0],)"
      R"( "attrs": {"mode": "fast", "cale": {"float": 0.5, "bits": 32}}}], "outputs": [1]}]})");
  REQUIRE(graph.ok());
  json = graphpat::relay::save_json(*graph);
  REQUIRE_FALSE(json.ok());
  CHECK(message(json.status()) ==
        fmt::format("[graphpat.relay_json.unsupported] node {}: attrs of "
                    "graphpat.relay_text.UnknownAttrs: field 'cale' comes after 'mode', but TVM "
                    "JSON keeps the fields of a struct graphpat does not know in name order",
                    graph->graph.body(*graph->find("main"))));
}

TEST_CASE("a field value its reader would refuse: Relay text refuses it, graph JSON names the struct",
          "[writers][relay_text][graph_json]") {
  // Conv2DAttrs' dilation is an Array<IndexExpr>. The JSON readers take the struct's fields as
  // given (TVM's JSON loader does not check field types either), so an int can stand there;
  // printed as `dilation=2` it would not read back (fuzz_writer_roundtrip), so it is refused.
  auto graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main",)"
      R"( "params": [0, 1], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "var", "name": "w"},)"
      R"( {"id": 2, "kind": "call", "op": "nn.conv2d", "inputs": [0, 1],)"
      R"( "attrs_type": "relay.attrs.Conv2DAttrs", "attrs": {"dilation": 2}}],)"
      R"( "outputs": [2]}]})");
  REQUIRE(graph.ok());
  auto text = graphpat::relay::print_text(*graph);
  REQUIRE_FALSE(text.ok());
  CHECK(message(text.status()) ==
        fmt::format("[graphpat.relay_text.unprintable] node {}: attribute 'dilation' of "
                    "relay.attrs.Conv2DAttrs (Array<IndexExpr>) holds an int, which its text "
                    "reader refuses",
                    graph->graph.body(*graph->find("main"))));
  // Graph JSON names the struct ("attrs_type"), which its reader takes as written.
  auto written = graphpat::relay::print_graph_json(*graph);
  REQUIRE(written.ok());
  CHECK(written->find(R"("attrs": {"dilation": 2}, "attrs_type": "relay.attrs.Conv2DAttrs")") !=
        std::string::npos);
  auto again = graphpat::relay::parse_graph_json(*written);
  REQUIRE(again.ok());
  CHECK(graphpat::structural_equal(*graph, *again));
  // What the reader says of the text the printer refused to write.
  auto read = graphpat::relay::parse_text(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x, %w) {\n"
      "  nn.conv2d(%x, %w, dilation=2)\n"
      "}\n");
  REQUIRE_FALSE(read.ok());
  CHECK(message(read.status()) ==
        "[graphpat.relay_text.bad_attribute] 3:21: relay.attrs.Conv2DAttrs: attribute "
        "'dilation' of nn.conv2d (Array<IndexExpr>) cannot hold an int");
}

TEST_CASE("a declared field of a struct that does not fit is read as declared, or refused",
          "[writers][relay_json]") {
  // `dstrides` is no field of Conv2DAttrs, so the struct is kept as written; save_json wrote
  // its int `groups` inline ("2"), and load_json, reading an object that does not fit its
  // layout field by field, took it as the string "2" (fuzz_writer_roundtrip, session 14). A
  // field the layout declares is read as declared now.
  auto read = graphpat::relay::parse_text(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x, %w) {\n"
      "  nn.conv2d(%x, %w, dstrides=[2, 2], groups=2)\n"
      "}\n");
  REQUIRE(read.ok());
  auto json = graphpat::relay::save_json(*read);
  REQUIRE(json.ok());
  CHECK(json->find(R"("groups": "2")") != std::string::npos);
  auto loaded = graphpat::relay::load_json(*json);
  REQUIRE(loaded.ok());
  CHECK(graphpat::structural_equal(*read, loaded->module));

  // A value the declared kind cannot carry is refused: "x" would read back as no int at all,
  // 2i64 as an int32.
  for (auto [written, shown] : {std::pair{R"(groups="x")", R"("x")"}, {"groups=2i64", "2i64"}}) {
    read = graphpat::relay::parse_text(fmt::format(
        "#[version = \"0.0.5\"]\ndef @main(%x, %w) {{\n  nn.conv2d(%x, %w, dstrides=[2, 2], "
        "{})\n}}\n",
        written));
    REQUIRE(read.ok());
    json = graphpat::relay::save_json(*read);
    REQUIRE_FALSE(json.ok());
    CHECK(message(json.status()) ==
          fmt::format("[graphpat.relay_json.unsupported] node {}: attrs of "
                      "relay.attrs.Conv2DAttrs: field 'groups' holds {}, which its inline int "
                      "text would read back as another value",
                      read->graph.body(*read->find("main")), shown));
  }
}

TEST_CASE("a let whose value reads its own variable: Relay text refuses it, the JSONs keep it",
          "[writers][relay_text][graph_json]") {
  // fuzz_writer_roundtrip, session 15 (corpus regression_graph_recursive_let): a TVM JSON
  // `let %b = multiply(nn.relu(%b), %a); nn.relu(%b)` with the relu shared by value and body
  // printed as `%0 = nn.relu(%b); let %b = multiply(%0, %a); %0`, %b read before its let. TVM
  // binds a let's variable before its value (a recursive let); the text reader refuses one
  // (`relay_text.recursive_let`), so the printer does too, naming the variable.
  auto graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main",)"
      R"( "params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "var", "name": "a"}, {"id": 2, "kind": "var", "name": "b"},)"
      R"( {"id": 3, "kind": "call", "op": "add", "inputs": [0, 0]},)"
      R"( {"id": 4, "kind": "call", "op": "nn.relu", "inputs": [2]},)"
      R"( {"id": 5, "kind": "call", "op": "multiply", "inputs": [4, 1]},)"
      R"( {"id": 6, "kind": "let", "inputs": [2, 5, 4]},)"
      R"( {"id": 7, "kind": "let", "inputs": [1, 3, 6]}], "outputs": [7]}]})");
  INFO(message(graph.status()));
  REQUIRE(graph.ok());
  REQUIRE(graphpat::verify(graph->graph).ok());
  graphpat::NodeId inner = graph->graph.body(graph->graph.body(*graph->find("main")));
  graphpat::NodeId b = graph->graph.let_var(inner);
  CHECK(outcome(writers()[0], *graph) ==
        fmt::format("[graphpat.relay_text.unprintable] node {}: %b is read by the value of the "
                    "let that binds it (a recursive let), which the text reader refuses",
                    b));
  // Both JSON formats carry it and read it back equal.
  CHECK(outcome(writers()[2], *graph).empty());
  CHECK(outcome(writers()[3], *graph).empty());
  // The same let without the recursion prints, and reads back equal.
  graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main",)"
      R"( "params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "var", "name": "a"}, {"id": 2, "kind": "var", "name": "b"},)"
      R"( {"id": 3, "kind": "call", "op": "add", "inputs": [0, 0]},)"
      R"( {"id": 4, "kind": "call", "op": "nn.relu", "inputs": [1]},)"
      R"( {"id": 5, "kind": "call", "op": "multiply", "inputs": [4, 1]},)"
      R"( {"id": 6, "kind": "let", "inputs": [2, 5, 4]},)"
      R"( {"id": 7, "kind": "let", "inputs": [1, 3, 6]}], "outputs": [7]}]})");
  REQUIRE(graph.ok());
  auto text = graphpat::relay::print_text(*graph);
  INFO(message(text.status()));
  REQUIRE(text.ok());
  CHECK(*text ==
        "#[version = \"0.0.5\"]\ndef @main(%x) {\n  let %a = add(%x, %x);\n  %0 = nn.relu(%a);\n"
        "  let %b = multiply(%0, %a);\n  %0\n}\n");
  auto read = graphpat::relay::parse_text(*text);
  REQUIRE(read.ok());
  CHECK(graphpat::structural_equal(*graph, *read));
}

TEST_CASE("a variable bound twice: Relay text refuses it, the JSONs keep it",
          "[writers][relay_text][graph_json]") {
  // fuzz_writer_roundtrip, session 16 (corpus regression_graph_let_rebinds_parameter): a let
  // binding the function's own parameter printed as `let %x1 = ...`, which reads back as a new
  // variable. Each binding in the text makes a new variable; TVM's printer names the second
  // `%x-malformed-ir`, which no parser reads.
  auto graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main",)"
      R"( "params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "call", "op": "nn.relu", "inputs": [0]},)"
      R"( {"id": 2, "kind": "let", "inputs": [0, 1, 0]}], "outputs": [2]}]})");
  INFO(message(graph.status()));
  REQUIRE(graph.ok());
  REQUIRE(graphpat::verify(graph->graph).ok());
  graphpat::NodeId x = graph->graph.params(*graph->find("main"))[0];
  CHECK(outcome(writers()[0], *graph) ==
        fmt::format("[graphpat.relay_text.unprintable] node {}: %x is bound by a let but was "
                    "bound or declared before (a parameter, a let or a free var): the text "
                    "would read it back as two variables",
                    x));
  CHECK(outcome(writers()[3], *graph).empty());
  // One Var the parameter of two functions: TVM's golden var_declared_in_two_functions, whose
  // astext prints `def @f2(%x-malformed-ir)`.
  auto loaded = graphpat::relay::load_json(read_file(
      graphpat::testing::kCorpus / "golden" / "var_declared_in_two_functions" / "save_json.json"));
  REQUIRE(loaded.ok());
  x = loaded->module.graph.params(*loaded->module.find("f2"))[0];
  REQUIRE(x == loaded->module.graph.params(*loaded->module.find("f1"))[0]);
  CHECK(outcome(writers()[0], loaded->module) ==
        fmt::format("[graphpat.relay_text.unprintable] node {}: %x is bound by a parameter but "
                    "was bound or declared before (a parameter, a let or a free var): the text "
                    "would read it back as two variables",
                    x));
}

TEST_CASE("an op call without attributes: Relay text refuses it, graph JSON keeps it",
          "[writers][relay_text][graph_json]") {
  // A TVM JSON or graph JSON call of an op with an attrs struct may have none (graph JSON
  // writes `"attrs": null`). Relay text has no way to say so: its reader, as TVM's parser, gives such a call the struct at its
  // defaults (fuzz_writer_roundtrip, session 13).
  auto graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main",)"
      R"( "params": [0, 1], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "var", "name": "w"},)"
      R"( {"id": 2, "kind": "call", "op": "nn.conv2d", "inputs": [0, 1], "attrs": null}],)"
      R"( "outputs": [2]}]})");
  REQUIRE(graph.ok());
  graphpat::NodeId call = graph->graph.body(*graph->find("main"));
  REQUIRE_FALSE(graph->graph.attrs(call).valid());
  auto text = graphpat::relay::print_text(*graph);
  REQUIRE_FALSE(text.ok());
  CHECK(message(text.status()) ==
        fmt::format("[graphpat.relay_text.unprintable] node {}: the nn.conv2d call has no "
                    "attributes, which its text reader would read as relay.attrs.Conv2DAttrs "
                    "at its defaults",
                    call));
  auto written = graphpat::relay::print_graph_json(*graph);
  REQUIRE(written.ok());
  CHECK(written->find(R"("op": "nn.conv2d", "inputs": [0, 1], "attrs": null)") !=
        std::string::npos);
  auto again = graphpat::relay::parse_graph_json(*written);
  REQUIRE(again.ok());
  CHECK(graphpat::structural_equal(*graph, *again));
  // What the reader makes of the text the printer refused to write.
  auto read = graphpat::relay::parse_text(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x, %w) {\n"
      "  nn.conv2d(%x, %w)\n"
      "}\n");
  REQUIRE(read.ok());
  graphpat::AttrValueId attrs = read->graph.attrs(read->graph.body(*read->find("main")));
  REQUIRE(attrs.valid());
  CHECK(read->graph.context().attrs.text(attrs) == "relay.attrs.Conv2DAttrs");
  // An op without a struct (add) prints its call without attributes, as given.
  graph = graphpat::relay::parse_graph_json(
      R"({"format": "graphpat.graph", "version": 1, "functions": [{"name": "main",)"
      R"( "params": [0], "nodes": [{"id": 0, "kind": "var", "name": "x"},)"
      R"( {"id": 1, "kind": "call", "op": "add", "inputs": [0, 0]}], "outputs": [1]}]})");
  REQUIRE(graph.ok());
  text = graphpat::relay::print_text(*graph);
  REQUIRE(text.ok());
  CHECK(*text == "#[version = \"0.0.5\"]\ndef @main(%x) {\n  add(%x, %x)\n}\n");
}

TEST_CASE("a float written without a width suffix: graph JSON keeps it, TVM JSON refuses it",
          "[writers][graph_json][relay_json]") {
  // TVM prints a bfloat16 FloatImm without a suffix; the text reader keeps such a float with
  // width 0, so that it prints back as written.
  auto read = graphpat::relay::parse_text(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x) {\n"
      "  vendor.f(%x, a=1.5, b=[2.])\n"
      "}\n");
  REQUIRE(read.ok());
  auto written = graphpat::relay::print_graph_json(*read);
  REQUIRE(written.ok());
  CHECK(written->find(R"("attrs": {"a": {"float": 1.5, "bits": 0}, "b": [{"float": 2.0, "bits": 0}]})") !=
        std::string::npos);
  auto again = graphpat::relay::parse_graph_json(*written);
  REQUIRE(again.ok());
  CHECK(graphpat::structural_equal(*read, *again));
  auto json = graphpat::relay::save_json(*read);
  REQUIRE_FALSE(json.ok());
  CHECK(message(json.status()) ==
        fmt::format("[graphpat.relay_json.unsupported] node {}: the float 1.500000 was written "
                    "without a width suffix, and a FloatImm needs a dtype",
                    read->graph.body(*read->find("main"))));
}

TEST_CASE("a constant without bytes keeps its dtype and shape in Relay text",
          "[writers][relay_text][relay_json][graph_json]") {
  // What parse_text makes of a constant pasted without its metadata section, minus the node
  // type: a float32 (2, 3) tensor with no bytes.
  Module module;
  graphpat::relay::Builder b(module.graph);
  Context& context = module.graph.context();
  graphpat::Tensor tensor;
  tensor.dtype = context.strings.intern("float32");
  tensor.shape = {2, 3};
  NodeId x = b.var("x");
  NodeId constant = b.constant(context.tensors.add(tensor));
  module.add_function("main", b.function({x}, b.call("add", {x, constant})));
  auto printed = graphpat::relay::print_text(module, TextEnvelope::kStr);
  REQUIRE(printed.ok());
  CHECK(*printed ==
        "def @main(%x) {\n"
        "  add(%x, meta[relay.Constant][0] /* ty=Tensor[(2, 3), float32] */)\n"
        "}\n\n");
  auto back = graphpat::relay::parse_text(*printed);
  REQUIRE(back.ok());
  CHECK(graphpat::structural_equal(module, *back));
  const auto& graph = back->graph;
  NodeId read = graph.args(graph.body(*back->find("main")))[1];
  CHECK(graph.context().strings.view(graph.tensor(read).dtype) == "float32");
  CHECK(graph.tensor(read).shape == std::vector<std::int64_t>{2, 3});
  CHECK_FALSE(graph.tensor(read).has_data());

  // TVM JSON holds bytes only: refused at the tensor; graph JSON carries the type alone.
  auto json = graphpat::relay::save_json(module);
  REQUIRE_FALSE(json.ok());
  CHECK(message(json.status()) ==
        "[graphpat.relay_json.missing_tensor_data] b64ndarrays[0]: a constant read without its "
        "data (Relay text without its metadata section) cannot be written to JSON");
  CHECK(outcome(writers()[3], module).empty());

  // Without a dtype either (read with no annotation), it prints bare and reads back as it was.
  Module untyped;
  graphpat::relay::Builder c(untyped.graph);
  graphpat::Tensor unknown;
  unknown.dtype = untyped.graph.context().strings.intern("");
  NodeId nothing = c.constant(untyped.graph.context().tensors.add(unknown));
  untyped.add_function("main", c.function({}, nothing));
  printed = graphpat::relay::print_text(untyped, TextEnvelope::kStr);
  REQUIRE(printed.ok());
  CHECK(*printed == "def @main() {\n  meta[relay.Constant][0]\n}\n\n");
  CHECK(outcome(writers()[1], untyped).empty());
}

}  // namespace writer_tests
