// The dependence windows (windows.h): the placement's incremental bounds
// against a recomputation (Placement), and the windows kept along the
// edges against the all-pairs closure they replace: labels, ASAP, positive
// cycles, point queries and the undo trail (EdgeWindows), and the
// placement's windows and conflicts along the edges against the closure's
// (Placement with AlongEdges).
#include "testing/cost_based_support.h"

#include <algorithm>
#include <span>
#include <vector>

#include "bounds/distance.h"
#include "tilesched/mii.h"
#include "placement.h"
#include "windows.h"

namespace tilesched::cost_based {
namespace {

// A random loop of lo..hi ops, no self-edges.
Graph RandomLoop(SplitMix64& rng, int lo, int hi, int64_t max_distance) {
  return RandomGenericLoop(rng, lo, hi, max_distance, false);
}

// ASAP is max(0, max over u != v with a path of D[u][v]), at RecMII (where
// a critical cycle's ops reach themselves with exactly 0) and above.
TEST(Placement, AsapIsTheLongestPathIntoTheOp) {
  SplitMix64 rng(4);
  for (int round = 0; round < 60; ++round) {
    const Graph g = RandomLoop(rng, 2, 12, 1);
    const int n = g.op_count();
    const int64_t rec = recurrence_mii(g);
    for (int64_t ii : {rec, rec + 2}) {
      WorkedAtII w(ii, g);
      DistanceMatrix d;
      ASSERT_TRUE(d.build(w.g, w.ctx->adj, ii));
      for (OpId v = 0; v < n; ++v) {
        int64_t want = 0;
        for (OpId u = 0; u < n; ++u) {
          if (u != v && d.has_path(u, v)) want = std::max(want, d.at(u, v));
        }
        ASSERT_EQ(w.p->asap(v), want) << "round " << round << " II " << ii << " op " << v;
      }
    }
  }
}

// Windows from the incremental bounds equal windows recomputed from the
// placed ops (their ends, whether a predecessor is placed and the earliest
// predecessor bound), through commits, evictions (any order: the evicted
// op's bounds taken back out where they did not bind), undoing the last
// seat (with the undo trail on in half the rounds) and journaled trials;
// the register rows the placement keeps equal a walk over the placed ops.
// Both windows: the closure's (even rounds) and along the edges (odd).
TEST(Placement, IncrementalBoundsMatchARecomputation) {
  SplitMix64 rng(3);
  for (int round = 0; round < 300; ++round) {
    Graph g = RandomLoop(rng, 3, 14, 2);
    const int n = g.op_count();
    for (Op& op : g.ops) op.registers = rng.uniform(0, 3) * 8;
    WorkedAtII w(40, std::move(g), round % 2 == 1);  // II 40 is above any recurrence here
    w.p->set_undo_trail(round % 4 < 2);
    DistanceMatrix d;
    ASSERT_TRUE(d.build(w.g, w.ctx->adj, 40));
    std::vector<OpId> seats;  // outside trials, in order
    bool in_trial = false;
    auto check = [&] {
      for (int64_t row = 0; row < 40 && !in_trial; ++row) {  // trial seats are not in the rows
        ASSERT_EQ(register_pressure(*w.p, row), register_pressure_by_walk(*w.p, row))
            << "round " << round << " row " << row;
      }
      for (OpId v = 0; v < n; ++v) {
        int64_t lo = 0, hi = kUnbounded, earliest = INT64_MAX;
        for (OpId u = 0; u < n; ++u) lo = std::max(lo, u != v && d.has_path(u, v) ? d.at(u, v) : 0);
        for (OpId u : w.p->placed_ops()) {
          if (u == v) continue;
          if (d.has_path(u, v)) {
            lo = std::max(lo, w.p->start(u) + d.at(u, v));
            earliest = std::min(earliest, w.p->start(u) + d.at(u, v));
          }
          if (d.has_path(v, u)) hi = std::min(hi, w.p->start(u) - d.at(v, u));
        }
        const Window got = w.p->window(v);
        ASSERT_EQ(got.lo, lo) << "round " << round << " op " << v;
        ASSERT_EQ(got.hi, hi) << "round " << round << " op " << v;
        ASSERT_EQ(got.has_pred, earliest != INT64_MAX) << "round " << round << " op " << v;
        if (got.has_pred) {
          ASSERT_EQ(w.p->earliest_pred_bound(v, got), earliest) << "round " << round << " op " << v;
        }
      }
    };
    for (int step = 0; step < 60; ++step) {
      const OpId v = static_cast<OpId>(rng.uniform(0, n - 1));
      if (!seats.empty() && rng.chance_per_mille(250)) {
        w.p->unplace(seats.back());  // the last seat: the undo trail's path
        seats.pop_back();
      } else if (w.p->placed(v) && rng.chance_per_mille(400)) {
        w.p->unplace(v);  // any order: the eviction path
        seats.erase(std::find(seats.begin(), seats.end(), v));
      } else if (rng.chance_per_mille(300)) {
        w.p->begin_trial();  // a journaled trial, unwound in reverse
        in_trial = true;
        std::vector<OpId> seated;
        for (OpId u = 0; u < n; ++u) {
          if (!w.p->placed(u) && rng.chance_per_mille(500)) {
            w.p->place(u, rng.uniform(0, 80));
            seated.push_back(u);
            check();
          }
        }
        for (auto it = seated.rbegin(); it != seated.rend(); ++it) w.p->unplace(*it);
        w.p->end_trial();
        in_trial = false;
      } else if (!w.p->placed(v)) {
        w.p->place(v, rng.uniform(0, 80));  // generic ops hold no slot
        seats.push_back(v);
      }
      // Not after every step: ops left dirty by an eviction must also meet
      // a trial (whose windows recompute them) and stay right after it.
      if (rng.chance_per_mille(250)) check();
    }
  }
}

// A random loop of lo..hi ops: edges either way, the backward ones carried
// 1..2 iterations, some self-edges and parallel edges.
Graph RandomEdges(SplitMix64& rng, int lo, int hi) {
  return RandomGenericLoop(rng, lo, hi, 2, true);
}

struct Labels {
  std::vector<int64_t> up, down;
  friend bool operator==(const Labels&, const Labels&) = default;
};

Labels LabelsOf(const EdgeWindows& w, int n) {
  Labels l;
  for (OpId v = 0; v < n; ++v) {
    l.up.push_back(w.from_placed(v));
    l.down.push_back(w.to_placed(v));
  }
  return l;
}

// max over placed u of s_u + D[u][v], min over placed u of s_u - D[v][u],
// from the closure (u = v included: D[v][v] = 0).
Labels LabelsFromClosure(const DistanceMatrix& d, const std::vector<int64_t>& start,
                         const std::vector<char>& placed) {
  const int n = static_cast<int>(start.size());
  Labels l{std::vector<int64_t>(n, EdgeWindows::kNone), std::vector<int64_t>(n, EdgeWindows::kOpen)};
  for (OpId v = 0; v < n; ++v) {
    for (OpId u = 0; u < n; ++u) {
      if (!placed[u]) continue;
      if (u == v || d.has_path(u, v)) l.up[v] = std::max(l.up[v], start[u] + (u == v ? 0 : d.at(u, v)));
      if (u == v || d.has_path(v, u)) l.down[v] = std::min(l.down[v], start[u] - (u == v ? 0 : d.at(v, u)));
    }
  }
  return l;
}

// Every II from 1 to a few above RecMII: the unit finds a positive cycle
// exactly where the closure does, and ASAP is the closure's longest path
// into the op (at least 0).
TEST(EdgeWindows, PositiveCyclesAndAsapAreTheClosures) {
  SplitMix64 rng(21);
  for (int round = 0; round < 120; ++round) {
    const Graph g = RandomEdges(rng, 1, 14);
    const Adjacency adj = Adjacency::build(g);
    const int n = g.op_count();
    const Seats seats(n);
    EdgeWindows w(g, adj, seats);
    for (int64_t ii = 1; ii <= std::max<int64_t>(1, recurrence_mii(g)) + 3; ++ii) {
      DistanceMatrix d;
      const bool built = d.build(g, adj, ii);
      ASSERT_EQ(w.reset(ii), built) << "round " << round << " II " << ii;
      if (!built) continue;
      for (OpId v = 0; v < n; ++v) {
        int64_t want = 0;
        for (OpId u = 0; u < n; ++u) {
          if (d.has_path(u, v)) want = std::max(want, d.at(u, v));
        }
        ASSERT_EQ(w.asap(v), want) << "round " << round << " II " << ii << " op " << v;
        const std::vector<int64_t> from = w.longest_from(v);
        const std::vector<int64_t>& to = w.longest_to(v);
        for (OpId u = 0; u < n; ++u) {
          const int64_t dvu = u == v ? 0 : (d.has_path(v, u) ? d.at(v, u) : EdgeWindows::kNone);
          const int64_t duv = u == v ? 0 : (d.has_path(u, v) ? d.at(u, v) : EdgeWindows::kNone);
          ASSERT_EQ(from[u], dvu) << "round " << round << " D[" << v << "][" << u << "]";
          ASSERT_EQ(to[u], duv) << "round " << round << " D[" << u << "][" << v << "]";
        }
      }
    }
  }
}

// After any sequence of seats (at any start), last-in first-out unseats,
// unseats in any order and trail trims, every op's labels equal a
// recomputation from the closure over the placed ops; an unseat of the
// latest seat restores the labels before that seat exactly; changed()
// names every op whose labels the step changed.
TEST(EdgeWindows, LabelsEqualTheClosuresThroughSeatsAndUnseats) {
  SplitMix64 rng(22);
  int restores = 0;
  for (int round = 0; round < 200; ++round) {
    const Graph g = RandomEdges(rng, 1, 16);
    const Adjacency adj = Adjacency::build(g);
    const int n = g.op_count();
    const int64_t ii = std::max<int64_t>(1, recurrence_mii(g)) + rng.uniform(0, 3);
    DistanceMatrix d;
    ASSERT_TRUE(d.build(g, adj, ii));
    Seats seats(n);
    EdgeWindows w(g, adj, seats);
    ASSERT_TRUE(w.reset(ii));
    const std::vector<int64_t>& start = seats.start;
    const std::vector<char>& placed = seats.placed;
    std::vector<OpId> stack;       // seats in order
    // The labels before each seat of `stack` (none once an op seated
    // before it is unseated out of order).
    std::vector<std::optional<Labels>> before;
    for (int step = 0; step < 4 * n + 8; ++step) {
      const Labels was = LabelsOf(w, n);
      const int kind = static_cast<int>(rng.uniform(0, 9));
      std::vector<OpId> unplaced;
      for (OpId v = 0; v < n; ++v) {
        if (!placed[v]) unplaced.push_back(v);
      }
      std::optional<Labels> restore;
      if (kind <= 4 && !unplaced.empty()) {
        const OpId v = unplaced[rng.below(unplaced.size())];
        seats.add(v, rng.uniform(0, 3 * ii), false);
        w.seat(v, start[v]);
        stack.push_back(v);
        before.push_back(was);
      } else if (kind <= 7 && !stack.empty()) {
        const OpId v = stack.back();
        restore = before.back();
        stack.pop_back();
        before.pop_back();
        seats.remove(v);
        w.unseat(v);
      } else if (kind == 8 && !stack.empty()) {
        const size_t i = rng.below(stack.size());
        const OpId v = stack[i];
        stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
        before.erase(before.begin() + static_cast<std::ptrdiff_t>(i));
        for (size_t k = i; k < before.size(); ++k) before[k].reset();
        seats.remove(v);
        w.unseat(v);
      } else {
        w.trim_trail(rng.below(3 * static_cast<uint64_t>(n)));
        continue;
      }
      const std::vector<OpId> changed(w.changed().begin(), w.changed().end());
      const Labels now = LabelsOf(w, n);
      ASSERT_EQ(now, LabelsFromClosure(d, start, placed)) << "round " << round << " step " << step;
      if (restore) ++restores;
      if (restore) {
        ASSERT_EQ(now, *restore) << "round " << round << " step " << step;
      }
      for (OpId v = 0; v < n; ++v) {
        if (now.up[v] != was.up[v] || now.down[v] != was.down[v]) {
          ASSERT_NE(std::find(changed.begin(), changed.end(), v), changed.end())
              << "round " << round << " step " << step << " op " << v;
        }
      }
    }
  }
  EXPECT_GT(restores, 500);  // the trail undid seats
}

struct TwoPlacements {
  Graph g;
  CostBasedOptions opts;
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Placement> closure, edges;
  TwoPlacements(Graph graph, int64_t ii) : g(std::move(graph)) {
    ctx = std::make_unique<Context>(g, opts, compute_mii(g));
    closure = std::make_unique<Placement>(*ctx);
    edges = std::make_unique<Placement>(*ctx, AlongEdges{});
    EXPECT_TRUE(closure->reset(ii));
    EXPECT_TRUE(edges->reset(ii));
  }
  void place(OpId v, int64_t t) {
    const std::vector<Window> was_c = AllWindows(*closure), was_e = AllWindows(*edges);
    closure->place(v, t);
    edges->place(v, t);
    ExpectMovedCovers(*closure, v, was_c);
    ExpectMovedCovers(*edges, v, was_e);
  }
  void unplace(OpId v) {
    const std::vector<Window> was_c = AllWindows(*closure), was_e = AllWindows(*edges);
    closure->unplace(v);
    edges->unplace(v);
    ExpectMovedCovers(*closure, v, was_c);
    ExpectMovedCovers(*edges, v, was_e);
  }
  static std::vector<Window> AllWindows(const Placement& p) {
    std::vector<Window> w;
    for (OpId u = 0; u < p.ctx().g.op_count(); ++u) w.push_back(p.window(u));
    return w;
  }
  // Every unplaced op whose window the latest seat or unseat of v moved is
  // in moved(v) (what the backtracking rung recounts).
  static void ExpectMovedCovers(Placement& p, OpId v, const std::vector<Window>& was) {
    const std::span<const OpId> moved = p.moved(v);
    for (OpId u = 0; u < p.ctx().g.op_count(); ++u) {
      const Window now = p.window(u);
      if (p.placed(u) || (now.lo == was[u].lo && now.hi == was[u].hi)) continue;
      EXPECT_NE(std::find(moved.begin(), moved.end(), u), moved.end()) << "op " << u;
    }
  }
};

// Along the edges, the window of every op (placed or not) has the
// closure's ends, its "a predecessor is placed" and its latest and
// earliest predecessor bounds; an unplaced op's conflicts at any start are
// the closure's; each placement's moved() names the unplaced ops whose
// windows a seat or unseat moved. Through seats inside windows, evictions in any
// order, undone seats and trials.
TEST(EdgeWindows, PlacementWindowsAndConflictsAreTheClosures) {
  SplitMix64 rng(23);
  int trial_seats = 0;
  for (int round = 0; round < 150; ++round) {
    Graph g = RandomEdges(rng, 2, 14);
    const int n = g.op_count();
    const int64_t ii = std::max<int64_t>(1, recurrence_mii(g)) + rng.uniform(0, 4);
    TwoPlacements two(std::move(g), ii);
    Placement& c = *two.closure;
    Placement& e = *two.edges;
    std::vector<OpId> order;  // seats outside trials
    auto check = [&](int step) {
      for (OpId v = 0; v < n; ++v) {
        ASSERT_EQ(e.asap(v), c.asap(v));
        const Window a = c.window(v), b = e.window(v);
        ASSERT_EQ(b.lo, a.lo) << "round " << round << " step " << step << " op " << v;
        ASSERT_EQ(b.hi, a.hi) << "round " << round << " step " << step << " op " << v;
        ASSERT_EQ(b.has_pred, a.has_pred);
        if (a.has_pred) {
          ASSERT_EQ(b.latest_pred_bound, a.latest_pred_bound);
          // These graphs are far inside the search's budget: exact.
          ASSERT_EQ(e.earliest_pred_bound(v, b), c.earliest_pred_bound(v, a))
              << "round " << round << " step " << step << " op " << v;
        }
        if (c.placed(v)) continue;
        const int64_t t = rng.uniform(0, 3 * ii);
        ASSERT_EQ(e.conflicts(v, t), c.conflicts(v, t)) << "round " << round << " op " << v;
        for (OpId u = 0; u < n; ++u) {
          if (u == v) continue;
          ASSERT_EQ(e.longest_path(u, v), c.longest_path(u, v));
        }
      }
    };
    for (int step = 0; step < 3 * n; ++step) {
      std::vector<OpId> unplaced;
      for (OpId v = 0; v < n; ++v) {
        if (!c.placed(v)) unplaced.push_back(v);
      }
      const int kind = static_cast<int>(rng.uniform(0, 9));
      if (kind <= 4 && !unplaced.empty()) {
        const OpId v = unplaced[rng.below(unplaced.size())];
        const Window w = c.window(v);
        if (w.empty()) continue;
        const int64_t t = std::min(w.hi, w.lo + rng.uniform(0, ii));
        if (!c.fits(v, t)) continue;
        two.place(v, t);
        order.push_back(v);
      } else if (kind <= 6 && !order.empty()) {
        two.unplace(order.back());
        order.pop_back();
      } else if (kind == 7 && !order.empty()) {
        const size_t i = rng.below(order.size());
        two.unplace(order[i]);
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (kind == 8 && !unplaced.empty()) {
        // A trial: a few seats, the windows checked, then undone in reverse.
        c.begin_trial();
        e.begin_trial();
        std::vector<OpId> seated;
        for (OpId v : unplaced) {
          const Window w = c.window(v);
          if (seated.size() >= 3 || w.empty() || !c.fits(v, w.lo)) continue;
          two.place(v, w.lo);
          seated.push_back(v);
          ++trial_seats;
        }
        ASSERT_NO_FATAL_FAILURE(check(step));
        for (auto it = seated.rbegin(); it != seated.rend(); ++it) two.unplace(*it);
        c.end_trial();
        e.end_trial();
      }
      ASSERT_NO_FATAL_FAILURE(check(step));
    }
  }
  EXPECT_GT(trial_seats, 100);  // the trials seated ops
}

// The earliest predecessor bound of the last op of a chain 0 -> 1 -> ...
// -> n-1 (latency 1) with a shortcut 0 -> n-1 (latency 0), op 0 at 5 and
// op n-2 three cycles after its earliest: the exact bound is op 0's through
// the chain (5 + n - 1); past the search's budget it is the least bound of
// the direct predecessors' edges (op 0's shortcut: 5).
TEST(EdgeWindows, EarliestBoundPastTheSearchBudgetIsTheDirectEdges) {
  for (const int n : {50, static_cast<int>(EdgeWindows::kExactEarliestVisits) + 10}) {
    GraphBuilder b(blackwell_target());
    for (int i = 0; i < n; ++i) b.generic("n" + std::to_string(i), 1);
    for (int i = 0; i + 1 < n; ++i) b.edge(i, i + 1, 1);
    b.edge(0, n - 1, 0);
    TwoPlacements two(Build(b), 4);
    two.place(0, 5);
    two.place(n - 2, 5 + (n - 2) + 3);
    const OpId v = n - 1;
    const Window a = two.closure->window(v), w = two.edges->window(v);
    ASSERT_EQ(w.lo, a.lo);
    EXPECT_EQ(two.closure->earliest_pred_bound(v, a), 5 + n - 1);
    EXPECT_EQ(two.edges->earliest_pred_bound(v, w), n < 100 ? 5 + n - 1 : 5) << n;
  }
}

}  // namespace
}  // namespace tilesched::cost_based
