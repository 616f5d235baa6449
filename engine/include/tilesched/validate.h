// Validation of loop graphs, above the model (tilesched/graph.h): it uses
// the graph algorithms (zero-distance cycles) and the agent rules.
#pragma once

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched {

// Structural and semantic checks shared by every reader and builder:
// ranges and limits (tilesched/limits.h), slot and pool references,
// occupancy within capacity, one store larger than the storage pool, and a
// zero-distance cycle with positive latency. The message starts with the
// JSON path of the offending element ("$.edges[3]: ...").
Status validate_graph(const Graph& g);

}  // namespace tilesched
