// The stage span: a lower bound on II for ops with a max_depth (rule L6,
// and so every op under --max-stages) that DepMII misses. A capped op's
// predecessors that each hold one slot or rate pool with more than half
// its capacity take it one after another; the op starts after the last of
// them and its path, its own hold must not meet the first one's row, and
// all of it must fit in the op's stages. The derivation and its figures:
// docs/BOUNDS.md, "The stage span". The search's bottom
// (heuristic_ii_lower, search/ii_range.h) takes it; the MII does not.
#pragma once

#include <cstdint>

#include "tilesched/graph.h"

namespace tilesched {

// The work stage_span_bound may do: graphs whose count of steps (a path
// pass into every capped op, each of its holds' candidates scanned and
// sorted) passes it get 1.
inline constexpr int64_t kStageSpanMaxSteps = int64_t{1} << 22;

// The bound, at least 1: 1 where no op has max_depth (without building
// anything), where the distance-0 edges hold a cycle, or where the
// graph's steps pass kStageSpanMaxSteps. REQUIRES: the graph passed
// validate_graph.
int64_t stage_span_bound(const Graph& g);

}  // namespace tilesched
