// The cost-based generator end to end: golden results on bundled and
// hand-built graphs with known optima, determinism, user constraints, the
// spill model and the diagnostics. Every schedule goes through the
// independent verifier. The other suites, one per file they test:
// strategy_test.cc (the builder's families), backtracking_test.cc (beyond
// the seeds), seating_test.cc (the evaluators, the gates and the arms),
// windows_test.cc (the placement's windows), packing_test.cc, and
// generator_test.cc (the IMS start and the effort).
#include "testing/cost_based_support.h"

#include <algorithm>

#include "tilesched/serial.h"

namespace tilesched::cost_based {
namespace {

TEST(CostBased, ReachesKnownOptimaOnBundledGraphs) {
  // Optima argued by hand in docs/COST_BASED.md ("Golden results").
  const std::pair<const char*, int64_t> kGolden[] = {
      {"seed_worked_example.loop.json", 15},  // ResMII: slot 16 holds 8 + 7
      {"spec_example.loop.json", 16},         // RecMII: mma -> mma (16, 1)
      {"attention_forward.loop.json", 34},    // MII 27; qk and pv collide below 34
      {"generic_dsp.loop.json", 6},           // MII 5; ld and st share mem below 6
      {"gemm_mainloop.loop.json", 32},        // ResMII: four TMA loads on slot 12
  };
  for (ArmPolicy policy : kPolicies) {
    for (auto [file, ii] : kGolden) {
      CostBasedOptions opts;
      opts.arm_policy = policy;
      const Schedule s = Schedule_(Example(file), opts);
      ASSERT_TRUE(s.feasible) << file;
      EXPECT_EQ(s.ii, ii) << file << " " << arm_policy_name(policy);
    }
  }
}

TEST(CostBased, NeverWorseThanSerialOnExamples) {
  for (const char* file : {"seed_worked_example.loop.json", "attention_forward.loop.json",
                           "constraints.loop.json", "gemm_mainloop.loop.json",
                           "generic_dsp.loop.json", "spec_example.loop.json"}) {
    const Graph g = Example(file);
    const Schedule serial = generate_serial(g);
    for (IiSearch search : {IiSearch::kLinear, IiSearch::kGalloping}) {
      CostBasedOptions opts;
      opts.ii_search = search;
      const Schedule s = Schedule_(g, opts);
      ASSERT_TRUE(s.feasible) << file;
      if (serial.feasible) {
        EXPECT_LE(s.ii, serial.ii) << file;
      }
      EXPECT_GE(s.ii, s.mii.max()) << file;
    }
  }
}

TEST(CostBased, IsDeterministic) {
  const Graph g = Example("attention_forward.loop.json");
  for (ArmPolicy policy : kPolicies) {
    CostBasedOptions opts;
    opts.arm_policy = policy;
    Schedule a = generate_cost_based(g, opts).schedule;
    Schedule b = generate_cost_based(g, opts).schedule;
    a.time_ns = b.time_ns = 0;
    EXPECT_EQ(a, b);
  }
}

TEST(CostBased, EverySearchAndPolicyGivesAVerifiedScheduleOnRandomLoops) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const Graph g = RandomLoop(seed, 10 + static_cast<int>(seed % 5) * 6);
    const Schedule serial = generate_serial(g);
    for (ArmPolicy policy : kPolicies) {
      for (IiSearch search : {IiSearch::kLinear, IiSearch::kGalloping}) {
        CostBasedOptions opts;
        opts.arm_policy = policy;
        opts.ii_search = search;
        const Schedule s = Schedule_(g, opts);
        std::string why;
        for (const std::string& d : s.diagnostics) why += "\n  " + d;
        ASSERT_TRUE(s.feasible) << g.name << " " << arm_policy_name(policy) << " "
                                << ii_search_name(search) << why;
        if (serial.feasible) {
          EXPECT_LE(s.ii, serial.ii) << g.name;
        }
      }
    }
  }
}

TEST(CostBased, RecurrenceBoundIsReached) {
  // a -> b -> c -> a with latencies 3, 4, 5 over distance 2: RecMII 6.
  GraphBuilder b(blackwell_target());
  const OpId x = b.op("x", "tiled_tma_load"), y = b.op("y", "alu"), z = b.op("z", "alu");
  for (int i = 0; i < 6; ++i) b.op("pad" + std::to_string(i), "alu");
  b.edge(x, y, 3);
  b.edge(y, z, 4);
  b.edge(z, x, 5, 2);
  const Graph g = Build(b);
  const Schedule s = Schedule_(g);
  EXPECT_EQ(s.mii.recurrence, 6);
  EXPECT_EQ(s.ii, 8);  // the TMA load holds slot 12 for 8 cycles: ResMII 8
}

