// TileASGenerateSchedule's cost-based path, as a table of contents: in
// the heuristics' frame (../frame.h: rule L7, the range, the search, the
// published schedule), the IMS start, one refinement loop per II around
// the strategy ladder and the constraint builder (strategy.h), the serial
// fallback (SerialFallback, strategy.h), the effort's stand-in, and the
// steps after the search (kAfterSearch: the bisection, the descent below
// the found II, stage compaction). docs/COST_BASED.md maps each seed phase
// to its function and the files to what they hold.
#include <algorithm>
#include <chrono>
#include <memory>

#include "bounds/distance.h"
#include "graph/storage.h"
#include "generators/frame.h"
#include "tilesched/cost_based.h"
#include "tilesched/ims.h"
#include "context.h"
#include "packing.h"
#include "placement.h"
#include "strategy.h"
#include "util/test_seams.h"

namespace tilesched {

namespace cost_based {
namespace {

class Generator : public GeneratorFrame {
 public:
  // The frame's serial schedule gives the II cap, the last rung's seats and
  // the MII (generate_serial reports it), so the bounds are computed once.
  Generator(const Graph& g, const CostBasedOptions& opts, const IiSearchOptions& search,
            const Schedule* start)
      : GeneratorFrame(g, search,
                       {.name = "cost-based", .walk = opts.ii_search, .serial_fallback = false}),
        ctx_(g, opts, serial_.mii),
        budgets_(effort_budgets(opts.effort, g)),
        screen_(ctx_.g, ctx_.adj, opts.all_pairs_closure ? &closure_ : nullptr, "closure.search"),
        placement_(make_placement(ctx_, opts.all_pairs_closure ? &closure_ : nullptr)),
        driver_(ctx_, *placement_, stats_),
        builder_(ctx_, *placement_, stats_, notes_),
        ladder_(*placement_, driver_, stats_, serial_, notes_),
        refinement_(ctx_, *placement_, driver_, ladder_, builder_, stats_, notes_) {
    ctx_.work = &meter_;
    ctx_.deadline = search.deadline;
    // The run's fixed cost: the frame's serial pass and MII bounds, the
    // context's tables (per op and edge), and a constant for the rest.
    const int64_t size = g.op_count() + static_cast<int64_t>(g.edges.size());
    meter_.add_to(WorkMeter::kGraph, kSetupUnits + kSetupPerElement * size);
    test_seams::count_units("setup", kSetupUnits + kSetupPerElement * size);
    if (start != nullptr && start->feasible) {
      given_start_ = start;
      work_before_ = start->stat("work.total");
      start_work_before_ = start->stat("work.start");
    }
  }

  const CostBasedStats& stats() const { return stats_; }
  uint8_t refinement_status() const { return refinement_.status(); }

 private:
  int64_t group_span() override { return ctx_.group_span_bound; }
  IiScreen& screen() override { return screen_; }
  // The II screen's work since the last charge (IiScreen::take_units: its
  // closure cells and sweep steps).
  void charge_screen() { ctx_.count(screen_.take_units(), "closure.search"); }
  // The starting schedule (opts.ims_start), then the walk's budget. The
  // start is deferred past the first attempt where a slot is saturated at
  // the lower bound (start_deferred_).
  void begin(const IiRange& range) override;
  // IMS's search as the start (run_ims), which bounds the walk.
  void start_ims();
  // The upward walk under the effort's budgets; kStop once the walk's is spent.
  IiVerdict attempt(int64_t ii) override;
  // The found II's seats (the walk's, IMS's stand-in's or the serial ones),
  // then the steps after the search (kAfterSearch) on them.
  void after_search(const IiRange& range, IiSearchResult& r) override;
  const std::vector<int64_t>& starts() override { return seats_; }
  std::vector<std::pair<std::string, std::string>> options() const override {
    return {{"arm_policy", std::string(arm_policy_name(ctx_.opts.arm_policy))},
            {"ii_search", std::string(ii_search_name(ctx_.opts.ii_search))},
            {"effort", std::string(effort_name(ctx_.opts.effort))}};
  }
  // The flags (the ladder's serial fallback, a truncated refinement, the
  // effort's stand-in), the notes and the statistics.
  void finish(Schedule& s, const IiRange& range, const IiSearchResult& r) override;

