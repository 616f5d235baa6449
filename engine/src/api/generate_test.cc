#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"

#include <gtest/gtest.h>

#include "testing/test_graphs.h"
#include "tilesched/json_io.h"
#include "tilesched/mii.h"
#include "tilesched/verify.h"

namespace tilesched {
namespace {

Graph Loads(int n, bool force_serial = false) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < n; ++i) b.op("l" + std::to_string(i), "tiled_tma_load");
  b.force_serial(force_serial);
  return std::move(b.build()).value();
}

Graph Alus(int n) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < n; ++i) b.op("a" + std::to_string(i), "alu");
  return std::move(b.build()).value();
}

TEST(Generate, SelectorFollowsTheSeedsOrderOfRules) {
  const GenerateOptions opts;
  EXPECT_EQ(select_generator(Loads(12, true), opts).chosen, GeneratorKind::kSerial);
  EXPECT_NE(select_generator(Loads(12, true), opts).reason.find("force_serial"),
            std::string::npos);
  EXPECT_EQ(select_generator(Loads(7), opts).chosen, GeneratorKind::kSerial);
  EXPECT_NE(select_generator(Loads(7), opts).reason.find("below serial_threshold 8"),
            std::string::npos);
  EXPECT_EQ(select_generator(Loads(8), opts).chosen, GeneratorKind::kCostBased);
  EXPECT_EQ(select_generator(Alus(20), opts).chosen, GeneratorKind::kSerial);
  GenerateOptions low;
  low.serial_threshold = 2;
  EXPECT_EQ(select_generator(Loads(2), low).chosen, GeneratorKind::kCostBased);
}

// Three SMEM buffers, each within the budget (232448 bytes) but together
// over it: L4 counts each at least once at every II. The cost-based search
// must say so at once instead of trying every II up to the cap (a fuzzing
// finding: fuzz/regressions/fuzz_materialize/stores-exceed-smem-every-ii).
TEST(Generate, StoresOverTheStoragePoolFailAtOnceAsStorageBudget) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 3; ++i) b.at(b.op("w" + std::to_string(i), "smem_write")).store_bytes = 100000;
  const Graph g = std::move(b.build()).value();
  GenerateOptions opts;
  opts.generator = GeneratorKind::kCostBased;
  for (ArmPolicy policy : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
    opts.cost_based.arm_policy = policy;
    StatusOr<Schedule> s = generate_schedule(g, opts);
    ASSERT_TRUE(s.ok());
    EXPECT_FALSE(s->feasible);
    EXPECT_EQ(s->failure, FailureReason::kStorageBudget);
    bool said = false;
    for (const std::string& d : s->diagnostics) {
      said |= d.find("L4 fails at every II") != std::string::npos;
    }
    EXPECT_TRUE(said);
    for (const auto& [name, value] : s->stats) {
      if (name == "ii_tried") {
        EXPECT_EQ(value, 0);
      }
    }
  }
}

// A 150000-byte SMEM buffer (the budget is 232448) that its own op reads
// one iteration later lives II + D cycles in every schedule: two copies at
// every II, so every generator must answer storage-budget at once instead
// of trying every II up to its cap (a fuzzing finding: fuzz/regressions/
// fuzz_schedule/self-read-buffer-over-smem-every-ii). Two copies of 100000
// bytes fit.
TEST(Generate, BufferReadByItsOwnOpNextIterationCountsTwiceAtEveryIi) {
  for (int64_t bytes : {150000, 100000}) {
    GraphBuilder b(blackwell_target());
    const OpId w = b.op("w", "smem_write");
    b.at(w).store_bytes = bytes;
    b.edge(w, w, std::nullopt, 1);
    const Graph g = std::move(b.build()).value();
    for (GeneratorKind kind : {GeneratorKind::kCostBased, GeneratorKind::kIms,
                               GeneratorKind::kSms, GeneratorKind::kExact}) {
      GenerateOptions opts;
      opts.generator = kind;
      StatusOr<Schedule> s = generate_schedule(g, opts);
      ASSERT_TRUE(s.ok()) << generator_name(kind);
      if (bytes == 100000) {
        EXPECT_TRUE(s->feasible) << generator_name(kind);
        continue;
      }
      EXPECT_FALSE(s->feasible) << generator_name(kind);
      EXPECT_EQ(s->failure, FailureReason::kStorageBudget) << generator_name(kind);
      bool said = false;
      for (const std::string& d : s->diagnostics) {
        said |= d.find("300000 bytes at every II") != std::string::npos;
      }
      EXPECT_TRUE(said) << generator_name(kind);
    }
  }
}

