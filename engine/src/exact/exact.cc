// The exact oracle (docs/EXACT.md): one Z3 satisfiability check
// per candidate II from the MII up, below the heuristic's II; then, at the
// first feasible II, the stage count and the sum of starts are pinned down
// by descent. Every II below the reported one that was proven infeasible
// raises the lower bound; an undecided one (time limit) stops it.
#include "tilesched/exact.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>

#include "../search.h"
#include "model.h"
#include "tilesched/cost_based.h"
#include "tilesched/limits.h"
#include "tilesched/mii.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"

namespace tilesched {

std::string_view ii_outcome_name(IiOutcome o) {
  switch (o) {
    case IiOutcome::kInfeasible: return "infeasible";
    case IiOutcome::kFeasible: return "feasible";
    case IiOutcome::kUnknown: return "unknown";
    case IiOutcome::kSkipped: return "skipped";
  }
  return "skipped";
}

namespace {

using Clock = std::chrono::steady_clock;
using exact_internal::IiModel;

int64_t elapsed_us(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - since).count();
}

// The wall-clock budget and its split between checks.
class Budget {
 public:
  Budget(Clock::time_point t0, const ExactOptions& opts) : t0_(t0), opts_(opts) {}
  int64_t remaining_ms() const {
    const int64_t used =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0_).count();
    return std::max<int64_t>(0, opts_.time_limit_ms - used);
  }
  // The limit of the next check; 0 means none is left.
  int64_t next_check_ms() const {
    const int64_t left = remaining_ms();
    if (left <= 0) return 0;
    const int64_t cap = opts_.per_check_limit_ms > 0 ? opts_.per_check_limit_ms
                                                     : std::max<int64_t>(1, left / 2);
    return std::min(left, cap);
  }
  int64_t all_remaining_ms() const { return remaining_ms(); }

 private:
  Clock::time_point t0_;
  const ExactOptions& opts_;
};

// The heuristic upper bound: the cost-based schedule, else the serial one,
// when the verifier accepts it.
std::optional<Schedule> heuristic_schedule(const Graph& g) {
  Schedule cb = generate_cost_based(g, CostBasedOptions{}).schedule;
  if (cb.feasible && verify_schedule(g, cb).legal()) return cb;
  Schedule serial = generate_serial(g);
  if (serial.feasible && verify_schedule(g, serial).legal()) return serial;
  return std::nullopt;
}

class Oracle {
 public:
  Oracle(const Graph& g, const ExactOptions& opts, Clock::time_point t0)
      : g_(g), opts_(opts), t0_(t0), budget_(t0, opts) {}
  ExactResult run();

 private:
  void record_options();
  // The II search: decide every II from `lower` to `last` until one is
  // feasible or the budget is spent. Raises proven_below_.
  std::optional<int64_t> search(int64_t lower, int64_t last);
  // No II below the heuristic's was feasible: publish the heuristic's
  // schedule, with fewer stages when the solver finds them at its II.
  void adopt_heuristic(const Schedule& heuristic);
  // Never publishes an illegal schedule as proven: falls back to the
  // heuristic (or to infeasible) when the verifier refuses the model's.
  void verify_result(const std::optional<Schedule>& heuristic, int64_t lower);
  void report_failure(int64_t lower, int64_t last);
  void record_stats(const std::optional<Schedule>& heuristic);

  // One check at ii on a fresh model; `descent`: a step of the stage/start
  // descent, so under its resource budget.
  IiOutcome decide(int64_t ii, bool descent = false);
  z3::check_result check_in_descent(IiModel& model, int64_t limit_ms);
  // One descent check under the time budget.
  z3::check_result ask(IiModel& model);
  void pin_down(IiModel& model, std::vector<int64_t>& start);
  // Lowers measure(start) from its value towards `lo` by bisection: each
  // step bounds the model at the midpoint (`bound`) in a scope, keeps the
  // starts on sat, raises lo on unsat, stops on unknown. Returns the
  // measure reached.
  template <class Bound, class Measure>
  int64_t bisect(IiModel& model, int64_t lo, std::vector<int64_t>& start, Bound bound,
                 Measure measure);

