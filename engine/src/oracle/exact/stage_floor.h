// The resources' stage floor at an II, proven without a solver
// (stage_floor.cc). Internal to the engine.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::exact_internal {

// The stage floor of the resources (docs/EXACT.md, "The stage floor"): the
// least S in [from, to] at which, with every op's start within [ASAP_v,
// latest_start with S stages], each slot and rate pool can still carry its
// holds: per row, the load is at most the capacity and at most what the ops
// whose window reaches that row can bring, and the rows together must carry
// every hold. No legal schedule at II has all its stages below it; nullopt
// when no S in [from, to] passes (then none at most `to` exists).
std::optional<int64_t> resource_stage_floor(const Graph& g, int64_t ii,
                                            const std::vector<int64_t>& asap,
                                            const std::vector<int64_t>& tail, int64_t from,
                                            int64_t to);

}  // namespace tilesched::exact_internal
