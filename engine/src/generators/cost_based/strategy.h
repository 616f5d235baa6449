// The strategy at one II (docs/COST_BASED.md "Strategy ladder",
// "Constraint refinement"; seeds 001, 003, 004): the rung loop (Driver),
// which asks the arms (seating.h) for seats under the arm policy and
// commits the best proposal; the strategy ladder (Ladder), which runs the
// rungs in order and ends with the serial fallback (SerialFallback); the
// constraint builder (Builder, builder.cc); and the refinement loop
// (Refinement), one II attempt around the ladder and the builder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/ii_driver.h"
#include "tilesched/schedule.h"
#include "backtracking.h"
#include "context.h"
#include "placement.h"
#include "seating.h"

namespace tilesched::cost_based {

// The placement driver at one II (docs/COST_BASED.md "Strategy ladder",
// "Arms"; seed 004 "Placement Arms", seed 001 "Strategy Orchestration"):
// a rung's ready-set loop, which asks the arms (Arms, seating.h) for
// seats behind the gates (GateCheck) under the arm policy and commits the
// best proposal, forcing a seat (ForcedPlacement) in the Rau rungs when no
// arm serves; and the backtracking rung (Backtracking, backtracking.h)
// over the same gates. The ladder (Ladder, below) runs the rungs in order.

class Driver {
 public:
  Driver(const Context& ctx, Placement& placement, CostBasedStats& stats);

  // Runs one rung of the ladder at the placement's II on an empty table,
  // its arms under `policy`. True when every op is placed.
  bool run(Rung rung, ArmPolicy policy);
  // The backtracking rung (backtracking.h): a depth-first search that seats
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

// The serial fallback (docs/COST_BASED.md "Strategy ladder", "The IMS
// start"): every place the generator falls back to the serial schedule
// (the frame's generate_serial) asks here. At an II at least the serial
// II its seats are legal (the serial schedule is, and its buffer counts do
// not grow with the II): the ladder's last rung seats them, and so does
// the refinement loop when only the SMEM budget (rule L4) fails (seat);
// where IMS finds no schedule, the generator's stand-in is the serial
// schedule itself (within). A schedule holding the serial seats carries
// the flag kFlag.
class SerialFallback {
 public:
  static constexpr std::string_view kFlag = "serial_fallback";

  explicit SerialFallback(const Schedule& serial) : serial_(serial) {}

  // The serial seats are legal at `ii`: the serial schedule is, and its II
  // is at most `ii`.
  bool serves(int64_t ii) const { return serial_.feasible && ii >= serial_.ii; }
  // Every op at its serial start at the placement's II, counted as the
  // rung kSerialFallback's attempt and success; false where they do not
  // serve at that II.
  bool seat(Placement& p, CostBasedStats& stats) const;
  // The serial schedule, flagged, when it serves at its own II and that II
  // lies in `range`; nullopt otherwise.
  std::optional<Schedule> within(const IiRange& range) const;
  // `s` holds the serial seats (it carries the flag).
  static bool holds(const Schedule& s);
  static void flag(Schedule& s) { s.flags.emplace_back(kFlag); }

 private:
  const Schedule& serial_;
};

// The strategy ladder (seed 001 "Strategy Orchestration"): the rungs run in
// a fixed order at the placement's II, each from an empty table, and the
// first that places every op wins. The last rung, at II >= the serial II,
// seats every op at its serial start (SerialFallback::seat).

class Ladder {
 public:
  Ladder(Placement& placement, Driver& driver, CostBasedStats& stats, const Schedule& serial,
         Notes& notes);

  // Runs the rungs; the rung that placed every op (Rung::kSerialFallback
  // for the serial seats), or nullopt with the driver's reasons noted.
  std::optional<Rung> run();
  // A soft goal's retry: only the rung that won the last run; false when
  // that was the serial seats (they do not move).
  bool rerun_winner();
  // The last rung: every op at its serial start, when the serial schedule
  // is legal and the II is at least its II (SerialFallback::seat). Also
  // the refinement loop's fallback when only the SMEM budget (rule L4)
  // fails.
  bool serial_rung();
  const SerialFallback& serial() const { return serial_; }
  // The refinement loop's last try when only the SMEM budget (rule L4)
  // fails and the depth family has nothing left: every builder constraint
  // lifted, the backtracking rung, which takes only placements that meet L4.
  bool storage_search();
  // The policy run() and rerun_winner() use (the options' by default): the
  // search's whole-attempt fallback runs an II again under first-success.
  void set_policy(ArmPolicy policy) { policy_ = policy; }
  ArmPolicy policy() const { return policy_; }

 private:
  // The seeds' rungs (Rau refinement through cost-based after the clear),
  // their arms under `policy`; true when one placed every op (winner_).
  bool seed_rungs(ArmPolicy policy);
  // A density or grouping constraint (the builder's up-front families) is in force.
  bool upfront_in_force() const;

