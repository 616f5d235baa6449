// The SMEM budget rule L4 as the generators evaluate it (the verifier has
// its own): bytes_v * ceil(lifetime_v / II) summed over the buffers, with
// lifetime_v = max(1, max over data consumers w of s_w + delta * II + D_w
// - s_v) (docs/DECISIONS.md for the delta * II term).
#pragma once

#include <cstdint>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

// Copies of v's buffer alive at once: ceil(lifetime_v / II).
int64_t buffer_copies(const Graph& g, const Adjacency& adj, const std::vector<int64_t>& start,
                      int64_t ii, OpId v);

// Total bytes held, saturated just above `cap` (so it cannot overflow).
int64_t storage_bytes_needed(const Graph& g, const Adjacency& adj,
                             const std::vector<int64_t>& start, int64_t ii, int64_t cap);

}  // namespace tilesched
