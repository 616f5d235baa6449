// Dependence windows kept along the edges (EdgeWindows, see windows.h).
#include "windows.h"

#include <algorithm>
#include <cassert>

#include "util/test_seams.h"

namespace tilesched::cost_based {

namespace {

// Label-correcting longest paths: from the ops queued, raises label[y] to
// label[x] + w(e) along every edge e = x -> y (`forward`) or e = y -> x
// (backward), queueing each op it raises, until nothing rises; on_raise(y)
// runs before each raise. FIFO order (Bellman-Ford's passes): without a
// positive cycle every label is final after n passes, and an op is queued
// at most once per pass. Returns false, the labels partial, when some op
// was queued more than `limit` times (a positive cycle; only reset()
// counts, in `queued_times`) or after `max_visits` edges. An op queued
// whose expand(x) is false passes nothing on.
struct Limits {
  std::vector<int>* queued_times = nullptr;
  int limit = 0;
  int64_t max_visits = INT64_MAX;
  int64_t* visits = nullptr;  // gains every op dequeued and edge scanned
};
constexpr auto kEveryOp = [](OpId) { return true; };
constexpr auto kNoRecord = [](OpId) {};

template <bool kForward, class OnRaise, class Expand>
bool raise_labels(const Graph& g, const Adjacency& adj, const std::vector<int64_t>& weight,
                  std::vector<int64_t>& label, std::vector<OpId>& queue,
                  std::vector<char>& queued, OnRaise&& on_raise, Expand&& expand,
                  Limits lim = {}) {
  const std::vector<int>& begin = kForward ? adj.out_begin : adj.in_begin;
  const std::vector<int>& edges = kForward ? adj.out_edges : adj.in_edges;
  std::vector<int>* queued_times = lim.queued_times;
  const int limit = lim.limit;
  int64_t max_visits = lim.max_visits;
  int64_t scanned = 0;
  struct Count {  // into *lim.visits on every return
    int64_t* to;
    const int64_t& n;
    ~Count() {
      if (to != nullptr) *to += n;
    }
  } count{lim.visits, scanned};
  struct Trips {  // the same, to the trip-count test (test_seams.h)
    const int64_t& n;
    ~Trips() { test_seams::count_trips("windows.relax", n); }
  } trips{scanned};
  for (size_t head = 0; head < queue.size(); ++head) {
    const OpId x = queue[head];
    queued[x] = 0;
    ++scanned;
    if (!expand(x)) continue;
    const int64_t base = label[x];
    scanned += begin[x + 1] - begin[x];
    max_visits -= begin[x + 1] - begin[x];
    if (max_visits < 0) {
      for (size_t i = head + 1; i < queue.size(); ++i) queued[queue[i]] = 0;
      queue.clear();
      return false;
    }
    for (int p = begin[x]; p < begin[x + 1]; ++p) {
      const Edge& e = g.edges[edges[p]];
      const OpId y = kForward ? e.to : e.from;
      const int64_t cand = base + weight[edges[p]];
      if (cand <= label[y]) continue;
      on_raise(y);
      label[y] = cand;
      if (queued[y]) continue;
      if (queued_times != nullptr && ++(*queued_times)[y] > limit) {
        for (size_t i = head + 1; i < queue.size(); ++i) queued[queue[i]] = 0;
        queue.clear();
        return false;
      }
      queued[y] = 1;
      queue.push_back(y);
    }
  }
  queue.clear();
  return true;
}

}  // namespace

EdgeWindows::EdgeWindows(const Graph& g, const Adjacency& adj, const Seats& seats)
    : g_(g), adj_(adj), seats_(seats), n_(g.op_count()) {
  const size_t n = static_cast<size_t>(n_);
  weight_.assign(g.edges.size(), 0);
  ancestry_.assign(static_cast<size_t>(n_), kUnknown);
  ancestry_end_.assign(static_cast<size_t>(n_), 0);
  asap_.assign(n, 0);
  up_.assign(n, kNone);
  neg_down_.assign(n, kNone);
  stamp_.assign(n, 0);
  queued_.assign(n, 0);
  in_set_.assign(n, 0);
  in_moved_.assign(n, 0);
  all_ops_.resize(n);
  for (OpId v = 0; v < n_; ++v) all_ops_[v] = v;
  from_row_.assign(n, kNone);
  to_row_.assign(n, kNone);
  search_queued_.assign(n, 0);
}

bool EdgeWindows::reset(int64_t ii) {
  for (size_t e = 0; e < g_.edges.size(); ++e) {
    weight_[e] = g_.edges[e].latency - ii * g_.edges[e].distance;
  }
  // ASAP: longest path into each op from any op, every op starting at 0
  // (queued once up front, then at most once per pass, n passes).
  std::fill(ancestry_.begin(), ancestry_.end(), kUnknown);
  ancestors_.clear();
  std::fill(asap_.begin(), asap_.end(), 0);
  std::vector<int> queued_times(static_cast<size_t>(n_), 1);
  queue_ = all_ops_;
  std::fill(queued_.begin(), queued_.end(), 1);
  const bool ok = raise_labels<true>(g_, adj_, weight_, asap_, queue_, queued_, kNoRecord,
                                     kEveryOp, Limits{&queued_times, n_ + 1, INT64_MAX, &work_});
  clear();
  return ok;
}

void EdgeWindows::clear() {
  std::fill(up_.begin(), up_.end(), kNone);
  std::fill(neg_down_.begin(), neg_down_.end(), kNone);
  trail_.clear();
  changed_.clear();
}

void EdgeWindows::trim_trail(size_t limit) {
  if (trail_.size() > limit) trail_.clear();
}

void EdgeWindows::record(OpId x) {
  if (stamp_[x] == epoch_) return;
  stamp_[x] = epoch_;
  trail_.save(x, {up_[x], neg_down_[x]});
  changed_.push_back(x);
}

void EdgeWindows::raise(bool forward) {
  auto on_raise = [&](OpId y) { record(y); };
  if (forward) {
    raise_labels<true>(g_, adj_, weight_, up_, queue_, queued_, on_raise, kEveryOp,
                       Limits{.visits = &work_});
  } else {
    raise_labels<false>(g_, adj_, weight_, neg_down_, queue_, queued_, on_raise, kEveryOp,
                        Limits{.visits = &work_});
  }
}

int64_t EdgeWindows::seat(OpId v, int64_t t) {
  assert(seats_.placed[v] && seats_.start[v] == t && t >= 0);
  next_epoch();
  changed_.clear();
  trail_.open(v);
  record(v);
  if (t > up_[v]) {
    up_[v] = t;
    queue_.push_back(v);
    queued_[v] = 1;
    raise(true);
  }
  if (-t > neg_down_[v]) {
    neg_down_[v] = -t;
    queue_.push_back(v);
    queued_[v] = 1;
    raise(false);
  }
  if (!seats_.in_trial[v]) trim_trail(4 * (g_.edges.size() + static_cast<size_t>(n_)) + 64);
  return static_cast<int64_t>(changed_.size());
}

void EdgeWindows::unseat(OpId v) {
  assert(!seats_.placed[v]);
  changed_.clear();
  // Every later seat was undone in turn: the labels before v's seat.
  const bool undone = trail_.undo(v, [&](OpId x, const Saved& s) {
    up_[x] = s.up;
    neg_down_[x] = s.down;
    changed_.push_back(x);
  });
  if (undone) return;
  trail_.clear();  // its entries hold labels that counted v
  next_epoch();
  take_back<true>(v, up_);
  take_back<false>(v, neg_down_);
}

void EdgeWindows::next_epoch() {
  if (++epoch_ == 0) {  // the stamps wrapped: none may match a new epoch
    std::fill(stamp_.begin(), stamp_.end(), 0);
    epoch_ = 1;
  }
}

// v is no longer placed. A label v's seat may have set is one a tight path
// from v reaches (each edge's head at its tail's label plus the weight):
// those ops, S, start again from their own seats and from the ops outside
// S, and are raised from there; no label outside S can depend on v.
template <bool kForward>
void EdgeWindows::take_back(OpId v, std::vector<int64_t>& label) {
  const std::vector<int>& begin = kForward ? adj_.out_begin : adj_.in_begin;
  const std::vector<int>& edges = kForward ? adj_.out_edges : adj_.in_edges;
  const std::vector<int>& rbegin = kForward ? adj_.in_begin : adj_.out_begin;
  const std::vector<int>& redges = kForward ? adj_.in_edges : adj_.out_edges;
  set_.assign(1, v);
  in_set_[v] = 1;
  for (size_t i = 0; i < set_.size(); ++i) {
    const OpId x = set_[i];
    work_ += 1 + begin[x + 1] - begin[x];
    for (int p = begin[x]; p < begin[x + 1]; ++p) {
      const OpId y = kForward ? g_.edges[edges[p]].to : g_.edges[edges[p]].from;
      if (!in_set_[y] && label[y] == label[x] + weight_[edges[p]]) {
        in_set_[y] = 1;
        set_.push_back(y);
      }
    }
  }
  for (OpId x : set_) {
    label[x] = seats_.placed[x] ? (kForward ? seats_.start[x] : -seats_.start[x]) : kNone;
  }
  for (OpId x : set_) {
    work_ += 1 + rbegin[x + 1] - rbegin[x];
    for (int p = rbegin[x]; p < rbegin[x + 1]; ++p) {
      const OpId y = kForward ? g_.edges[redges[p]].from : g_.edges[redges[p]].to;
      if (!in_set_[y] && label[y] != kNone) {
        label[x] = std::max(label[x], label[y] + weight_[redges[p]]);
      }
    }
  }
  for (OpId x : set_) {
    in_set_[x] = 0;
    if (stamp_[x] != epoch_) {
      stamp_[x] = epoch_;
      changed_.push_back(x);
    }
    if (label[x] != kNone) {
      queued_[x] = 1;
      queue_.push_back(x);
    }
  }
  raise_labels<kForward>(g_, adj_, weight_, label, queue_, queued_, kNoRecord, kEveryOp,
                         Limits{.visits = &work_});
}

// A single-source search into `row` (kNone where it did not reach, the
// entries it set in `reached`, reset first): false when it would visit
// more than `max_visits` edges (the row is then partial).
template <bool kForward, class Expand>
bool EdgeWindows::search(OpId v, std::vector<int64_t>& row, std::vector<OpId>& reached,
                         int64_t max_visits, Expand&& expand) const {
  for (OpId x : reached) row[x] = kNone;
  reached.assign(1, v);
  row[v] = 0;
  search_queue_.push_back(v);
  search_queued_[v] = 1;
  return raise_labels<kForward>(
      g_, adj_, weight_, row, search_queue_, search_queued_,
      [&](OpId y) {
        if (row[y] == kNone) reached.push_back(y);
      },
      expand, Limits{nullptr, 0, max_visits, &work_});
}

const std::vector<int64_t>& EdgeWindows::longest_from(OpId v) const {
  search<true>(v, from_row_, from_reached_, INT64_MAX, kEveryOp);
  return from_row_;
}

const std::vector<int64_t>& EdgeWindows::longest_to(OpId v) const {
  search<false>(v, to_row_, to_reached_, INT64_MAX, kEveryOp);
  return to_row_;
}

std::optional<int64_t> EdgeWindows::least_bound_from_placed(OpId v, int64_t max_visits) const {
  if (ancestry_[v] == kUnknown) {
    // The search reads no seat: its answer, D[u][v] for every u with a path
    // to v, is kept for the rest of this II.
    if (search<false>(v, to_row_, to_reached_, max_visits, kEveryOp)) {
      ancestry_[v] = static_cast<int>(ancestors_.size());
      for (OpId u : to_reached_) {
        if (u != v) ancestors_.push_back({u, to_row_[u]});
      }
      ancestry_end_[v] = static_cast<int>(ancestors_.size());
    } else {
      ancestry_[v] = kPastBudget;
    }
  }
  if (ancestry_[v] == kPastBudget) return std::nullopt;
  std::optional<int64_t> least;
  visited("windows.ancestors", ancestry_end_[v] - ancestry_[v]);
  for (int i = ancestry_[v]; i < ancestry_end_[v]; ++i) {
    const auto [u, d] = ancestors_[i];
    if (!seats_.placed[u]) continue;
    const int64_t bound = seats_.start[u] + d;
    least = least ? std::min(*least, bound) : bound;
  }
  return least;
}

// A placed op u is broken by v at t when t + D[v][u] > s_u or s_u + D[u][v]
// > t. Through an op x the forward search can reach a broken op only when
// t + D[v][x] exceeds x's own bound from below (min over placed w of s_w −
// D[x][w], its to_placed label), so it expands no other op, and none at all
// when t is within v's bound; the backward search likewise with
// from_placed. Every op on the longest path to a broken op is one it
// expands, so the searches find every broken op, with its distance.
void EdgeWindows::broken_by(OpId v, int64_t t, std::vector<OpId>& out) const {
  out.clear();
  if (t > -neg_down_[v]) {
    search<true>(v, from_row_, from_reached_, INT64_MAX,
                 [&](OpId x) { return t + from_row_[x] > -neg_down_[x]; });
    visited("windows.broken", static_cast<int64_t>(from_reached_.size()));
    for (OpId u : from_reached_) {
      if (u != v && seats_.placed[u] && t + from_row_[u] > seats_.start[u]) out.push_back(u);
    }
  }
  if (t < up_[v]) {
    search<false>(v, to_row_, to_reached_, INT64_MAX,
                  [&](OpId x) { return up_[x] != kNone && up_[x] + to_row_[x] > t; });
    visited("windows.broken", static_cast<int64_t>(to_reached_.size()));
    for (OpId u : to_reached_) {
      if (u != v && seats_.placed[u] && seats_.start[u] + to_row_[u] > t) out.push_back(u);
    }
  }
}

std::span<const OpId> EdgeWindows::moved(OpId v) {
  if (changed_.size() == static_cast<size_t>(n_)) return changed_;
  moved_.assign(changed_.begin(), changed_.end());
  for (OpId u : moved_) in_moved_[u] = 1;
  auto add = [&](OpId u) {
    if (!in_moved_[u]) {
      in_moved_[u] = 1;
      moved_.push_back(u);
    }
  };
  add(v);
  for (int q = adj_.in_begin[v]; q < adj_.in_begin[v + 1]; ++q) {
    add(g_.edges[adj_.in_edges[q]].from);
  }
  for (int q = adj_.out_begin[v]; q < adj_.out_begin[v + 1]; ++q) {
    add(g_.edges[adj_.out_edges[q]].to);
  }
  for (OpId u : moved_) in_moved_[u] = 0;
  return moved_;
}

DepBounds EdgeWindows::bounds(OpId v) const {
  DepBounds b;
  int64_t down = kOpen;
  if (seats_.placed[v]) {
    b.lo = kNone;
    const std::vector<int64_t>& to_v = longest_to(v);      // D[*][v]
    const std::vector<int64_t>& from_v = longest_from(v);  // D[v][*]
    visited("windows.placed", static_cast<int64_t>(seats_.list.size()));
    for (OpId u : seats_.list) {
      if (u == v) continue;
      if (to_v[u] != kNone) b.lo = std::max(b.lo, seats_.start[u] + to_v[u]);
      if (from_v[u] != kNone) down = std::min(down, seats_.start[u] - from_v[u]);
    }
  } else {
    b.lo = up_[v];
    down = -neg_down_[v];
  }
  b.hi = down >= kOpen ? kUnbounded : down;
  if (b.lo == kNone) {
    b.lo = 0;
    return b;
  }
  b.preds = 1;
  b.earliest = b.lo;
  return b;
}

int64_t EdgeWindows::earliest_pred_bound(OpId v, const Window& w) const {
  if (std::optional<int64_t> exact = least_bound_from_placed(v, kExactEarliestVisits)) {
    return *exact;
  }
  int64_t earliest = w.latest_pred_bound;
  bool direct = false;
  for (int q = adj_.in_begin[v]; q < adj_.in_begin[v + 1]; ++q) {
    const int e = adj_.in_edges[q];
    const OpId p = g_.edges[e].from;
    if (p == v || !seats_.placed[p]) continue;
    const int64_t bound = seats_.start[p] + weight_[e];
    earliest = direct ? std::min(earliest, bound) : bound;
    direct = true;
  }
  return earliest;
}

int64_t EdgeWindows::longest_path(OpId a, OpId b) const {
  const int64_t d = longest_from(a)[b];
  return d == kNone ? DistanceMatrix::kNoPath : d;
}

}  // namespace tilesched::cost_based
