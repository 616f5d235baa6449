// Tests for the stage span bound: hand-made graphs where it is the
// optimum and where it must stay out of the way, and its soundness
// against a brute-force search of rules L1, L2, L3 and L6 on tiny random
// graphs with max_depth.
#include "stage_span.h"

#include <gtest/gtest.h>

#include <vector>

#include "tilesched/graph_builder.h"
#include "tilesched/mii.h"
#include "tilesched/rng.h"

namespace tilesched {
namespace {

int64_t span_of(const Graph& g) { return stage_span_bound(g, Adjacency::build(g)); }

// Two loads hold one singleton slot for 10 cycles each and feed an MMA 40
// cycles later that holds the slot for 4 and must stay in stage 0: the
// loads take the slot one after the other (the second at 10 at the
// earliest), the MMA starts at 50 at the earliest, and its hold must not
// meet the loads' rows, so II >= 54. DepMII says 41, the resource MII 24.
GraphBuilder two_loads_one_mma(std::optional<int64_t> depth) {
  GraphBuilder b(make_generic_target("t", {{"copy", 1, false}}, {}));
  const OpId l1 = b.generic("load_a", 40, {{1, 10, 1}});
  const OpId l2 = b.generic("load_b", 40, {{1, 10, 1}});
  const OpId mma = b.generic("mma", 1, {{1, 4, 1}});
  b.edge(l1, mma, 40);
  b.edge(l2, mma, 40);
  b.at(mma).max_depth = depth;
  return b;
}

TEST(StageSpan, TwoLoadsBeforeAStageZeroMma) {
  const Graph g = std::move(two_loads_one_mma(0).build()).value();
  EXPECT_EQ(compute_mii(g).max(), 41);
  EXPECT_EQ(span_of(g), 54);
  // With two stages the MMA may wrap: ceil((50 + 4) / 2).
  const Graph two = std::move(two_loads_one_mma(1).build()).value();
  EXPECT_EQ(span_of(two), 27);
}

TEST(StageSpan, OneWithoutMaxDepth) {
  const Graph g = std::move(two_loads_one_mma(std::nullopt).build()).value();
  EXPECT_EQ(span_of(g), 1);
}

// On a pooled slot of 3 the loads' 2 units each still exclude one another,
// but an MMA of 1 unit fits beside a load: only the dependence is left
// (the larger of one load's path and the MMA's hold, 40 + 4, or the first
// load's start plus one).
TEST(StageSpan, RoomBesideTheHoldDropsTheConflict) {
  GraphBuilder b(make_generic_target("t", {{"copy", 3, false}}, {}));
  const OpId l1 = b.generic("load_a", 40, {{1, 10, 2}});
  const OpId l2 = b.generic("load_b", 40, {{1, 10, 2}});
  const OpId mma = b.generic("mma", 1, {{1, 4, 1}});
  b.edge(l1, mma, 40);
  b.edge(l2, mma, 40);
  b.at(mma).max_depth = 0;
  EXPECT_EQ(span_of(std::move(b.build()).value()), 1);
  b.at(mma).resources = {{1, 4, 2}};  // now 2 + 2 > 3: the conflict is back
  EXPECT_EQ(span_of(std::move(b.build()).value()), 54);
}

// A rate pool of the same shape: counts of 2 on a pool of 3, held for the
// ops' footprint durations.
TEST(StageSpan, RatePoolsCountLikeSlots) {
  GraphBuilder b(make_generic_target("t", {{"a", 1, false}, {"b", 1, false}, {"c", 1, false}},
                                     {{"r", PoolKind::kRate, 3, 0, false}}));
  const OpId l1 = b.generic("load_a", 40, {{1, 10, 1}});
  const OpId l2 = b.generic("load_b", 40, {{2, 10, 1}});
  const OpId mma = b.generic("mma", 1, {{3, 4, 1}});
  for (OpId v : {l1, l2, mma}) b.at(v).pools = {{0, 2}};
  b.edge(l1, mma, 40);
  b.edge(l2, mma, 40);
  b.at(mma).max_depth = 0;
  EXPECT_EQ(span_of(std::move(b.build()).value()), 54);
}

// ------------------------------------------------------ against brute force

Graph random_tiny(uint64_t seed) {
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
bool rows_fit(const Graph& g, const std::vector<int64_t>& s, size_t placed, int64_t ii) {
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
// the ops before it and L2/L3 with everything placed.
bool place(const Graph& g, std::vector<int64_t>& s, size_t placed, int64_t ii) {
  if (placed == s.size()) return true;
  const int64_t last = (*g.ops[placed].max_depth + 1) * ii - 1;
  for (s[placed] = 0; s[placed] <= last; ++s[placed]) {
    bool ok = true;
    for (const Edge& e : g.edges) {
      if (e.from > static_cast<OpId>(placed) || e.to > static_cast<OpId>(placed)) continue;
      ok = ok && s[e.to] - s[e.from] >= e.latency - ii * e.distance;
    }
    if (ok && rows_fit(g, s, placed + 1, ii) && place(g, s, placed + 1, ii)) return true;
  }
  return false;
}

TEST(StageSpan, NoScheduleBelowTheBound) {
  int raised = 0, tight = 0;
  for (uint64_t seed = 1; seed <= 20000; ++seed) {
    const Graph g = random_tiny(seed);
    const int64_t span = span_of(g);
    const int64_t mii = compute_mii(g).max();
    std::vector<int64_t> s(static_cast<size_t>(g.op_count()));
    for (int64_t ii = std::max<int64_t>(1, mii); ii < span; ++ii) {
      EXPECT_FALSE(place(g, s, 0, ii)) << "seed " << seed << ": a schedule at II " << ii
                                       << " below the stage span " << span;
    }
    if (span > mii) {
      ++raised;
      tight += place(g, s, 0, span);
    }
  }
  // Not vacuous: the bound passes the MII often, and is often the optimum.
  EXPECT_GT(raised, 300) << "tight " << tight;
  EXPECT_GT(tight, 250) << "raised " << raised;
}

}  // namespace
}  // namespace tilesched
