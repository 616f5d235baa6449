// Seating one op (seating.h): the cost evaluators (seeds 000, 002), the
// admission gates G1-G4 and their recoveries (seed 001), and the four arms
// (seed 004).
#include "testing/cost_based_support.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "search/ii_range.h"
#include "seating.h"

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

TEST(Gates, G1HoldsGroupMembersUntilTheAnchorIsPlaced) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.op("a", "alu"), c = b.op("c", "alu");
  b.edge(a, c);
  b.at(a).leader_gid = 1;
  b.at(c).leader_gid = 1;
  const OpId m = b.op("m", "alu");
  b.at(m).leader_gid = 1;  // m is ready at once but a is the anchor
  WorkedAtII w(4, Build(b));
  EXPECT_EQ(w.d->gates().earliest_seat(m).outcome, SeatOutcome::kPending);
  EXPECT_EQ(w.stats.gate_rejects[static_cast<int>(Gate::kG1Pending)], 1);
  w.p->place(a, 0);
  EXPECT_EQ(w.d->gates().earliest_seat(m).outcome, SeatOutcome::kSeat);
}

// A load and an ALU op 20 cycles after it whose max_depth is 0: at II 8
// the ALU op cannot start in stage 0 once the load is placed.
Graph LoadThenShallowAlu(OpId& x, OpId& y) {
  GraphBuilder b(blackwell_target());
  x = b.op("x", "tiled_tma_load");
  y = b.op("y", "alu");
  b.edge(x, y, 20);
  b.at(y).max_depth = 0;
  return Build(b);
}

TEST(Gates, G2MarksAnOpDeadPastItsMaxDepth) {
  OpId x, y;
  WorkedAtII w(8, LoadThenShallowAlu(x, y));
  EXPECT_EQ(w.d->gates().earliest_seat(y).outcome, SeatOutcome::kDead);
  EXPECT_EQ(w.stats.gate_rejects[static_cast<int>(Gate::kG2MaxDepth)], 1);
}

TEST(Gates, G3BumpsTheSeatByOneCycle) {
  WorkedAtII w(15, Example("seed_worked_example.loop.json"));
  w.p->place(0, 0);  // load holds tp_smem_wr over [0, 8)
  const SeatSearch s = w.d->gates().earliest_seat(1);
  EXPECT_EQ(s.outcome, SeatOutcome::kSeat);
  EXPECT_EQ(s.t, 8);
  EXPECT_EQ(w.stats.gate_rejects[static_cast<int>(Gate::kG3Rrt)], 8);
}

TEST(Gates, G4KeepsTheGroupsStageAndAsksForAReorder) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.op("a", "alu"), c = b.op("c", "alu");
  b.at(a).leader_gid = 3;
  b.at(c).leader_gid = 3;
  const OpId x = b.generic("x", 9);
  b.edge(x, c);
  WorkedAtII w(4, Build(b));
  w.p->place(a, 0);  // the group is in stage 0
  w.p->place(x, 0);  // c cannot start before 9: stage 2
  EXPECT_EQ(w.d->gates().earliest_seat(c).outcome, SeatOutcome::kGroupLater);
  EXPECT_GT(w.stats.gate_rejects[static_cast<int>(Gate::kG4Group)], 0);
  // Forced placement moves the group: a is evicted and c takes stage 2.
  EXPECT_TRUE(w.d->force_place(c));
  EXPECT_FALSE(w.p->placed(a));
  EXPECT_EQ(w.stats.group_reorders, 1);
}

