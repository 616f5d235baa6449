// Tests of the exact oracle: hand-built graphs whose optimum is argued in
// the comments (one per rule that can force II above the MII), the bundled
// examples, the differential chain MII <= exact <= cost-based <= serial on
// random layered graphs (exact_differential_test.cc), the
// time-limit semantics, determinism and the JSON round trip.
#include "tilesched/exact.h"

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "search/ii_range.h"
#include "testing/test_files.h"
#include "testing/test_graphs.h"
#include "bounds.h"
#include "components.h"
#include "stage_floor.h"
#include "tilesched/cost_based.h"
#include "tilesched/ims.h"
#include "tilesched/sms.h"
#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/mii.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"
#include "util/test_seams.h"

namespace tilesched {
namespace {

// Slots: 1 "x" and 2 "y" singletons, 3 "pool" of capacity 2.
// Pools: 0 "rate" (rate, capacity 2), 1 "smem" (storage, `smem` bytes).
Target test_target(int64_t smem = 1 << 20) {
  return make_generic_target("t", {{"x", 1, false}, {"y", 1, false}, {"pool", 2, false}},
                             {{"rate", PoolKind::kRate, 2, 0, false},
                              {"smem", PoolKind::kStorage, smem, 0, false}});
}

Schedule ExactWith(const Graph& g, ExactBackend backend, int64_t limit_ms,
                   SatEncoding encoding = SatEncoding::kRowStage) {
  ExactOptions opts;
  opts.backend = backend;
  opts.sat_encoding = encoding;
  opts.time_limit_ms = limit_ms;
  StatusOr<ExactResult> r = generate_exact(g, opts);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return Schedule{};
  const Schedule& s = r->schedule;
  if (s.feasible) {
    const VerifyReport report = verify_schedule(g, s);
    for (const Violation& v : report.violations) ADD_FAILURE() << g.name << ": " << v.message;
  }
  return s;
}

// Where both prove a figure, the two schedules agree on it.
void ExpectAgree(const Graph& g, const Schedule& a, const Schedule& b) {
  if (a.proven_optimal && b.proven_optimal) {
    EXPECT_EQ(a.ii, b.ii) << g.name;
    if (a.stages_proven && b.stages_proven) {
      EXPECT_EQ(a.stage_count, b.stage_count) << g.name;
    }
  }
  if (a.proven_optimal) {
    EXPECT_LE(a.ii, b.ii) << g.name;
  }
  if (b.proven_optimal) {
    EXPECT_LE(b.ii, a.ii) << g.name;
  }
}

// The SAT backend's schedule (its default, row/stage encoding), with its
// time-indexed encoding's and the SMT backend's beside it: all verified, and every
// figure two of them prove agrees.
Schedule Exact(const Graph& g, int64_t limit_ms = 20'000) {
  const Schedule sat = ExactWith(g, ExactBackend::kSat, limit_ms);
  const Schedule time_indexed =
      ExactWith(g, ExactBackend::kSat, limit_ms, SatEncoding::kTimeIndexed);
  const Schedule smt = ExactWith(g, ExactBackend::kSmt, limit_ms);
  ExpectAgree(g, sat, smt);
  ExpectAgree(g, time_indexed, smt);
  ExpectAgree(g, sat, time_indexed);
  return sat;
}

void ExpectProvenOptimum(const Graph& g, int64_t ii, int64_t mii) {
  const Schedule s = Exact(g);
  EXPECT_EQ(s.mii.max(), mii);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, ii);
  EXPECT_TRUE(s.proven_optimal);
  EXPECT_EQ(s.lower_bound, ii);
}

// a -> b (latency 3) and b -> a one iteration later (latency 0): RecMII 3;
// both hold singleton x for 2 cycles: ResMII 4. At II 4, b starts 3 or 4
// after a, so its rows {3, 0} or {0, 1} meet a's {0, 1}; at II 5, b = a + 3.
// Returns b.
OpId AddRecurrenceOnX(GraphBuilder& b) {
  const OpId a = b.generic("a", 3, {{1, 2, 1}});
  const OpId c = b.generic("b", 0, {{1, 2, 1}});
  b.edge(a, c, 3);
  b.edge(c, a, 0, 1);
  return c;
}

// --sat-encoding's names (tilesched/exact.h) read back, and nothing else.
TEST(Exact, SatEncodingNamesReadBack) {
  for (const SatEncoding e : {SatEncoding::kRowStage, SatEncoding::kTimeIndexed}) {
    EXPECT_EQ(parse_sat_encoding(sat_encoding_name(e)), e);
  }
  EXPECT_EQ(sat_encoding_name(SatEncoding::kTimeIndexed), "time");
  EXPECT_EQ(parse_sat_encoding("cnf"), std::nullopt);
}

TEST(Exact, RecurrenceAndSingletonForceOneAboveMii) {
  GraphBuilder b(test_target());
  AddRecurrenceOnX(b);
  ExpectProvenOptimum(b.build().value(), 5, 4);
}

// The same recurrence with a tail outside it (b -> c -> d on slot y): the
// component {a, b} alone is infeasible at II 4, which proves the graph
// infeasible there without the whole graph's model.
TEST(Exact, AnInfeasibleComponentProvesTheII) {
  GraphBuilder b(test_target());
  const OpId c = AddRecurrenceOnX(b);
  const OpId d = b.generic("c", 1, {{2, 1, 1}});
  b.edge(c, d, 1);
  b.edge(d, b.generic("d", 1, {{2, 1, 1}}), 1);
  const Graph g = b.build().value();
  EXPECT_TRUE(exact_internal::component_subgraphs(g).empty());  // under 8 ops
  const int min_ops = test_seams::min_component_ops;
  test_seams::min_component_ops = 2;
  const std::vector<Graph> components = exact_internal::component_subgraphs(g);
  ASSERT_EQ(components.size(), 1u);
  EXPECT_EQ(components[0].op_count(), 2);
  EXPECT_EQ(components[0].edge_count(), 2);
  ExpectProvenOptimum(g, 5, 4);
  for (ExactBackend backend : {ExactBackend::kSat, ExactBackend::kSmt}) {
    ExactOptions opts;
    opts.backend = backend;
    StatusOr<ExactResult> r = generate_exact(g, opts);
    ASSERT_TRUE(r.ok());
    auto stat = [&](const std::string& name) {
      for (const auto& [key, value] : r->schedule.stats) {
        if (key == name) return value;
      }
      return int64_t{-1};
    };
    // With the SAT backend every II the search asked (only 4, when a
    // heuristic found 5) fell to the component; the SMT backend asks none.
    EXPECT_EQ(stat("exact.component_proofs"),
              backend == ExactBackend::kSat ? stat("exact.ii_infeasible") : 0)
        << exact_backend_name(backend);
  }
  test_seams::min_component_ops = min_ops;
}

// Two ops on one singleton slot, 3 and 2 cycles: the rows add up.
TEST(Exact, TwoOpsOnASingletonSlotNeedTheSumOfTheirHolds) {
  GraphBuilder b(test_target());
  b.generic("a", 1, {{1, 3, 1}});
  b.generic("b", 1, {{1, 2, 1}});
  ExpectProvenOptimum(b.build().value(), 5, 5);
}

// A recurrence of latency 7 over one iteration: II 7.
TEST(Exact, RecurrenceForcesII) {
  GraphBuilder b(test_target());
  const OpId a = b.generic("a", 4, {{1, 1, 1}});
  const OpId c = b.generic("b", 3, {{2, 1, 1}});
  b.edge(a, c);
  b.edge(c, a, 3, 1);
  ExpectProvenOptimum(b.build().value(), 7, 7);
}

// Pooled slot of capacity 2: occupancy 2 for 3 cycles, then 1 unit for 2
// cycles twice. FineMII = ceil((6 + 2 + 2) / 2) = 5 and a fit exists at 5
// (the two small ones side by side); a singleton reading of the slot would
// need 7.
TEST(Exact, PooledSlotCapacityTwo) {
  GraphBuilder b(test_target());
  b.generic("wide", 1, {{3, 3, 2}});
  b.generic("n1", 1, {{3, 2, 1}});
  b.generic("n2", 1, {{3, 2, 1}});
  ExpectProvenOptimum(b.build().value(), 5, 5);
}

// Rate pool of capacity 2 held for the footprint: three ops of count 1,
// footprint 4: FineMII = ceil(12 / 2) = 6.
TEST(Exact, RatePoolHeldForTheFootprintBoundsTheII) {
  GraphBuilder b(test_target());
  for (int i = 0; i < 3; ++i) {
    const OpId v = b.generic("p" + std::to_string(i), 1, {{2 - i % 2, 4, 1}});
    b.at(v).pools = {{0, 1}};
  }
  // Slots x and y hold 8 and 4 cycles: ResMII 8 dominates the pool.
  ExpectProvenOptimum(b.build().value(), 8, 8);
}

// A leader group: b starts 4 cycles after a and must share its stage, so
// II >= 5; without the group II 1 would do (MII 1).
TEST(Exact, LeaderGroupForcesLargerII) {
  GraphBuilder b(test_target());
  const OpId a = b.generic("a", 4, {{1, 1, 1}});
  const OpId c = b.generic("b", 1, {{2, 1, 1}});
  b.at(a).leader_gid = 7;
  b.at(c).leader_gid = 7;
  b.edge(a, c);
  ExpectProvenOptimum(b.build().value(), 5, 1);
}

// Two chains x -> y, z -> w of latency 4 whose ends y and w have max_depth
// 0 and share singleton x: both start in [4, II - 1] on different rows, so
// II >= 6 while DepMII = ceil(5 / 1) = 5.
TEST(Exact, MaxDepthForcesLargerII) {
  GraphBuilder b(test_target());
  const OpId x = b.generic("x", 4, {{2, 1, 1}});
  const OpId y = b.generic("y", 1, {{1, 1, 1}});
  const OpId z = b.generic("z", 4, {{3, 1, 1}});
  const OpId w = b.generic("w", 1, {{1, 1, 1}});
  b.at(y).max_depth = 0;
  b.at(w).max_depth = 0;
  b.edge(x, y);
  b.edge(z, w);
  ExpectProvenOptimum(b.build().value(), 6, 5);
}

// SMEM: p's buffer (100 bytes of a 100-byte pool) lives until c ends; c
// starts 6 cycles after p and holds x for 2, so one copy needs II >= 8.
TEST(Exact, SmemBudgetForcesLargerII) {
  GraphBuilder b(test_target(100));
  const OpId p = b.generic("p", 6, {{1, 1, 1}});
  const OpId c = b.generic("c", 1, {{2, 2, 1}});
  b.at(p).store_bytes = 100;
  b.edge(p, c);
  ExpectProvenOptimum(b.build().value(), 8, 2);
  // Twice the budget: two copies, and II 2 (ResMII of y) is enough.
  GraphBuilder b2(test_target(200));
  const OpId p2 = b2.generic("p", 6, {{1, 1, 1}});
  const OpId c2 = b2.generic("c", 1, {{2, 2, 1}});
  b2.at(p2).store_bytes = 100;
  b2.edge(p2, c2);
  const Schedule s = Exact(b2.build().value());
  EXPECT_GT(s.ii, 2);  // copies = ceil(8 / II) <= 2 needs II >= 4
  EXPECT_EQ(s.ii, 4);
  EXPECT_TRUE(s.proven_optimal);
}

// Stores adding up to more than the storage pool: L4 fails at every II
// (storage.h). The oracle says so at once, with no solver check, and with
// the lower bound its search of every II up to the cap would have proven.
// (It used to prove each II infeasible in turn: fuzz/regressions/
// fuzz_differential/stores-exceed-smem-exact-every-ii.)
TEST(Exact, StoresOverTheStoragePoolFailAtOnceAsStorageBudget) {
  GraphBuilder b(test_target(150));
  const OpId p = b.generic("p", 2, {{1, 1, 1}});
  const OpId q = b.generic("q", 2, {{1, 1, 1}});
  b.at(p).store_bytes = 100;
  b.at(q).store_bytes = 100;
  b.edge(p, q);
  const Graph g = b.build().value();
  StatusOr<ExactResult> r = generate_exact(g, ExactOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->schedule.feasible);
  EXPECT_EQ(r->schedule.failure, FailureReason::kStorageBudget);
  EXPECT_TRUE(r->attempts.empty());
  ASSERT_TRUE(r->schedule.lower_bound.has_value());
  EXPECT_EQ(*r->schedule.lower_bound, sequential_ii_cap(g, r->schedule.mii.max()) + 1);
}

// The oracle sets no Z3 "timeout" (Z3 4.8.12's timer threads can
// deadlock): its own watchdog interrupts each check at the check's limit.
// A check of this graph takes tens of milliseconds, so at 1 ms checks are
// cut (answer unknown) on any ordinary machine; with the watchdog not
// armed per check they would all be decided. None may turn into an error
// or a skipped II, and the answer stays legal and honest. (That a fresh
// context follows an interrupt is not observable here: an interrupted
// Z3 4.8.12 context answers unknown too.)
TEST(Exact, ChecksAreCutAtTheirOwnLimitWithoutZ3sTimeout) {
  const Graph g = Example("attention_forward.loop.json");
  ExactOptions opts;
  opts.backend = ExactBackend::kSmt;
  opts.time_limit_ms = 60'000;
  test_seams::per_check_limit_ms = 1;
  StatusOr<ExactResult> r = generate_exact(g, opts);
  test_seams::per_check_limit_ms = 0;
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Schedule& s = r->schedule;
  ASSERT_TRUE(s.feasible);
  EXPECT_TRUE(verify_schedule(g, s).legal());
  ASSERT_EQ(r->attempts.size(), 7u);  // II 27 (the MII) to 33 (the start's 34, less one)
  int cut = 0;
  for (const IiAttempt& a : r->attempts) {
    EXPECT_NE(a.outcome, IiOutcome::kSkipped) << "II " << a.ii;
    cut += a.outcome == IiOutcome::kUnknown ? 1 : 0;
  }
  EXPECT_GE(cut, 2);
  ASSERT_TRUE(s.lower_bound.has_value());
  EXPECT_LE(*s.lower_bound, s.ii);
  EXPECT_GE(s.ii, 34);  // never below the proven optimum
}

// The oracle's deadline passing between two checks (here after the first
// one, through the test seam) gives a time-limited answer, never a Z3
// error: the watchdog interrupts checks only. It once stayed armed between
// checks, and an interrupt landing after a check, before its model was
// read, threw "Z3 failed: canceled" out of the oracle (a fuzzing finding:
// fuzz/regressions/fuzz_differential/z3-canceled-outside-a-check).
TEST(Exact, TheDeadlinePassingBetweenChecksGivesAnAnswerNotAZ3Error) {
  // One op of latency 0 with an order edge to itself at distance 0 (from
  // the fuzzing corpus): no heuristic schedules it (a zero-distance cycle),
  // so the oracle's first check, at II 1, is sat and its model is read next.
  const StatusOr<Graph> g = parse_graph_json(R"({
    "format": "tilesched.loop/1", "name": "one",
    "target": {"name": "t", "slots": [{"name": "s0", "capacity": 1}]},
    "attrs": {"force_serial_execution": true},
    "ops": [{"id": "v0", "kind": "generic", "latency": 0}],
    "edges": [{"from": "v0", "to": "v0", "kind": "order"}]})", "inline");
  ASSERT_TRUE(g.ok()) << g.status().message();
  static int checks;
  checks = 0;
  test_seams::between_checks = [] {
    if (++checks == 1) std::this_thread::sleep_for(std::chrono::milliseconds(400));
  };
  ExactOptions opts;
  opts.time_limit_ms = 300;
  StatusOr<ExactResult> r = generate_exact(*g, opts);
  test_seams::between_checks = nullptr;
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(checks, 1);  // nothing ran after the deadline
  const Schedule& s = r->schedule;
  ASSERT_TRUE(s.feasible);
  EXPECT_TRUE(verify_schedule(*g, s).legal());
  EXPECT_EQ(s.ii, 1);  // the first check's model
}

