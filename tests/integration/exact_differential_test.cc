// The differential check of the exact oracle against the heuristics on
// small random layered graphs (6-14 ops): MII <= lower bound <= exact II <=
// cost-based II <= serial II (where the serial schedule is legal), and the
// verifier accepts every exact schedule. And the oracle against brute
// force: on tiny graphs that carry every rule (pooled slots, rate and
// storage pools, groups, max depths, recurrences), the smallest II at which
// some start vector within the stage horizon passes the verifier is the
// oracle's proven optimum, and a proven stage count has no legal schedule
// with fewer stages at that II. The oracle's II and stage count are never
// worse than serial's, cost-based's under either arm policy, IMS's or
// SMS's (it starts from the best of them). generators_tests runs a few graphs
// (label unit); exact_tests many more (label exact), from other seeds.
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilesched/cost_based.h"
#include "tilesched/exact.h"
#include "tilesched/graph_builder.h"
#include "tilesched/ims.h"
#include "tilesched/sms.h"
#include "tilesched/graphgen/random_layered.h"
#include "tilesched/mii.h"
#include "tilesched/rng.h"
#include "tilesched/serial.h"
#include "tilesched/json_io.h"
#include "tilesched/verify.h"
#include "oracle/exact/bounds.h"
#include "oracle/exact/stage_floor.h"
#include "graph/graph_algo.h"
#include "util/test_seams.h"

