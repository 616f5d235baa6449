// Tests for the export of a schedule to Triton's pipeliner
// (tilesched/triton_export.h): stages and clusters from start
// cycles, Triton's own schedule kept as it was, the refusals (a graph not
// from TTGIR, a schedule of another graph or an infeasible one), the two
// lowering rules on the committed pointer matmul (IMS's miscompiled
// assignment among them), and every committed dump's own schedule passing
// them.
#include "tilesched/triton_export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "tilesched/graphgen/ttgir_import.h"

namespace tilesched::graphgen {
namespace {

namespace fs = std::filesystem;

const std::string kTestdata = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir";
const std::string kMatmul = kTestdata + "/matmul_STAGES3_BM128_BN128_BK64_W8.triton-scheduled.ttgir";

Graph imported(const std::string& path) {
  StatusOr<TtgirImport> r = import_ttgir(path, {});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->graph : Graph{};
}

// A feasible schedule of `g` at `ii` with the given start per op id.
Schedule schedule_of(const Graph& g, int64_t ii, const std::vector<std::pair<std::string, int64_t>>& starts) {
  Schedule s;
  s.graph = g.name;
  s.generator = "test";
  s.feasible = true;
  s.ii = ii;
  s.start.assign(g.ops.size(), 0);
  for (const auto& [id, t] : starts) s.start.at(*g.find_op(id)) = t;
  derive_stage_order(s);
  return s;
}

const TritonPlacement& placed(const TritonSchedule& t, std::string_view id) {
  for (const TritonPlacement& p : t.ops) {
    if (p.id == id) return p;
  }
  ADD_FAILURE() << "no placement of " << id;
  return t.ops.front();
}

// The pointer matmul's ops (matmul_STAGES3 loop 0): the mask arithmetic
// x, x_46, x_48, y_52; the loads x_50, y_54; their buffers x_51, y_55; the
// dot acc_56; the pointer bumps ap_57, bp_58.
std::vector<std::pair<std::string, int64_t>> matmul_starts(int64_t alloc_a, int64_t alloc_b,
                                                           int64_t dot) {
  return {{"x", 0},       {"x_46", 1},      {"x_48", 2},     {"x_50", 3},
          {"y_52", 2},    {"y_54", 3},      {"x_51", alloc_a}, {"y_55", alloc_b},
          {"acc_56", dot}, {"ap_57", 4},    {"bp_58", 4}};
}

TEST(TritonExport, StagesFromStartsAndClustersOldestStageFirst) {
  const Graph g = imported(kMatmul);
  ASSERT_EQ(g.op_count(), 11);
  // II 10: loads in stage 0, buffers and dot in stage 1.
  StatusOr<TritonSchedule> t = triton_schedule_from(g, schedule_of(g, 10, matmul_starts(12, 12, 13)));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->loop, 0);
  EXPECT_EQ(t->source, "test");
  EXPECT_EQ(t->ii, 10);
  EXPECT_EQ(t->max_stage, 1);
  // Stage 1 runs first in the kernel: its starts 12 and 13 are clusters 0
  // and 1; stage 0's starts 0..4 follow as clusters 2..6.
  EXPECT_EQ(placed(*t, "x_51").stage, 1);
  EXPECT_EQ(placed(*t, "x_51").cluster, 0);
  EXPECT_EQ(placed(*t, "y_55").cluster, 0);
  EXPECT_EQ(placed(*t, "acc_56").cluster, 1);
  EXPECT_EQ(placed(*t, "x").stage, 0);
  EXPECT_EQ(placed(*t, "x").cluster, 2);
  EXPECT_EQ(placed(*t, "x_50").cluster, 5);
  EXPECT_EQ(placed(*t, "ap_57").cluster, 6);
  // By position in the body, each with its TTGIR op name.
  for (size_t i = 1; i < t->ops.size(); ++i) EXPECT_LT(t->ops[i - 1].position, t->ops[i].position);
  EXPECT_EQ(placed(*t, "x").position, 0);
  EXPECT_EQ(placed(*t, "x_50").position, 5);  // after the folded splat and broadcast
  EXPECT_EQ(placed(*t, "x_50").source_op, "tt.load");
  EXPECT_TRUE(check_triton_lowering(g, *t).ok());
}

// Graph ops made of one TTGIR op (an scf.if's) share a stage, and their
// cluster is the earliest among them; different stages are refused.
TEST(TritonExport, OpsOfOneBodyOpShareAStageAndACluster) {
  Graph g = imported(kMatmul);
  g.ops[*g.find_op("ap_57")].source_position = g.ops[*g.find_op("bp_58")].source_position;
  std::vector<std::pair<std::string, int64_t>> starts = matmul_starts(12, 12, 13);
  starts.back().second = 5;  // bp_58 one cycle after ap_57, in its stage
  StatusOr<TritonSchedule> t = triton_schedule_from(g, schedule_of(g, 10, starts));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(placed(*t, "ap_57").cluster, placed(*t, "bp_58").cluster);
  starts.back().second = 14;  // bp_58 one stage after ap_57
  t = triton_schedule_from(g, schedule_of(g, 10, starts));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("places a whole op in one stage"), std::string::npos)
      << t.status().message();
}

