// The placement driver: gates, arms, forced placement and the ladder's
// rungs at one II (see driver.h).
#include "driver.h"

#include <algorithm>
#include <numeric>

namespace tilesched::cost_based {

namespace {
void count(std::array<int64_t, kGateCount>& gates, Gate g) { ++gates[static_cast<int>(g)]; }

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
}  // namespace

Driver::Driver(const Context& ctx, Placement& placement, CostBasedStats& stats)
    : ctx_(ctx), p_(placement), stats_(stats), rng_(ctx.opts.seed) {}

void Driver::reseed(int64_t ii) {
  rng_ = SplitMix64(ctx_.opts.seed ^ (static_cast<uint64_t>(ii) * 0x9E3779B97F4A7C15ull));
}

bool Driver::pending(OpId v) const {
  const int group = ctx_.group_of[v];
  if (group == kNoGroup) return false;
  const OpId anchor = ctx_.group_anchor[group];
  return anchor != v && !p_.placed(anchor);
}

SeatSearch Driver::earliest_seat(OpId v) {
  if (pending(v)) {  // G1: hold over to the next attempt
    count(stats_.gate_rejects, Gate::kG1Pending);
    return {SeatOutcome::kPending, 0};
  }
  const Window w = p_.window(v);
  const int64_t ii = p_.ii();
  const Op& op = ctx_.g.ops[v];
  if (op.max_depth && w.lo > (*op.max_depth + 1) * ii - 1) {  // G2: mark dead
    count(stats_.gate_rejects, Gate::kG2MaxDepth);
    return {SeatOutcome::kDead, 0};
  }
  if (w.empty()) return {SeatOutcome::kNoCycle, 0};
  const std::optional<int64_t> stage = p_.group_stage(ctx_.group_of[v]);
  int64_t end = std::min(w.hi, w.lo + ii - 1);
  for (int64_t t = w.lo; t <= end; ++t) {
    const int64_t fit = p_.first_fit(v, t, end);  // G3: bump the seat cycle by cycle
    stats_.gate_rejects[static_cast<int>(Gate::kG3Rrt)] += (fit < 0 ? end + 1 : fit) - t;
    if (fit < 0) break;
    t = fit;
    if (stage && t / ii != *stage) {  // G4: the group's stage decides
      count(stats_.gate_rejects, Gate::kG4Group);
      if (t / ii > *stage) return {SeatOutcome::kGroupLater, t};
      t = *stage * ii - 1;
      end = std::min(w.hi, *stage * ii + ii - 1);
      continue;
    }
    return {SeatOutcome::kSeat, t};
  }
  return {SeatOutcome::kNoCycle, 0};
}

std::vector<OpId> Driver::ready_set(Rung rung) const {
  std::vector<OpId> ready;
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
  auto by = [&](const std::vector<int64_t>& key) {
    std::stable_sort(ready.begin(), ready.end(), [&](OpId a, OpId b) {
      if (key[a] != key[b]) return key[a] > key[b];
      return ctx_.topo_rank[a] < ctx_.topo_rank[b];
    });
  };
  switch (rung) {
    case Rung::kRauRefinement: by(ctx_.height); break;  // critical path first
    case Rung::kDeepestRetry: by(ctx_.depth); break;    // deepest first
    default:
      std::stable_sort(ready.begin(), ready.end(), [&](OpId a, OpId b) {
        return ctx_.topo_rank[a] < ctx_.topo_rank[b];
      });
  }
  return ready;
}

std::optional<Proposal> Driver::try_permute(const std::vector<OpId>& ready, bool whole_set) {
  std::vector<OpId> cands;
  for (OpId v : ready) {
    if (!p_.dead(v) && !pending(v)) cands.push_back(v);
  }
  if (!whole_set && cands.size() > 8) cands.resize(8);
  if (cands.empty()) return std::nullopt;
  const int k = static_cast<int>(cands.size());
  // Exhaustive (in lexicographic order from the priority order) while k!
  // stays within the budget; otherwise the priority order plus seeded samples.
  int64_t perms = 1;
  for (int i = 2; i <= k && perms <= ctx_.opts.permute_budget; ++i) perms *= i;
  const bool exhaustive = perms <= ctx_.opts.permute_budget;
  std::vector<int> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::optional<Proposal> best;
  std::vector<Seat> seats;
  // Sampling is bounded by work too: about 4 x permute_budget seatings.
  const int sampled = std::max(1, std::min(1 + ctx_.opts.permute_samples,
                                           4 * ctx_.opts.permute_budget / k));
  const int rounds = exhaustive ? static_cast<int>(perms) : sampled;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) {
      if (exhaustive) {
        std::next_permutation(order.begin(), order.end());
      } else {
        rng_.shuffle(order);
      }
    }
    seats.clear();
    CostVector total;
    bool ok = true;
    p_.begin_trial();
    for (int idx : order) {
      const OpId v = cands[idx];
      const SeatSearch s = earliest_seat(v);
      if (s.outcome == SeatOutcome::kDead) p_.mark_dead(v);  // G2 recovery
      if (s.outcome != SeatOutcome::kSeat) {
        ok = false;
        break;
      }
      total += evaluate_seat(p_, ctx_, v, s.t);
      p_.place(v, s.t);
      seats.push_back({v, s.t});
    }
    for (auto it = seats.rbegin(); it != seats.rend(); ++it) p_.unplace(it->op);
    p_.end_trial();
    if (ok && (!best || total < best->cost)) best = Proposal{Arm::kPermute, seats, total};
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
  if (p_.dist().has_path(a, b) || p_.dist().has_path(b, a)) return false;  // dependence
  if (slot_mask(x) == 0 || slot_mask(x) != slot_mask(y)) return false;      // slot group
  if (ctx_.group_of[a] != ctx_.group_of[b]) return false;                    // no nesting
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
  return true;
}

