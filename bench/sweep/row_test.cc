// One graph's rows: deterministic, verified, the exact oracle's figure
// shared by every row of its graph, an unknown family as a graph-error row.
#include "sweep/row.h"

#include <gtest/gtest.h>

#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"
#include "tilesched/graphgen/families.h"

namespace tilesched::sweep {
namespace {

std::string untimed(SweepRow r) {
  r.time_ns = 0;
  r.wall_ns = 0;
  r.cpu_ns = 0;
  return format_row(r);
}

TEST(SweepRow, RowsAreDeterministicAndVerified) {
  const std::vector<GeneratorConfig> configs = {
      {GeneratorKind::kSerial, std::nullopt},
      {GeneratorKind::kCostBased, ArmPolicy::kFirstSuccess},
      {GeneratorKind::kCostBased, ArmPolicy::kBestCost}};
  for (const graphgen::Family& f : graphgen::families()) {
    const GraphKey key{std::string(f.name), 24, 7};
    const std::vector<SweepRow> a = run_graph(key, configs);
    const std::vector<SweepRow> b = run_graph(key, configs);
    ASSERT_EQ(a.size(), configs.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(untimed(a[i]), untimed(b[i]));
      EXPECT_TRUE(a[i].verified) << a[i].reason;
      EXPECT_EQ(a[i].failure, "none");
      EXPECT_LE(a[i].graph_ops, 24);
      EXPECT_GE(a[i].graph_ops, 24 - f.op_tolerance);
      EXPECT_GE(*a[i].ii, a[i].mii);
      EXPECT_FALSE(a[i].optimal_ii);  // no exact row
      EXPECT_EQ(a[i].graph_hash, a[0].graph_hash);
    }
    EXPECT_FALSE(a[0].stats[0]);  // serial: no cost-based statistics
    EXPECT_TRUE(a[1].stats[0]);   // ii_tried
    EXPECT_LE(*a[1].ii, *a[0].ii);  // cost-based is never worse than serial
  }
}

// Two TMA loads arrive on a wait that gates an MMA with a loop-carried
// accumulator; an arrive frees the loads' buffers (order edges).
Graph SmallGemm() {
  GraphBuilder b(blackwell_target(), "small-gemm");
  const OpId la = b.op("la", "tiled_tma_load");
  const OpId lb = b.op("lb", "tiled_tma_load");
  const OpId w = b.op("w", "mbarrier_wait");
  const OpId mma = b.op("mma", "wgmma");
  const OpId fr = b.op("fr", "mbarrier_arrive");
  b.edge(la, w);
  b.edge(lb, w);
  b.edge(w, mma);
  b.edge(mma, mma, 16, 1);
  b.edge(mma, fr);
  b.edge(fr, la, 1, 3, EdgeKind::kOrder);
  b.edge(fr, la, 0, 2, EdgeKind::kOrder);
  b.edge(fr, lb, 1, 2, EdgeKind::kOrder);
  return std::move(b).build().value();
}

Schedule At(int64_t ii, std::vector<int64_t> start) {
  Schedule s;
  s.feasible = true;
  s.ii = ii;
  s.start = std::move(start);
  derive_stage_order(s);
  return s;
}

// What run_config did before it left the materializer's postcondition
// check to the verifier: with_materialization, then verify_schedule.
struct Verified {
  Schedule schedule;
  VerifyReport report;
};
Verified TheFullWay(const Graph& g, Schedule s) {
  s = with_materialization(g, std::move(s));
  VerifyReport report = verify_schedule(g, s);
  return {std::move(s), std::move(report)};
}

void ExpectSameReport(const VerifyReport& a, const VerifyReport& b) {
  ASSERT_EQ(a.violations.size(), b.violations.size());
  for (size_t i = 0; i < a.violations.size(); ++i) {
    EXPECT_EQ(a.violations[i].rule, b.violations[i].rule);
    EXPECT_EQ(a.violations[i].ops, b.violations[i].ops);
    EXPECT_EQ(a.violations[i].message, b.violations[i].message);
  }
}

TEST(SweepRow, MaterializeAndVerifyGivesTheFullWaysScheduleAndReport) {
  const Graph g = SmallGemm();
  // Legal: II 20, la 0, lb 8, w 16, mma 17 | fr 33 in stage 1.
  Schedule legal = At(20, {0, 8, 16, 17, 33});
  const Verified full = TheFullWay(g, legal);
  ASSERT_TRUE(full.report.legal());
  ASSERT_FALSE(full.schedule.pipes.empty());
  const VerifyReport report = materialize_and_verify(g, legal);
  EXPECT_TRUE(report.legal());
  EXPECT_EQ(legal, full.schedule);  // the same values, agents and flags

  // L1 broken on the order edges (fr four stages after la): the
  // materializer's postcondition check refuses the values (a mutex depth
  // of 0), so the full way leaves them out with a diagnostic and the
  // verifier reports the dependence alone. The sweep's row must say the same.
  Schedule broken = At(20, {0, 8, 16, 17, 80});
  const Verified full_broken = TheFullWay(g, broken);
  ASSERT_FALSE(full_broken.report.legal());
  ASSERT_TRUE(full_broken.schedule.pipes.empty());
  const VerifyReport broken_report = materialize_and_verify(g, broken);
  ExpectSameReport(broken_report, full_broken.report);
  EXPECT_EQ(broken, full_broken.schedule);

  // Infeasible: only verified.
  Schedule none;
  none.feasible = false;
  const VerifyReport none_report = materialize_and_verify(g, none);
  ExpectSameReport(none_report, verify_schedule(g, none));
  EXPECT_TRUE(none.pipes.empty());
}

TEST(SweepRow, MaterializeAndVerifyMatchesTheFullWayOnEveryRandomLayeredRow) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    StatusOr<Graph> g = graphgen::generate("random_layered", 16, seed, {});
    ASSERT_TRUE(g.ok());
    for (GeneratorKind kind : {GeneratorKind::kSerial, GeneratorKind::kIms}) {
      GenerateOptions opts;
      opts.generator = kind;
      opts.materialize = false;
      StatusOr<Schedule> s = generate_schedule(*g, opts);
      ASSERT_TRUE(s.ok());
      const Verified full = TheFullWay(*g, *s);
      const VerifyReport report = materialize_and_verify(*g, *s);
      ExpectSameReport(report, full.report);
      EXPECT_EQ(*s, full.schedule) << "seed " << seed;
    }
  }
}

