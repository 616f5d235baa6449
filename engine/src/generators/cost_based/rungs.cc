// The rung loop (see rungs.h); the arms are in arms.cc, the gates in
// gates.cc, the forced placement in forced_placement.cc.
#include "rungs.h"

#include <algorithm>

namespace tilesched::cost_based {

Driver::Driver(const Context& ctx, Placement& placement, CostBasedStats& stats)
    : ctx_(ctx),
      p_(placement),
      stats_(stats),
      gates_(ctx, placement, stats),
      arms_(ctx, placement, gates_, stats),
      forced_(ctx, placement, gates_, stats),
      backtracking_(ctx) {}

std::vector<OpId> Driver::ready_set(Rung rung) const {
  std::vector<OpId> ready;
  ready_set(rung, ready);
  return ready;
}

void Driver::ready_set(Rung rung, std::vector<OpId>& ready) const {
  ready.clear();
  ctx_.count(ctx_.g.op_count());  // one scan of the ops (their in-edges below)
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    if (p_.placed(v)) continue;
    bool ok = true;
    ctx_.count(ctx_.adj.in_begin[v + 1] - ctx_.adj.in_begin[v]);
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

void Driver::commit(const Proposal& proposal) {
  for (const Seat& s : proposal.seats) p_.place(s.op, s.t);
  placements_ += static_cast<int64_t>(proposal.seats.size());
  ++stats_.arm_wins[static_cast<int>(proposal.arm)];
}

bool Driver::force_place(OpId v) {
  const ForcedPlacement::Result r = forced_.place(v);
  if (!r.placed) {
    explain_failure(v, r.why);
    return false;
  }
  ++placements_;
  return true;
}

std::optional<Proposal> Driver::propose(Rung rung, ArmPolicy policy,
                                        const std::vector<OpId>& ready) {
  const bool cost_only = rung == Rung::kCostBasedPlacement || rung == Rung::kCostBasedAfterClear;
  std::optional<Proposal> chosen;
  auto offer = [&](std::optional<Proposal> p) {
    if (!p) return;
    ++stats_.arm_proposals[static_cast<int>(p->arm)];
    if (!chosen || p->cost < chosen->cost) chosen = std::move(p);  // ties: earlier arm
  };
  if (policy == ArmPolicy::kFirstSuccess) {
    if (!cost_only) {
      offer(arms_.try_permute(ready, /*whole_set=*/true));
      if (!chosen) offer(arms_.try_fuse(ready));
      if (!chosen) offer(arms_.try_retry(ready));
    }
    if (!chosen) offer(arms_.try_cost_based(ready));
  } else {
    if (!cost_only) {
      offer(arms_.try_permute(ready, /*whole_set=*/false));
      offer(arms_.try_fuse(ready));
      offer(arms_.try_retry(ready));
    }
    offer(arms_.try_cost_based(ready));
  }
  return chosen;
}

bool Driver::step(Rung rung, ArmPolicy policy) {
  std::vector<OpId>& ready = ready_;
  ready_set(rung, ready);
  if (ready.empty()) {
    give_up_ = GiveUp::kNoSeat;
    failure_.push_back("no op is ready although " +
                       std::to_string(ctx_.g.op_count() - p_.placed_count()) +
                       " are unplaced");
    return false;
  }
  if (const std::optional<Proposal> chosen = propose(rung, policy, ready)) {
    commit(*chosen);
    return true;
  }
  const bool evicts = rung == Rung::kRauRefinement || rung == Rung::kDeepestRetry;
  if (evicts) {
    for (OpId v : ready) {
      if (!gates_.held(v)) return force_place(v);
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
    if (ctx_.out_of_work()) {
      give_up_ = GiveUp::kNoSeat;
      failure_.push_back("the effort's work budget is spent");
      return false;
    }
    if (steps % kStepsPerDeadlinePoll == 0 && deadline_passed(ctx_.deadline)) {
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
  const BacktrackResult r = backtracking_.run(p_, gates_, b, restarts);
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