  const Graph& g_;
  const ExactOptions& opts_;
  Clock::time_point t0_;
  Budget budget_;
  z3::context ctx_;
  ExactResult result_;
  std::optional<IiModel> model_;     // the model of the last feasible II
  std::vector<int64_t> found_start_;
  int64_t solver_us_ = 0;
  int64_t descent_checks_ = 0;
  int64_t descent_units_ = 0;        // Z3 resource units the descent used
  std::optional<int64_t> proof_us_;  // when the lower bound met the II
  bool descent_cut_ = false;        // by the time limit: may differ run to run
  bool descent_rlimit_hit_ = false;  // by descent_rlimit: the same on every run
  int64_t proven_below_ = 0;  // every II in [lower, proven_below_) is infeasible
  int counts_[4] = {0, 0, 0, 0};  // decided IIs by IiOutcome
};

IiOutcome Oracle::decide(int64_t ii, bool descent) {
  const int64_t limit = budget_.next_check_ms();
  if (limit <= 0) return IiOutcome::kSkipped;
  const std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g_, ii, false);
  if (!asap) return IiOutcome::kInfeasible;  // II below a recurrence: no model needed
  const std::vector<int64_t> tail = *exact_internal::longest_paths(g_, ii, true);
  const int64_t k = exact_internal::stage_bound(g_, ii);
  model_.emplace(ctx_, g_, ii, k, *asap, tail, opts_.random_seed);
  const Clock::time_point t = Clock::now();
  const z3::check_result r = descent ? check_in_descent(*model_, limit) : model_->check(limit);
  solver_us_ += elapsed_us(t);
  if (r == z3::unsat) return IiOutcome::kInfeasible;
  if (r == z3::unknown) return IiOutcome::kUnknown;
  found_start_ = model_->starts();
  result_.stage_bound = k;
  return IiOutcome::kFeasible;
}

z3::check_result Oracle::check_in_descent(IiModel& model, int64_t limit_ms) {
  const int64_t units = opts_.descent_rlimit - descent_units_;
  if (units <= 0) {
    descent_rlimit_hit_ = true;
    return z3::unknown;
  }
  ++descent_checks_;
  const int64_t before = model.resources_used();
  const z3::check_result r = model.check(limit_ms, units);
  descent_units_ += std::max<int64_t>(1, model.resources_used() - before);
  if (r == z3::unknown) {
    (budget_.remaining_ms() > 0 ? descent_rlimit_hit_ : descent_cut_) = true;
  }
  return r;
}

z3::check_result Oracle::ask(IiModel& model) {
  const int64_t limit = budget_.next_check_ms();
  if (limit <= 0) {
    descent_cut_ = true;
    return z3::unknown;
  }
  const Clock::time_point t = Clock::now();
  const z3::check_result r = check_in_descent(model, limit);
  solver_us_ += elapsed_us(t);
  return r;
}

template <class Bound, class Measure>
int64_t Oracle::bisect(IiModel& model, int64_t lo, std::vector<int64_t>& start, Bound bound,
                       Measure measure) {
  int64_t hi = measure(start);
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    model.push();
    bound(mid);
    const z3::check_result r = ask(model);
    if (r == z3::sat) {
      start = model.starts();
      hi = measure(start);
    } else if (r == z3::unsat) {
      lo = mid + 1;
    }
    model.pop();
    if (r == z3::unknown) break;
  }
  return hi;
}

