// The exact oracle (docs/EXACT.md): starts from the best heuristic
// schedule; one Z3 satisfiability check per candidate II from the MII up,
// below that schedule's II; then, at the reported II, the stage count is
// lowered from the best known one by bisection (and, optionally, the sum of
// starts). Every II below the reported one that was proven infeasible
// raises the lower bound; an undecided one (time limit) stops it. A
// watchdog thread interrupts Z3 when the call's time limit is reached.
#include "tilesched/exact.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>

#include "../graph_algo.h"
#include "../ii_driver.h"
#include "../search.h"
#include "../storage.h"
#include "model.h"
#include "tilesched/cost_based.h"
#include "tilesched/ims.h"
#include "tilesched/limits.h"
#include "tilesched/mii.h"
#include "tilesched/serial.h"
#include "tilesched/sms.h"
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

// The wall-clock budget and its split between checks. Work stops 1/32 of
// the limit early: verifying the answer and tearing down the Z3 context
// after the last check must fit in the 5 % the limit allows beyond itself.
class Budget {
 public:
  Budget(Clock::time_point t0, const ExactOptions& opts)
      : t0_(t0), opts_(opts), limit_ms_(opts.time_limit_ms - opts.time_limit_ms / 32) {}
  int64_t remaining_ms() const {
    const int64_t used =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0_).count();
    return std::max<int64_t>(0, limit_ms_ - used);
  }
  // The limit of the next check; 0 means none is left.
  int64_t next_check_ms() const {
    const int64_t left = remaining_ms();
    if (left <= 0) return 0;
    const int64_t cap = opts_.per_check_limit_ms > 0 ? opts_.per_check_limit_ms
                                                     : std::max<int64_t>(1, left / 2);
    return std::min(left, cap);
  }
  Clock::time_point deadline() const { return t0_ + std::chrono::milliseconds(limit_ms_); }

 private:
  Clock::time_point t0_;
  const ExactOptions& opts_;
  int64_t limit_ms_;
};

int64_t max_stage(const std::vector<int64_t>& start, int64_t ii) {
  int64_t m = 0;
  for (int64_t x : start) m = std::max(m, x / ii);
  return m;
}

// The heuristic schedules the oracle starts from, in the order they run
// (on equal II and stage count the first wins). Another generator (a
// scheduler) joins the start by one entry here. Each run after serial is
// capped at the best II so far: it can tie it with fewer stages, and
// searching above it is wasted. Serial and the first-success cost-based run
// always (the oracle has no answer without them); the others only while
// time is left. best_heuristic verifies every schedule.
std::vector<Schedule> heuristic_schedules(const Graph& g, const ExactOptions& opts,
                                          const Budget& budget) {
  std::vector<Schedule> out;
  int64_t best_ii = 0;  // 0: none yet
  auto add = [&](Schedule s) {
    if (s.feasible && (best_ii == 0 || s.ii < best_ii)) best_ii = s.ii;
    out.push_back(std::move(s));
  };
  add(generate_serial(g));
  for (ArmPolicy policy : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
    if (policy != ArmPolicy::kFirstSuccess && budget.remaining_ms() <= 0) break;
    CostBasedOptions o = opts.start;
    o.arm_policy = policy;
    o.ii_cap = best_ii;
    Schedule s = generate_cost_based(g, o).schedule;
    s.generator += std::string(" (") + std::string(arm_policy_name(policy)) + ")";
    add(std::move(s));
  }
  // The baseline modulo schedulers (docs/BASELINES.md).
  if (budget.remaining_ms() > 0) {
    ImsOptions o;
    o.ii_cap = best_ii;
    add(generate_ims(g, o));
  }
  if (budget.remaining_ms() > 0) {
    SmsOptions o;
    o.ii_cap = best_ii;
    add(generate_sms(g, o));
  }
  return out;
}

