// What every phase of the cost-based generator reads (seed 000): the
// per-graph facts computed once (footprints, priorities, leader groups,
// register footprints, the bank model), the effort contract's meter and
// budgets (docs/COST_BASED.md "Effort"), and the diagnostic lines the
// phases leave in the schedule.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bounds/rrt.h"
#include "graph/reachability.h"
#include "model/arith.h"
#include "tilesched/cost_based.h"
#include "tilesched/deadline.h"
#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "util/test_seams.h"

namespace tilesched::cost_based {

// The effort contract (docs/COST_BASED.md "Effort"): the work units the
// generator counts (every gate admission, every cycle the RRT veto scans,
// every seat taken: what its time goes to, counted, never timed) and the
// budgets an effort level puts on them, scaled to the graph's size. The
// meter is read where the rungs, the backtracking search and the II walk
// already look at the deadline, so a spent budget ends the phase there
// with the best it has.

// The budgets of one run, in work units; 0: none.
struct EffortBudgets {
  int64_t attempt = 0;  // one II attempt of the upward walk
  int64_t walk = 0;     // the upward walk's attempts together
  int64_t descent = 0;  // the descent's attempts together
  int failed_attempts = 0;  // the walk's failing II attempts below its start
  // Below a starting schedule: the walk, and the bisection with the
  // descent, each spend at most max(below_floor, below_factor x the
  // start's work), so that searching below IMS costs a bounded multiple of
  // IMS (docs/COST_BASED.md "The IMS start"); 0: no such bound.
  int64_t below_factor = 0;
  int64_t below_floor = 0;
};

// kFull: none. Otherwise so many units per op or edge, a graph of fewer
// than 80 ops and edges counted as 80 (docs/COST_BASED.md "Effort").
EffortBudgets effort_budgets(Effort effort, const Graph& g);

class WorkMeter {
 public:
  // The graph's facts (built once, when first asked), the starting
  // schedule (IMS's search), the upward walk, the descent.
  enum Phase { kGraph, kStart, kSearch, kDescent, kPhaseCount };

  // Counts `units` to the current phase.
  void add(int64_t units) {
    total_ += units;
    spent_[phase_] += units;
  }
  // Counts `units` to `phase`, outside the current phase's budget.
  void add_to(Phase phase, int64_t units) {
    total_ += units;
    spent_[phase] += units;
  }
  // Enters `phase` under `limit` for the whole phase (0: none); the attempt
  // budget is off until start_attempt.
  void start_phase(Phase phase, int64_t limit) {
    phase_ = phase;
    phase_limit_ = limit;
    attempt_limit_ = 0;
  }
  // One attempt within the phase, under `limit` (0: none).
  void start_attempt(int64_t limit) {
    attempt_start_ = spent_[phase_];
    attempt_limit_ = limit;
  }
  bool attempt_out() const {
    return attempt_limit_ > 0 && spent_[phase_] - attempt_start_ > attempt_limit_;
  }
  bool phase_out() const { return phase_limit_ > 0 && spent_[phase_] > phase_limit_; }
  bool out() const { return attempt_out() || phase_out(); }
  int64_t spent(Phase p) const { return spent_[p]; }
  int64_t total() const { return total_; }

 private:
  std::array<int64_t, kPhaseCount> spent_{};
  int64_t total_ = 0;
  Phase phase_ = kSearch;
  int64_t phase_limit_ = 0;
  int64_t attempt_start_ = 0;
  int64_t attempt_limit_ = 0;
};

// The diagnostic lines the cost-based generator's phases leave in the
// schedule (seed 004 "Diagnostics"): why an II failed, which builder
// constraints were added or lifted. At most kMaxLines per schedule.

class Notes {
 public:
  static constexpr size_t kMaxLines = 8;

  void add(std::string line) {
    if (lines_.size() < kMaxLines) lines_.push_back(std::move(line));
  }
  std::vector<std::string>& lines() { return lines_; }

 private:
  std::vector<std::string> lines_;
};

// Per-graph facts the cost-based generator computes once and every II
// attempt reads: footprints, priorities, leader groups, register
// footprints and the bank model of the cost evaluators (seed 000).

inline constexpr int kNoGroup = -1;  // LeaderGroups::kNone
inline constexpr int64_t kUnbounded = INT64_MAX / 4;

struct Context {
  // `bounds`: the graph's MII parts (compute_mii), computed once by the caller.
  Context(const Graph& graph, const CostBasedOptions& options, const MiiBounds& bounds);

