// The packing repair's infeasibility screen (see screen.h).
#include "repair/screen.h"

namespace tilesched {

bool ComponentScreen::rules_out(int64_t ii, int64_t units, int64_t& used) {
  // Never dormant here: the repair's IIs jump about (bisection), and each
  // check it saves is a model of the whole graph.
  ii_screen_.rearm();
  if (ii_screen_.check(ii) != IiScreen::Verdict::kAdmit) return true;
  // The budget is work, never the clock.
  return checks_.component_rules_out(ii, units, used);
}

}  // namespace tilesched
