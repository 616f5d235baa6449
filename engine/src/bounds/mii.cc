// The four lower bounds on II (seed 004; docs/CONTRACT.md, "Lower bounds"): ResMII over singleton slots, FineMII over pooled slots and
// rate pools, the exact RecMII over dependence cycles, and DepMII from
// max_depth. docs/BOUNDS.md gives the formulas and the RecMII algorithm.
#include "tilesched/mii.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <vector>

#include "bounds/positive_cycle.h"
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
  if (!any_max_depth(g)) return 1;
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
