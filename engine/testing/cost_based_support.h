// Test support, for the cost-based generator's tests only: what they share: a verified schedule, small
// random loops, the generated kernels of engine/testdata, and a placement
// at a fixed II with its context and driver.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "generators/cost_based/strategy.h"
#include "testing/test_graphs.h"
#include "tilesched/cost_based.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/mii.h"
#include "tilesched/rng.h"
#include "tilesched/verify.h"

namespace tilesched::cost_based {

// Schedules g, checks the verifier accepts it, returns it.
inline Schedule Schedule_(const Graph& g, CostBasedOptions opts = {}) {
  const CostBasedResult r = generate_cost_based(g, opts);
  if (r.schedule.feasible) {
    const VerifyReport report = verify_schedule(g, r.schedule);
    for (const Violation& v : report.violations) {
      ADD_FAILURE() << g.name << ": " << rule_name(v.rule) << ": " << v.message;
    }
  }
  return r.schedule;
}

// `o` at the full effort: the tests of a mechanism (the ladder, the
// backtracking rung, the descent, ...) run it to its own bounds, with no
// work budget cutting it short (WorkMeter, context.h).
inline CostBasedOptions AtFullEffort(CostBasedOptions o = {}) {
  o.effort = Effort::kFull;
  return o;
}

inline constexpr ArmPolicy kPolicies[] = {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost};

// A random loop of lo..hi generic ops and 2n edges drawn at random: forward
// in op order within an iteration, backward ones carried 1..max_distance
// iterations, and with `self_edges` an op's edge to itself, carried as a
// backward one (parallel edges come as they are drawn).
inline Graph RandomGenericLoop(SplitMix64& rng, int lo, int hi, int64_t max_distance,
                               bool self_edges) {
  GraphBuilder b(blackwell_target());
  const int n = static_cast<int>(rng.uniform(lo, hi));
  for (int i = 0; i < n; ++i) b.generic("n" + std::to_string(i), rng.uniform(0, 5));
  for (int e = 0; e < 2 * n; ++e) {
    const OpId x = static_cast<OpId>(rng.uniform(0, n - 1));
    const OpId y = static_cast<OpId>(rng.uniform(0, n - 1));
    if (x < y) b.edge(x, y, rng.uniform(0, 6));
    if (x > y || (self_edges && x == y)) {
      b.edge(x, y, rng.uniform(0, 6), rng.uniform(1, max_distance));
    }
  }
  return Build(b);
}

// Small pseudo-random Blackwell loops: TMA loads, SMEM traffic, WGMMAs and
// ALU work, forward edges plus loop-carried ones.
inline Graph RandomLoop(uint64_t seed, int n) {
  SplitMix64 rng(seed);
  static constexpr const char* kKinds[] = {"tiled_tma_load", "smem_write", "smem_read",
                                           "wgmma", "alu", "exp", "mbarrier_wait"};
  GraphBuilder b(blackwell_target(), "random-" + std::to_string(seed));
  for (int i = 0; i < n; ++i) {
    const OpId v = b.op("n" + std::to_string(i), kKinds[rng.below(7)]);
    if (b.at(v).kind == "smem_write") b.at(v).store_bytes = 4096;
  }
  for (int i = 1; i < n; ++i) {
    b.edge(static_cast<OpId>(rng.below(static_cast<uint64_t>(i))), i);
    if (rng.chance_per_mille(250)) {
      b.edge(i, static_cast<OpId>(rng.below(static_cast<uint64_t>(i) + 1)), std::nullopt,
             rng.uniform(1, 2));
    }
  }
  return Build(b);
}

// engine/testdata/regions/graphs/NAME: generated kernels whose optima the
// exact oracle proves (fa3_forward 32, fa4_forward 33, warp_specialized 32).
inline Graph Kernel(const std::string& name) {
  StatusOr<Graph> g =
      read_graph_file(std::string(TILESCHED_TESTDATA_DIR) + "/regions/graphs/" + name);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

inline int64_t RungWins(const CostBasedResult& r, Rung rung) {
  return r.stats.rung_successes[static_cast<int>(rung)];
}

// A graph with a placement at a fixed II (its windows from the closure, or
// along the edges), a context and a driver over it.
struct WorkedAtII {
  Graph g;
  CostBasedOptions opts;
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Placement> p;
  CostBasedStats stats;
  std::unique_ptr<Driver> d;
  explicit WorkedAtII(int64_t ii, Graph graph, bool along_edges = false) : g(std::move(graph)) {
    ctx = std::make_unique<Context>(g, opts, compute_mii(g));
    p = along_edges ? std::make_unique<Placement>(*ctx, AlongEdges{})
                    : std::make_unique<Placement>(*ctx);
    EXPECT_TRUE(p->reset(ii));
    d = std::make_unique<Driver>(*ctx, *p, stats);
  }
};

}  // namespace tilesched::cost_based
