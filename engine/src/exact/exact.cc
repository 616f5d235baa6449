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
#include <memory>
#include <numeric>
#include <string>

#include "../elapsed.h"
#include "budget.h"
#include "../graph_algo.h"
#include "../ii_driver.h"
#include "../search.h"
#include "../storage.h"
#include "problem.h"
#include "tilesched/cost_based.h"
#include "tilesched/ims.h"
#include "tilesched/limits.h"
#include "tilesched/mii.h"
#include "tilesched/serial.h"
#include "tilesched/sms.h"
#include "tilesched/verify.h"

namespace tilesched {

std::string_view exact_backend_name(ExactBackend b) {
  return b == ExactBackend::kSmt ? "smt" : "sat";
}

std::optional<ExactBackend> parse_exact_backend(std::string_view name) {
  if (name == "sat") return ExactBackend::kSat;
  if (name == "smt") return ExactBackend::kSmt;
  return std::nullopt;
}

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

using exact_internal::Answer;
using exact_internal::Budget;
using exact_internal::elapsed_us;
using exact_internal::Clock;
using exact_internal::IiProblem;

int64_t max_stage(const std::vector<int64_t>& start, int64_t ii) {
  int64_t m = 0;
  for (int64_t x : start) m = std::max(m, x / ii);
  return m;
}

// The heuristic schedules the oracle starts from, in the order they run
// (on equal II and stage count the first wins). Another generator (a
// scheduler) joins the start by one entry here. Each run after serial is
// capped at the best II so far: it can tie it with fewer stages, and
// searching above it is wasted. The time limit covers them (docs/EXACT.md,
// "Time limit"): serial always runs (it is linear in the graph and the
// oracle has no answer without it); first-success cost-based may take all
// that remains before the oracle's deadline, each later one half of what
// remains, and a run its deadline cuts short is named in `skipped`, as is
// one that finds no time left to start. best_heuristic verifies every
// schedule.
std::vector<Schedule> heuristic_schedules(const Graph& g, const ExactOptions& opts,
                                          const Budget& budget, std::vector<std::string>& skipped) {
  std::vector<Schedule> out;
  int64_t best_ii = 0;  // 0: none yet
  auto run = [&](const std::string& name, int share, auto generate) {
    const int64_t left_ms = budget.remaining_ms();
    if (left_ms <= 0) {
      skipped.push_back(name);
      return;
    }
    const Deadline deadline = Clock::now() + std::chrono::milliseconds(left_ms / share);
    Schedule s = generate(deadline);
    if (!s.feasible && deadline_passed(deadline)) {
      skipped.push_back(name);
      return;
    }
    if (s.feasible && (best_ii == 0 || s.ii < best_ii)) best_ii = s.ii;
    out.push_back(std::move(s));
  };
  out.push_back(generate_serial(g));
  if (out.back().feasible) best_ii = out.back().ii;
  for (ArmPolicy policy : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
    const std::string name = "cost-based (" + std::string(arm_policy_name(policy)) + ")";
    run(name, policy == ArmPolicy::kFirstSuccess ? 1 : 2, [&](const Deadline& d) {
      CostBasedOptions o = opts.start;
      o.arm_policy = policy;
      o.ii_cap = best_ii;
      o.deadline = d;
      Schedule s = generate_cost_based(g, o).schedule;
      s.generator = name;
      return s;
    });
  }
  // The baseline modulo schedulers (docs/BASELINES.md).
  run("ims", 2, [&](const Deadline& d) {
    ImsOptions o;
    o.ii_cap = best_ii;
    o.deadline = d;
    return generate_ims(g, o);
  });
  run("sms", 2, [&](const Deadline& d) {
    SmsOptions o;
    o.ii_cap = best_ii;
    o.deadline = d;
    return generate_sms(g, o);
  });
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
  // The lines about a stage count the descent did not prove least, and
  // about models the backend declined.
  void note_descent();
  // The line naming the heuristics the time limit left out of the start.
  void note_skipped(const std::vector<std::string>& skipped);
  // At the reported II, from the schedule in result_: lowers its largest
  // stage by bisection between the ASAP floor and its own, each step a
  // check whose stage limit is the step's (docs/EXACT.md, step 5).
  void lower_stages();
  void lower_start_sum(const std::vector<int64_t>& asap, std::vector<int64_t>& start);
  // Never publishes an illegal schedule as proven: falls back to the
  // heuristic (or to infeasible) when the verifier refuses the model's.
  void verify_result(const std::optional<Schedule>& heuristic, int64_t lower);
  void report_failure(const IiRange& range, const IiSearchResult& r);
  void record_stats(const std::optional<Schedule>& heuristic);
  // The stats and the time: the last step of run().
  ExactResult finish(const std::optional<Schedule>& heuristic);

  // The backend, made at the first model (the SMT backend's context costs
  // about 10 ms, more than a small graph's whole search, and an oracle
  // whose start already meets the MII at the ASAP stage floor builds none).
  exact_internal::Backend& backend();
  // HatScheT's components first: whether some strongly connected component
  // alone has no legal schedule at ii (then the graph has none).
  bool component_infeasible(int64_t ii);
  // One check of `problem` with every stage at most `stages`, under
  // `limit_ms` (and the oracle's deadline) and `units` of the backend's
  // deterministic work (0: none).
  Answer run_check(IiProblem& problem, int64_t stages, int64_t limit_ms, int64_t units = 0);
  // Frees a model, keeping the time it took in the budget's reserve.
  void free_timed(std::unique_ptr<IiProblem>& problem);
  // The model at ii with stage bound k into model_ (kept when it is
  // already that II's and takes stage limits up to k); false (model_
  // empty) when the deadline passed while building it, or when the
  // backend declined a model that large (too_large_ set).
  bool build(int64_t ii, int64_t k, const std::vector<int64_t>& asap);
  // One check at ii with the safe stage bound, after a short one bounded
  // near the start's stage count (when that is lower).
  IiOutcome decide(int64_t ii);
  Answer check_in_descent(int64_t stages, int64_t limit_ms);
  // One descent check under the time budget.
  Answer ask(int64_t stages);
  // Lowers measure(start) from its value towards `lo` by bisection: each
  // step asks `attempt(mid, next)` whether a schedule of measure <= mid
  // exists (filling `next` on sat), keeps it on sat, raises lo on unsat,
  // stops on unknown. Returns the measure reached; `closed` says whether it
  // met lo (a proof).
  template <class Attempt, class Measure>
  int64_t bisect(int64_t lo, std::vector<int64_t>& start, Attempt attempt, Measure measure,
                 bool& closed);
  // One descent step at ii: every stage at most k (and the sum of starts
  // at most `sum_limit`, when set; a fresh model then), the search begun
  // near `hint` (the schedule in hand); the starts on sat.
  Answer descent_step(int64_t ii, int64_t k, const std::vector<int64_t>& asap,
                      std::optional<int64_t> sum_limit, const std::vector<int64_t>& hint,
                      std::vector<int64_t>& next);
  // The descent's budget in the backend's deterministic units.
  int64_t descent_budget() const;

  const Graph& g_;
  const ExactOptions& opts_;
  Clock::time_point t0_;
  Budget budget_;
  std::unique_ptr<exact_internal::Backend> backend_;
  ExactResult result_;
  std::unique_ptr<IiProblem> model_;  // the model of the last II asked
  int64_t model_ii_ = 0;
  int64_t model_k_ = 0;
  bool too_large_ = false;           // the backend declined the last model
  int64_t too_large_count_ = 0;
  std::vector<int64_t> found_start_;
  int64_t solver_us_ = 0;
  int64_t descent_checks_ = 0;
  int64_t descent_units_ = 0;        // backend units the descent used
  int64_t start_stages_ = 0;         // stage count the descent started from
  int64_t descent_from_ = 0;         // its largest stage: the SAT model's bound
  std::optional<int64_t> start_max_stage_;  // the best heuristic's largest stage
  int64_t tight_found_ = 0;          // IIs found feasible by the tight check
  std::optional<std::vector<Graph>> components_;  // component_subgraphs, once
  int64_t component_proofs_ = 0;     // IIs proven infeasible by a component
  int64_t heuristic_us_ = 0;         // the heuristic runs and their checks
  std::optional<int64_t> proof_us_;  // when the lower bound met the II
  bool descent_cut_ = false;        // by the time limit: may differ run to run
  bool descent_rlimit_hit_ = false;  // by the descent budget: the same on every run
  std::optional<int64_t> build_cut_ii_;  // the II whose model the time limit cut
  int64_t proven_below_ = 0;  // every II in [lower, proven_below_) is infeasible
  int counts_[4] = {0, 0, 0, 0};  // decided IIs by IiOutcome
};

exact_internal::Backend& Oracle::backend() {
  if (!backend_) {
    backend_ = opts_.backend == ExactBackend::kSmt ? exact_internal::make_smt_backend(opts_.random_seed)
                                                   : exact_internal::make_sat_backend(opts_.sat_encoding);
  }
  return *backend_;
}

// A legal schedule restricted to a component's ops is legal for the
// component's subgraph (every rule only loses terms), so a component with
// none proves the II infeasible (docs/EXACT.md, "Components first"). The
// components' checks share a quarter of the check's time; only unsat
// counts.
bool Oracle::component_infeasible(int64_t ii) {
  // The SAT backend only: Z3 overran the call's limit building and checking
  // components under load (54 s of 20 s on aes2 graph2).
  if (opts_.backend != ExactBackend::kSat) return false;
  if (!components_) components_ = exact_internal::component_subgraphs(g_);
  const Clock::time_point until =
      Clock::now() + std::chrono::milliseconds(budget_.next_check_ms() / 4);
  for (const Graph& sub : *components_) {
    const int64_t left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) return false;
    const std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(sub, ii, false);
    if (!asap) continue;  // below its recurrence: the graph's ASAP pass already says so
    exact_internal::ModelSpec spec;
    spec.ii = ii;
    spec.stage_bound = exact_internal::stage_bound(sub, ii);
    spec.asap = *asap;
    spec.tail = *exact_internal::longest_paths(sub, ii, true);
    spec.deadline = std::min(until, budget_.deadline());
    std::unique_ptr<IiProblem> problem;
    try {
      problem = backend().build(sub, spec);
    } catch (const exact_internal::ModelDeadline&) {
      if (Clock::now() >= budget_.deadline()) build_cut_ii_ = ii;  // not the components' share
      return false;
    }
    const bool unsat = problem && run_check(*problem, spec.stage_bound, left) == Answer::kUnsat;
    free_timed(problem);
    if (unsat) {
      ++component_proofs_;
      return true;
    }
  }
  return false;
}

