// The serial generator (seed 001, "Serial Generator"; docs/CONTRACT.md):
// Kahn's walk over the distance-0 edges with program-order tie-break, every
// op in stage 0, order = position in the walk. For comparison on one scale
// it also issues the ops in that order at the earliest cycle meeting their
// in-iteration dependences and free resources in a plain (non-modulo)
// reservation table; II is the makespan or what the loop-carried edges
// need, whichever is larger.
#pragma once

#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched {

// Never fails on a validated graph: an unorderable graph (a zero-latency
// zero-distance cycle) or an SMEM budget that the serial schedule exceeds
// gives feasible = false with the reason and a diagnostic.
Schedule generate_serial(const Graph& g);

}  // namespace tilesched