// At the chosen II: the least largest stage, then (minimise_start_sum)
// the least sum of starts by bisection; each step a scoped bound on the
// same solver, all under the descent's resource budget.
void Oracle::pin_down(IiModel& model, std::vector<int64_t>& start) {
  const int64_t ii = result_.schedule.ii;
  auto max_stage = [&](const std::vector<int64_t>& s) {
    int64_t m = 0;
    for (int64_t x : s) m = std::max(m, x / ii);
    return m;
  };
  auto sum = [](const std::vector<int64_t>& s) {
    return std::accumulate(s.begin(), s.end(), int64_t{0});
  };
  // No op can sit below its ASAP stage, nor the sum of starts below theirs.
  const std::vector<int64_t> asap = *exact_internal::longest_paths(g_, ii, false);
  const int64_t stages = bisect(model, max_stage(asap), start,
                                [&](int64_t mid) { model.limit_max_stage(mid); }, max_stage);
  if (!opts_.minimise_start_sum) return;
  model.limit_max_stage(stages);
  bisect(model, sum(asap), start, [&](int64_t mid) { model.limit_start_sum(mid); }, sum);
}

ExactResult Oracle::run() {
  Schedule& s = result_.schedule;
  record_options();
  s.mii = compute_mii(g_);
  const int64_t lower = s.mii.max();
  const std::optional<Schedule> heuristic = heuristic_schedule(g_);
  const int64_t last = heuristic ? heuristic->ii - 1 : sequential_ii_cap(g_, lower);

  const std::optional<int64_t> found = search(lower, last);
  const int64_t reached = found ? *found : heuristic ? heuristic->ii : 0;
  if (proven_below_ == reached) proof_us_ = elapsed_us(t0_);
  if (found) {
    s.feasible = true;
    s.ii = *found;
    if (opts_.minimise_stages) pin_down(*model_, found_start_);
    s.start = found_start_;
  } else if (heuristic) {
    adopt_heuristic(*heuristic);
  }
  if (s.feasible) verify_result(heuristic, lower);
  s.lower_bound = s.feasible ? std::min(proven_below_, s.ii) : proven_below_;
  s.proven_optimal = s.feasible && proven_below_ == s.ii;
  if (!s.feasible) report_failure(lower, last);
  if (descent_rlimit_hit_) {
    s.diagnostics.push_back("exact: the stage/start tie-break stopped at its resource limit "
                            "(descent_rlimit); the schedule is optimal in II, perhaps not in "
                            "stage count or start sum");
  }
  if (descent_cut_) {
    s.diagnostics.push_back("exact: the time limit cut the stage/start tie-break short; the "
                            "starts may differ from run to run (the II and bounds do not)");
  }
  record_stats(heuristic);
  s.time_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count();
  return std::move(result_);
}

void Oracle::record_options() {
  Schedule& s = result_.schedule;
  s.graph = g_.name;
  s.generator = "exact";
  s.options = {{"time_limit_ms", std::to_string(opts_.time_limit_ms)},
               {"per_check_limit_ms", std::to_string(opts_.per_check_limit_ms)},
               {"minimise_stages", opts_.minimise_stages ? "true" : "false"},
               {"minimise_start_sum", opts_.minimise_start_sum ? "true" : "false"},
               {"descent_rlimit", std::to_string(opts_.descent_rlimit)}};
}

std::optional<int64_t> Oracle::search(int64_t lower, int64_t last) {
  proven_below_ = lower;
  for (int64_t ii = lower; ii <= last; ++ii) {
    IiAttempt a;
    a.ii = ii;
    const Clock::time_point t = Clock::now();
    a.outcome = decide(ii);
    a.solver_us = elapsed_us(t);
    ++counts_[static_cast<int>(a.outcome)];
    if (a.outcome == IiOutcome::kInfeasible && proven_below_ == ii) proven_below_ = ii + 1;
    result_.schedule.diagnostics.push_back("II " + std::to_string(ii) + ": " +
                                           std::string(ii_outcome_name(a.outcome)) + " (" +
                                           std::to_string(a.solver_us / 1000) + " ms)");
    result_.attempts.push_back(a);
    if (a.outcome == IiOutcome::kFeasible) return ii;
    if (a.outcome == IiOutcome::kSkipped) break;  // the budget is spent
  }
  return std::nullopt;
}

