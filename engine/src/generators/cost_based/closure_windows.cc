// Dependence windows from the distance closure (ClosureWindows, see
// windows.h).
#include "windows.h"

#include <algorithm>

#include "util/test_seams.h"

namespace tilesched::cost_based {

ClosureWindows::ClosureWindows(const Graph& g, const Adjacency& adj, const Seats& seats,
                               DistanceMatrix* closure)
    : g_(g),
      adj_(adj),
      seats_(seats),
      n_(g.op_count()),
      dist_(closure != nullptr ? *closure : own_dist_) {
  asap_.assign(static_cast<size_t>(n_), 0);
}

bool ClosureWindows::reset(int64_t ii) {
  const bool built = dist_.valid() && dist_.ii() == ii && dist_.size() == n_;
  if (!built && !dist_.build(g_, adj_, ii)) return false;
  const size_t un = static_cast<size_t>(n_);
  if (dist_t_cells_ != un * un) {
    dist_t_.reset(new int64_t[un * un]);  // uninitialised (libc++ 14: no make_unique_for_overwrite)
    dist_t_cells_ = un * un;
  }
  // ASAP: every start is >= 0, so s_v >= max(0, max_u D[u][v]); kNoPath is
  // below 0 and D[v][v] is 0, so neither needs a test.
  static_assert(DistanceMatrix::kNoPath < 0);
  std::fill(asap_.begin(), asap_.end(), 0);
  test_seams::count_trips("windows.closure", int64_t{n_} * n_);
  constexpr size_t kBlock = 64;  // blocked transpose: both sides stay in cache
  for (size_t u0 = 0; u0 < un; u0 += kBlock) {
    const size_t u1 = std::min(un, u0 + kBlock);
    for (size_t v0 = 0; v0 < un; v0 += kBlock) {
      const size_t v1 = std::min(un, v0 + kBlock);
      for (size_t u = u0; u < u1; ++u) {
        const int64_t* row = dist_.row(static_cast<OpId>(u)).data();
        int64_t* col = dist_t_.get() + u;
        for (size_t v = v0; v < v1; ++v) {
          col[v * un] = row[v];
          asap_[v] = std::max(asap_[v], row[v]);
        }
      }
    }
  }
  if (related_begin_.empty()) find_related();
  return true;
}

// Paths exist or not whatever the II: built once, from the first closure.
void ClosureWindows::find_related() {
  related_begin_.assign(static_cast<size_t>(n_) + 1, 0);
  related_.clear();
  test_seams::count_trips("windows.closure", int64_t{n_} * n_);
  for (OpId v = 0; v < n_; ++v) {
    const int64_t* row = dist_.row(v).data();
    const int64_t* col = column(v);
    for (OpId u = 0; u < n_; ++u) {
      if (u != v && (row[u] != DistanceMatrix::kNoPath || col[u] != DistanceMatrix::kNoPath)) {
        related_.push_back(u);
      }
    }
    related_begin_[v + 1] = static_cast<int>(related_.size());
  }
}

void ClosureWindows::clear() {
  dep_.assign(static_cast<size_t>(n_), DepBounds{});
  dep_dirty_.assign(static_cast<size_t>(n_), 0);
  trail_.clear();
}

void ClosureWindows::set_undo_trail(bool on) {
  trail_on_ = on;
  trail_.clear();
}

void ClosureWindows::fold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t) {
  if (d_from != DistanceMatrix::kNoPath) {
    const int64_t bound = t + d_from;
    if (b.preds++ == 0) {
      b.lo = b.earliest = bound;
    } else {
      b.lo = std::max(b.lo, bound);
      b.earliest = std::min(b.earliest, bound);
    }
  }
  if (d_to != DistanceMatrix::kNoPath) b.hi = std::min(b.hi, t - d_to);
}

bool ClosureWindows::unfold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t) {
  if (d_to != DistanceMatrix::kNoPath && t - d_to <= b.hi) return false;
  if (d_from == DistanceMatrix::kNoPath) return true;
  const int64_t bound = t + d_from;
  if (b.preds == 1) {
    b = DepBounds{0, 0, b.hi, 0};
    return true;
  }
  if (bound >= b.lo || bound <= b.earliest) return false;
  --b.preds;
  return true;
}

