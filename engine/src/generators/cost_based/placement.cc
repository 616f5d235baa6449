// One placement attempt at a fixed II (see placement.h).
#include "placement.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <span>

namespace tilesched::cost_based {

namespace {
constexpr int64_t kNeverForced = INT64_MIN;
}  // namespace

Placement::Placement(const Context& ctx, DistanceMatrix* closure)
    : ctx_(ctx),
      dist_(closure != nullptr ? *closure : own_dist_),
      rrt_(ctx.g.target),
      constraints_(ctx),
      pressure_(ctx) {
  const int n = ctx.g.op_count();
  asap_.assign(n, 0);
  start_.assign(n, 0);
  placed_.assign(n, 0);
  placed_pos_.assign(n, 0);
  dead_.assign(n, 0);
  last_forced_.assign(n, kNeverForced);
  group_placed_.assign(ctx.group_members.size(), 0);
  group_stage_.assign(ctx.group_members.size(), 0);
  in_trial_.assign(n, 0);
  live_end_.assign(n, 0);
}

Placement::Placement(const Context& ctx, AlongEdges) : Placement(ctx, nullptr) {
  edges_.emplace(ctx.g, ctx.adj);
  in_moved_.assign(static_cast<size_t>(ctx.g.op_count()), 0);
  broken_mark_.assign(static_cast<size_t>(ctx.g.op_count()), 0);
}

bool Placement::reset(int64_t ii) {
  ii_ = ii;
  if (edges_) {
    if (!edges_->reset(ii)) return false;
    clear_seats();
    return true;
  }
  const bool built = dist_.valid() && dist_.ii() == ii && dist_.size() == ctx_.g.op_count();
  if (!built && !dist_.build(ctx_.g, ctx_.adj, ii)) return false;
  const int n = ctx_.g.op_count();
  const size_t un = static_cast<size_t>(n);
  if (dist_t_cells_ != un * un) {
    dist_t_.reset(new int64_t[un * un]);  // uninitialised (libc++ 14: no make_unique_for_overwrite)
    dist_t_cells_ = un * un;
  }
  // ASAP: every start is >= 0, so s_v >= max(0, max_u D[u][v]); kNoPath is
  // below 0 and D[v][v] is 0, so neither needs a test.
  static_assert(DistanceMatrix::kNoPath < 0);
  std::fill(asap_.begin(), asap_.end(), 0);
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
  clear_seats();
  return true;
}

// Paths exist or not whatever the II: built once, from the first closure.
void Placement::find_related() {
  const int n = ctx_.g.op_count();
  const size_t un = static_cast<size_t>(n);
  related_begin_.assign(un + 1, 0);
  related_.clear();
  for (OpId v = 0; v < n; ++v) {
    const int64_t* row = dist_.row(v).data();
    const int64_t* col = dist_t_.get() + static_cast<size_t>(v) * un;
    for (OpId u = 0; u < n; ++u) {
      if (u != v && (row[u] != DistanceMatrix::kNoPath || col[u] != DistanceMatrix::kNoPath)) {
        related_.push_back(u);
      }
    }
    related_begin_[v + 1] = static_cast<int>(related_.size());
  }
}

void Placement::set_undo_trail(bool on) {
  trail_on_ = on;
  clear_trail();
}

void Placement::clear_trail() {
  trail_.clear();
  marks_.clear();
  // Along the edges the trail is always kept (bounded; place()), so that
  // trials and the backtracking rung undo their seats cheaply.
  if (edges_) edges_->drop_trail();
}

void Placement::clear_seats() {
  rrt_.reset(ii_);
  std::fill(placed_.begin(), placed_.end(), 0);
  placed_list_.clear();
  placed_count_ = 0;
  std::fill(group_placed_.begin(), group_placed_.end(), 0);
  pressure_.reset_bank(ii_);
  register_rows_.reset(ii_);
  std::fill(last_forced_.begin(), last_forced_.end(), kNeverForced);
  dep_.assign(ctx_.g.op_count(), DepBounds{});
  dep_dirty_.assign(ctx_.g.op_count(), 0);
  for (OpId v : trial_ops_) in_trial_[v] = 0;
  trial_ops_.clear();
  clear_trail();
  if (edges_) edges_->clear();
}

void Placement::clear_intermediate() {
  std::fill(dead_.begin(), dead_.end(), 0);
  pressure_.clear_surcharges();
}

std::optional<int64_t> Placement::last_forced_start(OpId v) const {
  if (last_forced_[v] == kNeverForced) return std::nullopt;
  return last_forced_[v];
}

void Placement::fold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t) {
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

bool Placement::unfold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t) {
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

const Placement::DepBounds& Placement::bounds(OpId v) const {
  if (dep_dirty_[v]) {
    DepBounds b;
    const size_t n = static_cast<size_t>(ctx_.g.op_count());
    const int64_t* to_v = dist_t_.get() + static_cast<size_t>(v) * n;  // D[*][v]
    const std::span<const int64_t> from_v = dist_.row(v);               // D[v][*]
    for (OpId u : placed_list_) {
      if (u != v && !in_trial_[u]) fold(b, to_v[u], from_v[u], start_[u]);
    }
    dep_[v] = b;
    dep_dirty_[v] = 0;
  }
  return dep_[v];
}

Placement::DepBounds Placement::edge_bounds(OpId v) const {
  DepBounds b;
  if (placed(v)) {
    // The labels count v's own seat: the other placed ops' bounds by two
    // searches instead (the diagnostics ask this of a placed op).
    b.lo = EdgeWindows::kNone;
    int64_t down = EdgeWindows::kOpen;
    const std::vector<int64_t>& to_v = edges_->longest_to(v);  // D[*][v]
    const std::vector<int64_t>& from_v = edges_->longest_from(v);  // D[v][*]
    for (OpId u : placed_list_) {
      if (u == v) continue;
      if (to_v[u] != EdgeWindows::kNone) b.lo = std::max(b.lo, start_[u] + to_v[u]);
      if (from_v[u] != EdgeWindows::kNone) down = std::min(down, start_[u] - from_v[u]);
    }
    b.hi = down >= EdgeWindows::kOpen ? kUnbounded : down;
  } else {
    b.lo = edges_->from_placed(v);
    const int64_t down = edges_->to_placed(v);
    b.hi = down >= EdgeWindows::kOpen ? kUnbounded : down;
  }
  if (b.lo == EdgeWindows::kNone) {
    b.lo = 0;
    return b;
  }
  b.preds = 1;
  b.earliest = b.lo;  // Placement::earliest_pred_bound computes it
  return b;
}

int64_t Placement::earliest_pred_bound(OpId v, const Window& w) const {
  if (!edges_ || !w.has_pred) return w.earliest_pred_bound;
  if (std::optional<int64_t> exact = edges_->least_bound_from_placed(v, kExactEarliestVisits)) {
    return *exact;
  }
  int64_t earliest = w.latest_pred_bound;
  bool direct = false;
  for (int q = ctx_.adj.in_begin[v]; q < ctx_.adj.in_begin[v + 1]; ++q) {
    const int e = ctx_.adj.in_edges[q];
    const OpId p = ctx_.g.edges[e].from;
    if (p == v || !placed(p)) continue;
    const int64_t bound = start_[p] + edges_->weight(e);
    earliest = direct ? std::min(earliest, bound) : bound;
    direct = true;
  }
  return earliest;
}

int64_t Placement::longest_path(OpId a, OpId b) const {
  if (!edges_) return dist_.has_path(a, b) ? dist_.at(a, b) : DistanceMatrix::kNoPath;
  const int64_t d = edges_->longest_from(a)[b];
  return d == EdgeWindows::kNone ? DistanceMatrix::kNoPath : d;
}

std::span<const OpId> Placement::moved(OpId v) {
  if (!edges_) return related(v);
  const std::span<const OpId> changed = edges_->changed();
  if (changed.size() == static_cast<size_t>(ctx_.g.op_count())) return changed;
  moved_.assign(changed.begin(), changed.end());
  for (OpId u : moved_) in_moved_[u] = 1;
  auto add = [&](OpId u) {
    if (!in_moved_[u]) {
      in_moved_[u] = 1;
      moved_.push_back(u);
    }
  };
  add(v);
  for (int q = ctx_.adj.in_begin[v]; q < ctx_.adj.in_begin[v + 1]; ++q) {
    add(ctx_.g.edges[ctx_.adj.in_edges[q]].from);
  }
  for (int q = ctx_.adj.out_begin[v]; q < ctx_.adj.out_begin[v + 1]; ++q) {
    add(ctx_.g.edges[ctx_.adj.out_edges[q]].to);
  }
  for (OpId u : moved_) in_moved_[u] = 0;
  return moved_;
}

Window Placement::window(OpId v) const {
  Window w;
  DepBounds b = edges_ ? edge_bounds(v) : bounds(v);
  if (!edges_ && !trial_ops_.empty()) {
    const size_t n = static_cast<size_t>(ctx_.g.op_count());
    const int64_t* to_v = dist_t_.get() + static_cast<size_t>(v) * n;  // D[*][v]
    const std::span<const int64_t> from_v = dist_.row(v);               // D[v][*]
    for (OpId u : trial_ops_) {
      if (u != v) fold(b, to_v[u], from_v[u], start_[u]);
    }
  }
  w.lo = asap(v);
  if (b.preds > 0) {
    w.has_pred = true;
    w.earliest_pred_bound = b.earliest;
    w.latest_pred_bound = b.lo;
    w.lo = std::max(w.lo, b.lo);
  }
  w.hi = b.hi;
  w.has_succ = b.hi < kUnbounded;
  const Op& op = ctx_.g.ops[v];
  if (op.max_depth) w.hi = std::min(w.hi, (*op.max_depth + 1) * ii_ - 1);
  for (int c : constraints_.of(v)) {
    const BuilderConstraint& k = constraints_[c];
    switch (k.shape) {
      case BuilderConstraint::Shape::kMaxStage:
        w.hi = std::min(w.hi, (k.limit + 1) * ii_ - 1);
        break;
      case BuilderConstraint::Shape::kSameStage: {
        const OpId partner = k.op == v ? k.other : k.op;
        if (!placed(partner)) break;
        const int64_t stage = start_[partner] / ii_;
        w.lo = std::max(w.lo, stage * ii_);
        w.hi = std::min(w.hi, stage * ii_ + ii_ - 1);
        break;
      }
      case BuilderConstraint::Shape::kStageSpan:
        if (k.op != v) {  // v consumes k.op's value
          if (placed(k.op)) {
            w.hi = std::min(w.hi, (start_[k.op] / ii_ + k.limit + 1) * ii_ - 1);
          }
          break;
        }
        for (int p = ctx_.adj.out_begin[v]; p < ctx_.adj.out_begin[v + 1]; ++p) {
          const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
          if (e.kind == EdgeKind::kData && e.to != v && placed(e.to)) {
            w.lo = std::max(w.lo, (start_[e.to] / ii_ - k.limit) * ii_);
          }
        }
        break;
    }
  }
  return w;  // the group's stage is gate G4's to enforce, with its own recovery
}

void Placement::place(OpId v, int64_t t) {
  assert(!placed(v) && t >= 0);
  rrt_.commit(ctx_.nodes[v], t);
  start_[v] = t;
  placed_[v] = 1;
  placed_pos_[v] = static_cast<int>(placed_list_.size());
  placed_list_.push_back(v);
  ++placed_count_;
  const int group = ctx_.group_of[v];
  if (group != kNoGroup && group_placed_[group]++ == 0) group_stage_[group] = t / ii_;
  pressure_.add_bank(v, t, +1);
  if (edges_) edges_->seat(v, t);
  // A seat's work: its own, and the window labels it moved.
  ctx_.count(1 + (edges_ ? static_cast<int64_t>(edges_->changed().size()) : 0));
  if (trial_depth_ > 0) {  // window() folds trial seats in; nothing else to update
    in_trial_[v] = 1;
    trial_ops_.push_back(v);
    return;
  }
  update_live_ranges(v, +1);  // not for trial seats: no one reads the rows in a trial
  if (edges_) {
    // O(ops + edges) entries at most: past that a later unseat recomputes.
    edges_->trim_trail(4 * (ctx_.g.edges.size() + static_cast<size_t>(ctx_.g.op_count())) + 64);
    return;
  }
  const size_t n = static_cast<size_t>(ctx_.g.op_count());
  const std::span<const int64_t> row = dist_.row(v);  // D[v][*]
  const int64_t* col = dist_t_.get() + static_cast<size_t>(v) * n;  // D[*][v]
  const std::span<const OpId> touched = related(v);
  if (!trail_on_ && touched.size() * 4 > n) {
    // Most ops are related: a straight scan of the row and column beats
    // gathering them through the list (the same ops, in the same order).
    for (size_t u = 0; u < n; ++u) {
      if (u == static_cast<size_t>(v) || dep_dirty_[u] ||
          (row[u] == DistanceMatrix::kNoPath && col[u] == DistanceMatrix::kNoPath)) {
        continue;
      }
      fold(dep_[u], row[u], col[u], t);
    }
    return;
  }
  if (trail_on_) marks_.push_back({v, trail_.size()});
  for (OpId u : touched) {
    if (trail_on_) trail_.push_back({u, dep_dirty_[u] != 0, dep_[u]});
    if (!dep_dirty_[u]) fold(dep_[u], row[u], col[u], t);
  }
}

void Placement::unplace(OpId v) {
  assert(placed(v));
  const int64_t t = start_[v];
  rrt_.release(ctx_.nodes[v], t);
  pressure_.add_bank(v, t, -1);
  if (!in_trial_[v]) update_live_ranges(v, -1);
  placed_[v] = 0;
  const int pos = placed_pos_[v];
  placed_list_[pos] = placed_list_.back();
  placed_pos_[placed_list_[pos]] = pos;
  placed_list_.pop_back();
  --placed_count_;
  const int group = ctx_.group_of[v];
  if (group != kNoGroup) --group_placed_[group];
  if (edges_) edges_->unseat(v);
  if (in_trial_[v]) {  // a trial seat: nothing was folded
    assert(trial_ops_.back() == v && "trials unplace in reverse order");
    trial_ops_.pop_back();
    in_trial_[v] = 0;
    return;
  }
  if (edges_) return;
  if (!marks_.empty() && marks_.back().op == v) {
    // The last seat: its related ops' bounds are those before it, exactly
    // (every later seat was undone in turn).
    for (size_t i = marks_.back().first; i < trail_.size(); ++i) {
      const TrailEntry& e = trail_[i];
      dep_[e.op] = e.before;
      dep_dirty_[e.op] = e.was_dirty ? 1 : 0;
    }
    trail_.resize(marks_.back().first);
    marks_.pop_back();
    return;
  }
  clear_trail();  // later seats' entries hold bounds that counted v
  // Where v's bounds were not the binding ones, the others' fold is what
  // remains; elsewhere the bounds are recomputed from every placed op.
  const size_t n = static_cast<size_t>(ctx_.g.op_count());
  const std::span<const int64_t> row = dist_.row(v);                 // D[v][*]
  const int64_t* col = dist_t_.get() + static_cast<size_t>(v) * n;  // D[*][v]
  for (OpId u : related(v)) {
    if (!dep_dirty_[u] && !unfold(dep_[u], row[u], col[u], t)) dep_dirty_[u] = 1;
  }
}

int64_t Placement::live_end(OpId u) const {
  int64_t end = start_[u] + std::max<int64_t>(1, ctx_.g.ops[u].latency);
  for (int q = ctx_.adj.out_begin[u]; q < ctx_.adj.out_begin[u + 1]; ++q) {
    const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[q]];
    if (e.kind == EdgeKind::kData && placed(e.to)) {
      end = std::max(end, start_[e.to] + e.distance * ii_);
    }
  }
  return end;
}

