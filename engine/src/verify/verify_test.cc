// Tests of the verifier (verify.h): legal schedules pass, and every rule of
// docs/CONTRACT.md ("Legal schedules") rejects a minimal schedule that breaks
// it, naming the rule and exactly the ops involved. docs/VERIFIER.md lists
// the formulas.
#include "tilesched/verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/graph_builder.h"
#include "tilesched/limits.h"
#include "tilesched/schedule.h"
#include "tilesched/target.h"

namespace tilesched {
namespace {

// Slots: 1 "u" and 2 "w" singletons, 3 "p" pooled with capacity 3.
// Pools: 0 "rate" (rate, capacity 2), 1 "smem" (storage).
constexpr int kU = 1;
constexpr int kW = 2;
constexpr int kP = 3;
constexpr int kRatePool = 0;

Target test_target(int64_t storage_capacity = 100) {
  return make_generic_target(
      "verify-test", {{"u", 1, false}, {"w", 1, false}, {"p", 3, false}},
      {{"rate", PoolKind::kRate, 2, 0, false},
       {"smem", PoolKind::kStorage, storage_capacity, 0, false}});
}

Graph built(const GraphBuilder& b) {
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(g).value() : Graph{};
}

// A schedule whose stage, order and stage_count are the derived ones.
Schedule schedule_of(const Graph& g, int64_t ii, std::vector<int64_t> start) {
  Schedule s;
  s.graph = g.name;
  s.ii = ii;
  s.start = std::move(start);
  derive_stage_order(s);
  return s;
}

std::string dump(const VerifyReport& r) {
  std::string out;
  for (const Violation& v : r.violations) {
    out += std::string(rule_name(v.rule)) + ": " + v.message + "\n";
  }
  return out.empty() ? "(legal)\n" : out;
}

// (rule, op names) of every violation, in report order.
using Found = std::vector<std::pair<Rule, std::vector<std::string>>>;
Found found(const Graph& g, const VerifyReport& r) {
  Found out;
  for (const Violation& v : r.violations) {
    std::vector<std::string> names;
    for (OpId id : v.ops) names.push_back(g.ops[id].name);
    out.push_back({v.rule, names});
  }
  return out;
}

// ------------------------------------------------------------ the seed example

// Seed 000's worked example with seed 002's encodings (ids in this order:
// load 0, write 1, mma 2, read 3).
Graph worked_example() {
  GraphBuilder b(blackwell_target(), "seed-worked-example");
  const OpId load = b.op("load", "tiled_tma_load");
  const OpId write = b.op("write", "smem_write");
  b.at(write).store_bytes = 16384;
  const OpId mma = b.op("mma", "wgmma");
  const OpId read = b.op("read", "smem_read");
  b.edge(load, read, 8);
  b.edge(mma, mma, 16, 1);
  return built(b);
}

TEST(VerifyRuleName, NamesEveryRule) {
  EXPECT_EQ(rule_name(Rule::kShape), "shape");
  EXPECT_EQ(rule_name(Rule::kDependence), "L1-dependence");
  EXPECT_EQ(rule_name(Rule::kSlots), "L2-slots");
  EXPECT_EQ(rule_name(Rule::kRatePools), "L3-rate-pools");
  EXPECT_EQ(rule_name(Rule::kStorage), "L4-storage");
  EXPECT_EQ(rule_name(Rule::kGroups), "L5-groups");
  EXPECT_EQ(rule_name(Rule::kMaxDepth), "L6-max-depth");
  EXPECT_EQ(rule_name(Rule::kSerial), "L7-serial");
  EXPECT_EQ(rule_name(Rule::kStageOrder), "stage-order");
}

TEST(VerifyWorkedExample, AllAtZeroAtII8FailsSlot16) {
  const Graph g = worked_example();
  const VerifyReport r = verify_schedule(g, schedule_of(g, 8, {0, 0, 0, 0}));
  const Found expected = {
      {Rule::kDependence, {"load", "read"}},  // read at 0 < 0 + 8
      {Rule::kDependence, {"mma"}},           // 0 + 1*8 < 0 + 16
      {Rule::kSlots, {"load", "write"}},      // 8 + 7 cycles of tp_smem_wr in 8 rows
  };
  ASSERT_EQ(found(g, r), expected) << dump(r);
  ASSERT_EQ(r.violations.size(), 3u);
  EXPECT_EQ(r.violations[2].message,
            "slot 16 (tp_smem_wr), capacity 1, at II 8: row 0 holds 2 (load, write)");
}

TEST(VerifyWorkedExample, II15SeparatesTheSmemWriters) {
  const Graph g = worked_example();
  const VerifyReport r = verify_schedule(g, schedule_of(g, 15, {0, 8, 0, 8}));
  EXPECT_FALSE(r.violates(Rule::kSlots)) << dump(r);
  // Slot 16 fits at 15, but the mma recurrence (latency 16, distance 1)
  // needs II >= 16: L1 is all that is left.
  const Found expected = {{Rule::kDependence, {"mma"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "edge mma -> mma (latency 16, distance 1): mma starts at 0 + 1*15 = 15 < 0 + 16");
}

TEST(VerifyWorkedExample, II16IsLegal) {
  const Graph g = worked_example();
  const VerifyReport r = verify_schedule(g, schedule_of(g, 16, {0, 8, 0, 8}));
  EXPECT_TRUE(r.legal()) << dump(r);
}

// ------------------------------------------------------------ legal schedules

TEST(VerifyLegal, ModuloWrapIsAccepted) {
  GraphBuilder b(test_target());
  b.generic("a", 1, {{kU, 3, 1}});  // at 6, II 4: rows 2, 3, 0
  b.generic("b", 1, {{kU, 1, 1}});  // at 5: row 1
  const Graph g = built(b);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 4, {6, 5}));
  EXPECT_TRUE(r.legal()) << dump(r);
}

TEST(VerifyLegal, PooledSlotAtExactCapacity) {
  GraphBuilder b(test_target());
  b.generic("a", 1, {{kP, 2, 1}});
  b.generic("b", 1, {{kP, 2, 2}});
  const Graph g = built(b);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 2, {0, 0}));
  EXPECT_TRUE(r.legal()) << dump(r);
}