// Eight holds of 2 units on a 3-unit slot, 3 cycles each: no two can share
// a modulo row, so II >= 24 although the resource MII is 16. The heuristics
// start their search there (exclusive_holds_bound, graph_algo.h): one II
// tried instead of nine (on a fuzzed graph like this the cost-based search
// spent 0.3 s failing IIs 16 to 23). The oracle proves 24 optimal without
// a solver check below it, and a rate pool of the same shape (counts 2 of
// 3) gives the same bound.
TEST(Generate, HoldsOverHalfASlotStartTheSearchAtTheirSum) {
  for (bool pool : {false, true}) {
    GraphBuilder b(make_generic_target("t", {{"p", 3, false}},
                                       {{"r", PoolKind::kRate, 3, 0, false}}));
    for (int v = 0; v < 8; ++v) {
      if (pool) {
        b.generic("v" + std::to_string(v), 1, {{1, 3, 1}});
        b.at(v).pools = {{0, 2}};
      } else {
        b.generic("v" + std::to_string(v), 1, {{1, 3, 2}});
      }
    }
    const Graph g = std::move(b.build()).value();
    EXPECT_EQ(compute_mii(g).max(), 16);
    for (GeneratorKind kind : {GeneratorKind::kCostBased, GeneratorKind::kIms,
                               GeneratorKind::kSms, GeneratorKind::kExact}) {
      GenerateOptions opts;
      opts.generator = kind;
      StatusOr<Schedule> s = generate_schedule(g, opts);
      ASSERT_TRUE(s.ok() && s->feasible) << generator_name(kind);
      EXPECT_EQ(s->ii, 24) << generator_name(kind);
      if (kind == GeneratorKind::kExact) {  // proven with no solver check below 24
        EXPECT_TRUE(s->proven_optimal);
        bool said = false;
        for (const std::string& d : s->diagnostics) {
          said |= d.find("II 16 to 23: infeasible without a check") != std::string::npos;
        }
        EXPECT_TRUE(said);
        continue;
      }
      bool reported = false;
      for (const auto& [name, value] : s->stats) {
        if (name != "ii_tried") continue;
        reported = true;
        // Cost-based keeps IMS's start at the bound without a search of
        // its own (docs/COST_BASED.md "The IMS start").
        EXPECT_EQ(value, kind == GeneratorKind::kCostBased ? 0 : 1) << generator_name(kind);
      }
      EXPECT_TRUE(reported) << generator_name(kind) << " reports no ii_tried";
    }
  }
}

