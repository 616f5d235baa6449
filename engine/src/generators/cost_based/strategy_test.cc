// The strategy at one II (strategy.h): the constraint refinement loop (seed
// 003), the builder's density, grouping and register-pressure families,
// each lifted when it costs the II.
#include "testing/cost_based_support.h"

#include <algorithm>
#include <vector>

namespace tilesched::cost_based {
namespace {

TEST(Refinement, DensityKeepsOpsOnAFullSlotWithinOneStageOfTheirEarliest) {
  const Graph g = DenseSlotGraph(false);
  const CostBasedResult r = generate_cost_based(g, {});
  ASSERT_TRUE(r.schedule.feasible);
  EXPECT_EQ(r.schedule.ii, 8);
  EXPECT_EQ(r.stats.family_added[static_cast<int>(ConstraintFamily::kDensity)], 4);
  EXPECT_EQ(r.stats.constraints_lifted, 0);
  for (OpId v = 0; v < g.op_count(); ++v) EXPECT_LE(r.schedule.stage[v], 1);
  EXPECT_EQ(r.refinement_status, 1);  // converged
}

TEST(Refinement, AnImpossibleDensityConstraintIsLiftedAndTheIiKept) {
  const Graph g = DenseSlotGraph(true);
  for (ArmPolicy policy : kPolicies) {
    CostBasedOptions opts;
    opts.arm_policy = policy;
    const CostBasedResult r = generate_cost_based(g, opts);
    ASSERT_TRUE(r.schedule.feasible);
    EXPECT_TRUE(verify_schedule(g, r.schedule).legal());
    EXPECT_EQ(r.schedule.ii, 8);
    EXPECT_EQ(r.schedule.stage[0], r.schedule.stage[g.op_count() - 1]);  // d0 with u (L5)
    EXPECT_GE(r.schedule.stage[0], 2);
    EXPECT_GE(r.stats.family_lifted[static_cast<int>(ConstraintFamily::kDensity)], 1);
  }
}

TEST(Refinement, GroupingTiesAnOrderEdgesPairIntoOneStage) {
  const Graph g = Example("gemm_mainloop.loop.json");
  const CostBasedResult r = generate_cost_based(g, {});
  ASSERT_TRUE(r.schedule.feasible);
  EXPECT_GT(r.stats.family_added[static_cast<int>(ConstraintFamily::kGrouping)], 0);
  EXPECT_EQ(r.stats.family_lifted[static_cast<int>(ConstraintFamily::kGrouping)], 0);
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kOrder && e.distance == 0) {
      EXPECT_EQ(r.schedule.stage[e.from], r.schedule.stage[e.to])
          << g.ops[e.from].name << " -> " << g.ops[e.to].name;
    }
  }
}

TEST(Refinement, AnImpossibleGroupingConstraintIsLifted) {
  // The wait u guards v, so the builder asks for one stage; but u may not
  // leave stage 0 (max_depth, hard) and v starts 60 cycles after x's MMA.
  GraphBuilder b(blackwell_target());
  const OpId x = b.op("x", "wgmma");
  const OpId u = b.op("u", "mbarrier_wait");
  const OpId v = b.op("v", "alu");
  b.edge(x, v, 60);
  b.edge(u, v, 0, 0, EdgeKind::kOrder);
  b.at(u).max_depth = 0;
  const Graph g = Build(b);
  CostBasedOptions own;
  own.ims_start = false;  // the refinement loop's own run, not IMS's start kept at the bound
  const CostBasedResult r = generate_cost_based(g, own);
  ASSERT_TRUE(r.schedule.feasible);
  EXPECT_TRUE(verify_schedule(g, r.schedule).legal());
  EXPECT_EQ(r.schedule.ii, r.schedule.mii.max());
  EXPECT_EQ(r.stats.family_added[static_cast<int>(ConstraintFamily::kGrouping)], 1);
  EXPECT_EQ(r.stats.family_lifted[static_cast<int>(ConstraintFamily::kGrouping)], 1);
  EXPECT_EQ(r.schedule.stage[u], 0);
  EXPECT_GT(r.schedule.stage[v], 0);
}

// The spill model's register pressure, computed here from the schedule
// alone: each op's registers are live from its start to the latest of
// start + latency and its data consumers' starts (plus distance * II).
int64_t PeakRegisters(const Graph& g, const Schedule& s) {
  std::vector<int64_t> row(static_cast<size_t>(s.ii), 0);
  for (OpId u = 0; u < g.op_count(); ++u) {
    int64_t end = s.start[u] + std::max<int64_t>(1, g.ops[u].latency);
    for (const Edge& e : g.edges) {
      if (e.from == u && e.kind == EdgeKind::kData) {
        end = std::max(end, s.start[e.to] + e.distance * s.ii);
      }
    }
    for (int64_t c = s.start[u]; c < end; ++c) row[c % s.ii] += g.ops[u].registers;
  }
  return *std::max_element(row.begin(), row.end());
}

TEST(Refinement, RegisterPressureTightensStageSpansAndNeverCostsThePlacement) {
  // FA3's softmax values and accumulators exceed the 128-register budget.
  const Graph g = Example("attention_forward.loop.json");
  const CostBasedResult full = generate_cost_based(g, AtFullEffort());
  ASSERT_TRUE(full.schedule.feasible);
  EXPECT_GT(full.stats.family_added[static_cast<int>(ConstraintFamily::kRegisterPressure)], 0);
  // One iteration: the first placement stands, the budget is reported spent.
  CostBasedOptions one = AtFullEffort();
  one.max_constraint_iterations = 1;
  const CostBasedResult cut = generate_cost_based(g, one);
  ASSERT_TRUE(cut.schedule.feasible);
  EXPECT_TRUE(verify_schedule(g, cut.schedule).legal());
  EXPECT_EQ(cut.schedule.ii, full.schedule.ii);
  EXPECT_EQ(cut.refinement_status, 2);  // budget exceeded, not converged
  const auto& flags = cut.schedule.flags;
  EXPECT_NE(std::find(flags.begin(), flags.end(), "budget_truncated"), flags.end());
  // The loop keeps the placement with the fewest registers at peak. (Here
  // three 64-register WGMMA values overlap in one row whatever the spans,
  // so 192 is as low as it goes at II 34.)
  EXPECT_LE(PeakRegisters(g, full.schedule), PeakRegisters(g, cut.schedule));
}

}  // namespace
}  // namespace tilesched::cost_based
