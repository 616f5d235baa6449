// Positive cycles under edge weights latency - II * distance: the search
// RecMII runs per strongly connected component (mii.cc) and explain runs
// on the whole graph for its recurrence witness (api/explain.cc). The
// algorithm and why it is exact: docs/BOUNDS.md, "RecMII".
#pragma once

#include <cstdint>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

// A set of edges over local op ids [0, n) and each op's out-edges in
// compressed form (index(n) builds them).
struct SccEdges {
  std::vector<int> from, to;
  std::vector<int64_t> latency, distance;
  std::vector<int> out_begin, out_edges;

  void clear();
  void add(int u, int v, int64_t lat, int64_t dist);
  // Builds out_begin/out_edges for local ops [0, n).
  void index(int n);
};

// Bellman-Ford longest paths from a virtual source, FIFO order, one
// predecessor edge per op, stopping at the first cycle of the predecessor
// graph (always a positive one). O(n * m) per call, usually far less.
// REQUIRES: prepare(n) before find on edges indexed for n ops.
class PositiveCycleFinder {
 public:
  void prepare(int n);
  // 0 when there is no positive cycle at `ii`, else the found cycle's bound
  // ceil(sum latency / sum distance), which exceeds `ii`.
  int64_t find(const SccEdges& e, int64_t ii);
  // The found cycle's edges (indices into e) in cycle order, or empty.
  std::vector<int> find_cycle(const SccEdges& e, int64_t ii);

 private:
  int op_on_cycle(const SccEdges& e, int64_t ii);
  int64_t cycle_bound(const SccEdges& e, int x, int64_t ii) const;
  int chain_cycle_op(const SccEdges& e, int v) const;
  int predecessor_cycle_op(const SccEdges& e);

  int n_ = 0;
  std::vector<int64_t> dist_;
  std::vector<int> pred_;        // local edge index, or -1
  std::vector<int> stamp_;       // walk id per op during the cycle check
  std::vector<int> generation_;  // FIFO generation of the op's last queueing
  std::vector<char> queued_;
  std::vector<int> queue_;       // ring buffer of n_ entries
};

// The edges of a positive cycle of g at `ii` (graph edge ids, in cycle
// order), or empty when there is none.
std::vector<int> positive_cycle(const Graph& g, int64_t ii);

}  // namespace tilesched