// L7: every op in stage 0 and II >= the makespan; the oracle minimises the
// makespan rather than copying the serial schedule.
TEST(Exact, ForceSerialMinimisesTheMakespan) {
  GraphBuilder b(test_target());
  const OpId a = b.generic("a", 2, {{1, 2, 1}});
  b.generic("b", 1, {{2, 3, 1}});
  const OpId c = b.generic("c", 1, {{1, 1, 1}});
  b.edge(a, c);
  b.force_serial();
  const Graph g = b.build().value();
  const Schedule s = Exact(g);
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, 3);  // a 0..2, b 0..3, c 2..3
  EXPECT_TRUE(s.proven_optimal);
  EXPECT_EQ(s.stage_count, 1);
  EXPECT_LE(s.ii, generate_serial(g).ii);
}

// The stage bound: a chain of three latency-5 edges at II 2 needs stages
// 0, 3, 5, 8 at least; K counts ceil((5 + 1) / 2) = 3 per edge tail.
TEST(Exact, StageBoundCoversTheLongestChain) {
  GraphBuilder b(test_target());
  OpId prev = b.generic("v0", 5, {{1, 1, 1}});
  for (int i = 1; i < 4; ++i) {
    const OpId v = b.generic("v" + std::to_string(i), 5, {{2, 1, 1}});
    b.edge(prev, v);
    prev = v;
  }
  const Graph g = b.build().value();
  EXPECT_EQ(exact_internal::stage_bound(g, 2), 9);
  const Schedule s = Exact(g);
  EXPECT_EQ(s.ii, 3);  // y holds three 1-cycle ops
  EXPECT_LE(s.stage_count - 1, exact_internal::stage_bound(g, s.ii));
}