  Placement& placement_;
  Driver& driver_;
  CostBasedStats& stats_;
  const SerialFallback serial_;
  Notes& notes_;
  std::optional<Rung> winner_;
  ArmPolicy policy_;
};

// The constraint builder (seed 003 "Constraint Builder"): soft constraints
// of four families, each with the rationale the refinement loop reports
// when it adds or lifts it. Density and grouping come up front at each II,
// from the graph; depth and register pressure after a placement, from what
// it got wrong. Constraints added together form a batch, lifted as one.

class Builder {
 public:
  Builder(const Context& ctx, Placement& placement, CostBasedStats& stats, Notes& notes);

  // Up front, at the II the placement was just reset to: the density and
  // grouping families; forgets what was lifted at the previous II.
  void start();

  // Depth, for rule L4: the producer whose buffer copies cost the most bytes
  // gets its consumers pulled one stage closer. None when no producer can.
  std::optional<BuilderConstraint> tighten_for_storage(const std::vector<int64_t>& start) const;

  struct Pressure {
    int64_t peak = 0;  // live registers in the fullest modulo row
    int64_t row = 0;
  };
  Pressure register_peak(const std::vector<int64_t>& start) const;
  // Register pressure: when the peak exceeds the budget, the value live in
  // the peak row held across the most stages (weighted by its registers)
  // gets its consumers pulled one stage closer. A soft goal.
  std::optional<BuilderConstraint> tighten_for_registers(const std::vector<int64_t>& start,
                                                         const Pressure& pressure) const;

  // Puts a batch in force (one family), noting its first rationale.
  void add_batch(std::vector<BuilderConstraint> batch);
  // Lifts the latest batch, noting why.
  void lift_batch(const char* why);

 private:
  void add_density_constraints();
  void add_grouping_constraints();
  bool already_lifted(OpId producer, int64_t max_span) const;
  // How many stages the furthest data consumer of v sits behind v.
  int64_t consumer_stage_span(OpId v, const std::vector<int64_t>& start) const;

  const Context& ctx_;
  Placement& placement_;
  CostBasedStats& stats_;
  Notes& notes_;
  int next_batch_ = 0;
  std::vector<BuilderConstraint> lifted_;  // stage spans lifted at this II
};

// The constraint refinement loop (seed 003 "Refinement Loop"): one II
// attempt. The builder's up-front constraints go in, then the strategy
// ladder runs; a placement that breaks the SMEM budget (rule L4) gets a
// depth constraint and another ladder, one that only misses the soft
// register goal is kept while a tighter one is tried, and a ladder that
// fails lifts the latest batch. At most max_constraint_iterations ladders.

inline constexpr uint8_t kConverged = 1;       // seed 003's status, bit 0
inline constexpr uint8_t kBudgetExceeded = 2;  // bit 1

class Refinement {
 public:
  Refinement(const Context& ctx, Placement& placement, Driver& driver, Ladder& ladder,
             Builder& builder, CostBasedStats& stats, Notes& notes);

  // One II attempt; true when the table holds a legal placement at `ii`.
  bool attempt(int64_t ii);
  // The descent below a found II (docs/COST_BASED.md "II search"): a fresh
  // table at `ii` and the backtracking rung alone, with no builder
  // constraint and `budget_ratio` seats per op. True when the table holds
  // a legal placement.
  bool descend(int64_t ii, int budget_ratio);
  bool descent_searched_all() const { return driver_.searched_all(); }

  uint8_t status() const { return status_; }  // the last attempt's
  bool truncated() const { return truncated_; }  // some attempt ran out of iterations
  bool serial_fallback() const { return serial_fallback_; }  // the seats are the serial ones
  // The last attempt's ladder placed every op at least once (what failed
  // was a builder constraint or rule L4, not the placement).
  bool ladder_placed() const { return ladder_placed_; }

 private:
  // What the loop knows at this II. A placement that meets every hard rule
  // but misses the soft register goal is kept (the one with the lowest
  // peak) while the builder tries a tighter one.
  struct State {
    std::optional<std::vector<int64_t>> legal;
    bool legal_by_fallback = false;  // `legal` is the serial seats
    int64_t legal_peak = 0;          // its live registers at peak
    bool seated_is_legal = false;    // the table holds `legal` (no reseat needed)
    bool soft = false;               // the latest constraint is the register goal's
    GiveUp last = GiveUp::kNoSeat;   // why the latest ladder gave up
  };
  enum class Next { kIterate, kSucceeded, kFailed };

  bool start(int64_t ii);
  Next after_placement(State& st, int64_t ii);
  Next after_storage_miss(State& st, const std::vector<int64_t>& start, int64_t ii);
  Next pursue_register_goal(State& st, const std::vector<int64_t>& start);
  Next after_failed_ladder(State& st);
  bool out_of_iterations(const State& st, int64_t ii);
  Next keep_legal(const State& st);
  bool storage_fallback(int64_t ii);

  const Context& ctx_;
  Placement& placement_;
  Driver& driver_;
  Ladder& ladder_;
  Builder& builder_;
  CostBasedStats& stats_;
  Notes& notes_;
  uint8_t status_ = 0;
  bool truncated_ = false;
  bool serial_fallback_ = false;
  bool ladder_placed_ = false;
};

}  // namespace tilesched::cost_based
