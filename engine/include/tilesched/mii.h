// Lower bounds on the initiation interval (seed 004; docs/CONTRACT.md):
// MII = max(ResMII, RecMII, FineMII, DepMII), each at least 1. All four
// assume a graph that passed validate_graph (no zero-distance positive
// cycle, counts within capacities). docs/BOUNDS.md has the formulas and
// the RecMII algorithm.
#pragma once

#include <cstdint>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched {

// Per singleton slot (capacity 1), the sum of the durations claiming it.
int64_t resource_mii(const Graph& g);
// max over dependence cycles (data and order edges) of
// ceil(sum latency / sum distance); exact, 1 without a loop-carried cycle.
int64_t recurrence_mii(const Graph& g);
// Per pooled slot: ceil(sum occupancy * duration / capacity); per rate pool:
// ceil(sum count * footprint_duration / capacity). Storage pools excluded.
int64_t fine_density_mii(const Graph& g);
// For ops with max_depth: ceil((LP_v + 1) / (max_depth_v + 1)), LP_v the
// longest distance-0 path ending at v.
int64_t dependency_mii(const Graph& g);

MiiBounds compute_mii(const Graph& g);

}  // namespace tilesched
