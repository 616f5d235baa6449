// Rau's iterative modulo scheduling (B. R. Rau, "Iterative Modulo
// Scheduling: An Algorithm For Software Pipelining Loops", MICRO-27, 1994;
// the longer version in IJPP 24(1), 1996), as a baseline generator under
// the same rules L1-L7 as the others (docs/CONTRACT.md). docs/BASELINES.md
// describes the algorithm and how each rule is enforced.
#pragma once

#include <cstdint>

#include "tilesched/deadline.h"
#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched {

struct ImsOptions {
  // Placement steps per II attempt: ceil(budget_ratio * ops) (Rau's
  // BudgetRatio; 3 is the value his measurements settle on). REQUIRES: > 0.
  double budget_ratio = 3.0;
  // Largest II tried. 0: the serial II when the serial schedule is legal,
  // else the sequential bound (as the cost-based generator).
  int64_t ii_cap = 0;
  // Smallest II tried (0: the lower bound from the graph), as the
  // cost-based generator's.
  int64_t ii_floor = 0;
  // No II attempt starts after it (tilesched/deadline.h); a search it cuts
  // ends as budget-exhausted.
  Deadline deadline;
};

// Schedule.generator is "ims"; stats are, in this order: ii_tried,
// placement_steps, evictions, budget_exhausted, storage_failures,
// no_seat, serial_fallback. One diagnostic line per failed II says why.
// REQUIRES: g passed validate_graph.
Schedule generate_ims(const Graph& g, const ImsOptions& opts);

}  // namespace tilesched
