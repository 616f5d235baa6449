// The components-first proof (components.h).
#include "components.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace tilesched::exact_internal {

ComponentVerdict ComponentProof::prove(int64_t ii, Backend& backend, const ComponentBudget& budget,
                                       ComponentChecks& checks) {
  if (!components_) components_ = component_subgraphs(g_);
  for (const Graph& sub : *components_) {
    // A check of less than a millisecond is not worth the model.
    if (budget.until - Clock::now() < std::chrono::milliseconds(1)) return ComponentVerdict::kOpen;
    std::optional<std::vector<int64_t>> asap = longest_paths(sub, ii, false);
    if (!asap) return ComponentVerdict::kInfeasible;  // below the component's recurrence
    const ModelSpec spec =
        *model_spec(sub, ii, stage_bound(sub, ii), budget.until, std::move(asap));
    std::unique_ptr<IiProblem> problem;
    try {
      problem = backend.build(sub, spec);
    } catch (const ModelDeadline&) {
      return ComponentVerdict::kCut;
    }
    if (problem == nullptr) continue;  // over the backend's size limit
    const Answer a = checks.check(*problem, spec.stage_bound, budget.until, budget.units);
    units_used_ += std::max<int64_t>(problem->units_used(), 1);
    checks.release(problem);
    if (a == Answer::kUnsat) return ComponentVerdict::kInfeasible;
  }
  return ComponentVerdict::kOpen;
}

}  // namespace tilesched::exact_internal
