// Tests for the structural distance closure: hand-computed graphs (chain,
// diamond, a recurrence exactly at and just below RecMII, components joined
// by a DAG), the no-path sentinel, reuse across builds, and a dense
// Floyd-Warshall oracle on thousands of random graphs, for each way of
// closing a component. Positive cycles must be reported exactly when
// ii < recurrence_mii(g).
#include "distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_algo.h"
#include "tilesched/graph_builder.h"
#include "tilesched/mii.h"
#include "tilesched/rng.h"
#include "tilesched/validate.h"

namespace tilesched {
namespace {

using Method = DistanceMatrix::SccMethod;
constexpr Method kMethods[] = {Method::kAuto, Method::kFloydWarshall, Method::kFeedback,
                               Method::kDijkstra};

Graph build(const GraphBuilder& b) {
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

// The oracle: the seed's dense closure, max-plus, with "no path" explicit.
// nullopt when a positive cycle exists.
std::optional<std::vector<std::optional<int64_t>>> naive_closure(const Graph& g, int64_t ii) {
  const int n = g.op_count();
  std::vector<std::optional<int64_t>> d(static_cast<size_t>(n * n));
  auto at = [&](int u, int v) -> std::optional<int64_t>& { return d[u * n + v]; };
  for (int v = 0; v < n; ++v) at(v, v) = 0;
  for (const Edge& e : g.edges) {
    const int64_t w = e.latency - ii * e.distance;
    if (!at(e.from, e.to) || *at(e.from, e.to) < w) at(e.from, e.to) = w;
  }
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (!at(i, k) || !at(k, j)) continue;
        const int64_t t = *at(i, k) + *at(k, j);
        if (!at(i, j) || *at(i, j) < t) at(i, j) = t;
      }
    }
  }
  for (int v = 0; v < n; ++v) {
    if (*at(v, v) > 0) return std::nullopt;
  }
  return d;
}

// Compares every cell; returns the first difference or "".
std::string compare(const DistanceMatrix& m, const std::vector<std::optional<int64_t>>& want) {
  const int n = m.size();
  for (int u = 0; u < n; ++u) {
    for (int v = 0; v < n; ++v) {
      const std::optional<int64_t>& w = want[u * n + v];
      const bool has = m.has_path(u, v);
      if (has != w.has_value() || (has && m.at(u, v) != *w)) {
        return "D[" + std::to_string(u) + "][" + std::to_string(v) + "] = " +
               (has ? std::to_string(m.at(u, v)) : "no path") + ", want " +
               (w ? std::to_string(*w) : "no path");
      }
      if (!has && m.row(u)[v] != DistanceMatrix::kNoPath) return "row() disagrees";
    }
  }
  return "";
}

TEST(DistanceHand, ChainDistanceIsTheSumOfLatencies) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 3), c1 = b.generic("b", 4), c2 = b.generic("c", 1);
  b.edge(a, c1);
  b.edge(c1, c2);
  const Graph g = build(b);
  DistanceMatrix m;
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 5));
  EXPECT_TRUE(m.valid());
  EXPECT_EQ(m.size(), 3);
  EXPECT_EQ(m.ii(), 5);
  EXPECT_EQ(m.at(a, c1), 3);
  EXPECT_EQ(m.at(a, c2), 7);
  EXPECT_EQ(m.at(c1, c2), 4);
  for (OpId v : {a, c1, c2}) EXPECT_EQ(m.at(v, v), 0);
  EXPECT_FALSE(m.has_path(c2, a));
  EXPECT_FALSE(m.has_path(c1, a));
  EXPECT_FALSE(m.has_path(c2, c1));
  EXPECT_EQ(m.row(c2)[a], DistanceMatrix::kNoPath);
}

TEST(DistanceHand, DiamondTakesTheLongerBranch) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1), l = b.generic("l", 1), r = b.generic("r", 1),
             d = b.generic("d", 1);
  b.edge(a, l, 2);
  b.edge(a, r, 5);
  b.edge(l, d, 10);
  b.edge(r, d, 1);
  b.edge(a, d, 11);  // a direct edge shorter than a -> l -> d
  const Graph g = build(b);
  DistanceMatrix m;
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 1));
  EXPECT_EQ(m.at(a, d), 12);
  EXPECT_EQ(m.at(a, r), 5);
  EXPECT_FALSE(m.has_path(l, r));
  EXPECT_FALSE(m.has_path(r, l));
}

