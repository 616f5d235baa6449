// The admission gates G1-G4 (see gates.h).
#include "gates.h"

#include <algorithm>

namespace tilesched::cost_based {

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
  ctx_.count(1 + busy);
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

}  // namespace tilesched::cost_based
