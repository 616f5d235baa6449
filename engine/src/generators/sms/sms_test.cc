// Swing modulo scheduling: the node sets and the swing order on a textbook
// graph, every bundled example and random graphs through the independent
// verifier, each rule the published algorithm has no notion of (groups,
// max_depth, storage, force-serial), and determinism.
#include "tilesched/sms.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "testing/test_files.h"
#include "testing/test_graphs.h"
#include "bounds/distance.h"
#include "llvm_bound.h"
#include "order.h"
#include "paths.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/mii.h"
#include "tilesched/rng.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"

namespace tilesched::sms {
namespace {

int64_t Stat(const Schedule& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat " << name;
  return -1;
}

// Schedules g, checks that the verifier accepts a feasible result.
Schedule Sms(const Graph& g, SmsOptions opts = {}, const IiSearchOptions& search = {}) {
  const Schedule s = generate_sms(g, opts, search);
  EXPECT_EQ(s.generator, "sms");
  if (s.feasible) {
    EXPECT_GE(s.ii, s.mii.max()) << g.name;
    for (const Violation& v : verify_schedule(g, s).violations) {
      ADD_FAILURE() << g.name << ": " << rule_name(v.rule) << ": " << v.message;
    }
  }
  return s;
}

// The timing by longest paths (paths.h) at ii.
Timing TimingAt(const Graph& g, const Adjacency& adj, int64_t ii) {
  std::vector<int64_t> asap, height;
  EXPECT_TRUE(longest_path_timing(PathGraph(g, adj), ii, asap, height));
  return timing_from(asap, height);
}

// Two recurrences and the ops around them:
//   a -> b <-> c -> d -> e <-> f -> g
// {b, c} has RecMII 4 ((2 + 2) / 1), {e, f} RecMII 2; d lies on the path
// from the first to the second, a and g are left over.
struct Textbook {
  Graph g;
  OpId a, b, c, d, e, f, gg;
};
Textbook MakeTextbook() {
  GraphBuilder bld(make_generic_target("textbook", {Slot{"X", 1}}, {}), "textbook");
  Textbook t;
  t.a = bld.generic("a", 1);
  t.b = bld.generic("b", 2);
  t.c = bld.generic("c", 2);
  t.d = bld.generic("d", 1);
  t.e = bld.generic("e", 1);
  t.f = bld.generic("f", 1);
  t.gg = bld.generic("g", 1);
  bld.edge(t.a, t.b, 1);
  bld.edge(t.b, t.c, 2);
  bld.edge(t.c, t.b, 2, 1);
  bld.edge(t.c, t.d, 1);
  bld.edge(t.d, t.e, 1);
  bld.edge(t.e, t.f, 1);
  bld.edge(t.f, t.e, 1, 1);
  bld.edge(t.f, t.gg, 1);
  t.g = Build(bld);
  return t;
}

TEST(Sms, NodeSetsFollowRecurrencesByRecMii) {
  const Textbook t = MakeTextbook();
  const NodeSets sets = find_node_sets(t.g, Adjacency::build(t.g));
  ASSERT_EQ(sets.sets.size(), 3u);
  EXPECT_EQ(sets.recurrences, 2);
  EXPECT_EQ(sets.sets[0], (std::vector<OpId>{t.b, t.c}));
  EXPECT_EQ(sets.sets[1], (std::vector<OpId>{t.d, t.e, t.f}));  // d: on the path
  EXPECT_EQ(sets.sets[2], (std::vector<OpId>{t.a, t.gg}));
  EXPECT_EQ(sets.rec_mii, (std::vector<int64_t>{4, 2, 0}));
}

TEST(Sms, TimingAndSwingOrderOnTextbookGraph) {
  const Textbook t = MakeTextbook();
  const Adjacency adj = Adjacency::build(t.g);
  const Timing timing = TimingAt(t.g, adj, 4);
  EXPECT_EQ(timing.asap, (std::vector<int64_t>{0, 1, 3, 4, 5, 6, 7}));
  EXPECT_EQ(timing.height, (std::vector<int64_t>{7, 6, 4, 3, 2, 1, 0}));
  for (OpId v = 0; v < t.g.op_count(); ++v) EXPECT_EQ(timing.mobility(v), 0);
  // {b, c} alone: bottom-up from the largest ASAP (c); {d, e, f} hangs
  // below c: top-down from d; {a, g}: a feeds b (bottom-up), then g.
  const std::vector<OpId> order =
      swing_order(t.g, adj, find_node_sets(t.g, adj), timing);
  EXPECT_EQ(order, (std::vector<OpId>{t.c, t.b, t.d, t.e, t.f, t.a, t.gg}));
}

TEST(Sms, SwingPrefersHeightThenMobilityTopDown) {
  // r feeds x (long path below) and y (short): top-down takes x first.
  GraphBuilder bld(make_generic_target("fan", {Slot{"X", 1}}, {}), "fan");
  const OpId r = bld.generic("r", 1), y = bld.generic("y", 1), x = bld.generic("x", 1),
             z = bld.generic("z", 1), src = bld.generic("src", 1);
  bld.edge(src, r, 1);
  bld.edge(r, x, 1);
  bld.edge(r, y, 1);
  bld.edge(x, z, 5);
  bld.edge(r, src, 1, 1);  // {src, r} is the only recurrence
  const Graph g = Build(bld);
  const Adjacency adj = Adjacency::build(g);
  const std::vector<OpId> order = swing_order(g, adj, find_node_sets(g, adj), TimingAt(g, adj, 2));
  // {src, r}: bottom-up from r; the rest hangs below r: top-down, x (height
  // 5) first; then z and y, both of height 0: z has no mobility.
  EXPECT_EQ(order, (std::vector<OpId>{r, src, x, z, y}));
}

TEST(Sms, TextbookGraphReachesRecMii) {
  const Textbook t = MakeTextbook();
  const Schedule s = Sms(t.g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, 4);
  EXPECT_EQ(Stat(s, "node_sets"), 3);
  EXPECT_EQ(Stat(s, "recurrence_sets"), 2);
  EXPECT_EQ(Stat(s, "ii_tried"), 1);
  EXPECT_EQ(s.diagnostics.front(), "swing order at II 4: c, b, d, e, f, a, g");
}

TEST(Sms, EveryExampleVerifies) {
  for (const std::string& file : example_files()) {
    SCOPED_TRACE(file);
    StatusOr<Graph> g = read_graph_file(file);
    ASSERT_TRUE(g.ok()) << g.status().message();
    const Schedule serial = generate_serial(*g);
    const Schedule s = Sms(*g);
    if (serial.feasible) {
      ASSERT_TRUE(s.feasible);
      EXPECT_LE(s.ii, serial.ii);
    }
  }
}

TEST(Sms, ForceSerialKeepsTheSerialSchedule) {
  StatusOr<Graph> g = read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) +
                                      "/force_serial.loop.json");
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(g->attrs.force_serial_execution);
  const Schedule serial = generate_serial(*g);
  const Schedule s = Sms(*g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, serial.ii);
  EXPECT_EQ(s.start, serial.start);
  EXPECT_EQ(s.flags, (std::vector<std::string>{"force_serial"}));
}

