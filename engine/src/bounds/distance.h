// The all-pairs structural distance matrix for one II: D[u][v] is the
// longest path weight from u to v over every edge, each weighted
// λ − II·δ (Rau's MinDist); a schedule at the II is legal only if
// s_v − s_u ≥ D[u][v] for every pair with a path, and a positive cycle means
// the II is below RecMII. Closed per strongly connected component by the
// cheapest of three methods, and carried across IIs by lines where no pair
// leaves its line. REQUIRES a graph within tilesched/limits.h and
// 1 ≤ II ≤ limits::kMaxII. The methods, the magnitudes, the lines across
// IIs and the memory: docs/BOUNDS.md, "The distance matrix".
#pragma once

#include <cassert>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

// Values that are each a discrete convex function of the II, a maximum of
// affine functions λ − II·δ with δ ≥ 0 (the closure's cells, and what is
// maximised over them), kept as lines across IIs as the header says:
// fresh values at two consecutive IIs make the lines, fresh values further
// on that agree with every line widen the span where they are exact.
// Entries equal to kNone are the same at every II. Each value and each
// II·δ term is within ±2^61, each δ below 2^29 (distance.h's magnitudes).
class IiLines {
 public:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

  // The IIs a search will ask for, if known: the first check after the
  // lines are made goes to the far end (one check then covers a range on
  // which nothing breaks), then by doubling steps.
  void set_range(int64_t lo, int64_t hi) {
    range_lo_ = lo;
    range_hi_ = hi;
  }
  void forget() {
    lines_ = false;
    kept_ = false;
  }
  bool has_lines() const { return lines_; }
  bool covers(int64_t ii) const { return lines_ && ii >= lo_ && ii <= hi_; }
  // Where fresh values should be computed next to answer ii (outside the
  // span): ii itself, or further on by the current step. REQUIRES: has_lines().
  int64_t next_check(int64_t ii) const;
  // Fresh values at ii (`values`, all of them). True when every one lies
  // on its line: the span now reaches ii. Otherwise the lines are dropped,
  // the values kept, and lines made when the values kept before were at
  // ii ± 1.
  bool offer(int64_t ii, std::span<const int64_t> values);
  // The caller proved every entry on its line at ii by other means: the
  // span now reaches ii. REQUIRES: has_lines().
  void extend_to(int64_t ii) {
    lo_ = std::min(lo_, ii);
    hi_ = std::max(hi_, ii);
    step_ = std::min(2 * step_, int64_t{1} << 31);
  }
  // A check failed or could not be made: the next one comes nearer.
  void missed() { step_ = 1; }
  // Lines through `values` at ii with the given slopes, exact at ii only
  // (the span), whose value at any II is a lower bound there (each the
  // value of a walk): a check further on widens the span as for lines
  // from two IIs. The values count as kept at ii too, so that fresh
  // values at ii ± 1 that refute the lines make lines from both.
  void set_lines(int64_t ii, std::span<const int64_t> values, std::span<const int32_t> slopes);
  // Entries [first, first + out.size()) on their lines at ii: the values
  // there where covers(ii). REQUIRES: has_lines().
  void read(int64_t ii, size_t first, std::span<int64_t> out) const;
  // Entry i at ii. REQUIRES: covers(ii).
  int64_t at(int64_t ii, size_t i) const {
    assert(covers(ii) && i < base_.size());
    const int64_t b = base_[i];
    return b == kNone ? kNone : b - (ii - x_) * slope_[i];
  }
  int64_t broken() const { return broken_; }

 private:
  bool on_lines(int64_t ii, std::span<const int64_t> values) const;
  void make_lines(int64_t ii, std::span<const int64_t> values);

  // kept_: base_ holds the values at kept_ii_ (no lines yet); lines_:
  // base_ holds them at x_, slope_ the step to x_ + 1, every entry on its
  // line for IIs in [lo_, hi_].
  bool kept_ = false, lines_ = false;
  int64_t kept_ii_ = 0;
  int64_t x_ = 0, lo_ = 0, hi_ = 0;
  int64_t step_ = 1;
  int64_t range_lo_ = 0, range_hi_ = 0;  // 0, 0: not known
  int64_t broken_ = 0;
  std::vector<int64_t> base_;
  std::vector<int32_t> slope_;
};

class DistanceMatrix {
 public:
  // "No path from u to v". Never an operand of arithmetic.
  static constexpr int64_t kNoPath = std::numeric_limits<int64_t>::min();

  // How the closure inside one strongly connected component is computed.
  // Every method gives the same matrix; tests and benchmarks pin one.
  enum class SccMethod {
    kAuto,           // per component, the one estimated cheapest
    kFloydWarshall,  // dense max-plus, O(k³)
    kFeedback,       // DAG passes around a dense closure of the heads
    kDijkstra,       // Bellman-Ford potentials, then one Dijkstra per op
  };

