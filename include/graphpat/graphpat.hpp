// Everything graphpat offers, in one include. Prefer the short entry points for one job
// (<graphpat/partition.hpp>, <graphpat/cse.hpp>, <graphpat/io/relay_text.hpp>, ...).
//
//   #include <graphpat/graphpat.hpp>
//   graphpat::relay::Graph graph;
//   graphpat::relay::Builder b(graph);
//   auto relu = b.call("nn.relu", {b.var("x")});
//   assert(graphpat::verify(graph).ok());
#pragma once

#include "graphpat/analysis.hpp"
#include "graphpat/cse.hpp"
#include "graphpat/io/dot.hpp"
#include "graphpat/io/graph_json.hpp"
#include "graphpat/io/relay_json.hpp"
#include "graphpat/io/relay_text.hpp"
#include "graphpat/ir.hpp"
#include "graphpat/partition.hpp"
#include "graphpat/pattern.hpp"
#include "graphpat/relay/dialect.hpp"
#include "graphpat/rewrite.hpp"
