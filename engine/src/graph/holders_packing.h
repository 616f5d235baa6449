// The holders' packing: a lower bound on II from the ops that hold the
// densest slot, taken on their own. Whatever the dependences, a schedule
// at II puts each op's holds on the modulo rows from its start's row, so
// if those ops' holds fit no rows within every slot's capacity, no
// schedule has that II. On matmul S3 the two loads and the MMA need 58
// where every density says 56. The search and its cap: docs/BOUNDS.md,
// "The holders' packing". The search's bottom (heuristic_ii_lower,
// search/ii_range.h) takes it; the MII does not.
#pragma once

#include <cstdint>

#include "tilesched/graph.h"

namespace tilesched {

// The holders searched: the densest slot's, at most this many (the
// largest holds first).
inline constexpr int kPackingMaxOps = 8;
// The IIs tried from the bottom, and the cells (one op's hold on one row)
// the search may touch over all of them. Where either runs out, the II
// reached is the bound (every II below it has no packing).
inline constexpr int64_t kPackingMaxIis = 64;
inline constexpr int64_t kPackingMaxCells = int64_t{1} << 15;

// The least II from `from` (>= 1) at which the densest slot's holders
// pack, or where the search stopped; `from` where no slot is held.
// Deterministic. REQUIRES: the graph passed validate_graph.
int64_t holders_packing_bound(const Graph& g, int64_t from);

}  // namespace tilesched
