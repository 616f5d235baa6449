// Tests for the stage span bound: hand-made graphs where it is the
// optimum and where it must stay out of the way, and its soundness
// against a brute-force search of rules L1, L2, L3 and L6 on tiny random
// graphs with max_depth.
#include "stage_span.h"

#include <gtest/gtest.h>

#include <vector>

#include "tilesched/graph_builder.h"
#include "tilesched/mii.h"
#include "testing/capped_brute_force.h"
#include "testing/test_graphs.h"

namespace tilesched {
namespace {

int64_t span_of(const Graph& g) { return stage_span_bound(g); }

// The loads take their slot one after the other (the second at 10 at the
// earliest), the MMA starts at 50 at the earliest, and its hold must not
// meet the loads' rows in stage 0, so II >= 54 (testing/test_graphs.h).
TEST(StageSpan, TwoLoadsBeforeAStageZeroMma) {
  const Graph g = std::move(TwoLoadsOneMma(0).build()).value();
  EXPECT_EQ(compute_mii(g).max(), 41);
  EXPECT_EQ(span_of(g), 54);
  // With two stages the MMA may wrap: ceil((50 + 4) / 2).
  const Graph two = std::move(TwoLoadsOneMma(1).build()).value();
  EXPECT_EQ(span_of(two), 27);
}

TEST(StageSpan, OneWithoutMaxDepth) {
  const Graph g = std::move(TwoLoadsOneMma(std::nullopt).build()).value();
  EXPECT_EQ(span_of(g), 1);
}

// On a pooled slot of 3 the loads' 2 units each still exclude one another,
// but an MMA of 1 unit fits beside a load: no load excludes the MMA's
// rows, and the bound says nothing (1).
TEST(StageSpan, RoomBesideTheHoldDropsTheConflict) {
  EXPECT_EQ(span_of(std::move(TwoLoadsOneMma(0, 3, 2, 1).build()).value()), 1);
  // An MMA of 2 units: 2 + 2 > 3, the conflict is back.
  EXPECT_EQ(span_of(std::move(TwoLoadsOneMma(0, 3, 2, 2).build()).value()), 54);
}

// A rate pool of the same shape: counts of 2 on a pool of 3, held for the
// ops' footprint durations.
TEST(StageSpan, RatePoolsCountLikeSlots) {
  GraphBuilder b(make_generic_target("t", {{"a", 1, false}, {"b", 1, false}, {"c", 1, false}},
                                     {{"r", PoolKind::kRate, 3, 0, false}}));
  const OpId l1 = b.generic("load_a", 40, {{1, 10, 1}});
  const OpId l2 = b.generic("load_b", 40, {{2, 10, 1}});
  const OpId mma = b.generic("mma", 1, {{3, 4, 1}});
  for (OpId v : {l1, l2, mma}) b.at(v).pools = {{0, 2}};
  b.edge(l1, mma, 40);
  b.edge(l2, mma, 40);
  b.at(mma).max_depth = 0;
  EXPECT_EQ(span_of(std::move(b.build()).value()), 54);
}

// ------------------------------------------------------ against brute force

TEST(StageSpan, NoScheduleBelowTheBound) {
  int raised = 0, tight = 0;
  for (uint64_t seed = 1; seed <= 20000; ++seed) {
    const Graph g = random_capped_tiny(seed);
    const int64_t span = span_of(g);
    const int64_t mii = compute_mii(g).max();
    for (int64_t ii = std::max<int64_t>(1, mii); ii < span; ++ii) {
      EXPECT_FALSE(brute_force_schedules(g, ii)) << "seed " << seed << ": a schedule at II " << ii
                                       << " below the stage span " << span;
    }
    if (span > mii) {
      ++raised;
      tight += brute_force_schedules(g, span);
    }
  }
  // Not vacuous: the bound passes the MII often, and is often the optimum.
  EXPECT_GT(raised, 300) << "tight " << tight;
  EXPECT_GT(tight, 250) << "raised " << raised;
}

}  // namespace
}  // namespace tilesched