TEST(VerifyLegal, BlackwellSmemReadPoolHoldsFive) {
  GraphBuilder five(blackwell_target());
  for (int i = 0; i < 5; ++i) five.op("r" + std::to_string(i), "smem_read");
  const Graph g5 = built(five);
  EXPECT_TRUE(verify_schedule(g5, schedule_of(g5, 7, {0, 0, 0, 0, 0})).legal());

  GraphBuilder six(blackwell_target());
  for (int i = 0; i < 6; ++i) six.op("r" + std::to_string(i), "smem_read");
  const Graph g6 = built(six);
  const VerifyReport r = verify_schedule(g6, schedule_of(g6, 7, {0, 0, 0, 0, 0, 0}));
  const Found expected = {{Rule::kSlots, {"r0", "r1", "r2", "r3", "r4", "r5"}}};
  ASSERT_EQ(found(g6, r), expected) << dump(r);
  EXPECT_NE(r.violations[0].message.find("slot 15 (tp_smem_rd), capacity 5"),
            std::string::npos);
}

TEST(VerifyLegal, LoopCarriedEdgeExactlyTight) {
  GraphBuilder b(test_target());
  const OpId oa = b.generic("a", 10);
  const OpId ob = b.generic("b", 1);
  b.edge(oa, ob, 10, 2);  // s_b + 2*5 >= s_a + 10
  const Graph g = built(b);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 5, {0, 0})).legal());

  const VerifyReport r = verify_schedule(g, schedule_of(g, 5, {1, 0}));
  const Found expected = {{Rule::kDependence, {"a", "b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "edge a -> b (latency 10, distance 2): b starts at 0 + 2*5 = 10 < 1 + 10");
}

TEST(VerifyLegal, EmptyGraph) {
  Graph g;
  g.target = test_target();
  Schedule s = schedule_of(g, 1, {});
  EXPECT_TRUE(verify_schedule(g, s).legal());
  s.stage_count = 1;
  const VerifyReport r = verify_schedule(g, s);
  const Found expected = {{Rule::kStageOrder, {}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
}

// ------------------------------------------------------------ L1

TEST(VerifyDependence, NamesTheEdgeAndTheCycles) {
  GraphBuilder b(test_target());
  const OpId oa = b.generic("a", 8);
  const OpId ob = b.generic("b", 1);
  b.edge(oa, ob);
  const Graph g = built(b);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 100, {0, 3}));
  const Found expected = {{Rule::kDependence, {"a", "b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "edge a -> b (latency 8, distance 0): b starts at 3 < 0 + 8");
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 100, {0, 8})).legal());
}

TEST(VerifyDependence, OrderEdgesCount) {
  GraphBuilder b(test_target());
  const OpId oa = b.generic("a", 1);
  const OpId ob = b.generic("b", 1);
  b.edge(ob, oa, 2, 0, EdgeKind::kOrder);
  const Graph g = built(b);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 10, {1, 0}));
  const Found expected = {{Rule::kDependence, {"a", "b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "order edge b -> a (latency 2, distance 0): a starts at 1 < 0 + 2");
}

// ------------------------------------------------------------ L2

TEST(VerifySlots, WrappedArcCollides) {
  GraphBuilder b(test_target());
  b.generic("a", 1, {{kU, 3, 1}});  // at 6, II 4: rows 2, 3, 0
  b.generic("b", 1, {{kU, 1, 1}});  // at 4: row 0
  const Graph g = built(b);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 4, {6, 4}));
  const Found expected = {{Rule::kSlots, {"a", "b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "slot 1 (u), capacity 1, at II 4: row 0 holds 2 (a, b)");
}

TEST(VerifySlots, PooledSlotOverCapacityReportsFirstRow) {
  GraphBuilder b(test_target());
  b.generic("a", 1, {{kP, 2, 1}});
  b.generic("b", 1, {{kP, 2, 2}});
  b.generic("c", 1, {{kP, 1, 1}});  // at 1: row 1 holds 4
  const Graph g = built(b);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 2, {0, 0, 1}));
  const Found expected = {{Rule::kSlots, {"a", "b", "c"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "slot 3 (p), capacity 3, at II 2: row 1 holds 4 (a, b, c)");
}

TEST(VerifySlots, SingletonLongerThanIICollidesWithItself) {
  GraphBuilder b(test_target());
  b.generic("a", 1, {{kU, 5, 1}});
  const Graph g = built(b);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 5, {3})).legal());

  const VerifyReport r = verify_schedule(g, schedule_of(g, 4, {3}));  // rows 3, 0, 1, 2, 3
  const Found expected = {{Rule::kSlots, {"a"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message, "slot 1 (u), capacity 1, at II 4: row 3 holds 2 (a)");
}

TEST(VerifySlots, OnlyCoveringOpsAreNamed) {
  GraphBuilder b(test_target());
  b.generic("a", 1, {{kU, 2, 1}});  // rows 0, 1
  b.generic("b", 1, {{kU, 2, 1}});  // rows 1, 2
  b.generic("c", 1, {{kU, 1, 1}});  // row 5
  b.generic("d", 1, {{kW, 9, 1}});  // another slot, every row
  const Graph g = built(b);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 9, {0, 1, 5, 0}));
  const Found expected = {{Rule::kSlots, {"a", "b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
}

// ------------------------------------------------------------ L3

TEST(VerifyRatePools, AtCapacityPassesAboveFails) {
  GraphBuilder b(test_target());
  for (const char* name : {"a", "b", "c"}) {
    const OpId v = b.generic(name, 1);
    b.at(v).pools = {{kRatePool, 1}};
  }
  const Graph g = built(b);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 3, {0, 1, 2})).legal());
  const VerifyReport r = verify_schedule(g, schedule_of(g, 3, {0, 3, 6}));  // all row 0
  const Found expected = {{Rule::kRatePools, {"a", "b", "c"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "rate pool rate, capacity 2, at II 3: row 0 holds 3 (a, b, c)");
}

TEST(VerifyRatePools, HeldForTheFootprintDuration) {
  GraphBuilder b(test_target());
  const OpId oa = b.generic("a", 1, {{kU, 4, 1}});  // footprint 4: pool rows 0..3
  b.at(oa).pools = {{kRatePool, 2}};
  const OpId ob = b.generic("b", 1);                // footprint 1
  b.at(ob).pools = {{kRatePool, 1}};
  const Graph g = built(b);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 8, {0, 4})).legal());
  const VerifyReport r = verify_schedule(g, schedule_of(g, 8, {0, 3}));
  const Found expected = {{Rule::kRatePools, {"a", "b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_NE(r.violations[0].message.find("row 3 holds 3"), std::string::npos);
}

// ------------------------------------------------------------ L4

// w (16-cycle latency, 40 bytes) feeds r, whose footprint is 2 cycles.
Graph storage_graph(int64_t capacity, int64_t distance, EdgeKind kind) {
  GraphBuilder b(test_target(capacity));
  const OpId w = b.generic("w", 1, {{kU, 1, 1}});
  b.at(w).store_bytes = 40;
  const OpId r = b.generic("r", 1, {{kW, 2, 1}});
  b.edge(w, r, 1, distance, kind);
  return built(b);
}

TEST(VerifyStorage, InIterationConsumer) {
  const Graph g = storage_graph(100, 0, EdgeKind::kData);
  // lifetime = 5 + 2 - 0 = 7 -> one copy of 40 bytes.
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 10, {0, 5})).legal());
  // lifetime = 25 + 2 = 27 at II 10 -> three copies, 120 > 100.
  const VerifyReport r = verify_schedule(g, schedule_of(g, 10, {0, 25}));
  const Found expected = {{Rule::kStorage, {"w"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
}

TEST(VerifyStorage, LoopCarriedConsumerCountsItsIterationOffset) {
  // Without the delta*II term the lifetime would be 7 (one copy, 40 bytes);
  // with it, the reader two iterations on ends at 5 + 2*10 + 2 = 27.
  const Graph g = storage_graph(100, 2, EdgeKind::kData);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 10, {0, 5}));
  const Found expected = {{Rule::kStorage, {"w"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "storage pool smem at II 10: w 40 B x 3 (lifetime 27) = 120 B > capacity 100");

  const Graph exact = storage_graph(120, 2, EdgeKind::kData);
  EXPECT_TRUE(verify_schedule(exact, schedule_of(exact, 10, {0, 5})).legal());
}

TEST(VerifyStorage, OrderEdgesHoldNoBuffer) {
  const Graph g = storage_graph(100, 2, EdgeKind::kOrder);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 10, {0, 5})).legal());
}

