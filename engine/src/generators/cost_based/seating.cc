// Seating one op (see seating.h): the gates, the arms, the cost
// evaluators and the forced placement.
#include "seating.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>

#include "util/test_seams.h"

namespace tilesched::cost_based {

// The admission gates G1-G4.

namespace {
void count(CostBasedStats& stats, Gate g) { ++stats.gate_rejects[static_cast<int>(g)]; }
}  // namespace

bool GateCheck::pending(OpId v) const {
  const int group = ctx_.group_of[v];
  if (group == kNoGroup) return false;
  const OpId anchor = ctx_.group_anchor[group];
  return anchor != v && !p_.placed(anchor);
}

bool GateCheck::held(OpId v) {
  if (!pending(v)) return false;
  count(stats_, Gate::kG1Pending);
  return true;
}

SeatSearch GateCheck::admit(OpId v, int64_t earliest, int64_t from, int64_t end) {
  if (held(v)) return {SeatOutcome::kPending, 0};  // G1
  const Op& op = ctx_.g.ops[v];
  const int64_t ii = p_.ii();
  if (op.max_depth && earliest > (*op.max_depth + 1) * ii - 1) {  // G2
    count(stats_, Gate::kG2MaxDepth);
    return {SeatOutcome::kDead, 0};
  }
  if (from > end) return {SeatOutcome::kNoCycle, 0};
  const int64_t fit = p_.first_fit(v, from, end);  // G3, every busy cycle counted
  const int64_t busy = (fit < 0 ? end + 1 : fit) - from;
  stats_.gate_rejects[static_cast<int>(Gate::kG3Rrt)] += busy;
  ctx_.count(1 + busy, "gates.scan");
  test_seams::count_trips("gates.scan", fit < 0 ? busy : busy + 1);
  if (fit < 0) return {SeatOutcome::kNoCycle, 0};
  const std::optional<int64_t> stage = p_.group_stage(ctx_.group_of[v]);
  if (stage && fit / ii != *stage) {  // G4
    count(stats_, Gate::kG4Group);
    return {fit / ii > *stage ? SeatOutcome::kGroupLater : SeatOutcome::kGroupAhead, fit};
  }
  return {SeatOutcome::kSeat, fit};
}

SeatSearch GateCheck::earliest_seat(OpId v) {
  if (held(v)) return {SeatOutcome::kPending, 0};  // before the window: G1 is cheap
  return earliest_seat(v, p_.window(v));
}

SeatSearch GateCheck::earliest_seat(OpId v, const Window& w) {
  if (held(v)) return {SeatOutcome::kPending, 0};
  const int64_t ii = p_.ii();
  const SeatSearch s = admit(v, w.lo, w.lo, std::min(w.hi, w.lo + ii - 1));
  if (s.outcome != SeatOutcome::kGroupAhead) return s;
  // G4 recovery: seat v in the group's (later) stage.
  const int64_t stage_start = *p_.group_stage(ctx_.group_of[v]) * ii;
  return admit(v, w.lo, stage_start, std::min(w.hi, stage_start + ii - 1));
}

// The four placement arms (docs/COST_BASED.md "Arms").

namespace {
uint64_t slot_mask(const Op& op) {
  uint64_t m = 0;
  for (const Triple& t : op.resources) m |= slot_bit(t.slot);
  return m;
}

// The permute arm's trial seats: the candidates seated in `order` at their
// earliest gated seats, one trial kept open across orders, so an order that
// shares its first ops with the previous one keeps their seats (trial seats
// unseat in reverse and restore the state exactly) and seats only the rest.
class PermuteTrial {
 public:
  PermuteTrial(GateCheck& gates, Placement& p, const std::vector<OpId>& cands,
               Arms::Scratch& scratch)
      : gates_(gates), p_(p), cands_(cands), order_(scratch.order), seats_(scratch.seats),
        totals_(scratch.totals) {
    order_.resize(cands.size());
    std::iota(order_.begin(), order_.end(), 0);
    seats_.clear();
    totals_.assign(1, CostVector{});
    p_.begin_trial();
  }
  ~PermuteTrial() {
    unseat_to(0);
    p_.end_trial();
  }
  std::vector<int>& order() { return order_; }
  // Seats the candidates in order(), keeping the seats of the longest prefix
  // already seated; the position of the first op with no seat (marked dead
  // when G2 rejects it), or the candidate count when every op is seated.
  int seat_in_order() {
    size_t same = 0;
    while (same < seats_.size() && seats_[same].op == cands_[order_[same]]) ++same;
    unseat_to(same);
    for (size_t i = same; i < order_.size(); ++i) {
      const OpId v = cands_[order_[i]];
      const Window w = p_.window(v);
      const SeatSearch s = gates_.earliest_seat(v, w);
      if (s.outcome == SeatOutcome::kDead) p_.mark_dead(v);  // G2 recovery
      if (s.outcome != SeatOutcome::kSeat) return static_cast<int>(i);
      CostVector total = totals_.back();
      total += evaluate_seat(p_, p_.ctx(), v, s.t, w);
      totals_.push_back(total);
      p_.place(v, s.t);
      seats_.push_back({v, s.t});
    }
    return static_cast<int>(order_.size());
  }
  const std::vector<Seat>& seats() const { return seats_; }
  const CostVector& total() const { return totals_.back(); }
  void unseat_to(size_t n) {
    while (seats_.size() > n) {
      p_.unplace(seats_.back().op);
      seats_.pop_back();
      totals_.pop_back();
    }
  }