TEST(SweepRow, GraphHashIsFnv1aOfTheCanonicalJsonAndTellsGraphsApart) {
  StatusOr<Graph> g1 = graphgen::generate("random_layered", 16, 1, {});
  StatusOr<Graph> g2 = graphgen::generate("random_layered", 16, 2, {});
  ASSERT_TRUE(g1.ok() && g2.ok());
  EXPECT_EQ(graph_hash(*g1), graph_hash(*graphgen::generate("random_layered", 16, 1, {})));
  EXPECT_NE(graph_hash(*g1), graph_hash(*g2));
}

TEST(SweepRow, GraphHashIgnoresTheNameButNotOneLatency) {
  StatusOr<Graph> g = graphgen::generate("gemm_mainloop", 16, 1, {});
  ASSERT_TRUE(g.ok());
  Graph renamed = *g;
  renamed.name = "another name";
  EXPECT_EQ(graph_hash(renamed), graph_hash(*g));
  renamed.name.clear();
  EXPECT_EQ(graph_hash(renamed), graph_hash(*g));
  Graph slower = *g;
  slower.edges.front().latency += 1;
  EXPECT_NE(graph_hash(slower), graph_hash(*g));
  Graph slower_op = *g;
  slower_op.ops.back().latency += 1;
  EXPECT_NE(graph_hash(slower_op), graph_hash(*g));
}

