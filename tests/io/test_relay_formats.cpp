// The two formats agree: a module read from Relay text, written as TVM JSON and read back is
// the module read from the text, types included (JSON holds everything text does); a module
// read from JSON, printed as Relay text and read back is the module read from the JSON modulo
// types (text has no place for call type arguments or the types of if and let nodes). Run over
// every corpus model and golden case, with the cases TVM's text format cannot carry listed
// below with the reason.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/io/graph_json.hpp>
#include <graphpat/io/relay_json.hpp>
#include <graphpat/io/relay_text.hpp>

#include "support/test_files.hpp"

using namespace graphpat;
using graphpat::testing::kCorpus;
using graphpat::testing::read_file;
namespace fs = std::filesystem;

namespace {


void check_same(const relay::Module& actual, const relay::Module& expected, bool compare_types) {
  auto difference = first_difference(actual, expected, {.compare_types = compare_types});
  if (difference) {
    FAIL_CHECK("@" << difference->function << ": " << difference->reason << " at "
                   << fmt::format("{} vs {}", difference->lhs, difference->rhs));
  }
}

/// Text files with their bytes (a JSON file can only hold constants whose bytes are known), and
/// the JSON files, of the corpus models and the golden cases.
std::vector<fs::path> texts_with_bytes() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(kCorpus / "models")) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".unbound.relay") || name.ends_with(".full.relay")) paths.push_back(entry.path());
  }
  for (const auto& entry : fs::directory_iterator(kCorpus / "golden")) {
    if (fs::exists(entry.path() / "astext.relay")) paths.push_back(entry.path() / "astext.relay");
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<fs::path> json_files() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(kCorpus / "models")) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  for (const auto& entry : fs::directory_iterator(kCorpus / "golden")) {
    if (fs::exists(entry.path() / "save_json.json")) paths.push_back(entry.path() / "save_json.json");
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// What Relay text cannot carry (docs/relay-formats.md §1.11 and graphpat's reader), by golden case.
const std::map<std::string, std::string> kTextCannotCarry = {
    {"attrs_batch_norm", "a double attribute printed with 6 significant digits"},
    {"attrs_clip", "a double attribute printed with 6 significant digits"},
    {"attrs_double_formats", "a double attribute printed with 6 significant digits"},
    {"attrs_int_dtypes_in_attrs", "int8/uint8 attribute values print without their dtype"},
    {"attrs_type_mismatch_meta", "attrs of another struct print as meta[relay.attrs.X][i], "
                                 "which graphpat's reader keeps as a reference"},
    {"fn_attrs_object_values", "GlobalVar/Map/Attrs values of function attributes print as "
                               "meta references or a repr TVM cannot read"},
    {"meta_multiple_type_keys", "symbolic dims print as meta[tir.SizeVar][i] references"},
    {"types_symbolic_dims", "symbolic dims print as meta[tir.SizeVar][i] references"},
    {"types_incomplete_and_typevars", "IncompleteType prints as meta[IncompleteType][i]"},
    {"scalars_special_floats", "a NaN constant prints as nanf, without its payload bits"},
    {"strings_escaping", "a variable name with a quote prints as written (TVM cannot read it)"},
    {"var_declared_in_two_functions", "one Var the parameter of two functions: print_text "
                                      "refuses it (TVM prints `%x-malformed-ir`)"},
    {"virtual_devices", "VirtualDevice attribute values print as their repr"},
};

/// The golden case a path belongs to, or "" for a model.
std::string golden_case(const fs::path& path) {
  return path.parent_path().parent_path().filename() == "golden"
             ? path.parent_path().filename().string()
             : std::string();
}

}  // namespace