TEST(Sms, LeaderGroupSharesAStage) {
  // a -> b -> c, 5 cycles apart; a and c share a group, so II >= 11 even
  // though the slot alone allows 6. At 11, c (at a + 10, two cycles on X)
  // wraps onto a's row 0: 12 is the least.
  GraphBuilder bld(make_generic_target("grp", {Slot{"X", 1}}, {}), "grp");
  const OpId a = bld.generic("a", 5, {{1, 2, 1}}), b = bld.generic("b", 5, {{1, 2, 1}}),
             c = bld.generic("c", 1, {{1, 2, 1}});
  bld.edge(a, b);
  bld.edge(b, c);
  bld.at(a).leader_gid = 3;
  bld.at(c).leader_gid = 3;
  const Graph g = Build(bld);
  const Schedule s = Sms(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.mii.max(), 6);
  EXPECT_EQ(s.ii, 12);
  EXPECT_EQ(Stat(s, "ii_tried"), 2);
  EXPECT_EQ(s.stage[a], s.stage[c]);
}

TEST(Sms, GroupPlacedAsOneUnitAgainstPlacedNeighbours) {
  // x feeds both members of a group {p, q}, which sit on a chain p -> q;
  // the unit must land in one stage after x.
  GraphBuilder bld(make_generic_target("unit", {Slot{"X", 1}, Slot{"Y", 1}}, {}), "unit");
  const OpId x = bld.generic("x", 7, {{1, 3, 1}}), p = bld.generic("p", 2, {{2, 2, 1}}),
             q = bld.generic("q", 1, {{2, 2, 1}}), w = bld.generic("w", 1, {{1, 3, 1}});
  bld.edge(x, p);
  bld.edge(x, q, 3);
  bld.edge(p, q);
  bld.edge(q, w);
  bld.edge(w, x, 1, 2);
  bld.at(p).leader_gid = 1;
  bld.at(q).leader_gid = 1;
  const Graph g = Build(bld);
  const Schedule s = Sms(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.stage[p], s.stage[q]);
}