TEST(DistanceHand, LoopCarriedEdgeWeighsLatencyMinusIiTimesDistance) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1), c = b.generic("c", 1);
  b.edge(a, c, 40, 2);  // not a cycle: no bound from it
  const Graph g = build(b);
  DistanceMatrix m;
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 7));
  EXPECT_EQ(m.at(a, c), 40 - 14);
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 30));
  EXPECT_EQ(m.at(a, c), 40 - 60);
  EXPECT_FALSE(m.has_path(c, a));
}

// a -5-> b -3-> c -(2, distance 1)-> a: RecMII = 10.
Graph recurrence() {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 5), c1 = b.generic("b", 3), c2 = b.generic("c", 2);
  b.edge(a, c1);
  b.edge(c1, c2);
  b.edge(c2, a, 2, 1);
  return build(b);
}

TEST(DistanceHand, RecurrenceAtRecMiiIsFeasibleAndExact) {
  const Graph g = recurrence();
  ASSERT_EQ(recurrence_mii(g), 10);
  for (Method method : kMethods) {
    DistanceMatrix m;
    m.set_scc_method(method);
    ASSERT_TRUE(m.build(g, Adjacency::build(g), 10));
    // Rows a, b, c; columns a, b, c.
    const int64_t want[3][3] = {{0, 5, 8}, {-5, 0, 3}, {-8, -3, 0}};
    for (int u = 0; u < 3; ++u) {
      for (int v = 0; v < 3; ++v) EXPECT_EQ(m.at(u, v), want[u][v]) << u << " " << v;
    }
    ASSERT_TRUE(m.build(g, Adjacency::build(g), 12));
    EXPECT_EQ(m.at(2, 0), -10);
    EXPECT_EQ(m.at(1, 0), -7);
    EXPECT_EQ(m.at(0, 2), 8);
  }
}

TEST(DistanceHand, RecurrenceBelowRecMiiIsAPositiveCycle) {
  const Graph g = recurrence();
  for (Method method : kMethods) {
    DistanceMatrix m;
    m.set_scc_method(method);
    EXPECT_FALSE(m.build(g, Adjacency::build(g), 9));
    EXPECT_FALSE(m.valid());
    EXPECT_TRUE(m.build(g, Adjacency::build(g), 10));  // usable again
    EXPECT_TRUE(m.valid());
  }
}

TEST(DistanceHand, FeedbackOrdersByDistanceZeroEdgesNotIds) {
  // Ids run against the dependences: c -> b -> a, and a -> c one iteration
  // later. Topologically c, b, a: one loop-carried edge, one head.
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1), bb = b.generic("b", 2), c = b.generic("c", 3);
  b.edge(c, bb);
  b.edge(bb, a);
  b.edge(a, c, 1, 1);
  const Graph g = build(b);
  DistanceMatrix m;
  m.set_scc_method(Method::kFeedback);
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 6));
  EXPECT_EQ(m.stats().components, 1);
  EXPECT_EQ(m.stats().largest_component, 3);
  EXPECT_EQ(m.stats().feedback, 1);
  EXPECT_EQ(m.stats().largest_head_set, 1);
  EXPECT_EQ(m.at(c, a), 5);
  EXPECT_EQ(m.at(a, c), 1 - 6);
  EXPECT_EQ(m.at(a, bb), 1 - 6 + 3);
  EXPECT_FALSE(m.build(g, Adjacency::build(g), 5));
}

TEST(DistanceHand, PositiveSelfLoopFailsBelowItsRatio) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 16);
  b.edge(a, a, 16, 1);
  const Graph g = build(b);
  DistanceMatrix m;
  EXPECT_FALSE(m.build(g, Adjacency::build(g), 15));
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 16));
  EXPECT_EQ(m.at(a, a), 0);
}

TEST(DistanceHand, ComponentsJoinedByADag) {
  // {a, b} cycle (RecMII 4) -> c -> {d, e} cycle (RecMII 3), plus a -> e.
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 4), bb = b.generic("b", 0), c = b.generic("c", 2),
             d = b.generic("d", 3), e = b.generic("e", 0);
  b.edge(a, bb, 4);
  b.edge(bb, a, 0, 1);
  b.edge(bb, c, 2);
  b.edge(c, d, 1);
  b.edge(d, e, 3);
  b.edge(e, d, 0, 1);
  b.edge(a, e, 1);
  const Graph g = build(b);
  ASSERT_EQ(recurrence_mii(g), 4);
  DistanceMatrix m;
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 4));
  EXPECT_EQ(m.at(a, c), 6);
  EXPECT_EQ(m.at(a, d), 7);
  EXPECT_EQ(m.at(a, e), 10);     // through c and d beats the direct edge
  EXPECT_EQ(m.at(bb, a), -4);
  EXPECT_EQ(m.at(bb, e), 6);
  EXPECT_EQ(m.at(e, d), -4);
  EXPECT_FALSE(m.has_path(c, a));
  EXPECT_FALSE(m.has_path(d, c));
  EXPECT_FALSE(m.has_path(e, bb));
  EXPECT_FALSE(m.build(g, Adjacency::build(g), 3));
}

