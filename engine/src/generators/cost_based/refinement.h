// The constraint refinement loop (seed 003 "Refinement Loop"): one II
// attempt. The builder's up-front constraints go in, then the strategy
// ladder runs; a placement that breaks the SMEM budget (rule L4) gets a
// depth constraint and another ladder, one that only misses the soft
// register goal is kept while a tighter one is tried, and a ladder that
// fails lifts the latest batch. At most max_constraint_iterations ladders.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "builder.h"
#include "ladder.h"

namespace tilesched::cost_based {

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