// The legal schedule of least II, then least stage count, shifted so that
// its smallest start is 0 (which keeps it legal, docs/EXACT.md, and only
// lowers stages); nullopt when no heuristic found a legal one.
std::optional<Schedule> best_heuristic(const Graph& g, std::vector<Schedule> candidates) {
  std::optional<Schedule> best;
  bool groups = false;
  for (const Op& op : g.ops) groups = groups || op.leader_gid.has_value();
  for (Schedule& s : candidates) {
    if (!s.feasible || !verify_schedule(g, s).legal()) continue;
    if (!groups && !s.start.empty()) {
      Schedule shifted = s;
      const int64_t low = *std::min_element(s.start.begin(), s.start.end());
      for (int64_t& x : shifted.start) x -= low;
      derive_stage_order(shifted);
      if (verify_schedule(g, shifted).legal()) s = std::move(shifted);
    }
    derive_stage_order(s);
    if (!best || s.ii < best->ii || (s.ii == best->ii && s.stage_count < best->stage_count)) {
      best = std::move(s);
    }
  }
  return best;
}

// Interrupts the context when the armed time passes: the time limit of a
// check, armed only while the check runs. Work between checks (building a
// model, reading a model's values) is never interrupted, so only
// IiModel::check can meet Z3's "canceled"; that work keeps to the oracle's
// deadline by itself (ModelDeadline, Budget). While the watchdog stayed
// armed between checks, an interrupt there threw out of the oracle as
// "Z3 failed: canceled" (a fuzzing finding:
// fuzz/regressions/fuzz_differential/z3-canceled-outside-a-check). Z3's own
// "timeout" parameter is never set: Z3 4.8.10 to 4.8.12 (Debian 12 ships
// 4.8.12) run it on a pool of timer threads that can deadlock, and a
// fuzzing run hung there for good (results/records/2026-11-25-fuzz-campaigns.md).
// An interrupt leaves the context refusing all further work, so the oracle
// makes a fresh one after it (Oracle::context).
class Watchdog {
 public:
  explicit Watchdog(z3::context& ctx) : thread_([this, &ctx] { watch(ctx); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // Interrupt at `until` unless disarmed before.
  void arm(Clock::time_point until) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      until_ = until;
      armed_ = true;
    }
    cv_.notify_all();
  }
  void disarm() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      armed_ = false;
    }
    cv_.notify_all();
  }
  // Whether the interrupt has been sent.
  bool fired() {
    std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }

 private:
  void watch(z3::context& ctx) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_ && !fired_) {
      if (!armed_) {
        cv_.wait(lock);
        continue;
      }
      cv_.wait_until(lock, until_);
      if (!stop_ && armed_ && Clock::now() >= until_) {
        ctx.interrupt();
        fired_ = true;
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool armed_ = false;
  bool fired_ = false;
  Clock::time_point until_;
  std::thread thread_;  // last: starts once the members above exist
};

class Oracle {
 public:
  Oracle(const Graph& g, const ExactOptions& opts, Clock::time_point t0)
      : g_(g), opts_(opts), t0_(t0), budget_(t0, opts) {}
  ExactResult run();

 private:
  void record_options();
  // The attempt at one II for the shared search (ii_driver.h): one proof
  // (decide), its diagnostic line and counts; raises proven_below_. An II
  // the budget skips stops the search.
  IiVerdict attempt(int64_t ii);
  // The IIs the search decides: from the heuristics' lower bound (above
  // `mii`, with a line saying so) to `last`.
  IiRange search_range(int64_t mii, int64_t last);
  // The lines about a stage count the descent did not prove least.
  void note_descent();
  // At the reported II, from the schedule in result_: lowers its largest
  // stage by bisection between the ASAP floor and its own, each step a
  // fresh model whose stage bound is the step's (docs/EXACT.md, step 5).
  void lower_stages();
  // Never publishes an illegal schedule as proven: falls back to the
  // heuristic (or to infeasible) when the verifier refuses the model's.
  void verify_result(const std::optional<Schedule>& heuristic, int64_t lower);
  void report_failure(const IiRange& range, const IiSearchResult& r);
  void record_stats(const std::optional<Schedule>& heuristic);
  // The stats and the time: the last step of run().
  ExactResult finish(const std::optional<Schedule>& heuristic);

  // The Z3 context and its watchdog, made at the first model: making a
  // context costs about 10 ms, more than a small graph's whole search, and
  // an oracle whose start already meets the MII at the ASAP stage floor
  // builds no model at all.
  z3::context& context();
  // One check of `model` under `limit_ms` (and the oracle's deadline) and
  // Z3 resource units `rlimit` (0: none).
  z3::check_result run_check(IiModel& model, int64_t limit_ms, int64_t rlimit = 0);
  // A fresh model at ii with stage bound k into `out`; false (and `out`
  // empty) when the deadline passed while building it.
  bool build(std::optional<IiModel>& out, int64_t ii, int64_t k,
             const std::vector<int64_t>& asap);
  // One check at ii on a fresh model with the safe stage bound, after a
  // short one bounded near the start's stage count (when that is lower).
  IiOutcome decide(int64_t ii);
  z3::check_result check_in_descent(IiModel& model, int64_t limit_ms);
  // One descent check under the time budget.
  z3::check_result ask(IiModel& model);
  // Lowers measure(start) from its value towards `lo` by bisection: each
  // step asks `attempt(mid, next)` whether a schedule of measure <= mid
  // exists (filling `next` on sat), keeps it on sat, raises lo on unsat,
  // stops on unknown. Returns the measure reached; `closed` says whether it
  // met lo (a proof).
  template <class Attempt, class Measure>
  int64_t bisect(int64_t lo, std::vector<int64_t>& start, Attempt attempt, Measure measure,
                 bool& closed);
  // One descent step: a fresh model at ii with stage bound k (and the sum
  // of starts at most `sum_limit`, when set); the starts on sat.
  z3::check_result descent_step(int64_t ii, int64_t k, const std::vector<int64_t>& asap,
                                std::optional<int64_t> sum_limit, std::vector<int64_t>& next);

  const Graph& g_;
  const ExactOptions& opts_;
  Clock::time_point t0_;
  Budget budget_;
  std::optional<z3::context> ctx_;
  std::optional<Watchdog> watchdog_;  // after ctx_: stopped before the context goes
  ExactResult result_;
  std::optional<IiModel> model_;     // the model of the last feasible II
  std::vector<int64_t> found_start_;
  int64_t solver_us_ = 0;
  int64_t descent_checks_ = 0;
  int64_t descent_units_ = 0;        // Z3 resource units the descent used
  int64_t start_stages_ = 0;         // stage count the descent started from
  std::optional<int64_t> start_max_stage_;  // the best heuristic's largest stage
  int64_t tight_found_ = 0;          // IIs found feasible by the tight check
  int64_t heuristic_us_ = 0;         // the heuristic runs and their checks
  std::optional<int64_t> proof_us_;  // when the lower bound met the II
  bool descent_cut_ = false;        // by the time limit: may differ run to run
  bool descent_rlimit_hit_ = false;  // by descent_rlimit: the same on every run
  int64_t proven_below_ = 0;  // every II in [lower, proven_below_) is infeasible
  int counts_[4] = {0, 0, 0, 0};  // decided IIs by IiOutcome
};

z3::context& Oracle::context() {
  if (watchdog_ && watchdog_->fired()) {  // the interrupted context refuses all work
    model_.reset();
    watchdog_.reset();
    ctx_.reset();
  }
  if (!ctx_) {
    ctx_.emplace();
    watchdog_.emplace(*ctx_);
  }
  return *ctx_;
}

z3::check_result Oracle::run_check(IiModel& model, int64_t limit_ms, int64_t rlimit) {
  const Clock::time_point until =
      std::min(Clock::now() + std::chrono::milliseconds(std::max<int64_t>(1, limit_ms)),
               budget_.deadline());
  watchdog_->arm(until);
  const z3::check_result r = model.check(until, rlimit);
  watchdog_->disarm();
  // An answer that raced the interrupt is dropped: its context is dead.
  const z3::check_result answer = watchdog_->fired() ? z3::unknown : r;
  if (exact_internal::between_checks_for_tests != nullptr) exact_internal::between_checks_for_tests();
  return answer;
}

bool Oracle::build(std::optional<IiModel>& out, int64_t ii, int64_t k,
                   const std::vector<int64_t>& asap) {
  const std::vector<int64_t> tail = *exact_internal::longest_paths(g_, ii, true);
  out.reset();
  try {
    out.emplace(context(), g_, ii, k, asap, tail, opts_.random_seed, budget_.deadline());
    return true;
  } catch (const exact_internal::ModelDeadline&) {
    out.reset();
    return false;
  } catch (const z3::exception&) {
    // After the watchdog's interrupt Z3 refuses new work ("canceled").
    out.reset();
    if (Clock::now() >= budget_.deadline()) return false;
    throw;
  }
}

IiOutcome Oracle::decide(int64_t ii) {
  const int64_t limit = budget_.next_check_ms();
  if (limit <= 0) return IiOutcome::kSkipped;
  const std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g_, ii, false);
  if (!asap) return IiOutcome::kInfeasible;  // II below a recurrence: no model needed
  const int64_t k = exact_internal::stage_bound(g_, ii);
  const Clock::time_point t = Clock::now();
  // Tight first: schedules with at most one stage more than the start's
  // (never below the ASAP floor). The model is much smaller and a sat
  // answer leaves little for the stage descent; unsat or unknown proves
  // nothing about II (docs/EXACT.md), so the safe model follows.
  const int64_t tight = start_max_stage_
                            ? std::max(*start_max_stage_ + 1, max_stage(*asap, ii))
                            : k;
  if (tight < k && build(model_, ii, tight, *asap)) {
    const z3::check_result r = run_check(*model_, budget_.next_check_ms() / 4);
    if (r == z3::sat) {
      solver_us_ += elapsed_us(t);
      found_start_ = model_->starts();
      result_.stage_bound = tight;
      ++tight_found_;
      return IiOutcome::kFeasible;
    }
  }
  if (budget_.next_check_ms() <= 0 || !build(model_, ii, k, *asap)) return IiOutcome::kSkipped;
  const z3::check_result r = run_check(*model_, budget_.next_check_ms());
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
  const z3::check_result r = run_check(model, limit_ms, units);
  // (An interrupted context answers nothing more, its statistics included.)
  descent_units_ += watchdog_->fired() ? 1 : std::max<int64_t>(1, model.resources_used() - before);
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

template <class Attempt, class Measure>
int64_t Oracle::bisect(int64_t lo, std::vector<int64_t>& start, Attempt attempt,
                       Measure measure, bool& closed) {
  int64_t hi = measure(start);
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    std::vector<int64_t> next;
    const z3::check_result r = attempt(mid, next);
    // A model's schedule replaces the start only when it is no worse.
    if (r == z3::sat && measure(next) <= mid) {
      start = std::move(next);
      hi = measure(start);
    } else if (r == z3::unsat) {
      lo = mid + 1;
    } else {
      break;
    }
  }
  closed = lo >= hi;
  return hi;
}

