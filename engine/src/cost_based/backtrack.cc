// The backtracking rung (see Driver::backtrack in driver.h and
// docs/COST_BASED.md "Strategy ladder"): where the seed's rungs each commit
// to one greedy choice per op, this rung revisits the latest choice when a
// later op finds no seat, so a resource-tight II whose recurrences need a
// particular offset between two ops is found instead of given up.
#include <algorithm>

#include "driver.h"
#include "../storage.h"

namespace tilesched::cost_based {

namespace {
// The Rau rung's priority order made static: repeatedly the ready op (every
// distance-0 predecessor outside its own cycle placed) with the greatest
// height, ties by topological rank.
std::vector<OpId> priority_order(const Context& ctx) {
  const int n = ctx.g.op_count();
  std::vector<char> done(n, 0);
  std::vector<int> waiting(n, 0);  // unplaced distance-0 predecessors outside the op's cycle
  for (const Edge& e : ctx.g.edges) {
    if (e.distance == 0 && ctx.zero_scc[e.from] != ctx.zero_scc[e.to]) ++waiting[e.to];
  }
  std::vector<OpId> order;
  order.reserve(n);
  while (static_cast<int>(order.size()) < n) {
    OpId best = -1;
    for (OpId v = 0; v < n; ++v) {
      if (done[v] || waiting[v] != 0) continue;
      if (best < 0 || ctx.height[v] > ctx.height[best] ||
          (ctx.height[v] == ctx.height[best] && ctx.topo_rank[v] < ctx.topo_rank[best])) {
        best = v;
      }
    }
    done[best] = 1;
    order.push_back(best);
    for (int q = ctx.adj.out_begin[best]; q < ctx.adj.out_begin[best + 1]; ++q) {
      const Edge& e = ctx.g.edges[ctx.adj.out_edges[q]];
      if (e.distance == 0 && ctx.zero_scc[e.from] != ctx.zero_scc[e.to]) --waiting[e.to];
    }
  }
  return order;
}
// The claims of one singleton slot: (op, cycles held).
using SlotClaims = std::vector<std::pair<OpId, int64_t>>;

// Per singleton slot (by slot id), the ops that claim it for less than II
// cycles (a longer claim collides with itself, which the probe reports).
std::vector<SlotClaims> singleton_claims(const Context& ctx, int64_t ii) {
  std::vector<SlotClaims> claims(ctx.g.target.slots.size() + 1);
  for (OpId v = 0; v < ctx.g.op_count(); ++v) {
    for (const Triple& t : ctx.g.ops[v].resources) {
      if (ctx.g.target.slot(t.slot).capacity == 1 && t.duration > 0 && t.duration <= ii) {
        claims[t.slot].push_back({v, t.duration});
      }
    }
  }
  return claims;
}

// True when the free rows of `slot` can still hold its unplaced claimants:
// their cycles fit in the free rows, and as many claims of the shortest
// length fit in the free runs (cyclic) as there are claimants.
bool slot_can_hold(const Placement& p, int slot, const SlotClaims& claims) {
  int64_t need = 0, cycles = 0, shortest = INT64_MAX;
  for (const auto& [v, d] : claims) {
    if (p.placed(v)) continue;
    ++need;
    cycles += d;
    shortest = std::min(shortest, d);
  }
  if (need == 0) return true;
  const int64_t ii = p.ii();
  const uint64_t bit = slot_bit(slot);
  int64_t first_busy = -1;
  for (int64_t r = 0; r < ii && first_busy < 0; ++r) {
    if (p.rrt().row(r) & bit) first_busy = r;
  }
  if (first_busy < 0) return ii / shortest >= need && ii >= cycles;
  int64_t free = 0, fits = 0, run = 0;
  for (int64_t k = 1; k <= ii; ++k) {  // one lap from the first busy row
    const int64_t r = (first_busy + k) % ii;
    if (p.rrt().row(r) & bit) {
      fits += run / shortest;
      free += run;
      run = 0;
    } else {
      ++run;
    }
  }
  return fits >= need && free >= cycles;
}
}  // namespace

bool Driver::storage_holds() const {
  if (ctx_.max_storage <= 0) return true;
  return storage_bytes_needed(ctx_.g, ctx_.adj, p_.starts(), p_.ii(), ctx_.max_storage) <=
         ctx_.max_storage;
}

int64_t Driver::backtrack_budget(int ratio, int64_t work) const {
  const int64_t n = std::max(1, ctx_.g.op_count());
  return std::min(static_cast<int64_t>(ratio) * n, work / (n * n));
}

bool Driver::backtrack(int64_t budget) {
  const int n = ctx_.g.op_count();
  if (budget <= 0 || n == 0) return false;
  ++stats_.rung_attempts[static_cast<int>(Rung::kBacktrack)];
  // The earlier rungs' reasons stay: this rung's failure adds one line.
  searched_all_ = false;
  const std::vector<OpId> order = priority_order(ctx_);
  std::vector<int> rank(n);
  for (int i = 0; i < n; ++i) rank[order[i]] = i;
  const int64_t ii = p_.ii();
  // A frame per depth: the op chosen there, its earliest start (G2 is
  // judged there) and the range of seats still to try.
  // An op with placed successors and no placed predecessor is tried from
  // its latest seat down (as close to its consumers as it can go: short
  // buffer and register lifetimes), every other op from its earliest up.
  struct Frame {
    OpId op = 0;
    int64_t earliest = 0;
    int64_t next = 0;
    int64_t end = -1;
    bool down = false;
  };
  auto range_of = [&](OpId v) {
    const Window w = p_.window(v);
    Frame f{v, w.lo, w.lo, std::min(w.hi, w.lo + ii - 1), false};
    if (std::optional<int64_t> stage = p_.group_stage(ctx_.group_of[v])) {
      f.next = std::max(w.lo, *stage * ii);  // L5: only the group's stage
      f.end = std::min(w.hi, *stage * ii + ii - 1);
    } else if (!w.has_pred && w.hi < kUnbounded && !w.empty()) {
      f.down = true;
      f.next = w.hi;
      f.end = std::max(w.lo, w.hi - ii + 1);
    }
    return f;
  };
  // The next seat of f through the gates, or nullopt.
  auto next_seat = [&](Frame& f) -> std::optional<int64_t> {
    if (f.down) {
      for (; f.next >= f.end; --f.next) {
        const SeatSearch s = admit(f.op, f.earliest, f.next, f.next);
        if (s.outcome == SeatOutcome::kSeat) return f.next--;
        if (s.outcome == SeatOutcome::kPending || s.outcome == SeatOutcome::kDead) break;
      }
      f.next = f.end - 1;
      return std::nullopt;
    }
    while (f.next <= f.end) {
      const SeatSearch s = admit(f.op, f.earliest, f.next, f.end);
      f.next = s.t + 1;
      if (s.outcome == SeatOutcome::kSeat) return s.t;
      if (s.outcome != SeatOutcome::kGroupAhead && s.outcome != SeatOutcome::kGroupLater) break;
    }
    f.next = f.end + 1;
    return std::nullopt;
  };
  // Fail first: the unplaced op with the fewest seats (counted up to
  // kEnough), ties by priority; ops held by G1 wait for their anchor. An
  // unplaced op with no seat at all means the branch is dead: -1.
  // The counts are kept per op and recounted only after a seat is taken
  // or undone by an op it can see: one sharing a slot or a pool, a leader
  // group, or a path in the closure either way (its window, gates and
  // builder constraints read nothing else).
  constexpr int kEnough = 3;
  std::vector<uint64_t> slots(n), pools(n);
  for (OpId v = 0; v < n; ++v) {
    const NodeRrt& node = ctx_.nodes[v];
    if (!node.rows.empty()) slots[v] = node.rows[0];  // rows nest: row 0 has every bit
    for (const Triple& t : node.pooled) slots[v] |= slot_bit(t.slot);
    for (const PoolUse& u : node.pools) pools[v] |= uint64_t{1} << (u.pool % 64);
  }
  std::vector<Frame> range(n);
  std::vector<int> count(n, 0);
  std::vector<char> stale(n, 1);
  auto touched = [&](OpId u) {  // u was seated or unseated
    stale[u] = 1;
    const int gu = ctx_.group_of[u];
    for (OpId v = 0; v < n; ++v) {
      if (stale[v] || p_.placed(v)) continue;
      if ((slots[u] & slots[v]) || (pools[u] & pools[v]) ||
          (gu != kNoGroup && ctx_.group_of[v] == gu) || p_.dist().has_path(u, v) ||
          p_.dist().has_path(v, u)) {
        stale[v] = 1;
      }
    }
  };
  auto choose = [&]() -> std::optional<Frame> {
    std::optional<Frame> best;
    int best_count = kEnough + 1;
    for (OpId v = 0; v < n; ++v) {
      if (p_.placed(v) || pending(v)) continue;
      if (stale[v]) {
        range[v] = range_of(v);
        Frame probe = range[v];
        count[v] = 0;
        while (count[v] < kEnough && next_seat(probe)) ++count[v];
        stale[v] = 0;
      }
      const Frame& f = range[v];
      if (count[v] == 0) return Frame{v, 0, 0, -1};
      if (count[v] < best_count || (count[v] == best_count && rank[v] < rank[best->op])) {
        best = f;
        best_count = count[v];
      }
    }
    return best;
  };
  std::vector<Frame> frames;
  frames.reserve(n);
  int64_t seats = 0;
  // Without stage rules (leader groups, max depths, builder constraints)
  // a placement shifted by a constant is a placement, so the first op's
  // first seat stands for all of its seats.
  bool shift_invariant = ctx_.group_members.empty() && p_.constraints().empty();
  for (const Op& op : ctx_.g.ops) shift_invariant = shift_invariant && !op.max_depth;
  const std::vector<SlotClaims> claims = singleton_claims(ctx_, ii);
  // After seating v: its singleton slots can still hold what is unplaced.
  auto room_left = [&](OpId v) {
    for (const Triple& t : ctx_.g.ops[v].resources) {
      if (!claims[t.slot].empty() && !slot_can_hold(p_, t.slot, claims[t.slot])) return false;
    }
    return true;
  };
  frames.push_back(*choose());
  while (true) {
    Frame& f = frames.back();
    if (frames.size() == 1 && shift_invariant && f.next > f.earliest) f.next = f.end + 1;
    if (std::optional<int64_t> seat = next_seat(f)) {
      p_.place(f.op, *seat);
      ++stats_.backtrack_seats;
      if (p_.placed_count() == n) {
        if (storage_holds()) break;
        p_.unplace(f.op);  // L4 fails: this leaf is no schedule
        continue;
      }
      if (!room_left(f.op)) {
        p_.unplace(f.op);
        continue;
      }
      if (++seats > budget) {
        give_up_ = GiveUp::kNoSeat;
        failure_.push_back("II " + std::to_string(ii) + ": backtracking spent its budget of " +
                           std::to_string(budget) + " seats");
        return false;
      }
      touched(f.op);
      std::optional<Frame> next = choose();
      if (!next) {  // every unplaced op is held: cannot happen with anchors placeable
        give_up_ = GiveUp::kNoSeat;
        failure_.push_back("II " + std::to_string(ii) + ": backtracking: no op is ready");
        return false;
      }
      frames.push_back(*next);
      continue;
    }
    if (frames.size() == 1) {
      give_up_ = GiveUp::kNoSeat;
      explain_failure(f.op, "backtracking tried every seat within one II of each window");
      searched_all_ = true;
      return false;
    }
    frames.pop_back();
    p_.unplace(frames.back().op);
    touched(frames.back().op);
  }
  ++stats_.rung_successes[static_cast<int>(Rung::kBacktrack)];
  return true;
}

}  // namespace tilesched::cost_based
