// One placement attempt at a fixed II (see placement.h): the placement,
// the builder constraints it reads, the pressure evaluators' state and
// the register pressure off the seats.
#include "placement.h"

#include <algorithm>
#include <cassert>
#include <iterator>

#include "util/test_seams.h"

namespace tilesched::cost_based {

namespace {
constexpr int64_t kNeverForced = INT64_MIN;

std::unique_ptr<Windows> make_windows(const Context& ctx, const Seats& seats,
                                      DistanceMatrix* closure, bool along_edges) {
  if (along_edges) return std::make_unique<EdgeWindows>(ctx.g, ctx.adj, seats);
  return std::make_unique<ClosureWindows>(ctx.g, ctx.adj, seats, closure);
}
}  // namespace

Placement::Placement(const Context& ctx, DistanceMatrix* closure)
    : Placement(ctx, closure, false) {}

Placement::Placement(const Context& ctx, AlongEdges) : Placement(ctx, nullptr, true) {}

Placement::Placement(const Context& ctx, DistanceMatrix* closure, bool along_edges)
    : ctx_(ctx),
      seats_(ctx.g.op_count()),
      windows_(make_windows(ctx, seats_, closure, along_edges)),
      rrt_(ctx.g.target),
      constraints_(ctx),
      pressure_(ctx) {
  const int n = ctx.g.op_count();
  broken_mark_.assign(n, 0);
  dead_.assign(n, 0);
  last_forced_.assign(n, kNeverForced);
  group_placed_.assign(ctx.group_members.size(), 0);
  group_stage_.assign(ctx.group_members.size(), 0);
  live_end_.assign(n, 0);
}

Placement::~Placement() = default;

bool Placement::reset(int64_t ii) {
  ii_ = ii;
  const bool ok = windows_->reset(ii);
  ctx_.count(windows_->take_work(), "windows.relax");  // the ASAP pass over the graph
  if (!ok) return false;
  clear_seats();
  return true;
}

void Placement::clear_seats() {
  rrt_.reset(ii_);
  seats_.clear();
  std::fill(group_placed_.begin(), group_placed_.end(), 0);
  pressure_.reset_bank(ii_);
  register_rows_.reset(ii_);
  std::fill(last_forced_.begin(), last_forced_.end(), kNeverForced);
  windows_->clear();
}

void Placement::clear_intermediate() {
  std::fill(dead_.begin(), dead_.end(), 0);
  pressure_.clear_surcharges();
}

std::optional<int64_t> Placement::last_forced_start(OpId v) const {
  if (last_forced_[v] == kNeverForced) return std::nullopt;
  return last_forced_[v];
}

Window Placement::window(OpId v) const {
  Window w;
  const DepBounds b = windows_->bounds(v);
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
  test_seams::count_trips("placement.window",
                          1 + static_cast<int64_t>(constraints_.of(v).size()));
  for (int c : constraints_.of(v)) {
    const BuilderConstraint& k = constraints_[c];
    switch (k.shape) {
      case BuilderConstraint::Shape::kMaxStage:
        w.hi = std::min(w.hi, (k.limit + 1) * ii_ - 1);
        break;
      case BuilderConstraint::Shape::kSameStage: {
        const OpId partner = k.op == v ? k.other : k.op;
        if (!placed(partner)) break;
        const int64_t stage = seats_.start[partner] / ii_;
        w.lo = std::max(w.lo, stage * ii_);
        w.hi = std::min(w.hi, stage * ii_ + ii_ - 1);
        break;
      }
      case BuilderConstraint::Shape::kStageSpan:
        if (k.op != v) {  // v consumes k.op's value
          if (placed(k.op)) {
            w.hi = std::min(w.hi, (seats_.start[k.op] / ii_ + k.limit + 1) * ii_ - 1);
          }
          break;
        }
        for (int p = ctx_.adj.out_begin[v]; p < ctx_.adj.out_begin[v + 1]; ++p) {
          const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
          if (e.kind == EdgeKind::kData && e.to != v && placed(e.to)) {
            w.lo = std::max(w.lo, (seats_.start[e.to] / ii_ - k.limit) * ii_);
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
  seats_.add(v, t, trial_depth_ > 0);
  const int group = ctx_.group_of[v];
  if (group != kNoGroup && group_placed_[group]++ == 0) group_stage_[group] = t / ii_;
  pressure_.add_bank(v, t, +1);
  // A seat's work: its own, and what the windows count for it.
  ctx_.count(1, "placement.seat");
  ctx_.count(windows_->seat(v, t) + windows_->take_work(), "windows.relax");
  // Not for trial seats: no one reads the rows in a trial.
  if (trial_depth_ == 0) update_live_ranges(v, +1);
}

void Placement::unplace(OpId v) {
  assert(placed(v));
  const int64_t t = seats_.start[v];
  rrt_.release(ctx_.nodes[v], t);
  pressure_.add_bank(v, t, -1);
  const bool trial = seats_.in_trial[v] != 0;
  if (!trial) update_live_ranges(v, -1);
  seats_.remove(v);
  const int group = ctx_.group_of[v];
  if (group != kNoGroup) --group_placed_[group];
  windows_->unseat(v);
  ctx_.count(windows_->take_work(), "windows.relax");
  if (trial) {
    assert(seats_.trial.back() == v && "trials unplace in reverse order");
    seats_.end_trial_seat(v);
  }
}

int64_t Placement::live_end(OpId u) const {
  int64_t end = seats_.start[u] + std::max<int64_t>(1, ctx_.g.ops[u].latency);
  for (int q = ctx_.adj.out_begin[u]; q < ctx_.adj.out_begin[u + 1]; ++q) {
    const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[q]];
    if (e.kind == EdgeKind::kData && placed(e.to)) {
      end = std::max(end, seats_.start[e.to] + e.distance * ii_);
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
    const int64_t read = seats_.start[v] + e.distance * ii_;
    if (sign > 0 ? read <= live_end_[u] : read != live_end_[u]) continue;
    add_live_range(u, -1);
    if (sign > 0) {
      live_end_[u] = read;
    } else {
      seats_.placed[v] = 0;
      live_end_[u] = live_end(u);
      seats_.placed[v] = 1;
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
  register_rows_.add(ctx_.regs[u], seats_.start[u], live_end_[u] - seats_.start[u], sign);
}

bool Placement::seat_all(const std::vector<int64_t>& starts) {
  clear_seats();
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    if (!fits(v, starts[v])) return false;
    place(v, starts[v]);
  }
  return true;
}

std::vector<int64_t> Placement::starts() const { return seats_.start; }

std::vector<OpId> Placement::conflicts(OpId v, int64_t t) const {
  std::vector<OpId> out;
  const NodeRrt& nv = ctx_.nodes[v];
  const int64_t stage = t / ii_;
  const std::optional<int64_t> gstage = group_stage(ctx_.group_of[v]);
  // Dependences broken (windows.h).
  windows_->broken_by(v, t, broken_);
  for (OpId u : broken_) broken_mark_[u] = 1;
  ctx_.count_scan(static_cast<int64_t>(seats_.list.size()), "placement.conflicts");
  for (OpId u : seats_.list) {
    bool hit = broken_mark_[u] != 0;
    if (gstage && *gstage != stage && ctx_.group_of[u] == ctx_.group_of[v]) hit = true;
    if (!hit && breaks_constraint(v, t, u)) hit = true;
    if (!hit && (ctx_.singleton_mask[u] & ctx_.singleton_mask[v]) != 0) {
      // Singleton rows: u's cycle k' lands on v's row (t + k) mod II.
      const NodeRrt& nu = ctx_.nodes[u];
      for (int64_t k = 0; k < nv.duration && !hit; ++k) {
        if (nv.rows[k] == 0) continue;
        const int64_t kp = ((t + k - seats_.start[u]) % ii_ + ii_) % ii_;
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
  return constraints_.breaks(v, t / ii_, u, seats_.start[u] / ii_);
}

// The builder constraints in force.

BuilderConstraints::BuilderConstraints(const Context& ctx) : ctx_(ctx) {
  of_.assign(ctx.g.op_count(), {});
}

void BuilderConstraints::index(int c) {
  const BuilderConstraint& k = list_[c];
  of_[k.op].push_back(c);
  if (k.shape == BuilderConstraint::Shape::kSameStage) {
    of_[k.other].push_back(c);
  } else if (k.shape == BuilderConstraint::Shape::kStageSpan) {
    for (int p = ctx_.adj.out_begin[k.op]; p < ctx_.adj.out_begin[k.op + 1]; ++p) {
      const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
      if (e.kind != EdgeKind::kData || e.to == k.op) continue;
      std::vector<int>& list = of_[e.to];
      if (list.empty() || list.back() != c) list.push_back(c);  // parallel edges
    }
  }
}

void BuilderConstraints::add(BuilderConstraint c) {
  list_.push_back(std::move(c));
  index(static_cast<int>(list_.size()) - 1);
}

std::vector<BuilderConstraint> BuilderConstraints::lift_latest_batch() {
  assert(!list_.empty());
  const int batch = list_.back().batch;
  size_t first = list_.size();
  while (first > 0 && list_[first - 1].batch == batch) --first;
  std::vector<BuilderConstraint> lifted(
      std::make_move_iterator(list_.begin() + static_cast<ptrdiff_t>(first)),
      std::make_move_iterator(list_.end()));
  list_.resize(first);
  // Indices are appended in order, so the lifted ones sit at each list's end.
  for (std::vector<int>& list : of_) {
    while (!list.empty() && list.back() >= static_cast<int>(first)) list.pop_back();
  }
  return lifted;
}

void BuilderConstraints::clear() {
  list_.clear();
  for (std::vector<int>& list : of_) list.clear();
}

bool BuilderConstraints::breaks(OpId v, int64_t stage, OpId u, int64_t u_stage) const {
  for (int c : of_[v]) {
    const BuilderConstraint& k = list_[c];
    switch (k.shape) {
      case BuilderConstraint::Shape::kMaxStage:
        break;  // v's own bound: the window's, not a conflict with u
      case BuilderConstraint::Shape::kSameStage:
        if ((k.op == u || k.other == u) && u_stage != stage) return true;
        break;
      case BuilderConstraint::Shape::kStageSpan:
        if (k.op == u && stage - u_stage > k.limit) return true;  // v consumes u's value
        if (k.op == v && u_stage - stage > k.limit) {
          for (int p = ctx_.adj.out_begin[v]; p < ctx_.adj.out_begin[v + 1]; ++p) {
            const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
            if (e.kind == EdgeKind::kData && e.to == u) return true;
          }
        }
        break;
    }
  }
  return false;
}

std::optional<int64_t> BuilderConstraints::max_stage(OpId v) const {
  std::optional<int64_t> bound;
  for (int c : of_[v]) {
    const BuilderConstraint& k = list_[c];
    if (k.shape == BuilderConstraint::Shape::kMaxStage && (!bound || k.limit < *bound)) {
      bound = k.limit;
    }
  }
  return bound;
}

// The pressure evaluators' state.

Pressure::Pressure(const Context& ctx) : ctx_(ctx) {
  surcharges_.assign(ctx.g.op_count(), {});
  surcharge_total_.assign(ctx.g.op_count(), 0);
}

void Pressure::reset_bank(int64_t ii) {
  ii_ = ii;
  bank_windows_.assign(static_cast<size_t>(ii), 0);
  bank_total_.assign(static_cast<size_t>(ii), 0);
}

void Pressure::add_bank(OpId v, int64_t t, int64_t sign) {
  if (!ctx_.touches_bank[v]) return;
  const int64_t d = ctx_.bank_duration[v];
  for (int64_t c = t; c < t + d; ++c) {
    const int64_t window = c / ii_, row = c % ii_;
    const size_t at = static_cast<size_t>(window * ii_ + row);
    if (at >= bank_windows_.size()) bank_windows_.resize(static_cast<size_t>((window + 1) * ii_), 0);
    bank_windows_[at] += sign;
    bank_total_[row] += sign;
  }
}

int64_t Pressure::bank_in_iteration(int64_t c) const {
  const size_t at = static_cast<size_t>(c / ii_ * ii_ + c % ii_);
  return at < bank_windows_.size() ? bank_windows_[at] : 0;
}

int64_t Pressure::surcharge(OpId v, int64_t t) const {
  for (const auto& [at, amount] : surcharges_[v]) {
    if (at == t) return amount;
  }
  return 0;
}

void Pressure::add_surcharge(OpId v, int64_t t, int64_t amount) {
  amount = std::min(amount, kSpillSurchargeCap - surcharge_total_[v]);
  if (amount <= 0) return;
  surcharge_total_[v] += amount;
  for (auto& [at, value] : surcharges_[v]) {
    if (at == t) {
      value += amount;
      return;
    }
  }
  surcharges_[v].push_back({t, amount});
}

void Pressure::clear_surcharges() {
  for (auto& s : surcharges_) s.clear();
  std::fill(surcharge_total_.begin(), surcharge_total_.end(), 0);
}

// Register pressure off the seats.

int64_t live_end(const Placement& p, OpId u) { return p.live_end(u); }

int64_t register_pressure(const Placement& p, int64_t row) {
  return p.register_rows().at(row);  // kept by the placement as seats change
}

int64_t register_pressure_by_walk(const Placement& p, int64_t row) {
  const int64_t ii = p.ii();
  int64_t total = 0;
  for (OpId u : p.placed_ops()) {
    const int64_t regs = p.ctx().regs[u];
    if (regs == 0) continue;
    const int64_t from = p.start(u), len = live_end(p, u) - from;
    // Cycles of [from, from + len) that fall on `row`.
    const int64_t offset = ((row - from) % ii + ii) % ii;
    total += regs * (len / ii + (offset < len % ii ? 1 : 0));
  }
  return total;
}

}  // namespace tilesched::cost_based
