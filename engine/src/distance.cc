// The structural distance closure (Rau's MinDist) per strongly connected
// component, carried across the condensation in topological order. See
// distance.h for the contract, the methods and the magnitude bound.
#include "distance.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <functional>
#include <limits>
#include <type_traits>
#include <queue>

#include "graph_algo.h"
#include "tilesched/limits.h"

namespace tilesched {

namespace {


// dst[j] = max(dst[j], a + src[j]) for j in [lo, hi] where src[j] is a
// path (not `none`). dst and src are different rows.
template <class T>
void relax_row(T* __restrict dst, const T* __restrict src, T a, int lo, int hi, T none) {
  if constexpr (sizeof(T) == 4) {
    // Branch-free, so the compiler vectorizes it (4 or 8 lanes): the sum is
    // formed in unsigned arithmetic, defined for the sentinel too, and
    // dropped by the select, so the sentinel never reaches a result.
    using U = std::make_unsigned_t<T>;
    for (int j = lo; j <= hi; ++j) {
      const T s = src[j];
      const T t = static_cast<T>(static_cast<U>(a) + static_cast<U>(s));
      const T cand = s == none ? none : t;
      dst[j] = cand > dst[j] ? cand : dst[j];
    }
  } else {
    for (int j = lo; j <= hi; ++j) {
      const T s = src[j];
      if (s == none) continue;
      const T t = a + s;
      if (t > dst[j]) dst[j] = t;
    }
  }
}

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

void DistanceMatrix::prepare(const Graph& g, const Adjacency& adj) {
  n_ = g.op_count();
  edges_ = g.edges;
  const Components comps = strongly_connected(g, adj, EdgeFilter::kAll);
  comp_count_ = comps.count;
  size_components(comps.component);
  order_members(g, adj, comps.component);
  sort_edges(g, comps.component);
  find_heads();
  out_begin_.assign(static_cast<size_t>(n_) + 1, 0);
  for (const Edge& e : g.edges) ++out_begin_[e.from + 1];
  for (int v = 0; v < n_; ++v) out_begin_[v + 1] += out_begin_[v];
  out_.resize(g.edges.size());
  std::vector<int> fill(out_begin_.begin(), out_begin_.end() - 1);
  for (const Edge& e : g.edges) out_[fill[e.from]++] = {e.from, e.to, e.latency, e.distance};
  prepared_ = true;
}

void DistanceMatrix::size_components(const std::vector<int>& comp) {
  comp_begin_.assign(static_cast<size_t>(comp_count_) + 1, 0);
  for (int v = 0; v < n_; ++v) ++comp_begin_[comp[v] + 1];
  for (int c = 0; c < comp_count_; ++c) comp_begin_[c + 1] += comp_begin_[c];
  comp_lo_.assign(static_cast<size_t>(comp_count_), n_);
  comp_hi_.assign(static_cast<size_t>(comp_count_), -1);
  for (int v = 0; v < n_; ++v) {
    comp_lo_[comp[v]] = std::min(comp_lo_[comp[v]], v);
    comp_hi_[comp[v]] = std::max(comp_hi_[comp[v]], v);
  }
}

// Local order inside each component: topological over its distance-0
// edges, smallest op id first among the ready ones (program order when
// that is already topological). Ops on zero-latency distance-0 cycles,
// which no such order can place, follow in id order. Any order is
// correct; this one makes the backward edges the loop-carried ones.
void DistanceMatrix::order_members(const Graph& g, const Adjacency& adj,
                                   const std::vector<int>& comp) {
  members_.resize(static_cast<size_t>(n_));
  local_.assign(static_cast<size_t>(n_), -1);
  std::vector<int> fill(comp_begin_.begin(), comp_begin_.end() - 1);
  auto place = [&](int v) {
    const int c = comp[v];
    local_[v] = fill[c] - comp_begin_[c];
    members_[fill[c]++] = v;
  };
  std::vector<int> by_id(static_cast<size_t>(n_));
  for (int v = 0; v < n_; ++v) by_id[v] = v;
  const std::vector<int> walk = kahn_walk(n_, by_id, [&](int v, auto&& visit) {
    for (int i = adj.out_begin[v]; i < adj.out_begin[v + 1]; ++i) {
      const Edge& e = g.edges[adj.out_edges[i]];
      if (e.distance == 0 && comp[e.to] == comp[v]) visit(e.to);
    }
  });
  for (int v : walk) place(v);
  for (int v = 0; v < n_; ++v) {
    if (local_[v] < 0) place(v);
  }
}

// Internal edges by source position; backward ones also by component;
// exit edges by component.
void DistanceMatrix::sort_edges(const Graph& g, const std::vector<int>& comp) {
  // Member position of an op: comp_begin_[component] + local index.
  auto position = [&](int v) { return comp_begin_[comp[v]] + local_[v]; };
  inner_begin_.assign(static_cast<size_t>(n_) + 1, 0);
  back_begin_.assign(static_cast<size_t>(comp_count_) + 1, 0);
  cross_begin_.assign(static_cast<size_t>(comp_count_) + 1, 0);
  for (const Edge& e : g.edges) {
    const int c = comp[e.from];
    if (c != comp[e.to]) {
      ++cross_begin_[c + 1];
      continue;
    }
    ++inner_begin_[position(e.from) + 1];
    if (local_[e.to] <= local_[e.from]) ++back_begin_[c + 1];
  }
  for (int p = 0; p < n_; ++p) inner_begin_[p + 1] += inner_begin_[p];
  for (int c = 0; c < comp_count_; ++c) {
    back_begin_[c + 1] += back_begin_[c];
    cross_begin_[c + 1] += cross_begin_[c];
  }
  inner_.resize(static_cast<size_t>(inner_begin_[n_]));
  back_.resize(static_cast<size_t>(back_begin_[comp_count_]));
  cross_.resize(static_cast<size_t>(cross_begin_[comp_count_]));
  std::vector<int> inner_fill(inner_begin_.begin(), inner_begin_.end() - 1);
  std::vector<int> back_fill(back_begin_.begin(), back_begin_.end() - 1);
  std::vector<int> cross_fill(cross_begin_.begin(), cross_begin_.end() - 1);
  for (const Edge& e : g.edges) {
    const int c = comp[e.from];
    if (c != comp[e.to]) {
      cross_[cross_fill[c]++] = {e.from, e.to, e.latency, e.distance};
      continue;
    }
    const Arc local{local_[e.from], local_[e.to], e.latency, e.distance};
    inner_[inner_fill[position(e.from)]++] = local;
    if (local.to <= local.from) back_[back_fill[c]++] = local;
  }
  // Exit edges grouped by target, so each (source op, target) pair costs one
  // row update however many parallel paths lead there.
  for (int c = 0; c < comp_count_; ++c) {
    std::sort(cross_.begin() + cross_begin_[c], cross_.begin() + cross_begin_[c + 1],
              [](const Arc& a, const Arc& b) {
                return a.to != b.to ? a.to < b.to : a.from < b.from;
              });
  }
}

// Heads: the distinct targets of backward edges. Every cycle of a
// component has a backward edge, so passes through a head.
void DistanceMatrix::find_heads() {
  head_of_.assign(static_cast<size_t>(n_), -1);
  head_begin_.assign(static_cast<size_t>(comp_count_) + 1, 0);
  heads_.clear();
  for (int c = 0; c < comp_count_; ++c) {
    const size_t first = heads_.size();
    for (int i = back_begin_[c]; i < back_begin_[c + 1]; ++i) heads_.push_back(back_[i].to);
    std::sort(heads_.begin() + static_cast<std::ptrdiff_t>(first), heads_.end());
    heads_.erase(std::unique(heads_.begin() + static_cast<std::ptrdiff_t>(first), heads_.end()),
                 heads_.end());
    head_begin_[c + 1] = static_cast<int>(heads_.size());
    for (size_t h = first; h < heads_.size(); ++h) {
      head_of_[comp_begin_[c] + heads_[h]] = static_cast<int>(h - first);
    }
  }
}

int64_t IiLines::next_check(int64_t ii) const {
  assert(lines_);
  if (ii > hi_) {
    int64_t c = std::max(ii, hi_ + std::min(step_, limits::kMaxII - hi_));
    if (range_hi_ > 0 && c > range_hi_) c = std::max(ii, range_hi_);
    return c;
  }
  int64_t c = std::min(ii, lo_ - std::min(step_, lo_ - 1));
  if (range_hi_ > 0 && c < range_lo_) c = std::min(ii, range_lo_);
  return c;
}

bool IiLines::offer(int64_t ii, std::span<const int64_t> values) {
  if (lines_ && values.size() == base_.size() && on_lines(ii, values)) {
    lo_ = std::min(lo_, ii);
    hi_ = std::max(hi_, ii);
    step_ = std::min(2 * step_, limits::kMaxII);
    return true;
  }
  if (lines_) {
    ++broken_;
    lines_ = false;
  }
  if (kept_ && base_.size() == values.size() && (kept_ii_ == ii - 1 || kept_ii_ == ii + 1)) {
    make_lines(ii, values);
  } else {
    base_.assign(values.begin(), values.end());
    kept_ii_ = ii;
    kept_ = true;
  }
  return false;
}

// From the values kept at ii ± 1 (in base_) and those at ii: based at the
// lower II, the slope its value minus the next one's.
void IiLines::make_lines(int64_t ii, std::span<const int64_t> values) {
  const bool kept_lower = kept_ii_ < ii;
  const size_t count = values.size();
  slope_.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (values[i] == kNone) {
      slope_[i] = 0;
      continue;
    }
    const int64_t s = kept_lower ? base_[i] - values[i] : values[i] - base_[i];
    assert(s >= 0 && s < (int64_t{1} << 29));
    slope_[i] = static_cast<int32_t>(s);
  }
  if (!kept_lower) base_.assign(values.begin(), values.end());
  x_ = std::min(ii, kept_ii_);
  lo_ = x_;
  hi_ = x_ + 1;
  lines_ = true;
  kept_ = false;
  step_ = range_hi_ > 0 ? limits::kMaxII : 1;  // a known range: its far end first
}

void IiLines::set_lines(int64_t ii, std::span<const int64_t> values,
                        std::span<const int32_t> slopes) {
  base_.assign(values.begin(), values.end());
  slope_.assign(slopes.begin(), slopes.end());
  x_ = lo_ = hi_ = kept_ii_ = ii;
  lines_ = kept_ = true;
  step_ = range_hi_ > 0 ? limits::kMaxII : 1;
}

bool IiLines::on_lines(int64_t ii, std::span<const int64_t> values) const {
  const int64_t k = ii - x_;
  const size_t count = values.size();
  for (size_t i = 0; i < count; ++i) {
    const int64_t b = base_[i];
    if (b == kNone) continue;  // the same entries are kNone at every II
    if (values[i] != b - k * slope_[i]) return false;
  }
  return true;
}

void IiLines::read(int64_t ii, size_t first, std::span<int64_t> out) const {
  assert(lines_ && first + out.size() <= base_.size());
  const int64_t k = ii - x_;
  const int64_t* __restrict b = base_.data() + first;
  const int32_t* __restrict s = slope_.data() + first;
  int64_t* __restrict d = out.data();
  const size_t count = out.size();
  for (size_t i = 0; i < count; ++i) d[i] = b[i] == kNone ? kNone : b[i] - k * s[i];
}

bool DistanceMatrix::build(const Graph& g, const Adjacency& adj, int64_t ii) {
  assert(ii >= 1 && ii <= limits::kMaxII);
  assert(static_cast<int>(adj.out_begin.size()) == g.op_count() + 1);
  if (!prepared_ || g.op_count() != n_ || g.edges != edges_) {
    prepare(g, adj);
    lines_.forget();
    lines_pending_ = false;
  }
  if (lines_pending_) make_pending_lines();
  from_lines_ = false;
  const bool across = across_ii_ && n_ <= kAcrossIiMaxOps;
  if (across && lines_.covers(ii)) {
    read_lines(ii);
    return true;
  }
  if (across && lines_.has_lines()) {
    // A check further on, else at ii itself; a closure only if both fail.
    const int64_t c = lines_.next_check(ii);
    int64_t held = 0;
    if (lines_hold(c)) {
      held = c;
    } else if (c != ii && lines_hold(ii)) {
      held = ii;
    }
    if (held != 0) {
      lines_.extend_to(held);
      read_lines(ii);
      return true;
    }
    lines_.missed();
  }
  if (!close_all(ii)) return false;
  lines_pending_ = across;
  return true;
}

// The closure of the last build (at ii_, still in dist_) offered to the
// lines, or lines through it from its best paths' δ (walk_slopes). Made
// when the next build comes, so a caller that builds at one II only (a
// search whose first II places) never pays for them.
void DistanceMatrix::make_pending_lines() {
  lines_pending_ = false;
  if (!lines_.offer(ii_, dist_) && !lines_.has_lines() && walk_slopes(ii_)) {
    lines_.set_lines(ii_, dist_, walk_slope_);
  }
}

bool DistanceMatrix::walk_slopes(int64_t ii) {
  const size_t n = static_cast<size_t>(n_);
  walk_slope_.resize(n * n);
  walk_queue_.resize(n);
  constexpr int32_t kUnseen = std::numeric_limits<int32_t>::max();
  for (size_t u = 0; u < n; ++u) {
    const int64_t* d = dist_.data() + u * n;
    int32_t* slope = walk_slope_.data() + u * n;
    std::fill(slope, slope + n, kUnseen);
    slope[u] = 0;
    // Breadth first over the tight edges: every op with a path is reached
    // (each edge of a best path is tight), each once.
    size_t head = 0, tail = 0;
    walk_queue_[tail++] = static_cast<int>(u);
    while (head < tail) {
      const int w = walk_queue_[head++];
      for (int i = out_begin_[w]; i < out_begin_[w + 1]; ++i) {
        const Arc& a = out_[i];
        if (slope[a.to] != kUnseen) continue;
        if (d[w] + (a.latency - ii * a.distance) != d[a.to]) continue;  // not tight
        const int64_t s = slope[w] + a.distance;
        if (s >= (int64_t{1} << 29)) return false;  // not a simple path's δ: no such lines
        slope[a.to] = static_cast<int32_t>(s);
        walk_queue_[tail++] = a.to;
      }
    }
    for (size_t v = 0; v < n; ++v) {
      if (slope[v] == kUnseen) slope[v] = 0;  // no path (kNoPath at every II)
    }
  }
  return true;
}

bool DistanceMatrix::lines_hold(int64_t c) {
  ++totals_.checks;
  const size_t n = static_cast<size_t>(n_);
  check_row_.resize(n);
  int64_t* row = check_row_.data();
  for (size_t u = 0; u < n; ++u) {
    lines_.read(c, u * n, check_row_);
    for (const Edge& e : edges_) {
      const int64_t from = row[e.from];
      if (from != kNoPath && from + (e.latency - c * e.distance) > row[e.to]) return false;
    }
  }
  ++totals_.checks_held;
  return true;
}

void DistanceMatrix::read_lines(int64_t ii) {
  dist_.resize(static_cast<size_t>(n_) * static_cast<size_t>(n_));
  row_stamp_.resize(static_cast<size_t>(n_), 0);
  if (++stamp_ == 0) {  // wrapped: no row may look written
    std::fill(row_stamp_.begin(), row_stamp_.end(), 0);
    stamp_ = 1;
  }
  from_lines_ = true;
  ii_ = ii;
  valid_ = true;
  stats_ = {};
  stats_.components = comp_count_;
  stats_.from_lines = true;
  ++totals_.from_lines;
}

void DistanceMatrix::write_row(OpId u) const {
  const size_t n = static_cast<size_t>(n_);
  lines_.read(ii_, static_cast<size_t>(u) * n, {dist_.data() + static_cast<size_t>(u) * n, n});
  row_stamp_[u] = stamp_;
  ++totals_.rows_read;
}

bool DistanceMatrix::close_all(int64_t ii) {
  ++totals_.closures;
  from_lines_ = false;
  ii_ = ii;
  valid_ = false;
  const size_t cells = static_cast<size_t>(n_) * static_cast<size_t>(n_);
  dist_.assign(cells, kNoPath);  // no allocation when n is unchanged
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

DistanceMatrix::SccMethod DistanceMatrix::choose_method(int c) const {
  if (method_ != SccMethod::kAuto) return method_;
  // Rough step counts; the weights are measured with micro_bench
  // (results/records/2026-11-23-building-blocks.md).
  // Floyd-Warshall and the head closure do tight row updates; Dijkstra's
  // heap steps cost several times more.
  const int begin = comp_begin_[c];
  const int64_t k = comp_begin_[c + 1] - begin;
  const int64_t m = inner_begin_[begin + k] - inner_begin_[begin];
  const int64_t h = head_begin_[c + 1] - head_begin_[c];
  const int64_t f = back_begin_[c + 1] - back_begin_[c];
  const int64_t floyd = k * k * k;
  const int64_t feedback = k * m + h * f + h * h * h + h * h * k + k * k;
  const int64_t dijkstra = 16 * k * m * std::bit_width(static_cast<uint64_t>(k)) + 4 * k * k;
  if (floyd <= feedback && floyd <= dijkstra) return SccMethod::kFloydWarshall;
  return feedback <= dijkstra ? SccMethod::kFeedback : SccMethod::kDijkstra;
}

bool DistanceMatrix::close_component(int c) {
  const int begin = comp_begin_[c];
  const int k = comp_begin_[c + 1] - begin;
  stats_.largest_component = std::max(stats_.largest_component, k);
  // The component's columns, before any exit edge widens them.
  for (int i = begin; i < begin + k; ++i) {
    first_[members_[i]] = comp_lo_[c];
    last_[members_[i]] = comp_hi_[c];
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
  switch (choose_method(c)) {
    case SccMethod::kAuto:  // choose_method never returns it
    case SccMethod::kFloydWarshall:
      ++stats_.floyd_warshall;
      return close_by_floyd_warshall(c);
    case SccMethod::kFeedback:
      ++stats_.feedback;
      return close_by_feedback(c);
    case SccMethod::kDijkstra:
      ++stats_.dijkstra;
      return close_by_dijkstra(c);
  }
  return false;
}

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
      relax_row(row_u, row_ptr(y), best, first_[y], last_[y], kNoPath);
      lo = std::min(lo, first_[y]);
      hi = std::max(hi, last_[y]);
    }
    first_[u] = lo;
    last_[u] = hi;
  }
}

}  // namespace tilesched
