// The four placement arms (see arms.h; docs/COST_BASED.md "Arms").
#include "arms.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>

namespace tilesched::cost_based {

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
  for (OpId v : ready) {
    if (cands.size() == stop) break;
    if (!p_.dead(v) && !gates_.held(v)) cands.push_back(v);
  }
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

}  // namespace tilesched::cost_based