const DepBounds& ClosureWindows::placed_bounds(OpId v) const {
  if (dep_dirty_[v]) {
    DepBounds b;
    const int64_t* to_v = column(v);                      // D[*][v]
    const std::span<const int64_t> from_v = dist_.row(v);  // D[v][*]
    test_seams::count_trips("windows.closure", static_cast<int64_t>(seats_.list.size()));
    for (OpId u : seats_.list) {
      if (u != v && !seats_.in_trial[u]) fold(b, to_v[u], from_v[u], seats_.start[u]);
    }
    dep_[v] = b;
    dep_dirty_[v] = 0;
  }
  return dep_[v];
}

DepBounds ClosureWindows::bounds(OpId v) const {
  DepBounds b = placed_bounds(v);
  if (!seats_.trial.empty()) {
    const int64_t* to_v = column(v);                      // D[*][v]
    const std::span<const int64_t> from_v = dist_.row(v);  // D[v][*]
    test_seams::count_trips("windows.closure", static_cast<int64_t>(seats_.trial.size()));
    for (OpId u : seats_.trial) {
      if (u != v) fold(b, to_v[u], from_v[u], seats_.start[u]);
    }
  }
  return b;
}

void ClosureWindows::broken_by(OpId v, int64_t t, std::vector<OpId>& out) const {
  out.clear();
  const int64_t* from_v = dist_.row(v).data();  // D[v][*]
  const int64_t* to_v = column(v);              // D[*][v]
  test_seams::count_trips("windows.closure", static_cast<int64_t>(seats_.list.size()));
  for (OpId u : seats_.list) {
    const int64_t s = seats_.start[u];
    if ((from_v[u] != DistanceMatrix::kNoPath && s < t + from_v[u]) ||
        (to_v[u] != DistanceMatrix::kNoPath && t < s + to_v[u])) {
      out.push_back(u);
    }
  }
}

int64_t ClosureWindows::seat(OpId v, int64_t t) {
  if (seats_.in_trial[v]) return 0;  // bounds() folds trial seats in
  const size_t n = static_cast<size_t>(n_);
  const std::span<const int64_t> row = dist_.row(v);  // D[v][*]
  const int64_t* col = column(v);                     // D[*][v]
  const std::span<const OpId> touched = related(v);
  if (!trail_on_ && touched.size() * 4 > n) {
    // Most ops are related: a straight scan of the row and column beats
    // gathering them through the list (the same ops, in the same order).
    test_seams::count_trips("windows.closure", n_);
    for (size_t u = 0; u < n; ++u) {
      if (u == static_cast<size_t>(v) || dep_dirty_[u] ||
          (row[u] == DistanceMatrix::kNoPath && col[u] == DistanceMatrix::kNoPath)) {
        continue;
      }
      fold(dep_[u], row[u], col[u], t);
    }
    return 0;
  }
  if (trail_on_) trail_.open(v);
  test_seams::count_trips("windows.closure", static_cast<int64_t>(touched.size()));
  for (OpId u : touched) {
    if (trail_on_) trail_.save(u, {dep_[u], dep_dirty_[u] != 0});
    if (!dep_dirty_[u]) fold(dep_[u], row[u], col[u], t);
  }
  return 0;
}

void ClosureWindows::unseat(OpId v) {
  if (seats_.in_trial[v]) return;  // nothing was folded
  const bool undone = trail_.undo(v, [&](OpId u, const Saved& s) {
    dep_[u] = s.before;
    dep_dirty_[u] = s.was_dirty ? 1 : 0;
  });
  if (undone) return;
  trail_.clear();  // later seats' entries hold bounds that counted v
  // Where v's bounds were not the binding ones, the others' fold is what
  // remains; elsewhere the bounds are recomputed from every placed op.
  const int64_t t = seats_.start[v];
  const std::span<const int64_t> row = dist_.row(v);  // D[v][*]
  const int64_t* col = column(v);                     // D[*][v]
  test_seams::count_trips("windows.closure", static_cast<int64_t>(related(v).size()));
  for (OpId u : related(v)) {
    if (!dep_dirty_[u] && !unfold(dep_[u], row[u], col[u], t)) dep_dirty_[u] = 1;
  }
}

}  // namespace tilesched::cost_based
