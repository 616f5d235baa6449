// The MaterializeSchedule driver: mutex placeholders (parallel order edges
// collapse into one), pipe placeholders and the walker's candidate pairs,
// duplicate collapse, the rebuilt region, the whole pass on a small GEMM,
// the trivial-fallback flag, the preconditions, and the pass boundary (only
// the plain schedule matters, never which generator made it).
#include <gtest/gtest.h>

#include "testing/materialize_support.h"
#include "phases.h"
#include "stage_order.h"
#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"
#include "tilesched/verify.h"

namespace tilesched::materialize_internal {
namespace {

// Two TMA loads arrive on a wait that gates an MMA; the MMA's accumulator
// is loop-carried; an arrive frees both buffers for the loads two
// iterations later (two order edges to load_a, one to load_b).
struct Gemm {
  Graph g;
  OpId la, lb, w, mma, fr;
};

Gemm SmallGemm() {
  Gemm k;
  GraphBuilder b(blackwell_target(), "small-gemm");
  k.la = b.op("la", "tiled_tma_load");
  k.lb = b.op("lb", "tiled_tma_load");
  k.w = b.op("w", "mbarrier_wait");
  k.mma = b.op("mma", "wgmma");
  k.fr = b.op("fr", "mbarrier_arrive");
  b.edge(k.la, k.w);                           // 0
  b.edge(k.lb, k.w);                           // 1
  b.edge(k.w, k.mma);                          // 2
  b.edge(k.mma, k.mma, 16, 1);                 // 3
  b.edge(k.mma, k.fr);                         // 4
  b.edge(k.fr, k.la, 1, 3, EdgeKind::kOrder);  // 5
  b.edge(k.fr, k.la, 0, 2, EdgeKind::kOrder);  // 6 (parallel to 5)
  b.edge(k.fr, k.lb, 1, 2, EdgeKind::kOrder);  // 7
  k.g = std::move(b.build()).value();
  return k;
}

// II 20: la 0, lb 8, w 16, mma 17 | fr 33 in stage 1.
Schedule GemmSchedule() { return At(20, {0, 8, 16, 17, 33}); }

TEST(Materialize, MutexPlaceholdersOnePerReleaserAcquirerPair) {
  const Gemm k = SmallGemm();
  const Schedule s = GemmSchedule();
  const std::vector<Mutex> m = seed_mutex_placeholders(k.g, s, build_value_maps(k.g, s));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].id, "Mutex_0");
  EXPECT_EQ(m[0].releaser, k.fr);
  EXPECT_EQ(m[0].acquirer, k.la);
  EXPECT_EQ(m[0].owner, k.la);  // la (stage 0) comes before fr (stage 1)
  EXPECT_EQ(m[0].edges, (std::vector<int>{5, 6}));
  EXPECT_EQ(m[0].depth, 0 - 1 + 3 + 1);  // the larger of the two edges' depths
  EXPECT_EQ(m[1].id, "Mutex_1");
  EXPECT_EQ(m[1].acquirer, k.lb);
  EXPECT_EQ(m[1].edges, std::vector<int>{7});
}

TEST(Materialize, PipePlaceholdersAndCandidatePairs) {
  const Gemm k = SmallGemm();
  const Schedule s = GemmSchedule();
  const ValueMaps maps = build_value_maps(k.g, s);
  const std::vector<PipePlaceholder> ph = seed_pipe_placeholders(k.g, s, maps);
  // Consumers in (stage, order): w (edges 0, 1), mma (3; edge 2 needs none), fr (4).
  ASSERT_EQ(ph.size(), 4u);
  EXPECT_EQ(ph[0].edge, 0);
  EXPECT_EQ(ph[1].edge, 1);
  EXPECT_EQ(ph[2].edge, 3);
  EXPECT_EQ(ph[3].edge, 4);
  const std::vector<CandidatePair> pairs = candidate_pairs(ph);
  ASSERT_EQ(pairs.size(), 3u);  // both loads arrive on w's barrier: one pair
  EXPECT_EQ(pairs[0].raw, (RawValue{RawValue::Kind::kArrival, k.w}));
  EXPECT_EQ(pairs[1].raw, (RawValue{RawValue::Kind::kValue, k.mma}));
  EXPECT_EQ(pairs[1].consumer, k.mma);
  EXPECT_EQ(pairs[2].consumer, k.fr);
}

