#include "tilesched/explain.h"

#include <gtest/gtest.h>

#include "testing/test_graphs.h"
#include "tilesched/exact.h"
#include "tilesched/mii.h"
#include "tilesched/verify.h"

namespace tilesched {
namespace {

Target xy() { return make_generic_target("t", {{"x", 1, false}, {"y", 1, false}}, {}); }

std::vector<std::string> names(const Graph& g, const std::vector<OpId>& ops) {
  std::vector<std::string> out;
  for (OpId v : ops) out.push_back(g.ops[v].name);
  return out;
}

TEST(Explain, AtTheResourceBoundNamesTheSlotAndItsHolders) {
  GraphBuilder b(xy());
  b.generic("a", 7, {{1, 7, 1}});
  b.generic("b", 7, {{1, 7, 1}});
  b.generic("c", 3, {{2, 3, 1}});
  const Graph g = Build(b);
  StatusOr<Explanation> e = explain_ii(g, 14, {});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->verdict, ExplainVerdict::kAtBound);
  EXPECT_EQ(e->bound, "resource");
  EXPECT_EQ(names(g, e->ops), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(e->resources, (std::vector<std::string>{"x"}));
  EXPECT_EQ(e->checks, 0);
}

TEST(Explain, AtTheRecurrenceBoundNamesTheCycle) {
  GraphBuilder b(xy());
  const OpId a = b.generic("a", 3, {{1, 1, 1}});
  const OpId c = b.generic("b", 2, {{2, 1, 1}});
  b.generic("lone", 1, {{2, 1, 1}});
  b.edge(a, c, 3);
  b.edge(c, a, 4, 1);
  const Graph g = Build(b);
  StatusOr<Explanation> e = explain_ii(g, 7, {});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->verdict, ExplainVerdict::kAtBound);
  EXPECT_EQ(e->bound, "recurrence");
  EXPECT_EQ(names(g, e->ops), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(e->edges, (std::vector<int>{0, 1}));
  EXPECT_NE(e->summary.find("ceil(7 / 1) = 7"), std::string::npos) << e->summary;
}

TEST(Explain, AtTheDependencyBoundNamesTheSqueezedPath) {
  GraphBuilder b(xy());
  const OpId a = b.generic("a", 4, {{1, 1, 1}});
  const OpId c = b.generic("b", 4, {{2, 1, 1}});
  const OpId d = b.generic("c", 1, {{1, 1, 1}});
  b.edge(a, c);
  b.edge(c, d);
  b.at(d).max_depth = 0;  // the 8-cycle path a -> b -> c in one stage: II >= 9
  const Graph g = Build(b);
  StatusOr<Explanation> e = explain_ii(g, 9, {});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->bound, "dependency");
  EXPECT_EQ(names(g, e->ops), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(e->edges, (std::vector<int>{0, 1}));
}

// a holds x for 2 cycles, b for 1; a -> b (latency 1) and b -> a one
// iteration later (latency 2) pin s_b = s_a + 1 at II 3 = the MII, where b
// meets a's second cycle on x. The optimum is 4; c and its edge are
// unrelated, so the core is a, b, both edges and x.
Graph PinnedPair() {
  GraphBuilder b(xy());
  const OpId a = b.generic("a", 1, {{1, 2, 1}});
  const OpId c = b.generic("b", 1, {{1, 1, 1}});
  const OpId d = b.generic("c", 1, {{2, 1, 1}});
  b.edge(a, c, 1);
  b.edge(c, a, 2, 1);
  b.edge(c, d, 1);
  return Build(b);
}

TEST(Explain, AboveTheMiiTheCoreIsProvenAndMinimal) {
  const Graph g = PinnedPair();
  ASSERT_EQ(compute_mii(g).max(), 3);
  StatusOr<Explanation> e = explain_ii(g, 4, {});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->verdict, ExplainVerdict::kCore) << e->summary;
  EXPECT_EQ(names(g, e->ops), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(e->edges, (std::vector<int>{0, 1}));
  EXPECT_EQ(e->resources, (std::vector<std::string>{"x"}));
  EXPECT_TRUE(e->minimal);
  EXPECT_GT(e->checks, 1);
  // The core on its own: no legal schedule below II 4.
  Graph core = g;
  core.ops.pop_back();
  core.edges.pop_back();
  StatusOr<ExactResult> r = generate_exact(core, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->schedule.ii, 4);
  EXPECT_TRUE(r->schedule.proven_optimal);
}

TEST(Explain, AnIiThatIsNotTheLeastSaysWhichIsLegal) {
  StatusOr<Explanation> e = explain_ii(PinnedPair(), 6, {});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->verdict, ExplainVerdict::kLowerFeasible);
  EXPECT_LT(e->lower_ii, 6);
  EXPECT_GE(e->lower_ii, 4);
  // The witness: a legal schedule at lower_ii.
  ASSERT_TRUE(e->witness.has_value());
  EXPECT_EQ(e->witness->ii, e->lower_ii);
  EXPECT_TRUE(verify_schedule(PinnedPair(), *e->witness).legal());
}

TEST(Explain, WithoutTimeTheAnswerIsOpen) {
  ExplainOptions opts;
  opts.time_limit_ms = 0;
  StatusOr<Explanation> e = explain_ii(PinnedPair(), 4, opts);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->verdict, ExplainVerdict::kOpen);
}

}  // namespace
}  // namespace tilesched
