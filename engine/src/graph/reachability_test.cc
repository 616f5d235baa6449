#include "graph/reachability.h"

#include <gtest/gtest.h>

#include <vector>

#include "tilesched/rng.h"

namespace tilesched {
namespace {

Graph random_graph(SplitMix64& rng, int n, int edges) {
  Graph g;
  g.target = make_generic_target("t", {{"a", 1, false}}, {});
  for (int v = 0; v < n; ++v) g.ops.push_back(Op{"n" + std::to_string(v), "generic"});
  for (int e = 0; e < edges; ++e) {
    const OpId a = static_cast<OpId>(rng.uniform(0, n - 1));
    const OpId b = static_cast<OpId>(rng.uniform(0, n - 1));
    g.edges.push_back({a, b, 1, a < b ? 0 : 1});  // self-edges and cycles included
  }
  return g;
}

// A path of one edge or more from a, by breadth-first search.
std::vector<char> searched_from(const Graph& g, const Adjacency& adj, OpId a) {
  std::vector<char> seen(g.ops.size(), 0);
  std::vector<OpId> queue;
  auto push_successors = [&](OpId x) {
    for (int p = adj.out_begin[x]; p < adj.out_begin[x + 1]; ++p) {
      const OpId y = g.edges[adj.out_edges[p]].to;
      if (!seen[y]) {
        seen[y] = 1;
        queue.push_back(y);
      }
    }
  };
  push_successors(a);
  for (size_t head = 0; head < queue.size(); ++head) push_successors(queue[head]);
  return seen;
}

TEST(Reachability, AgreesWithASearchFromEveryOp) {
  SplitMix64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const int n = static_cast<int>(rng.uniform(1, round < 150 ? 12 : 150));
    const Graph g = random_graph(rng, n, static_cast<int>(rng.uniform(0, 2 * n)));
    const Adjacency adj = Adjacency::build(g);
    const Reachability r(g, adj);
    for (OpId a = 0; a < n; ++a) {
      const std::vector<char> want = searched_from(g, adj, a);
      for (OpId b = 0; b < n; ++b) {
        ASSERT_EQ(r.reaches(a, b), want[b] != 0) << "round " << round << ": " << a << " -> " << b;
      }
    }
  }
}

TEST(Reachability, CountsItsBuild) {
  // 0 -> 1 -> 2, 2 -> 0 a loop-carried edge: one cyclic component, 3 -> 0 outside it.
  Graph g;
  g.target = make_generic_target("t", {{"a", 1, false}}, {});
  for (int v = 0; v < 4; ++v) g.ops.push_back(Op{"n" + std::to_string(v), "generic"});
  g.edges = {{0, 1, 1, 0}, {1, 2, 1, 0}, {2, 0, 1, 1}, {3, 0, 1, 0}};
  const Adjacency adj = Adjacency::build(g);
  const Reachability r(g, adj);
  EXPECT_TRUE(r.reaches(0, 0));
  EXPECT_TRUE(r.reaches(3, 2));
  EXPECT_FALSE(r.reaches(3, 3));
  EXPECT_FALSE(r.reaches(0, 3));
  EXPECT_GE(r.build_work(), static_cast<int64_t>(g.edges.size()));
}

}  // namespace
}  // namespace tilesched
