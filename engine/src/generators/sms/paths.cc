// Longest paths at one II for swing modulo scheduling (see paths.h).
#include "paths.h"

#include <algorithm>
#include <cassert>
#include <functional>

#include "graph/graph_algo.h"

namespace tilesched::sms {

PathGraph::PathGraph(const Graph& g, const Adjacency& adj) : n_(g.op_count()) {
  out_begin_ = adj.out_begin;
  in_begin_ = adj.in_begin;
  out_.reserve(g.edges.size());
  in_.reserve(g.edges.size());
  for (const int e : adj.out_edges) {
    const Edge& edge = g.edges[e];
    out_.push_back({edge.to, edge.latency, edge.distance});
  }
  for (const int e : adj.in_edges) {
    const Edge& edge = g.edges[e];
    in_.push_back({edge.from, edge.latency, edge.distance});
  }
  walk_ = zero_distance_walk(g, adj);
  rank_.assign(static_cast<size_t>(n_), -1);
  for (size_t i = 0; i < walk_.size(); ++i) rank_[walk_[i]] = static_cast<int>(i);
  for (OpId v = 0; v < n_; ++v) {
    if (rank_[v] >= 0) continue;
    rank_[v] = static_cast<int>(walk_.size());
    walk_.push_back(v);
  }
}

namespace {

// A label-correcting pass from the ops in `queue` (by PathGraph key of
// direction `forward`): value[w] = max(value[w], value[v] + λ − ii·δ)
// along the arcs out of v (forward) or into it (backward), into ops that
// `stop` does not flag, the op of the least key first; before a change,
// on_change(w). Leaves the queue empty. False after more than `limit`
// changes: a positive cycle.
template <class OnChange>
bool relax_from(const PathGraph& pg, int64_t ii, bool forward, const std::vector<char>& stop,
                std::vector<int64_t>& value, KeyQueue& queue, int64_t limit,
                OnChange&& on_change) {
  int64_t changes = 0;
  while (!queue.empty()) {
    const OpId v = pg.op_at(queue.take(), forward);
    const int64_t from = value[v];
    for (const PathGraph::Arc* a = pg.begin(v, forward); a != pg.end(v, forward); ++a) {
      const OpId w = a->other;
      const int64_t x = from + a->latency - ii * a->distance;
      if (stop[w] || x <= value[w]) continue;
      if (++changes > limit) {
        while (!queue.empty()) queue.take();
        return false;
      }
      on_change(w);
      value[w] = x;
      const int k = pg.key(w, forward);
      if (!queue.has(k)) queue.put(k);
    }
  }
  return true;
}

}  // namespace

bool longest_path_timing(const PathGraph& pg, int64_t ii, std::vector<int64_t>& asap,
                         std::vector<int64_t>& height) {
  const int n = pg.size();
  const std::vector<char> stop(static_cast<size_t>(n), 0);
  KeyQueue queue;
  queue.resize(n);
  // Without a positive cycle each op improves at most once per wave of
  // the queue, and there are at most n waves.
  const int64_t limit = static_cast<int64_t>(n) * n + n;
  const auto none = [](OpId) {};
  for (const bool forward : {true, false}) {
    std::vector<int64_t>& value = forward ? asap : height;
    value.assign(static_cast<size_t>(n), 0);
    for (int k = 0; k < n; ++k) queue.put(k);
    if (!relax_from(pg, ii, forward, stop, value, queue, limit, none)) return false;
  }
  return true;
}

SeatBounds::SeatBounds(const PathGraph& pg) : pg_(pg) {
  const size_t n = static_cast<size_t>(pg.size());
  early_.assign(n, kNone);
  neg_late_.assign(n, kNone);
  seated_.assign(n, 0);
  queue_.resize(pg.size());
}

void SeatBounds::reset(int64_t ii) {
  ii_ = ii;
  std::fill(early_.begin(), early_.end(), kNone);
  std::fill(neg_late_.begin(), neg_late_.end(), kNone);
  std::fill(seated_.begin(), seated_.end(), 0);
  trail_.clear();
  marks_.clear();
}

void SeatBounds::set(std::vector<int64_t>& value, OpId v, int64_t x) {
  trail_.push_back({&value[v], value[v]});
  value[v] = x;
}

void SeatBounds::relax(std::vector<int64_t>& value, bool forward) {
  const bool ok = relax_from(pg_, ii_, forward, seated_, value, queue_,
                             std::numeric_limits<int64_t>::max(),
                             [&](OpId w) { trail_.push_back({&value[w], value[w]}); });
  assert(ok);  // no positive cycle: REQUIRES
  (void)ok;
}

void SeatBounds::seat(OpId v, int64_t t) {
  assert(!seated_[v]);
  marks_.push_back({v, trail_.size()});
  seated_[v] = 1;
  // The seat itself is the source of both passes: v's own values are
  // never read again while it is seated, so they may hold ±t meanwhile.
  for (const bool forward : {true, false}) {
    std::vector<int64_t>& value = forward ? early_ : neg_late_;
    set(value, v, forward ? t : -t);
    queue_.put(pg_.key(v, forward));
    relax(value, forward);
  }
}

void SeatBounds::unseat_last() {
  assert(!marks_.empty());
  const Mark mark = marks_.back();
  marks_.pop_back();
  seated_[mark.op] = 0;
  while (trail_.size() > mark.trail) {
    *trail_.back().cell = trail_.back().old;
    trail_.pop_back();
  }
}

}  // namespace tilesched::sms
