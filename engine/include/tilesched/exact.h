// The exact oracle (docs/CONTRACT.md, "The schedule generators"): proves the
// optimal II of a graph under L1-L7 with a SAT solver (CaDiCaL) or an SMT
// solver (Z3), then minimises the stage count at that II. It starts from the
// best heuristic schedule (serial, cost-based under both arm policies, IMS,
// SMS), so its II and stage count are never worse; one satisfiability
// question per candidate II, from the MII up to below that schedule's II.
// docs/EXACT.md states the formulation, the stage bounds and why they cut
// off no better schedule, the determinism and the time-limit semantics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilesched/cost_based.h"
#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

// Which solver answers the oracle's questions (docs/EXACT.md): a CNF on
// CaDiCaL (the default: faster on every measured set; its encoding is
// SatEncoding) or an integer model on Z3.
enum class ExactBackend { kSat, kSmt };
std::string_view exact_backend_name(ExactBackend b);
// "sat" or "smt"; nullopt for anything else.
std::optional<ExactBackend> parse_exact_backend(std::string_view name);

// The SAT backend's CNF (docs/EXACT.md): row/stage (order literals for
// each op's row and stage apart, the default: its size grows with II + K
// per op) or time-indexed (one per op and cycle of its window, II * K;
// it proves fewer HLS loops in time, and is kept as a second encoding the
// tests check the first against). `--sat-encoding rowstage|time`.
enum class SatEncoding { kRowStage, kTimeIndexed };
std::string_view sat_encoding_name(SatEncoding e);
// "rowstage" or "time"; nullopt for anything else.
std::optional<SatEncoding> parse_sat_encoding(std::string_view name);

struct ExactOptions {
  ExactBackend backend = ExactBackend::kSat;
  SatEncoding sat_encoding = SatEncoding::kRowStage;
  // Wall-clock budget for the whole oracle, heuristic run included, in
  // milliseconds. 0 gives the solver no time: the heuristic schedule with
  // the MII as its lower bound (proven only when the two meet).
  int64_t time_limit_ms = 10'000;
  // After the optimal II: minimise the stage count. Off: the first model
  // found at that II (or the heuristic's schedule when that II is its).
  bool minimise_stages = true;
  // Then minimise the sum of starts (a bisection; a canonical tie-break,
  // though a fresh context with a fixed seed is deterministic without it;
  // `tilesched schedule --exact-start-sum`). The SMT backend only. Off by
  // default: on 24-op graphs it is dozens of checks for no change in II or
  // stage count.
  bool minimise_start_sum = false;
  // Z3 resource units ("rlimit") for that whole descent (the stage count
  // never rises above the schedule it started from, whatever stops it), about 0.5-2.5 s
  // on the development machine (loaded or not). Unlike time it counts the same on every run,
  // so where it ends the descent, it ends it the same way each time.
  int64_t descent_rlimit = 500'000;
  // The same budget for the SAT backend, in CaDiCaL conflicts (learned
  // clauses) over the whole descent. On the HLS set 2,000 proved as many
  // stage counts as 200,000 (107), and it ends the open questions (perfect
  // packings of a saturated slot at 1-2 ms per conflict) in seconds rather
  // than at half the time limit (docs/EXACT.md, "Speed").
  int64_t descent_conflicts = 2'000;
  unsigned random_seed = 0;  // Z3's random_seed (fixed: reproducible runs; SMT only)
  // The cost-based runs of the start (both arm policies): these options,
  // with the arm policy and the II cap set per run. A caller that bounds
  // the cost-based generator's work (e.g. a smaller descent budget, as the
  // fuzzers do) bounds the start's the same way.
  CostBasedOptions start;
};

// What the solver said about one candidate II.
enum class IiOutcome { kInfeasible, kFeasible, kUnknown, kSkipped };
std::string_view ii_outcome_name(IiOutcome o);

struct IiAttempt {
  int64_t ii = 0;
  IiOutcome outcome = IiOutcome::kSkipped;
  int64_t solver_us = 0;
};

struct ExactResult {
  // generator "exact"; proven_optimal and lower_bound always set; stats
  // and diagnostics carry the per-II outcomes.
  Schedule schedule;
  std::vector<IiAttempt> attempts;  // in the order they were asked
  int64_t stage_bound = 0;  // K of the model at the reported II (docs/EXACT.md)
};

// REQUIRES: g passed validate_graph. A solver failure (out of memory, ...) is
// an InvalidInput status naming it; no exception leaves this function.
// No legal schedule within the search range is a Schedule with feasible =
// false (reason kIiCapReached, or kBudgetExhausted when time ran out).
StatusOr<ExactResult> generate_exact(const Graph& g, const ExactOptions& opts);

}  // namespace tilesched
