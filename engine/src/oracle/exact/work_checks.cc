// The exact oracle's checks under a work budget (see work_checks.h).
#include "work_checks.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "bounds.h"
#include "components.h"
#include "query.h"
#include "tilesched/schedule.h"
#include "tilesched/verify.h"

namespace tilesched {

using exact_internal::Clock;

WorkChecks::WorkChecks(const Graph& g)
    : g_(g), components_(std::make_unique<exact_internal::ComponentProof>(g)) {}

WorkChecks::~WorkChecks() = default;

exact_internal::Backend& WorkChecks::backend() {
  if (!backend_) backend_ = exact_internal::make_sat_backend(SatEncoding::kRowStage);
  return *backend_;
}

WorkChecks::Result WorkChecks::whole_graph(int64_t ii, int64_t stages, const Budget& budget,
                                           bool stable_only) {
  try {
    std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g_, ii, false);
    if (!asap) return {Answer::kNone, {}};  // II below RecMII
    // A tight stage bound, as the oracle's first check at an II: a much
    // smaller model; a schedule it finds is legal all the same.
    exact_internal::ModelSpec spec = *exact_internal::model_spec(
        g_, ii, std::min(stages, exact_internal::stage_bound(g_, ii)), Clock::time_point::max(),
        std::move(asap));
    spec.stable_only = stable_only;
    const std::unique_ptr<exact_internal::IiProblem> model = backend().build(g_, spec);
    if (model == nullptr) return {};  // over the backend's size limit
    const exact_internal::Answer a =
        model->check(spec.stage_bound, Clock::time_point::max(),
                     exact_internal::units_within(*model, budget.units, budget.work));
    const Spent spent{std::max<int64_t>(model->units_used(), 1),
                      exact_internal::check_work(*model)};
    if (a == exact_internal::Answer::kUnsat) return {Answer::kNone, {}, spent};
    if (a != exact_internal::Answer::kSat) return {Answer::kUnknown, {}, spent};
    Schedule s;
    s.ii = ii;
    s.start = model->starts();
    s.feasible = true;
    derive_stage_order(s);
    if (!verify_schedule(g_, s).legal()) return {Answer::kUnknown, {}, spent};
    return {Answer::kFound, std::move(s.start), spent};
  } catch (const exact_internal::BackendFailure&) {
    throw SolverFailed{};
  }
}

int64_t WorkChecks::model_cells(int64_t ii, int64_t stages) const {
  std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g_, ii, false);
  if (!asap) return 0;
  const exact_internal::ModelSpec spec = *exact_internal::model_spec(
      g_, ii, std::min(stages, exact_internal::stage_bound(g_, ii)), Clock::time_point::max(),
      std::move(asap));
  int64_t cells = 0;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    int64_t held = 1;
    for (const Triple& t : g_.ops[v].resources) held += t.duration;
    const int64_t window = exact_internal::latest_start(g_, spec, v) - spec.asap[v] + 1;
    cells += std::max<int64_t>(window, 1) * held;
  }
  return cells;
}

bool WorkChecks::component_rules_out(int64_t ii, const Budget& budget, Spent& spent) {
  try {
    const int64_t units_before = components_->units_used();
    const int64_t work_before = components_->work_used();
    const exact_internal::ComponentVerdict v = components_->prove(
        ii, backend(), exact_internal::ComponentBudget{.units = budget.units, .work = budget.work});
    spent.units += components_->units_used() - units_before;
    spent.work += components_->work_used() - work_before;
    return v == exact_internal::ComponentVerdict::kInfeasible;
  } catch (const exact_internal::BackendFailure&) {
    throw SolverFailed{};
  }
}

int WorkChecks::component_count() const { return components_->component_count(); }

}  // namespace tilesched