TEST(CostBased, PooledSlotFillsToCapacity) {
  // Ten smem_reads of 7 cycles on tp_smem_rd (capacity 5): FineMII 14.
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 10; ++i) b.op("r" + std::to_string(i), "smem_read");
  const Schedule s = Schedule_(Build(b));
  EXPECT_EQ(s.mii.fine_density, 14);
  EXPECT_EQ(s.ii, 14);
}

TEST(CostBased, GroupsShareAStageAndMaxDepthHolds) {
  GraphBuilder b(blackwell_target());
  const OpId load = b.op("load", "tiled_tma_load");
  const OpId mma = b.op("mma", "wgmma");
  const OpId read = b.op("read", "smem_read");
  const OpId fix = b.op("fix", "alu");
  b.edge(load, mma);
  b.edge(mma, read);
  b.edge(read, fix);
  b.at(load).leader_gid = 7;
  b.at(fix).leader_gid = 7;  // 8 + 16 + 7 cycles later, yet the same stage
  b.at(read).max_depth = 1;
  for (int i = 0; i < 4; ++i) b.op("pad" + std::to_string(i), "alu");
  const Graph g = Build(b);
  for (ArmPolicy policy : kPolicies) {
    CostBasedOptions opts;
    opts.arm_policy = policy;
    const Schedule s = Schedule_(g, opts);
    ASSERT_TRUE(s.feasible);
    EXPECT_EQ(s.stage[load], s.stage[fix]);
    EXPECT_LE(s.stage[read], 1);
    EXPECT_EQ(s.ii, 32);  // load .. fix spans 31 cycles inside one stage
  }
  CostBasedOptions own;
  own.ims_start = false;  // the generator's own search, not IMS's start kept at the bound
  const CostBasedResult r = generate_cost_based(g, own);
  EXPECT_EQ(r.stats.ii_tried, 1);  // the group's span bound starts the search at 32
}

TEST(CostBased, StorageBudgetDrivesRefinement) {
  // A 200000-byte buffer: two copies exceed 232448, so the read must end
  // within one II of the write: II >= 14 although ResMII is 7.
  GraphBuilder b(blackwell_target());
  const OpId w = b.op("write", "smem_write");
  b.at(w).store_bytes = 200000;
  const OpId r = b.op("read", "smem_read");
  b.edge(w, r);
  for (int i = 0; i < 6; ++i) b.op("pad" + std::to_string(i), "alu");
  const Graph g = Build(b);
  const CostBasedResult res = generate_cost_based(g, {});
  ASSERT_TRUE(res.schedule.feasible);
  EXPECT_EQ(res.schedule.mii.max(), 7);
  EXPECT_EQ(res.schedule.ii, 14);
  EXPECT_TRUE(verify_schedule(g, res.schedule).legal());
  EXPECT_GT(res.stats.constraints_added, 0);
  EXPECT_GT(res.stats.give_ups[static_cast<int>(GiveUp::kStorage)], 0);
  const auto& notes = res.schedule.diagnostics;
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "II 7: builder constraint: depth: consumers of 'write' at most 0 stage(s) "
                      "behind it, for the SMEM budget (L4): 2 copies of 200000 bytes overlap"),
            notes.end());

  CostBasedOptions one;
  one.max_constraint_iterations = 1;  // the loop cannot converge at II 7
  const CostBasedResult cut = generate_cost_based(g, one);
  const auto& flags = cut.schedule.flags;
  EXPECT_NE(std::find(flags.begin(), flags.end(), "budget_truncated"), flags.end());
  EXPECT_TRUE(verify_schedule(g, cut.schedule).legal());
}

