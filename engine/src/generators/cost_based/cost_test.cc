// The cost evaluators (seeds 000, 002) and the placement's incremental
// dependence bounds.
#include "testing/cost_based_support.h"

#include <algorithm>
#include <vector>

#include "bounds/distance.h"
#include "search/ii_range.h"
#include "tilesched/mii.h"
#include "cost.h"
#include "registers.h"

namespace tilesched::cost_based {
namespace {

TEST(CostEvaluators, KendallTauCountsInversions) {
  EXPECT_EQ(kendall_tau_inversions({}), 0);
  EXPECT_EQ(kendall_tau_inversions({0, 1, 2, 3}), 0);
  EXPECT_EQ(kendall_tau_inversions({3, 2, 1, 0}), 6);
  EXPECT_EQ(kendall_tau_inversions({0, 2, 3, 1}), 2);  // seed 000: write moved past two ops
  SplitMix64 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::vector<int> seq(static_cast<size_t>(rng.uniform(0, 40)));
    for (size_t i = 0; i < seq.size(); ++i) seq[i] = static_cast<int>(i);
    rng.shuffle(seq);
    int64_t naive = 0;
    for (size_t i = 0; i < seq.size(); ++i) {
      for (size_t j = i + 1; j < seq.size(); ++j) naive += seq[i] > seq[j];
    }
    EXPECT_EQ(kendall_tau_inversions(seq), naive);
  }
}

TEST(CostEvaluators, StructuralIndexAgreesWithTheDirectCount) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 12; ++i) b.generic("n" + std::to_string(i), 1);
  WorkedAtII w(5, Build(b));
  SplitMix64 rng(11);
  for (OpId u = 0; u < 12; u += 2) w.p->place(u, rng.uniform(0, 20));
  for (OpId v = 1; v < 12; v += 2) {
    const StructuralIndex index(*w.p, v);
    for (int64_t t = 0; t <= 21; ++t) {
      EXPECT_EQ(index.at(t), structural_distance(*w.p, v, t)) << v << "@" << t;
    }
  }
  w.p->place(1, 3);
  // 0 at s0: inverted iff s0 > 3; 2,4,.. inverted iff they start before 3.
  int64_t expect = 0;
  for (OpId u : w.p->placed_ops()) {
    if (u == 1) continue;
    if (u < 1 ? w.p->start(u) > 3 : w.p->start(u) < 3) ++expect;
  }
  EXPECT_EQ(structural_distance(*w.p, 1, 3), expect);
}

TEST(CostEvaluators, SpillSurchargeFormula) {
  EXPECT_EQ(spill_surcharge(128, 128), 0);
  EXPECT_EQ(spill_surcharge(130, 128), 34);  // (130 - 128) * 17
  EXPECT_EQ(spill_surcharge(10000, 128), 4096);
}

TEST(CostEvaluators, CostVectorIsLexicographic) {
  const CostVector a{0, 0, 3, 2, 0}, b{0, 0, 2, 9, 9}, c{0, 1, 0, 0, 0};
  EXPECT_LT(b, a);  // a later component never outweighs an earlier one
  EXPECT_LT(a, c);
  EXPECT_FALSE(CostVector::infinite().feasible());
  CostVector sum = a;
  sum += CostVector::infinite();
  EXPECT_FALSE(sum.feasible());
}

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

TEST(CostEvaluators, PipeSlotCostIsTheSlackOverTheDistance) {
  WorkedAtII w(15, Example("seed_worked_example.loop.json"));
  const OpId load = 0, read = 3;
  w.p->place(load, 0);
  EXPECT_EQ(pipe_slot_cost(*w.p, read, 8), 0);  // D[load][read] = 8: tight
  EXPECT_EQ(pipe_slot_cost(*w.p, read, 11), 3);
  EXPECT_EQ(pipe_slot_cost(*w.p, read, 7), kInfiniteCost);  // breaks the edge
}

TEST(CostEvaluators, TheDriversAnswerIsTheWidestSlack) {
  // pipe_slot_cost and bank_pressure_cost return the smallest cap with
  // "x <= cap" over [0, x] as x itself instead of running seed 000's driver.
  for (int64_t x = 0; x <= 300; ++x) {
    EXPECT_EQ(gallop_then_bisect([x](int64_t cap) { return x <= cap; }, 0, x), x) << x;
  }
}

TEST(CostEvaluators, BankPressureCountsBothIterationsAndHonoursHardCaps) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 5; ++i) b.op("r" + std::to_string(i), "smem_read");
  WorkedAtII w(20, Build(b));
  w.p->place(0, 0);
  w.p->place(1, 20);  // the next window of the same rows: cross-iteration
  EXPECT_EQ(bank_pressure_cost(*w.p, *w.ctx, 2, 0), 2);  // 1 in + 1 cross
  w.p->place(2, 40);
  w.p->place(3, 60);
  // Three cross-iteration occupants reach the named-barrier cap of 3; a
  // fourth (placed in a fifth window) would pass it.
  EXPECT_EQ(bank_pressure_cost(*w.p, *w.ctx, 4, 0), 4);
  EXPECT_EQ(bank_pressure_cost(*w.p, *w.ctx, 4, 80), kInfiniteCost);
}

}  // namespace
}  // namespace tilesched::cost_based
