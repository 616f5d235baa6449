// Lower bounds on the initiation interval (seed 004, SPEC.md section 2):
// MII = max(ResMII, RecMII, FineMII, DepMII). All four assume a graph that
// passed validate_graph (no zero-distance positive cycle).
#pragma once

#include <cstdint>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched {

// Per singleton slot, the sum of the durations claiming it.
int64_t resource_mii(const Graph& g);
// max over dependence cycles of ceil(sum latency / sum distance); exact.
int64_t recurrence_mii(const Graph& g);
// Per pooled slot and rate pool: ceil(sum occupancy * duration / capacity).
int64_t fine_density_mii(const Graph& g);
// For ops with max_depth: ceil((LP_v + 1) / (max_depth_v + 1)), LP_v the
// longest distance-0 path ending at v.
int64_t dependency_mii(const Graph& g);

MiiBounds compute_mii(const Graph& g);

}  // namespace tilesched