TEST(Sms, MaxDepthBoundsTheStage) {
  // A chain of 30 cycles at ResMII 4: without a bound c lands in stage 7;
  // max_depth 1 keeps it in stage 1 (and DepMII raises II to 16).
  GraphBuilder bld(make_generic_target("deep", {Slot{"X", 1}}, {}), "deep");
  const OpId a = bld.generic("a", 10, {{1, 1, 1}}), b = bld.generic("b", 10, {{1, 1, 1}}),
             c = bld.generic("c", 10, {{1, 1, 1}}), d = bld.generic("d", 1, {{1, 1, 1}});
  bld.edge(a, b);
  bld.edge(b, c);
  bld.edge(c, d);
  const Graph free_graph = Build(bld);
  const Schedule free_s = Sms(free_graph);
  ASSERT_TRUE(free_s.feasible);
  EXPECT_EQ(free_s.ii, 4);
  EXPECT_GE(free_s.stage[d], 2);
  bld.at(d).max_depth = 1;
  const Graph g = Build(bld);
  const Schedule s = Sms(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_LE(s.stage[d], 1);
  EXPECT_EQ(s.ii, 16);  // DepMII: ceil((30 + 1) / 2)
}

TEST(Sms, ASchedulePastLlvmsStageBoundIsFlagged) {
  // A chain of 30 cycles at ResMII 4 takes 8 stages: legal, kept, and
  // flagged as one LLVM's pipeliner would not emit (more than 4 stages).
  GraphBuilder bld(make_generic_target("deep", {Slot{"X", 1}}, {}), "deep");
  const OpId a = bld.generic("a", 10, {{1, 1, 1}}), b = bld.generic("b", 10, {{1, 1, 1}}),
             c = bld.generic("c", 10, {{1, 1, 1}}), d = bld.generic("d", 1, {{1, 1, 1}});
  bld.edge(a, b);
  bld.edge(b, c);
  bld.edge(c, d);
  const Schedule deep = Sms(Build(bld));
  ASSERT_TRUE(deep.feasible);
  ASSERT_GT(deep.stage_count, kLlvmStageBound);
  EXPECT_NE(std::find(deep.flags.begin(), deep.flags.end(), kOverLlvmStageBound), deep.flags.end());
  EXPECT_TRUE(std::any_of(deep.diagnostics.begin(), deep.diagnostics.end(),
                          [](const std::string& line) {
                            return line.find("LLVM would leave this loop unpipelined") !=
                                   std::string::npos;
                          }));
  const Schedule shallow = Sms(MakeTextbook().g);
  ASSERT_TRUE(shallow.feasible);
  ASSERT_LE(shallow.stage_count, kLlvmStageBound);
  EXPECT_EQ(std::find(shallow.flags.begin(), shallow.flags.end(), kOverLlvmStageBound),
            shallow.flags.end());
}

TEST(Sms, MaxDepthFailureIsReportedAndSkipped) {
  // Bottom-up placement from d pushes its predecessors down; their stage
  // bound is relative to the lowest stage, so d's max_depth binds them.
  GraphBuilder bld(make_generic_target("deep2", {Slot{"X", 1}}, {}), "deep2");
  const OpId a = bld.generic("a", 6, {{1, 1, 1}}), b = bld.generic("b", 6, {{1, 1, 1}}),
             c = bld.generic("c", 1, {{1, 1, 1}});
  bld.edge(a, b);
  bld.edge(b, c);
  bld.at(c).max_depth = 0;
  const Graph g = Build(bld);
  const Schedule s = Sms(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.stage[c], 0);
  EXPECT_GE(s.ii, 13);  // DepMII: c is 12 cycles after a, all in stage 0
}

TEST(Sms, StorageIsCheckedAfterPlacementAndRetried) {
  // w's buffer lives 21 cycles (r starts 20 later and holds 1): two copies
  // until II 21, which the 150-byte pool cannot hold.
  GraphBuilder bld(make_generic_target("smem", {Slot{"X", 1}},
                                       {Pool{"smem", PoolKind::kStorage, 150}}),
                   "smem");
  const OpId w = bld.generic("w", 20, {{1, 1, 1}}), r = bld.generic("r", 1, {{1, 1, 1}});
  bld.edge(w, r);
  bld.at(w).store_bytes = 100;
  const Graph g = Build(bld);
  const Schedule s = Sms(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, 21);
  EXPECT_EQ(Stat(s, "ii_failed.storage"), 19);  // II 2 .. 20
  bool named = false;
  for (const std::string& line : s.diagnostics) {
    named |= line.starts_with("II 2 failed (storage)");
  }
  EXPECT_TRUE(named);

  bld.at(r).store_bytes = 100;  // 200 bytes at every II
  const Schedule over = Sms(Build(bld));
  EXPECT_FALSE(over.feasible);
  EXPECT_EQ(over.failure, FailureReason::kStorageBudget);
}

TEST(Sms, DiagnosticsNameTheOrderAndTruncateIt) {
  // A 40-op chain: the order names the first 32 ops, then a count.
  GraphBuilder bld(make_generic_target("chain", {Slot{"X", 1}}, {}), "chain");
  OpId prev = bld.generic("c0", 1);
  for (int i = 1; i < 40; ++i) {
    const OpId next = bld.generic("c" + std::to_string(i), 1);
    bld.edge(prev, next);
    prev = next;
  }
  const Schedule s = Sms(Build(bld));
  ASSERT_TRUE(s.feasible);
  ASSERT_FALSE(s.diagnostics.empty());
  EXPECT_TRUE(s.diagnostics.front().starts_with("swing order at II 1: c39, c38, "));
  EXPECT_TRUE(s.diagnostics.front().ends_with(", ... (8 more)")) << s.diagnostics.front();
}

TEST(Sms, IiCapIsHonoured) {
  const Textbook t = MakeTextbook();
  IiSearchOptions search;
  search.ii_cap = 3;  // below RecMII: nothing is tried
  const Schedule s = Sms(t.g, {}, search);
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kIiCapReached);
  EXPECT_EQ(Stat(s, "ii_tried"), 0);
}

