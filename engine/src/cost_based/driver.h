// The placement driver at one II (seed 004 "Placement Arms"; seed 001
// "Placement Arms in Detail", "Admission Gates", "Strategy Orchestration"):
// a ready-set loop that asks the four arms for seats behind the four gates,
// and the rungs of the strategy ladder built from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backtrack.h"
#include "cost.h"
#include "placement.h"
#include "seat.h"
#include "tilesched/rng.h"

namespace tilesched::cost_based {


class Driver : public Gates {
 public:
  Driver(const Context& ctx, Placement& placement, CostBasedStats& stats);

  // Runs one rung of the ladder at the placement's II on an empty table,
  // its arms under `policy`. True when every op is placed.
  bool run(Rung rung, ArmPolicy policy);
  // The backtracking rung (backtrack.cc): a depth-first search that seats
  // next the unplaced op with the fewest gated seats (ties by the Rau
  // rung's priority), trying each seat within one II of its window, until
  // every op is placed or the budget (backtrack_budget_ratio seats per op)
  // is spent, then kRestarts shuffled tie-breaks. True when every op is
  // placed.
  bool backtrack() {
    const int64_t b = backtrack_budget(ctx_.opts.backtrack_budget_ratio, kRungWork);
    return backtrack({b, b, b}, kRestarts);
  }
  // REQUIRES: 0 <= b.proof <= b.seats. After a run in the priority order
  // that spends `b.seats`, `restarts` runs with seeded tie-break shuffles
  // share another half of it; the short runs before them spend `b.probe`
  // and `b.proof` (Backtracking::run).
  bool backtrack(const Backtracking::Budgets& b, int restarts);
  // The last backtracking run failed having tried every seat it allows
  // (not for want of budget).
  bool searched_all() const { return searched_all_; }
  int64_t backtrack_budget(int ratio, int64_t work) const {
    return Backtracking::budget(ctx_, ratio, work);
  }
  // The rung's work in the ladder: a 64-op graph's at 32 seats per op.
  static constexpr int64_t kRungWork = int64_t{32} * 64 * 64 * 64;
  // The descent's work at one II, its short and its long runs alike (2^24
  // for the long runs raised fa3_forward and fa4_forward at 256 ops:
  // results/records/2026-11-26-best-cost-fallback-3.md).
  static constexpr int64_t kDescentWork = int64_t{1} << 26;
  // Restarts with shuffled tie-breaks after a run in the priority order.
  static constexpr int kRestarts = 4;
  // A rung's steps between two looks at the options' deadline (a clock read).
  static constexpr int64_t kStepsPerDeadlinePoll = 64;
  // Restarts the permute arm's sampling stream for an II attempt, so an
  // attempt depends on (seed, II) only, not on which IIs were tried before
  // (the galloping search re-runs the II it settles on).
  void reseed(int64_t ii);

  // Why the last run gave up (seed 004 "Diagnostics"): empty on success.
  const std::vector<std::string>& failure() const { return failure_; }
  GiveUp give_up() const { return give_up_; }
  const Context& ctx() const { return ctx_; }

  // The one gate check (seed 001 "Admission Gates"; gates.cc): the four
  // gates in their fixed order for seating v in [from, end]. G1 (pending
  // set) and G2 (max depth, judged at `earliest`, v's earliest start) once,
  // then G3 (RRT veto: a busy row bumps the seat one cycle) and G4 (the
  // group's stage) cycle by cycle. Stops at the first seat all four pass or
  // at the first G1, G2 or G4 reject, whose recovery is the caller's.
  // Counts every reject in stats.gate_rejects.
  SeatSearch admit(OpId v, int64_t earliest, int64_t from, int64_t end) override;
  bool pending(OpId v) const override;  // G1's predicate
  // G1 alone, counted: the arms' candidate filters and the forced
  // placement's pick hold over the ops it rejects.
  bool held(OpId v);

  // Exposed for tests.
  // The earliest gated seat within one II of v's window (jumping to the
  // group's stage when G4 finds it later).
  SeatSearch earliest_seat(OpId v);
  SeatSearch earliest_seat(OpId v, const Window& w);  // w: v's window, read by the caller
  std::vector<OpId> ready_set(Rung rung) const;
  void ready_set(Rung rung, std::vector<OpId>& ready) const;  // into a reused buffer
  std::optional<Proposal> try_permute(const std::vector<OpId>& ready, bool whole_set);
  std::optional<Proposal> try_fuse(const std::vector<OpId>& ready);
  std::optional<Proposal> try_retry(const std::vector<OpId>& ready);
  std::optional<Proposal> try_cost_based(const std::vector<OpId>& ready);
  bool can_fuse(OpId a, OpId b) const;
  // Rau: seats v at its earliest cycle (or after the cycle it was last
  // forced into), evicting what conflicts. REQUIRES: G1 admits v.
  bool force_place(OpId v);

  // Buffers the arms reuse from step to step (no allocation per step).
  struct Scratch {
    std::vector<OpId> ready;
    std::vector<OpId> cands;
    std::vector<int> order;
    std::vector<Seat> seats;
    std::vector<CostVector> totals;
    std::vector<std::optional<Window>> windows;
  };

 private:
  bool step(Rung rung, ArmPolicy policy);
  // The cost-based arm's scan of v's seats from `first`: the cheapest
  // feasible one into `best`; false when v has none.
  bool cheapest_seat(OpId v, const Window& w, SeatSearch first, std::optional<Proposal>& best);
  // The forced placement's seat: the first gated cycle in one II from `t`.
  std::optional<int64_t> forced_seat(OpId v, const Window& w, int64_t t);
  bool evict_for(OpId v, int64_t t);  // the forced placement's evictions
  void commit(const Proposal& p);
  void explain_failure(OpId v, const std::string& why);

  const Context& ctx_;
  Placement& p_;
  CostBasedStats& stats_;
  SplitMix64 rng_;
  int64_t placements_ = 0;
  int64_t budget_ = 0;
  std::vector<std::string> failure_;
  GiveUp give_up_ = GiveUp::kNoSeat;
  bool searched_all_ = false;
  Backtracking backtracking_;
  Scratch scratch_;
};

}  // namespace tilesched::cost_based
