// The packing repair's infeasibility screen (see screen.h).
#include "screen.h"

#include <algorithm>
#include <memory>

namespace tilesched {

using exact_internal::Answer;
using exact_internal::Clock;

bool ComponentScreen::rules_out(int64_t ii, int64_t units, exact_internal::Backend& backend,
                                int64_t& used) {
  // Never dormant here: the repair's IIs jump about (bisection), and each
  // check it saves is a model of the whole graph.
  ii_screen_.rearm();
  if (ii_screen_.check(ii) != IiScreen::Verdict::kAdmit) return true;
  if (!components_) components_ = exact_internal::component_subgraphs(g_);
  for (const Graph& sub : *components_) {
    std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(sub, ii, false);
    if (!asap) return true;  // below the component's recurrence: below the graph's as well
    // The component's own K: no stage limit, so unsat rules out every
    // schedule of the graph at ii, whatever its stage count. The budget is
    // work, never the clock.
    const exact_internal::ModelSpec spec = *exact_internal::model_spec(
        sub, ii, exact_internal::stage_bound(sub, ii), Clock::time_point::max(), std::move(asap));
    const std::unique_ptr<exact_internal::IiProblem> model = backend.build(sub, spec);
    if (model == nullptr) continue;  // over the backend's size limit: no proof
    const Answer a = model->check(spec.stage_bound, Clock::time_point::max(), units);
    used += std::max<int64_t>(model->units_used(), 1);
    if (a == Answer::kUnsat) return true;
  }
  return false;
}

}  // namespace tilesched
