// The strategy ladder (see ladder.h).
#include "ladder.h"

namespace tilesched::cost_based {

Ladder::Ladder(Placement& placement, Driver& driver, CostBasedStats& stats,
               const Schedule& serial, Notes& notes)
    : placement_(placement),
      driver_(driver),
      stats_(stats),
      serial_(serial),
      notes_(notes),
      policy_(driver.ctx().opts.arm_policy) {}

std::optional<Rung> Ladder::run() {
  const CostBasedOptions& opts = driver_.ctx().opts;
  if (seed_rungs(policy_)) return winner_;
  // The policy fallback: best-cost's rungs failed; first-success's run too,
  // so best-cost never gives up an II first-success would place.
  if (policy_ == ArmPolicy::kBestCost && opts.policy_fallback &&
      seed_rungs(ArmPolicy::kFirstSuccess)) {
    return winner_;
  }
  // The backtracking rung runs once the up-front families (density,
  // grouping) are lifted, so an II that cannot be met pays for it once, not
  // once per batch the refinement loop lifts.
  if (!upfront_in_force() && !driver_.ctx().out_of_work()) {
    placement_.clear_seats();
    if (driver_.backtrack()) return winner_ = Rung::kBacktrack;
  }
  if (serial_rung()) return winner_;
  for (const std::string& f : driver_.failure()) notes_.add(f);
  return std::nullopt;
}

bool Ladder::seed_rungs(ArmPolicy policy) {
  static constexpr Rung kFirst[] = {Rung::kRauRefinement, Rung::kDeepestRetry,
                                    Rung::kInitialPlacement, Rung::kCostBasedPlacement};
  static constexpr Rung kAfterClear[] = {Rung::kInitialAfterClear, Rung::kCostBasedAfterClear};
  for (Rung r : kFirst) {
    if (deadline_passed(driver_.ctx().deadline) || driver_.ctx().out_of_work()) return false;
    placement_.clear_seats();
    if (driver_.run(r, policy)) return (winner_ = r), true;
  }
  placement_.clear_intermediate();  // dead marks and surcharges; builder constraints stay
  for (Rung r : kAfterClear) {
    if (deadline_passed(driver_.ctx().deadline) || driver_.ctx().out_of_work()) return false;
    placement_.clear_seats();
    if (driver_.run(r, policy)) return (winner_ = r), true;
  }
  return false;
}

bool Ladder::storage_search() {
  placement_.constraints().clear();
  placement_.clear_seats();
  if (!driver_.backtrack()) return false;
  winner_ = Rung::kBacktrack;
  return true;
}

bool Ladder::upfront_in_force() const {
  for (const BuilderConstraint& c : placement_.constraints()) {
    if (c.family == ConstraintFamily::kDensity || c.family == ConstraintFamily::kGrouping) {
      return true;
    }
  }
  return false;
}

bool Ladder::rerun_winner() {
  if (!winner_ || *winner_ == Rung::kSerialFallback) return false;
  placement_.clear_seats();
  if (*winner_ == Rung::kBacktrack) return driver_.backtrack();
  return driver_.run(*winner_, policy_);
}

bool Ladder::serial_rung() {
  if (!serial_.feasible || placement_.ii() < serial_.ii) return false;
  ++stats_.rung_attempts[static_cast<int>(Rung::kSerialFallback)];
  if (!placement_.seat_all(serial_.start)) return false;
  ++stats_.rung_successes[static_cast<int>(Rung::kSerialFallback)];
  winner_ = Rung::kSerialFallback;
  return true;
}

}  // namespace tilesched::cost_based
