#include "tilesched/serial.h"

#include <gtest/gtest.h>

#include "testing/test_graphs.h"
#include "tilesched/graph_builder.h"
#include "tilesched/verify.h"

namespace tilesched {
namespace {

void ExpectLegal(const Graph& g, const Schedule& s) {
  ASSERT_TRUE(s.feasible);
  const VerifyReport r = verify_schedule(g, s);
  for (const Violation& v : r.violations) ADD_FAILURE() << rule_name(v.rule) << ": " << v.message;
}

Graph WorkedExample() {
  GraphBuilder b(blackwell_target(), "seed-worked-example");
  const OpId load = b.op("load", "tiled_tma_load");
  const OpId write = b.op("write", "smem_write");
  b.at(write).store_bytes = 16384;
  b.op("mma", "wgmma");
  const OpId read = b.op("read", "smem_read");
  b.edge(load, read, 8);
  return Build(b);
}

TEST(Serial, WorkedExample) {
  const Graph g = WorkedExample();
  const Schedule s = generate_serial(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.generator, "serial");
  // Kahn: load, write, mma, read (read waits for load; ties by program order).
  EXPECT_EQ(s.order, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(s.stage, (std::vector<int64_t>{0, 0, 0, 0}));
  // write waits for tp_smem_wr (slot 16) until the load's 8 cycles end;
  // in-order issue keeps mma and read from starting before it.
  EXPECT_EQ(s.start, (std::vector<int64_t>{0, 8, 8, 8}));
  EXPECT_EQ(s.ii, 16);  // makespan: mma holds its slots over [8, 16)
  EXPECT_EQ(s.stage_count, 1);
  EXPECT_EQ(s.mii.resource, 15);  // slot 16: 8 + 7 cycles
  EXPECT_EQ(s.mii.max(), 15);
  ExpectLegal(g, s);
}

TEST(Serial, KahnBreaksTiesByProgramOrder) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.generic("a", 1), c = b.generic("c", 1), d = b.generic("d", 1);
  const OpId e = b.generic("e", 1);
  b.edge(d, c, 0);
  const Graph g = Build(b);
  const Schedule s = generate_serial(g);
  ASSERT_TRUE(s.feasible);
  // Ready {a, d, e}: a, d; then c becomes ready before e.
  EXPECT_EQ(s.order[a], 0);
  EXPECT_EQ(s.order[d], 1);
  EXPECT_EQ(s.order[c], 2);
  EXPECT_EQ(s.order[e], 3);
  // c follows d in the walk but precedes it in program order: it issues a
  // cycle later so that order agrees with (start, program index).
  EXPECT_EQ(s.start[d], 0);
  EXPECT_EQ(s.start[c], 1);
  EXPECT_EQ(s.start[e], 1);
  Schedule derived = s;
  derive_stage_order(derived);
  EXPECT_EQ(derived.order, s.order);
  ExpectLegal(g, s);
}

TEST(Serial, ZeroDistanceCycleIsAFailureNotACrash) {
  GraphBuilder b(blackwell_target());
  const OpId x = b.op("x", "alu"), y = b.op("y", "alu");
  b.op("z", "alu");
  b.edge(x, y, 0);
  b.edge(y, x, 0);
  const Schedule s = generate_serial(Build(b));
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kDependenceCycle);
  ASSERT_FALSE(s.diagnostics.empty());
  EXPECT_NE(s.diagnostics.back().find("x, y"), std::string::npos) << s.diagnostics.back();
  EXPECT_TRUE(s.start.empty());
}

TEST(Serial, LoopCarriedEdgesRaiseII) {
  for (int64_t distance : {1, 2}) {
    GraphBuilder b(blackwell_target());
    const OpId x = b.generic("x", 1), y = b.generic("y", 1);
    b.edge(x, y, 1);
    b.edge(y, x, 50, distance);
    const Graph g = Build(b);
    const Schedule s = generate_serial(g);
    EXPECT_EQ(s.start, (std::vector<int64_t>{0, 1}));
    // s_x + d * II >= s_y + 50  =>  II >= ceil(51 / d)
    EXPECT_EQ(s.ii, (51 + distance - 1) / distance);
    ExpectLegal(g, s);
  }
}

TEST(Serial, PooledSlotAdmitsUpToItsCapacity) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 6; ++i) b.op("r" + std::to_string(i), "smem_read");
  const Graph g = Build(b);
  const Schedule s = generate_serial(g);
  // tp_smem_rd holds 5 readers (pool 4); the sixth waits for the first.
  EXPECT_EQ(s.start, (std::vector<int64_t>{0, 0, 0, 0, 0, 7}));
  EXPECT_EQ(s.ii, 14);
  ExpectLegal(g, s);
}

TEST(Serial, RatePoolAdmitsUpToItsCapacity) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 5; ++i) {
    const OpId v = b.generic("t" + std::to_string(i), 1);
    b.at(v).pools = {{1, 1}};  // TMEM, capacity 4
  }
  const Graph g = Build(b);
  const Schedule s = generate_serial(g);
  EXPECT_EQ(s.start, (std::vector<int64_t>{0, 0, 0, 0, 1}));
  ExpectLegal(g, s);
}

TEST(Serial, ReportsTheConstraintsItIgnores) {
  GraphBuilder b(blackwell_target());
  const OpId x = b.op("x", "alu");
  b.at(x).max_depth = 0;
  const Schedule s = generate_serial(Build(b));
  ASSERT_EQ(s.diagnostics.size(), 1u);
  EXPECT_NE(s.diagnostics[0].find("seed 001 quirk"), std::string::npos);

  GraphBuilder plain(blackwell_target());
  plain.op("x", "alu");
  EXPECT_TRUE(generate_serial(Build(plain)).diagnostics.empty());
}

TEST(Serial, StorageBudgetTheSerialScheduleExceedsIsReported) {
  GraphBuilder b(blackwell_target());
  b.at(b.op("w0", "smem_write")).store_bytes = 150000;
  b.at(b.op("w1", "smem_write")).store_bytes = 150000;
  const Schedule s = generate_serial(Build(b));
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kStorageBudget);
}

TEST(Serial, ForceSerialRegionIsLegal) {
  GraphBuilder b(blackwell_target());
  const OpId load = b.op("load", "tiled_tma_load"), mma = b.op("mma", "wgmma");
  b.edge(load, mma);
  b.edge(mma, mma, 16, 1);
  b.force_serial();
  const Graph g = Build(b);
  const Schedule s = generate_serial(g);
  ExpectLegal(g, s);
  EXPECT_GE(s.ii, s.start[mma] + 8);
}

}  // namespace
}  // namespace tilesched
