// The four placement arms (docs/COST_BASED.md "Arms"; seed 004 "Placement
// Arms", seed 001 "Placement Arms in Detail"): given a rung's ready set,
// each proposes seats with their cost vector, seated through the gates;
// the rung loop (rungs.h) picks among the proposals and commits one.
// Arms only try seats: the placement is as they found it when they return
// (bar the dead marks the retry and cost-based arms keep).
#pragma once

#include <optional>
#include <vector>

#include "cost.h"
#include "gates.h"
#include "placement.h"
#include "admission.h"
#include "tilesched/rng.h"

namespace tilesched::cost_based {

class Arms {
 public:
  Arms(const Context& ctx, Placement& placement, GateCheck& gates, CostBasedStats& stats);

  // Restarts the permute arm's sampling stream for an II attempt, so an
  // attempt depends on (seed, II) only, not on which IIs were tried before
  // (the galloping search re-runs the II it settles on).
  void reseed(int64_t ii);

  // Permute: orders of the live, unheld ready ops (`whole_set`: all of
  // them, proposed together; else the first 8, proposing the first seat of
  // the best order), each seated greedily at earliest gated seats; the
  // lowest total cost wins.
  std::optional<Proposal> try_permute(const std::vector<OpId>& ready, bool whole_set);
  // Fuse: a pair of the first 16 candidates that can_fuse, seated at one cycle.
  std::optional<Proposal> try_fuse(const std::vector<OpId>& ready);
  // Retry: the first dead ready op that now has a gated seat, revived.
  std::optional<Proposal> try_retry(const std::vector<OpId>& ready);
  // Cost-based: the cheapest feasible seat of any live ready op within one
  // II of its window; an op with none is marked dead.
  std::optional<Proposal> try_cost_based(const std::vector<OpId>& ready);
  // a and b share their slot group and leader group, fit together within
  // every slot's and pool's capacity, and have no dependence either way.
  bool can_fuse(OpId a, OpId b) const;

  // Buffers the arms reuse from step to step (no allocation per step).
  struct Scratch {
    std::vector<OpId> cands;
    std::vector<int> order;
    std::vector<Seat> seats;
    std::vector<CostVector> totals;
    std::vector<std::optional<Window>> windows;
  };

 private:
  // The cost-based arm's scan of v's seats from `first`: the cheapest
  // feasible one into `best`; false when v has none.
  bool cheapest_seat(OpId v, const Window& w, SeatSearch first, std::optional<Proposal>& best);
  // The live ready ops G1 does not hold (each asked, in order, until
  // `stop` are found) into scratch_.cands.
  std::vector<OpId>& candidates(const std::vector<OpId>& ready, size_t stop);

  const Context& ctx_;
  Placement& p_;
  GateCheck& gates_;
  CostBasedStats& stats_;
  SplitMix64 rng_;
  Scratch scratch_;
};

}  // namespace tilesched::cost_based
