// Everything graphpat offers, in one include. Prefer the short entry points for one job
// (<graphpat/ir.hpp>, <graphpat/analysis.hpp>, <graphpat/relay/dialect.hpp>, ...).
//
//   #include <graphpat/graphpat.hpp>
//   graphpat::relay::Graph graph;
//   graphpat::relay::Builder b(graph);
//   auto relu = b.call("nn.relu", {b.var("x")});
//   assert(graphpat::verify(graph).ok());
#pragma once

#include "graphpat/analysis.hpp"
#include "graphpat/ir.hpp"
#include "graphpat/relay/dialect.hpp"
