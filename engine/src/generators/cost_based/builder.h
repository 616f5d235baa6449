// The constraint builder (seed 003 "Constraint Builder"): soft constraints
// of four families, each with the rationale the refinement loop reports
// when it adds or lifts it. Density and grouping come up front at each II,
// from the graph; depth and register pressure after a placement, from what
// it got wrong. Constraints added together form a batch, lifted as one.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "notes.h"
#include "placement.h"

namespace tilesched::cost_based {

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

}  // namespace tilesched::cost_based