TEST(TritonExport, TritonsOwnScheduleAsItWas) {
  const Graph g = imported(kMatmul);
  StatusOr<TritonSchedule> t = triton_schedule_own(g);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->source, "triton");
  EXPECT_FALSE(t->ii.has_value());
  EXPECT_EQ(t->max_stage, 2);
  EXPECT_EQ(placed(*t, "x_50").stage, 0);
  EXPECT_EQ(placed(*t, "x_50").cluster, 3);
  EXPECT_EQ(placed(*t, "ap_57").cluster, 2);
  EXPECT_EQ(placed(*t, "acc_56").stage, 2);
  EXPECT_EQ(placed(*t, "acc_56").cluster, 0);
  EXPECT_TRUE(check_triton_lowering(g, *t).ok());
  // An input dump carries no schedule.
  StatusOr<TritonSchedule> none =
      triton_schedule_own(imported(kTestdata + "/matmul_STAGES3_BM128_BN128_BK64_W8.input.ttgir"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("holds no Triton schedule"), std::string::npos);
}

TEST(TritonExport, EveryCommittedDumpsOwnSchedulePassesTheRules) {
  int dumps = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(kTestdata)) {
    if (e.path().string().find(".triton-scheduled.ttgir") == std::string::npos) continue;
    const Graph g = imported(e.path().string());
    StatusOr<TritonSchedule> t = triton_schedule_own(g);
    ASSERT_TRUE(t.ok()) << e.path() << ": " << t.status().message();
    Status s = check_triton_lowering(g, *t);
    EXPECT_TRUE(s.ok()) << e.path() << ": " << s.message();
    ++dumps;
  }
  EXPECT_EQ(dumps, 4);
}

TEST(TritonExport, RefusesWhatIsNotAScheduleOfATtgirLoop) {
  Graph g = imported(kMatmul);
  Schedule s = schedule_of(g, 10, matmul_starts(12, 12, 13));
  s.graph = "other";
  StatusOr<TritonSchedule> other = triton_schedule_from(g, s);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(), "the schedule is of graph 'other', not of '" + g.name + "'");
  s.graph = g.name;
  s.feasible = false;
  EXPECT_FALSE(triton_schedule_from(g, s).ok());
  s.feasible = true;
  g.ops[3].source_position.reset();
  StatusOr<TritonSchedule> plain = triton_schedule_from(g, s);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("was not imported from TTGIR (op '" + g.ops[3].name +
                                          "' has no source_position"),
            std::string::npos)
      << plain.status().message();
}

