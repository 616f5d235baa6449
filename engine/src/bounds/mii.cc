// The four lower bounds on II (seed 004 "Scheduling Model"; docs/CONTRACT.md,
// "Lower bounds"): ResMII over singleton slots, FineMII over pooled slots and
// rate pools, the exact RecMII over dependence cycles, and DepMII from
// max_depth. docs/BOUNDS.md gives the formulas and the RecMII algorithm.
#include "tilesched/mii.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <vector>

#include "graph/graph_algo.h"
#include "model/arith.h"

namespace tilesched {

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// ceil(sum of terms / divisor) without forming the sum: quotients and
// remainders are accumulated apart, and the quotient saturates, so terms
// near 2^50 (rate-pool counts of 2^40 units) cannot overflow.
class CeilSum {
 public:
  explicit CeilSum(int64_t divisor) : divisor_(divisor) { assert(divisor >= 1); }
  void add(int64_t term) {
    assert(term >= 0);
    quotient_ = saturating_add(quotient_, term / divisor_);
    remainder_ += term % divisor_;
    if (remainder_ >= divisor_) {
      quotient_ = saturating_add(quotient_, 1);
      remainder_ -= divisor_;
    }
  }
  int64_t value() const { return saturating_add(quotient_, remainder_ > 0 ? 1 : 0); }

 private:
  static int64_t saturating_add(int64_t a, int64_t b) {
    return a > kInt64Max - b ? kInt64Max : a + b;
  }
  int64_t divisor_;
  int64_t quotient_ = 0;
  int64_t remainder_ = 0;
};

// One strongly connected component: its internal edges in local op ids,
// and each local op's out-edges in compressed form.
struct SccEdges {
  std::vector<int> from, to;
  std::vector<int64_t> latency, distance;
  std::vector<int> out_begin, out_edges;

  void clear() {
    from.clear();
    to.clear();
    latency.clear();
    distance.clear();
  }
  void add(int u, int v, int64_t lat, int64_t dist) {
    from.push_back(u);
    to.push_back(v);
    latency.push_back(lat);
    distance.push_back(dist);
  }
  // Builds out_begin/out_edges for local ops [0, n).
  void index(int n) {
    out_begin.assign(static_cast<size_t>(n) + 1, 0);
    for (int u : from) ++out_begin[u + 1];
    for (int v = 0; v < n; ++v) out_begin[v + 1] += out_begin[v];
    out_edges.resize(from.size());
    std::vector<int> fill(out_begin.begin(), out_begin.end() - 1);
    for (int i = 0; i < static_cast<int>(from.size()); ++i) out_edges[fill[from[i]]++] = i;
  }
};

// Decides whether the component, with edge weights latency - ii * distance,
// holds a positive cycle, and if so returns one cycle's exact bound
// ceil(sum latency / sum distance), which then exceeds `ii`.
//
// Bellman-Ford longest paths from a virtual source (every dist starts at
// 0, every op queued), FIFO queue order, one predecessor edge per op. Two
// facts make it exact:
//  - a cycle of the predecessor graph is always positive (summing
//    dist[v] <= dist[u] + w(u, v) around it, strict for the edge set last);
//  - ops carry a generation (the initial queue is generation 0, an op
//    queued while generation g is scanned is g + 1); once generations
//    0 .. n-1 are scanned every dist is at least the best walk of at most n
//    edges, so a relaxation from generation n or later gives dist[v] a value
//    no simple path reaches, and v's predecessor chain must be cyclic.
// The predecessor graph is also checked in O(n) after every n relaxations,
// which finds most positive cycles long before generation n. Without a
// positive cycle the queue empties. O(n * m) per call, usually far less.
class PositiveCycleFinder {
 public:
  void prepare(int n) {
    n_ = n;
    dist_.assign(static_cast<size_t>(n), 0);
    pred_.assign(static_cast<size_t>(n), -1);
    stamp_.assign(static_cast<size_t>(n), 0);
    generation_.assign(static_cast<size_t>(n), 0);
    queued_.assign(static_cast<size_t>(n), 0);
    queue_.assign(static_cast<size_t>(n), 0);
  }

