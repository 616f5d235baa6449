// The II search's range and its galloping walk (ii_range.h).
#include "ii_range.h"

#include <algorithm>
#include <cassert>

#include "graph/graph_algo.h"
#include "graph/holders_packing.h"
#include "graph/stage_span.h"
#include "bounds/rrt.h"
#include "tilesched/limits.h"

namespace tilesched {

int64_t sequential_ii_cap(const Graph& g, int64_t lower) {
  int64_t cap = lower;
  for (const Op& op : g.ops) cap += std::max(op.latency, footprint_duration(op));
  return std::min<int64_t>(cap, limits::kMaxII);
}

int64_t heuristic_ii_lower(const Graph& g, int64_t mii, int64_t group_span) {
  const int64_t lower = std::max({mii, group_span, exclusive_holds_bound(g), stage_span_bound(g)});
  return holders_packing_bound(g, std::max<int64_t>(1, lower));
}

int64_t ii_lower_bound(const Graph& g, int64_t mii) {
  return heuristic_ii_lower(
      g, mii, group_span_bound(g, Adjacency::build(g), find_leader_groups(g).members));
}

int64_t heuristic_ii_cap(const Graph& g, int64_t lower, int64_t ii_cap, const Schedule& serial) {
  int64_t cap = ii_cap;
  if (cap == 0) cap = serial.feasible ? serial.ii : sequential_ii_cap(g, lower);
  return std::min(cap, ModuloRrt::kMaxRrtII);
}

std::optional<int64_t> gallop_then_bisect(const SearchProbe& probe, int64_t lower,
                                          int64_t upper) {
  assert(lower >= 0);
  if (lower > upper) return std::nullopt;

  // Gallop: hi doubles from max(lower, 1); `lo` is one above the last
  // value that failed (the smallest value still in doubt).
  int64_t lo = lower;
  int64_t hi = lower > 0 ? lower : 1;
  if (hi > upper) hi = upper;  // lower = upper = 0
  while (!probe(hi)) {
    if (hi == upper) return std::nullopt;
    lo = hi + 1;
    hi = hi > upper - hi ? upper : 2 * hi;  // 2·hi clamped, without overflow
  }

  // Bisect [lo, hi]: probe(hi) holds; every value below lo is ruled out.
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (probe(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

}  // namespace tilesched