TEST(CostBased, SpillModelSurchargesSeatsOverTheRegisterBudget) {
  // Twelve independent 64-register WGMMAs cannot all be live in one row
  // under a budget of 128: the cost-based arm records surcharges.
  GraphBuilder b(blackwell_target());
  const OpId load = b.op("load", "tiled_tma_load");
  for (int i = 0; i < 12; ++i) {
    const OpId m = b.op("m" + std::to_string(i), "wgmma");
    b.edge(load, m);
    b.edge(m, load, 1, 3);  // loop-carried: keep the values live across stages
  }
  const Graph g = Build(b);
  CostBasedOptions opts;
  opts.arm_policy = ArmPolicy::kBestCost;  // the cost-based arm proposes every step
  // The WGMMAs fill the tensor slot: without the backtracking rung, whose
  // packing would seat them first (packing.h), the ladder's arms place them.
  opts.backtrack_budget_ratio = 0;
  opts.ims_start = false;  // the ladder's own placement, not IMS's start at the bound
  const CostBasedResult r = generate_cost_based(g, opts);
  ASSERT_TRUE(r.schedule.feasible);
  EXPECT_TRUE(verify_schedule(g, r.schedule).legal());
  EXPECT_GT(r.stats.spill_surcharges, 0);

  GraphBuilder off(make_generic_target("no-budget", {{"mma", 1, false}}, {}));
  const OpId x = off.generic("x", 2, {{1, 1, 1}});
  off.at(x).registers = 500;  // no budget: the model is off
  const CostBasedResult quiet = generate_cost_based(Build(off), opts);
  EXPECT_EQ(quiet.stats.spill_surcharges, 0);
}

TEST(CostBased, StatsFieldsNameEveryCounterInOrder) {
  CostBasedStats s;
  s.ii_tried = 3;
  s.gate_rejects[static_cast<int>(Gate::kG3Rrt)] = 7;
  s.family_lifted[static_cast<int>(ConstraintFamily::kDepth)] = 2;
  s.spill_surcharges = 5;
  const std::vector<std::pair<std::string, int64_t>> f = stats_fields(s);
  ASSERT_EQ(f.size(), 2u + 2 * kArmCount + kGateCount + 2 * kRungCount + kGiveUpCount + 7 +
                          2 * kConstraintFamilyCount + 1 + 5 + 7);
  EXPECT_EQ(f.front(), (std::pair<std::string, int64_t>{"ii_tried", 3}));
  EXPECT_EQ(f[2].first, "arm_proposals.permute");
  EXPECT_EQ(f[f.size() - 13], (std::pair<std::string, int64_t>{"spill_surcharges", 5}));
  EXPECT_EQ(f[f.size() - 8].first, "work_budget_out.descent");
  EXPECT_EQ(f.back().first, "bisect_probes");
  auto value = [&](const std::string& key) {
    for (const auto& [k, v] : f) {
      if (k == key) return v;
    }
    ADD_FAILURE() << "no " << key;
    return int64_t{-1};
  };
  EXPECT_EQ(value("gate_rejects.g3_rrt"), 7);
  EXPECT_EQ(value("constraints_lifted.depth"), 2);
  EXPECT_EQ(value("constraints_added.depth"), 0);
  EXPECT_EQ(stats_fields(s), f);  // the keys are built once, the values each call
}

TEST(CostBased, ForceSerialKeepsTheSerialSchedule) {
  const Graph g = Example("force_serial.loop.json");
  const Schedule s = Schedule_(g);
  EXPECT_EQ(s.stage_count, 1);
  EXPECT_EQ(s.ii, generate_serial(g).ii);
}

TEST(CostBased, InfeasibleBelowTheCapIsReportedWithDiagnostics) {
  const Graph g = Example("attention_forward.loop.json");
  IiSearchOptions search;
  search.ii_cap = 33;  // the optimum is 34
  // At full effort: every II tried to its end.
  const CostBasedResult r = generate_cost_based(g, AtFullEffort(), search);
  EXPECT_FALSE(r.schedule.feasible);
  EXPECT_EQ(r.schedule.failure, FailureReason::kIiCapReached);
  // IIs 27 to 30 the II screen rejects (qk and pv on one slot), each with
  // its line; 31 to 33 the ladder tries, and says why each op found no seat.
  const std::vector<std::string>& d = r.schedule.diagnostics;
  ASSERT_GE(d.size(), 6u);
  EXPECT_EQ(d[1].rfind("II 27: the II screen: slot 11 tc_and_mma (capacity 1) must hold", 0), 0u)
      << d[1];
  EXPECT_EQ(d[4].rfind("II 30: the II screen: ", 0), 0u) << d[4];
  EXPECT_EQ(d[5].rfind("II 31: op '", 0), 0u) << d[5];
  EXPECT_NE(d[5].find("global row 0x"), std::string::npos);
  EXPECT_EQ(r.stats.ii_screened, 4);
  EXPECT_EQ(r.stats.ii_tried, 3);
}

}  // namespace
}  // namespace tilesched::cost_based
