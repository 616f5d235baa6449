// Positive cycles (positive_cycle.h; docs/BOUNDS.md, "RecMII").
#include "bounds/positive_cycle.h"

#include <algorithm>
#include <cassert>

#include "model/arith.h"

namespace tilesched {

void SccEdges::clear() {
  from.clear();
  to.clear();
  latency.clear();
  distance.clear();
}

void SccEdges::add(int u, int v, int64_t lat, int64_t dist) {
  from.push_back(u);
  to.push_back(v);
  latency.push_back(lat);
  distance.push_back(dist);
}

void SccEdges::index(int n) {
  out_begin.assign(static_cast<size_t>(n) + 1, 0);
  for (int u : from) ++out_begin[u + 1];
  for (int v = 0; v < n; ++v) out_begin[v + 1] += out_begin[v];
  out_edges.resize(from.size());
  std::vector<int> fill(out_begin.begin(), out_begin.end() - 1);
  for (int i = 0; i < static_cast<int>(from.size()); ++i) out_edges[fill[from[i]]++] = i;
}

void PositiveCycleFinder::prepare(int n) {
  n_ = n;
  dist_.assign(static_cast<size_t>(n), 0);
  pred_.assign(static_cast<size_t>(n), -1);
  stamp_.assign(static_cast<size_t>(n), 0);
  generation_.assign(static_cast<size_t>(n), 0);
  queued_.assign(static_cast<size_t>(n), 0);
  queue_.assign(static_cast<size_t>(n), 0);
}

int64_t PositiveCycleFinder::find(const SccEdges& e, int64_t ii) {
  const int x = op_on_cycle(e, ii);
  return x < 0 ? 0 : cycle_bound(e, x, ii);
}

std::vector<int> PositiveCycleFinder::find_cycle(const SccEdges& e, int64_t ii) {
  const int x = op_on_cycle(e, ii);
  std::vector<int> cycle;
  if (x < 0) return cycle;
  int y = x;
  do {
    cycle.push_back(pred_[y]);
    y = e.from[pred_[y]];
  } while (y != x);
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

// An op on a cycle of the predecessor graph, or -1 when the queue empties.
int PositiveCycleFinder::op_on_cycle(const SccEdges& e, int64_t ii) {
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
      if (generation_[u] >= n_) return chain_cycle_op(e, v);
      if (--until_check == 0) {
        if (const int x = predecessor_cycle_op(e); x >= 0) return x;
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
  return -1;
}

// The bound of the cycle through x, following predecessor edges.
int64_t PositiveCycleFinder::cycle_bound(const SccEdges& e, int x, int64_t ii) const {
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
int PositiveCycleFinder::chain_cycle_op(const SccEdges& e, int v) const {
  for (int k = 0; k < n_; ++k) {
    assert(pred_[v] >= 0);
    v = e.from[pred_[v]];
  }
  return v;
}

// An op on some cycle of the predecessor graph, or -1 when it is a forest.
int PositiveCycleFinder::predecessor_cycle_op(const SccEdges& e) {
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
    if (stamp_[x] == walk && pred_[x] >= 0) return x;
  }
  return -1;
}

std::vector<int> positive_cycle(const Graph& g, int64_t ii) {
  SccEdges edges;
  for (const Edge& e : g.edges) edges.add(e.from, e.to, e.latency, e.distance);
  edges.index(g.op_count());
  PositiveCycleFinder finder;
  finder.prepare(g.op_count());
  return finder.find_cycle(edges, ii);
}

}  // namespace tilesched
