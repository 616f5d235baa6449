// Tests for the four lower bounds on II: hand-computed graphs for each, the
// seed's worked example, and RecMII against brute-force cycle enumeration.
#include "tilesched/mii.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "tilesched/graph_builder.h"

namespace tilesched {
namespace {

Graph build(const GraphBuilder& b) {
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

// Seed 000's worked example with the edges of
// engine/examples/spec_example.loop.json (docs/DECISIONS.md).
Graph worked_example() {
  GraphBuilder b(blackwell_target(), "worked");
  const OpId load = b.op("load", "tiled_tma_load");
  b.op("write", "smem_write");
  const OpId mma = b.op("mma", "wgmma");
  const OpId read = b.op("read", "smem_read");
  b.edge(load, read, 8);
  b.edge(mma, mma, 16, 1);
  return build(b);
}

TEST(MiiWorkedExample, AllFourBounds) {
  const Graph g = worked_example();
  EXPECT_EQ(resource_mii(g), 15);  // slot 16: load 8 + write 7
  EXPECT_EQ(recurrence_mii(g), 16);  // mma -> mma, latency 16, distance 1
  // slot 15: ceil(7 / 5) = 2; TMEM: ceil(1 * 8 / 4) = 2.
  EXPECT_EQ(fine_density_mii(g), 2);
  EXPECT_EQ(dependency_mii(g), 1);
  const MiiBounds m = compute_mii(g);
  EXPECT_EQ(m, (MiiBounds{15, 16, 2, 1}));
  EXPECT_EQ(m.max(), 16);
}

TEST(MiiResource, SumsDurationsPerSingletonSlot) {
  GraphBuilder b(blackwell_target());
  b.generic("a", 1, {{5, 3, 1}, {6, 10, 1}});
  b.generic("b", 1, {{5, 4, 1}});
  b.generic("c", 1, {{5, 2, 1}, {15, 40, 1}});  // slot 15 is pooled: not ResMII
  const Graph g = build(b);
  EXPECT_EQ(resource_mii(g), 10);  // slot 6: 10 > slot 5: 3 + 4 + 2 = 9
}

TEST(MiiResource, IsAtLeastOne) {
  GraphBuilder b(blackwell_target());
  b.generic("a", 1);
  EXPECT_EQ(resource_mii(build(b)), 1);
}

TEST(MiiRecurrence, NoCycleGivesOne) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 5);
  const OpId c = b.generic("c", 5);
  b.edge(a, c, 100);
  b.edge(a, c, 7, 3);
  EXPECT_EQ(recurrence_mii(build(b)), 1);
}

TEST(MiiRecurrence, TwoOpCycleRoundsUp) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1);
  const OpId c = b.generic("c", 1);
  b.edge(a, c, 3, 0);
  b.edge(c, a, 4, 2);
  EXPECT_EQ(recurrence_mii(build(b)), 4);  // ceil(7 / 2)
}

TEST(MiiRecurrence, ExactRatioIsNotRoundedTwice) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1);
  const OpId c = b.generic("c", 1);
  b.edge(a, c, 4, 1);
  b.edge(c, a, 4, 1);
  EXPECT_EQ(recurrence_mii(build(b)), 4);  // 8 / 2 exactly
}

TEST(MiiRecurrence, NestedCyclesTakeTheLargestRatio) {
  // Three cycles through a: a->b->a (2 / 1), a->c->a (21 / 2 -> 11) and
  // a->b->c->a (6 / 2 -> 3). At II 1 the cheap cycles are as positive as
  // the one that decides, so the search has to move past what it meets.
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1);
  const OpId x = b.generic("b", 1);
  const OpId c = b.generic("c", 1);
  b.edge(a, x, 1, 0);
  b.edge(x, a, 1, 1);
  b.edge(a, c, 20, 0);
  b.edge(c, a, 1, 2);
  b.edge(x, c, 4, 0);
  EXPECT_EQ(recurrence_mii(build(b)), 11);
}