TEST(DistanceHand, SeedWorkedExample) {
  GraphBuilder b(blackwell_target(), "worked");
  const OpId load = b.op("load", "tiled_tma_load");
  b.op("write", "smem_write");
  const OpId mma = b.op("mma", "wgmma");
  const OpId read = b.op("read", "smem_read");
  b.edge(load, read, 8);
  b.edge(mma, mma, 16, 1);
  const Graph g = build(b);
  DistanceMatrix m;
  ASSERT_TRUE(m.build(g, Adjacency::build(g), 16));
  EXPECT_EQ(m.at(load, read), 8);  // the seed's D[load, read] = 8
  EXPECT_EQ(m.at(mma, mma), 0);
  EXPECT_FALSE(m.build(g, Adjacency::build(g), 15));  // mma's recurrence
}

TEST(DistanceHand, EmptyGraphBuildsAnEmptyMatrix) {
  Graph g;  // validate_graph refuses it; the closure is still well defined
  g.target = blackwell_target();
  DistanceMatrix m;
  EXPECT_TRUE(m.build(g, Adjacency::build(g), 1));
  EXPECT_EQ(m.size(), 0);
}

TEST(DistanceReuse, SameSizeKeepsStorageAndOtherEdgesRecomputeComponents) {
  // Two graphs with the same ops: the second joins a and c into a cycle.
  GraphBuilder b1(blackwell_target());
  const OpId a = b1.generic("a", 2), c = b1.generic("c", 2);
  b1.generic("x", 1);
  b1.edge(a, c);
  GraphBuilder b2 = b1;
  b2.edge(c, a, 2, 1);
  const Graph g1 = build(b1), g2 = build(b2);
  DistanceMatrix m;
  ASSERT_TRUE(m.build(g1, Adjacency::build(g1), 3));
  const int64_t* storage = m.row(0).data();
  EXPECT_FALSE(m.has_path(c, a));
  ASSERT_TRUE(m.build(g2, Adjacency::build(g2), 4));
  EXPECT_EQ(m.row(0).data(), storage);
  EXPECT_EQ(m.at(c, a), 2 - 4);
  EXPECT_EQ(m.at(a, c), 2);
  EXPECT_FALSE(m.build(g2, Adjacency::build(g2), 3));  // RecMII 4 now
  ASSERT_TRUE(m.build(g1, Adjacency::build(g1), 3));  // and back
  EXPECT_FALSE(m.has_path(c, a));
  EXPECT_EQ(m.row(0).data(), storage);
}

// A random valid graph: zero-distance edges go forward in op order, except
// some zero-latency order edges going back, kept when they close only
// zero-weight cycles (which the closure must treat as harmless).
Graph random_graph(SplitMix64& rng, int max_ops) {
  GraphBuilder b(blackwell_target(), "random");
  const int n = static_cast<int>(rng.uniform(1, max_ops));
  for (int v = 0; v < n; ++v) b.generic("v" + std::to_string(v), rng.uniform(0, 9));
  const int64_t m = rng.uniform(0, 3 * n);
  std::vector<std::pair<int, int>> back;
  for (int64_t i = 0; i < m; ++i) {
    int u = static_cast<int>(rng.uniform(0, n - 1));
    int v = static_cast<int>(rng.uniform(0, n - 1));
    const int64_t latency = rng.uniform(0, 20);
    int64_t distance = rng.uniform(0, 3);
    if (distance == 0 && u >= v) {
      if (rng.chance_per_mille(300)) {
        back.push_back({u, v});
        continue;
      }
      if (u == v) {
        distance = 1;
      } else {
        std::swap(u, v);
      }
    }
    b.edge(u, v, latency, distance,
           rng.chance_per_mille(200) ? EdgeKind::kOrder : EdgeKind::kData);
  }
  Graph g = build(b);
  for (const auto& [u, v] : back) {
    g.edges.push_back({u, v, 0, 0, EdgeKind::kOrder});
    if (find_zero_distance_positive_cycle(g, Adjacency::build(g))) g.edges.pop_back();
  }
  const Status valid = validate_graph(g);
  EXPECT_TRUE(valid.ok()) << valid.message();
  return g;
}

