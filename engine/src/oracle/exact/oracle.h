// The exact oracle (docs/EXACT.md), one class across its steps: the
// heuristic start schedules (start_schedules.cc), the search over IIs
// (exact.cc), the proof at each II (ii_proof.cc) and the stage descent at
// the reported II (stage_descent.cc). Internal to the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/ii_driver.h"
#include "search/ii_range.h"
#include "budget.h"
#include "components.h"
#include "query.h"
#include "tilesched/exact.h"
#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched::exact_internal {

// The largest stage of `start` at `ii`.
int64_t max_stage(const std::vector<int64_t>& start, int64_t ii);

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
                                          const Budget& budget, std::vector<std::string>& skipped);

// The legal schedule of least II, then least stage count, shifted so that
// its smallest start is 0 (which keeps it legal, docs/EXACT.md, and only
// lowers stages); nullopt when no heuristic found a legal one.
std::optional<Schedule> best_heuristic(const Graph& g, std::vector<Schedule> candidates);

// Checks and frees its models itself (ComponentChecks): each keeps the
// budget's reserve.
class Oracle : private ComponentChecks {
 public:
  Oracle(const Graph& g, const ExactOptions& opts, Clock::time_point t0)
      : g_(g), opts_(opts), t0_(t0), budget_(t0, opts), components_(g) {}
  ExactResult run();

 private:
  void record_options();
  // The attempt at one II for the shared search (ii_driver.h): one proof
  // (decide), its diagnostic line and counts; raises proven_below_. An II
  // the budget skips stops the search.
  IiVerdict attempt(int64_t ii);
  // The IIs the search decides (oracle_ii_range, ii_driver.h): from the
  // heuristics' lower bound (above `mii`, with a line saying so) to one
  // below the best heuristic II.
  IiRange search_range(int64_t mii, std::optional<int64_t> heuristic_ii);
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
  // HatScheT's components first (components.h), the SAT backend only, in
  // a quarter of the check's time: whether some strongly connected
  // component alone has no legal schedule at ii (then the graph has none).
  bool component_infeasible(int64_t ii);
  // One check of `problem` with every stage at most `stages`, until `until`
  // (and the oracle's deadline), under `units` of the backend's
  // deterministic work (0: none).
  Answer check(IiProblem& problem, int64_t stages, Clock::time_point until,
               int64_t units) override;
  // The same under `limit_ms` from now.
  Answer run_check(IiProblem& problem, int64_t stages, int64_t limit_ms, int64_t units = 0);
  // Frees a model, keeping the time it took in the budget's reserve.
  void release(std::unique_ptr<IiProblem>& problem) override;
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
  ComponentProof components_;
  int64_t component_proofs_ = 0;     // IIs proven infeasible by a component
  int64_t heuristic_us_ = 0;         // the heuristic runs and their checks
  std::optional<int64_t> proof_us_;  // when the lower bound met the II
  bool descent_cut_ = false;        // by the time limit: may differ run to run
  bool descent_rlimit_hit_ = false;  // by the descent budget: the same on every run
  std::optional<int64_t> build_cut_ii_;  // the II whose model the time limit cut
  int64_t proven_below_ = 0;  // every II in [lower, proven_below_) is infeasible
  int counts_[4] = {0, 0, 0, 0};  // decided IIs by IiOutcome
};

}  // namespace tilesched::exact_internal