// On a seat, v is already marked placed: its producers' live ends see it.
// On an unseat, v is still marked placed: its own range comes off as it was
// added, and its producers' ranges are recomputed without it.
// A producer's live end only moves when v's read (start + distance * II)
// is past it (a seat) or is what set it (an unseat).
void Placement::update_live_ranges(OpId v, int sign) {
  if (sign < 0) add_live_range(v, -1);
  for (int q = ctx_.adj.in_begin[v]; q < ctx_.adj.in_begin[v + 1]; ++q) {
    const Edge& e = ctx_.g.edges[ctx_.adj.in_edges[q]];
    const OpId u = e.from;
    if (e.kind != EdgeKind::kData || u == v || !placed(u) || ctx_.regs[u] == 0) continue;
    const int64_t read = start_[v] + e.distance * ii_;
    if (sign > 0 ? read <= live_end_[u] : read != live_end_[u]) continue;
    add_live_range(u, -1);
    if (sign > 0) {
      live_end_[u] = read;
    } else {
      placed_[v] = 0;
      live_end_[u] = live_end(u);
      placed_[v] = 1;
    }
    add_live_range(u, +1);
  }
  if (sign > 0 && ctx_.regs[v] != 0) {
    live_end_[v] = live_end(v);
    add_live_range(v, +1);
  }
}

