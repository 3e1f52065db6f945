// Property test (issue 21): random patterns over every corpus model, with the generator and the
// invariants the fuzz_pattern_graph target uses (support/random_patterns.hpp,
// support/pattern_invariants.hpp), from a fixed seed, so that ctest runs them on every build and
// not only under the fuzzer. A drawn pattern must parse (a redirect cycle that consumes no node
// may be refused, with an error id), describe itself, and keep every pass's invariants: verify()
// after partition, merge_composite and rewrite, find_matches agreeing with match(), partition
// then inline giving back the (CSE'd) input, and text round trips.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include <graphpat/analysis/verify.hpp>
#include <graphpat/io/relay_text.hpp>
#include <graphpat/pattern.hpp>

#include "support/pattern_invariants.hpp"
#include "support/random_patterns.hpp"
#include "support/test_files.hpp"

namespace pattern_properties {

using namespace graphpat;
using namespace graphpat::testing;

// Patterns drawn per model; every one is matched and partitioned in both modes, every
// kEveryPassEvery-th also runs merge_composite and rewrite in both modes.
constexpr int kPatternsPerModel = 350;
constexpr int kEveryPassEvery = 4;

}  // namespace pattern_properties

TEST_CASE("random patterns keep every pass's invariants on every corpus model",
          "[pattern][properties]") {
  using namespace pattern_properties;
  std::uint32_t seed = 21;
  for (std::string_view name : {"mlp", "lstm", "mobilenet_v1", "mobilenet_v2_mxnet_style",
                                "resnet18", "squeezenet1_0"}) {
    DYNAMIC_SECTION(name) {
      absl::StatusOr<relay::Module> module =
          relay::parse_text(read_file(kCorpus / "models" / (std::string(name) + ".unbound.relay")));
      REQUIRE(module.ok());
      REQUIRE(verify(*module).ok());
      PatternVocabulary words = PatternVocabulary::of(*module);
      std::mt19937 engine(seed);
      auto choose = [&](std::size_t n) { return static_cast<std::size_t>(engine() % n); };
      int refused = 0;
      for (int i = 0; i < kPatternsPerModel; ++i) {
        RandomPattern drawn = random_pattern(words, choose);
        INFO("pattern " << i << ":\n" << drawn.text);
        absl::StatusOr<Pattern> pattern = parse_pattern(drawn.text);
        if (!pattern.ok()) {
          INFO(message(pattern.status()));
          REQUIRE(drawn.consumes_no_node);
          REQUIRE_FALSE(error_id(pattern.status()).empty());
          ++refused;
          continue;
        }
        Checked broken = check_description(*pattern);
        if (!broken) broken = check_pattern_passes(*pattern, *module,
                                                      i % kEveryPassEvery == 0 ? kEveryPass : kPartitionPass);
        if (broken) FAIL(broken->what << "\n" << broken->detail.substr(0, 2000));
      }
      INFO(refused << " drawn patterns refused");
      SUCCEED();
    }
    ++seed;
  }
}