  // The largest graph whose matrices are shared across IIs (16·n² more
  // bytes: 256 MiB at this size).
  static constexpr int kAcrossIiMaxOps = 4096;

  DistanceMatrix() = default;

  // Builds the closure of `g` at `ii`. Returns false when a positive cycle
  // exists (ii < recurrence_mii(g)); the matrix is then unusable until the
  // next successful build. The graph's strongly connected components are
  // kept between builds and recomputed only when g's ops count or edges
  // differ from the previous call's; the n×n storage is reused whenever n
  // is unchanged, so rebuilding one graph at another II never allocates.
  // Builds at other IIs of the same graph are shared as the header says,
  // unless set_across_ii(false).
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
  bool has_path(OpId u, OpId v) const {
    assert(valid_);
    return cell(u, v) != kNoPath;
  }
  // D[u][v], or kNoPath. Read off the lines, one cell costs O(1) and
  // writes no row. REQUIRES: valid().
  int64_t value(OpId u, OpId v) const {
    assert(valid_);
    return cell(u, v);
  }
  // REQUIRES: has_path(u, v). Inline: the schedulers' windows read it in
  // their inner loops.
  int64_t at(OpId u, OpId v) const {
    assert(valid_);
    const int64_t d = cell(u, v);
    assert(d != kNoPath);
    return d;
  }
  // Row u, size() entries in op id order, kNoPath where there is no path.
  // REQUIRES: valid().
  std::span<const int64_t> row(OpId u) const {
    assert(valid_);
    if (from_lines_) fill_row(u);
    return {dist_.data() + static_cast<size_t>(u) * static_cast<size_t>(n_),
            static_cast<size_t>(n_)};
  }

  void set_scc_method(SccMethod method) { method_ = method; }
  // Off: every build closes the graph afresh (tests, benchmarks of the
  // closure itself). On by default.
  void set_across_ii(bool on) {
    across_ii_ = on;
    lines_.forget();
    lines_pending_ = false;
  }
  // The IIs the caller's search will ask for (IiLines::set_range).
  void set_ii_range(int64_t lo, int64_t hi) { lines_.set_range(lo, hi); }

  // What the last build did, for benchmarks and tuning.
  struct Stats {
    int components = 0;         // strongly connected components
    int largest_component = 0;  // ops in the largest one
    int floyd_warshall = 0;     // components of 2+ ops closed by each method
    int feedback = 0;
    int dijkstra = 0;
    int largest_head_set = 0;   // h of the largest component closed by kFeedback
    int feedback_wide = 0;      // of those, closed in 64-bit cells (large weights)
    bool from_lines = false;    // read off the lines across IIs: no closure ran
  };
  const Stats& stats() const { return stats_; }

  // Since construction: closures run (each build of a graph at an II, and
  // each check of the lines further on) and builds read off the lines.
  struct Totals {
    int64_t closures = 0;
    int64_t from_lines = 0;
    int64_t lines_broken = 0;  // closures further on that found a pair off its line
    int64_t checks = 0;        // lines_hold runs, and how many of them held
    int64_t checks_held = 0;
    int64_t rows_read = 0;     // rows written from the lines when first read
  };
  Totals totals() const {
    Totals t = totals_;
    t.lines_broken = lines_.broken();
    return t;
  }

 private:
  struct Arc {
    int from = 0;  // an op id, or an index within a component
    int to = 0;
    int64_t latency = 0;
    int64_t distance = 0;
  };

  // The closure of the graph prepared, at ii; false on a positive cycle.
  bool close_all(int64_t ii);
  // Across IIs: true when the lines at c satisfy every edge's inequality
  // from every op, L[u][v] >= L[u][w] + λ − c·δ for each edge w -> v: then
  // L(c) bounds every walk from above, and convexity bounds D_c from below
  // by L(c) (D_c >= D_x + (c − x)·(D_{x+1} − D_x) on either side of x), so
  // L(c) is the closure at c, found in O(n·m) without closing the graph.
  bool lines_hold(int64_t c);
  // After a lone closure at ii (in dist_): per pair the δ of a path that
  // attains D[u][v] (every edge tight, D[u][w] + λ − ii·δ = D[u][v]), the
  // first a breadth-first pass over the tight edges finds (O(n·m)). Such a
  // path's value λ − II·δ bounds D_II from below at every II, so these
  // lines need no second closure: a check further on that holds proves
  // them (convexity then gives the IIs between); where best paths of
  // different δ tie at ii, it may not hold, and a second closure follows.
  // Into walk_slope_; false when a δ is out of the magnitude bound.
  bool walk_slopes(int64_t ii);
  // The lines from the last closure, deferred to the next build
  // (lines_pending_).
  void make_pending_lines();
  // The matrix at ii from the lines, its rows written as they are read.
  void read_lines(int64_t ii);
  void fill_row(OpId u) const {
    if (row_stamp_[u] != stamp_) write_row(u);
  }
  void write_row(OpId u) const;

