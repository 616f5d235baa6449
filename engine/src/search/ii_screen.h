// The II screen: a test, run by the shared II search (ii_driver.h) before
// any generator's attempt, that proves an II infeasible cheaply, so that a
// failing II costs a closure and a few sorted sweeps instead of a whole
// ladder, eviction budget or backtracking search.
//
// It never rejects a feasible II. Two tests, both necessary conditions of
// rules L1 and L2 (docs/CONTRACT.md):
//  1. The distance closure at the II (distance.h) has no positive cycle.
//  2. Energy on a cyclic arc. Inside one strongly connected component every
//     op v is tied to a reference op r: s_v - s_r lies in
//     [D[r][v], -D[v][r]]. An op that holds a slot for d cycles with
//     occupancy o from its start then occupies, relative to s_r, only rows
//     of [D[r][v], -D[v][r] + d), taken modulo II. If every op of a set
//     lies inside one cyclic arc [a, b) of rows shorter than the II, the
//     b - a rows of the arc are distinct and hold at most capacity * (b - a)
//     units, so the set's total o * d must not exceed that. Each claimant of a slot serves as a
//     reference in turn (the windows are relative to it); per reference,
//     every arc from an item's start to an item's end is checked by one
//     sweep over the items sorted by end: O(m^2) for m claimants.
// Rate pools and claimants outside the reference's component are left out
// (a relaxation: fewer constraints, so still sound).
//
// Work is bounded: a component's claimants serve as references up to a
// budget of about 4 * ops^2 sweep steps per II (then the II is admitted),
// and a screen without a caller's closure builds its own only over the
// components that hold two claimants of one slot, up to kOwnClosureOps ops.
// The screen also goes dormant (admits without testing) once kPatience
// IIs in a row passed it: the IIs it rejects come before the first few it
// admits when the search walks one way (upward from the lower bound, or
// downward in the driver's descent, descend_ii, which rearms it), and a
// graph it cannot help should not pay for it at every II. Every bound is a
// count, so the screen's verdicts are deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bounds/distance.h"
#include "graph/graph_algo.h"
#include "tilesched/graph.h"

namespace tilesched {

class IiScreen {
 public:
  enum class Verdict {
    kAdmit,         // no test proves the II infeasible
    kCycle,         // a dependence cycle needs a larger II (test 1)
    kSlotOverload,  // an arc holds more than its capacity (test 2)
  };

  // The largest set of components a screen closes on its own.
  static constexpr int kOwnClosureOps = 256;
  // Admitted IIs in a row after which the screen goes dormant.
  static constexpr int kPatience = 4;

  // With `shared`, the screen builds the whole graph's closure there at each
  // II it checks, for the generator to reuse (DistanceMatrix::ii() tells
  // which II it holds); without, it keeps a closure of its own over the
  // components that matter. REQUIRES: g passed validate_graph; adj ==
  // Adjacency::build(g); `g`, `adj` and `shared` outlive the screen.
  IiScreen(const Graph& g, const Adjacency& adj, DistanceMatrix* shared = nullptr);

  // The verdict at `ii` (REQUIRES: 1 <= ii <= limits::kMaxII). Counted in
  // rejected() unless kAdmit. A dormant screen admits at once and builds
  // no closure.
  Verdict check(int64_t ii);
  // Wakes a dormant screen (before the search turns around).
  void rearm() { admitted_in_row_ = 0; }
  bool dormant() const { return admitted_in_row_ >= kPatience; }

  // One line per II rejected ("II 27: the II screen: ..."), the first
  // kLinesKept of them, then one saying how many more.
  std::vector<std::string> lines() const;
  static constexpr size_t kLinesKept = 16;

  // IIs rejected so far, all tests together and by test.
  int64_t rejected() const { return by_cycle_ + by_overload_; }
  int64_t rejected_by_cycle() const { return by_cycle_; }
  int64_t rejected_by_overload() const { return by_overload_; }

 private:
  // One slot claim of an op the test can see: closure index, component,
  // slot, rows held (d) and units per row (o).
  struct Claim {
    int node = 0;
    int comp = 0;
    int slot = 0;
    int64_t duration = 0;
    int64_t units = 0;
  };
  // An op's rows relative to the reference: [begin, end), o * d units.
  struct Item {
    int64_t begin = 0;
    int64_t end = 0;
    int64_t energy = 0;
  };

  Verdict test(int64_t ii);
  void find_claims(const Graph& g, const Components& comps, const std::vector<int>& node_of);
  void build_subgraph(const Graph& g, const Components& comps);
  bool overloaded(const DistanceMatrix& d, int64_t ii);
  // Claims [first, last) share a slot and a component; true when an arc
  // relative to one of them is over capacity. `work` counts sweep steps.
  bool group_overloaded(const DistanceMatrix& d, int64_t ii, size_t first, size_t last,
                        int64_t& work);
  bool arc_overloaded(int64_t ii, int64_t capacity);
  void note(int64_t ii, Verdict v);

  const Graph& g_;
  const Adjacency& adj_;
  DistanceMatrix* shared_ = nullptr;
  std::vector<int64_t> capacity_;  // by slot id (index 0 unused)
  std::vector<Claim> claims_;      // grouped by (slot, component), then op id
  Graph sub_;                      // without `shared`: the components that matter
  Adjacency sub_adj_;
  bool own_closure_ = false;       // sub_ is closed by own_
  DistanceMatrix own_;
  std::vector<Item> items_;        // scratch, reused
  // The overload last found: its slot, reference op, energy and rows.
  int over_slot_ = 0;
  OpId over_ref_ = 0;
  int64_t over_energy_ = 0, over_rows_ = 0;
  std::vector<OpId> op_of_node_;   // closure index -> op id
  std::vector<std::string> lines_;
  int64_t budget_ = 0;             // sweep steps per II
  int admitted_in_row_ = 0;
  int64_t by_cycle_ = 0;
  int64_t by_overload_ = 0;
};

}  // namespace tilesched