TEST(Materialize, CollapsesDuplicatePipes) {
  std::vector<PairSolve> solves(3);
  PipeDraft a{{1, 2}, 5, 1, 1, {0, 1}};
  PipeDraft dup{{1, 2}, 5, 1, 2, {1, 4}};  // same group and consumer
  PipeDraft other{{1, 2}, 6, 1, 1, {7}};   // same group, another consumer
  const std::vector<Pipe> pipes = collapse_duplicate_pipes({{a}, {dup, other}, {a}}, solves);
  ASSERT_EQ(pipes.size(), 2u);
  EXPECT_EQ(pipes[0].id, "Pipe_0");
  EXPECT_EQ(pipes[0].depth, 2);
  EXPECT_EQ(pipes[0].edges, (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(pipes[1].id, "Pipe_1");
  EXPECT_EQ(pipes[1].consumer, 6);
  EXPECT_EQ(solves[0].pipes, std::vector<int>{0});
  EXPECT_EQ(solves[0].collapsed, 0);
  EXPECT_EQ(solves[1].pipes, (std::vector<int>{0, 1}));
  EXPECT_EQ(solves[1].collapsed, 1);
  EXPECT_EQ(solves[2].collapsed, 1);
}

TEST(Materialize, TheWholePassOnASmallGemm) {
  const Gemm k = SmallGemm();
  const Schedule s = GemmSchedule();
  std::vector<PairSolve> solves;
  StatusOr<Materialization> m = materialize_traced(k.g, s, solves);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->pipes.size(), 3u);
  const Pipe& tma = m->pipes[0];
  EXPECT_EQ(tma.producers, (std::vector<OpId>{k.la, k.lb}));  // one barrier, two loads
  EXPECT_EQ(tma.consumer, k.w);
  EXPECT_EQ(tma.owner, k.la);
  EXPECT_EQ(tma.depth, 1);
  EXPECT_EQ(tma.edges, (std::vector<int>{0, 1}));
  const Pipe& acc = m->pipes[1];  // the accumulator, loop-carried
  EXPECT_EQ(acc.producers, std::vector<OpId>{k.mma});
  EXPECT_EQ(acc.consumer, k.mma);
  EXPECT_EQ(acc.depth, 2);
  const Pipe& out = m->pipes[2];  // crosses into stage 1
  EXPECT_EQ(out.consumer, k.fr);
  EXPECT_EQ(out.depth, 2);
  EXPECT_EQ(m->mutexes.size(), 2u);
  EXPECT_FALSE(m->trivial_fallback);
  ASSERT_EQ(solves.size(), 3u);
  EXPECT_EQ(solves[0].live, (std::vector<OpId>{k.la, k.lb}));
  EXPECT_EQ(solves[0].pipes, std::vector<int>{0});

  using K = RegionStep::Kind;
  const std::vector<RegionStep> want = {
      {K::kAcquire, k.la, 0},  {K::kOp, k.la, -1},  {K::kProduce, k.la, 0},
      {K::kAcquire, k.lb, 1},  {K::kOp, k.lb, -1},  {K::kProduce, k.lb, 0},
      {K::kOp, k.w, -1},       {K::kOp, k.mma, -1}, {K::kProduce, k.mma, 1},
      {K::kProduce, k.mma, 2}, {K::kOp, k.fr, -1},  {K::kRelease, k.fr, 0},
      {K::kRelease, k.fr, 1}};
  EXPECT_EQ(m->region, want);
  EXPECT_TRUE(check_materialization(k.g, s, *m).empty());
}

TEST(Materialize, DuplicatePairsCollapseIntoOnePipe) {
  // w takes la's value on two edges that carry different handles (the
  // barrier and la's own loop-carried value) and lb on the barrier: two
  // candidate pairs, one group, one pipe.
  GraphBuilder b(blackwell_target());
  const OpId la = b.op("la", "tiled_tma_load");
  const OpId lb = b.op("lb", "tiled_tma_load");
  const OpId w = b.op("w", "mbarrier_wait");
  b.edge(la, w);
  b.edge(lb, w);
  b.edge(la, w, 8, 1);
  const Graph g = std::move(b.build()).value();
  std::vector<PairSolve> solves;
  StatusOr<Materialization> m = materialize_traced(g, At(30, {0, 8, 16}), solves);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(solves.size(), 2u);
  EXPECT_EQ(solves[1].repeat_of, la);  // the owner map answered it
  EXPECT_EQ(solves[1].collapsed, 1);
  EXPECT_EQ(solves[1].pipes, std::vector<int>{0});
  ASSERT_EQ(m->pipes.size(), 1u);
  EXPECT_EQ(m->pipes[0].producers, (std::vector<OpId>{la, lb}));
  EXPECT_EQ(m->pipes[0].depth, 2);
  EXPECT_EQ(m->pipes[0].edges, (std::vector<int>{0, 1, 2}));
}

TEST(Materialize, FallbackSetsTheFlag) {
  GraphBuilder b(blackwell_target());
  const OpId c = b.op("c", "alu");
  const OpId p = b.op("p", "tiled_tma_load");
  const OpId q = b.op("q", "alu");
  b.edge(p, c, 0);  // same cycle, p after c in (stage, order): not live
  b.edge(p, c, 0, 1);
  b.edge(q, c, 0);  // the same for q: one consumer-only pipe carries both
  const Graph g = std::move(b.build()).value();
  const Schedule s = At(10, {0, 0, 0});
  std::vector<PairSolve> solves;
  StatusOr<Materialization> m = materialize_traced(g, s, solves);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_TRUE(m->trivial_fallback);
  ASSERT_EQ(m->pipes.size(), 2u);
  // p's same-iteration edge comes first (edge id order within p): the fallback.
  EXPECT_TRUE(m->pipes[0].producers.empty());
  EXPECT_EQ(m->pipes[0].owner, c);
  EXPECT_EQ(m->pipes[0].edges, (std::vector<int>{0, 2}));
  EXPECT_EQ(m->pipes[1].producers, std::vector<OpId>{p});  // the loop-carried edge
  EXPECT_EQ(m->pipes[1].edges, std::vector<int>{1});
  int fallbacks = 0;
  for (const PairSolve& r : solves) fallbacks += r.fallback ? 1 : 0;
  EXPECT_EQ(fallbacks, 2);
  EXPECT_EQ(solves.back().repeat_of, c);
  EXPECT_EQ(solves.back().pipes, std::vector<int>{0});

  Schedule attached = s;
  attach_materialization(attached, *m);
  attach_materialization(attached, *m);  // the flag goes in once
  EXPECT_EQ(attached.flags, std::vector<std::string>{std::string(kTrivialFallbackFlag)});
  EXPECT_EQ(attached.pipes, m->pipes);
  EXPECT_EQ(carried_materialization(g, attached).trivial_fallback, true);
}

TEST(Materialize, RefusesWhatItCannotMaterialize) {
  const Gemm k = SmallGemm();
  Schedule infeasible = GemmSchedule();
  infeasible.feasible = false;
  EXPECT_EQ(materialize(k.g, infeasible).status().code(), StatusCode::kInvalidInput);
  Schedule tie = GemmSchedule();
  tie.order[1] = tie.order[0];
  StatusOr<Materialization> m = materialize(k.g, tie);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("share stage 0, order 0"), std::string::npos)
      << m.status().message();
  Schedule sizes = GemmSchedule();
  sizes.stage.pop_back();
  EXPECT_FALSE(materialize(k.g, sizes).ok());
  // L1 broken on the order edges: fr four stages after la, whose next use
  // of the buffer is only three iterations on. No depth can be below 1 in
  // a legal schedule; here the mutex's is 0.
  Schedule broken = At(20, {0, 8, 16, 17, 80});
  StatusOr<Materialization> b = materialize(k.g, broken);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("postcondition violated"), std::string::npos)
      << b.status().message();
}

