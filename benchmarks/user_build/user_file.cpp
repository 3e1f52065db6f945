// The user's file of issue 24's build goal: reads a Relay text model, parses a pattern and
// partitions by it, as a compiler's pass would. user_build.py times its compile.
#include <fmt/format.h>

#include <graphpat/io/relay_text.hpp>
#include <graphpat/partition.hpp>
#include <graphpat/pattern.hpp>

int outline_conv_bias(std::string_view text) {
  auto module = graphpat::relay::parse_text(text);
  auto pattern = graphpat::parse_pattern("is_op('nn.bias_add')(is_op('nn.conv2d')(wildcard(), wildcard()), wildcard())");
  if (!module.ok() || !pattern.ok()) return -1;
  auto result = graphpat::partition(*pattern, *module, {.attrs = {{"Composite", "conv_bias"}}});
  fmt::print("{} groups\n", result.report.accepted);
  return static_cast<int>(result.report.accepted);
}
