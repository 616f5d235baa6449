// The iterative modulo scheduler: verified schedules on every bundled
// example, II = MII on textbook loops, rules L4-L7 on hand-built graphs,
// its counters and diagnostics, and determinism. Every feasible schedule
// goes through the independent verifier.
#include "tilesched/ims.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "testing/test_files.h"
#include "testing/test_graphs.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/verify.h"

namespace tilesched {
namespace {

// Schedules g and checks that the verifier accepts a feasible result.
Schedule Ims(const Graph& g, ImsOptions opts = {}, const IiSearchOptions& search = {}) {
  const Schedule s = generate_ims(g, opts, search);
  EXPECT_EQ(s.generator, "ims");
  if (s.feasible) {
    EXPECT_GE(s.ii, s.mii.max());
    for (const Violation& v : verify_schedule(g, s).violations) {
      ADD_FAILURE() << g.name << ": " << rule_name(v.rule) << ": " << v.message;
    }
  }
  return s;
}

int64_t Stat(const Schedule& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat " << name;
  return -1;
}

bool HasFlag(const Schedule& s, const std::string& flag) {
  return std::find(s.flags.begin(), s.flags.end(), flag) != s.flags.end();
}

TEST(Ims, EveryBundledExampleVerifies) {
  for (const std::string& file : example_files()) {
    SCOPED_TRACE(file);
    const Graph g = Example(std::filesystem::path(file).filename().string());
    const Schedule s = Ims(g);
    EXPECT_TRUE(s.feasible);
  }
}

TEST(Ims, ReachesKnownOptimaOnBundledGraphs) {
  // The optima docs/COST_BASED.md argues by hand ("Golden results").
  const std::pair<const char*, int64_t> kGolden[] = {
      {"seed_worked_example.loop.json", 15},
      {"spec_example.loop.json", 16},
      {"generic_dsp.loop.json", 6},
      {"gemm_mainloop.loop.json", 32},
  };
  for (auto [file, ii] : kGolden) {
    const Schedule s = Ims(Example(file));
    ASSERT_TRUE(s.feasible) << file;
    EXPECT_EQ(s.ii, ii) << file;
  }
}

// A textbook loop: four ops on one singleton ALU, a chain with a
// recurrence of latency 6 over 2 iterations, a multiply on its own unit.
// ResMII 4 (the ALU), RecMII 3: IMS reaches II 4.
TEST(Ims, TextbookLoopAtMii) {
  GraphBuilder b(make_generic_target("vliw", {Slot{"alu", 1}, Slot{"mul", 1}}, {}));
  const OpId ld = b.generic("ld", 2, {{1, 1, 1}});
  const OpId mul = b.generic("mul", 3, {{2, 1, 1}});
  const OpId add = b.generic("add", 1, {{1, 1, 1}});
  const OpId st = b.generic("st", 1, {{1, 1, 1}});
  const OpId inc = b.generic("inc", 1, {{1, 1, 1}});
  b.edge(ld, mul);
  b.edge(mul, add);
  b.edge(add, st);
  b.edge(add, mul, 3, 2);  // mul -> add -> mul: latency 6 over 2 iterations
  b.edge(inc, ld, 1, 1);
  b.edge(inc, inc, 1, 1);
  const Schedule s = Ims(Build(b));
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.mii.resource, 4);
  EXPECT_EQ(s.mii.recurrence, 3);
  EXPECT_EQ(s.ii, 4);
  EXPECT_EQ(Stat(s, "ii_tried"), 1);
  EXPECT_EQ(Stat(s, "budget_exhausted"), 0);
}

TEST(Ims, PooledSlotFillsToCapacity) {
  // Ten smem_reads of 7 cycles on tp_smem_rd (capacity 5): FineMII 14.
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 10; ++i) b.op("r" + std::to_string(i), "smem_read");
  const Schedule s = Ims(Build(b));
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.mii.fine_density, 14);
  EXPECT_EQ(s.ii, 14);
}

// A unit-latency recurrence crowded onto one slot forces evictions: the
// chain a -> b -> c -> a (distance 1) and three more ops on the same slot.
TEST(Ims, EvictsAndStillReachesMii) {
  GraphBuilder b(make_generic_target("one", {Slot{"u", 1}}, {}));
  std::vector<OpId> ops;
  for (int i = 0; i < 6; ++i) ops.push_back(b.generic("o" + std::to_string(i), 1, {{1, 1, 1}}));
  b.edge(ops[0], ops[1]);
  b.edge(ops[1], ops[2]);
  b.edge(ops[2], ops[0], 1, 1);
  b.edge(ops[3], ops[4], 4);
  b.edge(ops[4], ops[5], 1);
  b.edge(ops[5], ops[3], 1, 1);
  const Schedule s = Ims(Build(b));
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, 6);
  EXPECT_GE(Stat(s, "placement_steps"), 6);
}

TEST(Ims, GroupsShareAStageAndMaxDepthHolds) {
  GraphBuilder b(blackwell_target());
  const OpId load = b.op("load", "tiled_tma_load");
  const OpId mma = b.op("mma", "wgmma");
  const OpId read = b.op("read", "smem_read");
  const OpId fix = b.op("fix", "alu");
  b.edge(load, mma);
  b.edge(mma, read);
  b.edge(read, fix);
  b.at(load).leader_gid = 7;
  b.at(fix).leader_gid = 7;  // 8 + 16 + 7 cycles later, yet the same stage
  b.at(read).max_depth = 1;
  for (int i = 0; i < 4; ++i) b.op("pad" + std::to_string(i), "alu");
  const Schedule s = Ims(Build(b));
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.stage[load], s.stage[fix]);
  EXPECT_LE(s.stage[read], 1);
  EXPECT_EQ(s.ii, 32);  // the group's span bound starts the search there
  EXPECT_EQ(Stat(s, "ii_tried"), 1);
}

