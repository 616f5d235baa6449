// The generator's phases around the search (generator.cc): the IMS start,
// and the effort contract (context.h, docs/COST_BASED.md "Effort"): the
// meter's budgets, and each phase of the generator stopping at its budget,
// counted in work units (never timed). The graph is resource_saturated at 32 ops,
// seed 2 (`tilesched generate -f resource_saturated -n 32 -s 2`), where
// the full effort spends several times the default's bounded work.
#include "testing/cost_based_support.h"

#include "context.h"
#include "tilesched/ims.h"

namespace tilesched::cost_based {
namespace {

Graph Saturated() {
  StatusOr<Graph> g = read_graph_file(std::string(TILESCHED_TESTDATA_DIR) +
                                      "/cost_based/resource_saturated_32_s2.loop.json");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

CostBasedResult RunAt(const Graph& g, Effort effort, ArmPolicy policy) {
  CostBasedOptions opts;
  opts.effort = effort;
  opts.arm_policy = policy;
  const CostBasedResult r = generate_cost_based(g, opts);
  EXPECT_TRUE(r.schedule.feasible);
  EXPECT_TRUE(verify_schedule(g, r.schedule).legal()) << effort_name(effort);
  return r;
}

// A phase stops at the first look at the meter past its budget: what one
// rung step or one backtracking seat costs past it, a few hundred units
// here; a tenth of the budget bounds it.
int64_t WithSlack(int64_t budget) { return budget + budget / 10; }

TEST(WorkMeter, AttemptAndPhaseBudgets) {
  WorkMeter m;
  m.start_phase(WorkMeter::kSearch, 100);
  m.start_attempt(30);
  m.add(30);
  EXPECT_FALSE(m.out());
  m.add(1);
  EXPECT_TRUE(m.attempt_out());
  EXPECT_FALSE(m.phase_out());
  m.start_attempt(30);  // a fresh attempt: the phase's work goes on counting
  EXPECT_FALSE(m.out());
  m.add(70);
  EXPECT_TRUE(m.phase_out());
  m.start_phase(WorkMeter::kDescent, 0);  // no budget
  m.add(1'000'000);
  EXPECT_FALSE(m.out());
  EXPECT_EQ(m.spent(WorkMeter::kSearch), 101);
  EXPECT_EQ(m.spent(WorkMeter::kDescent), 1'000'000);
  EXPECT_EQ(m.total(), 1'000'101);
}

TEST(Effort, BudgetsScaleWithTheGraphAndFullHasNone) {
  const Graph small = RandomLoop(1, 10), large = RandomLoop(2, 400);
  const EffortBudgets full = effort_budgets(Effort::kFull, large);
  EXPECT_EQ(full.attempt, 0);
  EXPECT_EQ(full.walk, 0);
  EXPECT_EQ(full.descent, 0);
  for (Effort e : {Effort::kFast, Effort::kDefault}) {
    const EffortBudgets s = effort_budgets(e, small), l = effort_budgets(e, large);
    EXPECT_GT(s.attempt, 0);
    EXPECT_GT(l.walk, s.walk) << effort_name(e);
    EXPECT_GE(l.walk, l.attempt);
  }
  EXPECT_LT(effort_budgets(Effort::kFast, large).walk,
            effort_budgets(Effort::kDefault, large).walk);
}

TEST(Effort, EveryPhaseStopsAtItsBudget) {
  const Graph g = Saturated();
  const EffortBudgets b = effort_budgets(Effort::kDefault, g);
  for (ArmPolicy policy : kPolicies) {
    const CostBasedResult full = RunAt(g, Effort::kFull, policy);
    const CostBasedResult def = RunAt(g, Effort::kDefault, policy);
    // Without the budgets the walk and the descent spend far more.
    EXPECT_GT(full.stats.work_search, 2 * def.stats.work_search);
    EXPECT_GT(full.stats.work_descent, 2 * def.stats.work_descent);
    EXPECT_EQ(full.stats.attempts_out_of_work + full.stats.walk_out_of_work +
                  full.stats.descent_out_of_work, 0);
    // Each attempt stops at its budget, the walk and the descent at theirs
    // (the walk also at its failing attempts' bound, whichever comes first).
    EXPECT_GE(def.stats.attempts_out_of_work, 1);
    EXPECT_LE(def.stats.work_search, def.stats.ii_tried * WithSlack(b.attempt));
    EXPECT_LE(def.stats.work_search, WithSlack(b.walk));
    EXPECT_EQ(def.stats.descent_out_of_work, 1);
    EXPECT_LE(def.stats.work_descent, WithSlack(b.descent));
    // Where the walk's budget ran out the flag says so; the run is never
    // above IMS's schedule, its start.
    const auto& flags = def.schedule.flags;
    EXPECT_EQ(def.stats.walk_out_of_work == 1,
              std::find(flags.begin(), flags.end(), "effort_fallback") != flags.end());
    EXPECT_EQ(def.stats.start_ii, generate_ims(g, ImsOptions{}).ii);
    EXPECT_LE(def.schedule.ii, def.stats.start_ii);
    EXPECT_EQ(def.stats.work_total, def.stats.work_graph + def.stats.work_start +
                                        def.stats.work_search + def.stats.work_descent);
  }
}

TEST(Effort, TheScheduleRecordsTheEffortAndTheWork) {
  const Graph g = Saturated();
  const Schedule s = RunAt(g, Effort::kFast, ArmPolicy::kFirstSuccess).schedule;
  const auto has = [&](const std::string& key, const std::string& value) {
    for (const auto& [k, v] : s.options) {
      if (k == key) return v == value;
    }
    return false;
  };
  EXPECT_TRUE(has("effort", "fast"));
  bool work = false;
  for (const auto& [k, v] : s.stats) work = work || (k == "work.search" && v > 0);
  EXPECT_TRUE(work);
}

// The IMS start (docs/COST_BASED.md "The IMS start"): IMS's schedule is
// the walk's upper bound and the fallback, so cost-based is never above it.
TEST(Start, NeverAboveIms) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Graph g = RandomLoop(seed, 6 + static_cast<int>(seed % 30));
    const Schedule ims = generate_ims(g, ImsOptions{});
    for (Effort e : {Effort::kFast, Effort::kDefault}) {
      CostBasedOptions opts;
      opts.effort = e;
      const CostBasedResult r = generate_cost_based(g, opts);
      if (!ims.feasible) continue;
      ASSERT_TRUE(r.schedule.feasible) << seed;
      EXPECT_LE(r.schedule.ii, ims.ii) << "seed " << seed << " at " << effort_name(e);
      // IMS's II, or none where the saturated lower bound placed first.
      if (r.stats.start_ii == 0) {
        EXPECT_EQ(r.stats.work_start, 0) << seed;
      } else {
        EXPECT_EQ(r.stats.start_ii, ims.ii) << seed;
      }
      EXPECT_TRUE(verify_schedule(g, r.schedule).legal()) << seed;
    }
  }
}

TEST(Start, AGivenStartIsTheBoundAndItsWorkIsCarried) {
  const Graph g = Saturated();
  CostBasedOptions fast;
  fast.effort = Effort::kFast;
  const CostBasedResult first = generate_cost_based(g, fast);
  ASSERT_TRUE(first.schedule.feasible);
  CostBasedOptions def;
  const CostBasedResult next = generate_cost_based(g, def, {}, &first.schedule);
  ASSERT_TRUE(next.schedule.feasible);
  EXPECT_LE(next.schedule.ii, first.schedule.ii);
  EXPECT_EQ(next.stats.start_ii, first.schedule.ii);
  EXPECT_EQ(next.stats.work_start, 0);  // no IMS run: the start was given
  EXPECT_GT(next.stats.work_total, first.stats.work_total);
  EXPECT_TRUE(verify_schedule(g, next.schedule).legal());
}

// A slot saturated at the lower bound: the packing-first attempt runs
// before IMS, and where it places IMS never runs.
TEST(Start, ASaturatedLowerBoundIsTriedBeforeIms) {
  StatusOr<Graph> g = read_graph_file(std::string(TILESCHED_TESTDATA_DIR) +
                                      "/cost_based/attention_s3.loop.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  for (Effort e : {Effort::kFast, Effort::kDefault}) {
    const CostBasedResult r = RunAt(*g, e, ArmPolicy::kFirstSuccess);
    EXPECT_EQ(r.schedule.ii, 97) << effort_name(e);  // the MII: one slot's density
    EXPECT_EQ(r.stats.start_ii, 0) << effort_name(e);
    EXPECT_EQ(r.stats.work_start, 0) << effort_name(e);
  }
}

// A start at the lower bound is optimal: it is kept and nothing is searched.
TEST(Start, AStartAtTheLowerBoundIsKeptAsItIs) {
  int kept = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Graph g = RandomLoop(seed, 8 + static_cast<int>(seed % 20));
    CostBasedOptions fast;
    fast.effort = Effort::kFast;
    const CostBasedResult first = generate_cost_based(g, fast);
    if (!first.schedule.feasible || first.schedule.ii != first.schedule.mii.max()) continue;
    const CostBasedResult next = generate_cost_based(g, CostBasedOptions{}, {}, &first.schedule);
    EXPECT_EQ(next.schedule.ii, first.schedule.ii) << seed;
    EXPECT_EQ(next.stats.start_kept, 1) << seed;
    // No placement runs: the search's work is the II screen's check of
    // the lower bound alone (a closure of the graph and its sweep, at most
    // 5 n^2 cells and steps, one unit per 8).
    const int64_t n = g.op_count();
    EXPECT_LE(next.stats.work_search, (5 * n * n + 7) / 8) << seed;
    EXPECT_EQ(next.stats.ii_tried, 0) << seed;
    ++kept;
  }
  EXPECT_GT(kept, 0);
}

