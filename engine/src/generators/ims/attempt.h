// One II of Rau's iterative modulo scheduling (MICRO 1994, IJPP 1996,
// "IterativeSchedule"): ops in HeightR order, each at the first free row
// of [Estart, Estart + II - 1], or forced in and the ops it conflicts with
// (resources, dependences, its group's stage) evicted, until every op is
// placed or the placement budget is spent. docs/BASELINES.md.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "bounds/rrt.h"
#include "problem.h"

namespace tilesched::ims {

enum class Outcome {
  kPlaced,           // every op placed; L1-L3, L5, L6 hold
  kPositiveCycle,    // HeightR has no fixpoint: II < RecMII
  kNoSeat,           // an op fits nowhere at this II, even in an empty table
  kBudgetExhausted,  // the placement steps ran out first
};

struct AttemptResult {
  Outcome outcome = Outcome::kPlaced;
  std::string why;         // one line for the diagnostics; empty when placed
  int64_t steps = 0;       // placement steps taken
  int64_t evictions = 0;   // ops unplaced to make room
  // The attempt's table probes (each start a window scan tries, each
  // probe of the eviction loop), its height passes' op and edge visits
  // and its placement steps: what its time goes to, counted.
  int64_t work = 0;
};

class Attempt {
 public:
  explicit Attempt(const Problem& p);

  // Schedules every op at `ii` within `budget` placement steps.
  // REQUIRES: 1 <= ii <= ModuloRrt::kMaxRrtII, budget >= 1.
  AttemptResult run(int64_t ii, int64_t budget);
  // The starts of a kPlaced run, shifted down by whole IIs so some op is
  // in stage 0.
  const std::vector<int64_t>& starts() const { return start_; }

 private:
  // The steps of run(), in order.
  bool compute_heights();                 // HeightR; false on a positive cycle
  void rank_by_priority();                // HeightR descending, then program index
  std::optional<std::string> misfit();    // an op that fits no empty table
  int64_t early_start(OpId v) const;      // Estart from the placed predecessors
  int64_t find_slot(OpId v) const;        // Rau's FindTimeSlot, with L5 and L6
  bool place(OpId v, int64_t t);          // evicts conflicts, then seats v
  void shift_to_stage_zero();

  // The placed op that holds the resource `why` names in its row; among
  // several, the one of lowest priority.
  std::optional<OpId> claimant(const RrtConflict& why) const;
  bool holds_row(OpId u, int64_t held, int64_t row) const;  // u's hold covers row
  void seat(OpId v, int64_t t);
  void unseat(OpId u);

  const Problem& p_;
  ModuloRrt rrt_;
  int64_t ii_ = 0;
  int64_t evictions_ = 0;
  mutable int64_t work_ = 0;  // AttemptResult::work so far
  std::vector<int64_t> height_;
  std::vector<int> rank_;                  // priority position per op, 0 first
  std::vector<OpId> by_rank_;
  std::vector<int64_t> start_;
  std::vector<char> placed_;
  std::vector<int64_t> last_start_;        // kNever, or where v was last placed
  std::vector<int> group_placed_;          // placed members per group
  std::vector<int64_t> group_stage_;       // their shared stage
  std::priority_queue<int, std::vector<int>, std::greater<>> unplaced_;  // by rank
};

}  // namespace tilesched::ims
