// Structure-aware libFuzzer target over patterns x graphs. The bytes choose a graph (a corpus
// model, read once at start, or a random function from fuzz_support.hpp's GraphDecoder) and a
// random pattern over that graph's ops, vars and types (support/random_patterns.hpp: the whole
// pattern language, recursive patterns included), then run every pass with it and check the
// invariants of support/pattern_invariants.hpp: verify() after every pass, find_matches agrees
// with match(), partition / merge_composite then inline give back the (CSE'd) input, and text
// round trips. A drawn pattern must parse, except a redirect cycle that consumes no node, which
// parse_pattern may refuse (with an error id). Every broken invariant aborts with
// "fuzz invariant broken: ..." and the pattern text.
//
// The first bytes (up to 96) are the pattern's choices, the rest choose the pass and the graph,
// so that the two mutate independently.
#include <fuzzer/FuzzedDataProvider.h>

#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/pattern.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "support/pattern_invariants.hpp"
#include "support/random_patterns.hpp"

namespace {

namespace relay = graphpat::relay;
using graphpat::fuzz::fail;
using graphpat::fuzz::message;
using graphpat::fuzz::require;
using graphpat::testing::PatternVocabulary;

struct Model {
  std::string name;
  relay::Module module;
  PatternVocabulary words;
};

// Small corpus models: an MLP (dense, bias_add, softmax), an LSTM (tuples, projections,
// split, sigmoid, tanh) and a ResNet (conv2d, batch_norm, residual adds).
const std::vector<Model>& models() {
  static const std::vector<Model> loaded = [] {
    std::vector<Model> result;
    for (std::string_view name : {"mlp", "lstm", "resnet18"}) {
      std::filesystem::path path = std::filesystem::path(GRAPHPAT_TEST_DATA_DIR) / "corpus" /
                                   "models" / (std::string(name) + ".unbound.relay");
      std::ifstream in(path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      absl::StatusOr<relay::Module> module = relay::parse_text(text.str());
      require(module.ok(), "a corpus model does not parse", path.string());
      PatternVocabulary words = PatternVocabulary::of(*module);
      result.push_back({std::string(name), std::move(*module), std::move(words)});
    }
    return result;
  }();
  return loaded;
}

}  // namespace

GRAPHPAT_FUZZ_TARGET(fuzz_pattern_graph) {
  FuzzedDataProvider bytes(data, size);
  std::vector<std::uint8_t> pattern_bytes = bytes.ConsumeBytes<std::uint8_t>(96);
  FuzzedDataProvider pattern_choices(pattern_bytes.data(), pattern_bytes.size());

  // Which of partition, merge_composite and rewrite runs (each costs about as much as
  // matching), so that an execution stays cheap and the fuzzer still reaches every pass.
  unsigned passes = 1u << bytes.ConsumeIntegralInRange(0, 2);
  // Random graphs three times in four (cheap, and the decoder's shapes), else a model.
  std::size_t source = bytes.ConsumeIntegralInRange<std::size_t>(0, 4 * models().size() - 1);
  relay::Module built;
  PatternVocabulary built_words;
  const relay::Module* module = &built;
  const PatternVocabulary* words = &built_words;
  std::string graph_name = "a random graph";
  if (source < models().size()) {
    module = &models()[source].module;
    words = &models()[source].words;
    graph_name = models()[source].name;
  } else {
    graphpat::fuzz::GraphDecoder(bytes, built).build();
    absl::Status status = graphpat::verify(built);
    require(status.ok(), "the built module does not verify", message(status));
    built_words = PatternVocabulary::of(built);
  }

  auto choose = [&](std::size_t n) { return pattern_choices.ConsumeIntegralInRange<std::size_t>(0, n - 1); };
  graphpat::testing::RandomPattern drawn = graphpat::testing::random_pattern(*words, choose);
  absl::StatusOr<graphpat::Pattern> pattern = graphpat::parse_pattern(drawn.text);
  if (!pattern.ok()) {
    graphpat::fuzz::require_error_id(pattern.status());
    require(drawn.consumes_no_node, "a drawn pattern does not parse",
            fmt::format("{}\n{}", message(pattern.status()), drawn.text));
    return 0;
  }
  auto report = [&](const graphpat::testing::BrokenInvariant& broken) {
    std::string graph_text = source < models().size() ? graph_name : graphpat::testing::detail::text_for_report(built);
    fail(broken.what, fmt::format("pattern:\n{}\ngraph: {}\n{}", drawn.text, graph_text, broken.detail));
  };
  if (auto broken = graphpat::testing::check_description(*pattern)) report(*broken);
  if (auto broken = graphpat::testing::check_pattern_passes(*pattern, *module, passes)) {
    report(*broken);
  }
  return 0;
}
