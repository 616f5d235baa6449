// Tests for the II screen: it rejects the IIs it should on hand-made
// graphs, and it never rejects an II where a schedule exists, checked
// against a brute-force search of rules L1 and L2 on tiny random graphs
// (the screen reasons about nothing else) and against the exact oracle's
// feasible IIs. Both of its closures (a caller's, its own) agree.
#include "ii_screen.h"

#include <gtest/gtest.h>

#include <vector>

#include "testing/capped_brute_force.h"
#include "tilesched/exact.h"
#include "tilesched/mii.h"
#include "tilesched/rng.h"

namespace tilesched {
namespace {

Op unit_op(const char* name, std::vector<Triple> resources) {
  Op op;
  op.name = name;
  op.kind = "generic";
  op.latency = 1;
  op.resources = std::move(resources);
  return op;
}

// a -> b (latency 4) and b -> a one iteration later (latency 0), both on
// one singleton slot for one cycle: s_b - s_a lies in [4, II] and must not
// be a multiple of II. II 3 closes a positive cycle, II 4 leaves only 4,
// II 5 has 4.
Graph tight_pair() {
  Graph g;
  g.name = "tight_pair";
  g.target = make_generic_target("t", {{"alu", 1, false}}, {});
  g.ops = {unit_op("a", {{1, 1, 1}}), unit_op("b", {{1, 1, 1}})};
  g.edges = {{0, 1, 4, 0, EdgeKind::kData}, {1, 0, 0, 1, EdgeKind::kData}};
  return g;
}

TEST(IiScreen, RejectsAnOverloadedArcAndAdmitsTheNextIi) {
  const Graph g = tight_pair();
  const Adjacency adj = Adjacency::build(g);
  DistanceMatrix shared;
  IiScreen with_closure(g, adj, &shared);
  IiScreen own(g, adj);
  for (IiScreen* s : {&with_closure, &own}) {
    EXPECT_EQ(s->check(3), IiScreen::Verdict::kCycle);  // 4 - 3 > 0 around the cycle
    EXPECT_EQ(s->check(4), IiScreen::Verdict::kSlotOverload);
    EXPECT_EQ(s->check(5), IiScreen::Verdict::kAdmit);
    EXPECT_EQ(s->rejected(), 2);
    EXPECT_EQ(s->rejected_by_cycle(), 1);
    EXPECT_EQ(s->rejected_by_overload(), 1);
  }
  EXPECT_TRUE(shared.valid());
  EXPECT_EQ(shared.ii(), 5);  // the caller's closure holds the last II checked
}

TEST(IiScreen, PooledSlotCountsUnits) {
  // Three ops of 2 units on a slot of capacity 4 on a zero-latency cycle:
  // all three start in the same cycle at any II, needing 6 units in one row.
  Graph g;
  g.name = "pooled";
  g.target = make_generic_target("t", {{"pool", 4, false}}, {});
  g.ops = {unit_op("a", {{1, 1, 2}}), unit_op("b", {{1, 1, 2}}), unit_op("c", {{1, 1, 2}})};
  g.ops[0].latency = g.ops[1].latency = g.ops[2].latency = 0;
  g.edges = {{0, 1, 0, 0, EdgeKind::kData},
             {1, 2, 0, 0, EdgeKind::kData},
             {2, 0, 0, 0, EdgeKind::kOrder}};
  const Adjacency adj = Adjacency::build(g);
  IiScreen s(g, adj);
  for (int64_t ii = 2; ii <= 6; ++ii) EXPECT_EQ(s.check(ii), IiScreen::Verdict::kSlotOverload);
}

TEST(IiScreen, GoesDormantAfterAdmittingInARowUntilRearmed) {
  const Graph g = tight_pair();
  const Adjacency adj = Adjacency::build(g);
  DistanceMatrix shared;
  IiScreen s(g, adj, &shared);
  for (int64_t ii = 5; ii < 5 + IiScreen::kPatience; ++ii) {
    EXPECT_FALSE(s.dormant());
    EXPECT_EQ(s.check(ii), IiScreen::Verdict::kAdmit);
  }
  EXPECT_TRUE(s.dormant());
  EXPECT_EQ(s.check(4), IiScreen::Verdict::kAdmit);  // dormant: not tested
  EXPECT_EQ(shared.ii(), 4 + IiScreen::kPatience);    // and no closure built
  s.rearm();
  EXPECT_EQ(s.check(4), IiScreen::Verdict::kSlotOverload);
}

// ------------------------------------------------------ against brute force

Graph random_tiny(uint64_t seed) {
  SplitMix64 rng(seed);
  Graph g;
  g.name = "tiny";
  const int64_t pooled = 2 + static_cast<int64_t>(rng.below(2));
  g.target = make_generic_target("t", {{"one", 1, false}, {"two", pooled, false}}, {});
  const int n = 2 + static_cast<int>(rng.below(3));
  for (int v = 0; v < n; ++v) {
    Op op = unit_op("op", {});
    op.name = "op" + std::to_string(v);
    op.latency = static_cast<int64_t>(rng.below(4));
    const int slot = 1 + static_cast<int>(rng.below(2));
    const int64_t units = slot == 1 ? 1 : 1 + static_cast<int64_t>(rng.below(2));
    op.resources = {{slot, 1 + static_cast<int64_t>(rng.below(3)), units}};
    g.ops.push_back(op);
  }
  const int m = 2 * n + static_cast<int>(rng.below(3));
  for (int e = 0; e < m; ++e) {
    int a = static_cast<int>(rng.below(n)), b = static_cast<int>(rng.below(n));
    int64_t dist = static_cast<int64_t>(rng.below(3));
    if (a >= b && dist == 0) dist = 1;  // distance-0 edges run forward only
    g.edges.push_back({a, b, static_cast<int64_t>(rng.below(5)), dist, EdgeKind::kData});
  }
  return g;
}

// Rules L1 and L2 alone for starts `s` at `ii`.
bool l1_l2_hold(const Graph& g, const std::vector<int64_t>& s, int64_t ii) {
  for (const Edge& e : g.edges) {
    if (s[e.to] - s[e.from] < e.latency - ii * e.distance) return false;
  }
  for (int slot = 1; slot <= g.target.slot_count(); ++slot) {
    std::vector<int64_t> used(static_cast<size_t>(ii), 0);
    for (OpId v = 0; v < g.op_count(); ++v) {
      for (const Triple& t : g.ops[v].resources) {
        if (t.slot != slot) continue;
        for (int64_t k = 0; k < t.duration; ++k) {
          const int64_t row = ((s[v] + k) % ii + ii) % ii;
          used[row] += g.target.slot(slot).capacity > 1 ? t.occupancy : 1;
          if (used[row] > g.target.slot(slot).capacity) return false;
        }
      }
    }
  }
  return true;
}

// Some starts within `reach` of op 0's (which is 0) meet L1 and L2.
bool brute_force_feasible(const Graph& g, int64_t ii, int64_t reach) {
  std::vector<int64_t> s(static_cast<size_t>(g.op_count()), -reach);
  s[0] = 0;
  while (true) {
    if (l1_l2_hold(g, s, ii)) return true;
    size_t i = 1;
    while (i < s.size() && s[i] == reach) s[i++] = -reach;
    if (i >= s.size()) return false;
    ++s[i];
  }
}

TEST(IiScreen, NeverRejectsAnIiBruteForceSchedules) {
  int rejected = 0, overloads = 0, feasible = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Graph g = random_tiny(seed);
    const Adjacency adj = Adjacency::build(g);
    DistanceMatrix shared;
    IiScreen with_closure(g, adj, &shared);
    IiScreen own(g, adj);
    for (int64_t ii = 1; ii <= 7; ++ii) {
      with_closure.rearm();
      own.rearm();
      const IiScreen::Verdict v = with_closure.check(ii);
      if (v != IiScreen::Verdict::kCycle) {
        EXPECT_EQ(own.check(ii), v) << "seed " << seed;
      }
      const bool exists = brute_force_feasible(g, ii, 14);
      feasible += exists;
      if (exists) {
        EXPECT_EQ(v, IiScreen::Verdict::kAdmit) << "seed " << seed << " II " << ii;
      } else if (v != IiScreen::Verdict::kAdmit) {
        ++rejected;
        overloads += v == IiScreen::Verdict::kSlotOverload;
      }
    }
  }
  // Not vacuous: the screen does reject, by both tests, and schedules exist.
  EXPECT_GT(feasible, 100);
  EXPECT_GT(rejected, 50);
  EXPECT_GT(overloads, 10);
}

// With every op capped (rule L6), the screen's own closure takes the
// stages as edges to a root (IiScreen::depth_rooted): it must still admit
// every II where a schedule exists within the stages, and it now rejects
// IIs the caller's closure (no root) admits.
TEST(IiScreen, TheStageRootNeverRejectsAnIiBruteForceSchedules) {
  int feasible = 0, by_root = 0;
  for (uint64_t seed = 1; seed <= 4000; ++seed) {
    const Graph g = random_capped_tiny(seed);
    const Adjacency adj = Adjacency::build(g);
    DistanceMatrix shared;
    IiScreen rooted(g, adj);
    IiScreen plain(g, adj, &shared);
    const int64_t mii = compute_mii(g).max();
    for (int64_t ii = mii; ii < mii + 6; ++ii) {
      rooted.rearm();
      plain.rearm();
      const IiScreen::Verdict v = rooted.check(ii);
      const bool exists = brute_force_schedules(g, ii);
      feasible += exists;
      if (exists) {
        EXPECT_EQ(v, IiScreen::Verdict::kAdmit) << "seed " << seed << " II " << ii;
      }
      by_root += v != IiScreen::Verdict::kAdmit && plain.check(ii) == IiScreen::Verdict::kAdmit;
    }
  }
  EXPECT_GT(feasible, 1000) << "by root " << by_root;
  EXPECT_GT(by_root, 200) << "feasible " << feasible;
}

// ------------------------------------------------------ against the oracle

TEST(IiScreen, AdmitsEveryIiTheOracleFindsFeasible) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    const Graph g = random_tiny(1000 + seed);
    ExactOptions opts;
    opts.time_limit_ms = 2000;
    opts.minimise_stages = false;
    StatusOr<ExactResult> r = generate_exact(g, opts);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Adjacency adj = Adjacency::build(g);
    DistanceMatrix shared;
    IiScreen screen(g, adj, &shared);
    for (const IiAttempt& a : r->attempts) {
      if (a.outcome != IiOutcome::kFeasible) continue;
      screen.rearm();
      EXPECT_EQ(screen.check(a.ii), IiScreen::Verdict::kAdmit) << "seed " << seed;
      ++checked;
    }
    if (r->schedule.feasible) {
      screen.rearm();
      EXPECT_EQ(screen.check(r->schedule.ii), IiScreen::Verdict::kAdmit) << "seed " << seed;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace tilesched