  // The graph's structure, once per graph: components, the local order
  // inside each, its edges by kind, its heads.
  void prepare(const Graph& g, const Adjacency& adj);
  void size_components(const std::vector<int>& comp);
  void order_members(const Graph& g, const Adjacency& adj, const std::vector<int>& comp);
  void sort_edges(const Graph& g, const std::vector<int>& comp);
  void find_heads();
  // The closure inside component c, into the rows of its members.
  bool close_component(int c);
  SccMethod choose_method(int c) const;
  bool close_by_floyd_warshall(int c);
  bool close_by_feedback(int c);
  template <class T>  // int32_t or int64_t cells; see close_by_feedback
  bool close_by_feedback_in(int c, std::vector<T>& dense, std::vector<T>& heads_dense,
                            std::vector<T>& heads_rows);
  // Its steps, on the k×k local matrix d, the h×h heads' matrix hd and
  // h×k scratch rows.
  template <class T>
  void forward_rows(int c, T* d) const;
  template <class T>
  void head_graph(int c, const T* d, T* hd) const;
  template <class T>
  void head_rows(int c, const T* hd, T* rows, T* d) const;
  template <class T>
  void other_rows(int c, T* d) const;
  bool close_by_dijkstra(int c);
  bool find_potentials(int c);
  void rows_by_dijkstra(int c);
  // Copies a k×k local closure into the members' rows.
  template <class T>
  void scatter_dense(int c, const std::vector<T>& dense);
  // Extends the rows of c's members past c's exit edges.
  void propagate_component(int c);

  int64_t weight(const Arc& a) const { return a.latency - ii_ * a.distance; }
  int64_t cell(OpId u, OpId v) const {
    const size_t i = static_cast<size_t>(u) * static_cast<size_t>(n_) + static_cast<size_t>(v);
    return from_lines_ && row_stamp_[u] != stamp_ ? lines_.at(ii_, i) : dist_[i];
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
  std::vector<int> members_;    // op ids by component, in local order
  std::vector<int> local_;      // op -> index among its component's members
  std::vector<int> comp_lo_, comp_hi_;  // smallest and largest op id, by component
  std::vector<int> inner_begin_;  // by member position: inner_[inner_begin_[p] ..]
  std::vector<Arc> inner_;      // internal edges, local ends, by source position
  std::vector<int> back_begin_;   // by component: back_[back_begin_[c] ..]
  std::vector<Arc> back_;       // internal edges with to <= from (local order)
  std::vector<int> head_begin_;   // by component: heads_[head_begin_[c] ..]
  std::vector<int> heads_;      // distinct local targets of back_, ascending
  std::vector<int> head_of_;    // by member position: index among heads, or -1
  std::vector<int> cross_begin_;  // by component: cross_[cross_begin_[c] ..]
  std::vector<Arc> cross_;      // exit edges, op ids, sorted by (to, from)

  // The matrix.
  SccMethod method_ = SccMethod::kAuto;
  int64_t ii_ = 0;
  bool valid_ = false;
  Stats stats_;
  mutable std::vector<int64_t> dist_;  // row-major n×n (rows written late: see fill_row)
  std::vector<int> first_, last_;  // finite columns of row u lie in [first_, last_]

  // Across IIs: the cells' lines, and while the matrix is read off them
  // (from_lines_), the rows written so far (row_stamp_[u] == stamp_).
  bool across_ii_ = true;
  IiLines lines_;
  bool from_lines_ = false;
  // dist_ holds a closure (at ii_) not yet offered to the lines: done at
  // the next build, so a single build costs no lines.
  bool lines_pending_ = false;
  mutable std::vector<uint32_t> row_stamp_;
  uint32_t stamp_ = 0;
  std::vector<int64_t> check_row_;  // lines_hold's scratch
  std::vector<int> out_begin_;      // edges_ by source: out_[out_begin_[u] ..]
  std::vector<Arc> out_;
  std::vector<int32_t> walk_slope_; // walk_slopes' result, n×n
  std::vector<int> walk_queue_;
  mutable Totals totals_;

  // Scratch, reused across components and builds.
  std::vector<int64_t> dense_;  // k×k local closure
  std::vector<int64_t> heads_dense_, heads_rows_;  // h×h and h×k for kFeedback
  std::vector<int32_t> dense32_, heads_dense32_, heads_rows32_;  // the same, 32-bit
  std::vector<int64_t> potential_, reduced_;
  std::vector<int> hops_, queue_;
  std::vector<char> queued_;
  std::vector<std::pair<int64_t, int>> heap_;
};

}  // namespace tilesched
