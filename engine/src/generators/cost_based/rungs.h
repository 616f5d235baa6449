// The placement driver at one II (docs/COST_BASED.md "Strategy ladder",
// "Arms"; seed 004 "Placement Arms", seed 001 "Strategy Orchestration"):
// a rung's ready-set loop, which asks the arms (arms.h) for seats behind
// the gates (gates.h) under the arm policy and commits the best proposal,
// forcing a seat (forced_placement.h) in the Rau rungs when no arm serves;
// and the backtracking rung (backtrack.h) over the same gates. The ladder
// (ladder.h) runs the rungs in order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arms.h"
#include "backtrack.h"
#include "forced_placement.h"
#include "gates.h"
#include "placement.h"
#include "admission.h"

namespace tilesched::cost_based {

class Driver {
 public:
  Driver(const Context& ctx, Placement& placement, CostBasedStats& stats);

  // Runs one rung of the ladder at the placement's II on an empty table,
  // its arms under `policy`. True when every op is placed.
  bool run(Rung rung, ArmPolicy policy);
  // The backtracking rung (backtrack.h): a depth-first search that seats
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
  // Restarts the permute arm's sampling stream for an II attempt (Arms::reseed).
  void reseed(int64_t ii) { arms_.reseed(ii); }

  // Why the last run gave up (seed 004 "Diagnostics"): empty on success.
  const std::vector<std::string>& failure() const { return failure_; }
  GiveUp give_up() const { return give_up_; }
  const Context& ctx() const { return ctx_; }

  // The ready ops of a rung in its order (Rau refinement: height first;
  // deepest retry: depth first; the others topological).
  std::vector<OpId> ready_set(Rung rung) const;
  void ready_set(Rung rung, std::vector<OpId>& ready) const;  // into a reused buffer
  // Rau: seats v at its earliest cycle (or after the cycle it was last
  // forced into), evicting what conflicts (ForcedPlacement::place); a
  // failure line when it cannot. REQUIRES: G1 admits v.
  bool force_place(OpId v);

  // The units the rung loop drives (for tests and benchmarks).
  GateCheck& gates() { return gates_; }
  Arms& arms() { return arms_; }

 private:
  bool step(Rung rung, ArmPolicy policy);
  // The arms' proposals for a step under `policy` (the two cost-based
  // placement rungs ask the cost-based arm alone), each counted: the
  // cheapest, ties by arm order, or nullopt when no arm proposes.
  std::optional<Proposal> propose(Rung rung, ArmPolicy policy, const std::vector<OpId>& ready);
  void commit(const Proposal& p);
  void explain_failure(OpId v, const std::string& why);

  const Context& ctx_;
  Placement& p_;
  CostBasedStats& stats_;
  GateCheck gates_;
  Arms arms_;
  ForcedPlacement forced_;
  Backtracking backtracking_;
  int64_t placements_ = 0;
  int64_t budget_ = 0;
  std::vector<std::string> failure_;
  GiveUp give_up_ = GiveUp::kNoSeat;
  bool searched_all_ = false;
  std::vector<OpId> ready_;  // the step's ready set, reused (no allocation per step)
};

}  // namespace tilesched::cost_based