Answer Oracle::run_check(IiProblem& problem, int64_t stages, int64_t limit_ms, int64_t units) {
  // Before a model's first check: its estimate of the stretch.
  budget_.reserve_cpu(problem.unpolled_cpu_us());
  budget_.sample();
  const Clock::time_point until =
      std::min(Clock::now() + std::chrono::milliseconds(std::max<int64_t>(1, limit_ms)),
               budget_.deadline());
  const Answer answer = problem.check(stages, until, units);
  if (exact_internal::between_checks_for_tests != nullptr) exact_internal::between_checks_for_tests();
  budget_.reserve_clock(elapsed_us(until));
  budget_.reserve_cpu(problem.unpolled_cpu_us());
  return answer;
}

void Oracle::free_timed(std::unique_ptr<IiProblem>& problem) {
  const Clock::time_point t = Clock::now();
  const int64_t cpu = thread_cpu_us();
  problem.reset();
  budget_.reserve_clock(elapsed_us(t));
  budget_.reserve_cpu(thread_cpu_us() - cpu);
}

bool Oracle::build(int64_t ii, int64_t k, const std::vector<int64_t>& asap) {
  too_large_ = false;
  if (model_ && model_ii_ == ii && model_->limits_stages() && model_k_ >= k) return true;
  free_timed(model_);
  budget_.sample();
  exact_internal::ModelSpec spec;
  spec.ii = ii;
  spec.stage_bound = k;
  spec.asap = asap;
  spec.tail = *exact_internal::longest_paths(g_, ii, true);
  spec.deadline = budget_.deadline();
  try {
    model_ = backend().build(g_, spec);
  } catch (const exact_internal::ModelDeadline&) {
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
  const std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g_, ii, false);
  if (!asap) return IiOutcome::kInfeasible;  // II below a recurrence: no model needed
  const int64_t k = exact_internal::stage_bound(g_, ii);
  // The resources' stage floor (stage_floor.cc): none at K proves the II
  // infeasible without a model.
  const std::optional<int64_t> stage_floor = exact_internal::resource_stage_floor(
      g_, ii, *asap, *exact_internal::longest_paths(g_, ii, true), max_stage(*asap, ii), k);
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
  if (sum_limit) free_timed(model_);  // the sum bound stays in the model: a fresh one
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
  if (sum_limit) free_timed(model_);
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
  std::vector<std::string> skipped;
  const std::optional<Schedule> heuristic =
      best_heuristic(g_, heuristic_schedules(g_, opts_, budget_, skipped));
  heuristic_us_ = elapsed_us(t0_);
  note_skipped(skipped);
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

void Oracle::note_skipped(const std::vector<std::string>& skipped) {
  if (skipped.empty()) return;
  std::string names;
  for (const std::string& n : skipped) names += (names.empty() ? "" : ", ") + n;
  result_.schedule.diagnostics.push_back("exact: the time limit ended before " + names +
                                         " could finish (each has a share of it); the start is "
                                         "the best of the others");
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
               {"descent_rlimit", std::to_string(opts_.descent_rlimit)},
               {"descent_conflicts", std::to_string(opts_.descent_conflicts)},
               {"backend", std::string(exact_backend_name(opts_.backend))}};
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
             {"exact.component_proofs", component_proofs_},
             {"exact.descent_checks", descent_checks_},
             {"exact.descent_units", descent_units_},
             {"exact.solver_us", solver_us_},
             {"exact.reserve_us", budget_.reserve_us()},
             {"exact.reserve_cpu_us", budget_.reserve_cpu_us()},
             {"exact.cpu_share_pct", static_cast<int64_t>(100 * budget_.share())}};
  if (s.proven_optimal && proof_us_) s.stats.emplace_back("exact.proof_us", *proof_us_);
}

}  // namespace

StatusOr<ExactResult> generate_exact(const Graph& g, const ExactOptions& opts) {
  const Clock::time_point t0 = Clock::now();
  try {
    Oracle oracle(g, opts, t0);
    return oracle.run();
  } catch (const exact_internal::BackendFailure& e) {
    return Status::InvalidInput("exact: " + e.message);
  }
}

}  // namespace tilesched
