// libFuzzer target for the ONNX reader and writer (issue 23): the bytes are a serialized
// onnx.ModelProto. Invariants, each broken one an abort:
// - onnx::load never crashes or throws: it gives a module, or a status whose id is
//   `graphpat.onnx.*` and whose message names a place (`<place>: <problem>`, place non-empty);
// - what loads verifies, and draws (onnx::to_dot gives DOT text, every label from the node's
//   attributes), and save either refuses with such a located `onnx.*` error or writes
//   bytes S;
// - what loads prints as graph JSON or is refused with a located `graph_json.unsupported`;
//   what prints reads back structurally equal (types compared) and prints the same text again;
// - S loads again, into a module structurally equal to the first (types compared), and saving
//   that gives S again, byte for byte (idempotence);
// - when the input is what protobuf itself writes for the message it parses to
//   (`ParseFromArray` + `SerializeAsString` gives the input back), S is the input.
//
// Why idempotence on S and not S == input for every input: protobuf accepts encodings it never
// writes. A repeated scalar may come packed or unpacked (it writes ONNX's proto2 fields
// unpacked), fields in any order or repeated (the last of a non-repeated scalar wins, two
// occurrences of a message merge), a varint padded with redundant bytes, and fields of an
// unknown number or of a known number with a wire type that is not its own (both kept as unknown
// fields, written after the known ones). What it writes is one canonical form of the parsed
// message, so the input comes back only when it is already in that form (the fourth invariant);
// S is in that form (it is what SerializeAsString wrote, or the writer's own serialization of a
// ModelProto built from parts, whose unknown fields keep their bytes), so S reads back to the
// same message and must write the same bytes.
#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/onnx.hpp>
#include <graphpat/io/onnx/graph_json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.hpp"

namespace {

using graphpat::fuzz::message;
using graphpat::fuzz::require;
using graphpat::fuzz::require_ok;
using graphpat::fuzz::require_same;

// Small enough that one execution stays fast (inputs are at most a few tens of KB), large
// enough for every seed model.
constexpr graphpat::onnx::OnnxLoadOptions kOptions{
    .limits = {.max_nodes = 2000, .max_tensor_bytes = 1 << 20}};

/// Aborts unless `status` is an `onnx.*` error that names a place before its problem.
void require_located_onnx_error(const absl::Status& status, std::string_view what) {
  require(graphpat::error_id(status).starts_with("graphpat.onnx."), what, message(status));
  std::string_view problem = graphpat::error_problem(status);
  std::size_t colon = problem.find(": ");
  require(colon != std::string_view::npos && colon > 0, "an onnx error without a place",
          message(status));
}

/// Whether protobuf writes `bytes` back as they are: then an unchanged model must too.
bool canonical(std::string_view bytes) {
  ::onnx::ModelProto model;
  return model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) &&
         model.SerializeAsString() == bytes;
}

/// Graph JSON of `module`: it reads back equal and prints the same, or is refused, located.
void check_graph_json(const graphpat::onnx::Module& module) {
  absl::StatusOr<std::string> json = graphpat::onnx::print_graph_json(module);
  if (!json.ok()) {
    require(graphpat::error_id(json.status()) == "graphpat.graph_json.unsupported",
            "print_graph_json failed without graph_json.unsupported", message(json.status()));
    require(graphpat::error_problem(json.status()).starts_with("/"),
            "a graph JSON refusal without its JSON path", message(json.status()));
    return;
  }
  absl::StatusOr<graphpat::onnx::Module> read = graphpat::onnx::parse_graph_json(*json);
  require_ok(read.status(), "what print_graph_json wrote does not parse", *json);
  require_same(graphpat::first_difference(module, *read, {.compare_types = true}),
               "what print_graph_json wrote parses to a different module", *json);
  absl::StatusOr<std::string> again = graphpat::onnx::print_graph_json(*read);
  require_ok(again.status(), "what print_graph_json wrote parses but does not print", *json);
  require(*again == *json, "printing what print_graph_json wrote gives other text", *json);
}

}  // namespace

GRAPHPAT_FUZZ_TARGET(fuzz_onnx) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<graphpat::onnx::LoadedOnnx> loaded = graphpat::onnx::load(bytes, kOptions);
  if (!loaded.ok()) {
    require_located_onnx_error(loaded.status(), "load failed without a located onnx error");
    return 0;
  }
  absl::Status verified = graphpat::verify(loaded->module);
  require(verified.ok(), "a loaded model does not verify", message(verified));
  absl::StatusOr<std::string> dot = graphpat::onnx::to_dot(loaded->module);
  require(dot.ok() && dot->starts_with("digraph \"main\" {\n") && dot->ends_with("}\n"),
          "a loaded model does not draw", dot.ok() ? "" : message(dot.status()));
  check_graph_json(loaded->module);
  absl::StatusOr<std::string> saved = graphpat::onnx::save(*loaded);
  if (!saved.ok()) {
    require_located_onnx_error(saved.status(), "save failed without a located onnx error");
    return 0;
  }
  if (canonical(bytes)) require(*saved == bytes, "an unchanged canonical model saves differently");
  absl::StatusOr<graphpat::onnx::LoadedOnnx> again = graphpat::onnx::load(*saved, kOptions);
  require_ok(again.status(), "what save wrote does not load");
  require_same(graphpat::first_difference(loaded->module, again->module, {.compare_types = true}),
               "what save wrote loads to a different module", "");
  absl::StatusOr<std::string> resaved = graphpat::onnx::save(*again);
  require_ok(resaved.status(), "what save wrote loads but does not save again");
  require(*resaved == *saved, "saving what save wrote gives other bytes");
  return 0;
}