std::optional<Proposal> Driver::try_fuse(const std::vector<OpId>& ready) {
  std::vector<OpId> cands;
  for (OpId v : ready) {
    if (!p_.dead(v) && !pending(v)) cands.push_back(v);
    if (cands.size() == 16) break;
  }
  const int64_t ii = p_.ii();
  std::optional<Proposal> best;
  std::vector<std::optional<Window>> windows(cands.size());  // read on first use
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
      const std::optional<int64_t> stage = p_.group_stage(ctx_.group_of[a]);
      for (int64_t t = lo; t <= end; ++t) {
        // The composed vector ((15, 7, 2) for two smem_reads) fits exactly
        // when the second op fits after the first.
        if (!p_.fits(a, t)) continue;
        if (stage && t / ii != *stage) continue;
        CostVector cost = evaluate_seat(p_, ctx_, a, t);
        p_.begin_trial();
        p_.place(a, t);
        const bool both = p_.fits(b, t);
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
  const int64_t ii = p_.ii();
  std::optional<Proposal> best;
  for (OpId v : ready) {
    if (p_.dead(v)) continue;
    if (pending(v)) {
      count(stats_.gate_rejects, Gate::kG1Pending);
      continue;
    }
    const Window w = p_.window(v);
    const Op& op = ctx_.g.ops[v];
    if (op.max_depth && w.lo > (*op.max_depth + 1) * ii - 1) {
      count(stats_.gate_rejects, Gate::kG2MaxDepth);
      p_.mark_dead(v);
      continue;
    }
    if (w.empty()) {
      p_.mark_dead(v);
      continue;
    }
    if (try_add_constraint_to_avoid_reg_spilling(p_, ctx_, v, w.lo) > 0) {
      ++stats_.spill_surcharges;
    }
    const std::optional<int64_t> stage = p_.group_stage(ctx_.group_of[v]);
    const PipeSlotBasis basis = PipeSlotBasis::of(w);
    // Only an op without placed predecessors compares every cycle of its
    // window; index its structural distance then, count it directly otherwise.
    const std::optional<StructuralIndex> order =
        basis.has_pred ? std::nullopt : std::optional<StructuralIndex>(StructuralIndex(p_, v));
    bool any = false;
    const int64_t end = std::min(w.hi, w.lo + ii - 1);
    for (int64_t t = w.lo; t <= end; ++t) {
      const int64_t fit = p_.first_fit(v, t, end);
      stats_.gate_rejects[static_cast<int>(Gate::kG3Rrt)] += (fit < 0 ? end + 1 : fit) - t;
      if (fit < 0) break;
      t = fit;
      if (stage && t / ii != *stage) {
        count(stats_.gate_rejects, Gate::kG4Group);
        continue;
      }
      CostVector c = evaluate_seat(p_, ctx_, v, t, basis);
      if (c.feasible()) c.structural = order ? order->at(t) : structural_distance(p_, v, t);
      if (!c.feasible()) continue;
      any = true;
      if (!best || c < best->cost) best = Proposal{Arm::kCostBased, {{v, t}}, c};
      // With a placed predecessor the pipe-slot component grows with t and
      // the resource component is already 0: no later seat of v can win.
      if (basis.has_pred) break;
    }
    if (!any) p_.mark_dead(v);
  }
  return best;
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
  const Op& op = ctx_.g.ops[v];
  if (op.max_depth && t > (*op.max_depth + 1) * ii - 1) {
    explain_failure(v, "its max_depth " + std::to_string(*op.max_depth) +
                           " cannot hold after its placed predecessors");
    return false;
  }
  if (std::optional<int64_t> bound = p_.max_stage(v); bound && t > (*bound + 1) * ii - 1) {
    // A builder's stage bound: seat v in its last allowed stage and evict
    // the placed predecessors that push it later (Rau, backwards).
    t = std::max(p_.asap(v), *bound * ii);
  }
  const std::optional<int64_t> stage = p_.group_stage(ctx_.group_of[v]);
  for (int64_t c = t; c <= std::min(w.hi, t + ii - 1); ++c) {  // a free row first
    if (p_.fits(v, c) && (!stage || c / ii == *stage)) {
      t = c;
      break;
    }
  }
  for (OpId u : p_.conflicts(v, t)) {
    if (ctx_.group_of[u] != kNoGroup && ctx_.group_of[u] == ctx_.group_of[v]) {
      ++stats_.group_reorders;  // G4 recovery: the group moves with v
    }
    p_.unplace(u);
    ++stats_.evictions;
  }
  while (!p_.fits(v, t)) {  // pooled slots and rate pools: evict sharers
    std::optional<OpId> victim;
    for (OpId u : p_.placed_ops()) {
      if (shares_counted_resource(ctx_, u, v) && (!victim || u < *victim)) victim = u;
    }
    if (!victim) {
      RrtConflict why;
      p_.fits(v, t, &why);
      explain_failure(v, "does not fit alone: " + why.describe(ctx_.g.target, ctx_.nodes[v], ii));
      return false;
    }
    p_.unplace(*victim);
    ++stats_.evictions;
  }
  p_.place(v, t);
  p_.mark_live(v);
  p_.set_last_forced_start(v, t);
  ++placements_;
  return true;
}

bool Driver::step(Rung rung) {
  const std::vector<OpId> ready = ready_set(rung);
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
  if (ctx_.opts.arm_policy == ArmPolicy::kFirstSuccess) {
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
      if (!pending(v)) return force_place(v);
    }
  }
  give_up_ = GiveUp::kNoSeat;
  explain_failure(ready.front(), "every arm rejected it");
  return false;
}

bool Driver::run(Rung rung) {
  ++stats_.rung_attempts[static_cast<int>(rung)];
  failure_.clear();
  placements_ = 0;
  budget_ = static_cast<int64_t>(ctx_.opts.eviction_budget_ratio) * ctx_.g.op_count();
  while (p_.placed_count() < ctx_.g.op_count()) {
    if (!step(rung)) return false;
    if (placements_ > budget_) {
      give_up_ = GiveUp::kNoSeat;
      failure_.push_back("placement budget of " + std::to_string(budget_) + " seats spent");
      return false;
    }
  }
  ++stats_.rung_successes[static_cast<int>(rung)];
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