// At the optimal II the stage count is the least: a at 0 holds x for 3
// cycles (II 3), b needs 5 cycles after it, so b sits in stage 1 at best;
// c, unconstrained, must not be pushed beyond it.
TEST(Exact, LeastStageCountAtTheOptimalII) {
  GraphBuilder b(test_target());
  const OpId a = b.generic("a", 5, {{1, 3, 1}});
  const OpId c = b.generic("b", 1, {{2, 1, 1}});
  b.generic("c", 1, {{2, 1, 1}});
  b.edge(a, c);
  const Schedule s = Exact(b.build().value());
  EXPECT_EQ(s.ii, 3);
  EXPECT_EQ(s.stage_count, 2);
}

// The resources' stage floor: four loads hold singleton x for 10 cycles
// each, so at II 40 they fill every row. Each feeds one op of a chain of
// latency-3 ops, so with one stage load i starts by 39 - (10 + 3 * (3 -
// i)): the last by 29, and row 39 is out of every load's reach. Two stages
// are needed, which the floor proves without a solver.
TEST(Exact, ASaturatedSlotsUnreachableRowProvesTheStageCount) {
  GraphBuilder b(test_target());
  std::vector<OpId> chain;
  for (int i = 0; i < 4; ++i) {
    const OpId load = b.generic("load" + std::to_string(i), 10, {{1, 10, 1}});
    chain.push_back(b.generic("c" + std::to_string(i), 3, {{2, 1, 1}}));
    b.edge(load, chain.back());
    if (i > 0) b.edge(chain[i - 1], chain[i]);
  }
  b.edge(chain.back(), chain.front(), 3, 1);
  const Graph g = b.build().value();
  const int64_t ii = 40;
  const std::vector<int64_t> asap = *exact_internal::longest_paths(g, ii, false);
  const std::vector<int64_t> tail = *exact_internal::longest_paths(g, ii, true);
  const int64_t k = exact_internal::stage_bound(g, ii);
  EXPECT_EQ(exact_internal::resource_stage_floor(g, ii, asap, tail, 0, k), 1);
  EXPECT_EQ(exact_internal::resource_stage_floor(g, ii, asap, tail, 0, 0), std::nullopt);
  const Schedule s = Exact(g);
  EXPECT_EQ(s.ii, ii);
  EXPECT_TRUE(s.proven_optimal);
  EXPECT_EQ(s.stage_count, 2);
  EXPECT_TRUE(s.stages_proven);
}

