// A brute-force search for tiny graphs whose ops all have a max_depth,
// shared by the tests of the bounds and screens that use rule L6 (the
// stage span, engine/src/graph/stage_span_test.cc; the II screen's root,
// engine/src/search/ii_screen_test.cc): random graphs of 2-5 ops on a
// singleton slot, a pooled one and a rate pool, and whether starts exist
// at an II that meet L1, L2, L3 and L6 (every start in its stages).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/rng.h"
#include "tilesched/target.h"

namespace tilesched {

inline Graph random_capped_tiny(uint64_t seed) {
  SplitMix64 rng(seed);
  Graph g;
  g.name = "tiny";
  const int64_t pooled = 2 + static_cast<int64_t>(rng.below(2));
  g.target = make_generic_target("t", {{"one", 1, false}, {"two", pooled, false}},
                                 {{"r", PoolKind::kRate, 3, 0, false}});
  const int n = 2 + static_cast<int>(rng.below(4));
  for (int v = 0; v < n; ++v) {
    Op op;
    op.name = "op" + std::to_string(v);
    op.kind = "generic";
    op.latency = static_cast<int64_t>(rng.below(6));
    const int slot = 1 + static_cast<int>(rng.below(2));
    const int64_t units = slot == 1 ? 1 : 1 + static_cast<int64_t>(rng.below(2));
    op.resources = {{slot, 1 + static_cast<int64_t>(rng.below(4)), units}};
    if (rng.below(3) == 0) op.pools = {{0, 1 + static_cast<int64_t>(rng.below(2))}};
    op.max_depth = static_cast<int64_t>(rng.below(2));
    g.ops.push_back(op);
  }
  const int m = n + static_cast<int>(rng.below(3));
  for (int e = 0; e < m; ++e) {
    int a = static_cast<int>(rng.below(n)), b = static_cast<int>(rng.below(n));
    int64_t dist = static_cast<int64_t>(rng.below(3)) == 0 ? 1 : 0;
    if (a >= b && dist == 0) dist = 1;  // distance-0 edges run forward only
    g.edges.push_back({a, b, static_cast<int64_t>(rng.below(8)), dist, EdgeKind::kData});
  }
  return g;
}

// The load of one slot or rate pool on every modulo row, within capacity.
inline bool capped_rows_fit(const Graph& g, const std::vector<int64_t>& s, size_t placed, int64_t ii) {
  const int slots = g.target.slot_count();
  std::vector<int64_t> used(static_cast<size_t>(ii));
  for (int res = 0; res <= slots; ++res) {
    std::fill(used.begin(), used.end(), 0);
    const int64_t cap = res < slots ? g.target.slots[res].capacity : g.target.pools[0].capacity;
    for (OpId v = 0; v < static_cast<OpId>(placed); ++v) {
      const Op& op = g.ops[v];
      auto hold = [&](int64_t duration, int64_t units) {
        for (int64_t k = 0; k < duration; ++k) {
          if ((used[(s[v] + k) % ii] += units) > cap) return false;
        }
        return true;
      };
      for (const Triple& t : op.resources) {
        if (res < slots && t.slot == res + 1 && !hold(t.duration, t.occupancy)) return false;
      }
      for (const PoolUse& u : op.pools) {
        if (res == slots && !hold(footprint_duration(op), u.count)) return false;
      }
    }
  }
  return true;
}

// Starts for ops placed..n-1, each within its stages (L6), meeting L1 with
// the ops before it and L2/L3 with everything placed. REQUIRES: every op
// has a max_depth.
inline bool capped_place(const Graph& g, std::vector<int64_t>& s, size_t placed, int64_t ii) {
  if (placed == s.size()) return true;
  const int64_t last = (*g.ops[placed].max_depth + 1) * ii - 1;
  for (s[placed] = 0; s[placed] <= last; ++s[placed]) {
    bool ok = true;
    for (const Edge& e : g.edges) {
      if (e.from > static_cast<OpId>(placed) || e.to > static_cast<OpId>(placed)) continue;
      ok = ok && s[e.to] - s[e.from] >= e.latency - ii * e.distance;
    }
    if (ok && capped_rows_fit(g, s, placed + 1, ii) && capped_place(g, s, placed + 1, ii)) return true;
  }
  return false;
}

// Whether a schedule of g exists at ii (rules L1, L2, L3, L6).
inline bool brute_force_schedules(const Graph& g, int64_t ii) {
  std::vector<int64_t> s(static_cast<size_t>(g.op_count()));
  return capped_place(g, s, 0, ii);
}

}  // namespace tilesched