 private:
  GateCheck& gates_;
  Placement& p_;
  const std::vector<OpId>& cands_;
  std::vector<int>& order_;
  std::vector<Seat>& seats_;
  std::vector<CostVector>& totals_;
};
}  // namespace

Arms::Arms(const Context& ctx, Placement& placement, GateCheck& gates, CostBasedStats& stats)
    : ctx_(ctx), p_(placement), gates_(gates), stats_(stats), rng_(ctx.opts.seed) {}

void Arms::reseed(int64_t ii) {
  rng_ = SplitMix64(ctx_.opts.seed ^ (static_cast<uint64_t>(ii) * 0x9E3779B97F4A7C15ull));
}

std::vector<OpId>& Arms::candidates(const std::vector<OpId>& ready, size_t stop) {
  std::vector<OpId>& cands = scratch_.cands;
  cands.clear();
  size_t scanned = 0;
  for (OpId v : ready) {
    if (cands.size() == stop) break;
    ++scanned;
    if (!p_.dead(v) && !gates_.held(v)) cands.push_back(v);
  }
  ctx_.count_scan(static_cast<int64_t>(scanned), "arms.ready");
  return cands;
}

std::optional<Proposal> Arms::try_permute(const std::vector<OpId>& ready, bool whole_set) {
  std::vector<OpId>& cands = candidates(ready, SIZE_MAX);
  if (!whole_set && cands.size() > 8) cands.resize(8);
  if (cands.empty()) return std::nullopt;
  const int k = static_cast<int>(cands.size());
  // Exhaustive (in lexicographic order from the priority order) while k!
  // stays within the budget; otherwise the priority order plus seeded samples.
  int64_t perms = 1;
  for (int i = 2; i <= k && perms <= ctx_.opts.permute_budget; ++i) perms *= i;
  const bool exhaustive = perms <= ctx_.opts.permute_budget;
  std::optional<Proposal> best;
  {  // the trial closes before the single seat is costed
    PermuteTrial trial(gates_, p_, cands, scratch_);
    auto try_order = [&] {
      const int failed = trial.seat_in_order();
      if (failed == k && (!best || trial.total() < best->cost)) {
        best = Proposal{Arm::kPermute, trial.seats(), trial.total()};
      }
      return failed;
    };
    if (exhaustive) {
      std::vector<int>& order = trial.order();
      do {
        // An order that fails at position f: every order with its first f + 1
        // ops fails there too; the next permutation past them all.
        const int failed = try_order();
        if (failed < k) std::sort(order.begin() + failed + 1, order.end(), std::greater<>());
      } while (std::next_permutation(order.begin(), order.end()));
    } else {
      // Sampling is bounded by work too: about 4 x permute_budget seatings.
      const int sampled = std::max(1, std::min(1 + ctx_.opts.permute_samples,
                                               4 * ctx_.opts.permute_budget / k));
      for (int round = 0; round < sampled; ++round) {
        if (round > 0) rng_.shuffle(trial.order());
        try_order();
      }
    }
  }
  if (best && !whole_set) {
    best->seats.resize(1);
    best->cost = evaluate_seat(p_, ctx_, best->seats[0].op, best->seats[0].t);
  }
  return best;
}

bool Arms::can_fuse(OpId a, OpId b) const {
  const Op& x = ctx_.g.ops[a];
  const Op& y = ctx_.g.ops[b];
  if (slot_mask(x) == 0 || slot_mask(x) != slot_mask(y)) return false;  // slot group
  if (ctx_.group_of[a] != ctx_.group_of[b]) return false;                // no nesting
  for (const Triple& tx : x.resources) {
    for (const Triple& ty : y.resources) {
      if (tx.slot == ty.slot &&
          tx.occupancy + ty.occupancy > ctx_.g.target.slot(tx.slot).capacity) {
        return false;  // pool pressure over the cap
      }
    }
  }
  for (const PoolUse& px : x.pools) {
    for (const PoolUse& py : y.pools) {
      if (px.pool == py.pool && px.count + py.count > ctx_.g.target.pools[px.pool].capacity) {
        return false;
      }
    }
  }
  return !ctx_.reaches(a, b) && !ctx_.reaches(b, a);  // dependence
}

std::optional<Proposal> Arms::try_fuse(const std::vector<OpId>& ready) {
  const std::vector<OpId>& cands = candidates(ready, 16);
  const int64_t ii = p_.ii();
  std::optional<Proposal> best;
  std::vector<std::optional<Window>>& windows = scratch_.windows;  // read on first use
  windows.assign(cands.size(), std::nullopt);
  auto window_of = [&](size_t i) -> const Window& {
    if (!windows[i]) windows[i] = p_.window(cands[i]);
    return *windows[i];
  };
  for (size_t i = 0; i < cands.size(); ++i) {
    for (size_t j = i + 1; j < cands.size(); ++j) {
      const OpId a = cands[i], b = cands[j];
      if (!can_fuse(a, b)) continue;
      const Window& wa = window_of(i);
      const Window& wb = window_of(j);
      const int64_t lo = std::max(wa.lo, wb.lo);
      const int64_t end = std::min({wa.hi, wb.hi, lo + ii - 1});
      for (int64_t t = lo; t <= end; ++t) {
        const SeatSearch s = gates_.admit(a, wa.lo, t, end);
        if (s.outcome == SeatOutcome::kGroupAhead || s.outcome == SeatOutcome::kGroupLater) {
          t = s.t;  // G4: the next cycle
          continue;
        }
        if (s.outcome != SeatOutcome::kSeat) break;
        t = s.t;
        // The composed vector ((15, 7, 2) for two smem_reads) fits exactly
        // when the second op fits after the first.
        CostVector cost = evaluate_seat(p_, ctx_, a, t);
        p_.begin_trial();
        p_.place(a, t);
        const bool both = gates_.admit(b, wb.lo, t, t).outcome == SeatOutcome::kSeat;
        if (both) cost += evaluate_seat(p_, ctx_, b, t);
        p_.unplace(a);
        p_.end_trial();
        if (!both) continue;
        if (!best || cost < best->cost) best = Proposal{Arm::kFuse, {{a, t}, {b, t}}, cost};
        break;
      }
    }
  }
  return best;
}

std::optional<Proposal> Arms::try_retry(const std::vector<OpId>& ready) {
  ctx_.count_scan(static_cast<int64_t>(ready.size()), "arms.ready");
  for (OpId v : ready) {
    if (!p_.dead(v)) continue;
    const SeatSearch s = gates_.earliest_seat(v);
    if (s.outcome != SeatOutcome::kSeat) continue;  // still dead
    p_.mark_live(v);
    return Proposal{Arm::kRetry, {{v, s.t}}, evaluate_seat(p_, ctx_, v, s.t)};
  }
  return std::nullopt;
}

std::optional<Proposal> Arms::try_cost_based(const std::vector<OpId>& ready) {
  std::optional<Proposal> best;
  ctx_.count_scan(static_cast<int64_t>(ready.size()), "arms.ready");
  for (OpId v : ready) {
    if (p_.dead(v) || gates_.held(v)) continue;  // G1: held over
    const Window w = p_.window(v);
    const SeatSearch first = gates_.admit(v, w.lo, w.lo, std::min(w.hi, w.lo + p_.ii() - 1));
    if (first.outcome == SeatOutcome::kDead || w.empty()) {  // G2, or no window: dead
      p_.mark_dead(v);
      continue;
    }
    if (try_add_constraint_to_avoid_reg_spilling(p_, ctx_, v, w.lo) > 0) {
      ++stats_.spill_surcharges;
    }
    if (!cheapest_seat(v, w, first, best)) p_.mark_dead(v);
  }
  return best;
}

bool Arms::cheapest_seat(OpId v, const Window& w, SeatSearch first,
                           std::optional<Proposal>& best) {
  const PipeSlotBasis basis = PipeSlotBasis::of(p_, v, w);
  // Only an op without placed predecessors compares every cycle of its
  // window; index its structural distance then, count it directly otherwise.
  const std::optional<StructuralIndex> order =
      basis.has_pred ? std::nullopt : std::optional<StructuralIndex>(StructuralIndex(p_, v));
  const int64_t end = std::min(w.hi, w.lo + p_.ii() - 1);
  bool any = false;
  for (SeatSearch s = first;; s = gates_.admit(v, w.lo, s.t + 1, end)) {
    if (s.outcome == SeatOutcome::kGroupAhead || s.outcome == SeatOutcome::kGroupLater) {
      continue;  // G4: the next cycle
    }
    if (s.outcome != SeatOutcome::kSeat) break;
    CostVector c = evaluate_seat(p_, ctx_, v, s.t, basis);
    if (c.feasible()) c.structural = order ? order->at(s.t) : structural_distance(p_, v, s.t);
    if (!c.feasible()) continue;
    any = true;
    if (!best || c < best->cost) best = Proposal{Arm::kCostBased, {{v, s.t}}, c};
    // With a placed predecessor the pipe-slot component grows with t and
    // the resource component is already 0: no later seat of v can win.
    // Every component is at least 0, so nothing beats an all-zero best
    // (ties keep the earlier seat), and v has a seat: it stays live.
    if (basis.has_pred || best->cost == CostVector{}) break;
  }
  return any;
}

// The cost evaluators.

namespace {
constexpr int64_t kSpillWeight = 17;   // seed 002: SPILL_SURCHARGE_WEIGHT

int64_t saturating_add(int64_t a, int64_t b) { return std::min(kInfiniteCost, a + b); }
}  // namespace

CostVector& CostVector::operator+=(const CostVector& o) {
  resource = saturating_add(resource, o.resource);
  pipe_slot = saturating_add(pipe_slot, o.pipe_slot);
  spill = saturating_add(spill, o.spill);
  bank = saturating_add(bank, o.bank);
  structural = saturating_add(structural, o.structural);
  return *this;
}

PipeSlotBasis PipeSlotBasis::of(const Placement& p, OpId v, const Window& w) {
  return {w.has_pred, w.latest_pred_bound, p.earliest_pred_bound(v, w)};
}

PipeSlotBasis PipeSlotBasis::of(const Placement& p, OpId v) { return of(p, v, p.window(v)); }

int64_t pipe_slot_cost(const Placement& p, const PipeSlotBasis& basis, OpId v, int64_t t) {
  if (!p.fits(v, t)) return kInfiniteCost;
  if (!basis.has_pred) return 0;
  if (t < basis.latest_bound) return kInfiniteCost;  // a dependence would break
  // The driver's answer for the monotone probe "widest <= cap" over
  // [0, widest] is widest itself (seating.h), so it is not run.
  return t - basis.earliest_bound;
}

int64_t pipe_slot_cost(const Placement& p, OpId v, int64_t t) {
  return pipe_slot_cost(p, PipeSlotBasis::of(p, v), v, t);
}

int64_t bank_pressure_cost(const Placement& p, const Context& ctx, OpId v, int64_t t) {
  if (!ctx.touches_bank[v]) return 0;
  const int64_t bank_dur = ctx.bank_duration[v];
  int64_t in_iter = 0, cross = 0;
  const int64_t ii = p.ii();
  for (int64_t c = t; c < t + bank_dur; ++c) {
    const int64_t in_c = p.pressure().bank_in_iteration(c);
    in_iter = std::max(in_iter, in_c);
    cross = std::max(cross, p.pressure().bank_total(c % ii) - in_c);
  }
  if (in_iter > ctx.bank_cap_in || cross > ctx.bank_cap_cross) return kInfiniteCost;
  return in_iter + cross;  // the driver's answer, as in pipe_slot_cost
}

int64_t register_pressure_at(const Placement& p, const Context& ctx, OpId v, int64_t t) {
  return register_pressure(p, t % p.ii()) + ctx.regs[v];
}

int64_t spill_surcharge(int64_t pressure, int64_t budget) {
  if (pressure <= budget) return 0;
  return std::min((pressure - budget) * kSpillWeight, kSpillSurchargeCap);
}

int64_t try_add_constraint_to_avoid_reg_spilling(Placement& p, const Context& ctx, OpId v,
                                                 int64_t earliest) {
  if (ctx.regs[v] == 0) return 0;
  const int64_t amount =
      spill_surcharge(register_pressure_at(p, ctx, v, earliest), ctx.reg_budget);
  if (amount == 0) return 0;
  const int64_t before = p.pressure().surcharge(v, earliest);
  p.pressure().add_surcharge(v, earliest, amount);
  return p.pressure().surcharge(v, earliest) - before;
}

int64_t structural_distance(const Placement& p, OpId v, int64_t t) {
  p.ctx().count(p.placed_count(), "seat.structural");
  int64_t inversions = 0;
  test_seams::count_trips("seat.structural", p.placed_count());
  for (OpId u : p.placed_ops()) {
    // In the schedule u precedes v when (s_u, u) < (t, v).
    const bool u_first = p.start(u) < t || (p.start(u) == t && u < v);
    if (u_first != (u < v)) ++inversions;
  }
  return inversions;
}

StructuralIndex::StructuralIndex(const Placement& p, OpId v) {
  p.ctx().count(p.placed_count(), "seat.structural");
  test_seams::count_trips("seat.structural", p.placed_count());
  for (OpId u : p.placed_ops()) (u < v ? before_ : after_).push_back(p.start(u));
  std::sort(before_.begin(), before_.end());
  std::sort(after_.begin(), after_.end());
}

int64_t StructuralIndex::at(int64_t t) const {
  const auto later = before_.end() - std::upper_bound(before_.begin(), before_.end(), t);
  const auto earlier = std::lower_bound(after_.begin(), after_.end(), t) - after_.begin();
  return static_cast<int64_t>(later + earlier);
}

int64_t kendall_tau_inversions(const std::vector<int>& sequence) {
  std::vector<int> a = sequence, tmp(sequence.size());
  int64_t inversions = 0;
  for (size_t width = 1; width < a.size(); width *= 2) {  // bottom-up merge sort
    for (size_t lo = 0; lo < a.size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, a.size()), hi = std::min(lo + 2 * width, a.size());
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (a[j] < a[i]) {
          inversions += static_cast<int64_t>(mid - i);
          tmp[k++] = a[j++];
        } else {
          tmp[k++] = a[i++];
        }
      }
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    a.swap(tmp);
  }
  return inversions;
}

