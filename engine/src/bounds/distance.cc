// The structural distance closure (Rau's MinDist) per strongly connected
// component, carried across the condensation in topological order. See
// distance.h for the contract, the methods and the magnitude bound. This
// file holds the preparation (components, their local order, edges and
// heads) and the build at one II; the closure methods of one component are
// in distance_closure.cc, the lines reused across IIs in distance_lines.cc.
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
