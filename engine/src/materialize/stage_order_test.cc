// The (stage, order) comparator: never "equal", antisymmetric, transitive
// (a strict total order, checked exhaustively on small schedules), lower
// stage first then lower order, a tie broken by op id; and the precondition
// check that finds two ops sharing (stage, order).
#include "stage_order.h"

#include <gtest/gtest.h>

#include "tilesched/graph_builder.h"
#include "tilesched/rng.h"

namespace tilesched::materialize_internal {
namespace {

Schedule WithStageOrder(std::vector<int64_t> stage, std::vector<int64_t> order) {
  Schedule s;
  s.feasible = true;
  s.ii = 1;
  s.start.assign(stage.size(), 0);
  s.stage = std::move(stage);
  s.order = std::move(order);
  return s;
}

Graph Ops(int n) {
  GraphBuilder b(blackwell_target(), "ops");
  for (int i = 0; i < n; ++i) b.op("op" + std::to_string(i), "alu");
  return std::move(b.build()).value();
}

TEST(StageOrderCompare, LowerStageThenLowerOrder) {
  const Schedule s = WithStageOrder({1, 0, 0, 2}, {0, 1, 0, 0});
  EXPECT_EQ(compare_stage_order(s, 2, 1), -1);  // same stage, lower order
  EXPECT_EQ(compare_stage_order(s, 1, 2), +1);
  EXPECT_EQ(compare_stage_order(s, 1, 0), -1);  // lower stage wins over order
  EXPECT_EQ(compare_stage_order(s, 3, 0), +1);
  EXPECT_EQ(ops_in_stage_order(s), (std::vector<OpId>{2, 1, 0, 3}));
}

TEST(StageOrderCompare, NeverEqualAndTieBreaksById) {
  const Schedule tie = WithStageOrder({0, 0}, {3, 3});  // not a valid schedule
  EXPECT_EQ(compare_stage_order(tie, 0, 1), -1);
  EXPECT_EQ(compare_stage_order(tie, 1, 0), +1);
  EXPECT_EQ(compare_stage_order(tie, 0, 0), +1);  // as the seed: a sort's less(a, a) is false
  EXPECT_FALSE(before(tie, 1, 1));
}

// Exhaustive on random small schedules, ties included: for a != b exactly
// one of before(a, b), before(b, a); transitive; never 0.
TEST(StageOrderCompare, IsAStrictTotalOrder) {
  SplitMix64 rng(7);
  for (int round = 0; round < 100; ++round) {
    const int n = static_cast<int>(rng.uniform(1, 9));
    std::vector<int64_t> stage(n), order(n);
    for (int i = 0; i < n; ++i) {
      stage[i] = rng.uniform(0, 2);
      order[i] = rng.uniform(0, 2);
    }
    const Schedule s = WithStageOrder(stage, order);
    for (OpId a = 0; a < n; ++a) {
      for (OpId b = 0; b < n; ++b) {
        const int c = compare_stage_order(s, a, b);
        ASSERT_NE(c, 0);
        if (a == b) continue;
        ASSERT_EQ(c, -compare_stage_order(s, b, a));
        for (OpId x = 0; x < n; ++x) {
          if (before(s, a, b) && before(s, b, x)) {
            ASSERT_TRUE(before(s, a, x));
          }
        }
      }
    }
    std::vector<OpId> sorted = ops_in_stage_order(s);
    for (int i = 1; i < n; ++i) ASSERT_TRUE(before(s, sorted[i - 1], sorted[i]));
  }
}

TEST(StageOrderCompare, ProblemNamesOpsSharingStageAndOrder) {
  const Graph g = Ops(3);
  EXPECT_EQ(stage_order_problem(g, WithStageOrder({0, 0, 1}, {0, 1, 0})), std::nullopt);
  const std::optional<std::string> tie =
      stage_order_problem(g, WithStageOrder({0, 1, 1}, {0, 2, 2}));
  ASSERT_TRUE(tie.has_value());
  EXPECT_EQ(*tie, "ops op1 and op2 share stage 1, order 2 ((stage, order) must be a total order)");
  const std::optional<std::string> size = stage_order_problem(g, WithStageOrder({0, 1}, {0, 0}));
  ASSERT_TRUE(size.has_value());
  EXPECT_NE(size->find("for 3 ops"), std::string::npos) << *size;
}

}  // namespace
}  // namespace tilesched::materialize_internal