namespace tilesched {
namespace {

// The oracle's configurations under test: the SAT backend with each of its
// encodings, and the SMT backend.
struct Backend {
  const char* name;
  ExactBackend backend;
  SatEncoding encoding;
};
constexpr Backend kBackends[] = {{"sat time-indexed", ExactBackend::kSat, SatEncoding::kTimeIndexed},
                                 {"sat row/stage", ExactBackend::kSat, SatEncoding::kRowStage},
                                 {"smt", ExactBackend::kSmt, SatEncoding::kRowStage}};

// The oracle's II and stage count are never worse than a heuristic's.
void ExpectNoWorseThanTheHeuristics(const Graph& g, const Schedule& s, const Schedule& cb) {
  EXPECT_LE(s.ii, cb.ii);
  CostBasedOptions best_cost;
  best_cost.arm_policy = ArmPolicy::kBestCost;
  for (const Schedule& h :
       {cb, generate_cost_based(g, best_cost).schedule, generate_serial(g),
        generate_ims(g, ImsOptions{}), generate_sms(g, SmsOptions{})}) {
    if (!h.feasible || !verify_schedule(g, h).legal()) continue;
    EXPECT_LE(s.ii, h.ii) << h.generator;
    if (s.ii == h.ii) {
      EXPECT_LE(s.stage_count, h.stage_count) << h.generator;
    }
  }
}

// MII <= exact <= cost-based <= serial (where serial is legal), the
// verifier on every exact schedule, on small random layered graphs.
TEST(ExactDifferential, RandomLayeredGraphs) {
  int proven = 0, graphs = 0, above_mii = 0, below_heuristic = 0;
  for (uint64_t seed = TILESCHED_EXACT_FIRST_SEED;
       seed < TILESCHED_EXACT_FIRST_SEED + TILESCHED_EXACT_GRAPHS; ++seed) {
    graphgen::LayeredParams p;
    p.ops = 6 + static_cast<int>(seed % 9);  // 6..14
    p.seed = seed;
    p.back_edge_per_mille = 200;
    StatusOr<Graph> g = graphgen::random_layered(p);
    ASSERT_TRUE(g.ok()) << g.status().message();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(p.ops) + " ops");
    ++graphs;
    std::optional<int64_t> proven_ii;
    for (const Backend& backend : kBackends) {
      SCOPED_TRACE(backend.name);
      ExactOptions opts;
      opts.backend = backend.backend;
      opts.sat_encoding = backend.encoding;
      opts.time_limit_ms = 5'000;
      StatusOr<ExactResult> r = generate_exact(*g, opts);
      ASSERT_TRUE(r.ok()) << r.status().message();
      const Schedule& s = r->schedule;
      ASSERT_TRUE(s.feasible);
      const VerifyReport report = verify_schedule(*g, s);
      for (const Violation& v : report.violations) ADD_FAILURE() << v.message;
      ASSERT_TRUE(s.lower_bound.has_value());
      EXPECT_LE(s.mii.max(), *s.lower_bound);
      EXPECT_LE(*s.lower_bound, s.ii);
      const Schedule cb = generate_cost_based(*g, CostBasedOptions{}).schedule;
      ASSERT_TRUE(cb.feasible);
      ExpectNoWorseThanTheHeuristics(*g, s, cb);
      if (s.proven_optimal) ++proven;
      if (s.ii > s.mii.max()) ++above_mii;
      if (s.ii < cb.ii) ++below_heuristic;
      // The model must accept the heuristic's II, where a legal schedule exists.
      for (const std::string& d : s.diagnostics) EXPECT_EQ(d.find("bug"), std::string::npos) << d;
      // A heuristic below a proven optimum is a bug in one of the two.
      if (s.proven_optimal) {
        EXPECT_GE(cb.ii, s.ii);
      }
      const Schedule serial = generate_serial(*g);
      if (serial.feasible && verify_schedule(*g, serial).legal()) {
        EXPECT_LE(cb.ii, serial.ii);
      }
      // Both backends prove the same optimum.
      if (s.proven_optimal) {
        if (proven_ii) {
          EXPECT_EQ(*proven_ii, s.ii);
        }
        proven_ii = s.ii;
      }
    }
  }
  EXPECT_EQ(proven, 3 * graphs) << "small graphs should all be proven within the limit";
  std::cout << graphs << " graphs: " << proven << " proven, " << above_mii
            << " with the optimum above the MII, " << below_heuristic
            << " below the cost-based II\n";
}

// Slots 1, 2 singletons, 3 pooled (capacity 2); pools: rate (2), smem.
Graph TinyGraph(uint64_t seed) {
  SplitMix64 rng(seed);
  const int64_t smem = rng.uniform(0, 1) ? 100 : 200;
  GraphBuilder b(make_generic_target("tiny", {{"x", 1, false}, {"y", 1, false}, {"p", 2, false}},
                                     {{"rate", PoolKind::kRate, 2, 0, false},
                                      {"smem", PoolKind::kStorage, smem, 0, false}}),
                 "tiny-" + std::to_string(seed));
  const int n = static_cast<int>(rng.uniform(2, 4));
  for (int v = 0; v < n; ++v) {
    const int slot = static_cast<int>(rng.uniform(1, 3));
    const int64_t occupancy = slot == 3 ? rng.uniform(1, 2) : 1;
    b.generic("v" + std::to_string(v), rng.uniform(0, 4), {{slot, rng.uniform(1, 3), occupancy}});
    if (rng.uniform(0, 3) == 0) b.at(v).pools = {{0, rng.uniform(1, 2)}};
    if (rng.uniform(0, 3) == 0) b.at(v).store_bytes = 100;
    if (rng.uniform(0, 4) == 0) b.at(v).max_depth = rng.uniform(0, 1);
    if (rng.uniform(0, 4) == 0) b.at(v).leader_gid = 1;
  }
  for (int v = 1; v < n; ++v) {  // forward edges keep distance-0 paths acyclic
    const int u = static_cast<int>(rng.uniform(0, v - 1));
    if (rng.uniform(0, 3) != 0) b.edge(u, v, rng.uniform(0, 4));
  }
  if (rng.uniform(0, 1) == 0) {  // a recurrence
    const int u = static_cast<int>(rng.uniform(0, n - 1));
    const int w = static_cast<int>(rng.uniform(0, u));
    b.edge(u, w, rng.uniform(0, 5), rng.uniform(1, 2));
  }
  return b.build().value();
}

// Some start vector in [0, horizon)^n passes the verifier at ii.
bool BruteForceFeasible(const Graph& g, int64_t ii, int64_t horizon) {
  const int n = g.op_count();
  Schedule s;
  s.ii = ii;
  s.start.assign(n, 0);
  for (;;) {
    bool deps = true;  // L1 first: most vectors fail it, and it is cheap
    for (const Edge& e : g.edges) {
      deps = deps && s.start[e.to] + e.distance * ii >= s.start[e.from] + e.latency;
    }
    if (deps) {
      derive_stage_order(s);
      if (verify_schedule(g, s).legal()) return true;
    }
    int v = 0;
    while (v < n && ++s.start[v] == horizon) s.start[v++] = 0;
    if (v == n) return false;
  }
}

TEST(ExactDifferential, TinyGraphsAgainstBruteForce) {
  // Components first on every component of two ops or more, so that brute
  // force checks its proofs too (the oracle skips those under 8 ops).
  const int min_ops = test_seams::min_component_ops;
  test_seams::min_component_ops = 2;
  int checked = 0, above_mii = 0, stage_checked = 0;
  for (uint64_t seed = TILESCHED_EXACT_FIRST_SEED;
       seed < TILESCHED_EXACT_FIRST_SEED + 2 * TILESCHED_EXACT_GRAPHS; ++seed) {
    const Graph g = TinyGraph(seed);
    SCOPED_TRACE(write_graph_json(g));
    for (const Backend& backend : kBackends) {
      SCOPED_TRACE(backend.name);
      ExactOptions opts;
      opts.backend = backend.backend;
      opts.sat_encoding = backend.encoding;
      opts.time_limit_ms = 5'000;
      StatusOr<ExactResult> r = generate_exact(g, opts);
      ASSERT_TRUE(r.ok()) << r.status().message();
      const Schedule& s = r->schedule;
      if (!s.feasible) continue;  // e.g. more bytes than the pool at any II
      EXPECT_TRUE(verify_schedule(g, s).legal());
      ASSERT_TRUE(s.proven_optimal);
      // The heuristics start their II search at this bound: it must never
      // exceed a proven optimum (brute force checks the optimum below).
      EXPECT_LE(exclusive_holds_bound(g), s.ii);
      // Twice the model's horizon, so a stage bound that cut off the only
      // schedules would show too.
      const int64_t mii = compute_mii(g).max();
      for (int64_t ii = mii; ii <= s.ii; ++ii) {
        const int64_t horizon = 2 * ii * (exact_internal::stage_bound(g, ii) + 1);
        int64_t combos = 1;
        for (int v = 0; v < g.op_count(); ++v) combos *= horizon;
        if (combos > 300'000) break;
        EXPECT_EQ(BruteForceFeasible(g, ii, horizon), ii == s.ii) << "II " << ii;
        ++checked;
        if (ii < s.ii) ++above_mii;
      }
      // A proven stage count: no start vector with every stage below the
      // last one passes the verifier at the II.
      if (s.stages_proven && s.stage_count > 1) {
        const int64_t horizon = s.ii * (s.stage_count - 1);
        int64_t combos = 1;
        for (int v = 0; v < g.op_count() && combos <= 300'000; ++v) combos *= horizon;
        if (combos <= 300'000) {
          EXPECT_FALSE(BruteForceFeasible(g, s.ii, horizon)) << "fewer stages at II " << s.ii;
          ++stage_checked;
        }
      }
    }
  }
  std::cout << checked << " (graph, II) pairs checked by brute force, " << above_mii
            << " of them infeasible IIs at or above the MII; " << stage_checked
            << " proven stage counts\n";
  EXPECT_GT(checked, TILESCHED_EXACT_GRAPHS);
  test_seams::min_component_ops = min_ops;
}

// The resources' stage floor (exact/stage_floor.cc) never cuts off a legal
// schedule: below it, brute force finds no start vector with every stage
// at most S that passes the verifier.
TEST(ExactDifferential, ResourceStageFloorAgainstBruteForce) {
  int checked = 0, above_asap = 0;
  for (uint64_t seed = TILESCHED_EXACT_FIRST_SEED;
       seed < TILESCHED_EXACT_FIRST_SEED + 8 * TILESCHED_EXACT_GRAPHS; ++seed) {
    const Graph g = TinyGraph(seed);
    SCOPED_TRACE(write_graph_json(g));
    const int64_t mii = compute_mii(g).max();
    for (int64_t ii = mii; ii <= mii + 2; ++ii) {
      const std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g, ii, false);
      if (!asap) continue;
      const std::vector<int64_t> tail = *exact_internal::longest_paths(g, ii, true);
      const int64_t k = exact_internal::stage_bound(g, ii);
      const std::optional<int64_t> floor =
          exact_internal::resource_stage_floor(g, ii, *asap, tail, 0, k);
      int64_t asap_floor = 0;
      for (int64_t x : *asap) asap_floor = std::max(asap_floor, x / ii);
      if (floor && *floor > asap_floor) ++above_asap;
      for (int64_t stages = 0; stages < (floor ? *floor : k + 1); ++stages) {
        const int64_t horizon = ii * (stages + 1);
        int64_t combos = 1;
        for (int v = 0; v < g.op_count() && combos <= 300'000; ++v) combos *= horizon;
        if (combos > 300'000) break;
        EXPECT_FALSE(BruteForceFeasible(g, ii, horizon)) << "II " << ii << ", stages <= " << stages;
        ++checked;
      }
    }
  }
  std::cout << checked << " (graph, II, stage limit) triples below the floor checked by brute "
            << "force; the floor above the ASAP stage " << above_asap << " times\n";
  EXPECT_GT(above_asap, 0);
}

}  // namespace
}  // namespace tilesched
