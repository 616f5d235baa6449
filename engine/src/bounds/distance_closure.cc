// The closure of one strongly connected component (distance.h, "Methods"):
// Floyd-Warshall, the feedback heads, or Dijkstra with potentials, each
// written back into the shared matrix.
#include <algorithm>
#include <bit>
#include <cassert>
#include <functional>
#include <limits>
#include <queue>
#include <type_traits>

#include "distance.h"
#include "distance_rows.h"
#include "graph/graph_algo.h"
#include "tilesched/limits.h"

namespace tilesched {

using distance_internal::relax_row;

namespace {

// In-place max-plus Floyd-Warshall on a k×k row-major matrix whose
// diagonal starts at 0 or above. False as soon as a diagonal entry turns
// positive (a positive cycle).
//
// Row p and column p do not change while p is the pivot (d[p][p] <= 0), so
// row i never aliases row p. Invariant: at each pivot every diagonal entry
// is <= 0, hence every entry is a simple path's weight and every sum stays
// within the bound of distance.h.
template <class T>
bool max_plus_closure(T* d, int k, T none) {
  const size_t kk = static_cast<size_t>(k);
  for (int i = 0; i < k; ++i) {
    if (d[i * kk + i] > 0) return false;
  }
  for (int p = 0; p < k; ++p) {
    const T* row_p = d + p * kk;
    for (int i = 0; i < k; ++i) {
      if (i == p) continue;
      T* row_i = d + i * kk;
      const T ip = row_i[p];
      if (ip == none) continue;
      relax_row(row_i, row_p, ip, 0, k - 1, none);
      if (row_i[i] > 0) return false;  // a positive cycle through i and p
    }
  }
  return true;
}

}  // namespace

template <class T>
void DistanceMatrix::scatter_dense(int c, const std::vector<T>& dense) {
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  const size_t kk = static_cast<size_t>(k);
  const int* member = members_.data() + begin;
  constexpr T kNone = std::numeric_limits<T>::min();
  for (int i = 0; i < k; ++i) {
    int64_t* out = row_ptr(member[i]);
    const T* in = dense.data() + i * kk;
    for (int j = 0; j < k; ++j) out[member[j]] = in[j] == kNone ? kNoPath : in[j];
  }
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
  if (!max_plus_closure(d, k, kNoPath)) return false;
  scatter_dense(c, dense_);
  return true;
}

bool DistanceMatrix::close_by_feedback(int c) {
  // 32-bit cells where every value the closure forms provably fits (half
  // the memory traffic, twice the vector lanes): the absolute weights of
  // the component's edges, plus the positive weights times k·h (the walks
  // the head closure forms before it sees a positive cycle), below 2^29.
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  const int h = head_begin_[c + 1] - head_begin_[c];
  int64_t total = 0, positive = 0;
  for (int e = inner_begin_[begin]; e < inner_begin_[begin + k] && total < (int64_t{1} << 29);
       ++e) {
    const int64_t w = weight(inner_[e]);
    total += w < 0 ? -w : w;
    positive = std::max(positive, w);
  }
  const int64_t walks = static_cast<int64_t>(k) * h + 1;
  if (total < (int64_t{1} << 29) && positive < ((int64_t{1} << 29) - total) / walks) {
    return close_by_feedback_in(c, dense32_, heads_dense32_, heads_rows32_);
  }
  ++stats_.feedback_wide;
  return close_by_feedback_in(c, dense_, heads_dense_, heads_rows_);
}

template <class T>
bool DistanceMatrix::close_by_feedback_in(int c, std::vector<T>& dense, std::vector<T>& heads_dense,
                                          std::vector<T>& heads_rows) {
  constexpr T kNone = std::numeric_limits<T>::min();
  const size_t k = static_cast<size_t>(comp_begin_[c + 1] - comp_begin_[c]);
  const int h = head_begin_[c + 1] - head_begin_[c];
  const size_t hh = static_cast<size_t>(h);
  stats_.largest_head_set = std::max(stats_.largest_head_set, h);
  dense.resize(k * k);
  heads_dense.resize(hh * hh);
  heads_rows.resize(hh * k);
  forward_rows(c, dense.data());
  head_graph(c, dense.data(), heads_dense.data());
  // Its closure finds every positive cycle, since each passes through a head.
  if (!max_plus_closure(heads_dense.data(), h, kNone)) return false;
  head_rows(c, heads_dense.data(), heads_rows.data(), dense.data());
  other_rows(c, dense.data());
  scatter_dense(c, dense);
  return true;
}

// 1. Longest paths over the forward edges alone (a DAG in local order),
//    last op first: row i only has columns >= i.
template <class T>
void DistanceMatrix::forward_rows(int c, T* d) const {
  constexpr T kNone = std::numeric_limits<T>::min();
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  const size_t kk = static_cast<size_t>(k);
  for (int i = k - 1; i >= 0; --i) {
    T* row_i = d + i * kk;
    std::fill(row_i, row_i + kk, kNone);
    row_i[i] = 0;
    for (int e = inner_begin_[begin + i]; e < inner_begin_[begin + i + 1]; ++e) {
      const Arc& a = inner_[e];
      if (a.to > i) relax_row(row_i, d + a.to * kk, static_cast<T>(weight(a)), a.to, k - 1, kNone);
    }
  }
}

// 2. The heads' graph: a -> b weighs the best forward path from head a to
//    a backward edge into head b, plus that edge.
template <class T>
void DistanceMatrix::head_graph(int c, const T* d, T* hd) const {
  constexpr T kNone = std::numeric_limits<T>::min();
  const int begin = comp_begin_[c];
  const size_t kk = static_cast<size_t>(comp_begin_[c + 1] - begin);
  const int* head = heads_.data() + head_begin_[c];
  const int h = head_begin_[c + 1] - head_begin_[c];
  const size_t hh = static_cast<size_t>(h);
  std::fill(hd, hd + hh * hh, kNone);
  for (int a = 0; a < h; ++a) {
    const T* forward = d + head[a] * kk;
    T* out = hd + a * hh;
    out[a] = 0;
    for (int e = back_begin_[c]; e < back_begin_[c + 1]; ++e) {
      const Arc& arc = back_[e];
      const T to_tail = forward[arc.from];
      if (to_tail == kNone) continue;
      T& cell = out[head_of_[begin + arc.to]];
      cell = std::max(cell, static_cast<T>(to_tail + static_cast<T>(weight(arc))));
    }
  }
}

// 3. The heads' rows (hd closed): the closure to some head b, then forward
//    from b; built aside, then copied over the heads' forward rows.
template <class T>
void DistanceMatrix::head_rows(int c, const T* hd, T* rows, T* d) const {
  constexpr T kNone = std::numeric_limits<T>::min();
  const int k = comp_begin_[c + 1] - comp_begin_[c];
  const size_t kk = static_cast<size_t>(k);
  const int* head = heads_.data() + head_begin_[c];
  const int h = head_begin_[c + 1] - head_begin_[c];
  const size_t hh = static_cast<size_t>(h);
  std::fill(rows, rows + hh * kk, kNone);
  // A block of a's rows at a time, each forward row of b read once per
  // block (the rows are memory-bound: h·h reads of k cells otherwise).
  constexpr int kBlock = 8;
  for (int a0 = 0; a0 < h; a0 += kBlock) {
    const int a1 = std::min(h, a0 + kBlock);
    for (int b = 0; b < h; ++b) {
      const T* forward = d + head[b] * kk;
      for (int a = a0; a < a1; ++a) {
        const T ab = hd[a * hh + b];
        if (ab != kNone) relax_row(rows + a * kk, forward, ab, head[b], k - 1, kNone);
      }
    }
  }
  for (int a = 0; a < h; ++a) std::copy(rows + a * kk, rows + (a + 1) * kk, d + head[a] * kk);
}

// 4. Every other op, last first, from its successors' final rows: a
//    forward edge leads to a later op, a backward one to a head.
template <class T>
void DistanceMatrix::other_rows(int c, T* d) const {
  constexpr T kNone = std::numeric_limits<T>::min();
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  const size_t kk = static_cast<size_t>(k);
  for (int i = k - 1; i >= 0; --i) {
    if (head_of_[begin + i] >= 0) continue;
    T* row_i = d + i * kk;
    std::fill(row_i, row_i + kk, kNone);
    row_i[i] = 0;
    for (int e = inner_begin_[begin + i]; e < inner_begin_[begin + i + 1]; ++e) {
      const Arc& a = inner_[e];
      relax_row(row_i, d + a.to * kk, static_cast<T>(weight(a)), 0, k - 1, kNone);
    }
  }
}

bool DistanceMatrix::close_by_dijkstra(int c) {
  if (!find_potentials(c)) return false;
  rows_by_dijkstra(c);
  return true;
}

// Potentials h: longest paths from a virtual source joined to every member
// by a 0 edge (queue-based Bellman-Ford). Then every internal edge has
// h[to] >= h[from] + w. A best path of k edges repeats an op, which only a
// positive cycle makes profitable: false then.
bool DistanceMatrix::find_potentials(int c) {
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  const size_t kk = static_cast<size_t>(k);
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
  return true;
}

// One Dijkstra per member over the reduced costs h[to] − h[from] − w >= 0;
// the longest path weight is h[v] − h[s] − (shortest reduced cost).
void DistanceMatrix::rows_by_dijkstra(int c) {
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  constexpr int64_t kUnreached = -1;
  reduced_.resize(static_cast<size_t>(k));
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
}

}  // namespace tilesched