// The optima docs/COST_BASED.md argues by hand, now proven.
TEST(Exact, HandArguedOptimaOfTheExamplesAreProven) {
  ExpectProvenOptimum(Example("attention_forward.loop.json"), 34, 27);
  ExpectProvenOptimum(Example("generic_dsp.loop.json"), 6, 5);
  ExpectProvenOptimum(Example("seed_worked_example.loop.json"), 15, 15);
}

// Every heuristic the oracle starts from: serial, cost-based under both
// arm policies, IMS and SMS (the last three only when time is left).
std::vector<Schedule> Heuristics(const Graph& g) {
  std::vector<Schedule> out = {generate_serial(g)};
  for (ArmPolicy p : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
    CostBasedOptions o;
    o.arm_policy = p;
    out.push_back(generate_cost_based(g, o).schedule);
  }
  out.push_back(generate_ims(g, ImsOptions{}));
  out.push_back(generate_sms(g, SmsOptions{}));
  return out;
}

// The oracle's II and stage count are never worse than any heuristic's;
// `exact` may be cut short (no descent budget, no time). With no time at
// all only serial runs (`all` false: the first): the limit covers the
// heuristics too.
void ExpectNoWorseThanEveryHeuristic(const Graph& g, const Schedule& exact, bool all = true) {
  ASSERT_TRUE(exact.feasible);
  std::vector<Schedule> heuristics = Heuristics(g);
  if (!all) heuristics.resize(1);
  for (const Schedule& h : heuristics) {
    if (!h.feasible || !verify_schedule(g, h).legal()) continue;
    SCOPED_TRACE(h.generator);
    EXPECT_LE(exact.ii, h.ii);
    if (exact.ii == h.ii) {
      EXPECT_LE(exact.stage_count, h.stage_count);
    }
  }
}

