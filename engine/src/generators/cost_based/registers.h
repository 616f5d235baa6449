// Register pressure as the spill model reads it off the seats (seed 002):
// each placed op's value is live from its start to its live end.
#pragma once

#include <cstdint>

#include "placement.h"

namespace tilesched::cost_based {

// End of u's value's live range: start + latency, or its latest placed
// data consumer's start (plus distance * II). REQUIRES: u is placed.
int64_t live_end(const Placement& p, OpId u);
// Registers live in modulo row `row`: every placed op's value from its
// start to its live_end. O(log II): the placement keeps the rows.
// REQUIRES: no trial open (Placement::begin_trial).
int64_t register_pressure(const Placement& p, int64_t row);
// The same by walking every placed op and its consumers, O(placed * degree):
// the definition register_pressure is tested against.
int64_t register_pressure_by_walk(const Placement& p, int64_t row);

}  // namespace tilesched::cost_based
