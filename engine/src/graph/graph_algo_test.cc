#include "graph_algo.h"

#include <gtest/gtest.h>

namespace tilesched {
namespace {

Target two_slots() { return make_generic_target("t", {{"a", 1, false}, {"b", 1, false}}, {}); }

// Builds without validation so tests can hold cycles the validator refuses.
Graph raw_graph(int n, std::vector<Edge> edges) {
  Graph g;
  g.target = two_slots();
  for (int v = 0; v < n; ++v) g.ops.push_back(Op{"n" + std::to_string(v), "generic"});
  g.edges = std::move(edges);
  return g;
}

TEST(GraphAlgo, ComponentsAreReverseTopological) {
  // 0 -> 1 <-> 2 -> 3
  Graph g = raw_graph(4, {{0, 1, 1, 0}, {1, 2, 1, 0}, {2, 1, 1, 1}, {2, 3, 1, 0}});
  const Adjacency adj = Adjacency::build(g);
  const Components all = strongly_connected(g, adj, EdgeFilter::kAll);
  EXPECT_EQ(all.count, 3);
  EXPECT_EQ(all.component[1], all.component[2]);
  EXPECT_GT(all.component[0], all.component[1]);  // edges go high -> low
  EXPECT_GT(all.component[1], all.component[3]);
  // Without the loop-carried edge 2 -> 1 every op is alone.
  EXPECT_EQ(strongly_connected(g, adj, EdgeFilter::kZeroDistance).count, 4);
}

TEST(GraphAlgo, ComponentMembersListEachComponentInIdOrder) {
  // 0 -> 1 <-> 2 -> 3, 4 <-> 0 across iterations, 5 alone.
  Graph g = raw_graph(6, {{0, 1, 1, 0}, {1, 2, 1, 0}, {2, 1, 1, 1}, {2, 3, 1, 0},
                          {4, 0, 1, 0}, {0, 4, 1, 2}});
  const Adjacency adj = Adjacency::build(g);
  for (EdgeFilter filter : {EdgeFilter::kAll, EdgeFilter::kZeroDistance}) {
    const Components c = strongly_connected(g, adj, filter);
    const ComponentMembers m = component_members(c);
    ASSERT_EQ(m.begin.size(), static_cast<size_t>(c.count) + 1);
    EXPECT_EQ(m.begin.back(), g.op_count());
    for (int k = 0; k < c.count; ++k) {
      std::vector<OpId> want;
      for (OpId v = 0; v < g.op_count(); ++v) {
        if (c.component[v] == k) want.push_back(v);
      }
      EXPECT_EQ(std::vector<OpId>(m.of(k).begin(), m.of(k).end()), want) << "component " << k;
    }
  }
}

TEST(GraphAlgo, DeepChainDoesNotRecurse) {
  const int n = 8000;
  std::vector<Edge> edges;
  for (int v = 0; v + 1 < n; ++v) edges.push_back({v, v + 1, 1, 0});
  edges.push_back({n - 1, 0, 1, 1});
  Graph g = raw_graph(n, edges);
  const Adjacency adj = Adjacency::build(g);
  EXPECT_EQ(strongly_connected(g, adj, EdgeFilter::kAll).count, 1);
  const std::vector<int64_t> lp = longest_zero_distance_paths(g, adj);
  EXPECT_EQ(lp[n - 1], n - 1);
}

TEST(GraphAlgo, ZeroDistancePositiveCycleIsFound) {
  Graph g = raw_graph(3, {{0, 1, 0, 0}, {1, 2, 2, 0}, {2, 1, 0, 0}});
  const Adjacency adj = Adjacency::build(g);
  EXPECT_EQ(find_zero_distance_positive_cycle(g, adj), 1);
}

TEST(GraphAlgo, ZeroLatencyOrLoopCarriedCyclesAreFine) {
  Graph zero = raw_graph(2, {{0, 1, 0, 0}, {1, 0, 0, 0}});
  EXPECT_EQ(find_zero_distance_positive_cycle(zero, Adjacency::build(zero)), std::nullopt);
  Graph carried = raw_graph(2, {{0, 1, 5, 0}, {1, 0, 5, 1}});
  EXPECT_EQ(find_zero_distance_positive_cycle(carried, Adjacency::build(carried)),
            std::nullopt);
}

// Ops 0 and 1 lie on a zero-latency zero-distance cycle, so they start
// together at every II; op 2 joins them through a loop-carried edge only.
Graph forced_pair(Triple first, Triple second, Triple third) {
  Graph g = raw_graph(3, {{0, 1, 0, 0}, {1, 0, 0, 0}, {1, 2, 0, 1}, {2, 1, 0, 1}});
  g.ops[0].resources = {first};
  g.ops[1].resources = {second};
  g.ops[2].resources = {third};
  return g;
}

TEST(GraphAlgo, OpsForcedTogetherOnOneSingletonSlotConflictAtEveryIi) {
  const Graph g = forced_pair({1, 1, 1}, {1, 3, 1}, {2, 1, 1});
  const std::optional<std::string> why = forced_together_conflict(g, Adjacency::build(g));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("ops n0 and n1"), std::string::npos) << *why;
  EXPECT_NE(why->find("slot a (capacity 1)"), std::string::npos) << *why;
}

TEST(GraphAlgo, OpsForcedTogetherOnDistinctSlotsOrOnlyAcrossIterationsDoNotConflict) {
  const Graph apart = forced_pair({1, 1, 1}, {2, 1, 1}, {1, 1, 1});
  EXPECT_EQ(forced_together_conflict(apart, Adjacency::build(apart)), std::nullopt);
  // A pooled slot of capacity 2 holds both; a zero-duration hold is none.
  Graph pooled = forced_pair({1, 1, 1}, {1, 1, 1}, {2, 1, 1});
  pooled.target = make_generic_target("t", {{"a", 2, false}, {"b", 1, false}}, {});
  EXPECT_EQ(forced_together_conflict(pooled, Adjacency::build(pooled)), std::nullopt);
  pooled.ops[2].resources = {{1, 1, 1}};  // a third holder, but not forced together
  EXPECT_EQ(forced_together_conflict(pooled, Adjacency::build(pooled)), std::nullopt);
  pooled.ops[1].resources = {{1, 1, 2}};
  EXPECT_NE(forced_together_conflict(pooled, Adjacency::build(pooled)), std::nullopt);
}

TEST(GraphAlgo, LongestPathsIgnoreLoopCarriedEdgesAndCollapseZeroCycles) {
  // 0 -3-> 1 <-0-> 2 -4-> 3, plus 0 -10-> 3 and a carried 3 -> 0.
  Graph g = raw_graph(4, {{0, 1, 3, 0}, {1, 2, 0, 0}, {2, 1, 0, 0}, {2, 3, 4, 0},
                          {0, 3, 10, 0}, {3, 0, 100, 1}});
  const std::vector<int64_t> lp = longest_zero_distance_paths(g, Adjacency::build(g));
  EXPECT_EQ(lp, (std::vector<int64_t>{0, 3, 3, 10}));
}

}  // namespace
}  // namespace tilesched
