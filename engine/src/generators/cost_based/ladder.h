// The strategy ladder (seed 001 "Strategy Orchestration"): the rungs run in
// a fixed order at the placement's II, each from an empty table, and the
// first that places every op wins. The last rung, at II >= the serial II,
// seats every op at its serial start.
#pragma once

#include <optional>

#include "rungs.h"
#include "notes.h"
#include "tilesched/schedule.h"

namespace tilesched::cost_based {

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
  // is legal and the II is at least its II. Also the refinement loop's
  // fallback when only the SMEM budget (rule L4) fails.
  bool serial_rung();
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
  const Schedule& serial_;
  Notes& notes_;
  std::optional<Rung> winner_;
  ArmPolicy policy_;
};

}  // namespace tilesched::cost_based
