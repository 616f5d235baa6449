// The structural distance closure (Rau's MinDist) per strongly connected
// component, carried across the condensation in topological order. See
// distance.h for the contract and the magnitude bound.
#include "tilesched/distance.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <functional>

#include "tilesched/graph_algo.h"
#include "tilesched/limits.h"

namespace tilesched {

namespace {

constexpr int64_t kNoPath = DistanceMatrix::kNoPath;

// dst[j] = max(dst[j], a + src[j]) for j in [lo, hi] where src[j] is a
// path. dst and src are different rows.
void relax_row(int64_t* __restrict dst, const int64_t* __restrict src, int64_t a, int lo,
               int hi) {
  for (int j = lo; j <= hi; ++j) {
    const int64_t s = src[j];
    if (s == kNoPath) continue;
    const int64_t t = a + s;
    if (t > dst[j]) dst[j] = t;
  }
}

}  // namespace

void DistanceMatrix::prepare(const Graph& g, const Adjacency& adj) {
  n_ = g.op_count();
  edges_ = g.edges;
  const Components comps = strongly_connected(g, adj, EdgeFilter::kAll);
  comp_count_ = comps.count;

  comp_begin_.assign(static_cast<size_t>(comp_count_) + 1, 0);
  for (int v = 0; v < n_; ++v) ++comp_begin_[comps.component[v] + 1];
  for (int c = 0; c < comp_count_; ++c) comp_begin_[c + 1] += comp_begin_[c];
  members_.resize(static_cast<size_t>(n_));
  local_.resize(static_cast<size_t>(n_));
  {
    std::vector<int> fill(comp_begin_.begin(), comp_begin_.end() - 1);
    for (int v = 0; v < n_; ++v) {  // ascending ids within each component
      const int c = comps.component[v];
      local_[v] = fill[c] - comp_begin_[c];
      members_[fill[c]++] = v;
    }
  }
  // Member position of an op: comp_begin_[component] + local index.
  auto position = [&](int v) { return comp_begin_[comps.component[v]] + local_[v]; };

  // Internal edges by source position; exit edges by component.
  inner_begin_.assign(static_cast<size_t>(n_) + 1, 0);
  cross_begin_.assign(static_cast<size_t>(comp_count_) + 1, 0);
  for (const Edge& e : g.edges) {
    const int cf = comps.component[e.from];
    if (cf == comps.component[e.to]) {
      ++inner_begin_[position(e.from) + 1];
    } else {
      ++cross_begin_[cf + 1];
    }
  }
  for (int p = 0; p < n_; ++p) inner_begin_[p + 1] += inner_begin_[p];
  for (int c = 0; c < comp_count_; ++c) cross_begin_[c + 1] += cross_begin_[c];
  inner_.resize(static_cast<size_t>(inner_begin_[n_]));
  cross_.resize(static_cast<size_t>(cross_begin_[comp_count_]));
  {
    std::vector<int> inner_fill(inner_begin_.begin(), inner_begin_.end() - 1);
    std::vector<int> cross_fill(cross_begin_.begin(), cross_begin_.end() - 1);
    for (const Edge& e : g.edges) {
      const int cf = comps.component[e.from];
      if (cf == comps.component[e.to]) {
        inner_[inner_fill[position(e.from)]++] = {local_[e.from], local_[e.to], e.latency,
                                                  e.distance};
      } else {
        cross_[cross_fill[cf]++] = {e.from, e.to, e.latency, e.distance};
      }
    }
  }
  // Exit edges grouped by target, so each (source op, target) pair costs one
  // row update however many parallel paths lead there.
  for (int c = 0; c < comp_count_; ++c) {
    std::sort(cross_.begin() + cross_begin_[c], cross_.begin() + cross_begin_[c + 1],
              [](const Arc& a, const Arc& b) {
                return a.to != b.to ? a.to < b.to : a.from < b.from;
              });
  }
  prepared_ = true;
}

bool DistanceMatrix::build(const Graph& g, const Adjacency& adj, int64_t ii) {
  assert(ii >= 1 && ii <= limits::kMaxII);
  assert(static_cast<int>(adj.out_begin.size()) == g.op_count() + 1);
  if (!prepared_ || g.op_count() != n_ || g.edges != edges_) prepare(g, adj);
  ii_ = ii;
  valid_ = false;
  const size_t cells = static_cast<size_t>(n_) * static_cast<size_t>(n_);
  dist_.resize(cells);  // no allocation when n is unchanged
  std::fill(dist_.begin(), dist_.end(), kNoPath);
  first_.resize(static_cast<size_t>(n_));
  last_.resize(static_cast<size_t>(n_));
  stats_ = {};
  stats_.components = comp_count_;

  // Tarjan numbers sinks first: every successor component of c has a lower
  // id, so its members' rows are final by the time c is processed.
  for (int c = 0; c < comp_count_; ++c) {
    if (!close_component(c)) return false;
    propagate_component(c);
  }
  valid_ = true;
  return true;
}

bool DistanceMatrix::close_component(int c) {
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  stats_.largest_component = std::max(stats_.largest_component, k);
  // The component's columns, before any exit edge widens them.
  for (int i = 0; i < k; ++i) {
    first_[members_[begin + i]] = members_[begin];
    last_[members_[begin + i]] = members_[begin + k - 1];
  }
  if (k == 1) {
    // A lone op: the empty path, unless a self loop is a positive cycle.
    const int v = members_[begin];
    for (int i = inner_begin_[begin]; i < inner_begin_[begin + 1]; ++i) {
      if (weight(inner_[i]) > 0) return false;
    }
    row_ptr(v)[v] = 0;
    return true;
  }
  bool dijkstra = method_ == SccMethod::kDijkstra;
  if (method_ == SccMethod::kAuto) {
    // Floyd-Warshall does k³ cheap steps; Dijkstra about k·m·log k dearer
    // ones. The constant is measured (bench/README.md).
    const int64_t m = inner_begin_[begin + k] - inner_begin_[begin];
    const int64_t log_k = std::bit_width(static_cast<uint64_t>(k));
    dijkstra = k >= 32 && 8 * m * log_k < int64_t{k} * k;
  }
  ++(dijkstra ? stats_.sparse_closures : stats_.dense_closures);
  return dijkstra ? close_by_dijkstra(c) : close_by_floyd_warshall(c);
}

bool DistanceMatrix::close_by_floyd_warshall(int c) {
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  const size_t kk = static_cast<size_t>(k);
  dense_.resize(kk * kk);
  std::fill(dense_.begin(), dense_.end(), kNoPath);
  int64_t* d = dense_.data();
  for (int i = 0; i < k; ++i) d[i * kk + i] = 0;
  for (int e = inner_begin_[begin]; e < inner_begin_[begin + k]; ++e) {
    const Arc& a = inner_[e];
    int64_t& cell = d[a.from * kk + a.to];
    cell = std::max(cell, weight(a));
  }
  for (int i = 0; i < k; ++i) {
    if (d[i * kk + i] > 0) return false;  // a positive self loop
  }

  // Max-plus Floyd-Warshall. Row p and column p do not change while p is
  // the pivot (d[p][p] <= 0), so row i never aliases row p. Invariant: at
  // each pivot every diagonal entry is <= 0, hence every entry is a simple
  // path's weight and the sums below stay within the bound of distance.h.
  for (int p = 0; p < k; ++p) {
    const int64_t* row_p = d + p * kk;
    for (int i = 0; i < k; ++i) {
      if (i == p) continue;
      int64_t* row_i = d + i * kk;
      const int64_t ip = row_i[p];
      if (ip == kNoPath) continue;
      for (int j = 0; j < k; ++j) {
        const int64_t pj = row_p[j];
        if (pj == kNoPath) continue;
        const int64_t t = ip + pj;
        if (t > row_i[j]) row_i[j] = t;
      }
      if (row_i[i] > 0) return false;  // a positive cycle through i and p
    }
  }

  for (int i = 0; i < k; ++i) {
    int64_t* out = row_ptr(members_[begin + i]);
    const int64_t* in = d + i * kk;
    for (int j = 0; j < k; ++j) out[members_[begin + j]] = in[j];
  }
  return true;
}

bool DistanceMatrix::close_by_dijkstra(int c) {
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  const size_t kk = static_cast<size_t>(k);

  // Potentials h: longest paths from a virtual source joined to every
  // member by a 0 edge (queue-based Bellman-Ford). Then every internal edge
  // has h[to] >= h[from] + w. A best path of k edges repeats an op, which
  // only a positive cycle makes profitable.
  potential_.assign(kk, 0);
  hops_.assign(kk, 0);
  queued_.assign(kk, 1);
  queue_.resize(kk + 1);  // a ring: every member is queued at most once
  for (int i = 0; i < k; ++i) queue_[i] = i;
  size_t head = 0, tail = kk, pending = kk;
  while (pending > 0) {
    const int u = queue_[head];
    head = head == kk ? 0 : head + 1;
    --pending;
    queued_[u] = 0;
    for (int e = inner_begin_[begin + u]; e < inner_begin_[begin + u + 1]; ++e) {
      const Arc& a = inner_[e];
      const int64_t t = potential_[u] + weight(a);
      if (t <= potential_[a.to]) continue;
      potential_[a.to] = t;
      hops_[a.to] = hops_[u] + 1;
      if (hops_[a.to] >= k) return false;  // a positive cycle
      if (!queued_[a.to]) {
        queued_[a.to] = 1;
        queue_[tail] = a.to;
        tail = tail == kk ? 0 : tail + 1;
        ++pending;
      }
    }
  }

  // One Dijkstra per member over the reduced costs h[to] − h[from] − w >= 0;
  // the longest path weight is h[v] − h[s] − (shortest reduced cost).
  constexpr int64_t kUnreached = -1;
  reduced_.resize(kk);
  auto later = [](const std::pair<int64_t, int>& a, const std::pair<int64_t, int>& b) {
    return a.first > b.first;
  };
  for (int s = 0; s < k; ++s) {
    std::fill(reduced_.begin(), reduced_.end(), kUnreached);
    heap_.clear();
    heap_.push_back({0, s});
    int64_t* out = row_ptr(members_[begin + s]);
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const auto [cost, u] = heap_.back();
      heap_.pop_back();
      if (reduced_[u] != kUnreached) continue;  // settled earlier, cheaper
      reduced_[u] = cost;
      out[members_[begin + u]] = potential_[u] - potential_[s] - cost;
      for (int e = inner_begin_[begin + u]; e < inner_begin_[begin + u + 1]; ++e) {
        const Arc& a = inner_[e];
        if (reduced_[a.to] != kUnreached) continue;
        const int64_t step = potential_[a.to] - potential_[u] - weight(a);
        assert(step >= 0);
        heap_.push_back({cost + step, a.to});
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
  }
  return true;
}

void DistanceMatrix::propagate_component(int c) {
  const int cross_begin = cross_begin_[c];
  const int cross_end = cross_begin_[c + 1];
  if (cross_begin == cross_end) return;
  for (int m = comp_begin_[c]; m < comp_begin_[c + 1]; ++m) {
    const int u = members_[m];
    int64_t* row_u = row_ptr(u);
    int lo = first_[u], hi = last_[u];
    // For each target y outside c: the best way to leave c towards y, then
    // y's finished row.
    for (int i = cross_begin; i < cross_end;) {
      const int y = cross_[i].to;
      int64_t best = kNoPath;
      for (; i < cross_end && cross_[i].to == y; ++i) {
        const int64_t ux = row_u[cross_[i].from];  // inside c: always a path
        assert(ux != kNoPath);
        best = std::max(best, ux + weight(cross_[i]));
      }
      relax_row(row_u, row_ptr(y), best, first_[y], last_[y]);
      lo = std::min(lo, first_[y]);
      hi = std::max(hi, last_[y]);
    }
    first_[u] = lo;
    last_[u] = hi;
  }
}

int64_t DistanceMatrix::at(OpId u, OpId v) const {
  assert(valid_);
  const int64_t d = cell(u, v);
  assert(d != kNoPath);
  return d;
}

std::span<const int64_t> DistanceMatrix::row(OpId u) const {
  assert(valid_);
  return {dist_.data() + static_cast<size_t>(u) * static_cast<size_t>(n_),
          static_cast<size_t>(n_)};
}

}  // namespace tilesched