// A random graph on a small generic target: two singleton slots, a pooled
// slot, a rate pool, an SMEM pool; forward distance-0 edges, loop-carried
// edges anywhere, some groups and stage bounds.
Graph RandomGraph(SplitMix64& rng, int index) {
  const Target target = make_generic_target(
      "rand", {Slot{"X", 1}, Slot{"Y", 1}, Slot{"P", 3}},
      {Pool{"tmem", PoolKind::kRate, 2}, Pool{"smem", PoolKind::kStorage, 8192}});
  GraphBuilder b(target, "random-" + std::to_string(index));
  const int n = static_cast<int>(rng.uniform(2, 24));
  for (int v = 0; v < n; ++v) {
    std::vector<Triple> res;
    if (rng.chance_per_mille(600)) res.push_back({1, rng.uniform(1, 4), 1});
    if (rng.chance_per_mille(400)) res.push_back({2, rng.uniform(1, 3), 1});
    if (rng.chance_per_mille(300)) res.push_back({3, rng.uniform(1, 4), rng.uniform(1, 3)});
    const OpId op = b.generic("v" + std::to_string(v), rng.uniform(0, 8), res);
    if (rng.chance_per_mille(200)) b.at(op).pools.push_back({0, rng.uniform(1, 2)});
    if (rng.chance_per_mille(200)) b.at(op).store_bytes = 1024;
    if (rng.chance_per_mille(100)) b.at(op).max_depth = rng.uniform(0, 3);
    if (rng.chance_per_mille(150)) b.at(op).leader_gid = rng.uniform(1, 3);
  }
  const int64_t m = rng.uniform(0, 2 * n);
  for (int64_t i = 0; i < m; ++i) {
    const int u = static_cast<int>(rng.uniform(0, n - 1));
    const int v = static_cast<int>(rng.uniform(0, n - 1));
    const int64_t latency = rng.uniform(0, 12);
    if (u < v) {
      b.edge(u, v, latency, rng.chance_per_mille(200) ? rng.uniform(1, 2) : 0,
             rng.chance_per_mille(300) ? EdgeKind::kOrder : EdgeKind::kData);
    } else {
      b.edge(u, v, latency, rng.uniform(1, 3));
    }
  }
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

TEST(Sms, RandomGraphsVerifyWhereSerialSchedules) {
  SplitMix64 rng(14);
  int feasible = 0, serial_feasible = 0, at_mii = 0, fallback = 0;
  for (int i = 0; i < 400; ++i) {
    const Graph g = RandomGraph(rng, i);
    SCOPED_TRACE(g.name);
    const Schedule serial = generate_serial(g);
    const Schedule s = Sms(g);
    if (!serial.feasible) continue;
    ++serial_feasible;
    EXPECT_TRUE(s.feasible);
    if (!s.feasible) continue;
    ++feasible;
    EXPECT_LE(s.ii, serial.ii);
    if (s.ii == s.mii.max()) ++at_mii;
    fallback += static_cast<int>(Stat(s, "serial_fallback"));
  }
  EXPECT_GE(serial_feasible, 300);
  EXPECT_EQ(feasible, serial_feasible);
  // Sanity floors, not quality claims: these graphs carry many stage
  // bounds and groups, which a placement without backtracking often
  // cannot meet below the serial II.
  EXPECT_GE(at_mii, feasible / 4);
  EXPECT_LE(fallback, feasible / 2);
}

// The closure's timing (Rau's MinDist, distance.h): the oracle for paths.h.
void ClosureTiming(const DistanceMatrix& d, std::vector<int64_t>& asap,
                   std::vector<int64_t>& height) {
  asap.assign(static_cast<size_t>(d.size()), 0);
  height.assign(static_cast<size_t>(d.size()), 0);
  for (OpId u = 0; u < d.size(); ++u) {
    for (OpId v = 0; v < d.size(); ++v) {
      if (!d.has_path(u, v)) continue;
      asap[v] = std::max(asap[v], d.at(u, v));
      height[u] = std::max(height[u], d.at(u, v));
    }
  }
}

TEST(SmsPaths, TimingEqualsTheClosuresAndFindsPositiveCycles) {
  SplitMix64 rng(31);
  int below_rec_mii = 0;
  for (int i = 0; i < 300; ++i) {
    const Graph g = RandomGraph(rng, i);
    SCOPED_TRACE(g.name);
    const Adjacency adj = Adjacency::build(g);
    const PathGraph pg(g, adj);
    const int64_t rec = recurrence_mii(g);
    for (int64_t ii = std::max<int64_t>(1, rec - 2); ii <= rec + 3; ++ii) {
      DistanceMatrix d;
      d.set_across_ii(false);
      std::vector<int64_t> asap, height, want_asap, want_height;
      const bool closed = d.build(g, adj, ii);
      ASSERT_EQ(longest_path_timing(pg, ii, asap, height), closed) << "II " << ii;
      if (!closed) {
        ++below_rec_mii;
        continue;
      }
      ClosureTiming(d, want_asap, want_height);
      EXPECT_EQ(asap, want_asap) << "II " << ii;
      EXPECT_EQ(height, want_height) << "II " << ii;
    }
  }
  EXPECT_GT(below_rec_mii, 50);  // the positive cycles were exercised
}

// Early and Late of v from the closure and every seated op (placer.h's
// definition), kNone where no seated op bounds it.
std::pair<int64_t, int64_t> ClosureWindow(const DistanceMatrix& d, const std::vector<OpId>& seated,
                                          const std::vector<int64_t>& start, OpId v) {
  int64_t early = SeatBounds::kNone, late = SeatBounds::kNone;
  for (const OpId u : seated) {
    if (d.has_path(u, v)) {
      const int64_t e = start[u] + d.at(u, v);
      early = early == SeatBounds::kNone ? e : std::max(early, e);
    }
    if (d.has_path(v, u)) {
      const int64_t l = start[u] - d.at(v, u);
      late = late == SeatBounds::kNone ? l : std::min(late, l);
    }
  }
  return {early, late};
}

TEST(SmsPaths, SeatBoundsEqualTheClosureWindowsThroughSeatsAndUndos) {
  SplitMix64 rng(57);
  int64_t compared = 0, undone = 0;
  for (int i = 0; i < 200; ++i) {
    const Graph g = RandomGraph(rng, i);
    SCOPED_TRACE(g.name);
    const Adjacency adj = Adjacency::build(g);
    const PathGraph pg(g, adj);
    const int64_t ii = std::max<int64_t>(1, recurrence_mii(g)) + rng.uniform(0, 3);
    DistanceMatrix d;
    ASSERT_TRUE(d.build(g, adj, ii));
    SeatBounds bounds(pg);
    bounds.reset(ii);
    std::vector<OpId> seated;
    std::vector<int64_t> start(static_cast<size_t>(g.op_count()), 0);
    std::vector<char> is_seated(static_cast<size_t>(g.op_count()), 0);
    auto check = [&] {
      for (OpId v = 0; v < g.op_count(); ++v) {
        if (is_seated[v]) continue;
        const auto [early, late] = ClosureWindow(d, seated, start, v);
        ASSERT_EQ(bounds.early(v), early) << "op " << v;
        ASSERT_EQ(bounds.late(v), late) << "op " << v;
        ++compared;
      }
    };
    for (int step = 0; step < 3 * g.op_count(); ++step) {
      if (!seated.empty() && rng.chance_per_mille(250)) {  // undo the last seat
        bounds.unseat_last();
        is_seated[seated.back()] = 0;
        seated.pop_back();
        ++undone;
        check();
        continue;
      }
      const OpId v = static_cast<OpId>(rng.uniform(0, g.op_count() - 1));
      if (is_seated[v]) continue;
      const auto [early, late] = ClosureWindow(d, seated, start, v);
      int64_t lo = early == SeatBounds::kNone ? 1000 : early;
      int64_t hi = late == SeatBounds::kNone ? lo + 20 : late;
      if (early == SeatBounds::kNone && late != SeatBounds::kNone) lo = hi - 20;
      if (lo > hi) continue;  // no seat: as the placer, leave it
      start[v] = rng.uniform(lo, std::min(hi, lo + 20));
      bounds.seat(v, start[v]);
      is_seated[v] = 1;
      seated.push_back(v);
      check();
    }
  }
  EXPECT_GT(compared, 20000);
  EXPECT_GT(undone, 500);
}

TEST(Sms, GallopingSearchNeverBeatsTheLinearOneAndVerifies) {
  // gallop_after 2 makes the random graphs gallop often; the linear search
  // finds the least II at which a placement succeeds (each II's attempt is
  // the same whatever was tried before), so the gallop's II is never less.
  SplitMix64 rng(23);
  int galloped = 0, same = 0;
  for (int i = 0; i < 300; ++i) {
    const Graph g = RandomGraph(rng, i);
    SCOPED_TRACE(g.name);
    SmsOptions linear_opts, gallop_opts;
    linear_opts.gallop_after = 0;
    gallop_opts.gallop_after = 2;
    const Schedule linear = Sms(g, linear_opts);
    const Schedule gallop = Sms(g, gallop_opts);
    ASSERT_EQ(gallop.feasible, linear.feasible);
    bool said = false;
    for (const std::string& line : gallop.diagnostics) said |= line.starts_with("II search: ");
    for (const std::string& line : linear.diagnostics) EXPECT_FALSE(line.starts_with("II search: "));
    if (!linear.feasible || !said) {
      EXPECT_EQ(gallop.ii, linear.ii);
      continue;
    }
    ++galloped;
    EXPECT_GE(gallop.ii, linear.ii);
    same += gallop.ii == linear.ii;
    // The default (16 failures at one op) agrees with linear on these.
    const Schedule by_default = Sms(g);
    EXPECT_EQ(by_default.ii, linear.ii);
    EXPECT_EQ(by_default.start, linear.start);
  }
  EXPECT_GE(galloped, 10);
  EXPECT_GE(same, galloped / 2);
}

TEST(Sms, Deterministic) {
  SplitMix64 rng(7);
  std::vector<Graph> graphs;
  for (int i = 0; i < 60; ++i) graphs.push_back(RandomGraph(rng, i));
  for (const std::string& file : example_files()) graphs.push_back(*read_graph_file(file));
  for (const Graph& g : graphs) {
    Schedule a = generate_sms(g, {});
    Schedule b = generate_sms(g, {});
    a.time_ns = b.time_ns = 0;
    EXPECT_EQ(a, b) << g.name;
  }
}

}  // namespace
}  // namespace tilesched::sms