void Oracle::adopt_heuristic(const Schedule& heuristic) {
  Schedule& s = result_.schedule;
  s.feasible = true;
  s.ii = heuristic.ii;
  s.start = heuristic.start;
  s.diagnostics.push_back("II " + std::to_string(s.ii) + ": the " + heuristic.generator +
                          " schedule (the upper bound)");
  // Its stage count is the heuristic's; the solver may lower it.
  const IiOutcome at_upper = opts_.minimise_stages ? decide(s.ii, true) : IiOutcome::kSkipped;
  if (at_upper == IiOutcome::kInfeasible) {  // the heuristic's schedule is legal there
    s.diagnostics.push_back("exact: the model calls the heuristic's II " + std::to_string(s.ii) +
                            " infeasible: a bug in the model");
  }
  if (at_upper == IiOutcome::kFeasible) {
    pin_down(*model_, found_start_);
    Schedule a = s, b = s;
    a.start = found_start_;
    derive_stage_order(a);
    derive_stage_order(b);
    if (a.stage_count <= b.stage_count) s.start = found_start_;
  }
}

void Oracle::verify_result(const std::optional<Schedule>& heuristic, int64_t lower) {
  Schedule& s = result_.schedule;
  derive_stage_order(s);
  const VerifyReport report = verify_schedule(g_, s);
  if (report.legal()) return;
  // A bug in the model: never publish an illegal schedule as proven.
  s.diagnostics.push_back("exact: the model's schedule at II " + std::to_string(s.ii) +
                          " fails the verifier (" + report.violations.front().message +
                          "); reported as not proven");
  if (heuristic) {
    s.ii = heuristic->ii;
    s.start = heuristic->start;
    derive_stage_order(s);
  } else {
    s.feasible = false;
  }
  proven_below_ = lower;
}

void Oracle::report_failure(int64_t lower, int64_t last) {
  Schedule& s = result_.schedule;
  s.failure = counts_[static_cast<int>(IiOutcome::kUnknown)] > 0 ||
                      counts_[static_cast<int>(IiOutcome::kSkipped)] > 0
                  ? FailureReason::kBudgetExhausted
                  : FailureReason::kIiCapReached;
  s.diagnostics.push_back("exact: no legal schedule for II " + std::to_string(lower) + " to " +
                          std::to_string(last) + "; lower bound " +
                          std::to_string(proven_below_));
}

void Oracle::record_stats(const std::optional<Schedule>& heuristic) {
  Schedule& s = result_.schedule;
  s.stats = {{"exact.ii_infeasible", counts_[static_cast<int>(IiOutcome::kInfeasible)]},
             {"exact.ii_feasible", counts_[static_cast<int>(IiOutcome::kFeasible)]},
             {"exact.ii_unknown", counts_[static_cast<int>(IiOutcome::kUnknown)]},
             {"exact.ii_skipped", counts_[static_cast<int>(IiOutcome::kSkipped)]},
             {"exact.heuristic_ii", heuristic ? heuristic->ii : 0},
             {"exact.stage_bound", result_.stage_bound},
             {"exact.descent_checks", descent_checks_},
             {"exact.descent_units", descent_units_},
             {"exact.solver_us", solver_us_}};
  if (s.proven_optimal && proof_us_) s.stats.emplace_back("exact.proof_us", *proof_us_);
}

}  // namespace

StatusOr<ExactResult> generate_exact(const Graph& g, const ExactOptions& opts) {
  const Clock::time_point t0 = Clock::now();
  try {
    Oracle oracle(g, opts, t0);
    return oracle.run();
  } catch (const z3::exception& e) {
    return Status::InvalidInput(std::string("exact: Z3 failed: ") + e.msg());
  }
}

}  // namespace tilesched