struct Tally {
  int infeasible = 0, feasible = 0;
  int floyd_warshall = 0, feedback = 0, dijkstra = 0;  // components closed by each
  int feedback_wide = 0;
};

// `ii_offset` added to every II tried: a large one makes loop-carried edges
// weigh about -2^28 each, past the feedback method's 32-bit cells.
void check_random(uint64_t seed, int graphs, int max_ops, Method method, Tally& tally,
                  int64_t ii_offset = 0) {
  SplitMix64 rng(seed);
  DistanceMatrix m;  // one object across graphs: exercises the reuse paths
  m.set_scc_method(method);
  m.set_across_ii(false);  // every II closed by `method` (DistanceAcrossIi reads the lines)
  for (int t = 0; t < graphs; ++t) {
    const Graph g = random_graph(rng, max_ops);
    const Adjacency adj = Adjacency::build(g);
    const int64_t rec = recurrence_mii(g);
    for (int64_t ii = std::max<int64_t>(1, rec - 3) + ii_offset; ii <= rec + 4 + ii_offset;
         ++ii) {
      const auto want = naive_closure(g, ii);
      const bool ok = m.build(g, adj, ii);
      ASSERT_EQ(ok, ii >= rec) << "graph " << t << " ii " << ii << " RecMII " << rec;
      ASSERT_EQ(ok, want.has_value()) << "graph " << t << " ii " << ii;
      if (!ok) {
        ++tally.infeasible;
        continue;
      }
      ++tally.feasible;
      tally.floyd_warshall += m.stats().floyd_warshall;
      tally.feedback += m.stats().feedback;
      tally.dijkstra += m.stats().dijkstra;
      tally.feedback_wide += m.stats().feedback_wide;
      const std::string diff = compare(m, *want);
      ASSERT_EQ(diff, "") << "graph " << t << " (" << g.op_count() << " ops) ii " << ii;
    }
  }
}

TEST(DistanceRandom, MatchesDenseOracleWithAutoMethod) {
  Tally tally;
  check_random(1, 1500, 12, Method::kAuto, tally);
  EXPECT_GT(tally.infeasible, 500);  // the below-RecMII side is exercised too
  EXPECT_GT(tally.feasible, 5000);
}

TEST(DistanceRandom, MatchesDenseOracleWithFloydWarshall) {
  Tally tally;
  check_random(2, 1000, 12, Method::kFloydWarshall, tally);
  EXPECT_GT(tally.infeasible, 300);
  EXPECT_GT(tally.floyd_warshall, 1000);
  EXPECT_EQ(tally.feedback + tally.dijkstra, 0);
}

TEST(DistanceRandom, MatchesDenseOracleWithFeedback) {
  Tally tally;
  check_random(3, 1000, 12, Method::kFeedback, tally);
  EXPECT_GT(tally.infeasible, 300);
  EXPECT_GT(tally.feedback, 1000);
}

TEST(DistanceRandom, FeedbackWithLargeWeightsUses64BitCells) {
  Tally tally;
  check_random(9, 300, 12, Method::kFeedback, tally, int64_t{1} << 28);
  EXPECT_GT(tally.feedback_wide, 100);
  EXPECT_LT(tally.feedback_wide, tally.feedback);  // components without two back edges stay narrow
}

TEST(DistanceRandom, MatchesDenseOracleWithDijkstra) {
  Tally tally;
  check_random(4, 1000, 12, Method::kDijkstra, tally);
  EXPECT_GT(tally.infeasible, 300);
  EXPECT_GT(tally.dijkstra, 1000);
}

TEST(DistanceRandom, LargerGraphsUnderEveryMethod) {
  Tally tally;
  check_random(5, 30, 90, Method::kAuto, tally);
  check_random(6, 10, 90, Method::kFloydWarshall, tally);
  check_random(7, 10, 90, Method::kFeedback, tally);
  check_random(8, 10, 90, Method::kDijkstra, tally);
  EXPECT_GT(tally.infeasible, 10);
  EXPECT_GT(tally.feasible, 100);
}