TEST(SweepRow, TheExactRowFillsOptimalIiOnEveryRowOfItsGraph) {
  const std::vector<SweepRow> rows =
      run_graph({"random_layered", 8, 1}, {{GeneratorKind::kSerial, std::nullopt},
                                           {GeneratorKind::kExact, std::nullopt}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].verified);
  EXPECT_TRUE(rows[1].verified) << rows[1].reason;
  EXPECT_EQ(rows[1].failure, "none");
  EXPECT_EQ(rows[1].mii, rows[0].mii);
  for (const SweepRow& r : rows) {
    ASSERT_TRUE(r.optimal_ii);
    EXPECT_EQ(*r.optimal_ii, *rows[1].ii);
    EXPECT_EQ(r.proven, true);
    EXPECT_GE(*r.ii, *r.optimal_ii);
  }
}

TEST(SweepRow, UnknownFamilyIsAGraphErrorRow) {
  const std::vector<SweepRow> rows =
      run_graph({"no_such_family", 8, 1}, {{GeneratorKind::kSerial, std::nullopt}});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].failure, "graph-error");
  EXPECT_FALSE(rows[0].verified);
}

TEST(SweepRow, FillOptimalSharesTheExactRowsIiWithTheGraphsRows) {
  std::vector<ConfigRun> runs(2);
  runs[0].row.generator = "serial";
  runs[0].row.verified = true;
  runs[0].schedule = Schedule{};
  runs[1].row.generator = "exact";
  runs[1].row.verified = true;
  Schedule exact;
  exact.ii = 7;
  exact.lower_bound = 7;
  exact.proven_optimal = true;
  runs[1].schedule = exact;
  fill_optimal(runs);
  for (const ConfigRun& r : runs) {
    EXPECT_EQ(r.row.optimal_ii, 7);
    EXPECT_EQ(r.row.proven, true);
  }
  // An exact row that did not verify gives no figure.
  runs[1].row.verified = false;
  runs[0].row.optimal_ii.reset();
  runs[0].row.proven.reset();
  fill_optimal(runs);
  EXPECT_FALSE(runs[0].row.optimal_ii);
  EXPECT_FALSE(runs[0].row.proven);
}

// Two stage caps in one sweep: each row's optimum is the oracle's under its
// own cap, whichever cap's rows come first (--max-stages 2,0 and 0,2).
TEST(SweepRow, FillOptimalTakesTheExactRowWithTheSameStageCap) {
  auto run_of = [](const char* generator, int64_t cap, int64_t ii, bool proven) {
    ConfigRun r;
    r.row.generator = generator;
    r.row.max_stages = cap;
    r.row.verified = true;
    Schedule s;
    s.ii = ii;
    s.proven_optimal = proven;
    s.stages_proven = cap == 0;
    r.schedule = s;
    return r;
  };
  for (const bool capped_first : {true, false}) {
    std::vector<ConfigRun> capped = {run_of("cost-based", 2, 38, false), run_of("exact", 2, 37, true)};
    std::vector<ConfigRun> uncapped = {run_of("cost-based", 0, 33, false), run_of("exact", 0, 32, false)};
    std::vector<ConfigRun> runs = capped_first ? capped : uncapped;
    for (ConfigRun& r : capped_first ? uncapped : capped) runs.push_back(r);
    fill_optimal(runs);
    for (const ConfigRun& r : runs) {
      SCOPED_TRACE(r.row.generator + " max_stages " + std::to_string(r.row.max_stages));
      EXPECT_EQ(r.row.optimal_ii, r.row.max_stages == 2 ? 37 : 32);
      EXPECT_EQ(r.row.proven, r.row.max_stages == 2);
      EXPECT_EQ(r.row.stages_proven, r.row.max_stages == 0);
    }
  }
  // A cap without an exact row of its own gets no optimum.
  std::vector<ConfigRun> runs = {run_of("exact", 0, 32, true), run_of("ims", 3, 35, false)};
  fill_optimal(runs);
  EXPECT_FALSE(runs[1].row.optimal_ii);
  EXPECT_FALSE(runs[1].row.proven);
}

}  // namespace
}  // namespace tilesched::sweep
