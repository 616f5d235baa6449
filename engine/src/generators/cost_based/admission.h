// What the placement searches share: a seat, what the admission gates say
// about an op's candidate seats, and the gate check itself as the searches
// see it (GateCheck implements it, gates.h).
#pragma once

#include <cstdint>
#include <vector>

#include "context.h"
#include "cost.h"

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

// What the admission gates said about an op's candidate seats.
enum class SeatOutcome {
  kSeat,        // all four gates pass at t
  kPending,     // G1: the op's group anchor is unplaced; hold the op over
  kDead,        // G2: max_depth cannot hold from the op's earliest start
  kNoCycle,     // G3 (or an empty range): no free row in the range
  kGroupAhead,  // G4: the group sits in a later stage than t's
  kGroupLater,  // G4: the group sits in an earlier stage than t's
};

struct SeatSearch {
  SeatOutcome outcome = SeatOutcome::kNoCycle;
  int64_t t = 0;
};

// The gate check every search seats through (seed 001 "Admission Gates").
class Gates {
 public:
  virtual ~Gates() = default;
  // The four gates in their fixed order for seating v in [from, end]
  // (GateCheck::admit); counts every reject.
  virtual SeatSearch admit(OpId v, int64_t earliest, int64_t from, int64_t end) = 0;
  // G1's predicate: v waits for its leader group's anchor.
  virtual bool pending(OpId v) const = 0;
};

}  // namespace tilesched::cost_based
