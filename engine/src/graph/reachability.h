// Which ops a path of edges leads to (any distance), one bit row per
// strongly connected component, built once per graph: a fact of the graph,
// not of an II or a placement, so a question costs one bit test where a
// search per question cost O(ops + edges).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph_algo.h"
#include "tilesched/graph.h"

namespace tilesched {

class Reachability {
 public:
  // Builds the rows: about (components + condensation edges) x ops / 64
  // word operations, at most 8192 x 128 words (limits::kMaxOps) in memory.
  Reachability(const Graph& g, const Adjacency& adj);

  // A path of at least one edge leads from a to b (a == b: a lies on a cycle).
  bool reaches(OpId a, OpId b) const {
    const int ca = comp_.component[a];
    if (ca == comp_.component[b] && !cyclic_[ca]) return false;
    return (rows_[static_cast<size_t>(ca) * words_ + (b >> 6)] >> (b & 63)) & 1u;
  }
  // The word operations the build took, for a caller's work meter.
  int64_t build_work() const { return build_work_; }

 private:
  Components comp_;
  std::vector<char> cyclic_;  // per component: more than one op, or a self-edge
  size_t words_ = 0;          // per row
  // Per component c: every op reachable from c's ops by zero or more edges
  // (c's own ops included), so a path of one edge or more reaches b from c
  // exactly when b's bit is set and b lies outside c or c is cyclic.
  std::vector<uint64_t> rows_;
  int64_t build_work_ = 0;
};

}  // namespace tilesched
