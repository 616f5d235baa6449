// The packing repair's infeasibility screen (see screen.h).
#include "screen.h"

namespace tilesched {

bool ComponentScreen::rules_out(int64_t ii, int64_t units, exact_internal::Backend& backend,
                                int64_t& used) {
  // Never dormant here: the repair's IIs jump about (bisection), and each
  // check it saves is a model of the whole graph.
  ii_screen_.rearm();
  if (ii_screen_.check(ii) != IiScreen::Verdict::kAdmit) return true;
  // The budget is work, never the clock.
  const int64_t before = components_.units_used();
  const exact_internal::ComponentVerdict v =
      components_.prove(ii, backend, exact_internal::ComponentBudget{.units = units});
  used += components_.units_used() - before;
  return v == exact_internal::ComponentVerdict::kInfeasible;
}

}  // namespace tilesched
