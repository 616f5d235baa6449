// The placement driver: the arms, the forced placement and a rung's
// ready-set loop at one II (see driver.h); the gates are in gates.cc.
#include "driver.h"

#include <algorithm>
#include <functional>
#include <numeric>

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
  PermuteTrial(Driver& driver, Placement& p, const std::vector<OpId>& cands,
               Driver::Scratch& scratch)
      : driver_(driver), p_(p), cands_(cands), order_(scratch.order), seats_(scratch.seats),
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
      const SeatSearch s = driver_.earliest_seat(v, w);
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
  Driver& driver_;
  Placement& p_;
  const std::vector<OpId>& cands_;
  std::vector<int>& order_;
  std::vector<Seat>& seats_;
  std::vector<CostVector>& totals_;
};
}  // namespace

Driver::Driver(const Context& ctx, Placement& placement, CostBasedStats& stats)
    : ctx_(ctx), p_(placement), stats_(stats), rng_(ctx.opts.seed), backtracking_(ctx) {}

void Driver::reseed(int64_t ii) {
  rng_ = SplitMix64(ctx_.opts.seed ^ (static_cast<uint64_t>(ii) * 0x9E3779B97F4A7C15ull));
}

std::vector<OpId> Driver::ready_set(Rung rung) const {
  std::vector<OpId> ready;
  ready_set(rung, ready);
  return ready;
}

void Driver::ready_set(Rung rung, std::vector<OpId>& ready) const {
  ready.clear();
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    if (p_.placed(v)) continue;
    bool ok = true;
    for (int q = ctx_.adj.in_begin[v]; q < ctx_.adj.in_begin[v + 1] && ok; ++q) {
      const Edge& e = ctx_.g.edges[ctx_.adj.in_edges[q]];
      if (e.distance == 0 && ctx_.zero_scc[e.from] != ctx_.zero_scc[v] && !p_.placed(e.from)) {
        ok = false;
      }
    }
    if (ok) ready.push_back(v);
  }
  // topo_rank is a position, so both orders are total: std::sort (which
  // does not allocate, where std::stable_sort does) gives the one answer.
  auto by = [&](const std::vector<int64_t>& key) {
    std::sort(ready.begin(), ready.end(), [&](OpId a, OpId b) {
      if (key[a] != key[b]) return key[a] > key[b];
      return ctx_.topo_rank[a] < ctx_.topo_rank[b];
    });
  };
  switch (rung) {
    case Rung::kRauRefinement: by(ctx_.height); break;  // critical path first
    case Rung::kDeepestRetry: by(ctx_.depth); break;    // deepest first
    default:
      std::sort(ready.begin(), ready.end(), [&](OpId a, OpId b) {
        return ctx_.topo_rank[a] < ctx_.topo_rank[b];
      });
  }
}

