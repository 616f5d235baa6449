// The exact oracle (docs/EXACT.md): starts from the best heuristic
// schedule; one satisfiability check (CaDiCaL or Z3) per candidate II from the MII up,
// below that schedule's II; then, at the reported II, the stage count is
// lowered from the best known one by bisection (and, optionally, the sum of
// starts). Every II below the reported one that was proven infeasible
// raises the lower bound; an undecided one (time limit) stops it (the
// backends stop a check at the call's deadline: sat_backend.cc,
// smt_backend.cc's watchdog).
// This file holds the entry point and the search over IIs; the proof at
// each II is in ii_proof.cc, the start schedules in start_schedules.cc,
// the stage descent in stage_descent.cc, the class they share in oracle.h.
#include "tilesched/exact.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "util/elapsed.h"
#include "graph/storage.h"
#include "oracle.h"
#include "tilesched/limits.h"
#include "tilesched/mii.h"
#include "tilesched/verify.h"
#include "util/test_seams.h"

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
  // groups' span, the exclusive holds, the stage span and the holders'
  // packing); Z3 proves such packings one II
  // at a time (docs/EXACT.md, step 3).
  const IiRange range = oracle_ii_range(g_, mii, heuristic_ii);
  if (range.lower > mii) {
    result_.schedule.diagnostics.push_back(
        "II " + std::to_string(mii) + " to " + std::to_string(range.lower - 1) +
        ": infeasible without a check (the leader groups' span, holds over half a slot's or "
        "rate pool's capacity, the stage span, or the densest slot's holders' packing need "
        "II >= " +
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
               {"per_check_limit_ms", std::to_string(test_seams::per_check_limit_ms)},
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