// Below a start the walk, and the bisection and the descent together,
// each spend at most max(floor, factor x the start's work), whatever the
// range.
TEST(Effort, TheSearchBelowTheStartIsBoundedByTheStartsWork) {
  const Graph g = Saturated();
  const EffortBudgets b = effort_budgets(Effort::kDefault, g);
  ASSERT_GT(b.below_factor, 0);
  for (ArmPolicy policy : kPolicies) {
    const CostBasedResult def = RunAt(g, Effort::kDefault, policy);
    ASSERT_GT(def.stats.work_start, 0);
    const int64_t bound = std::max(b.below_floor, b.below_factor * def.stats.work_start);
    EXPECT_LE(def.stats.work_search, WithSlack(bound));   // the walk
    EXPECT_LE(def.stats.work_descent, WithSlack(bound));  // the bisection and the descent
    EXPECT_LE(def.schedule.ii, def.stats.start_ii);
  }
  EXPECT_EQ(effort_budgets(Effort::kFull, g).below_factor, 0);  // full: none
}

TEST(Start, TheSeedsGeneratorHasNone) {
  const Graph g = Saturated();
  const CostBasedResult r = generate_cost_based(g, as_the_seeds_write_it(CostBasedOptions{}));
  EXPECT_EQ(r.stats.start_ii, 0);
  EXPECT_EQ(r.stats.work_start, 0);
  EXPECT_EQ(r.stats.packed_first, 0);
}

TEST(Effort, TheSeedsGeneratorRunsWithoutBudgets) {
  EXPECT_EQ(as_the_seeds_write_it(CostBasedOptions{}).effort, Effort::kFull);
  for (Effort e : {Effort::kFast, Effort::kDefault, Effort::kFull}) {
    EXPECT_EQ(parse_effort(effort_name(e)), e);
  }
  EXPECT_FALSE(parse_effort("high").has_value());
}

}  // namespace
}  // namespace tilesched::cost_based