// Two loads on one singleton slot feed an MMA that must stay in stage 0
// (testing/test_graphs.h): DepMII says 41, the stage span
// 54, the optimum. Every generator starts its search at 54 and the oracle
// proves it without a solver check below; under --max-stages 1 the same
// holds for the uncapped graph (the cap sets the max_depth).
TEST(Generate, TheStageSpanStartsTheSearchAtTheOptimum) {
  GraphBuilder b = TwoLoadsOneMma(std::nullopt);
  b.edge(2, 2, 1, 1);
  const Graph uncapped = std::move(b.build()).value();
  b.at(2).max_depth = 0;
  const Graph g = std::move(b.build()).value();
  EXPECT_EQ(compute_mii(g).max(), 41);
  for (GeneratorKind kind : {GeneratorKind::kCostBased, GeneratorKind::kIms,
                             GeneratorKind::kSms, GeneratorKind::kExact}) {
    for (bool by_cap : {false, true}) {
      GenerateOptions opts;
      opts.generator = kind;
      if (by_cap) opts.max_stages = 1;
      StatusOr<Schedule> s = generate_schedule(by_cap ? uncapped : g, opts);
      ASSERT_TRUE(s.ok() && s->feasible) << generator_name(kind);
      EXPECT_EQ(s->ii, 54) << generator_name(kind) << (by_cap ? " capped" : "");
      if (kind != GeneratorKind::kExact || by_cap) continue;
      EXPECT_TRUE(s->proven_optimal);
      bool said = false;
      for (const std::string& d : s->diagnostics) {
        said |= d.find("II 41 to 53: infeasible without a check") != std::string::npos;
      }
      EXPECT_TRUE(said);
    }
  }
}

// A loop-carried data edge from a 197673-byte SMEM buffer (the budget is
// 232448): the first-success ladder places the reader early in the next
// iteration, the buffer is counted twice, and no consumer can move closer.
// The serial schedule is legal at II 9, so the cost-based generator must
// find one at II <= 9 (the serial seats, at worst). It used to give up
// (fuzzing finding: fuzz/regressions/fuzz_differential/l4-fails-serial-fallback-skipped).
TEST(Generate, CostBasedFallsBackToSerialSeatsWhenOnlyL4Fails) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < 7; ++i) b.op("v" + std::to_string(i), i == 4 ? "tmem_load" : "alu");
  b.at(3).resources.clear();
  b.at(3).store_bytes = 197673;
  b.edge(0, 6);
  b.edge(3, 0, std::nullopt, 1);
  b.edge(0, 2);
  b.edge(1, 2);
  const Graph g = std::move(b.build()).value();
  GenerateOptions serial;
  serial.generator = GeneratorKind::kSerial;
  StatusOr<Schedule> reference = generate_schedule(g, serial);
  ASSERT_TRUE(reference.ok() && reference->feasible);
  GenerateOptions opts;
  opts.generator = GeneratorKind::kCostBased;
  for (IiSearch search : {IiSearch::kLinear, IiSearch::kGalloping}) {
    opts.cost_based.ii_search = search;
    StatusOr<Schedule> s = generate_schedule(g, opts);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->feasible) << ii_search_name(search);
    EXPECT_LE(s->ii, reference->ii);
    EXPECT_TRUE(verify_schedule(g, *s).legal());
  }
}

TEST(Generate, AutoRunsTheSelectedGeneratorAndSaysWhy) {
  StatusOr<Schedule> s = generate_schedule(Loads(8), GenerateOptions{});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->generator, "cost-based");
  EXPECT_EQ(s->selection.rfind("auto: async/TMA/WGMMA op 'l0' present", 0), 0u) << s->selection;
  StatusOr<Schedule> small = generate_schedule(Loads(3), GenerateOptions{});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->generator, "serial");
  EXPECT_EQ(small->selection, "auto: op count 3 is below serial_threshold 8");
}

TEST(Generate, ExactGeneratorRuns) {
  GenerateOptions opts;
  opts.generator = GeneratorKind::kExact;
  StatusOr<Schedule> s = generate_schedule(Loads(8), opts);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->generator, "exact");
  EXPECT_EQ(s->selection, "requested");
  EXPECT_TRUE(s->proven_optimal);
}

// a <-> b with latency 0 both ways: a and b start in the same cycle. On
// two slots every generator schedules it (auto through cost-based, since
// the serial walk cannot order the cycle); on one singleton slot no II is
// legal and every generator, the oracle included, says so at once.
Graph ZeroLatencyPair(bool share_slot) {
  GraphBuilder b(make_generic_target("t", {{"x", 1, false}, {"y", 1, false}}, {}));
  const OpId a = b.generic("a", 2, {{1, 1, 1}});
  const OpId c = b.generic("b", 2, {{share_slot ? 1 : 2, 1, 1}});
  b.edge(a, c, 0);
  b.edge(c, a, 0);
  return std::move(b.build()).value();
}

