// The strategy at one II (see strategy.h): the rung loop, the serial
// fallback, the ladder and the refinement loop; the constraint builder is
// builder.cc's.
#include "strategy.h"

#include <algorithm>
#include <string>

#include "graph/storage.h"
#include "util/test_seams.h"

namespace tilesched::cost_based {

// The rung loop (Driver); the arms, the gates and the forced placement
// are seating.cc's.

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
  ctx_.count(ctx_.g.op_count(), "driver.ready");  // one scan of the ops (their in-edges below)
  test_seams::count_trips("driver.ready", ctx_.g.op_count());
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    if (p_.placed(v)) continue;
    bool ok = true;
    ctx_.count(ctx_.adj.in_begin[v + 1] - ctx_.adj.in_begin[v], "driver.ready");
    test_seams::count_trips("driver.ready", ctx_.adj.in_begin[v + 1] - ctx_.adj.in_begin[v]);
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

// The serial fallback.

bool SerialFallback::seat(Placement& p, CostBasedStats& stats) const {
  if (!serves(p.ii())) return false;
  ++stats.rung_attempts[static_cast<int>(Rung::kSerialFallback)];
  if (!p.seat_all(serial_.start)) return false;
  ++stats.rung_successes[static_cast<int>(Rung::kSerialFallback)];
  return true;
}

std::optional<Schedule> SerialFallback::within(const IiRange& range) const {
  if (!serves(range.cap) || serial_.ii < range.lower) return std::nullopt;
  Schedule s = serial_;
  flag(s);
  return s;
}

bool SerialFallback::holds(const Schedule& s) {
  return std::find(s.flags.begin(), s.flags.end(), kFlag) != s.flags.end();
}

// The strategy ladder.

Ladder::Ladder(Placement& placement, Driver& driver, CostBasedStats& stats,
               const Schedule& serial, Notes& notes)
    : placement_(placement),
      driver_(driver),
      stats_(stats),
      serial_(serial),
      notes_(notes),
      policy_(driver.ctx().opts.arm_policy) {}

std::optional<Rung> Ladder::run() {
  const CostBasedOptions& opts = driver_.ctx().opts;
  if (seed_rungs(policy_)) return winner_;
  // The policy fallback: best-cost's rungs failed; first-success's run too,
  // so best-cost never gives up an II first-success would place.
  if (policy_ == ArmPolicy::kBestCost && opts.policy_fallback &&
      seed_rungs(ArmPolicy::kFirstSuccess)) {
    return winner_;
  }
  // The backtracking rung runs once the up-front families (density,
  // grouping) are lifted, so an II that cannot be met pays for it once, not
  // once per batch the refinement loop lifts.
  if (!upfront_in_force() && !driver_.ctx().out_of_work()) {
    placement_.clear_seats();
    if (driver_.backtrack()) return winner_ = Rung::kBacktrack;
  }
  if (serial_rung()) return winner_;
  for (const std::string& f : driver_.failure()) notes_.add(f);
  return std::nullopt;
}

bool Ladder::seed_rungs(ArmPolicy policy) {
  static constexpr Rung kFirst[] = {Rung::kRauRefinement, Rung::kDeepestRetry,
                                    Rung::kInitialPlacement, Rung::kCostBasedPlacement};
  static constexpr Rung kAfterClear[] = {Rung::kInitialAfterClear, Rung::kCostBasedAfterClear};
  for (Rung r : kFirst) {
    if (deadline_passed(driver_.ctx().deadline) || driver_.ctx().out_of_work()) return false;
    placement_.clear_seats();
    if (driver_.run(r, policy)) return (winner_ = r), true;
  }
  placement_.clear_intermediate();  // dead marks and surcharges; builder constraints stay
  for (Rung r : kAfterClear) {
    if (deadline_passed(driver_.ctx().deadline) || driver_.ctx().out_of_work()) return false;
    placement_.clear_seats();
    if (driver_.run(r, policy)) return (winner_ = r), true;
  }
  return false;
}

bool Ladder::storage_search() {
  placement_.constraints().clear();
  placement_.clear_seats();
  if (!driver_.backtrack()) return false;
  winner_ = Rung::kBacktrack;
  return true;
}

bool Ladder::upfront_in_force() const {
  for (const BuilderConstraint& c : placement_.constraints()) {
    if (c.family == ConstraintFamily::kDensity || c.family == ConstraintFamily::kGrouping) {
      return true;
    }
  }
  return false;
}

bool Ladder::rerun_winner() {
  if (!winner_ || *winner_ == Rung::kSerialFallback) return false;
  placement_.clear_seats();
  if (*winner_ == Rung::kBacktrack) return driver_.backtrack();
  return driver_.run(*winner_, policy_);
}

bool Ladder::serial_rung() {
  if (!serial_.seat(placement_, stats_)) return false;
  winner_ = Rung::kSerialFallback;
  return true;
}

// The constraint refinement loop.

Refinement::Refinement(const Context& ctx, Placement& placement, Driver& driver, Ladder& ladder,
                       Builder& builder, CostBasedStats& stats, Notes& notes)
    : ctx_(ctx),
      placement_(placement),
      driver_(driver),
      ladder_(ladder),
      builder_(builder),
      stats_(stats),
      notes_(notes) {}

bool Refinement::attempt(int64_t ii) {
  if (!start(ii)) return false;
  State st;
  for (int iter = 0; iter < ctx_.opts.max_constraint_iterations; ++iter) {
    if (deadline_passed(ctx_.deadline)) return false;
    // The effort's budget is spent: the best placement so far stands.
    if (ctx_.out_of_work()) return st.legal && keep_legal(st) == Next::kSucceeded;
    ++stats_.refinement_iterations;
    st.seated_is_legal = false;
    bool placed = false;
    if (st.soft) {
      placed = ladder_.rerun_winner();
    } else if (const std::optional<Rung> winner = ladder_.run()) {
      placed = true;
      if (*winner == Rung::kSerialFallback) serial_fallback_ = true;
    }
    ladder_placed_ = ladder_placed_ || placed;
    const Next next = placed ? after_placement(st, ii) : after_failed_ladder(st);
    if (next != Next::kIterate) return next == Next::kSucceeded;
  }
  return out_of_iterations(st, ii);
}

bool Refinement::descend(int64_t ii, int budget_ratio) {
  const uint8_t found_status = status_;  // the published placement's
  if (!start(ii)) {
    status_ = found_status;
    return false;
  }
  placement_.constraints().clear();
  // The short and the long runs get the descent's budget; amid the short
  // runs a run in the priority order
  // with the rung's budget, which ends the try where the search's rung
  // tried every seat at this II, before the descent's share of shuffles.
  Backtracking::Budgets b;
  b.probe = driver_.backtrack_budget(budget_ratio, Driver::kDescentWork);
  b.seats = b.probe;
  const int64_t rung =
      driver_.backtrack_budget(ctx_.opts.backtrack_budget_ratio, Driver::kRungWork);
  b.proof = rung > 0 ? std::min(rung, b.seats) : b.seats;
  if (!driver_.backtrack(b, Driver::kRestarts)) {
    if (!driver_.failure().empty()) notes_.add(driver_.failure().back());  // the rung's own line
    status_ = found_status;
    return false;
  }
  status_ = kConverged;
  return true;
}

// A fresh table and closure at `ii`, the intermediate state and the builder
// constraints of the last II gone, the builder's up-front families in.
bool Refinement::start(int64_t ii) {
  ++stats_.ii_tried;
  if (!placement_.reset(ii)) {
    ++stats_.give_ups[static_cast<int>(GiveUp::kPositiveCycle)];
    notes_.add("II " + std::to_string(ii) + ": a dependence cycle needs a larger II");
    return false;
  }
  placement_.clear_intermediate();
  placement_.constraints().clear();
  driver_.reseed(ii);
  serial_fallback_ = false;
  ladder_placed_ = false;
  status_ = 0;
  builder_.start();
  return true;
}

Refinement::Next Refinement::after_placement(State& st, int64_t ii) {
  const std::vector<int64_t> start = placement_.starts();
  if (ctx_.max_storage > 0 &&
      storage_bytes_needed(ctx_.g, ctx_.adj, start, ii, ctx_.max_storage) > ctx_.max_storage) {
    return after_storage_miss(st, start, ii);
  }
  return pursue_register_goal(st, start);
}

// Rule L4 fails: a depth constraint, or the legal placement kept, or the
// serial seats, or the II is given up.
Refinement::Next Refinement::after_storage_miss(State& st, const std::vector<int64_t>& start,
                                                int64_t ii) {
  std::optional<BuilderConstraint> limit = builder_.tighten_for_storage(start);
  if (!limit) {
    if (st.legal) return keep_legal(st);
    // The depth family has nothing left to try: search for a placement
    // that meets L4 itself, with every builder constraint lifted.
    if (ladder_.storage_search()) return after_placement(st, ii);
    if (storage_fallback(ii)) return Next::kSucceeded;
    ++stats_.give_ups[static_cast<int>(GiveUp::kStorage)];
    notes_.add("II " + std::to_string(ii) + ": the SMEM budget (L4) does not hold and no "
               "consumer can move closer to its buffer");
    return Next::kFailed;
  }
  builder_.add_batch({std::move(*limit)});
  st.last = GiveUp::kStorage;
  st.soft = false;
  return Next::kIterate;
}

// Keep the legal placement with the fewest live registers at peak; a
// tighter span that did not lower the peak ends the soft search.
Refinement::Next Refinement::pursue_register_goal(State& st, const std::vector<int64_t>& start) {
  const Builder::Pressure pressure = builder_.register_peak(start);
  if (st.soft && st.legal && pressure.peak >= st.legal_peak) return keep_legal(st);
  if (!st.legal || pressure.peak < st.legal_peak) {
    st.legal = start;
    st.legal_peak = pressure.peak;
    st.legal_by_fallback = serial_fallback_;
    st.seated_is_legal = true;
  }
  std::optional<BuilderConstraint> regs = builder_.tighten_for_registers(start, pressure);
  if (!regs) return keep_legal(st);
  builder_.add_batch({std::move(*regs)});
  st.soft = true;
  return Next::kIterate;
}

Refinement::Next Refinement::after_failed_ladder(State& st) {
  if (st.legal) {  // the last soft constraint cost the placement: keep the one before
    builder_.lift_batch("no placement with it; the previous placement stands");
    return keep_legal(st);
  }
  if (placement_.constraints().empty()) {
    ++stats_.give_ups[static_cast<int>(driver_.give_up())];
    return Next::kFailed;
  }
  st.last = driver_.give_up();
  builder_.lift_batch("no placement with it");
  return Next::kIterate;
}

bool Refinement::out_of_iterations(const State& st, int64_t ii) {
  status_ = kBudgetExceeded;
  truncated_ = true;
  notes_.add("II " + std::to_string(ii) + ": constraint refinement stopped after " +
             std::to_string(ctx_.opts.max_constraint_iterations) + " iterations");
  if (st.legal) return keep_legal(st) == Next::kSucceeded;
  if (st.last == GiveUp::kStorage && ladder_.storage_search()) return true;  // meets L4
  if (storage_fallback(ii)) return true;
  ++stats_.give_ups[static_cast<int>(st.last)];
  return false;
}

Refinement::Next Refinement::keep_legal(const State& st) {
  const bool ok = st.seated_is_legal || placement_.seat_all(*st.legal);
  serial_fallback_ = st.legal_by_fallback;
  if (status_ == 0) status_ = kConverged;
  return ok ? Next::kSucceeded : Next::kFailed;
}

// The ladder's last rung, for L4: every op was placed but the SMEM budget
// fails and refinement has nothing left to try. At II >= the serial II the
// serial seats meet L4 (the serial schedule is legal, and its buffer counts
// do not grow with II), so the result stays no worse than serial. Without
// this, the serial rung was only reached when no rung could place at all,
// and cost-based came back infeasible on graphs whose serial schedule is
// legal (found by fuzz_differential;
// fuzz/regressions/fuzz_differential/l4-fails-serial-fallback-skipped).
bool Refinement::storage_fallback(int64_t ii) {
  if (!ladder_.serial_rung()) return false;
  serial_fallback_ = true;
  if (status_ == 0) status_ = kConverged;
  notes_.add("II " + std::to_string(ii) + ": the SMEM budget (L4) does not hold for the "
             "ladder's placement; the serial seats do");
  return true;
}

}  // namespace tilesched::cost_based
