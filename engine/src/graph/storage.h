// The SMEM budget rule L4 as the generators evaluate it (the verifier has
// its own): bytes_v * ceil(lifetime_v / II) summed over the buffers, with
// lifetime_v = max(1, max over data consumers w of s_w + delta * II + D_w
// - s_v) (docs/DECISIONS.md for the delta * II term).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

// Copies of v's buffer alive at once: ceil(lifetime_v / II).
int64_t buffer_copies(const Graph& g, const Adjacency& adj, const std::vector<int64_t>& start,
                      int64_t ii, OpId v);

// Total bytes held, saturated just above `cap` (so it cannot overflow).
int64_t storage_bytes_needed(const Graph& g, const Adjacency& adj,
                             const std::vector<int64_t>& start, int64_t ii, int64_t cap);

// Rule L4 charges every buffer at least once at every II (its lifetime is
// at least 1), and a buffer its own op reads d >= 1 iterations later (a
// data self-edge of distance d) lives d * II + D_v cycles in every
// schedule, D_v >= 1: d + 1 copies at every II.
// When the stores at those fewest copies add up to more than the storage
// pool, no II can be legal. Returns that total (saturated far above any
// pool), or nullopt. (Without this check a generator tries every II up to
// its cap; fuzz/regressions/fuzz_materialize/stores-exceed-smem-every-ii and
// fuzz/regressions/fuzz_schedule/self-read-buffer-over-smem-every-ii.)
std::optional<int64_t> stores_over_storage(const Graph& g);
// What a generator says in that case: the total against the pool.
std::string stores_over_storage_diagnostic(const Graph& g, int64_t total);

}  // namespace tilesched