// Across IIs: one matrix built at IIs in the order `iis` gives, against a
// fresh closure at each. Every cell equal, and a positive cycle exactly
// where the fresh closure finds one.
std::string compare_walk(const Graph& g, const std::vector<int64_t>& iis, DistanceMatrix& shared) {
  const Adjacency adj = Adjacency::build(g);
  DistanceMatrix fresh;
  fresh.set_across_ii(false);
  for (int64_t ii : iis) {
    const bool want = fresh.build(g, adj, ii);
    const bool got = shared.build(g, adj, ii);
    if (got != want) return "II " + std::to_string(ii) + ": valid " + std::to_string(got);
    if (!got) continue;
    if (shared.ii() != ii) return "II " + std::to_string(ii) + ": ii() " + std::to_string(shared.ii());
    for (OpId u = 0; u < g.op_count(); ++u) {
      for (OpId v = 0; v < g.op_count(); ++v) {
        if (shared.row(u)[v] != fresh.row(u)[v]) {
          return "II " + std::to_string(ii) + ": D[" + std::to_string(u) + "][" +
                 std::to_string(v) + "] = " + std::to_string(shared.row(u)[v]) + ", want " +
                 std::to_string(fresh.row(u)[v]);
        }
      }
    }
  }
  return "";
}

// The walks an II search makes: up from below RecMII (the linear search),
// down (the cost-based descent), up then down, and jumps.
std::vector<std::vector<int64_t>> walks(SplitMix64& rng, int64_t rec, int64_t span) {
  const int64_t lo = std::max<int64_t>(1, rec - 3), hi = rec + span;
  std::vector<int64_t> up, down, jumps;
  for (int64_t ii = lo; ii <= hi; ++ii) up.push_back(ii);
  for (int64_t ii = hi; ii >= lo; --ii) down.push_back(ii);
  std::vector<int64_t> up_down = up;
  for (int64_t ii = hi - 1; ii >= lo; ii -= 2) up_down.push_back(ii);
  for (int i = 0; i < 40; ++i) jumps.push_back(rng.uniform(lo, hi));
  return {up, down, up_down, jumps};
}

TEST(DistanceAcrossIi, EqualsAFreshClosureAtEveryIi) {
  SplitMix64 rng(31);
  int64_t from_lines = 0, closures = 0, broken = 0, checks = 0, held = 0;
  for (int t = 0; t < 400; ++t) {
    const Graph g = random_graph(rng, 14);
    const int64_t rec = recurrence_mii(g);
    for (const std::vector<int64_t>& iis : walks(rng, rec, 30)) {
      DistanceMatrix shared;
      const std::string diff = compare_walk(g, iis, shared);
      ASSERT_EQ(diff, "") << "graph " << t << " (" << g.op_count() << " ops, RecMII " << rec
                          << ")";
      from_lines += shared.totals().from_lines;
      closures += shared.totals().closures;
      broken += shared.totals().lines_broken;
      checks += shared.totals().checks;
      held += shared.totals().checks_held;
    }
  }
  EXPECT_GT(held, 5000);            // lines proven at an II by their edge inequalities
  EXPECT_GT(checks - held, 1000);   // and refuted
  // Both paths are exercised: builds read off the lines, and lines broken
  // (near RecMII the best paths change with the II).
  EXPECT_GT(from_lines, 20000);
  EXPECT_GT(broken, 1000);
}

TEST(DistanceAcrossIi, LargerGraphsAndWideSpans) {
  SplitMix64 rng(32);
  for (int t = 0; t < 12; ++t) {
    const Graph g = random_graph(rng, 120);
    const int64_t rec = recurrence_mii(g);
    for (const std::vector<int64_t>& iis : walks(rng, rec, 150)) {
      DistanceMatrix shared;
      ASSERT_EQ(compare_walk(g, iis, shared), "") << "graph " << t;
    }
  }
}

TEST(DistanceAcrossIi, OneObjectAcrossGraphsAndMethods) {
  // The lines belong to one graph: another graph of the same size, or
  // back, starts over; a pinned method changes nothing.
  SplitMix64 rng(33);
  DistanceMatrix shared;
  for (int t = 0; t < 60; ++t) {
    const Graph g = random_graph(rng, 10);
    shared.set_scc_method(kMethods[t % 4]);
    const std::vector<std::vector<int64_t>> w = walks(rng, recurrence_mii(g), 12);
    ASSERT_EQ(compare_walk(g, w[static_cast<size_t>(t) % w.size()], shared), "") << "graph " << t;
  }
}

// A recurrence (λ 10, δ 1) through ops 0 and 1, and op 2 hanging off it:
// above RecMII (10) every pair is linear in II.
Graph recurrence_and_chain() {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 2), c = b.generic("c", 2), x = b.generic("x", 1);
  b.edge(a, c, 4);
  b.edge(c, a, 6, 1);
  b.edge(c, x, 3);
  return build(b);
}

