// The exact oracle's stage descent (docs/EXACT.md, step 5): at the reported
// II, the largest stage lowered by bisection, each step one check under the
// descent's budget; optionally the sum of starts after it (SMT only).
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "bounds.h"
#include "oracle.h"
#include "stage_floor.h"

namespace tilesched::exact_internal {

int64_t Oracle::descent_budget() const {
  return opts_.backend == ExactBackend::kSat ? opts_.descent_conflicts : opts_.descent_rlimit;
}

Answer Oracle::check_in_descent(int64_t stages, int64_t limit_ms) {
  const int64_t units = descent_budget() - descent_units_;
  if (units <= 0) {
    descent_rlimit_hit_ = true;
    return Answer::kUnknown;
  }
  ++descent_checks_;
  const int64_t before = model_->units_used();
  const Answer r = run_check(*model_, stages, limit_ms, units);
  descent_units_ += std::max<int64_t>(1, model_->units_used() - before);
  if (r == Answer::kUnknown) {
    (budget_.remaining_ms() > 0 ? descent_rlimit_hit_ : descent_cut_) = true;
  }
  return r;
}

Answer Oracle::ask(int64_t stages) {
  const int64_t limit = budget_.next_check_ms();
  if (limit <= 0) {
    descent_cut_ = true;
    return Answer::kUnknown;
  }
  const Clock::time_point t = Clock::now();
  const Answer r = check_in_descent(stages, limit);
  solver_us_ += elapsed_us(t);
  return r;
}

template <class Attempt, class Measure>
int64_t Oracle::bisect(int64_t lo, std::vector<int64_t>& start, Attempt attempt,
                       Measure measure, bool& closed) {
  int64_t hi = measure(start);
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    std::vector<int64_t> next;
    const Answer r = attempt(mid, next);
    // A model's schedule replaces the start only when it is no worse.
    if (r == Answer::kSat && measure(next) <= mid) {
      start = std::move(next);
      hi = measure(start);
    } else if (r == Answer::kUnsat) {
      lo = mid + 1;
    } else {
      break;
    }
  }
  closed = lo >= hi;
  return hi;
}

Answer Oracle::descent_step(int64_t ii, int64_t k, const std::vector<int64_t>& asap,
                            std::optional<int64_t> sum_limit, const std::vector<int64_t>& hint,
                            std::vector<int64_t>& next) {
  if (budget_.next_check_ms() <= 0) {
    descent_cut_ = true;
    return Answer::kUnknown;
  }
  if (sum_limit) release(model_);  // the sum bound stays in the model: a fresh one
  const bool incremental = opts_.backend == ExactBackend::kSat;
  if (!build(ii, incremental && !sum_limit ? std::max(k, descent_from_) : k, asap)) {
    descent_cut_ = descent_cut_ || !too_large_;
    return Answer::kUnknown;
  }
  if (sum_limit && !model_->limit_start_sum(*sum_limit)) return Answer::kUnknown;
  std::vector<int64_t> near = hint;  // its stages over k pulled down to k
  for (int64_t& x : near) x = std::min(x, ii * k + x % ii);
  model_->hint(near);
  const Answer r = ask(k);
  if (r == Answer::kSat) next = model_->starts();
  if (sum_limit) release(model_);
  return r;
}

void Oracle::lower_stages() {
  Schedule& s = result_.schedule;
  const int64_t ii = s.ii;
  std::vector<int64_t> start = s.start;
  const int64_t from = max_stage(start, ii);
  start_stages_ = from + 1;
  descent_from_ = from;
  // No op can sit below its ASAP stage (every start is >= 0), and no
  // schedule has fewer stages than the resources' floor (stage_floor.cc).
  const std::vector<int64_t> asap = *exact_internal::longest_paths(g_, ii, false);
  const int64_t floor_stage = exact_internal::resource_stage_floor(
                                  g_, ii, asap, *exact_internal::longest_paths(g_, ii, true),
                                  max_stage(asap, ii), from)
                                  .value_or(from);
  if (result_.stage_bound == 0) result_.stage_bound = from;
  bool closed = floor_stage >= from;
  auto stages = [&](const std::vector<int64_t>& v) { return max_stage(v, ii); };
  if (!closed && opts_.minimise_stages) {
    bisect(floor_stage, start,
           [&](int64_t mid, std::vector<int64_t>& next) {
             return descent_step(ii, mid, asap, std::nullopt, start, next);
           },
           stages, closed);
  }
  if (opts_.minimise_stages && opts_.minimise_start_sum) lower_start_sum(asap, start);
  s.start = std::move(start);
  s.stages_proven = closed;
}

// The sum of starts at the stage count reached, by bisection; each step a
// fresh model with the sum bound (the SMT backend only: a sum over every
// time-indexed literal has no small CNF).
void Oracle::lower_start_sum(const std::vector<int64_t>& asap, std::vector<int64_t>& start) {
  const int64_t ii = result_.schedule.ii;
  if (opts_.backend == ExactBackend::kSat) {
    result_.schedule.diagnostics.push_back(
        "exact: minimise_start_sum is not supported by the SAT backend (use --exact-backend smt)");
    return;
  }
  const int64_t k = max_stage(start, ii);
  auto sum = [](const std::vector<int64_t>& v) {
    return std::accumulate(v.begin(), v.end(), int64_t{0});
  };
  bool sum_closed = false;
  bisect(sum(asap), start,
         [&](int64_t mid, std::vector<int64_t>& next) {
           return descent_step(ii, k, asap, mid, start, next);
         },
         sum, sum_closed);
}

void Oracle::note_descent() {
  Schedule& s = result_.schedule;
  if (s.feasible && !s.stages_proven) {
    s.diagnostics.push_back(
        "exact: stage count " + std::to_string(s.stage_count) + " at II " +
        std::to_string(s.ii) + " not proven minimal" +
        (descent_rlimit_hit_ ? " (the descent reached its budget, descent_rlimit or descent_conflicts)"
         : descent_cut_      ? " (the time limit cut the descent short)"
                             : ""));
  }
  if (too_large_count_ > 0) {
    s.diagnostics.push_back("exact: " + std::to_string(too_large_count_) +
                            " model(s) over the SAT backend's size limit were not built (their "
                            "checks count as unknown)");
  }
  if (descent_cut_) {
    s.diagnostics.push_back("exact: the time limit cut the stage/start descent short; the "
                            "starts may differ from run to run (the II and bounds do not)");
  }
  if (build_cut_ii_) {
    s.diagnostics.push_back("exact: the time limit ended while the model at II " +
                            std::to_string(*build_cut_ii_) + " was built");
  }
}

}  // namespace tilesched::exact_internal
