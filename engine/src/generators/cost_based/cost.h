// The lexicographic cost vector and the evaluators that fill it (seed 000,
// "Cost Evaluators", "Worked Scoring Example"; seed 002, "Cost-Term
// Formula"; docs/CONTRACT.md for the closure). Components rank from
// hardest to softest and are never summed into one scalar.
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

#include "placement.h"

namespace tilesched::cost_based {

inline constexpr int64_t kInfiniteCost = INT64_MAX / 4;

struct CostVector {
  int64_t resource = 0;    // 1: RRT row test and pool caps; 0 or infinite
  int64_t pipe_slot = 0;   // 2: slack of the seat beyond the distance matrix
  int64_t spill = 0;       // 3: accumulated spill surcharge at this seat
  int64_t bank = 0;        // 4: in-iteration + cross-iteration bank occupants
  int64_t structural = 0;  // 5: Kendall-tau inversions against program order

  static CostVector infinite() { return {kInfiniteCost, 0, 0, 0, 0}; }
  bool feasible() const { return resource < kInfiniteCost && pipe_slot < kInfiniteCost &&
                                 bank < kInfiniteCost; }
  // Component-wise, saturating: the cost of several seats together.
  CostVector& operator+=(const CostVector& o);
  friend auto operator<=>(const CostVector&, const CostVector&) = default;
};

// What the pipe-slot evaluator needs of the placed predecessors of v, read
// once per op: the earliest legal seat and the earliest predecessor bound.
struct PipeSlotBasis {
  bool has_pred = false;
  int64_t latest_bound = 0;    // max over placed p with a path of s_p + D[p][v]
  int64_t earliest_bound = 0;  // min over the same
  static PipeSlotBasis of(const Placement& p, OpId v);
  static PipeSlotBasis of(const Placement& p, OpId v, const Window& w);  // w = p.window(v)
};

// Pipe-slot evaluator (seed 000, sub_98E6C0): the RRT probe, then every
// placed predecessor p must satisfy t - s_p >= D[p][v] (else infinite);
// the cost is the smallest cap with every slack t - s_p - D[p][v] <= cap,
// found by the exponential-then-binary driver (sub_988080). The slacks'
// maximum is t - earliest_bound, so the probe "every slack <= cap" is
// monotone in cap and the driver's answer is that maximum: it is returned
// without running the driver (the test PipeSlot.DriverAnswerIsTheWidestSlack
// checks the two agree).
int64_t pipe_slot_cost(const Placement& p, const PipeSlotBasis& basis, OpId v, int64_t t);
int64_t pipe_slot_cost(const Placement& p, OpId v, int64_t t);

// Bank-pressure evaluator (seed 000, sub_98C440) on the dual table: the
// in-iteration and cross-iteration occupants of v's bank rows; hard caps
// (TMEM 4, named barriers 3 on Blackwell), then the smallest combined
// budget the driver finds (the occupants' sum, returned directly as in
// pipe_slot_cost). Infinite past a hard cap.
int64_t bank_pressure_cost(const Placement& p, const Context& ctx, OpId v, int64_t t);

// Register pressure at seat t: the live registers in t's modulo row plus v's.
int64_t register_pressure_at(const Placement& p, const Context& ctx, OpId v, int64_t t);

// seed 002: min((pressure - budget) * 17, kSpillSurchargeCap), 0 within budget.
int64_t spill_surcharge(int64_t pressure, int64_t budget);

// seed 002, tryAddConstraintToAvoidRegSpilling: when seating v at its
// earliest cycle would spill, adds a surcharge on (v, earliest). Returns
// the amount added.
int64_t try_add_constraint_to_avoid_reg_spilling(Placement& p, const Context& ctx, OpId v,
                                                 int64_t earliest);

// Inversions against program order if v starts at t among the placed ops:
// placed u < v starting after t, and placed u > v starting before t.
int64_t structural_distance(const Placement& p, OpId v, int64_t t);

// The same for many t: the placed starts split by program order, sorted.
class StructuralIndex {
 public:
  StructuralIndex(const Placement& p, OpId v);
  int64_t at(int64_t t) const;

 private:
  std::vector<int64_t> before_;  // starts of placed u < v
  std::vector<int64_t> after_;   // starts of placed u > v
};

// Kendall-tau distance of a sequence of distinct ids against ascending
// order (the number of inverted pairs), O(n log n).
int64_t kendall_tau_inversions(const std::vector<int>& sequence);

// The full vector for seating v at t.
CostVector evaluate_seat(const Placement& p, const Context& ctx, OpId v, int64_t t);
// The same with v's window as the caller read it (Placement::window).
CostVector evaluate_seat(const Placement& p, const Context& ctx, OpId v, int64_t t,
                         const Window& w);
// Components 1-4 with the pipe-slot basis read once (the cost-based arm's
// loop fills component 5 itself).
CostVector evaluate_seat(const Placement& p, const Context& ctx, OpId v, int64_t t,
                         const PipeSlotBasis& basis);

}  // namespace tilesched::cost_based