CostVector evaluate_seat(const Placement& p, const Context& ctx, OpId v, int64_t t,
                         const PipeSlotBasis& basis) {
  test_seams::count_trips("seat.cost", 1);
  ctx.count(1, "seat.cost");  // the probe, the surcharge and the bank rows
  CostVector c;
  c.pipe_slot = pipe_slot_cost(p, basis, v, t);  // includes the RRT probe
  if (c.pipe_slot >= kInfiniteCost) return CostVector::infinite();
  c.spill = p.pressure().surcharge(v, t);
  c.bank = bank_pressure_cost(p, ctx, v, t);
  return c;
}

CostVector evaluate_seat(const Placement& p, const Context& ctx, OpId v, int64_t t) {
  return evaluate_seat(p, ctx, v, t, p.window(v));
}

CostVector evaluate_seat(const Placement& p, const Context& ctx, OpId v, int64_t t,
                         const Window& w) {
  CostVector c = evaluate_seat(p, ctx, v, t, PipeSlotBasis::of(p, v, w));
  if (c.feasible()) c.structural = structural_distance(p, v, t);
  return c;
}

// The forced placement.

namespace {
bool shares_counted_resource(const Context& ctx, OpId a, OpId b) {
  for (const Triple& x : ctx.nodes[a].pooled) {
    for (const Triple& y : ctx.nodes[b].pooled) {
      if (x.slot == y.slot) return true;
    }
  }
  for (const PoolUse& x : ctx.nodes[a].pools) {
    for (const PoolUse& y : ctx.nodes[b].pools) {
      if (x.pool == y.pool) return true;
    }
  }
  return false;
}
}  // namespace