TEST(MiiRecurrence, LongCycleBehindAShortOne) {
  // A self loop on a (30 / 10 -> 3) heavy at small II, listed first, and a
  // ring a -> v1 -> ... -> v10 -> a (55 / 1) listed backwards, so the first
  // positive cycle met is the self loop: the search must go on to 55.
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1);
  for (int i = 1; i <= 10; ++i) b.generic("v" + std::to_string(i), 1);
  b.edge(a, a, 30, 10);
  b.edge(10, a, 5, 1);
  for (int i = 9; i >= 1; --i) b.edge(i, i + 1, 5, 0);
  b.edge(a, 1, 5, 0);
  EXPECT_EQ(recurrence_mii(build(b)), 55);
}

TEST(MiiRecurrence, IsTheMaxOverComponents) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1);
  const OpId x = b.generic("b", 1);
  const OpId c = b.generic("c", 1);
  const OpId d = b.generic("d", 1);
  b.edge(a, x, 9, 0);
  b.edge(x, a, 0, 1);  // component {a, b}: 9
  b.edge(x, c, 50, 0);  // between components: no cycle
  b.edge(c, d, 5, 1);
  b.edge(d, c, 8, 0);  // component {c, d}: 13
  b.edge(d, d, 3, 1);  // self loop: 3
  EXPECT_EQ(recurrence_mii(build(b)), 13);
}

TEST(MiiRecurrence, ZeroDistanceZeroLatencyCyclesAreHarmless) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 0);
  const OpId c = b.generic("c", 0);
  b.edge(a, c, 0, 0);
  b.edge(c, a, 0, 0, EdgeKind::kOrder);
  b.edge(a, a, 5, 2);
  EXPECT_EQ(recurrence_mii(build(b)), 3);  // ceil(5 / 2)
}

TEST(MiiRecurrence, OrderEdgesCount) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1);
  const OpId c = b.generic("c", 1);
  b.edge(a, c, 6, 0);
  b.edge(c, a, 6, 1, EdgeKind::kOrder);
  EXPECT_EQ(recurrence_mii(build(b)), 12);
}

TEST(MiiRecurrence, LargestLatenciesDoNotOverflow) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1);
  const OpId x = b.generic("b", 1);
  const OpId c = b.generic("c", 1);
  b.edge(a, x, 65535, 0);
  b.edge(x, c, 65535, 0);
  b.edge(c, a, 65535, 1);
  b.edge(c, c, 1, 1024);
  EXPECT_EQ(recurrence_mii(build(b)), 3 * 65535);
}

TEST(MiiRecurrence, LongRingOfManyOpsGivesItsRatio) {
  // A ring of 2000 ops, latency 3 each, closed by one distance-7 edge:
  // ceil(6000 / 7) = 858; plus a distance-1 chord closing 10 ops: 33.
  GraphBuilder b(blackwell_target());
  const int n = 2000;
  for (int i = 0; i < n; ++i) b.generic("v" + std::to_string(i), 3);
  for (int i = 0; i + 1 < n; ++i) b.edge(i, i + 1, 3, 0);
  b.edge(n - 1, 0, 3, 7);
  b.edge(10, 0, 3, 1);
  EXPECT_EQ(recurrence_mii(build(b)), 858);
}

// Max over simple cycles of ceil(sum latency / sum distance), by
// enumerating edge-simple paths; cycles with distance 0 are skipped.
int64_t brute_rec_mii(const Graph& g) {
  int64_t best = 1;
  const int n = g.op_count();
  std::vector<char> on_path(static_cast<size_t>(n), 0);
  std::function<void(int, int, int64_t, int64_t)> walk = [&](int start, int v, int64_t lat,
                                                             int64_t dist) {
    for (const Edge& e : g.edges) {
      if (e.from != v || e.to < start) continue;
      if (e.to == start) {
        if (dist + e.distance > 0) {
          const int64_t l = lat + e.latency, d = dist + e.distance;
          best = std::max(best, (l + d - 1) / d);
        }
        continue;
      }
      if (on_path[e.to]) continue;
      on_path[e.to] = 1;
      walk(start, e.to, lat + e.latency, dist + e.distance);
      on_path[e.to] = 0;
    }
  };
  for (int s = 0; s < n; ++s) {
    on_path[s] = 1;
    walk(s, s, 0, 0);
    on_path[s] = 0;
  }
  return best;
}