// IMS's capped schedule of this loop: A's buffer written in stage 0, B's in
// stage 1, the dot in stage 2. Triton compiled it without a word and the
// kernel computed wrong results.
TEST(TritonExport, RefusesABufferReadInALaterStage) {
  const Graph g = imported(kMatmul);
  StatusOr<TritonSchedule> ims = triton_schedule_from(g, schedule_of(g, 10, matmul_starts(5, 15, 25)));
  ASSERT_TRUE(ims.ok()) << ims.status().message();
  Status s = check_triton_lowering(g, *ims);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("op 'x_51' (ttg.local_alloc, stage 0) writes a shared-memory "
                              "buffer that op 'acc_56' reads in stage 2: a buffer must be read "
                              "in the stage that writes it",
                              0),
            0u)
      << s.message();
  // One stage apart is refused too; the same stage is not.
  StatusOr<TritonSchedule> one = triton_schedule_from(g, schedule_of(g, 10, matmul_starts(15, 15, 25)));
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(check_triton_lowering(g, *one).ok());
  // Without the buffer rule (to test it on a GPU) only the order rule stays.
  EXPECT_TRUE(check_triton_lowering(g, *ims, false).ok());
  StatusOr<TritonSchedule> same = triton_schedule_from(g, schedule_of(g, 10, matmul_starts(25, 25, 26)));
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(check_triton_lowering(g, *same).ok());
}

TEST(TritonExport, RefusesAnOpBeforeWhatItReads) {
  const Graph g = imported(kMatmul);
  StatusOr<TritonSchedule> t = triton_schedule_own(g);
  ASSERT_TRUE(t.ok());
  // The load x_50 (stage 0, cluster 3) moved before its mask x_48.
  for (TritonPlacement& p : t->ops) {
    if (p.id == "x_48") p.cluster = 4;
  }
  Status s = check_triton_lowering(g, *t);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("op 'x_50' (stage 0, cluster 3) would run before op 'x_48' (stage "
                              "0, cluster 4) that it depends on",
                              0),
            0u)
      << s.message();
}

TEST(TritonExport, WritesOneOpPerLine) {
  const Graph g = imported(kMatmul);
  StatusOr<TritonSchedule> t = triton_schedule_from(g, schedule_of(g, 10, matmul_starts(12, 12, 13)));
  ASSERT_TRUE(t.ok());
  const std::string text = triton_schedule_json(*t);
  const nlohmann::json doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["format"], "tilesched.triton/1");
  EXPECT_EQ(doc["graph"], g.name);
  EXPECT_EQ(doc["loop"], 0);
  EXPECT_EQ(doc["ii"], 10);
  EXPECT_EQ(doc["max_stage"], 1);
  ASSERT_EQ(doc["ops"].size(), 11u);
  EXPECT_EQ(doc["ops"][0], nlohmann::json::parse(
                               R"({"position": 0, "id": "x", "op": "arith.muli", "stage": 0, "cluster": 2})"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 11 + 10);
  EXPECT_EQ(triton_schedule_json(*triton_schedule_own(g)).find("\"ii\""), std::string::npos);
}

TEST(TritonExport, StagesCountFromTheFirstThatHoldsAnOp) {
  const Graph g = imported(kMatmul);
  // The same schedule two IIs later: the same stages and clusters.
  std::vector<std::pair<std::string, int64_t>> later = matmul_starts(12, 12, 13);
  for (auto& [id, t] : later) t += 20;
  StatusOr<TritonSchedule> a = triton_schedule_from(g, schedule_of(g, 10, matmul_starts(12, 12, 13)));
  StatusOr<TritonSchedule> b = triton_schedule_from(g, schedule_of(g, 10, later));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->ops, b->ops);
  EXPECT_EQ(b->max_stage, 1);
  EXPECT_EQ(placed(*b, "x").stage, 0);
}

}  // namespace
}  // namespace tilesched::graphgen