z3::check_result Oracle::descent_step(int64_t ii, int64_t k, const std::vector<int64_t>& asap,
                                      std::optional<int64_t> sum_limit,
                                      std::vector<int64_t>& next) {
  if (budget_.next_check_ms() <= 0) {
    descent_cut_ = true;
    return z3::unknown;
  }
  std::optional<IiModel> model;
  if (!build(model, ii, k, asap)) {
    descent_cut_ = true;
    return z3::unknown;
  }
  if (sum_limit) model->limit_start_sum(*sum_limit);
  const z3::check_result r = ask(*model);
  if (r == z3::sat) next = model->starts();
  return r;
}

void Oracle::lower_stages() {
  Schedule& s = result_.schedule;
  const int64_t ii = s.ii;
  std::vector<int64_t> start = s.start;
  const int64_t from = max_stage(start, ii);
  start_stages_ = from + 1;
  // No op can sit below its ASAP stage (every start is >= 0).
  const std::vector<int64_t> asap = *exact_internal::longest_paths(g_, ii, false);
  const int64_t floor_stage = max_stage(asap, ii);
  if (result_.stage_bound == 0) result_.stage_bound = from;
  bool closed = floor_stage >= from;
  auto stages = [&](const std::vector<int64_t>& v) { return max_stage(v, ii); };
  if (!closed && opts_.minimise_stages) {
    bisect(floor_stage, start,
           [&](int64_t mid, std::vector<int64_t>& next) {
             return descent_step(ii, mid, asap, std::nullopt, next);
           },
           stages, closed);
  }
  if (opts_.minimise_stages && opts_.minimise_start_sum) {
    const int64_t k = stages(start);
    auto sum = [](const std::vector<int64_t>& v) {
      return std::accumulate(v.begin(), v.end(), int64_t{0});
    };
    bool sum_closed = false;
    bisect(sum(asap), start,
           [&](int64_t mid, std::vector<int64_t>& next) {
             return descent_step(ii, k, asap, mid, next);
           },
           sum, sum_closed);
  }
  s.start = std::move(start);
  s.stages_proven = closed;
}

