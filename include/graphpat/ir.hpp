// The core IR in one include: contexts (strings, types, attributes, tensors, spans, ops),
// Graph, Builder, Module and the fmt formatters.
//
//   #include <graphpat/ir.hpp>
//   graphpat::Graph<MyDialect> graph;      // any type satisfying graphpat::Dialect
//   graphpat::Builder<MyDialect> builder(graph);
#pragma once

#include "graphpat/ir/builder.hpp"
#include "graphpat/ir/context.hpp"
#include "graphpat/ir/errors.hpp"
#include "graphpat/ir/format.hpp"
#include "graphpat/ir/graph.hpp"
#include "graphpat/ir/module.hpp"