// A member that must join its group's later stage: d0 shares a group with
// u, 20 cycles down a chain, while four 2-cycle ops fill slot X at II 8.
TEST(Ims, AGroupMemberMovesToItsGroupsStage) {
  const Graph g = DenseSlotGraph(true);
  const OpId u = 6, d0 = 0;  // DenseSlotGraph's ops: d0..d3, c0, c1, u
  ASSERT_EQ(g.ops[u].name, "u");
  const Schedule s = Ims(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, 8);
  EXPECT_EQ(s.stage[d0], s.stage[u]);
  EXPECT_GE(s.stage[u], 2);
}

// max_depth 0 on the end of a 40-cycle chain: DepMII is 41, and IMS keeps
// the chain inside stage 0 there.
TEST(Ims, MaxDepthBoundsTheWindow) {
  GraphBuilder b(make_generic_target("chain", {Slot{"X", 1}}, {}));
  const OpId a = b.generic("a", 20, {{1, 1, 1}});
  const OpId c = b.generic("c", 20, {{1, 1, 1}});
  const OpId z = b.generic("z", 1, {{1, 1, 1}});
  b.edge(a, c);
  b.edge(c, z);
  b.at(z).max_depth = 0;
  const Schedule s = Ims(Build(b));
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.mii.dependency, 41);
  EXPECT_EQ(s.ii, 41);
  EXPECT_EQ(s.stage[z], 0);
}

TEST(Ims, StorageFailsAnIiAndTheNextOneHolds) {
  // A 200000-byte buffer: two copies exceed 232448 bytes, so the read must
  // end within one II of the write (7 + 7 cycles): II 14, not ResMII 7.
  GraphBuilder b(blackwell_target());
  const OpId w = b.op("write", "smem_write");
  b.at(w).store_bytes = 200000;
  const OpId r = b.op("read", "smem_read");
  b.edge(w, r);
  for (int i = 0; i < 6; ++i) b.op("pad" + std::to_string(i), "alu");
  const Schedule s = Ims(Build(b));
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.mii.max(), 7);
  EXPECT_EQ(s.ii, 14);
  EXPECT_EQ(Stat(s, "storage_failures"), 7);  // II 7 to 13, by the floor
  ASSERT_FALSE(s.diagnostics.empty());
  EXPECT_EQ(s.diagnostics[0],
            "II 7 to 13: storage: the buffers at their least lifetimes exceed the pool");
}

TEST(Ims, StoresOverThePoolFailAtOnce) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 2; ++i) {
    const OpId w = b.op("w" + std::to_string(i), "smem_write");
    b.at(w).store_bytes = 200000;
  }
  const Schedule s = Ims(Build(b));
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kStorageBudget);
  EXPECT_EQ(Stat(s, "ii_tried"), 0);
}

TEST(Ims, ForceSerialKeepsTheSerialSchedule) {
  const Graph g = Example("force_serial.loop.json");
  const Schedule s = Ims(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_TRUE(HasFlag(s, "force_serial"));
  EXPECT_EQ(s.stage_count, 1);
}

TEST(Ims, AnIiCapBelowTheLowerBoundFails) {
  IiSearchOptions search;
  search.ii_cap = 10;
  const Schedule s = Ims(Example("seed_worked_example.loop.json"), {}, search);
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kIiCapReached);
}

// A tiny budget cannot place every op: each II says so, and the search
// ends at the serial schedule.
TEST(Ims, ABudgetTooSmallFallsBackToSerial) {
  ImsOptions opts;
  opts.budget_ratio = 0.5;
  const Graph g = Example("generic_dsp.loop.json");
  const Schedule s = Ims(g, opts);
  ASSERT_TRUE(s.feasible);
  EXPECT_TRUE(HasFlag(s, "serial_fallback"));
  EXPECT_EQ(Stat(s, "serial_fallback"), 1);
  EXPECT_EQ(Stat(s, "budget_exhausted"), Stat(s, "ii_tried"));
  // The shared search's one line first, the II screen's, then one line
  // per II attempted.
  ASSERT_GE(s.diagnostics.size(), 2u);
  EXPECT_NE(s.diagnostics[0].find("the serial schedule (II "), std::string::npos)
      << s.diagnostics[0];
  EXPECT_NE(s.diagnostics.back().find("budget exhausted"), std::string::npos)
      << s.diagnostics.back();
}

TEST(Ims, StatsComeInAFixedOrder) {
  const Schedule s = Ims(Example("spec_example.loop.json"));
  std::vector<std::string> keys;
  for (const auto& kv : s.stats) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"ii_tried", "ii_screened", "placement_steps",
                                            "evictions", "budget_exhausted", "storage_failures",
                                            "no_seat", "work", "serial_fallback"}));
  ASSERT_FALSE(s.options.empty());
  EXPECT_EQ(s.options[0], (std::pair<std::string, std::string>{"budget_ratio", "3"}));
}

TEST(Ims, SameGraphGivesTheSameSchedule) {
  for (const char* file : {"attention_forward.loop.json", "gemm_mainloop.loop.json"}) {
    const Graph g = Example(file);
    Schedule a = generate_ims(g, {});
    Schedule b = generate_ims(g, {});
    a.time_ns = b.time_ns = 0;
    EXPECT_EQ(a, b) << file;
  }
}

}  // namespace
}  // namespace tilesched