// MaterializeOptions: without the region or the postcondition check the
// values are the same; the region is left empty only when asked. A build
// with assertions checks the postconditions whatever the options say.
TEST(Materialize, TheOptionsLeaveTheValuesAlone) {
  const Gemm k = SmallGemm();
  const Schedule s = GemmSchedule();
  StatusOr<Materialization> full = materialize(k.g, s);
  ASSERT_TRUE(full.ok());
  MaterializeOptions lean;
  lean.postconditions = false;
  lean.region = false;
  StatusOr<Materialization> m = materialize(k.g, s, lean);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->pipes, full->pipes);
  EXPECT_EQ(m->mutexes, full->mutexes);
  EXPECT_EQ(m->agents, full->agents);
  EXPECT_EQ(m->trivial_fallback, full->trivial_fallback);
  EXPECT_TRUE(m->region.empty());
  lean.region = true;
  StatusOr<Materialization> with_region = materialize(k.g, s, lean);
  ASSERT_TRUE(with_region.ok());
  EXPECT_EQ(*with_region, *full);

  // The broken schedule of RefusesWhatItCannotMaterialize: the check
  // refuses it; unchecked (a release build), its values go out and the
  // verifier, which checks them on its own, refuses them.
  const Schedule broken = At(20, {0, 8, 16, 17, 80});
  lean.region = false;
  StatusOr<Materialization> b = materialize(k.g, broken, lean);
