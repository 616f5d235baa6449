// The forced placement (see forced_placement.h).
#include "forced_placement.h"

#include <algorithm>

namespace tilesched::cost_based {

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