  // 0 when there is no positive cycle at `ii`, else the cycle's bound.
  int64_t find(const SccEdges& e, int64_t ii) {
    std::fill(dist_.begin(), dist_.end(), 0);
    std::fill(pred_.begin(), pred_.end(), -1);
    std::fill(generation_.begin(), generation_.end(), 0);
    std::fill(queued_.begin(), queued_.end(), 1);
    // The queue is a ring of n entries: an op is in it at most once.
    for (int v = 0; v < n_; ++v) queue_[v] = v;
    int head = 0;
    int size = n_;
    int until_check = n_;
    while (size > 0) {
      const int u = queue_[head];
      head = head + 1 == n_ ? 0 : head + 1;
      --size;
      queued_[u] = 0;
      for (int p = e.out_begin[u]; p < e.out_begin[u + 1]; ++p) {
        const int i = e.out_edges[p];
        const int v = e.to[i];
        const int64_t cand = dist_[u] + e.latency[i] - ii * e.distance[i];
        if (cand <= dist_[v]) continue;
        dist_[v] = cand;
        pred_[v] = i;
        if (generation_[u] >= n_) return chain_cycle_bound(e, v, ii);
        if (--until_check == 0) {
          if (const int64_t bound = predecessor_cycle_bound(e, ii); bound != 0) return bound;
          until_check = n_;
        }
        if (!queued_[v]) {
          queued_[v] = 1;
          generation_[v] = generation_[u] + 1;
          int tail = head + size;
          if (tail >= n_) tail -= n_;
          queue_[tail] = v;
          ++size;
        }
      }
    }
    return 0;
  }

 private:
  // The bound of the cycle through x, following predecessor edges.
  int64_t cycle_bound(const SccEdges& e, int x, int64_t ii) const {
    int64_t sum_latency = 0;
    int64_t sum_distance = 0;
    int y = x;
    do {
      const int edge = pred_[y];
      sum_latency += e.latency[edge];
      sum_distance += e.distance[edge];
      y = e.from[edge];
    } while (y != x);
    assert(sum_latency - ii * sum_distance > 0);
    // A positive cycle with distance 0 is a zero-distance positive cycle,
    // which validate_graph refuses.
    assert(sum_distance > 0);
    if (sum_distance <= 0) return ii + 1;
    return ceil_div(sum_latency, sum_distance);
  }

  // REQUIRES: v's predecessor chain is cyclic; n steps reach the cycle.
  int64_t chain_cycle_bound(const SccEdges& e, int v, int64_t ii) const {
    for (int k = 0; k < n_; ++k) {
      assert(pred_[v] >= 0);
      v = e.from[pred_[v]];
    }
    return cycle_bound(e, v, ii);
  }

  // The bound of some cycle of the predecessor graph, or 0 when it is a
  // forest.
  int64_t predecessor_cycle_bound(const SccEdges& e, int64_t ii) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    for (int v = 0; v < n_; ++v) {
      if (stamp_[v] != 0) continue;
      const int walk = v + 1;
      int x = v;
      while (stamp_[x] == 0) {
        stamp_[x] = walk;
        if (pred_[x] < 0) break;
        x = e.from[pred_[x]];
      }
      // Met again within this walk: x lies on a cycle.
      if (stamp_[x] == walk && pred_[x] >= 0) return cycle_bound(e, x, ii);
    }
    return 0;
  }

  int n_ = 0;
  std::vector<int64_t> dist_;
  std::vector<int> pred_;        // local edge index, or -1
  std::vector<int> stamp_;       // walk id per op during the cycle check
  std::vector<int> generation_;  // FIFO generation of the op's last queueing
  std::vector<char> queued_;
  std::vector<int> queue_;       // ring buffer of n_ entries
};

// The smallest II >= lo at which the component has no positive cycle,
// i.e. max(lo, the component's RecMII). REQUIRES: no positive cycle at hi.
//
// Mostly jump steps: test lo; a positive cycle raises lo to that cycle's
// own bound (cheap, since positive cycles show up early). Every
// kJumpsPerProbe jumps one galloping/bisection step tests
// min(2 lo, (lo + hi) / 2): it doubles lo or halves hi - lo, so at most
// (kJumpsPerProbe + 1) * 2 * log2(hi) tests run; usually a handful.
int64_t component_rec_mii(PositiveCycleFinder& finder, const SccEdges& e, int64_t lo,
                          int64_t hi) {
  constexpr int kJumpsPerProbe = 4;
  int step = 0;
  while (lo < hi) {
    const bool probe = ++step % (kJumpsPerProbe + 1) == 0;
    const int64_t ii = probe ? std::min(2 * lo, lo + (hi - lo) / 2) : lo;
    const int64_t bound = finder.find(e, ii);
    if (bound == 0) {
      hi = ii;
    } else {
      assert(bound > ii);
      lo = std::max(ii + 1, bound);
    }
  }
  return lo;
}

