// Packing in the placement (packing.h, docs/COST_BASED.md "Packing"): the
// plan of a saturated slot, the packer's packings, and the generator
// reaching the optimum of the real attention loops on its own (no SAT
// repair, which runs outside generate_cost_based).
#include "testing/cost_based_support.h"

#include <algorithm>

#include "packing.h"
#include "placement.h"
#include "tilesched/ims.h"

namespace tilesched::cost_based {
namespace {

Graph Testdata(const std::string& name) {
  StatusOr<Graph> g =
      read_graph_file(std::string(TILESCHED_TESTDATA_DIR) + "/cost_based/" + name);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

// A pooled slot of capacity 4 held by `holds` ops, each 3 units for its
// duration (no two share a row), in a chain of latency-1 edges, plus one
// op of 2 units for one cycle.
Graph Saturated(const std::vector<int64_t>& holds) {
  GraphBuilder b(make_generic_target("t", {{"pool", 4, false}, {"alu", 1, false}}, {}));
  OpId last = -1;
  for (size_t i = 0; i < holds.size(); ++i) {
    const OpId h = b.generic("h" + std::to_string(i), 1, {Triple{1, holds[i], 3}});
    if (last >= 0) b.edge(last, h);
    last = h;
  }
  const OpId small = b.generic("small", 1, {Triple{1, 1, 2}});
  b.edge(0, small);
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

TEST(Packing, APlanNeedsASaturatedSlotWithTwoExclusiveHolders) {
  const Graph g = Saturated({3, 5, 2, 4});  // 14 rows of exclusive holds
  Context ctx(g, CostBasedOptions{}, compute_mii(g));
  const std::optional<PackingPlan> tight = packing_plan(ctx, 15);
  ASSERT_TRUE(tight.has_value());
  EXPECT_EQ(tight->slot, 1);
  EXPECT_EQ(tight->chain.size(), 4u);
  EXPECT_EQ(tight->shared.size(), 1u);
  // In dataflow order (by depth), the chain's first op first.
  EXPECT_EQ(g.ops[tight->chain[0]].name, "h0");
  EXPECT_EQ(g.ops[tight->chain[3]].name, "h3");
  EXPECT_FALSE(packing_plan(ctx, 40).has_value());  // far from saturated
}

TEST(Packing, ThePackerLaysTheExclusiveHoldersEndToEnd) {
  const Graph g = Saturated({3, 5, 2, 4});
  Context ctx(g, CostBasedOptions{}, compute_mii(g));
  const int64_t ii = 15;  // 14 exclusive rows and one for the small hold: no slack left
  const std::optional<PackingPlan> plan = packing_plan(ctx, ii);
  ASSERT_TRUE(plan.has_value());
  Placement p(ctx, AlongEdges{});
  ASSERT_TRUE(p.reset(ii));
  Packer packer(ctx, p, *plan);
  int packings = 0;
  packer.each(
      [&](const Packer::Seats& seats) {
        ++packings;
        std::vector<int64_t> units(ii, 0);
        for (const auto& [v, t] : seats) {
          const Triple& hold = g.ops[v].resources[0];
          for (int64_t c = 0; c < hold.duration; ++c) units[(t + c) % ii] += hold.occupancy;
          EXPECT_GE(t, p.asap(v));
        }
        for (int64_t r = 0; r < ii; ++r) EXPECT_LE(units[r], 4) << "row " << r;
        // The chain's edges hold between the seats.
        std::vector<int64_t> start(g.op_count(), 0);
        for (const auto& [v, t] : seats) start[v] = t;
        for (const Edge& e : g.edges) {
          EXPECT_GE(start[e.to] - start[e.from], e.latency - ii * e.distance);
        }
        return packings < 5;
      },
      100'000);
  EXPECT_EQ(packings, 5);
}

// The attention loops' MIIs are one saturated shared-memory slot's fine
// density (97: 1,544 of 1,552 unit-cycles; 208: every one), proven optimal
// by the oracle; the generator reaches them without the SAT repair, at
// every effort, and the packing-first rung is what places them.
TEST(Packing, TheAttentionLoopsReachTheirMiiWithoutTheRepair) {
  for (const auto& [name, mii] : {std::pair<std::string, int64_t>{"attention_s3.loop.json", 97},
                                  {"attention_tma_s3.loop.json", 208}}) {
    const Graph g = Testdata(name);
    for (Effort e : {Effort::kFast, Effort::kDefault}) {
      CostBasedOptions opts;
      opts.effort = e;
      const CostBasedResult r = generate_cost_based(g, opts);
      ASSERT_TRUE(r.schedule.feasible) << name;
      EXPECT_EQ(r.schedule.ii, mii) << name << " at " << effort_name(e);
      EXPECT_TRUE(verify_schedule(g, r.schedule).legal()) << name;
      // The backtracking rung placed it (inside the ladder, or first).
      EXPECT_GE(r.stats.packed_first + r.stats.rung_successes[static_cast<int>(Rung::kBacktrack)],
                1)
          << name;
    }
    // Without the backtracking rung (and so without the packer) the ladder
    // alone stays above it, at IMS's II or below.
    CostBasedOptions none;
    none.backtrack_budget_ratio = 0;
    none.descent_budget_ratio = 0;
    const CostBasedResult ladder = generate_cost_based(g, none);
    EXPECT_GT(ladder.schedule.ii, mii) << name;
    EXPECT_LE(ladder.schedule.ii, generate_ims(g, ImsOptions{}).ii) << name;
  }
}

}  // namespace
}  // namespace tilesched::cost_based