TEST(Arms, FuseComposesTwoReadsIntoOneSeat) {
  GraphBuilder b(blackwell_target());
  const OpId r1 = b.op("r1", "smem_read"), r2 = b.op("r2", "smem_read");
  const OpId wr = b.op("w", "smem_write"), ld = b.op("ld", "tiled_tma_load");
  const OpId r3 = b.op("r3", "smem_read");
  b.edge(r1, r3);
  WorkedAtII w(16, Build(b));
  EXPECT_TRUE(w.d->arms().can_fuse(r1, r2));    // (15, 7, 2): under tp_smem_rd's 5
  EXPECT_FALSE(w.d->arms().can_fuse(r1, r3));   // a dependence
  EXPECT_FALSE(w.d->arms().can_fuse(r1, wr));   // different slot groups
  EXPECT_FALSE(w.d->arms().can_fuse(wr, ld));   // singleton tp_smem_wr twice
  const std::optional<Proposal> p = w.d->arms().try_fuse({r1, r2, wr, ld});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->arm, Arm::kFuse);
  ASSERT_EQ(p->seats.size(), 2u);
  EXPECT_EQ(p->seats[0].t, p->seats[1].t);
}

TEST(Gates, TheFuseArmCountsItsRejects) {
  GraphBuilder b(blackwell_target());
  const OpId r1 = b.op("r1", "smem_read"), r2 = b.op("r2", "smem_read");
  std::vector<OpId> held;
  for (int k = 0; k < 4; ++k) held.push_back(b.op("f" + std::to_string(k), "smem_read"));
  WorkedAtII w(16, Build(b));
  for (OpId f : held) w.p->place(f, 0);  // tp_smem_rd: 4 of 5 over [0, 7)
  const std::optional<Proposal> p = w.d->arms().try_fuse({r1, r2});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->seats[0].t, 7);
  // r1 fits at 0..6 but r2 after it does not: seven G3 rejects.
  EXPECT_EQ(w.stats.gate_rejects[static_cast<int>(Gate::kG3Rrt)], 7);
}

TEST(Gates, TheForcedPlacementCountsItsRejects) {
  OpId x, y;
  WorkedAtII w(8, LoadThenShallowAlu(x, y));
  w.p->place(x, 0);
  EXPECT_FALSE(w.d->force_place(y));  // y cannot start before 20: stage 2
  EXPECT_EQ(w.stats.gate_rejects[static_cast<int>(Gate::kG2MaxDepth)], 1);
  // The failure line names the op and why it has no seat.
  ASSERT_FALSE(w.d->failure().empty());
  const std::string& line = w.d->failure().back();
  EXPECT_EQ(line.rfind("II 8: op '", 0), 0u) << line;
  EXPECT_NE(line.find("cannot hold after its placed predecessors"), std::string::npos) << line;
}

TEST(Target, BlackwellCarriesTheBankModel) {
  const Target& t = blackwell_target();
  ASSERT_TRUE(t.bank_model);
  EXPECT_TRUE(t.bank_model->holds(t, {1, 4, 1}));    // TMEM bank 0
  EXPECT_TRUE(t.bank_model->holds(t, {15, 7, 1}));   // pooled SMEM read transport
  EXPECT_FALSE(t.bank_model->holds(t, {11, 8, 1}));  // tensor-core issue
  EXPECT_EQ(t.pools[t.bank_model->in_iteration_pool].capacity, 4);
  EXPECT_EQ(t.pools[t.bank_model->cross_iteration_pool].capacity, 3);
  EXPECT_FALSE(make_generic_target("g", {{"s", 1, false}}, {}).bank_model);
}

TEST(Arms, RetryRevivesTheFirstDeadOpThatFits) {
  WorkedAtII w(15, Example("seed_worked_example.loop.json"));
  w.p->mark_dead(1);
  w.p->mark_dead(2);
  const std::optional<Proposal> p = w.d->arms().try_retry({1, 2});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->seats[0].op, 1);
  EXPECT_FALSE(w.p->dead(1));
  EXPECT_TRUE(w.p->dead(2));  // one revival per call
}

