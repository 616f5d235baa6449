// Triton's lowering rules as constraints of an imported TTGIR loop graph
// (docs/TTGIR.md, "Triton's rules as constraints"; ttgir_rules.cc).
#pragma once

#include <string_view>

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::graphgen {

// Triton's lowering rules (what `export --to triton` refuses, docs/TTGIR.md)
// as constraints of an imported graph, so that every legal schedule of it
// exports: one leader_gid group (rule L5, one stage) per set of ops joined
// by a ttg.local_alloc and the ops reading its buffer (distance-0 data
// edges) or by one body position (an scf.if's ops); and, for a position
// of several ops, an order edge of latency 0 from every op outside it that
// one of them reads in the same iteration to each of them, so that the
// position's earliest op starts after what it reads. REQUIRES: the graph
// as the importer makes it (no leader_gid). InvalidInput "WHERE: problem"
// for a buffer read in a later iteration (no group keeps such a reader
// in the writer's stage) or more edges than the format allows.
Status add_triton_rules(Graph& g, std::string_view where);

}  // namespace tilesched::graphgen