#ifdef NDEBUG
  ASSERT_TRUE(b.ok()) << b.status().message();
  Schedule attached = broken;
  attach_materialization(attached, std::move(*b));
  const VerifyReport report = verify_schedule(k.g, attached);
  EXPECT_TRUE(report.violates(Rule::kDependence));
  EXPECT_TRUE(report.violates(Rule::kMaterialization));
#else
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("postcondition violated"), std::string::npos)
      << b.status().message();
#endif
}

// The pass boundary: everything but ii, start, stage and order is ignored,
// so which generator made the schedule cannot change the values.
TEST(Materialize, OnlyThePlainScheduleMatters) {
  const Gemm k = SmallGemm();
  const Schedule plain = GemmSchedule();
  Schedule decorated = plain;
  decorated.generator = "cost-based";
  decorated.options = {{"arm_policy", "best-cost"}};
  decorated.stats = {{"evictions", 12}};
  decorated.diagnostics = {"something"};
  decorated.time_ns = 99;
  StatusOr<Materialization> a = materialize(k.g, plain);
  StatusOr<Materialization> b = materialize(k.g, decorated);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  // And the same graph through both generators: each schedule materializes
  // and re-materializing what generate_schedule attached gives it back.
  for (GeneratorKind kind : {GeneratorKind::kSerial, GeneratorKind::kCostBased}) {
    GenerateOptions opts;
    opts.generator = kind;
    StatusOr<Schedule> s = generate_schedule(k.g, opts);
    ASSERT_TRUE(s.ok() && s->feasible);
    StatusOr<Materialization> again = materialize(k.g, *s);
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(again->pipes, s->pipes);
    EXPECT_EQ(again->mutexes, s->mutexes);
  }
}

}  // namespace
}  // namespace tilesched::materialize_internal
