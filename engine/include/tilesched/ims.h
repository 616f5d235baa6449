// Rau's iterative modulo scheduling (B. R. Rau, "Iterative Modulo
// Scheduling: An Algorithm For Software Pipelining Loops", MICRO-27, 1994;
// the longer version in IJPP 24(1), 1996), as a baseline generator under
// the same rules L1-L7 as the others (docs/CONTRACT.md). docs/BASELINES.md
// describes the algorithm and how each rule is enforced.
#pragma once

#include <cstdint>

#include "tilesched/graph.h"
#include "tilesched/ii_search.h"
#include "tilesched/schedule.h"

namespace tilesched {

struct ImsOptions {
  // Placement steps per II attempt: ceil(budget_ratio * ops) (Rau's
  // BudgetRatio; 3 is the value his measurements settle on). REQUIRES: > 0.
  double budget_ratio = 3.0;
};

// Schedule.generator is "ims"; stats are, in this order: ii_tried,
// ii_screened, placement_steps, evictions, budget_exhausted,
// storage_failures, no_seat, work (docs/BASELINES.md), serial_fallback. One diagnostic line per
// failed II says why. `search`: the II range and the deadline
// (tilesched/ii_search.h). REQUIRES: g passed validate_graph.
Schedule generate_ims(const Graph& g, const ImsOptions& opts, const IiSearchOptions& search = {});

}  // namespace tilesched