TEST(Exact, EveryBundledExampleIsProvenAndNoWorseThanTheHeuristics) {
  for (const std::string& file : example_files()) {
    SCOPED_TRACE(file);
    const Graph g = Example(std::filesystem::path(file).filename().string());
    const Schedule s = Exact(g);
    ASSERT_TRUE(s.feasible);
    EXPECT_TRUE(s.proven_optimal);
    EXPECT_TRUE(s.stages_proven);
    EXPECT_LE(s.mii.max(), s.ii);
    ExpectNoWorseThanEveryHeuristic(g, s);
  }
}

// Without a descent budget (one resource unit) or any solver time, the
// answer is still the best heuristic schedule: never more stages than any
// heuristic at the same II, and a stage proof only where the ASAP floor
// meets the start (no check needed).
TEST(Exact, StartsFromTheBestHeuristicWhateverTheBudget) {
  for (const std::string& file : example_files()) {
    SCOPED_TRACE(file);
    const Graph g = Example(std::filesystem::path(file).filename().string());
    ExactOptions starved;
    starved.descent_rlimit = 1;
    starved.descent_conflicts = 1;
    for (ExactBackend backend : {ExactBackend::kSat, ExactBackend::kSmt}) {
      starved.backend = backend;
      for (int64_t limit : {int64_t{0}, int64_t{20'000}}) {
        starved.time_limit_ms = limit;
        StatusOr<ExactResult> r = generate_exact(g, starved);
        ASSERT_TRUE(r.ok()) << r.status().message();
        EXPECT_TRUE(verify_schedule(g, r->schedule).legal());
        ExpectNoWorseThanEveryHeuristic(g, r->schedule, limit > 0);
      }
    }
  }
}

// A heuristic at the MII proves the II without a single check
// (seed_worked_example: cost-based reaches its MII 15).
TEST(Exact, HeuristicAtTheMiiIsProvenAtOnce) {
  const Graph g = Example("seed_worked_example.loop.json");
  StatusOr<ExactResult> r = generate_exact(g, ExactOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->attempts.empty());
  EXPECT_TRUE(r->schedule.proven_optimal);
  EXPECT_EQ(r->schedule.ii, 15);
  EXPECT_TRUE(r->schedule.stages_proven);
}

// generate_schedule runs the oracle and materializes its schedule.
TEST(Exact, GenerateScheduleRunsTheOracleAndMaterializes) {
  const Graph g = Example("gemm_mainloop.loop.json");
  GenerateOptions opts;
  opts.generator = GeneratorKind::kExact;
  StatusOr<Schedule> s = generate_schedule(g, opts);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->generator, "exact");
  EXPECT_TRUE(s->proven_optimal);
  EXPECT_FALSE(s->pipes.empty());
  EXPECT_TRUE(verify_schedule(g, *s).legal());
  StatusOr<Schedule> again = parse_schedule_json(write_schedule_json(g, *s), "rt", g);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, *s);
}

