// The admission gates G1-G4 (docs/COST_BASED.md "Gates"; seed 001
// "Admission Gates", "Gate Recovery Summary"): the one check every arm,
// the forced placement and the backtracking rung seat an op through, over
// one placement, counting every reject in the statistics.
#pragma once

#include <cstdint>

#include "context.h"
#include "placement.h"
#include "admission.h"

namespace tilesched::cost_based {

class GateCheck final : public Gates {
 public:
  GateCheck(const Context& ctx, const Placement& placement, CostBasedStats& stats)
      : ctx_(ctx), p_(placement), stats_(stats) {}

  // The four gates in their fixed order for seating v in [from, end]. G1
  // (pending set) and G2 (max depth, judged at `earliest`, v's earliest
  // start) once, then G3 (RRT veto: a busy row bumps the seat one cycle)
  // and G4 (the group's stage) cycle by cycle. Stops at the first seat all
  // four pass or at the first G1, G2 or G4 reject, whose recovery is the
  // caller's. Counts every reject in stats.gate_rejects.
  SeatSearch admit(OpId v, int64_t earliest, int64_t from, int64_t end) override;
  bool pending(OpId v) const override;  // G1's predicate
  // G1 alone, counted: the arms' candidate filters and the forced
  // placement's pick hold over the ops it rejects.
  bool held(OpId v);
  // The earliest gated seat within one II of v's window (jumping to the
  // group's stage when G4 finds it later): the permute and retry arms'.
  SeatSearch earliest_seat(OpId v);
  SeatSearch earliest_seat(OpId v, const Window& w);  // w: v's window, read by the caller

 private:
  const Context& ctx_;
  const Placement& p_;
  CostBasedStats& stats_;
};

}  // namespace tilesched::cost_based