ExactResult Oracle::run() {
  Schedule& s = result_.schedule;
  record_options();
  s.mii = compute_mii(g_);
  const int64_t lower = s.mii.max();
  if (const std::optional<int64_t> stores = stores_over_storage(g_)) {
    // No II can be legal (storage.h): the search would prove every II up
    // to its cap infeasible, one solver check each, to the same bound.
    proven_below_ = sequential_ii_cap(g_, lower) + 1;
    s.lower_bound = proven_below_;
    s.failure = FailureReason::kStorageBudget;
    s.diagnostics.push_back("exact: " + stores_over_storage_diagnostic(g_, *stores));
    return finish(std::nullopt);
  }
  const std::optional<Schedule> heuristic = best_heuristic(g_, heuristic_schedules(g_, opts_, budget_));
  heuristic_us_ = elapsed_us(t0_);
  if (heuristic) start_max_stage_ = heuristic->stage_count - 1;
  const int64_t last = heuristic ? heuristic->ii - 1 : sequential_ii_cap(g_, lower);
  if (heuristic) {
    s.diagnostics.push_back("exact: starts from the " + heuristic->generator + " schedule: II " +
                            std::to_string(heuristic->ii) + ", " +
                            std::to_string(heuristic->stage_count) + " stages");
  }

  const IiRange range = search_range(lower, last);
  proven_below_ = range.lower;
  const IiSearchResult r =
      search_ii(g_, range, IiSearch::kLinear, [&](int64_t ii) { return attempt(ii); });
  const std::optional<int64_t> found =
      r.end == IiSearchEnd::kFound ? std::optional<int64_t>(r.ii) : std::nullopt;
  const int64_t reached = found ? *found : heuristic ? heuristic->ii : 0;
  if (proven_below_ == reached) proof_us_ = elapsed_us(t0_);
  if (found) {
    s.feasible = true;
    s.ii = *found;
    s.start = found_start_;
    model_.reset();
    lower_stages();
  } else if (heuristic) {
    s.feasible = true;
    s.ii = heuristic->ii;
    s.start = heuristic->start;
    s.diagnostics.push_back("II " + std::to_string(s.ii) + ": the " + heuristic->generator +
                            " schedule (the upper bound)");
    lower_stages();
  }
  if (s.feasible) verify_result(heuristic, lower);
  s.lower_bound = s.feasible ? std::min(proven_below_, s.ii) : proven_below_;
  s.proven_optimal = s.feasible && proven_below_ == s.ii;
  if (!s.feasible) report_failure(range, r);
  note_descent();
  return finish(heuristic);
}