int64_t recurrence_mii_of(const Graph& g, const Adjacency& adj) {
  const Components comps = strongly_connected(g, adj, EdgeFilter::kAll);
  // Members of each component in op order, and each op's local index.
  std::vector<int> begin(static_cast<size_t>(comps.count) + 1, 0);
  for (int v = 0; v < g.op_count(); ++v) ++begin[comps.component[v] + 1];
  for (int c = 0; c < comps.count; ++c) begin[c + 1] += begin[c];
  std::vector<int> local(static_cast<size_t>(g.op_count()));
  {
    std::vector<int> fill(begin.begin(), begin.end() - 1);
    for (int v = 0; v < g.op_count(); ++v) {
      const int c = comps.component[v];
      local[v] = fill[c]++ - begin[c];
    }
  }
  // Internal edges grouped by component, in edge-id order.
  std::vector<std::vector<int>> internal(static_cast<size_t>(comps.count));
  for (int i = 0; i < g.edge_count(); ++i) {
    const Edge& e = g.edges[i];
    if (comps.component[e.from] == comps.component[e.to]) {
      internal[comps.component[e.from]].push_back(i);
    }
  }

  int64_t best = 1;
  PositiveCycleFinder finder;
  SccEdges edges;
  for (int c = 0; c < comps.count; ++c) {
    edges.clear();
    int64_t sum_latency = 0;
    int64_t max_latency = 0;
    bool carried = false;
    for (int i : internal[c]) {
      const Edge& e = g.edges[i];
      edges.add(local[e.from], local[e.to], e.latency, e.distance);
      sum_latency += e.latency;
      max_latency = std::max(max_latency, e.latency);
      carried = carried || e.distance > 0;
    }
    // Without a loop-carried edge every cycle has sum distance 0 and, after
    // validation, sum latency 0: no bound. A simple cycle has at most n
    // edges, so at II = min(sum latency, n * max latency) none with sum
    // distance >= 1 is positive.
    const int n = begin[c + 1] - begin[c];
    const int64_t hi = std::min(sum_latency, n * max_latency);
    if (!carried || hi <= best) continue;
    edges.index(n);
    finder.prepare(n);
    best = component_rec_mii(finder, edges, best, hi);
  }
  return best;
}

int64_t dependency_mii_of(const Graph& g, const Adjacency& adj) {
  bool any = false;
  for (const Op& op : g.ops) any = any || op.max_depth.has_value();
  if (!any) return 1;
  const std::vector<int64_t> longest = longest_zero_distance_paths(g, adj);
  int64_t best = 1;
  for (int v = 0; v < g.op_count(); ++v) {
    const std::optional<int64_t>& depth = g.ops[v].max_depth;
    if (!depth) continue;
    assert(*depth >= 0);
    best = std::max(best, ceil_div(longest[v] + 1, *depth + 1));
  }
  return best;
}

}  // namespace

int64_t resource_mii(const Graph& g) {
  const Target& t = g.target;
  std::vector<int64_t> sum(static_cast<size_t>(t.slot_count()), 0);
  int64_t best = 1;
  for (const Op& op : g.ops) {
    for (const Triple& tr : op.resources) {
      if (t.slot(tr.slot).capacity != 1) continue;
      sum[tr.slot - 1] += tr.duration;
      best = std::max(best, sum[tr.slot - 1]);
    }
  }
  return best;
}

int64_t recurrence_mii(const Graph& g) { return recurrence_mii_of(g, Adjacency::build(g)); }

int64_t fine_density_mii(const Graph& g) {
  const Target& t = g.target;
  int64_t best = 1;
  for (int s = 1; s <= t.slot_count(); ++s) {
    const int64_t cap = t.slot(s).capacity;
    if (cap <= 1) continue;
    CeilSum sum(cap);
    for (const Op& op : g.ops) {
      for (const Triple& tr : op.resources) {
        if (tr.slot == s) sum.add(tr.occupancy * tr.duration);
      }
    }
    best = std::max(best, sum.value());
  }
  for (int p = 0; p < static_cast<int>(t.pools.size()); ++p) {
    if (t.pools[p].kind != PoolKind::kRate) continue;
    CeilSum sum(t.pools[p].capacity);
    for (const Op& op : g.ops) {
      for (const PoolUse& use : op.pools) {
        if (use.pool == p) sum.add(use.count * footprint_duration(op));
      }
    }
    best = std::max(best, sum.value());
  }
  return best;
}

int64_t dependency_mii(const Graph& g) { return dependency_mii_of(g, Adjacency::build(g)); }

MiiBounds compute_mii(const Graph& g) {
  const Adjacency adj = Adjacency::build(g);
  MiiBounds b;
  b.resource = resource_mii(g);
  b.recurrence = recurrence_mii_of(g, adj);
  b.fine_density = fine_density_mii(g);
  b.dependency = dependency_mii_of(g, adj);
  return b;
}

}  // namespace tilesched
