// The packing repair's infeasibility screen (see screen.h).
#include "repair/screen.h"

namespace tilesched {

bool ComponentScreen::rules_out(int64_t ii, const WorkChecks::Budget& budget,
                                WorkChecks::Spent& spent) {
  // Never dormant here: the repair's IIs jump about (bisection), and each
  // check it saves is a model of the whole graph.
  ii_screen_.rearm();
  const bool admitted = ii_screen_.check(ii) == IiScreen::Verdict::kAdmit;
  spent.work += ii_screen_.take_units();
  if (!admitted) return true;
  // The budget is work, never the clock.
  return checks_.component_rules_out(ii, budget, spent);
}

}  // namespace tilesched
