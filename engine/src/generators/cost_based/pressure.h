// The pressure evaluators' state during a placement attempt (seed 002):
// the dual bank table of the bank-pressure evaluator (in-iteration and
// total occupancy per modulo row) and the spill surcharges accumulated per
// seat. The register pressure is read off the seats (registers.h).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "context.h"

namespace tilesched::cost_based {

// seed 002: SPILL_SURCHARGE_CAP, the most surcharge one op accumulates
// (and the most one seat adds).
inline constexpr int64_t kSpillSurchargeCap = 4096;

class Pressure {
 public:
  explicit Pressure(const Context& ctx);

  // An empty bank table at `ii` (a new set of seats); surcharges stay.
  void reset_bank(int64_t ii);
  // Op v seated at t (sign +1) or unseated (-1): its bank cycles.
  void add_bank(OpId v, int64_t t, int64_t sign);
  // Bank occupancy at cycle c: ops in the same iteration window
  // (in-iteration, rrt0) and ops of every window (rrt1) in its row.
  int64_t bank_in_iteration(int64_t c) const;
  int64_t bank_total(int64_t row) const { return bank_total_[row]; }

  // Accumulated spill surcharge for seating v at t.
  int64_t surcharge(OpId v, int64_t t) const;
  void add_surcharge(OpId v, int64_t t, int64_t amount);  // capped per op
  void clear_surcharges();

 private:
  const Context& ctx_;
  int64_t ii_ = 1;
  std::vector<int64_t> bank_windows_;  // [window * ii + row], grown on demand
  std::vector<int64_t> bank_total_;    // per row
  std::vector<std::vector<std::pair<int64_t, int64_t>>> surcharges_;  // per op: (t, amount)
  std::vector<int64_t> surcharge_total_;
};

}  // namespace tilesched::cost_based
