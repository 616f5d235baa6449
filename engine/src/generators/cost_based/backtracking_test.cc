// Beyond the seeds: the backtracking rung and its short runs, the descent
// below the found II, best-cost's policy fallback; each at the full effort
// (AtFullEffort): the mechanism to its own bounds, no work budget.
#include "testing/cost_based_support.h"

#include <utility>

#include "backtracking.h"

namespace tilesched::cost_based {
namespace {

TEST(Backtracking, ReachesTheProvenOptimaWhereTheSeedsLadderDoesNot) {
  const std::pair<const char*, std::pair<int64_t, int64_t>> kCases[] = {
      {"fa3_forward.loop.json", {32, 52}},  // {optimum, the seeds' ladder}
      {"fa4_forward.loop.json", {33, 46}},
  };
  for (auto [file, iis] : kCases) {
    const Graph g = Kernel(file);
    for (ArmPolicy policy : kPolicies) {
      CostBasedOptions opts = AtFullEffort();
      opts.arm_policy = policy;
      const CostBasedResult ours = generate_cost_based(g, opts);
      ASSERT_TRUE(ours.schedule.feasible) << file;
      EXPECT_TRUE(verify_schedule(g, ours.schedule).legal()) << file;
      EXPECT_EQ(ours.schedule.ii, iis.first) << file << " " << arm_policy_name(policy);
      EXPECT_GT(ours.stats.backtrack_seats, 0) << file;
      // The rung alone (no descent, no policy fallback) reaches it, and wins.
      CostBasedOptions rung_only = opts;
      rung_only.descent_budget_ratio = 0;
      rung_only.policy_fallback = false;
      const CostBasedResult rung = generate_cost_based(g, rung_only);
      EXPECT_EQ(rung.schedule.ii, iis.first) << file << " " << arm_policy_name(policy);
      EXPECT_GT(RungWins(rung, Rung::kBacktrack), 0) << file;
      // The seeds' generator as written, kept as the generator cost-based-seed.
      const CostBasedResult seeds = generate_cost_based(g, as_the_seeds_write_it(opts));
      EXPECT_EQ(seeds.schedule.ii, iis.second) << file << " " << arm_policy_name(policy);
      EXPECT_EQ(seeds.stats.backtrack_seats, 0) << file;
      EXPECT_EQ(RungWins(seeds, Rung::kBacktrack), 0) << file;
    }
  }
}

TEST(Descent, TakesTheIiBelowTheOneTheSearchFound) {
  // `tilesched generate --family warp_specialized --ops 9 --seed 1 --param
  // consumers=2 --param stages=2 --param tile_kib=16 --param kind_latencies=1`
  // (the family's parameters before the seed drew them); the exact oracle
  // proves 21.
  StatusOr<Graph> read = read_graph_file(std::string(TILESCHED_TESTDATA_DIR) +
                                         "/cost_based/warp_specialized_9.loop.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  const Graph& g = *read;
  const CostBasedResult with = generate_cost_based(g, AtFullEffort());
  EXPECT_EQ(with.schedule.ii, 21);
  EXPECT_EQ(with.stats.descent_successes, 4);  // the search stops at 25
  EXPECT_TRUE(verify_schedule(g, with.schedule).legal());
  CostBasedOptions off = AtFullEffort();
  off.descent_budget_ratio = 0;
  const CostBasedResult without = generate_cost_based(g, off);
  EXPECT_EQ(without.schedule.ii, 25);
  EXPECT_EQ(without.stats.descent_successes, 0);
  EXPECT_TRUE(verify_schedule(g, without.schedule).legal());
}

TEST(PolicyFallback, KeepsBestCostFromGivingUpAnIiFirstSuccessPlaces) {
  const Graph g = Kernel("warp_specialized.loop.json");
  CostBasedOptions best = AtFullEffort();
  best.arm_policy = ArmPolicy::kBestCost;
  const Schedule first = Schedule_(g, AtFullEffort());
  const Schedule fallback = Schedule_(g, best);
  EXPECT_EQ(first.ii, 32);  // the proven optimum
  EXPECT_EQ(fallback.ii, 32);
  // The fallback alone (no backtracking rung, no descent, no IMS start)
  // reaches it...
  best.backtrack_budget_ratio = 0;
  best.descent_budget_ratio = 0;
  best.ims_start = false;
  EXPECT_EQ(Schedule_(g, best).ii, 32);
  // ... where seed 001's policy alone stops at 41.
  best.policy_fallback = false;
  EXPECT_EQ(Schedule_(g, best).ii, 41);
}

TEST(Backtracking, ASearchThatTriedEverySeatSaysSo) {
  IiSearchOptions search;
  search.ii_cap = 33;  // the optimum is 34; the II screen rejects 27 to 30
  const CostBasedResult r =
      generate_cost_based(Example("attention_forward.loop.json"), AtFullEffort(), search);
  ASSERT_FALSE(r.schedule.feasible);
  bool said = false;
  for (const std::string& d : r.schedule.diagnostics) {
    said = said || d.find("backtracking tried every seat") != std::string::npos;
  }
  EXPECT_TRUE(said);
  EXPECT_GT(r.stats.rung_attempts[static_cast<int>(Rung::kBacktrack)], 0);
}

TEST(Backtracking, ShortRunsFollowTheLubySequence) {
  const int64_t kFirst[] = {1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1};
  for (int64_t i = 1; i <= 16; ++i) EXPECT_EQ(Backtracking::luby(i), kFirst[i - 1]) << i;
}

TEST(Backtracking, AShuffledOrderThatTriedEverySeatDoesNotEndTheRung) {
  // `tilesched generate --family fa3_forward --ops 25 --seed 3`; the exact
  // oracle proves 40. At 40 the priority order places every op within 4
  // seats per op once no run ends the rung early; a shuffled order seats
  // first an op whose one seat (the shift rule) rules out every placement
  // and "tries every seat" in 3 seats. When that ended the rung (the
  // restarts before the short runs), the search and the descent stopped at 49.
  StatusOr<Graph> read = read_graph_file(std::string(TILESCHED_TESTDATA_DIR) +
                                         "/cost_based/fa3_forward_25_s3.loop.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  for (ArmPolicy policy : kPolicies) {
    CostBasedOptions opts = AtFullEffort();
    opts.arm_policy = policy;
    EXPECT_EQ(Schedule_(*read, opts).ii, 40) << arm_policy_name(policy);
  }
}

TEST(Backtracking, ARunThatEndedBeforeEndsTheSameWayWithoutASeat) {
  // attention_forward at II 33, one below its proven optimum: the priority
  // order tries every seat. The same rung again at that II (the descent
  // repeats the search's IIs) answers every run from what the first showed.
  WorkedAtII at(33, Example("attention_forward.loop.json"));
  const int64_t budget = at.d->backtrack_budget(32, Driver::kRungWork);
  ASSERT_FALSE(at.d->backtrack({budget, budget, budget}, Driver::kRestarts));
  EXPECT_TRUE(at.d->searched_all());
  const int64_t first = at.stats.backtrack_seats;
  EXPECT_GT(first, 0);
  ASSERT_FALSE(at.d->backtrack({budget, budget, budget}, Driver::kRestarts));
  EXPECT_TRUE(at.d->searched_all());
  EXPECT_EQ(at.stats.backtrack_seats, first);
  // A fresh search ends the same way, seating again.
  WorkedAtII fresh(33, Example("attention_forward.loop.json"));
  ASSERT_FALSE(fresh.d->backtrack({budget, budget, budget}, Driver::kRestarts));
  EXPECT_TRUE(fresh.d->searched_all());
  EXPECT_EQ(fresh.stats.backtrack_seats, first);
  // With a builder constraint in force nothing is remembered.
  BuilderConstraint loose;  // a stage bound no placement here reaches
  loose.shape = BuilderConstraint::Shape::kMaxStage;
  loose.limit = 100;
  at.p->constraints().add(loose);
  at.p->clear_seats();
  at.d->backtrack({budget, budget, budget}, Driver::kRestarts);
  EXPECT_GT(at.stats.backtrack_seats, first);
}

TEST(DepthFirst, OneRunPlacesEveryOpOrSaysWhyItStopped) {
  // attention_forward at its proven optimum, 34: the priority order places
  // every op, and the placement is a legal schedule.
  WorkedAtII at(34, Example("attention_forward.loop.json"));
  const SearchFacts facts = search_facts(*at.ctx);
  constexpr int64_t kBudget = int64_t{1} << 20;
  BacktrackResult placed;
  ASSERT_TRUE(search_once(*at.ctx, *at.p, at.d->gates(), facts, facts.order, kBudget, placed));
  EXPECT_EQ(at.p->placed_count(), at.g.op_count());
  EXPECT_GE(placed.seats, at.g.op_count());
  EXPECT_TRUE(placed.failures.empty());
  Schedule s;
  s.graph = at.g.name;
  s.feasible = true;
  s.ii = 34;
  s.mii = compute_mii(at.g);
  s.start = at.p->starts();
  derive_stage_order(s);
  const VerifyReport report = verify_schedule(at.g, s);
  EXPECT_TRUE(report.legal()) << (report.violations.empty() ? "" : report.violations[0].message);
  // One seat: the run spends its budget and says so, proving nothing.
  at.p->clear_seats();
  BacktrackResult spent;
  EXPECT_FALSE(search_once(*at.ctx, *at.p, at.d->gates(), facts, facts.order, 1, spent));
  EXPECT_EQ(spent.failures, std::vector<std::string>{spent_line(34, 1)});
  EXPECT_FALSE(spent.searched_all);
  // One below the optimum the run tries every seat and names the op whose
  // seats ran out first.
  WorkedAtII below(33, Example("attention_forward.loop.json"));
  BacktrackResult all;
  EXPECT_FALSE(search_once(*below.ctx, *below.p, below.d->gates(), facts, facts.order, kBudget, all));
  EXPECT_TRUE(all.searched_all);
  EXPECT_TRUE(all.stuck.has_value());
  EXPECT_TRUE(all.failures.empty());
}

TEST(Backtracking, FailingIisCostTheirProofNotTheShortRunsShare) {
  // attention_forward's search fails at IIs 31-33 (the backtracking rung's
  // priority order tries every seat there in 55-105 seats) and its descent
  // tries 33 again. 343 seats before the short runs; 4,209 when the
  // descent's 1000 seats per op went to shuffled orders ahead of a proof
  // the search had already made (2026-11-26-cost-based-speed-3.md).
  const CostBasedResult r = generate_cost_based(Example("attention_forward.loop.json"), AtFullEffort());
  EXPECT_EQ(r.schedule.ii, 34);
  EXPECT_LE(r.stats.backtrack_seats, 700);
}

}  // namespace
}  // namespace tilesched::cost_based