TEST(MiiRecurrence, AgreesWithCycleEnumeration) {
  uint64_t state = 7;
  auto next = [&](int64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(bound));
  };
  int checked = 0, with_cycles = 0;
  for (int round = 0; round < 2000; ++round) {
    GraphBuilder b(blackwell_target());
    const int n = 1 + static_cast<int>(next(6));
    for (int i = 0; i < n; ++i) b.generic("v" + std::to_string(i), 1);
    const int m = static_cast<int>(next(12));
    for (int k = 0; k < m; ++k) {
      const int from = static_cast<int>(next(n));
      const int to = static_cast<int>(next(n));
      const int64_t dist = next(3) == 0 ? 0 : next(4);
      b.edge(from, to, next(3) == 0 ? next(200) : next(12), dist);
    }
    StatusOr<Graph> g = b.build();
    if (!g.ok()) continue;  // zero-distance positive cycle
    ++checked;
    const int64_t want = brute_rec_mii(*g);
    if (want > 1) ++with_cycles;
    ASSERT_EQ(recurrence_mii(*g), want) << "round " << round;
  }
  EXPECT_GT(checked, 500);
  EXPECT_GT(with_cycles, 300);
}

// An independent oracle for medium graphs: a positive cycle at II exists
// iff the max-plus closure (Floyd-Warshall) of latency - II * distance has
// a positive diagonal; RecMII is the least II in [1, sum latency] without.
bool closure_has_positive_cycle(const Graph& g, int64_t ii) {
  const int n = g.op_count();
  constexpr int64_t kNone = std::numeric_limits<int64_t>::min() / 4;
  std::vector<int64_t> d(static_cast<size_t>(n * n), kNone);
  for (const Edge& e : g.edges) {
    int64_t& x = d[static_cast<size_t>(e.from * n + e.to)];
    x = std::max(x, e.latency - ii * e.distance);
  }
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) {
      const int64_t ik = d[static_cast<size_t>(i * n + k)];
      if (ik == kNone) continue;
      for (int j = 0; j < n; ++j) {
        const int64_t kj = d[static_cast<size_t>(k * n + j)];
        if (kj == kNone) continue;
        int64_t& ij = d[static_cast<size_t>(i * n + j)];
        ij = std::max(ij, ik + kj);
      }
      if (d[static_cast<size_t>(i * n + i)] > 0) return true;
    }
  }
  for (int i = 0; i < n; ++i) {
    if (d[static_cast<size_t>(i * n + i)] > 0) return true;
  }
  return false;
}

TEST(MiiRecurrence, AgreesWithMaxPlusClosure) {
  uint64_t state = 99;
  auto next = [&](int64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(bound));
  };
  int checked = 0;
  for (int round = 0; round < 300; ++round) {
    GraphBuilder b(blackwell_target());
    const int n = 5 + static_cast<int>(next(20));
    for (int i = 0; i < n; ++i) b.generic("v" + std::to_string(i), 1);
    const int m = n + static_cast<int>(next(3 * n));
    int64_t sum_latency = 1;
    for (int k = 0; k < m; ++k) {
      const int from = static_cast<int>(next(n));
      const int to = static_cast<int>(next(n));
      // Zero-distance edges only go forward, so validation always passes.
      const int64_t dist = from < to && next(2) == 0 ? 0 : 1 + next(next(4) == 0 ? 40 : 3);
      const int64_t lat = next(4) == 0 ? next(5000) : next(30);
      sum_latency += lat;
      b.edge(from, to, lat, dist);
    }
    const Graph g = build(b);
    int64_t lo = 1, hi = sum_latency;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (closure_has_positive_cycle(g, mid)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    ASSERT_EQ(recurrence_mii(g), lo) << "round " << round;
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}

TEST(MiiFineDensity, PooledSmemReadSlot) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 6; ++i) b.op("r" + std::to_string(i), "smem_read");
  const Graph g = build(b);
  EXPECT_EQ(fine_density_mii(g), 9);  // ceil(6 * 7 / 5) = ceil(8.4)
  EXPECT_EQ(resource_mii(g), 1);      // no singleton slot claimed
}

