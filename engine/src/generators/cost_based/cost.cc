// Cost evaluators of the cost-based generator (see cost.h).
#include "cost.h"

#include <algorithm>

#include "registers.h"

namespace tilesched::cost_based {

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
  // [0, widest] is widest itself (cost.h), so it is not run.
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
  p.ctx().count(p.placed_count());
  int64_t inversions = 0;
  for (OpId u : p.placed_ops()) {
    // In the schedule u precedes v when (s_u, u) < (t, v).
    const bool u_first = p.start(u) < t || (p.start(u) == t && u < v);
    if (u_first != (u < v)) ++inversions;
  }
  return inversions;
}

StructuralIndex::StructuralIndex(const Placement& p, OpId v) {
  p.ctx().count(p.placed_count());
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

}  // namespace tilesched::cost_based
