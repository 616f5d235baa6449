// The forced placement (docs/COST_BASED.md "Strategy ladder", the Rau
// rungs; seed 001 "Strategy Orchestration", after Rau's iterative modulo
// scheduling): when no arm can serve a step of the Rau refinement or the
// deepest retry rung, an op is seated anyway at its earliest gated cycle
// (or after the cycle it was last forced into) and what conflicts with it
// is evicted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gates.h"
#include "placement.h"

namespace tilesched::cost_based {

class ForcedPlacement {
 public:
  ForcedPlacement(const Context& ctx, Placement& placement, GateCheck& gates,
                  CostBasedStats& stats)
      : ctx_(ctx), p_(placement), gates_(gates), stats_(stats) {}

  struct Result {
    bool placed = false;
    std::string why;  // when not placed: why v has no seat (for the failure line)
  };
  // Seats v, evicting what conflicts, and marks it live with its forced
  // start. REQUIRES: G1 admits v. When v cannot be seated, the placement is
  // as the evictions left it.
  Result place(OpId v);

 private:
  // The seat: the first gated cycle within one II from `t` (from v's last
  // allowed stage under a builder's stage bound); with no free row, the
  // range's first cycle, to evict at; nullopt when G2 rejects v.
  std::optional<int64_t> seat(OpId v, const Window& w, int64_t t);
  // Evicts what conflicts with v at t: dependences, singleton rows, group
  // stage and builder constraints, then sharers of pooled slots and pools
  // until v fits. False when v does not fit even alone.
  bool evict_for(OpId v, int64_t t);

  const Context& ctx_;
  Placement& p_;
  GateCheck& gates_;
  CostBasedStats& stats_;
};

}  // namespace tilesched::cost_based
