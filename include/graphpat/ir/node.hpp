// The node record of a graph: a kind, a range of the graph's flat operand array, three payload
// slots whose meaning depends on the kind, a type and a span. 32 bytes, no heap object, no
// pointers; nodes are addressed by NodeId and never change once created.
//
// Operands and payload by kind (Graph has a named accessor for each):
//   Var           no operands;                       name, type annotation
//   Constant      no operands;                       tensor
//   Op            no operands;                       op
//   Call          callee, args...;                   attrs (an object value), type args (a tuple
//   type) Tuple         fields... TupleGetItem  tuple;                             index Function
//   params... (Vars), body;            attrs, result type, type params (a tuple type) Let var,
//   value, body If            condition, then, else GlobalVar     no operands; name
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "graphpat/ir/ids.hpp"

namespace graphpat {

enum class NodeKind : std::uint8_t {
  kVar,
  kConstant,
  kOp,
  kCall,
  kTuple,
  kTupleGetItem,
  kFunction,
  kLet,
  kIf,
  kGlobalVar,
};
inline constexpr int kNodeKindCount = 10;

/// The name of a node kind as Relay spells it ("Call", "TupleGetItem").
constexpr std::string_view node_kind_name(NodeKind kind) {
  constexpr std::array<std::string_view, kNodeKindCount> kNames = {
      "Var",          "Constant", "Op",  "Call", "Tuple",
      "TupleGetItem", "Function", "Let", "If",   "GlobalVar"};
  return kNames[static_cast<std::size_t>(kind)];
}

/// Bits of Node::flags.
enum NodeFlags : std::uint8_t {
  /// Created outside the hash-consing table (an explicit fresh request, a stateful call, or any
  /// Var): never returned for a structurally identical request.
  kNodeFresh = 1,
};

struct Node {
  NodeKind kind = NodeKind::kVar;
  std::uint8_t flags = 0;
  std::uint32_t first_operand = 0;
  std::uint32_t operand_count = 0;
  std::array<std::uint32_t, 3> payload = {Id<void>::kNone, Id<void>::kNone, Id<void>::kNone};
  TypeId type;
  SpanId span;
};
static_assert(sizeof(Node) == 32);

}  // namespace graphpat
