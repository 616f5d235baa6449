// The effort contract (docs/COST_BASED.md "Effort"): the work units the
// generator counts (every gate admission, every cycle the RRT veto scans,
// every seat taken: what its time goes to, counted, never timed) and the
// budgets an effort level puts on them, scaled to the graph's size. The
// meter is read where the rungs, the backtracking search and the II walk
// already look at the deadline, so a spent budget ends the phase there
// with the best it has.
#pragma once

#include <array>
#include <cstdint>

#include "tilesched/cost_based.h"
#include "tilesched/graph.h"

namespace tilesched::cost_based {

// The budgets of one run, in work units; 0: none.
struct EffortBudgets {
  int64_t attempt = 0;  // one II attempt of the upward walk
  int64_t walk = 0;     // the upward walk's attempts together
  int64_t descent = 0;  // the descent's attempts together
  int failed_attempts = 0;  // the walk's failing II attempts below its start
  // Below a starting schedule: the walk, and the bisection with the
  // descent, each spend at most max(below_floor, below_factor x the
  // start's work), so that searching below IMS costs a bounded multiple of
  // IMS (docs/COST_BASED.md "The IMS start"); 0: no such bound.
  int64_t below_factor = 0;
  int64_t below_floor = 0;
};

// kFull: none. Otherwise so many units per op or edge, a graph of fewer
// than 80 ops and edges counted as 80 (docs/COST_BASED.md "Effort").
EffortBudgets effort_budgets(Effort effort, const Graph& g);

class WorkMeter {
 public:
  // The graph's facts (built once, when first asked), the starting
  // schedule (IMS's search), the upward walk, the descent.
  enum Phase { kGraph, kStart, kSearch, kDescent, kPhaseCount };

  // Counts `units` to the current phase.
  void add(int64_t units) {
    total_ += units;
    spent_[phase_] += units;
  }
  // Counts `units` to `phase`, outside the current phase's budget.
  void add_to(Phase phase, int64_t units) {
    total_ += units;
    spent_[phase] += units;
  }
  // Enters `phase` under `limit` for the whole phase (0: none); the attempt
  // budget is off until start_attempt.
  void start_phase(Phase phase, int64_t limit) {
    phase_ = phase;
    phase_limit_ = limit;
    attempt_limit_ = 0;
  }
  // One attempt within the phase, under `limit` (0: none).
  void start_attempt(int64_t limit) {
    attempt_start_ = spent_[phase_];
    attempt_limit_ = limit;
  }
  bool attempt_out() const {
    return attempt_limit_ > 0 && spent_[phase_] - attempt_start_ > attempt_limit_;
  }
  bool phase_out() const { return phase_limit_ > 0 && spent_[phase_] > phase_limit_; }
  bool out() const { return attempt_out() || phase_out(); }
  int64_t spent(Phase p) const { return spent_[p]; }
  int64_t total() const { return total_; }

 private:
  std::array<int64_t, kPhaseCount> spent_{};
  int64_t total_ = 0;
  Phase phase_ = kSearch;
  int64_t phase_limit_ = 0;
  int64_t attempt_start_ = 0;
  int64_t attempt_limit_ = 0;
};

}  // namespace tilesched::cost_based
