// Shared by the libFuzzer targets: invariant checks that report what broke and abort, so
// libFuzzer records the input as a crash (the report is built only when the check fails), and
// GraphDecoder, which turns a fuzzer's bytes into a random Relay function; and
// GRAPHPAT_FUZZ_TARGET, which names a target's entry (fuzz_main.cpp runs the one a program is
// called by).
//
//   GRAPHPAT_FUZZ_TARGET(fuzz_relay_json) { ... data, size ...; return 0; }
//   graphpat::fuzz::require_ok(again.status(), "the printed text does not parse", printed);
//   graphpat::fuzz::require_same(difference, "the printed text parses differently", printed);
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>
#include <fmt/format.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <graphpat/analysis/structural_equal.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/ir/errors.hpp>

namespace graphpat::fuzz {

/// A target's entry: libFuzzer's LLVMFuzzerTestOneInput for one target.
using Target = int (*)(const std::uint8_t* data, std::size_t size);

/// The targets of this program, by name.
inline std::vector<std::pair<std::string_view, Target>>& targets() {
  static std::vector<std::pair<std::string_view, Target>> registered;
  return registered;
}

inline bool register_target(std::string_view name, Target target) {
  targets().emplace_back(name, target);
  return true;
}

/// Defines the entry of target `name`, a function of `data` and `size`. Several targets share
/// a program (compiled once: the library's templates are most of a target's compile time); the
/// program runs the target whose name it is called by (fuzz_main.cpp, tests/fuzz/CMakeLists.txt).
#define GRAPHPAT_FUZZ_TARGET(name)                                                        \
  static int name(const std::uint8_t* data, std::size_t size);                            \
  [[maybe_unused]] static const bool name##_registered =                                  \
      graphpat::fuzz::register_target(#name, name);                                       \
  static int name(const std::uint8_t* data, std::size_t size)

/// Aborts with `what` (and `detail`, e.g. the offending text or status).
[[noreturn]] inline void fail(std::string_view what, std::string_view detail = {}) {
  fmt::print(stderr, "fuzz invariant broken: {}\n{}\n", what, detail);
  std::fflush(stderr);
  std::abort();
}

/// Aborts with `what` (and `detail`) unless `condition`.
inline void require(bool condition, std::string_view what, std::string_view detail = {}) {
  if (!condition) fail(what, detail);
}

/// The text of a status (Debian's absl::string_view is its own type).
inline std::string_view message(const absl::Status& status) {
  return {status.message().data(), status.message().size()};
}

/// Aborts with `what` and the status's message unless `status` is ok.
inline void require_ok(const absl::Status& status, std::string_view what) {
  if (!status.ok()) fail(what, message(status));
}

/// The same, `context` (e.g. the text that did not read back) on the line after the message.
inline void require_ok(const absl::Status& status, std::string_view what,
                       std::string_view context) {
  if (!status.ok()) fail(what, fmt::format("{}\n{}", message(status), context));
}

/// Aborts unless the error `status` has a stable id (`[graphpat.<id>] ...`).
inline void require_error_id(const absl::Status& status) {
  require(!error_id(status).empty(), "an error without an id", message(status));
}

/// Aborts with `what`, the difference and `context` on the next line, if there is a difference.
inline void require_same(const std::optional<Difference>& difference, std::string_view what,
                         std::string_view context) {
  if (difference) fail(what, fmt::format("{}\n{}", difference->reason, context));
}

/// Builds a function `@main` from the bytes: chains, fan-outs, tuples, tuple-get-items, batch
/// norms, stateful dropouts, deliberately duplicated pure nodes (at most 64 steps).
class GraphDecoder {
 public:
  GraphDecoder(FuzzedDataProvider& bytes, relay::Module& module)
      : bytes_(bytes), module_(module), builder_(module.graph) {}

  void build() {
    std::vector<NodeId> params;
    int param_count = bytes_.ConsumeIntegralInRange(1, 4);
    for (int i = 0; i < param_count; ++i) params.push_back(builder_.var(fmt::format("x{}", i)));
    values_ = params;
    int steps = bytes_.ConsumeIntegralInRange(1, 64);
    for (int step = 0; step < steps && bytes_.remaining_bytes() > 0; ++step) add_node();
    NodeId body = values_.back();
    if (bytes_.ConsumeBool() && values_.size() > 1) {
      std::vector<NodeId> fields{values_.back(), pick()};
      body = builder_.tuple(fields);
    }
    module_.add_function("main", builder_.function(params, body));
  }

 private:
  // Mostly a recent value (chains), sometimes any (fan-outs, long edges).
  NodeId pick() {
    std::size_t size = values_.size();
    std::size_t back = bytes_.ConsumeBool() ? bytes_.ConsumeIntegralInRange<std::size_t>(0, size - 1)
                                            : bytes_.ConsumeIntegralInRange<std::size_t>(
                                                  0, std::min<std::size_t>(size - 1, 3));
    return values_[size - 1 - back];
  }

  // A call with its attributes as the text reader builds them (every field at its default),
  // made once per op.
  NodeId call(std::string_view op_name, std::span<const NodeId> args) {
    auto [slot, inserted] = default_attrs_.try_emplace(op_name);
    if (inserted) {
      auto attrs = relay::call_attrs(module_.graph.context(), op_name);
      require_ok(attrs.status(), "default attributes refused");
      slot->second = *attrs;
    }
    return builder_.call(op_name, args, {.attrs = slot->second});
  }

  void add_node() {
    static constexpr std::string_view kUnary[] = {"nn.relu", "exp", "negative"};
    static constexpr std::string_view kBinary[] = {"add", "multiply", "subtract", "nn.conv2d",
                                                   "nn.bias_add"};
    switch (bytes_.ConsumeIntegralInRange(0, 7)) {
      case 0: {
        NodeId arg = pick();
        values_.push_back(call(kUnary[bytes_.ConsumeIntegralInRange(0, 2)], {&arg, 1}));
        break;
      }
      case 1: {
        NodeId args[] = {pick(), pick()};
        values_.push_back(call(kBinary[bytes_.ConsumeIntegralInRange(0, 4)], args));
        break;
      }
      case 2: {  // a tuple, and a projection of it
        std::vector<NodeId> fields(bytes_.ConsumeIntegralInRange(1, 3));
        for (NodeId& field : fields) field = pick();
        NodeId tuple = builder_.tuple(fields);
        values_.push_back(tuple);
        values_.push_back(builder_.tuple_get_item(
            tuple, bytes_.ConsumeIntegralInRange<std::uint32_t>(0, fields.size() - 1)));
        break;
      }
      case 3: {  // a batch norm and its first output, sometimes projected twice (fresh)
        NodeId args[] = {pick(), pick(), pick(), pick(), pick()};
        NodeId norm = call("nn.batch_norm", args);
        values_.push_back(builder_.tuple_get_item(norm, bytes_.ConsumeIntegralInRange(0, 2)));
        if (bytes_.ConsumeBool()) {
          values_.push_back(builder_.tuple_get_item(norm, 0, {.fresh = true}));
        }
        break;
      }
      case 4: {  // a deliberate duplicate of an existing pure node, as importers make them
        NodeId original = pick();
        if (module_.graph.kind(original) == NodeKind::kVar) break;
        auto operands = module_.graph.operands(original);
        std::vector<NodeId> copy(operands.begin(), operands.end());
        values_.push_back(
            builder_.copy(module_.graph, original, copy, Sharing::kFresh));
        break;
      }
      case 5: {  // a fan-out: one value read by several calls
        NodeId shared = pick();
        int users = bytes_.ConsumeIntegralInRange(2, 4);
        for (int i = 0; i < users; ++i) {
          values_.push_back(call(kUnary[bytes_.ConsumeIntegralInRange(0, 2)], {&shared, 1}));
        }
        break;
      }
      case 6: {  // a stateful call: never merged
        NodeId arg = pick();
        values_.push_back(builder_.tuple_get_item(call("nn.dropout", {&arg, 1}), 0));
        break;
      }
      default: {  // a hash-consed request for a node that may already exist
        NodeId arg = pick();
        values_.push_back(call("nn.relu", {&arg, 1}));
        break;
      }
    }
  }

  FuzzedDataProvider& bytes_;
  relay::Module& module_;
  relay::Builder builder_;
  std::vector<NodeId> values_;
  absl::flat_hash_map<std::string_view, AttrValueId> default_attrs_;
};

}  // namespace graphpat::fuzz