  // The walk found no II: the fallbacks, in order, each where the ones
  // before do not apply: the generator's own placement at the start's II
  // (place_at_start), the start's seats (keep_start), and where the walk's
  // budget ran out IMS's schedule or else the serial seats
  // (after_spent_walk, through run_ims and SerialFallback::within). False
  // when none applies.
  bool fall_back(const IiRange& range, IiSearchResult& r) {
    return place_at_start(r) || keep_start(r) || after_spent_walk(range, r);
  }
  // The steps after the search, declared once, in the order they run
  // (kAfterSearch, below the class): each that applies takes the II found
  // so far and returns the one it leaves, and all of them draw on the one
  // budget after_search opens for them (the descent phase's, descent_limit).
  struct AfterSearchStep {
    bool (*applies)(const Generator& gen);
    int64_t (Generator::*run)(const IiRange& range, int64_t found);
  };
  static const AfterSearchStep kAfterSearch[];
  // The descent runs (CostBasedOptions::descent_budget_ratio), and with it
  // the after-search budget.
  bool descends() const { return ctx_.opts.descent_budget_ratio > 0; }
  // The after-search budget: below a start, the bound (bound_below) again,
  // as the walk had.
  int64_t descent_limit() const {
    return below_ > 0 && budgets_.descent > 0 ? std::min(below_, budgets_.descent)
                                              : budgets_.descent;
  }
  // Below the found II, the driver's descent (descend_ii) with
  // attempt_below as its attempt, down to the range's lower bound (below a
  // bounded start, not again through IIs the bisection failed at); the
  // lowest II it places, or `found`.
  int64_t descend(const IiRange& range, int64_t found);
  // One attempt below the found II: under the bound below a start the
  // generator's whole attempt (place_at), else the backtracking rung alone;
  // where it places, its seats are copied out.
  bool attempt_below(int64_t ii);
  // Before the descent: between the walk's highest failed II (or the
  // range's floor) and the least placed (`found`), the middle, lower when
  // it places, higher when not; at most kBisectProbes probes, under the
  // descent's budget. Placement is not monotone in the II, so this reaches
  // IIs the walk up and the descent down both stop short of. Returns the
  // least placed.
  int64_t bisect(const IiRange& range, int64_t found);
  // Stage compaction (CostBasedOptions::compact_stages) of seats_ at `ii`;
  // returns `ii`.
  int64_t compact(const IiRange& range, int64_t ii);
  static constexpr int kBisectProbes = 6;
  // The policy fallback for a whole attempt (docs/COST_BASED.md).
  bool first_success_attempt(int64_t ii);
  // The walk's budget ran out before an II placed: IMS's search over the
  // same range stands in (its own bounds), so the run ends with a
  // schedule no worse than IMS's; where IMS finds none, the serial seats
  // (when legal and in `range`). False when neither is.
  bool after_spent_walk(const IiRange& range, IiSearchResult& r);
  // IMS's search over the range (the frame's options), its work counted
  // to the start phase; the serial seats where IMS finds none (when legal
  // and in `range`), flagged serial_fallback.
  Schedule run_ims(const IiRange& range);
  // The walk placed nothing below the starting schedule's II: its seats
  // are published at its II. False when there is none.
  bool keep_start(IiSearchResult& r);
  // One attempt of the generator's own at `ii` (the packing-first rung
  // where a slot is saturated, then the refinement loop over the ladder,
  // best-cost's fallback), under a fresh attempt budget.
  bool place_at(int64_t ii);
  static constexpr int64_t kLadderShare = 4;
  static constexpr int64_t kBelowShare = 2;
  static constexpr int64_t kSetupUnits = 1'024, kSetupPerElement = 16;
  // Nothing below the start placed: the generator's own placement at the
  // start's II, preferred to the start's seats (its costs ranked the
  // seats); false where it does not place there or the walk's budget is
  // spent.
  bool place_at_start(IiSearchResult& r);

