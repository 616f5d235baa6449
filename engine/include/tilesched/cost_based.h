// The cost-based generator (TileASGenerateSchedule's throughput path; seeds
// 004, 001, 000, 002, 003): a Rau-style modulo scheduler that searches II
// from MII, places ops through four arms (permute, fuse, retry, cost-based)
// behind four admission gates (G1 pending set, G2 max depth, G3 RRT veto,
// G4 leader group), ranks seats by a lexicographic cost vector, escalates
// through a strategy ladder and refines its own constraints in a bounded
// loop. docs/COST_BASED.md explains every mechanism and each choice made
// where the seeds are vague or contradict each other.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/ii_search.h"
#include "tilesched/schedule.h"

namespace tilesched {

// 004: the first arm that succeeds wins; 001: every arm proposes and the
// cheapest proposal wins.
enum class ArmPolicy { kFirstSuccess, kBestCost };
std::string_view arm_policy_name(ArmPolicy p);
std::optional<ArmPolicy> parse_arm_policy(std::string_view name);

// The effort contract (docs/COST_BASED.md "Effort"): how much counted
// work (units, never the clock) the generator may spend, scaled to the
// graph's size. kFull spends what the mechanisms' own bounds allow (no
// work budget); kDefault and kFast give each II attempt, the upward II
// walk and the descent a budget, and stop each with the best they have.
enum class Effort { kFast, kDefault, kFull };
std::string_view effort_name(Effort e);  // "fast", "default", "full"
std::optional<Effort> parse_effort(std::string_view name);

struct CostBasedOptions {
  ArmPolicy arm_policy = ArmPolicy::kFirstSuccess;
  Effort effort = Effort::kDefault;
  // How the II search walks its range (its range and deadline:
  // IiSearchOptions, generate_cost_based's third argument).
  IiSearch ii_search = IiSearch::kLinear;
  int permute_budget = 24;        // exhaustive permutations up to this count
  int permute_samples = 8;        // seeded samples beyond it
  int eviction_budget_ratio = 2;  // Rau: placements per op before a rung gives up (measured, docs)
  int max_constraint_iterations = 16;  // 003: bound of the refinement loop
  // The backtracking rung after the seed's rungs (docs/COST_BASED.md):
  // seats per op it may spend at one II; 0 runs the seed's ladder only.
  int backtrack_budget_ratio = 32;
  // After the search finds an II above its lower bound: the IIs below it
  // are tried again, by the backtracking rung alone with this many seats
  // per op, until one fails (docs/COST_BASED.md); 0 keeps the found II.
  int descent_budget_ratio = 1000;
  // best-cost only: when its rungs fail at an II, first-success's rungs run
  // before the II is given up, and first-success's whole attempt where
  // best-cost's placement fails the refinement loop (docs/COST_BASED.md);
  // false: seed 001 as written.
  bool policy_fallback = true;
  // The seeds' all-pairs distance closure (seed 000) for the windows and
  // the II screen; false: windows kept along the edges, no closure
  // (docs/COST_BASED.md).
  bool all_pairs_closure = false;
  // Start from a schedule that exists (docs/COST_BASED.md "The IMS
  // start"): IMS's schedule (or the caller's `start`) is computed first and
  // is the upper bound and the fallback, so the walk only tries IIs below
  // it, and at most max_failed_attempts of them fail before it stops (0:
  // the effort's, 1 at fast and default, 8 at full); the bisection and
  // the descent then work below the II kept. false: the seeds' walk from
  // the lower bound up to the cap.
  bool ims_start = true;
  int max_failed_attempts = 0;
  // The bound on the search below the start has its floor (context.h); a
  // stage cap's capped runs leave it out (the call's uncapped run paid
  // it), keeping only the multiple of their start's work.
  bool below_floor = true;
  // After the search: every op (but leader-group members), in
  // topological order, moved to the earliest seat at or before its own
  // that the other ops' seats and the table allow (docs/COST_BASED.md
  // "Stage compaction"); false: the seats as placed.
  bool compact_stages = true;
  uint64_t seed = 1;              // seeds permutation sampling
};

// `opts` with what the seeds do not have turned off: no backtracking rung,
// no descent, best-cost without the policy fallback (the generator
// "cost-based-seed"; docs/COST_BASED.md).
CostBasedOptions as_the_seeds_write_it(CostBasedOptions opts);

enum class Arm { kPermute, kFuse, kRetry, kCostBased };
inline constexpr int kArmCount = 4;
std::string_view arm_name(Arm a);

enum class Gate { kG1Pending, kG2MaxDepth, kG3Rrt, kG4Group };
inline constexpr int kGateCount = 4;
std::string_view gate_name(Gate g);

enum class Rung {
  kRauRefinement, kDeepestRetry, kInitialPlacement, kCostBasedPlacement,
  kInitialAfterClear, kCostBasedAfterClear, kBacktrack, kSerialFallback,
};
inline constexpr int kRungCount = 8;
std::string_view rung_name(Rung r);

// Why an II attempt gave up. Counted per II tried.
enum class GiveUp {
  kPositiveCycle,    // II < RecMII for some cycle: the distance closure fails
  kNoSeat,           // every arm rejected and the eviction budget ran out
  kStorage,          // placement done, L4 (SMEM) violated, refinement exhausted
};
inline constexpr int kGiveUpCount = 3;
std::string_view give_up_name(GiveUp g);

// What the constraint builder read when it added a constraint (seed 003:
// register pressure, resource-footprint density, pipeline depth, structural
// grouping). Builder constraints are soft: the refinement loop lifts them.
enum class ConstraintFamily { kRegisterPressure, kDensity, kDepth, kGrouping };
inline constexpr int kConstraintFamilyCount = 4;
std::string_view constraint_family_name(ConstraintFamily f);

struct CostBasedStats {
  int64_t ii_tried = 0;
  int64_t ii_screened = 0;  // IIs the II screen proved infeasible, search and descent