TEST_CASE("text -> JSON -> text gives the module read from the text", "[relay_text][relay_json]") {
  int checked = 0;
  for (const fs::path& path : texts_with_bytes()) {
    absl::StatusOr<relay::Module> from_text = relay::parse_text(read_file(path));
    if (!from_text.ok()) continue;  // ADTs, refs, ...: refused, as test_relay_text checks
    if (kTextCannotCarry.contains(golden_case(path))) continue;
    DYNAMIC_SECTION(path.lexically_relative(kCorpus).string()) {
      absl::StatusOr<std::string> json = relay::save_json(*from_text);
      INFO(json.status().ToString());
      REQUIRE(json.ok());
      absl::StatusOr<relay::LoadedJson> back = relay::load_json(*json);
      REQUIRE(back.ok());
      check_same(back->module, *from_text, true);
    }
    ++checked;
  }
  CHECK(checked > 80);
}

TEST_CASE("JSON -> text -> JSON gives the module read from the JSON", "[relay_text][relay_json]") {
  int checked = 0;
  for (const fs::path& path : json_files()) {
    absl::StatusOr<relay::LoadedJson> from_json = relay::load_json(read_file(path));
    if (!from_json.ok() || from_json->expression.has_value()) continue;  // ADTs; bare expressions
    if (kTextCannotCarry.contains(golden_case(path))) continue;
    DYNAMIC_SECTION(path.lexically_relative(kCorpus).string()) {
      std::string text = relay::print_text(from_json->module, relay::TextEnvelope::kAstext).value();
      absl::StatusOr<relay::Module> back = relay::parse_text(text);
      INFO(back.status().ToString());
      REQUIRE(back.ok());
      check_same(*back, from_json->module, false);
    }
    ++checked;
  }
  CHECK(checked > 60);
}

namespace {

// A TVM JSON variable %x of type Tensor[(DIM), DTYPE], DIM an IntImm of DIM_DTYPE.
std::string tvm_json_var(std::string_view dtype, std::string_view dim,
                         std::string_view dim_dtype = "int32") {
  return fmt::format(
      R"({{"root": 1, "nodes": [{{"type_key": ""}},
  {{"type_key": "relay.Var", "attrs": {{"_checked_type_": "0", "span": "0", "type_annotation": "4", "vid": "2", "virtual_device_": "0"}}}},
  {{"type_key": "relay.Id", "attrs": {{"name_hint": "3"}}}},
  {{"type_key": "runtime.String", "repr_str": "x"}},
  {{"type_key": "relay.TensorType", "attrs": {{"dtype": "{}", "shape": "5", "span": "0"}}}},
  {{"type_key": "Array", "data": [6]}},
  {{"type_key": "IntImm", "attrs": {{"dtype": "{}", "span": "0", "value": "{}"}}}}],
 "b64ndarrays": [], "attrs": {{"tvm_version": "0.14.0"}}}})",
      dtype, dim_dtype, dim);
}

// A graph JSON function of `nodes` returning node `output`.
std::string graph_json_function(std::string_view nodes, int output, std::string_view params) {
  return fmt::format(R"({{"format": "graphpat.graph", "version": 1, "functions": [{{"name": "main",
 "params": [{}], "nodes": [{}], "outputs": [{}]}}]}})",
                     params, nodes, output);
}
std::string graph_json_var(std::string_view type) {
  return graph_json_function(
      fmt::format(R"({{"id": 0, "kind": "var", "name": "x", "annotation": "{}"}})", type), 0, "0");
}
std::string graph_json_attr(std::string_view value) {
  return graph_json_function(
      fmt::format(R"({{"id": 0, "kind": "var", "name": "x"}},
 {{"id": 1, "kind": "call", "op": "foo", "inputs": [0], "attrs": {{"a": {}}}}})",
                  value),
      1, "0");
}

}  // namespace

