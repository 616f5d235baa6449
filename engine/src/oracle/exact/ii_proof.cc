// The exact oracle's proof at one II (docs/EXACT.md, "The search", step 3):
// without a model below a recurrence or under the resources' stage floor,
// then the components first (components.h), a tight check, and the check
// with the safe stage bound; the models built and checked under the clock
// budget (budget.h).
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "bounds.h"
#include "oracle.h"
#include "stage_floor.h"
#include "util/elapsed.h"
#include "util/test_seams.h"

namespace tilesched::exact_internal {

Backend& Oracle::backend() {
  if (!backend_) {
    backend_ = opts_.backend == ExactBackend::kSmt ? make_smt_backend(opts_.random_seed)
                                                   : make_sat_backend(opts_.sat_encoding);
  }
  return *backend_;
}

// The components' builds and checks share a quarter of the check's time;
// only unsat counts (docs/EXACT.md, "Components first").
bool Oracle::component_infeasible(int64_t ii) {
  // The SAT backend only: Z3 overran the call's limit building and checking
  // components under load (54 s of 20 s on aes2 graph2).
  if (opts_.backend != ExactBackend::kSat) return false;
  const ComponentBudget share{.until =
      std::min(Clock::now() + std::chrono::milliseconds(budget_.next_check_ms() / 4),
               budget_.deadline())};
  switch (components_.prove(ii, backend(), share, *this)) {
    case ComponentVerdict::kInfeasible:
      ++component_proofs_;
      return true;
    case ComponentVerdict::kCut:
      if (Clock::now() >= budget_.deadline()) build_cut_ii_ = ii;  // not the components' share
      return false;
    case ComponentVerdict::kOpen: return false;
  }
  return false;
}

Answer Oracle::check(IiProblem& problem, int64_t stages, Clock::time_point until, int64_t units) {
  // Before a model's first check: its estimate of the stretch.
  budget_.reserve_cpu(problem.unpolled_cpu_us());
  budget_.sample();
  until = std::min(until, budget_.deadline());
  const Answer answer = problem.check(stages, until, units);
  if (test_seams::between_checks != nullptr) test_seams::between_checks();
  budget_.reserve_clock(elapsed_us(until));
  budget_.reserve_cpu(problem.unpolled_cpu_us());
  return answer;
}

Answer Oracle::run_check(IiProblem& problem, int64_t stages, int64_t limit_ms, int64_t units) {
  const Clock::time_point until =
      Clock::now() + std::chrono::milliseconds(std::max<int64_t>(1, limit_ms));
  return check(problem, stages, until, units);
}

void Oracle::release(std::unique_ptr<IiProblem>& problem) {
  const Clock::time_point t = Clock::now();
  const int64_t cpu = thread_cpu_us();
  problem.reset();
  budget_.reserve_clock(elapsed_us(t));
  budget_.reserve_cpu(thread_cpu_us() - cpu);
}

bool Oracle::build(int64_t ii, int64_t k, const std::vector<int64_t>& asap) {
  too_large_ = false;
  if (model_ && model_ii_ == ii && model_->limits_stages() && model_k_ >= k) return true;
  release(model_);
  budget_.sample();
  const ModelSpec spec =
      *model_spec(g_, ii, k, budget_.deadline(), asap);
  try {
    model_ = backend().build(g_, spec);
  } catch (const ModelDeadline&) {
    model_.reset();
    build_cut_ii_ = ii;
    return false;
  }
  if (!model_) {
    too_large_ = true;
    ++too_large_count_;
    return false;
  }
  model_ii_ = ii;
  model_k_ = k;
  return true;
}

IiOutcome Oracle::decide(int64_t ii) {
  const int64_t limit = budget_.next_check_ms();
  if (limit <= 0) return IiOutcome::kSkipped;
  const std::optional<std::vector<int64_t>> asap = longest_paths(g_, ii, false);
  if (!asap) return IiOutcome::kInfeasible;  // II below a recurrence: no model needed
  const int64_t k = stage_bound(g_, ii);
  // The resources' stage floor (stage_floor.cc): none at K proves the II
  // infeasible without a model.
  const std::optional<int64_t> stage_floor = resource_stage_floor(
      g_, ii, *asap, *longest_paths(g_, ii, true), max_stage(*asap, ii), k);
  if (!stage_floor) return IiOutcome::kInfeasible;
  const Clock::time_point t = Clock::now();
  if (component_infeasible(ii)) {
    solver_us_ += elapsed_us(t);
    return IiOutcome::kInfeasible;
  }
  // Tight first: schedules with at most one stage more than the start's
  // (never below the floor). A sat answer leaves little for the stage
  // descent; unsat or unknown proves nothing about II (docs/EXACT.md), so
  // the safe bound follows. A backend that takes stage limits asks both
  // of one model; the SMT backend builds a smaller model for the first.
  const int64_t tight = start_max_stage_ ? std::max(*start_max_stage_ + 1, *stage_floor) : k;
  const bool incremental = opts_.backend == ExactBackend::kSat;
  if (tight < k && build(ii, incremental ? k : tight, *asap)) {
    const Answer r = run_check(*model_, tight, budget_.next_check_ms() / 4);
    if (r == Answer::kSat) {
      solver_us_ += elapsed_us(t);
      found_start_ = model_->starts();
      result_.stage_bound = tight;
      ++tight_found_;
      return IiOutcome::kFeasible;
    }
  }
  if (budget_.next_check_ms() <= 0) return IiOutcome::kSkipped;
  if (!build(ii, k, *asap)) return too_large_ ? IiOutcome::kUnknown : IiOutcome::kSkipped;
  const Answer r = run_check(*model_, k, budget_.next_check_ms());
  solver_us_ += elapsed_us(t);
  if (r == Answer::kUnsat) return IiOutcome::kInfeasible;
  if (r == Answer::kUnknown) return IiOutcome::kUnknown;
  found_start_ = model_->starts();
  result_.stage_bound = k;
  return IiOutcome::kFeasible;
}

}  // namespace tilesched::exact_internal