TEST(Arms, CostBasedArmTakesTheGlobalMinimum) {
  WorkedAtII w(15, Example("seed_worked_example.loop.json"));
  w.p->place(0, 0);
  // write: seats 8..14 on tp_smem_wr, read: 8.. (pipe slack 0 at 8).
  const std::optional<Proposal> p = w.d->arms().try_cost_based({1, 2, 3});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->arm, Arm::kCostBased);
  const CostVector best = p->cost;
  for (OpId v : {1, 2, 3}) {
    for (int64_t t = w.p->window(v).lo; t < w.p->window(v).lo + 15; ++t) {
      const CostVector c = evaluate_seat(*w.p, *w.ctx, v, t);
      if (c.feasible()) {
        EXPECT_LE(best, c) << v << "@" << t;
      }
    }
  }
}

// The cost-based arm stops looking once it holds an all-zero cost (and at
// an op's first seat after a placed predecessor); its proposal must still
// be the least seat over every ready op and every cycle of its window
// within one II, the first in (op, cycle) order among equals.
TEST(Arms, CostBasedArmAgreesWithEverySeat) {
  int compared = 0, zero = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Graph g = RandomLoop(seed, 12);
    WorkedAtII w(compute_mii(g).max() + static_cast<int64_t>(seed % 3), g);
    for (OpId v = 0; v < static_cast<OpId>(seed % 5); ++v) {
      const SeatSearch s = w.d->gates().earliest_seat(v);
      if (s.outcome == SeatOutcome::kSeat) w.p->place(v, s.t);
    }
    std::vector<OpId> ready;
    for (OpId v = g.op_count() - 1; v >= 0 && ready.size() < 5; --v) {
      if (!w.p->placed(v)) ready.push_back(v);
    }
    const std::optional<Proposal> p = w.d->arms().try_cost_based(ready);
    std::optional<CostVector> best;
    Seat at{};
    for (OpId v : ready) {  // the surcharges the arm added stay: read after it
      const Window win = w.p->window(v);
      for (int64_t t = win.lo; t <= std::min(win.hi, win.lo + w.p->ii() - 1); ++t) {
        const CostVector c = evaluate_seat(*w.p, *w.ctx, v, t);
        if (c.feasible() && (!best || c < *best)) best = c, at = {v, t};
      }
    }
    ASSERT_EQ(p.has_value(), best.has_value()) << g.name;
    if (!p) continue;
    ++compared;
    zero += *best == CostVector{} ? 1 : 0;
    EXPECT_EQ(p->cost, *best) << g.name;
    EXPECT_EQ(p->seats[0].op, at.op) << g.name;
    EXPECT_EQ(p->seats[0].t, at.t) << g.name;
  }
  EXPECT_GT(compared, 30);
  EXPECT_GT(zero, 0);  // the early stop ran
  // An op with no placed predecessor whose first seats invert program
  // order: its least seat is a later one.
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 4; ++i) b.generic("n" + std::to_string(i), 1);
  WorkedAtII w(20, Build(b));
  w.p->place(0, 5);
  w.p->place(1, 6);
  const std::optional<Proposal> p = w.d->arms().try_cost_based({2, 3});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cost, CostVector{});
  EXPECT_EQ(p->seats[0].op, 2);
  EXPECT_EQ(p->seats[0].t, 6);
}

