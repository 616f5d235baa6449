// The exact oracle (docs/EXACT.md): starts from the best heuristic
// schedule; one satisfiability check (CaDiCaL or Z3) per candidate II from the MII up,
// below that schedule's II; then, at the reported II, the stage count is
// lowered from the best known one by bisection (and, optionally, the sum of
// starts). Every II below the reported one that was proven infeasible
// raises the lower bound; an undecided one (time limit) stops it (the
// backends stop a check at the call's deadline: sat_backend.cc,
// smt_backend.cc's watchdog).
// This file holds the search over IIs and the proof at each; the start
// schedules are in start_schedules.cc, the stage descent in
// stage_descent.cc, the class they share in oracle.h.
#include "tilesched/exact.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "util/elapsed.h"
#include "util/test_seams.h"
#include "graph/storage.h"
#include "oracle.h"
#include "tilesched/limits.h"
#include "tilesched/mii.h"
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

std::string_view sat_encoding_name(SatEncoding e) {
  return e == SatEncoding::kTimeIndexed ? "time" : "rowstage";
}

std::optional<SatEncoding> parse_sat_encoding(std::string_view name) {
  if (name == "rowstage") return SatEncoding::kRowStage;
  if (name == "time") return SatEncoding::kTimeIndexed;
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


namespace exact_internal {

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
    std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(sub, ii, false);
    if (!asap) continue;  // below its recurrence: the graph's ASAP pass already says so
    const exact_internal::ModelSpec spec =
        *exact_internal::model_spec(sub, ii, exact_internal::stage_bound(sub, ii),
                                    std::min(until, budget_.deadline()), std::move(asap));
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
  if (test_seams::between_checks != nullptr) test_seams::between_checks();
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
  const exact_internal::ModelSpec spec =
      *exact_internal::model_spec(g_, ii, k, budget_.deadline(), asap);
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

ExactResult Oracle::run() {
  Schedule& s = result_.schedule;
  record_options();
  s.mii = compute_mii(g_);
  const int64_t lower = s.mii.max();
  IiPrecheck precheck = precheck_ii(g_);  // once: the search below starts from it
  if (const std::optional<int64_t> stores = precheck.stores_over) {
    // No II can be legal (the driver's pre-check): the search would prove
    // every II up to its cap (no heuristic schedule) infeasible, one solver
    // check each, to the same bound.
    proven_below_ = oracle_ii_range(g_, lower, std::nullopt).cap + 1;
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
  if (heuristic) {
    s.diagnostics.push_back("exact: starts from the " + heuristic->generator + " schedule: II " +
                            std::to_string(heuristic->ii) + ", " +
                            std::to_string(heuristic->stage_count) + " stages");
  }

  const IiRange range = search_range(lower, heuristic ? std::optional<int64_t>(heuristic->ii)
                                                     : std::nullopt);
  proven_below_ = range.lower;
  const IiSearchResult r = search_ii(std::move(precheck), range, IiSearch::kLinear,
                                     [&](int64_t ii) { return attempt(ii); });
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

IiRange Oracle::search_range(int64_t mii, std::optional<int64_t> heuristic_ii) {
  // Below the heuristics' lower bound no II needs a check (ii_range.h: the
  // groups' span and the exclusive holds); Z3 proves such packings one II
  // at a time (docs/EXACT.md, step 3).
  const IiRange range = oracle_ii_range(g_, mii, heuristic_ii);
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
  // Named only when it is not the default, so the default's schedules read
  // as they always have.
  if (opts_.backend == ExactBackend::kSat && opts_.sat_encoding != SatEncoding::kRowStage) {
    s.options.emplace_back("sat_encoding", std::string(sat_encoding_name(opts_.sat_encoding)));
  }
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

}  // namespace exact_internal


StatusOr<ExactResult> generate_exact(const Graph& g, const ExactOptions& opts) {
  const exact_internal::Clock::time_point t0 = exact_internal::Clock::now();
  try {
    exact_internal::Oracle oracle(g, opts, t0);
    return oracle.run();
  } catch (const exact_internal::BackendFailure& e) {
    return Status::InvalidInput("exact: " + e.message);
  }
}

}  // namespace tilesched