ForcedPlacement::Result ForcedPlacement::place(OpId v) {
  const Window w = p_.window(v);
  const int64_t ii = p_.ii();
  int64_t t = w.lo;
  if (std::optional<int64_t> last = p_.last_forced_start(v); last && t <= *last) t = *last + 1;
  const std::optional<int64_t> found = seat(v, w, t);
  if (!found) {
    const Op& op = ctx_.g.ops[v];
    return {false, "its max_depth " + std::to_string(*op.max_depth) +
                       " cannot hold after its placed predecessors"};
  }
  t = *found;
  if (!evict_for(v, t)) {
    RrtConflict why;
    p_.fits(v, t, &why);
    return {false, "does not fit alone: " + why.describe(ctx_.g.target, ctx_.nodes[v], ii)};
  }
  p_.place(v, t);
  p_.mark_live(v);
  p_.set_last_forced_start(v, t);
  return {true, {}};
}

std::optional<int64_t> ForcedPlacement::seat(OpId v, const Window& w, int64_t t) {
  const int64_t ii = p_.ii();
  int64_t from = t;
  if (std::optional<int64_t> bound = p_.constraints().max_stage(v); bound && t > (*bound + 1) * ii - 1) {
    // A builder's stage bound: seat v in its last allowed stage and evict
    // the placed predecessors that push it later (Rau, backwards).
    from = std::max(p_.asap(v), *bound * ii);
  }
  const int64_t end = std::min(w.hi, from + ii - 1);
  // A gated free row first; G2 is judged at t, the earliest start allowed.
  for (SeatSearch s = gates_.admit(v, t, from, end);; s = gates_.admit(v, t, s.t + 1, end)) {
    switch (s.outcome) {
      case SeatOutcome::kSeat: return s.t;
      case SeatOutcome::kDead: return std::nullopt;
      case SeatOutcome::kGroupAhead:
      case SeatOutcome::kGroupLater: continue;  // G4: the next cycle
      case SeatOutcome::kPending:  // the caller picks an op G1 admits
      case SeatOutcome::kNoCycle: return from;  // no free row: evict at from
    }
  }
}

bool ForcedPlacement::evict_for(OpId v, int64_t t) {
  for (OpId u : p_.conflicts(v, t)) {
    if (ctx_.group_of[u] != kNoGroup && ctx_.group_of[u] == ctx_.group_of[v]) {
      ++stats_.group_reorders;  // G4 recovery: the group moves with v
    }
    p_.unplace(u);
    ++stats_.evictions;
  }
  while (!p_.fits(v, t)) {
    std::optional<OpId> victim;
    ctx_.count_scan(p_.placed_count(), "placement.conflicts");
    for (OpId u : p_.placed_ops()) {
      if (shares_counted_resource(ctx_, u, v) && (!victim || u < *victim)) victim = u;
    }
    if (!victim) return false;
    p_.unplace(*victim);
    ++stats_.evictions;
  }
  return true;
}

}  // namespace tilesched::cost_based