  const Graph& g;
  const CostBasedOptions& opts;
  Adjacency adj;
  std::vector<NodeRrt> nodes;          // per op
  std::vector<uint64_t> singleton_mask;  // per op: the singleton slots it claims
  MiiBounds mii;
  std::vector<int64_t> height;         // longest latency path to a sink (distance-0 edges)
  std::vector<int64_t> depth;          // longest latency path from a source
  std::vector<int> topo_rank;          // position in a topological order of the
                                       // distance-0 condensation, ties by id
  std::vector<int> zero_scc;           // distance-0 strongly connected component
  // Leader groups (rule L5, docs/CONTRACT.md): dense group ids; the anchor is the member
  // first in topological order, so no other member precedes it (G1).
  std::vector<int> group_of;           // per op, or kNoGroup
  std::vector<std::vector<OpId>> group_members;
  std::vector<OpId> group_anchor;
  // II lower bound from the groups (rule L5): members u, v with a distance-0
  // path of latency P must share a stage, so s_v - s_u <= II - 1 and
  // II >= P + 1. The II search starts at max(MII, this).
  int64_t group_span_bound = 1;
  // Register footprint per op (seed 002 spill model, docs/COST_BASED.md).
  std::vector<int64_t> regs;
  int64_t reg_budget = 0;
  // Bank occupancy (the target's bank model, seed 000 bank-pressure
  // evaluator): per op, whether it holds a bank slot and for how many cycles
  // from its start; the caps on in- and cross-iteration occupants.
  std::vector<char> touches_bank;
  std::vector<int64_t> bank_duration;
  int64_t bank_cap_in = kUnbounded;
  int64_t bank_cap_cross = kUnbounded;
  int64_t max_storage = 0;             // storage pool capacity, 0 when none
  // The effort contract's meter (WorkMeter), the generator's; none in unit
  // tests that build a context alone (nothing counted, no budget).
  WorkMeter* work = nullptr;
  // Ops or edges a plain scan (the ready set, the placed ops, the
  // builder's passes) reads per unit, as the windows' visits (windows.h);
  // a scan is charged ceil(read / kScansPerUnit).
  static constexpr int64_t kScansPerUnit = 8;
  // Counts `units` for the loop named `loop` (its count_trips name: the
  // trip-count test, util/test_seams.h, holds the two against each other).
  void count(int64_t units, const char* loop) const {
    if (work != nullptr) work->add(units);
    test_seams::count_units(loop, units);
  }
  // A plain scan that read `read` ops or edges: its trips, and
  // ceil(read / kScansPerUnit) units, for the loop named `loop`.
  void count_scan(int64_t read, const char* loop) const {
    test_seams::count_trips(loop, read);
    count(ceil_div(read, kScansPerUnit), loop);
  }
  bool out_of_work() const { return work != nullptr && work->out(); }
  // A path of one or more edges leads from a to b: the graph's
  // reachability rows, built at the first question, their cost counted.
  bool reaches(OpId a, OpId b) const {
    if (!reach_) {
      reach_ = std::make_unique<Reachability>(g, adj);
      const int64_t units = ceil_div(reach_->build_work(), kReachWordsPerUnit);
      if (work != nullptr) work->add_to(WorkMeter::kGraph, units);
      test_seams::count_trips("graph.reach", reach_->build_work());
      test_seams::count_units("graph.reach", units);
    }
    return reach_->reaches(a, b);
  }
  // No rung, refinement iteration or stretch of rung steps or backtracking
  // seats starts after it (IiSearchOptions::deadline, the generator's);
  // none in unit tests that build a context alone.
  Deadline deadline;

 private:
  static constexpr int64_t kReachWordsPerUnit = 8;
  mutable std::unique_ptr<Reachability> reach_;
  // The constructor's steps, in the order it runs them.
  void lower_footprints();
  void rank_topologically();
  void compute_heights();
  void find_leader_groups();
  void read_register_footprints();
  void read_bank_model();
};

}  // namespace tilesched::cost_based
