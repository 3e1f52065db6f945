// Source spans (`span=Conv_0:0:0`, `span=from_string:12:7`), interned so a node carries one
// 32-bit SpanId. Spans are kept verbatim from the input, never recomputed, so printing a model
// reproduces them.
//
//   graphpat::SpanId span = context.spans.intern({.source = strings.intern("Conv_0")});
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <vector>

#include "graphpat/detail/linkage.hpp"
#include "graphpat/ir/ids.hpp"

namespace graphpat {

/// A source position: the source name, then line and column of start and end.
struct Span {
  StringId source;
  std::int32_t line = 0;
  std::int32_t column = 0;
  std::int32_t end_line = 0;
  std::int32_t end_column = 0;

  friend bool operator==(const Span&, const Span&) = default;
  template <class H>
  friend H AbslHashValue(H state, const Span& span) {
    return H::combine(std::move(state), span.source, span.line, span.column, span.end_line,
                      span.end_column);
  }
};

/// Interns spans; equal spans get one SpanId.
class SpanTable {
 public:
  GRAPHPAT_INSTANTIATED_ON_CALL SpanId intern(const Span& span) {
    auto [slot, inserted] =
        index_.try_emplace(span, SpanId(static_cast<std::uint32_t>(spans_.size())));
    if (inserted) spans_.push_back(span);
    return slot->second;
  }
  [[nodiscard]] const Span& get(SpanId id) const { return spans_[id.index()]; }
  [[nodiscard]] std::size_t size() const { return spans_.size(); }
  [[nodiscard]] bool contains(SpanId id) const { return id.valid() && id.index() < size(); }

 private:
  std::vector<Span> spans_;
  absl::flat_hash_map<Span, SpanId> index_;
};

}  // namespace graphpat