void Placement::add_live_range(OpId u, int sign) {
  if (ctx_.regs[u] == 0) return;
  register_rows_.add(ctx_.regs[u], start_[u], live_end_[u] - start_[u], sign);
}

bool Placement::seat_all(const std::vector<int64_t>& starts) {
  clear_seats();
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    if (!fits(v, starts[v])) return false;
    place(v, starts[v]);
  }
  return true;
}

std::vector<int64_t> Placement::starts() const { return start_; }

std::vector<OpId> Placement::conflicts(OpId v, int64_t t) const {
  std::vector<OpId> out;
  const NodeRrt& nv = ctx_.nodes[v];
  const int64_t stage = t / ii_;
  const std::optional<int64_t> gstage = group_stage(ctx_.group_of[v]);
  // Dependences broken: from the closure's rows D[v][*] and D[*][v], or
  // along the edges by the searches of EdgeWindows::broken_by.
  const int64_t* from_v = nullptr;
  const int64_t* to_v = nullptr;
  if (edges_) {
    edges_->broken_by(v, t, broken_);
    for (OpId u : broken_) broken_mark_[u] = 1;
  } else {
    const size_t n = static_cast<size_t>(ctx_.g.op_count());
    from_v = dist_.row(v).data();
    to_v = dist_t_.get() + static_cast<size_t>(v) * n;
  }
  for (OpId u : placed_list_) {
    bool hit = false;
    if (edges_) {
      hit = broken_mark_[u] != 0;
    } else {
      if (from_v[u] != DistanceMatrix::kNoPath && start_[u] < t + from_v[u]) hit = true;
      if (to_v[u] != DistanceMatrix::kNoPath && t < start_[u] + to_v[u]) hit = true;
    }
    if (gstage && *gstage != stage && ctx_.group_of[u] == ctx_.group_of[v]) hit = true;
    if (!hit && breaks_constraint(v, t, u)) hit = true;
    if (!hit && (ctx_.singleton_mask[u] & ctx_.singleton_mask[v]) != 0) {
      // Singleton rows: u's cycle k' lands on v's row (t + k) mod II.
      const NodeRrt& nu = ctx_.nodes[u];
      for (int64_t k = 0; k < nv.duration && !hit; ++k) {
        if (nv.rows[k] == 0) continue;
        const int64_t kp = ((t + k - start_[u]) % ii_ + ii_) % ii_;
        for (int64_t kk = kp; kk < nu.duration; kk += ii_) {
          if (nu.rows[kk] & nv.rows[k]) {
            hit = true;
            break;
          }
        }
      }
    }
    if (hit) out.push_back(u);
  }
  for (OpId u : broken_) broken_mark_[u] = 0;
  broken_.clear();
  std::sort(out.begin(), out.end());
  return out;
}

bool Placement::breaks_constraint(OpId v, int64_t t, OpId u) const {
  return constraints_.breaks(v, t / ii_, u, start_[u] / ii_);
}

}  // namespace tilesched::cost_based
