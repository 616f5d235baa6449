// Seating one op (docs/COST_BASED.md "Gates", "Arms", "The cost vector";
// seeds 000, 001, 002, 004): the lexicographic cost vector and the
// evaluators that fill it, the admission gates G1-G4 every search seats
// through, the four placement arms that propose seats, and the forced
// placement of the Rau rungs. The rung loop (strategy.h) picks among the
// arms' proposals and commits one.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/rng.h"
#include "context.h"
#include "placement.h"

namespace tilesched::cost_based {

// The lexicographic cost vector and the evaluators that fill it (seed 000,
// "Cost Evaluators", "Worked Scoring Example"; seed 002, "Cost-Term
// Formula"; docs/CONTRACT.md for the closure). Components rank from
// hardest to softest and are never summed into one scalar.

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

// What the placement searches share: a seat, what the admission gates say
// about an op's candidate seats, and the gate check itself as the searches
// see it (GateCheck implements it, below).

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

// The admission gates G1-G4 (docs/COST_BASED.md "Gates"; seed 001
// "Admission Gates", "Gate Recovery Summary"): the one check every arm,
// the forced placement and the backtracking rung seat an op through, over
// one placement, counting every reject in the statistics.

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

// The four placement arms (docs/COST_BASED.md "Arms"; seed 004 "Placement
// Arms", seed 001 "Placement Arms in Detail"): given a rung's ready set,
// each proposes seats with their cost vector, seated through the gates;
// the rung loop (Driver, strategy.h) picks among the proposals and
// commits one.
// Arms only try seats: the placement is as they found it when they return
// (bar the dead marks the retry and cost-based arms keep).

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

// The forced placement (docs/COST_BASED.md "Strategy ladder", the Rau
// rungs; seed 001 "Strategy Orchestration", after Rau's iterative modulo
// scheduling): when no arm can serve a step of the Rau refinement or the
// deepest retry rung, an op is seated anyway at its earliest gated cycle
// (or after the cycle it was last forced into) and what conflicts with it
// is evicted.

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
