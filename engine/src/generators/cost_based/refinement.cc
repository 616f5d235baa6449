// The constraint refinement loop (see refinement.h).
#include "refinement.h"

#include <algorithm>
#include <string>

#include "graph/storage.h"

namespace tilesched::cost_based {

Refinement::Refinement(const Context& ctx, Placement& placement, Driver& driver, Ladder& ladder,
                       Builder& builder, CostBasedStats& stats, Notes& notes)
    : ctx_(ctx),
      placement_(placement),
      driver_(driver),
      ladder_(ladder),
      builder_(builder),
      stats_(stats),
      notes_(notes) {}

bool Refinement::attempt(int64_t ii) {
  if (!start(ii)) return false;
  State st;
  for (int iter = 0; iter < ctx_.opts.max_constraint_iterations; ++iter) {
    if (deadline_passed(ctx_.deadline)) return false;
    // The effort's budget is spent: the best placement so far stands.
    if (ctx_.out_of_work()) return st.legal && keep_legal(st) == Next::kSucceeded;
    ++stats_.refinement_iterations;
    st.seated_is_legal = false;
    bool placed = false;
    if (st.soft) {
      placed = ladder_.rerun_winner();
    } else if (const std::optional<Rung> winner = ladder_.run()) {
      placed = true;
      if (*winner == Rung::kSerialFallback) serial_fallback_ = true;
    }
    ladder_placed_ = ladder_placed_ || placed;
    const Next next = placed ? after_placement(st, ii) : after_failed_ladder(st);
    if (next != Next::kIterate) return next == Next::kSucceeded;
  }
  return out_of_iterations(st, ii);
}

bool Refinement::descend(int64_t ii, int budget_ratio) {
  const uint8_t found_status = status_;  // the published placement's
  if (!start(ii)) {
    status_ = found_status;
    return false;
  }
  placement_.constraints().clear();
  // The short and the long runs get the descent's budget; amid the short
  // runs a run in the priority order
  // with the rung's budget, which ends the try where the search's rung
  // tried every seat at this II, before the descent's share of shuffles.
  Backtracking::Budgets b;
  b.probe = driver_.backtrack_budget(budget_ratio, Driver::kDescentWork);
  b.seats = b.probe;
  const int64_t rung =
      driver_.backtrack_budget(ctx_.opts.backtrack_budget_ratio, Driver::kRungWork);
  b.proof = rung > 0 ? std::min(rung, b.seats) : b.seats;
  if (!driver_.backtrack(b, Driver::kRestarts)) {
    if (!driver_.failure().empty()) notes_.add(driver_.failure().back());  // the rung's own line
    status_ = found_status;
    return false;
  }
  status_ = kConverged;
  return true;
}

// A fresh table and closure at `ii`, the intermediate state and the builder
// constraints of the last II gone, the builder's up-front families in.
bool Refinement::start(int64_t ii) {
  ++stats_.ii_tried;
  if (!placement_.reset(ii)) {
    ++stats_.give_ups[static_cast<int>(GiveUp::kPositiveCycle)];
    notes_.add("II " + std::to_string(ii) + ": a dependence cycle needs a larger II");
    return false;
  }
  placement_.clear_intermediate();
  placement_.constraints().clear();
  driver_.reseed(ii);
  serial_fallback_ = false;
  ladder_placed_ = false;
  status_ = 0;
  builder_.start();
  return true;
}

Refinement::Next Refinement::after_placement(State& st, int64_t ii) {
  const std::vector<int64_t> start = placement_.starts();
  if (ctx_.max_storage > 0 &&
      storage_bytes_needed(ctx_.g, ctx_.adj, start, ii, ctx_.max_storage) > ctx_.max_storage) {
    return after_storage_miss(st, start, ii);
  }
  return pursue_register_goal(st, start);
}

// Rule L4 fails: a depth constraint, or the legal placement kept, or the
// serial seats, or the II is given up.
Refinement::Next Refinement::after_storage_miss(State& st, const std::vector<int64_t>& start,
                                                int64_t ii) {
  std::optional<BuilderConstraint> limit = builder_.tighten_for_storage(start);
  if (!limit) {
    if (st.legal) return keep_legal(st);
    // The depth family has nothing left to try: search for a placement
    // that meets L4 itself, with every builder constraint lifted.
    if (ladder_.storage_search()) return after_placement(st, ii);
    if (storage_fallback(ii)) return Next::kSucceeded;
    ++stats_.give_ups[static_cast<int>(GiveUp::kStorage)];
    notes_.add("II " + std::to_string(ii) + ": the SMEM budget (L4) does not hold and no "
               "consumer can move closer to its buffer");
    return Next::kFailed;
  }
  builder_.add_batch({std::move(*limit)});
  st.last = GiveUp::kStorage;
  st.soft = false;
  return Next::kIterate;
}

// Keep the legal placement with the fewest live registers at peak; a
// tighter span that did not lower the peak ends the soft search.
Refinement::Next Refinement::pursue_register_goal(State& st, const std::vector<int64_t>& start) {
  const Builder::Pressure pressure = builder_.register_peak(start);
  if (st.soft && st.legal && pressure.peak >= st.legal_peak) return keep_legal(st);
  if (!st.legal || pressure.peak < st.legal_peak) {
    st.legal = start;
    st.legal_peak = pressure.peak;
    st.legal_by_fallback = serial_fallback_;
    st.seated_is_legal = true;
  }
  std::optional<BuilderConstraint> regs = builder_.tighten_for_registers(start, pressure);
  if (!regs) return keep_legal(st);
  builder_.add_batch({std::move(*regs)});
  st.soft = true;
  return Next::kIterate;
}

Refinement::Next Refinement::after_failed_ladder(State& st) {
  if (st.legal) {  // the last soft constraint cost the placement: keep the one before
    builder_.lift_batch("no placement with it; the previous placement stands");
    return keep_legal(st);
  }
  if (placement_.constraints().empty()) {
    ++stats_.give_ups[static_cast<int>(driver_.give_up())];
    return Next::kFailed;
  }
  st.last = driver_.give_up();
  builder_.lift_batch("no placement with it");
  return Next::kIterate;
}

bool Refinement::out_of_iterations(const State& st, int64_t ii) {
  status_ = kBudgetExceeded;
  truncated_ = true;
  notes_.add("II " + std::to_string(ii) + ": constraint refinement stopped after " +
             std::to_string(ctx_.opts.max_constraint_iterations) + " iterations");
  if (st.legal) return keep_legal(st) == Next::kSucceeded;
  if (st.last == GiveUp::kStorage && ladder_.storage_search()) return true;  // meets L4
  if (storage_fallback(ii)) return true;
  ++stats_.give_ups[static_cast<int>(st.last)];
  return false;
}

Refinement::Next Refinement::keep_legal(const State& st) {
  const bool ok = st.seated_is_legal || placement_.seat_all(*st.legal);
  serial_fallback_ = st.legal_by_fallback;
  if (status_ == 0) status_ = kConverged;
  return ok ? Next::kSucceeded : Next::kFailed;
}

// The ladder's last rung, for L4: every op was placed but the SMEM budget
// fails and refinement has nothing left to try. At II >= the serial II the
// serial seats meet L4 (the serial schedule is legal, and its buffer counts
// do not grow with II), so the result stays no worse than serial. Without
// this, the serial rung was only reached when no rung could place at all,
// and cost-based came back infeasible on graphs whose serial schedule is
// legal (found by fuzz_differential;
// fuzz/regressions/fuzz_differential/l4-fails-serial-fallback-skipped).
bool Refinement::storage_fallback(int64_t ii) {
  if (!ladder_.serial_rung()) return false;
  serial_fallback_ = true;
  if (status_ == 0) status_ = kConverged;
  notes_.add("II " + std::to_string(ii) + ": the SMEM budget (L4) does not hold for the "
             "ladder's placement; the serial seats do");
  return true;
}

}  // namespace tilesched::cost_based
