// The op pairs the exact oracle's models tie (docs/EXACT.md): ops that
// can swap starts ("Symmetry 2") and the members of a leader group (L5).
// Internal to the engine.
#pragma once

#include <utility>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::exact_internal {

// Pairs (u, v), u < v, of ops that can swap starts in any legal schedule
// (equal in every field a rule reads, the same edges, none between them);
// each op is paired with the latest earlier such op, so a model may keep
// s_u <= s_v for every pair (docs/EXACT.md, "Symmetry 2").
std::vector<std::pair<OpId, OpId>> interchangeable_pairs(const Graph& g);

// Whether some op has a leader_gid (Symmetry 1 then does not hold).
bool has_groups(const Graph& g);

// L5: pairs (u, v) of ops of one leader group, each member paired with the
// one before it in (leader_gid, op id) order; a model that ties each pair
// ties every group.
std::vector<std::pair<OpId, OpId>> leader_group_pairs(const Graph& g);

}  // namespace tilesched::exact_internal
