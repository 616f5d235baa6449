// One loop of a TTGIR document as a loop graph (internal; ttgir_body.cc):
// the importer's (tilesched/graphgen/ttgir_import.h) last step.
#pragma once

#include <string>
#include <string_view>

#include "tilesched/graphgen/ttgir_loop.h"
#include "tilesched/status.h"
#include "ttgir_loops.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen::ttgir {

// The loop as a graph on hopper_target(), named `graph_name`.
StatusOr<TtgirImport> build_loop_graph(const Document& doc, const LoopRef& loop,
                                       std::string_view source, bool strict,
                                       std::string graph_name);

}  // namespace tilesched::graphgen::ttgir
