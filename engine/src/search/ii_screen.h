// The II screen: a cheap proof that an II is infeasible, run by the II
// search (ii_driver.h) before any generator's attempt. It never rejects a
// feasible II: its two tests (no positive cycle in the distance closure;
// energy on a cyclic arc of a slot's rows) are necessary conditions of L1
// and L2, and, where ops have a max_depth and the screen keeps its own
// closure, of L6 too (the stages as edges to a root). Its work is bounded by counts, so its verdicts are deterministic;
// it goes dormant after kPatience admitted IIs in a row (rearm wakes it).
// The tests and the bounds: docs/SEARCH.md, "The II screen".
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bounds/distance.h"
#include "graph/graph_algo.h"
#include "model/arith.h"
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
  // components that matter. `loop` names its closures' cells for the
  // meter's trip-count test (util/test_seams.h). REQUIRES: g passed
  // validate_graph; adj == Adjacency::build(g); `g`, `adj` and `shared`
  // outlive the screen.
  IiScreen(const Graph& g, const Adjacency& adj, DistanceMatrix* shared = nullptr,
           const char* loop = "closure.screen");

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

  // The closure cells the screen built and the sweep steps it took since
  // the last call, for a caller's work meter; take_units the same as work
  // units, one per kStepsPerUnit (rounded up), as every caller charges them.
  int64_t take_work() { return std::exchange(work_, 0); }
  int64_t take_units() { return ceil_div(take_work(), kStepsPerUnit); }
  static constexpr int64_t kStepsPerUnit = 8;

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
  // Keeps the components of `g` that hold two claims of one slot as the
  // screen's own closure; false (and no claims) where there are none or
  // more than kOwnClosureOps ops.
  bool build_subgraph(const Graph& g, const Components& comps);
  // The same on g with rule L6 as edges to a root (ii_screen.cc,
  // docs/SEARCH.md); false where no op has a max_depth, where the graph
  // has kOwnClosureOps ops or more, or where build_subgraph is.
  bool build_rooted_subgraph(const Graph& g);
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
  int64_t work_ = 0;        // take_work's
  const char* loop_ = nullptr;  // the trip-count test's name for the cells
};

}  // namespace tilesched
