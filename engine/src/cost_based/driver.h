// The placement driver at one II (seed 004 "Placement Arms"; seed 001
// "Placement Arms in Detail", "Admission Gates", "Strategy Orchestration"):
// a ready-set loop that asks the four arms for seats behind the four gates,
// and the rungs of the strategy ladder built from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost.h"
#include "placement.h"
#include "tilesched/rng.h"

namespace tilesched::cost_based {

struct Seat {
  OpId op = 0;
  int64_t t = 0;
};

struct Proposal {
  Arm arm = Arm::kPermute;
  std::vector<Seat> seats;
  CostVector cost;
};

// How the earliest-seat search ended for one op.
enum class SeatOutcome { kSeat, kPending, kDead, kNoCycle, kGroupLater };

struct SeatSearch {
  SeatOutcome outcome = SeatOutcome::kNoCycle;
  int64_t t = 0;
};

class Driver {
 public:
  Driver(const Context& ctx, Placement& placement, CostBasedStats& stats);

  // Runs one rung of the ladder at the placement's II on an empty table.
  // True when every op is placed.
  bool run(Rung rung);
  // Restarts the permute arm's sampling stream for an II attempt, so an
  // attempt depends on (seed, II) only, not on which IIs were tried before
  // (the galloping search re-runs the II it settles on).
  void reseed(int64_t ii);

  // Why the last run gave up (seed 004 "Diagnostics"): empty on success.
  const std::vector<std::string>& failure() const { return failure_; }
  GiveUp give_up() const { return give_up_; }

  // Exposed for tests.
  SeatSearch earliest_seat(OpId v);
  std::vector<OpId> ready_set(Rung rung) const;
  std::optional<Proposal> try_permute(const std::vector<OpId>& ready, bool whole_set);
  std::optional<Proposal> try_fuse(const std::vector<OpId>& ready);
  std::optional<Proposal> try_retry(const std::vector<OpId>& ready);
  std::optional<Proposal> try_cost_based(const std::vector<OpId>& ready);
  bool can_fuse(OpId a, OpId b) const;
  // Rau: seats v at its earliest cycle (or after the cycle it was last
  // forced into), evicting what conflicts.
  bool force_place(OpId v);

 private:
  bool step(Rung rung);
  bool pending(OpId v) const;  // G1
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
};

}  // namespace tilesched::cost_based
