// Per-graph facts the cost-based generator computes once and every II
// attempt reads: footprints, priorities, leader groups, register
// footprints and the bank model of the cost evaluators (seed 000).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "effort.h"
#include "tilesched/cost_based.h"
#include "tilesched/deadline.h"
#include "graph/reachability.h"
#include "tilesched/graph.h"
#include "bounds/rrt.h"
#include "tilesched/schedule.h"

namespace tilesched::cost_based {

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
  // The effort contract's meter (effort.h), the generator's; none in unit
  // tests that build a context alone (nothing counted, no budget).
  WorkMeter* work = nullptr;
  void count(int64_t units) const {
    if (work != nullptr) work->add(units);
  }
  bool out_of_work() const { return work != nullptr && work->out(); }
  // A path of one or more edges leads from a to b: the graph's
  // reachability rows, built at the first question, their cost counted.
  bool reaches(OpId a, OpId b) const {
    if (!reach_) {
      reach_ = std::make_unique<Reachability>(g, adj);
      if (work != nullptr) work->add_to(WorkMeter::kGraph, reach_->build_work() / kReachWordsPerUnit);
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