TEST(Arms, PermuteExploresEveryOrderOfASmallReadySet) {
  WorkedAtII w(15, Example("seed_worked_example.loop.json"));
  // Priority order mma, write, load: seating the load last costs structural
  // inversions that another order avoids.
  const std::vector<OpId> ready = {2, 1, 0};
  const std::optional<Proposal> p = w.d->arms().try_permute(ready, /*whole_set=*/true);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->seats.size(), 3u);
  for (const Seat& s : p->seats) EXPECT_FALSE(w.p->placed(s.op));  // proposals only
  // 3! = 6 orders (within the budget of 24): seat each greedily by hand; the
  // proposal is the cheapest, first in enumeration order among equals.
  std::vector<int> index = {0, 1, 2};
  std::vector<OpId> order = ready;
  std::optional<CostVector> best;
  std::vector<OpId> best_order;
  do {
    CostVector total;
    for (OpId v : order) {
      const SeatSearch seat = w.d->gates().earliest_seat(v);
      ASSERT_EQ(seat.outcome, SeatOutcome::kSeat);
      total += evaluate_seat(*w.p, *w.ctx, v, seat.t);
      w.p->place(v, seat.t);
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) w.p->unplace(*it);
    if (!best || total < *best) {
      best = total;
      best_order = order;
    }
    if (!std::next_permutation(index.begin(), index.end())) break;
    for (size_t i = 0; i < index.size(); ++i) order[i] = ready[index[i]];
  } while (true);
  EXPECT_NE(best_order, ready);  // the priority order alone is not the best
  EXPECT_EQ(p->cost, *best);
  ASSERT_EQ(p->seats.size(), best_order.size());
  for (size_t i = 0; i < best_order.size(); ++i) EXPECT_EQ(p->seats[i].op, best_order[i]);
}

// try_permute keeps the seats an order shares with the one before and
// skips every order past a failing prefix; each answer must be the one a
// from-scratch seating of every order gives.
TEST(Arms, PermuteAgreesWithEveryOrderSeatedFromScratch) {
  int compared = 0, failing_orders = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Graph g = RandomLoop(seed, 12);
    WorkedAtII w(compute_mii(g).max(), g);
    // Part of the table filled, in topological order, to make orders fail.
    const int filled = static_cast<int>(seed % 6);
    for (OpId v = 0; v < filled; ++v) {
      const SeatSearch s = w.d->gates().earliest_seat(v);
      if (s.outcome == SeatOutcome::kSeat) w.p->place(v, s.t);
    }
    std::vector<OpId> ready;
    for (OpId v = g.op_count() - 1; v >= 0 && ready.size() < 4; --v) {
      if (!w.p->placed(v)) ready.push_back(v);
    }
    std::vector<OpId> order = ready;
    std::vector<int> index(ready.size());
    std::iota(index.begin(), index.end(), 0);
    std::optional<CostVector> best;
    std::vector<Seat> best_seats;
    do {
      for (size_t i = 0; i < index.size(); ++i) order[i] = ready[index[i]];
      CostVector total;
      std::vector<Seat> seats;
      for (OpId v : order) {
        const SeatSearch seat = w.d->gates().earliest_seat(v);
        if (seat.outcome != SeatOutcome::kSeat) break;
        total += evaluate_seat(*w.p, *w.ctx, v, seat.t);
        w.p->place(v, seat.t);
        seats.push_back({v, seat.t});
      }
      for (auto it = seats.rbegin(); it != seats.rend(); ++it) w.p->unplace(it->op);
      if (seats.size() < order.size()) {
        ++failing_orders;
      } else if (!best || total < *best) {
        best = total;
        best_seats = seats;
      }
    } while (std::next_permutation(index.begin(), index.end()));
    const std::optional<Proposal> p = w.d->arms().try_permute(ready, /*whole_set=*/true);
    ASSERT_EQ(p.has_value(), best.has_value()) << g.name;
    if (!p) continue;
    ++compared;
    EXPECT_EQ(p->cost, *best) << g.name;
    ASSERT_EQ(p->seats.size(), best_seats.size()) << g.name;
    for (size_t i = 0; i < best_seats.size(); ++i) {
      EXPECT_EQ(p->seats[i].op, best_seats[i].op) << g.name;
      EXPECT_EQ(p->seats[i].t, best_seats[i].t) << g.name;
    }
    for (const Seat& s : p->seats) EXPECT_FALSE(w.p->placed(s.op));  // proposals only
  }
  EXPECT_GT(compared, 20);
  EXPECT_GT(failing_orders, 0);  // the skip past a failing prefix ran
}

}  // namespace
}  // namespace tilesched::cost_based