// Issue 21, class 8: the three readers share one validation of types and values
// (ir/validation.hpp), so each refuses the same bad dtype, dimension or value, with the same
// problem at its own place (line:column, JSON path). Messages checked by hand.
TEST_CASE("the readers agree on every bad dtype, dimension and value", "[relay_formats][errors]") {
  auto text = [](std::string_view source) {
    return graphpat::testing::message(relay::parse_text(source).status());
  };
  auto tvm_json = [](const std::string& source) {
    return graphpat::testing::message(relay::load_json(source).status());
  };
  auto graph_json = [](const std::string& source) {
    return graphpat::testing::message(relay::parse_graph_json(source).status());
  };
  SECTION("the well-formed neighbour reads in all three") {
    CHECK(relay::parse_text("def @main(%x: Tensor[(1), float32]) { %x }").ok());
    CHECK(relay::load_json(tvm_json_var("float32", "1")).ok());
    CHECK(relay::parse_graph_json(graph_json_var("Tensor[(1), float32]")).ok());
  }
  SECTION("a negative dimension") {
    CHECK(text("def @main(%x: Tensor[(-1), float32]) { %x }") ==
          "[graphpat.relay_text.bad_type] 1:23: dimension -1 is negative");
    CHECK(tvm_json(tvm_json_var("float32", "-1")) ==
          "[graphpat.relay_json.bad_value] nodes[6].attrs.value: dimension -1 is negative");
    CHECK(graph_json(graph_json_var("Tensor[(-1), float32]")) ==
          "[graphpat.graph_json.bad_type] /functions/0/nodes/0/annotation: cannot read the type "
          "'Tensor[(-1), float32]': 1:9: dimension -1 is negative");
  }
  const std::pair<const char*, const char*> kBadDtypes[] = {
      {"int1024", "'int1024' is not a dtype: an integer has 1 to 64 bits"},
      {"float32x0", "'float32x0' is not a dtype"},
      {"uint0", "'uint0' is not a dtype"},
      {"bool8", "'bool8' is not a dtype"},
      {"float8", "'float8' is not a dtype: a float has 16, 32 or 64 bits"},
  };
  for (const auto& [dtype, problem] : kBadDtypes) {
    DYNAMIC_SECTION("the dtype " << dtype) {
      CHECK(text(fmt::format("def @main(%x: Tensor[(1), {}]) {{ %x }}", dtype)) ==
            fmt::format("[graphpat.relay_text.bad_type] 1:27: {}", problem));
      CHECK(tvm_json(tvm_json_var(dtype, "1")) ==
            fmt::format("[graphpat.relay_json.bad_value] nodes[4].attrs.dtype: {}", problem));
      CHECK(graph_json(graph_json_var(fmt::format("Tensor[(1), {}]", dtype))) ==
            fmt::format("[graphpat.graph_json.bad_type] /functions/0/nodes/0/annotation: cannot "
                        "read the type 'Tensor[(1), {}]': 1:13: {}",
                        dtype, problem));
    }
  }
  SECTION("an integer out of the range of its width") {
    CHECK(text("def @main(%x) { add(%x, 300i8) }") ==
          "[graphpat.relay_text.bad_literal] 1:25: 300 is out of range of int8");
    CHECK(tvm_json(tvm_json_var("float32", "300", "int8")) ==
          "[graphpat.relay_json.bad_value] nodes[6].attrs.value: 300 is out of range of int8");
    CHECK(graph_json(graph_json_attr(R"({"int": 300, "bits": 8})")) ==
          "[graphpat.graph_json.bad_attribute] /functions/0/nodes/1/attrs/a/int: 300 is out of "
          "range of int8");
    CHECK(graph_json(graph_json_attr(R"({"uint": 256, "bits": 8})")) ==
          "[graphpat.graph_json.bad_attribute] /functions/0/nodes/1/attrs/a/uint: 256 is out of "
          "range of uint8");
  }
  SECTION("a float that overflows its width") {
    CHECK(text("def @main(%x) { add(%x, 1e39f) }") ==
          "[graphpat.relay_text.bad_literal] 1:25: 1e39 is out of range of float32");
    CHECK(graph_json(graph_json_attr(R"({"float": 1e39, "bits": 32})")) ==
          "[graphpat.graph_json.bad_attribute] /functions/0/nodes/1/attrs/a/float: 1e+39 is out "
          "of range of float32");
  }
  SECTION("a constant of a bad dtype") {
    CHECK(graph_json(graph_json_function(
              R"({"id": 0, "kind": "const", "dtype": "int1024", "shape": [1]})", 0, "")) ==
          "[graphpat.graph_json.bad_constant] /functions/0/nodes/0/dtype: 'int1024' is not a "
          "dtype: an integer has 1 to 64 bits");
  }
}