// No solver time: the serial schedule (no time is left for the others)
// with the MII as the bound.
TEST(Exact, TimeLimitGivesHonestBounds) {
  const Graph g = Example("attention_forward.loop.json");
  for (int64_t limit : {int64_t{0}, int64_t{1}}) {
    SCOPED_TRACE(limit);
    const Schedule s = Exact(g, limit);
    ASSERT_TRUE(s.feasible);
    ASSERT_TRUE(s.lower_bound.has_value());
    EXPECT_GE(*s.lower_bound, 27);
    EXPECT_LE(*s.lower_bound, s.ii);
    EXPECT_GE(s.ii, 34);  // never below the proven optimum
    if (*s.lower_bound < s.ii) {
      EXPECT_FALSE(s.proven_optimal);
    }
  }
  const Schedule none = Exact(g, 0);
  EXPECT_FALSE(none.proven_optimal);
  EXPECT_EQ(none.lower_bound, 27);
  EXPECT_EQ(none.ii, generate_serial(g).ii);
}

TEST(Exact, SameGraphGivesTheSameSchedule) {
  const Graph g = Example("generic_dsp.loop.json");
  const Schedule a = Exact(g);
  const Schedule b = Exact(g);
  EXPECT_EQ(a.ii, b.ii);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.stage_count, b.stage_count);
  EXPECT_EQ(a.stages_proven, b.stages_proven);
}

TEST(Exact, ProofFieldsRoundTripAndAreChecked) {
  const Graph g = Example("seed_worked_example.loop.json");
  const Schedule s = Exact(g);
  const std::string text = write_schedule_json(g, s);
  EXPECT_NE(text.find("\"proven_optimal\": true"), std::string::npos);
  EXPECT_NE(text.find("\"stages_proven\": true"), std::string::npos);
  StatusOr<Schedule> back = parse_schedule_json(text, "rt", g);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, s);
  std::string bad = text;
  bad.replace(bad.find("\"lower_bound\": 15"), 17, "\"lower_bound\": 14");
  StatusOr<Schedule> refused = parse_schedule_json(bad, "bad", g);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("proven_optimal"), std::string::npos);
  // A stage proof needs the oracle's lower bound beside it.
  std::string serial = write_schedule_json(g, generate_serial(g));
  serial.insert(serial.find('{') + 1, "\"stages_proven\": true,");
  StatusOr<Schedule> unbacked = parse_schedule_json(serial, "bad", g);
  ASSERT_FALSE(unbacked.ok());
  EXPECT_NE(unbacked.status().message().find("stages_proven"), std::string::npos);
}

}  // namespace
}  // namespace tilesched
