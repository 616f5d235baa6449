// The all-pairs structural distance matrix for one II (seed 000, "Structural
// Distance Matrix" and "All-Pairs Distance Matrix sub_98BEE0"; SPEC.md
// section 3): D[u][v] is the longest path weight from u to v over every
// edge (data and order), each weighted λ − II·δ — Rau's MinDist. A schedule
// at this II is only legal if s_v − s_u ≥ D[u][v] for every pair with a path.
// A positive cycle means the II is below RecMII and no schedule exists.
//
// Unlike the seed's dense n³ pass, the closure is computed per strongly
// connected component (dense max-plus Floyd-Warshall, or Johnson's
// reweighting and one Dijkstra per member for large sparse components) and
// carried across the acyclic condensation in topological order, one
// vectorisable row update per (op, successor) pair: O(Σk³ + n·(n + m)) in
// the worst case, far less on graphs whose recurrences are small.
//
// Magnitudes (REQUIRES a graph within tilesched/limits.h and
// 1 ≤ II ≤ limits::kMaxII): |λ − II·δ| < 2^31 · 2^10 = 2^41; a simple path
// has at most 8191 edges, so every stored distance is below 2^54 in
// magnitude, and every sum formed on the way (at most three such terms) is
// below 2^56. No int64 arithmetic can overflow, and the sentinel kNoPath
// is compared before any addition, never added.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

class DistanceMatrix {
 public:
  // "No path from u to v". Never an operand of arithmetic.
  static constexpr int64_t kNoPath = std::numeric_limits<int64_t>::min();

  // How the closure inside one strongly connected component is computed.
  // Every method gives the same matrix; tests and benchmarks pin one.
  enum class SccMethod {
    kAuto,           // per component, the one estimated cheaper
    kFloydWarshall,  // dense max-plus, O(k³)
    kDijkstra,       // Bellman-Ford potentials, then one Dijkstra per member
  };

  DistanceMatrix() = default;

  // Builds the closure of `g` at `ii`. Returns false when a positive cycle
  // exists (ii < recurrence_mii(g)); the matrix is then unusable until the
  // next successful build. The graph's strongly connected components are
  // kept between builds and recomputed only when g's ops count or edges
  // differ from the previous call's; the n×n storage is reused whenever n
  // is unchanged, so rebuilding one graph at another II never allocates.
  // REQUIRES: g passed validate_graph; adj == Adjacency::build(g);
  // 1 <= ii <= limits::kMaxII.
  bool build(const Graph& g, const Adjacency& adj, int64_t ii);

  // The last build succeeded.
  bool valid() const { return valid_; }
  // Ops in the graph last built.
  int size() const { return n_; }
  // The II of the last build.
  int64_t ii() const { return ii_; }

  // Every op reaches itself with 0 (the empty path; after a successful
  // build no cycle through it is positive). REQUIRES: valid().
  bool has_path(OpId u, OpId v) const { return cell(u, v) != kNoPath; }
  // REQUIRES: has_path(u, v).
  int64_t at(OpId u, OpId v) const;
  // Row u, size() entries in op id order, kNoPath where there is no path.
  // REQUIRES: valid().
  std::span<const int64_t> row(OpId u) const;

  void set_scc_method(SccMethod method) { method_ = method; }

  // What the last build did, for benchmarks and tuning.
  struct Stats {
    int components = 0;         // strongly connected components
    int largest_component = 0;  // ops in the largest one
    int dense_closures = 0;     // components of 2+ ops closed by Floyd-Warshall
    int sparse_closures = 0;    // components closed by Dijkstra
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Arc {
    int from = 0;  // an op id, or an index within a component
    int to = 0;
    int64_t latency = 0;
    int64_t distance = 0;
  };

  void prepare(const Graph& g, const Adjacency& adj);
  // The closure inside component c, into the rows of its members.
  bool close_component(int c);
  bool close_by_floyd_warshall(int c);
  bool close_by_dijkstra(int c);
  // Extends the rows of c's members past c's exit edges.
  void propagate_component(int c);

  int64_t weight(const Arc& a) const { return a.latency - ii_ * a.distance; }
  int64_t cell(OpId u, OpId v) const {
    return dist_[static_cast<size_t>(u) * static_cast<size_t>(n_) + static_cast<size_t>(v)];
  }
  int64_t* row_ptr(OpId u) {
    return dist_.data() + static_cast<size_t>(u) * static_cast<size_t>(n_);
  }

  // The graph's structure, kept across builds.
  int n_ = 0;
  bool prepared_ = false;
  std::vector<Edge> edges_;     // to recognise the same graph again
  int comp_count_ = 0;          // Tarjan order: successors have lower ids
  std::vector<int> comp_begin_; // members_[comp_begin_[c] .. comp_begin_[c + 1])
  std::vector<int> members_;    // op ids by component, ascending within one
  std::vector<int> local_;      // op -> index among its component's members
  std::vector<int> inner_begin_;  // by member position: inner_[inner_begin_[p] ..]
  std::vector<Arc> inner_;      // internal edges, local ends, by source position
  std::vector<int> cross_begin_;  // by component: cross_[cross_begin_[c] ..]
  std::vector<Arc> cross_;      // exit edges, op ids, sorted by (to, from)

  // The matrix.
  SccMethod method_ = SccMethod::kAuto;
  int64_t ii_ = 0;
  bool valid_ = false;
  Stats stats_;
  std::vector<int64_t> dist_;   // row-major n×n
  std::vector<int> first_, last_;  // finite columns of row u lie in [first_, last_]

  // Scratch, reused across components and builds.
  std::vector<int64_t> dense_;  // k×k for Floyd-Warshall
  std::vector<int64_t> potential_, reduced_;
  std::vector<int> hops_, queue_;
  std::vector<char> queued_;
  std::vector<std::pair<int64_t, int>> heap_;
};

}  // namespace tilesched