TEST(DistanceAcrossIi, LinearSearchClosesOnce) {
  // 200 IIs in a row above RecMII cost one closure.
  const OpId a = 0, c = 1, x = 2;
  const Graph g = recurrence_and_chain();
  const Adjacency adj = Adjacency::build(g);
  DistanceMatrix m;
  for (int64_t ii = 10; ii < 210; ++ii) {
    ASSERT_TRUE(m.build(g, adj, ii));
    EXPECT_EQ(m.at(c, a), 6 - ii);
    EXPECT_EQ(m.at(x, x), 0);
    EXPECT_EQ(m.at(a, x), 7);
  }
  // One closure (at 10; its walks give the slopes), then the lines hold at
  // 11, 12, 14, 18, 26, ...
  EXPECT_EQ(m.totals().closures, 1);
  EXPECT_EQ(m.totals().from_lines, 199);
  EXPECT_FALSE(m.build(g, adj, 9));  // below RecMII: still a positive cycle
  EXPECT_FALSE(m.valid());
  ASSERT_TRUE(m.build(g, adj, 100));
  EXPECT_TRUE(m.stats().from_lines);
  EXPECT_EQ(m.at(c, a), 6 - 100);
}

// IiLines on its own (the SMS timing uses it so): entries that are
// maxima of random lines λ − II·δ (some kNone), offered at the IIs a walk
// asks, against the values computed at each II.
TEST(IiLines, ReadsEqualTheValuesAtEveryIi) {
  SplitMix64 rng(34);
  int64_t read = 0, broken = 0;
  for (int t = 0; t < 300; ++t) {
    const int count = static_cast<int>(rng.uniform(1, 12));
    std::vector<std::vector<std::pair<int64_t, int64_t>>> lines(static_cast<size_t>(count));
    for (auto& l : lines) {
      if (rng.chance_per_mille(100)) continue;  // kNone at every II
      const int pieces = static_cast<int>(rng.uniform(1, 4));
      for (int p = 0; p < pieces; ++p) l.push_back({rng.uniform(-500, 500), rng.uniform(0, 6)});
    }
    auto values_at = [&](int64_t ii) {
      std::vector<int64_t> v;
      for (const auto& l : lines) {
        int64_t best = IiLines::kNone;
        for (const auto& [lambda, delta] : l) best = std::max(best, lambda - ii * delta);
        v.push_back(best);
      }
      return v;
    };
    IiLines il;
    if (t % 2) il.set_range(1, 120);
    for (const std::vector<int64_t>& iis : walks(rng, 40, 80)) {
      for (int64_t ii : iis) {
        const std::vector<int64_t> want = values_at(ii);
        std::vector<int64_t> got(want.size());
        if (!il.covers(ii) && il.has_lines()) {
          const int64_t c = il.next_check(ii);
          if (c != ii) il.offer(c, values_at(c));
        }
        if (il.covers(ii)) {
          il.read(ii, 0, got);
          ++read;
          ASSERT_EQ(got, want) << "case " << t << " II " << ii;
          for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(il.at(ii, i), want[i]);
        } else {
          il.offer(ii, want);
        }
      }
    }
    broken += il.broken();
  }
  EXPECT_GT(read, 10000);
  EXPECT_GT(broken, 100);
}

TEST(DistanceAcrossIi, LinesOfAClosureOutliveAFailedBuild) {
  // A closure's lines are made when the next build comes; a build below
  // RecMII, whose closure fails part way, comes first and must not spoil
  // them: the build after it reads the lines, equal to a fresh closure.
  const Graph g = recurrence_and_chain();
  const Adjacency adj = Adjacency::build(g);
  DistanceMatrix m, fresh;
  fresh.set_across_ii(false);
  ASSERT_TRUE(m.build(g, adj, 20));
  EXPECT_FALSE(m.build(g, adj, 9));
  ASSERT_TRUE(m.build(g, adj, 21));
  EXPECT_TRUE(m.stats().from_lines);
  EXPECT_EQ(m.totals().closures, 2);  // at 20, and the failed one at 9
  ASSERT_TRUE(fresh.build(g, adj, 21));
  for (OpId u = 0; u < g.op_count(); ++u) {
    for (OpId v = 0; v < g.op_count(); ++v) EXPECT_EQ(m.value(u, v), fresh.value(u, v));
  }
}

}  // namespace
}  // namespace tilesched
