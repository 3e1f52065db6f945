// Strongly typed 32-bit ids for everything a graph refers to: nodes, interned strings, types,
// attribute values, ops, tensors and source spans.
//
// An id is a plain index into the table that owns the thing; two ids of different kinds cannot
// be mixed up by accident. A default-constructed id is "none" (`valid()` is false).
//
//   graphpat::NodeId relu = builder.call("nn.relu", {x});
//   if (relu.valid()) fmt::print("{}\n", relu);   // prints "%2"
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <utility>

namespace graphpat {

/// A 32-bit index tagged with the kind of table it indexes.
template <class Tag>
struct Id {
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t value = kNone;

  constexpr Id() = default;
  constexpr explicit Id(std::uint32_t index) : value(index) {}

  [[nodiscard]] constexpr bool valid() const { return value != kNone; }
  [[nodiscard]] constexpr std::uint32_t index() const { return value; }

  friend constexpr auto operator<=>(Id, Id) = default;
  template <class H>
  friend H AbslHashValue(H state, Id id) {
    return H::combine(std::move(state), id.value);
  }
};

/// A node of a graph (see graph.hpp).
using NodeId = Id<struct NodeTag>;
/// An interned string (see strings.hpp).
using StringId = Id<struct StringTag>;
/// An interned type (see types.hpp).
using TypeId = Id<struct TypeTag>;
/// An interned attribute value; an attribute dictionary is an object value (see attrs.hpp).
using AttrValueId = Id<struct AttrValueTag>;
/// An operator in the op registry (see op_registry.hpp).
using OpId = Id<struct OpTag>;
/// A constant's tensor (see tensor.hpp).
using TensorId = Id<struct TensorTag>;
/// An interned source span (see spans.hpp).
using SpanId = Id<struct SpanTag>;

}  // namespace graphpat