TEST(Generate, ZeroLatencyCycleIsScheduledByEveryGeneratorButSerial) {
  const Graph g = ZeroLatencyPair(false);
  for (GeneratorKind k : all_generators()) {
    GenerateOptions opts;
    opts.generator = k;
    StatusOr<Schedule> s = generate_schedule(g, opts);
    ASSERT_TRUE(s.ok()) << s.status().message();
    if (k == GeneratorKind::kSerial) {
      EXPECT_EQ(s->failure, FailureReason::kDependenceCycle);
      continue;
    }
    ASSERT_TRUE(s->feasible) << generator_name(k);
    EXPECT_EQ(s->start[0], s->start[1]) << generator_name(k);
    EXPECT_TRUE(verify_schedule(g, *s).legal()) << generator_name(k);
    if (k == GeneratorKind::kAuto) {
      EXPECT_EQ(s->generator, "cost-based");
      EXPECT_NE(s->selection.find("cannot order a zero-distance cycle"), std::string::npos)
          << s->selection;
    }
  }
}

TEST(Generate, ZeroLatencyCycleOnOneSingletonSlotIsInfeasibleForEveryGenerator) {
  const Graph g = ZeroLatencyPair(true);
  for (GeneratorKind k : all_generators()) {
    GenerateOptions opts;
    opts.generator = k;
    StatusOr<Schedule> s = generate_schedule(g, opts);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_FALSE(s->feasible) << generator_name(k);
    EXPECT_EQ(s->failure, FailureReason::kDependenceCycle) << generator_name(k);
    if (k == GeneratorKind::kSerial) continue;
    bool named = false;
    for (const std::string& d : s->diagnostics) {
      named |= d.find("ops a and b start in the same cycle") != std::string::npos;
    }
    EXPECT_TRUE(named) << generator_name(k);
  }
}

// More effort is never worse (docs/COST_BASED.md "Effort"): each level
// starts from the cheaper one's whole run, the packing repair included.
TEST(Generate, MoreEffortIsNeverWorse) {
  for (const char* name : {"resource_saturated_32_s2", "fa3_forward_25_s3", "warp_specialized_9",
                           "attention_s3", "attention_tma_s3"}) {
    StatusOr<Graph> g = read_graph_file(std::string(TILESCHED_TESTDATA_DIR) + "/cost_based/" +
                                        name + ".loop.json");
    ASSERT_TRUE(g.ok()) << g.status().message();
    for (PackingRepair repair : {PackingRepair::kCostBased, PackingRepair::kOff}) {
      int64_t worse = INT64_MAX;
      for (Effort e : {Effort::kFast, Effort::kDefault, Effort::kFull}) {
        GenerateOptions opts;
        opts.generator = GeneratorKind::kCostBased;
        opts.packing_repair = repair;
        opts.cost_based.effort = e;
        StatusOr<Schedule> s = generate_schedule(*g, opts);
        ASSERT_TRUE(s.ok() && s->feasible) << name;
        EXPECT_LE(s->ii, worse) << name << " at " << effort_name(e);
        EXPECT_TRUE(verify_schedule(*g, *s).legal()) << name;
        worse = s->ii;
      }
    }
  }
}

TEST(Generate, GeneratorNamesRoundTrip) {
  for (GeneratorKind k : {GeneratorKind::kAuto, GeneratorKind::kSerial,
                          GeneratorKind::kCostBased, GeneratorKind::kExact}) {
    EXPECT_EQ(parse_generator(generator_name(k)), k);
  }
  EXPECT_EQ(parse_generator("greedy"), std::nullopt);
}

}  // namespace
}  // namespace tilesched