  Context ctx_;
  EffortBudgets budgets_;
  WorkMeter meter_;
  std::optional<int64_t> fallback_from_;  // the II the walk's budget ran out at
  // The schedule the walk must beat (opts.ims_start): the caller's, or IMS's.
  const Schedule* given_start_ = nullptr;
  std::optional<Schedule> ims_;
  const Schedule* start_ = nullptr;
  bool start_deferred_ = false;
  IiRange range_;
  // The bound on the search below the start (EffortBudgets::below_factor),
  // set once the start is known from its work; 0: none.
  void bound_below(int64_t start_work);
  int64_t below_ = 0;
  int64_t bisect_failed_ = 0;  // the bisection's highest failed II (or its floor)
  int64_t walk_limit() const { return below_ > 0 ? below_ : budgets_.walk; }
  int64_t start_work_before_ = 0;  // a given start's work.start
  int64_t work_before_ = 0;  // an earlier effort level's work.total
  int failed_attempts_ = 0;
  int64_t walk_failed_top_ = 0;  // the walk's highest failed II
  bool last_attempt_serial_ = false;  // the walk's last placement took the serial seats
  int max_failed_attempts() const {
    return ctx_.opts.max_failed_attempts > 0 ? ctx_.opts.max_failed_attempts
                                             : budgets_.failed_attempts;
  }
  // Under a budget: the walk's latest placement, its II and whether its
  // seats are the serial ones.
  struct Placed {
    int64_t ii = 0;
    std::vector<int64_t> seats;
    bool serial = false;
  };
  std::optional<Placed> last_placed_;
  // The seats published, and whether they are the serial ones.
  std::vector<int64_t> seats_;
  bool serial_fallback_ = false;
  // With the seeds' closure (cost-based-seed): built by the screen at each
  // II, read by the placement. Otherwise unused: the screen closes only the
  // components it tests, the placement keeps its windows along the edges.
  DistanceMatrix closure_;
  IiScreen screen_;
  // The seeds' all-pairs closure (`closure`, shared with the II screen),
  // or the windows kept along the edges (nullptr).
  static std::unique_ptr<Placement> make_placement(const Context& ctx, DistanceMatrix* closure) {
    return closure != nullptr ? std::make_unique<Placement>(ctx, closure)
                              : std::make_unique<Placement>(ctx, AlongEdges{});
  }