std::optional<Proposal> Driver::try_permute(const std::vector<OpId>& ready, bool whole_set) {
  std::vector<OpId>& cands = scratch_.cands;
  cands.clear();
  for (OpId v : ready) {
    if (!p_.dead(v) && !held(v)) cands.push_back(v);
  }
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
    PermuteTrial trial(*this, p_, cands, scratch_);
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

bool Driver::can_fuse(OpId a, OpId b) const {
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
  // Last: the cheapest test of a pair along the edges is a search.
  return !p_.has_path(a, b) && !p_.has_path(b, a);  // dependence
}

std::optional<Proposal> Driver::try_fuse(const std::vector<OpId>& ready) {
  std::vector<OpId>& cands = scratch_.cands;
  cands.clear();
  for (OpId v : ready) {
    if (!p_.dead(v) && !held(v)) cands.push_back(v);
    if (cands.size() == 16) break;
  }
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
        const SeatSearch s = admit(a, wa.lo, t, end);
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
        const bool both = admit(b, wb.lo, t, t).outcome == SeatOutcome::kSeat;
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

std::optional<Proposal> Driver::try_retry(const std::vector<OpId>& ready) {
  for (OpId v : ready) {
    if (!p_.dead(v)) continue;
    const SeatSearch s = earliest_seat(v);
    if (s.outcome != SeatOutcome::kSeat) continue;  // still dead
    p_.mark_live(v);
    return Proposal{Arm::kRetry, {{v, s.t}}, evaluate_seat(p_, ctx_, v, s.t)};
  }
  return std::nullopt;
}

std::optional<Proposal> Driver::try_cost_based(const std::vector<OpId>& ready) {
  std::optional<Proposal> best;
  for (OpId v : ready) {
    if (p_.dead(v) || held(v)) continue;  // G1: held over
    const Window w = p_.window(v);
    const SeatSearch first = admit(v, w.lo, w.lo, std::min(w.hi, w.lo + p_.ii() - 1));
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

bool Driver::cheapest_seat(OpId v, const Window& w, SeatSearch first,
                           std::optional<Proposal>& best) {
  const PipeSlotBasis basis = PipeSlotBasis::of(p_, v, w);
  // Only an op without placed predecessors compares every cycle of its
  // window; index its structural distance then, count it directly otherwise.
  const std::optional<StructuralIndex> order =
      basis.has_pred ? std::nullopt : std::optional<StructuralIndex>(StructuralIndex(p_, v));
  const int64_t end = std::min(w.hi, w.lo + p_.ii() - 1);
  bool any = false;
  for (SeatSearch s = first;; s = admit(v, w.lo, s.t + 1, end)) {
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

void Driver::commit(const Proposal& proposal) {
  for (const Seat& s : proposal.seats) p_.place(s.op, s.t);
  placements_ += static_cast<int64_t>(proposal.seats.size());
  ++stats_.arm_wins[static_cast<int>(proposal.arm)];
}

bool Driver::force_place(OpId v) {
  const Window w = p_.window(v);
  const int64_t ii = p_.ii();
  int64_t t = w.lo;
  if (std::optional<int64_t> last = p_.last_forced_start(v); last && t <= *last) t = *last + 1;
  const std::optional<int64_t> seat = forced_seat(v, w, t);
  if (!seat) {
    const Op& op = ctx_.g.ops[v];
    explain_failure(v, "its max_depth " + std::to_string(*op.max_depth) +
                           " cannot hold after its placed predecessors");
    return false;
  }
  t = *seat;
  if (!evict_for(v, t)) {
    RrtConflict why;
    p_.fits(v, t, &why);
    explain_failure(v, "does not fit alone: " + why.describe(ctx_.g.target, ctx_.nodes[v], ii));
    return false;
  }
  p_.place(v, t);
  p_.mark_live(v);
  p_.set_last_forced_start(v, t);
  ++placements_;
  return true;
}

std::optional<int64_t> Driver::forced_seat(OpId v, const Window& w, int64_t t) {
  const int64_t ii = p_.ii();
  int64_t from = t;
  if (std::optional<int64_t> bound = p_.constraints().max_stage(v); bound && t > (*bound + 1) * ii - 1) {
    // A builder's stage bound: seat v in its last allowed stage and evict
    // the placed predecessors that push it later (Rau, backwards).
    from = std::max(p_.asap(v), *bound * ii);
  }
  const int64_t end = std::min(w.hi, from + ii - 1);
  // A gated free row first; G2 is judged at t, the earliest start allowed.
  for (SeatSearch s = admit(v, t, from, end);; s = admit(v, t, s.t + 1, end)) {
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

// Evicts what conflicts with v at t: dependences, singleton rows, group
// stage and builder constraints, then sharers of pooled slots and pools
// until v fits. False when v does not fit even alone.
bool Driver::evict_for(OpId v, int64_t t) {
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

bool Driver::step(Rung rung, ArmPolicy policy) {
  std::vector<OpId>& ready = scratch_.ready;
  ready_set(rung, ready);
  if (ready.empty()) {
    give_up_ = GiveUp::kNoSeat;
    failure_.push_back("no op is ready although " +
                       std::to_string(ctx_.g.op_count() - p_.placed_count()) +
                       " are unplaced");
    return false;
  }
  const bool cost_only = rung == Rung::kCostBasedPlacement || rung == Rung::kCostBasedAfterClear;
  std::optional<Proposal> chosen;
  auto offer = [&](std::optional<Proposal> p) {
    if (!p) return;
    ++stats_.arm_proposals[static_cast<int>(p->arm)];
    if (!chosen || p->cost < chosen->cost) chosen = std::move(p);  // ties: earlier arm
  };
  if (policy == ArmPolicy::kFirstSuccess) {
    if (!cost_only) {
      offer(try_permute(ready, /*whole_set=*/true));
      if (!chosen) offer(try_fuse(ready));
      if (!chosen) offer(try_retry(ready));
    }
    if (!chosen) offer(try_cost_based(ready));
  } else {
    if (!cost_only) {
      offer(try_permute(ready, /*whole_set=*/false));
      offer(try_fuse(ready));
      offer(try_retry(ready));
    }
    offer(try_cost_based(ready));
  }
  if (chosen) {
    commit(*chosen);
    return true;
  }
  const bool evicts = rung == Rung::kRauRefinement || rung == Rung::kDeepestRetry;
  if (evicts) {
    for (OpId v : ready) {
      if (!held(v)) return force_place(v);
    }
  }
  give_up_ = GiveUp::kNoSeat;
  explain_failure(ready.front(), "every arm rejected it");
  return false;
}

bool Driver::run(Rung rung, ArmPolicy policy) {
  ++stats_.rung_attempts[static_cast<int>(rung)];
  failure_.clear();
  placements_ = 0;
  budget_ = static_cast<int64_t>(ctx_.opts.eviction_budget_ratio) * ctx_.g.op_count();
  for (int64_t steps = 1; p_.placed_count() < ctx_.g.op_count(); ++steps) {
    if (!step(rung, policy)) return false;
    if (steps % kStepsPerDeadlinePoll == 0 && deadline_passed(ctx_.opts.deadline)) {
      failure_.push_back("stopped at the deadline");
      return false;
    }
    if (placements_ > budget_) {
      give_up_ = GiveUp::kNoSeat;
      failure_.push_back("placement budget of " + std::to_string(budget_) + " seats spent");
      return false;
    }
  }
  ++stats_.rung_successes[static_cast<int>(rung)];
  return true;
}

bool Driver::backtrack(const Backtracking::Budgets& b, int restarts) {
  if (b.seats <= 0 || ctx_.g.op_count() == 0) return false;
  ++stats_.rung_attempts[static_cast<int>(Rung::kBacktrack)];
  // The earlier rungs' reasons stay: this rung's failure adds its lines.
  const BacktrackResult r = backtracking_.run(p_, *this, b, restarts);
  stats_.backtrack_seats += r.seats;
  searched_all_ = r.searched_all;
  for (const std::string& line : r.failures) failure_.push_back(line);
  if (r.stuck) {
    explain_failure(*r.stuck, "backtracking tried every seat within one II of each window");
  }
  if (!r.placed) {
    give_up_ = GiveUp::kNoSeat;
    return false;
  }
  ++stats_.rung_successes[static_cast<int>(Rung::kBacktrack)];
  return true;
}

void Driver::explain_failure(OpId v, const std::string& why) {
  const Op& op = ctx_.g.ops[v];
  const Window w = p_.window(v);
  const int64_t ii = p_.ii();
  std::string line = "II " + std::to_string(ii) + ": op '" + op.name + "' (";
  for (size_t k = 0; k < op.resources.size(); ++k) {
    const Triple& tr = op.resources[k];
    if (k) line += " ";
    line += "(" + std::to_string(tr.slot) + "," + std::to_string(tr.duration) + "," +
            std::to_string(tr.occupancy) + ")";
  }
  line += ") window [" + std::to_string(w.lo) + ", " +
          (w.hi >= kUnbounded ? std::string("inf") : std::to_string(w.hi)) + "]";
  if (ctx_.group_of[v] != kNoGroup) {
    line += ", leader_gid " + std::to_string(*op.leader_gid);
    if (std::optional<int64_t> s = p_.group_stage(ctx_.group_of[v])) {
      line += " in stage " + std::to_string(*s);
    }
  }
  if (!w.empty()) {
    RrtConflict c;
    if (!p_.fits(v, w.lo, &c)) line += "; at " + std::to_string(w.lo) + ": " +
                                       c.describe(ctx_.g.target, ctx_.nodes[v], ii);
  }
  line += ": " + why;
  failure_.push_back(std::move(line));
}

}  // namespace tilesched::cost_based