IiRange Oracle::search_range(int64_t mii, int64_t last) {
  // Below the heuristics' lower bound no II needs a check (search.h: the
  // groups' span and the exclusive holds); Z3 proves such packings one II
  // at a time (docs/EXACT.md, step 3).
  const Adjacency adj = Adjacency::build(g_);
  const IiRange range{
      heuristic_ii_lower(g_, mii, group_span_bound(g_, adj, find_leader_groups(g_).members)),
      last};
  if (range.lower > mii) {
    result_.schedule.diagnostics.push_back(
        "II " + std::to_string(mii) + " to " + std::to_string(range.lower - 1) +
        ": infeasible without a check (the leader groups' span or holds over half a slot's or "
        "rate pool's capacity need II >= " +
        std::to_string(range.lower) + ")");
  }
  return range;
}

void Oracle::note_descent() {
  Schedule& s = result_.schedule;
  if (s.feasible && !s.stages_proven) {
    s.diagnostics.push_back(
        "exact: stage count " + std::to_string(s.stage_count) + " at II " +
        std::to_string(s.ii) + " not proven minimal" +
        (descent_rlimit_hit_ ? " (the descent reached its resource limit, descent_rlimit)"
         : descent_cut_      ? " (the time limit cut the descent short)"
                             : ""));
  }
  if (descent_cut_) {
    s.diagnostics.push_back("exact: the time limit cut the stage/start descent short; the "
                            "starts may differ from run to run (the II and bounds do not)");
  }
}