TEST(VerifyStorage, NoConsumerMeansLifetimeOne) {
  GraphBuilder b(test_target(100));
  const OpId x = b.generic("x", 1);
  b.at(x).store_bytes = 100;
  const OpId y = b.generic("y", 1);
  b.edge(y, x);  // x consumes y's value; y stores nothing
  const Graph g = built(b);
  // x has no consumer: one copy whatever the II and its start.
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 1, {7, 0})).legal());

  GraphBuilder more(test_target(100));
  const OpId x2 = more.generic("x", 1);
  more.at(x2).store_bytes = 100;
  const OpId z = more.generic("z", 1);
  more.at(z).store_bytes = 1;
  const Graph g2 = built(more);
  const VerifyReport r = verify_schedule(g2, schedule_of(g2, 1, {7, 0}));
  const Found expected = {{Rule::kStorage, {"x", "z"}}};
  ASSERT_EQ(found(g2, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "storage pool smem at II 1: x 100 B x 1 (lifetime 1) + z 1 B x 1 (lifetime 1) "
            "= 101 B > capacity 100");
}

// ------------------------------------------------------------ L5, L6, L7

TEST(VerifyGroups, SplitGroupNamesItsOps) {
  GraphBuilder b(test_target());
  for (const char* name : {"a", "b", "c", "d"}) b.generic(name, 1);
  b.at(0).leader_gid = 7;
  b.at(1).leader_gid = 9;
  b.at(2).leader_gid = 7;
  b.at(3).leader_gid = 9;
  const Graph g = built(b);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 10, {0, 12, 9, 19})).legal());
  const VerifyReport r = verify_schedule(g, schedule_of(g, 10, {0, 12, 10, 19}));
  const Found expected = {{Rule::kGroups, {"a", "c"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "group leader_gid 7 splits across stages at II 10: a in stage 0, c in stage 1");
  // The lower op id in the later stage splits the group just the same.
  const VerifyReport later = verify_schedule(g, schedule_of(g, 10, {0, 12, 9, 5}));
  ASSERT_EQ(found(g, later), (Found{{Rule::kGroups, {"b", "d"}}})) << dump(later);
}

TEST(VerifyMaxDepth, StageAboveMaxDepth) {
  GraphBuilder b(test_target());
  b.generic("a", 1);
  b.generic("b", 1);
  b.at(0).max_depth = 1;
  b.at(1).max_depth = 2;
  const Graph g = built(b);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 10, {19, 29})).legal());
  const VerifyReport r = verify_schedule(g, schedule_of(g, 10, {25, 25}));
  const Found expected = {{Rule::kMaxDepth, {"a"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message, "op a is in stage 2 (start 25, II 10) > max_depth 1");
}

Graph serial_graph(bool force) {
  GraphBuilder b(test_target());
  b.generic("a", 4, {{kU, 4, 1}});
  b.generic("b", 4, {{kW, 4, 1}});
  b.force_serial(force);
  return built(b);
}

TEST(VerifySerial, MakespanWithinII) {
  const Graph g = serial_graph(true);
  EXPECT_TRUE(verify_schedule(g, schedule_of(g, 8, {0, 4})).legal());
  const VerifyReport r = verify_schedule(g, schedule_of(g, 7, {0, 4}));
  const Found expected = {{Rule::kSerial, {"b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "force_serial_execution: II 7 < makespan 8 (ending last: b)");
  // The same schedule without the attribute is a fine pipelined one.
  const Graph free = serial_graph(false);
  EXPECT_TRUE(verify_schedule(free, schedule_of(free, 7, {0, 4})).legal());
}

TEST(VerifySerial, EveryOpInStageZero) {
  const Graph g = serial_graph(true);
  const VerifyReport r = verify_schedule(g, schedule_of(g, 8, {0, 9}));
  const Found expected = {{Rule::kSerial, {"b"}}, {Rule::kSerial, {"b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "force_serial_execution: op b is in stage 1 (start 9, II 8), not stage 0");
  EXPECT_EQ(r.violations[1].message,
            "force_serial_execution: II 8 < makespan 13 (ending last: b)");
}

// ------------------------------------------------------------ stage and order

TEST(VerifyStageOrder, DerivedFromTheDefinitions) {
  GraphBuilder b(test_target());
  for (const char* name : {"a", "b", "c", "d"}) b.generic(name, 1);
  const Graph g = built(b);
  Schedule s;
  s.ii = 10;
  s.start = {5, 5, 2, 13};
  s.stage = {0, 0, 0, 1};
  s.order = {1, 2, 0, 0};  // ties by program index
  s.stage_count = 2;
  EXPECT_TRUE(verify_schedule(g, s).legal()) << dump(verify_schedule(g, s));
}

TEST(VerifyStageOrder, EachDisagreementReported) {
  GraphBuilder b(test_target());
  for (const char* name : {"a", "b", "c", "d"}) b.generic(name, 1);
  const Graph g = built(b);
  Schedule s = schedule_of(g, 10, {0, 3, 12, 4});
  s.order[0] = 1;  // a and b swapped
  s.order[1] = 0;
  s.stage[2] = 0;  // c claims stage 0
  s.stage_count = 3;
  const VerifyReport r = verify_schedule(g, s);
  const Found expected = {{Rule::kStageOrder, {"a"}},
                          {Rule::kStageOrder, {"b"}},
                          {Rule::kStageOrder, {"c"}},
                          {Rule::kStageOrder, {"c"}}};  // stage_count: c is deepest
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[2].message,
            "op c (start 12, II 10) records stage 0, order 0; "
            "the definitions give stage 1, order 0");
  EXPECT_EQ(r.violations[3].message, "stage_count is recorded as 3; the definitions give 2");
}

// ------------------------------------------------------------ shape

TEST(VerifyShape, BadIIStopsTheOtherRules) {
  GraphBuilder b(test_target());
  const OpId oa = b.generic("a", 8, {{kU, 4, 1}});
  const OpId ob = b.generic("b", 1, {{kU, 4, 1}});
  b.edge(oa, ob);
  const Graph g = built(b);
  for (int64_t ii : {int64_t{0}, int64_t{-3}, limits::kMaxII + 1}) {
    Schedule s;
    s.ii = ii;
    s.start = {0, 0};
    s.stage = {0, 0};
    s.order = {0, 1};
    s.stage_count = 1;
    const VerifyReport r = verify_schedule(g, s);
    const Found expected = {{Rule::kShape, {}}};
    ASSERT_EQ(found(g, r), expected) << dump(r);
  }
}

TEST(VerifyShape, StartsAndVectorSizes) {
  GraphBuilder b(test_target());
  b.generic("a", 1);
  b.generic("b", 1);
  b.generic("c", 1);
  const Graph g = built(b);

  Schedule s = schedule_of(g, 4, {0, 1, 2});
  s.start = {0, 1};
  VerifyReport r = verify_schedule(g, s);
  ASSERT_EQ(found(g, r), (Found{{Rule::kShape, {}}})) << dump(r);
  EXPECT_EQ(r.violations[0].message, "schedule has 2 start cycles for 3 ops");

  s = schedule_of(g, 4, {0, 1, 2});
  s.start = {0, -1, limits::kMaxStart + 1};
  r = verify_schedule(g, s);
  ASSERT_EQ(found(g, r), (Found{{Rule::kShape, {"b"}}, {Rule::kShape, {"c"}}})) << dump(r);

  s = schedule_of(g, 4, {0, 1, 2});
  s.stage.pop_back();
  s.order.push_back(0);
  r = verify_schedule(g, s);
  ASSERT_EQ(found(g, r), (Found{{Rule::kShape, {}}, {Rule::kShape, {}}})) << dump(r);
  EXPECT_EQ(r.violations[0].message, "schedule has 2 stages for 3 ops");
  EXPECT_EQ(r.violations[1].message, "schedule has 4 orders for 3 ops");
}

TEST(VerifyShape, HandMadeGraphOutOfRangeIsShape) {
  Graph g;
  g.target = test_target();
  g.ops.resize(2);
  g.ops[0].name = "a";
  g.ops[1].name = "b";
  g.ops[0].resources = {{99, 1, 1}};
  g.edges.push_back({0, 5, 1, 0, EdgeKind::kData});
  const VerifyReport r = verify_schedule(g, schedule_of(g, 1, {0, 0}));
  ASSERT_EQ(found(g, r), (Found{{Rule::kShape, {}}, {Rule::kShape, {"a"}}})) << dump(r);
}

// ------------------------------------------------------------ robustness

TEST(VerifyRobustness, HugeIIAndStartsRunInstantly) {
  GraphBuilder b(test_target());
  const OpId oa = b.generic("a", limits::kMaxLatency, {{kU, limits::kMaxDuration, 1}});
  const OpId ob = b.generic("b", limits::kMaxLatency, {{kU, limits::kMaxDuration, 1}});
  b.at(oa).pools = {{kRatePool, 2}};
  b.at(ob).pools = {{kRatePool, 1}};
  b.edge(oa, ob, limits::kMaxLatency, limits::kMaxDistance);  // met by 65535 * II
  b.edge(ob, oa);  // a starts 1 cycle after b, not 65535: broken
  const Graph g = built(b);

  const auto begin = std::chrono::steady_clock::now();
  const Schedule s =
      schedule_of(g, limits::kMaxII, {limits::kMaxStart, limits::kMaxStart - 1});
  const VerifyReport r = verify_schedule(g, s);
  const auto elapsed = std::chrono::steady_clock::now() - begin;
  EXPECT_LT(elapsed, std::chrono::seconds(1));

  // 2^40 = 512 * (2^31 - 1) + 512: a's rows start at 512, b's at 511.
  const Found expected = {{Rule::kDependence, {"a", "b"}},
                          {Rule::kSlots, {"a", "b"}},
                          {Rule::kRatePools, {"a", "b"}}};
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_EQ(r.violations[0].message,
            "edge b -> a (latency 65535, distance 0): a starts at 1099511627776 < "
            "1099511627775 + 65535");
  EXPECT_EQ(r.violations[1].message,
            "slot 1 (u), capacity 1, at II 2147483647: row 512 holds 2 (a, b)");
  EXPECT_EQ(r.violations[2].message,
            "rate pool rate, capacity 2, at II 2147483647: row 512 holds 3 (a, b)");
}

TEST(VerifyRobustness, StorageSumBeyond64Bits) {
  GraphBuilder b(test_target(limits::kMaxPoolCapacity));
  const OpId w1 = b.generic("w1", 1);
  const OpId w2 = b.generic("w2", 1);
  const OpId r = b.generic("r", 1);
  b.at(w1).store_bytes = limits::kMaxPoolCapacity;
  b.at(w2).store_bytes = limits::kMaxPoolCapacity;
  b.edge(w1, r, 1, limits::kMaxDistance);
  b.edge(w2, r, 1, limits::kMaxDistance);
  const Graph g = built(b);
  // lifetime = 2^40 + 65535*1 + 1: each buffer 2^40 bytes times that.
  const VerifyReport rep = verify_schedule(g, schedule_of(g, 1, {0, 0, limits::kMaxStart}));
  const Found expected = {{Rule::kStorage, {"w1", "w2"}}};
  ASSERT_EQ(found(g, rep), expected) << dump(rep);
  EXPECT_NE(rep.violations[0].message.find(
                "= 2417851783344446425268224 B > capacity 1099511627776"),
            std::string::npos)
      << rep.violations[0].message;
}

// ------------------------------------------------------------ sweep vs brute force

// splitmix64: deterministic on every standard library.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t in(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

// The L2/L3 message a cycle-by-cycle count expects for one resource, or ""
// when every row fits. holds: (op, duration, amount).
std::string brute_force_message(const Graph& g, const Schedule& s, const std::string& what,
                                int64_t capacity,
                                const std::vector<std::tuple<OpId, int64_t, int64_t>>& holds) {
  std::vector<int64_t> load(s.ii, 0);
  std::vector<std::vector<bool>> covers(s.ii, std::vector<bool>(g.ops.size(), false));
  for (const auto& [v, duration, amount] : holds) {
    for (int64_t k = 0; k < duration; ++k) {
      const int64_t r = (s.start[v] + k) % s.ii;
      load[r] += amount;
      if (amount > 0) covers[r][v] = true;
    }
  }
  for (int64_t r = 0; r < s.ii; ++r) {
    if (load[r] <= capacity) continue;
    std::string names;
    for (size_t v = 0; v < g.ops.size(); ++v) {
      if (!covers[r][v]) continue;
      if (!names.empty()) names += ", ";
      names += g.ops[v].name;
    }
    return what + ", capacity " + std::to_string(capacity) + ", at II " +
           std::to_string(s.ii) + ": row " + std::to_string(r) + " holds " +
           std::to_string(load[r]) + " (" + names + ")";
  }
  return "";
}

TEST(VerifySweep, MatchesCycleByCycleCount) {
  Rng rng{20240601};
  const Target target = test_target();
  int fitting = 0;
  for (int round = 0; round < 3000; ++round) {
    GraphBuilder b(target);
    const int n = static_cast<int>(rng.in(1, 5));
    for (int v = 0; v < n; ++v) {
      std::vector<Triple> res;
      for (int slot = kU; slot <= kP; ++slot) {
        if (rng.in(0, 2) == 0) continue;
        res.push_back({slot, rng.in(1, 9), slot == kP ? rng.in(1, 3) : 1});
      }
      const OpId id = b.generic("op" + std::to_string(v), 1, res);
      if (rng.in(0, 1) == 0) b.at(id).pools = {{kRatePool, rng.in(1, 2)}};
    }
    const Graph g = built(b);
    std::vector<int64_t> start(n);
    for (int64_t& x : start) x = rng.in(0, 40);
    const Schedule s = schedule_of(g, rng.in(1, 24), start);

    std::vector<std::string> expected;
    for (int slot = 1; slot <= target.slot_count(); ++slot) {
      std::vector<std::tuple<OpId, int64_t, int64_t>> holds;
      for (OpId v = 0; v < n; ++v) {
        for (const Triple& t : g.ops[v].resources) {
          if (t.slot == slot) holds.push_back({v, t.duration, t.occupancy});
        }
      }
      const std::string m = brute_force_message(
          g, s, "slot " + std::to_string(slot) + " (" + target.slot(slot).name + ")",
          target.slot(slot).capacity, holds);
      if (!m.empty()) expected.push_back(m);
    }
    std::vector<std::tuple<OpId, int64_t, int64_t>> pool_holds;
    for (OpId v = 0; v < n; ++v) {
      for (const PoolUse& p : g.ops[v].pools) {
        pool_holds.push_back({v, footprint_duration(g.ops[v]), p.count});
      }
    }
    const std::string m = brute_force_message(
        g, s, "rate pool rate", target.pools[kRatePool].capacity, pool_holds);
    if (!m.empty()) expected.push_back(m);

    const VerifyReport r = verify_schedule(g, s);
    std::vector<std::string> actual;
    for (const Violation& v : r.violations) actual.push_back(v.message);
    // The report orders by first op; this test checks contents only.
    std::sort(actual.begin(), actual.end());
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(actual, expected) << "round " << round << " II " << s.ii;
    fitting += expected.empty() ? 1 : 0;
  }
  // Both outcomes are well represented.
  EXPECT_GT(fitting, 300);
  EXPECT_LT(fitting, 2700);
}

// ------------------------------------------------------------ the report

TEST(VerifyReportOrder, EveryViolationListedInRuleOrder) {
  GraphBuilder b(test_target());
  const OpId oa = b.generic("a", 5, {{kU, 2, 1}});
  const OpId ob = b.generic("b", 1, {{kU, 2, 1}});
  const OpId oc = b.generic("c", 1);
  const OpId od = b.generic("d", 1);
  b.edge(oa, ob);      // b at 0 < 0 + 5
  b.edge(oc, od, 3);   // d at 10 >= 4 + 3: fine
  b.at(oc).leader_gid = 1;
  b.at(od).leader_gid = 1;  // c in stage 0, d in stage 1 at II 8
  b.at(od).max_depth = 0;
  const Graph g = built(b);
  Schedule s = schedule_of(g, 8, {0, 0, 4, 10});
  s.order[3] = 5;
  const VerifyReport r = verify_schedule(g, s);
  const Found expected = {
      {Rule::kDependence, {"a", "b"}}, {Rule::kSlots, {"a", "b"}},
      {Rule::kGroups, {"c", "d"}},     {Rule::kMaxDepth, {"d"}},
      {Rule::kStageOrder, {"d"}},
  };
  ASSERT_EQ(found(g, r), expected) << dump(r);
  EXPECT_FALSE(r.legal());
  EXPECT_TRUE(r.violates(Rule::kGroups));
  EXPECT_FALSE(r.violates(Rule::kStorage));
}

}  // namespace
}  // namespace tilesched