  std::unique_ptr<Placement> placement_;
  CostBasedStats stats_;
  Notes notes_;
  Driver driver_;
  Builder builder_;
  Ladder ladder_;
  Refinement refinement_;
};

void Generator::begin(const IiRange& range) {
  range_ = range;
  if (ctx_.opts.ims_start) {
    if (given_start_ != nullptr) {
      start_ = given_start_;
      stats_.start_ii = start_->ii;
      bound_below(start_work_before_);
    } else if (ctx_.opts.backtrack_budget_ratio > 0 && packing_plan(ctx_, range.lower)) {
      // A slot saturated at the lower bound: IMS, seating one op at a
      // time, rarely packs it, and the packing-first attempt often does;
      // where it places, the II is the lower bound and IMS is not needed.
      start_deferred_ = true;
    } else {
      start_ims();
    }
  }
  meter_.start_phase(WorkMeter::kSearch, below_ > 0 ? below_ : budgets_.walk);
}

void Generator::start_ims() {
  start_deferred_ = false;
  ims_ = run_ims(range_);
  if (ims_->feasible) {
    start_ = &*ims_;
    stats_.start_ii = start_->ii;
    bound_below(meter_.spent(WorkMeter::kStart));
    // The walk so far (the deferred first attempt) counts to it.
    if (below_ > 0) meter_.start_phase(WorkMeter::kSearch, below_);
  }
}

void Generator::bound_below(int64_t start_work) {
  if (budgets_.below_factor <= 0) return;
  below_ = std::max(ctx_.opts.below_floor ? budgets_.below_floor : 1,
                    budgets_.below_factor * start_work);
  if (budgets_.walk > 0) below_ = std::min(below_, budgets_.walk);
}

Schedule Generator::run_ims(const IiRange& range) {
  Schedule ims = generate_ims(ctx_.g, ImsOptions{}, search_);
  // IMS's own count (its stat `work`: the table rows its probes read, its
  // height passes, its steps); each II tried also sets up its table over
  // the graph.
  const int64_t size = ctx_.g.op_count() + static_cast<int64_t>(ctx_.g.edges.size());
  meter_.add_to(WorkMeter::kStart, ims.stat("work") + ims.stat("ii_tried") * size);
  test_seams::count_units("ims.start", ims.stat("work") + ims.stat("ii_tried") * size);
  // Where IMS finds none (and the deadline did not cut it short), the
  // serial seats at the serial II (SerialFallback::within).
  if (!ims.feasible && !deadline_passed(search_.deadline)) {
    if (std::optional<Schedule> serial = ladder_.serial().within(range)) ims = std::move(*serial);
  }
  return ims;
}

const Generator::AfterSearchStep Generator::kAfterSearch[] = {
    // The bisection between the walk's highest failure and the least
    // placed (placement is not monotone in the II), below a start only.
    {[](const Generator& gen) { return gen.descends() && gen.start_ != nullptr; },
     &Generator::bisect},
    // The descent, down from there.
    {[](const Generator& gen) { return gen.descends(); }, &Generator::descend},
    // Stage compaction of the seats at the II left, unless they are the
    // serial ones.
    {[](const Generator& gen) { return gen.ctx_.opts.compact_stages && !gen.serial_fallback_; },
     &Generator::compact},
};

void Generator::after_search(const IiRange& range, IiSearchResult& r) {
  charge_screen();
  stats_.ii_screened = screen_.rejected();
  serial_fallback_ = last_attempt_serial_;
  if (r.end == IiSearchEnd::kFound && last_placed_ && last_placed_->ii == r.ii) {
    seats_ = last_placed_->seats;
    serial_fallback_ = last_placed_->serial;
  } else if (r.end == IiSearchEnd::kFound) {
    seats_ = placement_->starts();
  }
  const bool found = r.end == IiSearchEnd::kFound || fall_back(range, r);
  if (found) {
    // One budget for every step after the search (without a descent, none
    // is opened: the compaction's work stays the walk's).
    if (descends()) meter_.start_phase(WorkMeter::kDescent, descent_limit());
    for (const AfterSearchStep& step : kAfterSearch) {
      if (step.applies(*this)) r.ii = (this->*step.run)(range, r.ii);
    }
    charge_screen();  // the bisection's and the descent's checks
  }
  stats_.work_start = meter_.spent(WorkMeter::kStart);
  stats_.work_graph = meter_.spent(WorkMeter::kGraph);
  stats_.work_search = meter_.spent(WorkMeter::kSearch);
  stats_.work_descent = meter_.spent(WorkMeter::kDescent);
  stats_.work_total = work_before_ + meter_.total();
}

IiVerdict Generator::attempt(int64_t ii) {
  charge_screen();  // its check of this II, and of any it rejected before
  // Under a budget, the galloping walks' replay of the found II takes the
  // seats it placed (a replay under a spent budget would fail).
  if (budgets_.walk > 0 && last_placed_ && last_placed_->ii == ii) return IiVerdict::kPlaced;
  if (start_deferred_) {
    // The attempt at the lower bound before the start (begin): where it
    // places, the II is optimal; otherwise (or where the screen skipped
    // the lower bound) IMS's schedule is computed and bounds the walk.
    const bool at_lower = ii == range_.lower;
    if (at_lower) {
      if (place_at(ii)) return IiVerdict::kPlaced;
      ++failed_attempts_;
      walk_failed_top_ = std::max(walk_failed_top_, ii);
      if (meter_.attempt_out()) ++stats_.attempts_out_of_work;
    }
    start_ims();
    if (at_lower) return meter_.phase_out() ? IiVerdict::kStop : IiVerdict::kNotPlaced;
  }
  // Below the starting schedule only, and a bounded number of failures.
  if (start_ != nullptr &&
      (ii >= start_->ii || failed_attempts_ >= max_failed_attempts())) {
    return IiVerdict::kStop;
  }
  if (meter_.phase_out()) return IiVerdict::kStop;
  if (place_at(ii)) return IiVerdict::kPlaced;
  ++failed_attempts_;
  walk_failed_top_ = std::max(walk_failed_top_, ii);
  if (meter_.attempt_out()) ++stats_.attempts_out_of_work;
  if (!meter_.phase_out()) return IiVerdict::kNotPlaced;
  fallback_from_ = ii;
  return IiVerdict::kStop;
}

bool Generator::place_at(int64_t ii) {
  // Packing in the placement: where one slot is saturated, the seeds'
  // ladder under a quarter of the attempt's budget (where it places, its
  // cost vector's seats), then the backtracking rung, which packs the
  // slot's holders first (packing.h), under a fresh one.
  const bool packs = ctx_.opts.backtrack_budget_ratio > 0 && packing_plan(ctx_, ii);
  // Below a start an attempt takes at most a share of the bound
  // (bound_below), so that a failing one leaves room for the rest.
  const int64_t attempt = below_ > 0 && budgets_.attempt > 0
                              ? std::min(budgets_.attempt, below_ / kBelowShare)
                              : budgets_.attempt;
  meter_.start_attempt(packs ? attempt / kLadderShare : attempt);
  bool serial = false;
  if (refinement_.attempt(ii) || first_success_attempt(ii)) {
    serial = refinement_.serial_fallback();
  } else if (packs) {
    meter_.start_attempt(attempt);
    if (!refinement_.descend(ii, ctx_.opts.backtrack_budget_ratio)) return false;
    ++stats_.packed_first;
  } else {
    return false;
  }
  last_attempt_serial_ = serial;
  if (budgets_.walk > 0) last_placed_ = Placed{ii, placement_->starts(), serial};
  return true;
}

bool Generator::place_at_start(IiSearchResult& r) {
  // At the lower bound the start is optimal: nothing to gain in II, and
  // the deferred start's first attempt already failed there.
  if (start_ == nullptr || start_->ii <= range_.lower || below_ > 0 || meter_.phase_out() ||
      deadline_passed(ctx_.deadline)) {
    return false;
  }
  if (!place_at(start_->ii)) return false;
  r.end = IiSearchEnd::kFound;
  r.ii = start_->ii;
  seats_ = placement_->starts();
  serial_fallback_ = last_attempt_serial_;
  return true;
}

bool Generator::keep_start(IiSearchResult& r) {
  if (start_ == nullptr) return false;
  stats_.start_kept = 1;
  if (fallback_from_) stats_.walk_out_of_work = 1;
  const std::string whose = given_start_ != nullptr ? "a cheaper effort level's" : "IMS's";
  if (start_->ii <= range_.lower) {
    notes_.add("the starting schedule (" + whose + ", II " + std::to_string(start_->ii) +
               ") is at the lower bound: it is kept");
  } else {
    notes_.add("no II below the starting schedule's (" + whose + ", II " +
               std::to_string(start_->ii) + ") placed" +
               (fallback_from_ ? ": the effort's budget for the II walk (" +
                                     std::to_string(walk_limit()) + " work units) is spent"
                               : std::string()) +
               "; its schedule is kept");
  }
  r.end = IiSearchEnd::kFound;
  r.ii = start_->ii;
  seats_ = start_->start;
  serial_fallback_ = SerialFallback::holds(*start_);
  return true;
}

bool Generator::after_spent_walk(const IiRange& range, IiSearchResult& r) {
  if (r.end != IiSearchEnd::kStopped || !fallback_from_) return false;
  stats_.walk_out_of_work = 1;
  Schedule ims = run_ims(range);
  const bool serial = SerialFallback::holds(ims);
  notes_.add("II " + std::to_string(*fallback_from_) + ": the effort's budget for the II walk (" +
             std::to_string(walk_limit()) + " work units) is spent; " +
             (!ims.feasible ? std::string("IMS found no schedule either")
              : serial      ? "IMS found none; the serial seats at II " + std::to_string(ims.ii)
                            : "IMS's schedule at II " + std::to_string(ims.ii) + " stands in"));
  if (!ims.feasible) return false;
  r.end = IiSearchEnd::kFound;
  r.ii = ims.ii;
  seats_ = ims.start;
  serial_fallback_ = serial;
  return true;
}

// Best-cost's ladder placed every op at `ii`, but the refinement loop found
// no placement that meets the builder constraints and rule L4 (best-cost's
// seats spread over more stages): first-success's whole attempt at the same
// II, so that best-cost never gives up an II that first-success places.
// Where the ladder itself failed, it already ran first-success's rungs.
bool Generator::first_success_attempt(int64_t ii) {
  if (ladder_.policy() != ArmPolicy::kBestCost || !ctx_.opts.policy_fallback ||
      !refinement_.ladder_placed()) {
    return false;
  }
  ladder_.set_policy(ArmPolicy::kFirstSuccess);
  const bool placed = refinement_.attempt(ii);
  ladder_.set_policy(ArmPolicy::kBestCost);
  return placed;
}

int64_t Generator::compact(const IiRange&, int64_t ii) {
  // Each op in topological order of the distance-0 edges (so each sees
  // its predecessors' new seats) to the earliest seat at or before its own
  // that its in-edges and the table allow: moving an op earlier keeps its
  // out-edges, stage bounds and every other op's window, so its in-edges
  // are all it has to meet (no window upkeep). Leader groups' members stay
  // (their shared stage is the gates' to keep).
  const Graph& g = ctx_.g;
  ModuloRrt rrt(g.target);
  rrt.reset(ii);
  for (OpId v = 0; v < g.op_count(); ++v) rrt.commit(ctx_.nodes[v], seats_[v]);
  std::vector<OpId> order(g.op_count());
  for (OpId v = 0; v < g.op_count(); ++v) order[v] = v;
  std::sort(order.begin(), order.end(),
            [&](OpId a, OpId b) { return ctx_.topo_rank[a] < ctx_.topo_rank[b]; });
  std::vector<int64_t> s = seats_;
  int64_t work = g.op_count();
  for (OpId v : order) {
    if (ctx_.group_of[v] != kNoGroup) continue;
    const int64_t t = s[v];
    int64_t lo = 0;
    for (int p = ctx_.adj.in_begin[v]; p < ctx_.adj.in_begin[v + 1]; ++p) {
      const Edge& e = g.edges[ctx_.adj.in_edges[p]];
      if (e.from != v) lo = std::max(lo, s[e.from] + e.latency - e.distance * ii);
    }
    work += 1 + (ctx_.adj.in_begin[v + 1] - ctx_.adj.in_begin[v]);
    if (lo >= t) continue;
    rrt.release(ctx_.nodes[v], t);
    int64_t seat = rrt.first_fit(ctx_.nodes[v], lo, t);
    if (seat < 0 || seat > t) seat = t;
    rrt.commit(ctx_.nodes[v], seat);
    s[v] = seat;
    work += t - seat;
  }
  ctx_.count(work, "compact.ops");
  test_seams::count_trips("compact.ops", work);
  if (s == seats_) return ii;
  // Rule L4 with the moved seats (a buffer's copies follow its lifetime).
  if (ctx_.max_storage > 0 && storage_bytes_needed(ctx_.g, ctx_.adj, s, ii, ctx_.max_storage) >
                                  ctx_.max_storage) {
    return ii;
  }
  seats_ = std::move(s);
  return ii;
}

int64_t Generator::bisect(const IiRange& range, int64_t found) {
  int64_t lo = std::max(range.lower - 1, walk_failed_top_), hi = found;
  for (int probe = 0; probe < kBisectProbes && hi - lo > 1; ++probe) {
    if (meter_.phase_out() || deadline_passed(ctx_.deadline)) break;
    const int64_t mid = lo + (hi - lo) / 2;
    ++stats_.bisect_probes;
    if (screen_.check(mid) != IiScreen::Verdict::kAdmit) {
      ++stats_.ii_screened;
      lo = mid;
      continue;
    }
    if (attempt_below(mid)) {
      hi = mid;
      ++stats_.descent_successes;
    } else {
      lo = mid;
    }
  }
  bisect_failed_ = lo;
  return hi;
}

bool Generator::attempt_below(int64_t ii) {
  const bool whole = below_ > 0;
  if (!(whole ? place_at(ii) : refinement_.descend(ii, ctx_.opts.descent_budget_ratio))) {
    return false;
  }
  seats_ = placement_->starts();
  serial_fallback_ = whole && last_attempt_serial_;
  return true;
}

int64_t Generator::descend(const IiRange& range, int64_t found) {
  const int64_t lower = below_ > 0 ? std::max(range.lower, bisect_failed_ + 1) : range.lower;
  const IiDescentResult d = descend_ii(
      found, lower,
      [&](int64_t ii) {
        if (meter_.phase_out()) {
          stats_.descent_out_of_work = 1;
          return DescentVerdict::kOutOfBudget;
        }
        if (attempt_below(ii)) return DescentVerdict::kPlaced;
        if (meter_.phase_out()) stats_.descent_out_of_work = 1;
        // Only the backtracking rung alone knows it searched every placement.
        return below_ == 0 && refinement_.descent_searched_all() ? DescentVerdict::kSearchedAll
                                                                 : DescentVerdict::kOutOfBudget;
      },
      &screen_, ctx_.deadline);
  stats_.ii_screened += d.screened;
  stats_.descent_successes += d.placed;
  return d.ii;
}

void Generator::finish(Schedule& s, const IiRange&, const IiSearchResult&) {
  // The serial fallback is the ladder's last rung here, not the frame's.
  if (s.feasible && serial_fallback_) SerialFallback::flag(s);
  if (refinement_.truncated()) s.flags.push_back("budget_truncated");
  if (stats_.walk_out_of_work > 0 && s.feasible) s.flags.push_back("effort_fallback");
  for (std::string& n : notes_.lines()) s.diagnostics.push_back(std::move(n));
  s.stats = stats_fields(stats_);
  s.stats.emplace_back("refinement_status", refinement_.status());
}

}  // namespace
}  // namespace cost_based

CostBasedResult generate_cost_based(const Graph& g, const CostBasedOptions& opts,
                                    const IiSearchOptions& search, const Schedule* start) {
  const auto t0 = std::chrono::steady_clock::now();  // time_ns covers the serial pass too
  cost_based::Generator gen(g, opts, search, start);
  CostBasedResult result;
  result.schedule = gen.run(t0);
  result.stats = gen.stats();
  // Under L7 no refinement ran: nothing left unconverged.
  result.refinement_status =
      g.attrs.force_serial_execution ? cost_based::kConverged : gen.refinement_status();
  return result;
}

}  // namespace tilesched