  std::array<int64_t, kArmCount> arm_proposals{};  // an arm offered a seat
  std::array<int64_t, kArmCount> arm_wins{};       // its proposal was committed
  std::array<int64_t, kGateCount> gate_rejects{};
  std::array<int64_t, kRungCount> rung_attempts{};
  std::array<int64_t, kRungCount> rung_successes{};
  std::array<int64_t, kGiveUpCount> give_ups{};
  int64_t evictions = 0;
  int64_t descent_successes = 0;  // IIs the descent took below the search's
  int64_t backtrack_seats = 0;  // seats the backtracking rung took, undone ones included
  int64_t group_reorders = 0;
  int64_t refinement_iterations = 0;
  int64_t constraints_added = 0;
  int64_t constraints_lifted = 0;
  std::array<int64_t, kConstraintFamilyCount> family_added{};   // per family
  std::array<int64_t, kConstraintFamilyCount> family_lifted{};
  int64_t spill_surcharges = 0;
  // The effort contract's work units (gate admissions, cycles the RRT veto
  // scanned, seats taken) per phase, and how often each budget ran out.
  int64_t work_search = 0;    // the upward II walk's attempts
  int64_t work_descent = 0;   // the descent below the found II
  int64_t work_start = 0;     // the starting schedule: IMS's search, or none given
  int64_t work_graph = 0;     // the graph's facts (reachability), built once
  int64_t work_total = 0;     // every unit of the call, earlier effort levels' included
  int64_t start_ii = 0;       // the starting schedule's II (0: none)
  int64_t start_kept = 0;     // 1: no II below the start's placed, its schedule is published
  int64_t bisect_probes = 0;  // IIs probed between the walk's failures and the descent's
  int64_t packed_first = 0;   // IIs of the walk placed by the packing-first backtracking rung
  int64_t attempts_out_of_work = 0;  // II attempts stopped at their budget
  int64_t walk_out_of_work = 0;      // 1: the upward walk's budget ran out
  int64_t descent_out_of_work = 0;   // 1: the descent's budget ran out
};

// The counters as named fields in a fixed order ("arm_wins.permute", ...),
// as the schedule JSON and the sweep CSV carry them.
std::vector<std::pair<std::string, int64_t>> stats_fields(const CostBasedStats& s);

struct CostBasedResult {
  Schedule schedule;
  CostBasedStats stats;
  uint8_t refinement_status = 0;  // 003: bit 0 converged, bit 1 budget exceeded
};

// `search`: the II range and the deadline (tilesched/ii_search.h).
// REQUIRES: g passed validate_graph.
// `start`: a feasible schedule of g to beat (a cheaper effort level's),
// in place of IMS's when opts.ims_start; its stat "work.total" is carried
// into this call's.
CostBasedResult generate_cost_based(const Graph& g, const CostBasedOptions& opts,
                                    const IiSearchOptions& search = {},
                                    const Schedule* start = nullptr);

}  // namespace tilesched