ExactResult Oracle::finish(const std::optional<Schedule>& heuristic) {
  record_stats(heuristic);
  result_.schedule.time_ns =
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

IiVerdict Oracle::attempt(int64_t ii) {
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
  switch (a.outcome) {
    case IiOutcome::kFeasible: return IiVerdict::kPlaced;
    case IiOutcome::kSkipped: return IiVerdict::kStop;  // the budget is spent
    default: return IiVerdict::kNotPlaced;
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
  s.stages_proven = false;
  if (heuristic) {
    s.ii = heuristic->ii;
    s.start = heuristic->start;
    derive_stage_order(s);
  } else {
    s.feasible = false;
  }
  proven_below_ = lower;
}

void Oracle::report_failure(const IiRange& range, const IiSearchResult& r) {
  Schedule& s = result_.schedule;
  publish_search(g_, range, r, {}, nullptr, s);
  // An undecided II (time limit) leaves the question open, whatever the
  // search's end.
  if (counts_[static_cast<int>(IiOutcome::kUnknown)] > 0 ||
      counts_[static_cast<int>(IiOutcome::kSkipped)] > 0) {
    s.failure = FailureReason::kBudgetExhausted;
  }
  s.diagnostics.push_back("exact: lower bound " + std::to_string(proven_below_));
}

void Oracle::record_stats(const std::optional<Schedule>& heuristic) {
  Schedule& s = result_.schedule;
  s.stats = {{"exact.ii_infeasible", counts_[static_cast<int>(IiOutcome::kInfeasible)]},
             {"exact.ii_feasible", counts_[static_cast<int>(IiOutcome::kFeasible)]},
             {"exact.ii_unknown", counts_[static_cast<int>(IiOutcome::kUnknown)]},
             {"exact.ii_skipped", counts_[static_cast<int>(IiOutcome::kSkipped)]},
             {"exact.heuristic_ii", heuristic ? heuristic->ii : 0},
             {"exact.heuristic_stages", heuristic ? heuristic->stage_count : 0},
             {"exact.heuristic_us", heuristic_us_},
             {"exact.stage_bound", result_.stage_bound},
             {"exact.descent_start_stages", start_stages_},
             {"exact.tight_found", tight_found_},
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