TEST(MiiFineDensity, OccupancyWeighsThePooledSlot) {
  GraphBuilder b(blackwell_target());
  b.generic("a", 1, {{15, 4, 3}});
  b.generic("c", 1, {{15, 5, 2}});
  EXPECT_EQ(fine_density_mii(build(b)), 5);  // ceil((12 + 10) / 5)
}

TEST(MiiFineDensity, TmemRatePoolOverTheFootprint) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 3; ++i) {
    const OpId v = b.generic("t" + std::to_string(i), 1, {{23, 3, 1}});
    b.at(v).pools = {{1, 2}};  // two TMEM banks for the 3-cycle footprint
  }
  const Graph g = build(b);
  EXPECT_EQ(fine_density_mii(g), 5);  // ceil(3 * 2 * 3 / 4) = ceil(4.5)
  EXPECT_EQ(resource_mii(g), 9);      // slot 23: 3 * 3
}

TEST(MiiFineDensity, BareOpHoldsPoolsOneCycle) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 7; ++i) {
    const OpId v = b.generic("n" + std::to_string(i), 1);
    b.at(v).pools = {{6, 1}};  // named barriers, capacity 3
  }
  EXPECT_EQ(fine_density_mii(build(b)), 3);  // ceil(7 / 3)
}

TEST(MiiFineDensity, StoragePoolIsNotPartOfIt) {
  GraphBuilder b(blackwell_target());
  const OpId w = b.op("w", "smem_write");
  b.at(w).store_bytes = 232448;
  EXPECT_EQ(fine_density_mii(build(b)), 1);
}

TEST(MiiFineDensity, HugeRatePoolCountsDoNotOverflow) {
  const int64_t cap = int64_t{1} << 40;
  const Target t = make_generic_target("big", {{"s", 1}}, {{"huge", PoolKind::kRate, cap}});
  GraphBuilder b(t);
  for (int i = 0; i < 3000; ++i) {
    const OpId v = b.generic("v" + std::to_string(i), 1, {{1, 1024, 1}});
    b.at(v).pools = {{0, cap}};
  }
  EXPECT_EQ(fine_density_mii(build(b)), 3000 * 1024);
}

TEST(MiiDependency, MaxDepthOnAChainRaisesTheBound) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 5);
  const OpId x = b.generic("b", 5);
  const OpId c = b.generic("c", 5);
  b.edge(a, x, 5);
  b.edge(x, c, 5);
  b.edge(c, a, 40, 1);  // loop-carried: not part of LP
  b.at(c).max_depth = 2;
  EXPECT_EQ(dependency_mii(build(b)), 4);  // LP_c = 10: ceil(11 / 3)
  b.at(x).max_depth = 0;
  EXPECT_EQ(dependency_mii(build(b)), 6);  // LP_b = 5: ceil(6 / 1)
}

TEST(MiiDependency, WithoutMaxDepthIsOne) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 500);
  const OpId c = b.generic("c", 1);
  b.edge(a, c);
  EXPECT_EQ(dependency_mii(build(b)), 1);
}

TEST(MiiCompute, MaxOfFourDistinctBounds) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1, {{23, 6, 1}});   // ResMII 6
  const OpId c = b.generic("c", 1, {{15, 20, 2}});  // FineMII ceil(40 / 5) = 8
  const OpId d = b.generic("d", 30);
  b.edge(a, c, 5, 0);
  b.edge(c, a, 4, 1);  // RecMII 9
  b.edge(d, a, 30, 0);
  b.at(a).max_depth = 2;  // LP_a = 30: DepMII ceil(31 / 3) = 11
  const MiiBounds m = compute_mii(build(b));
  EXPECT_EQ(m, (MiiBounds{6, 9, 8, 11}));
  EXPECT_EQ(m.max(), 11);
}

}  // namespace
}  // namespace tilesched
