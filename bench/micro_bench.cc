// Microbenchmarks of the engine's building blocks: the modulo reservation
// table (probe, commit + release) on Blackwell ops, each MII bound, the
// longest zero-distance paths, the structural distance closure, Kahn's
// walk, the serial generator and each placement arm of the cost-based
// generator (through its internal driver, engine/src/generators/cost_based/strategy.h),
// on random layered graphs (tilesched::graphgen).
// results/records/ holds dated measurements (bench/README.md says how to run).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "generators/cost_based/strategy.h"
#include "tilesched/cost_based.h"
#include "bounds/distance.h"
#include "tilesched/graphgen/random_layered.h"
#include "graph/graph_algo.h"
#include "tilesched/mii.h"
#include "bounds/rrt.h"
#include "tilesched/serial.h"

namespace tilesched {
namespace {

// The benchmark graphs: layered, default mix, `back` loop-carried edges per
// 1000 forward ones. Built once per (ops, back).
const Graph& layered(int ops, int back = 100) {
  static std::map<std::pair<int, int>, Graph> cache;
  auto it = cache.find({ops, back});
  if (it == cache.end()) {
    graphgen::LayeredParams p;
    p.ops = ops;
    p.back_edge_per_mille = back;
    p.seed = 1;
    StatusOr<Graph> g = graphgen::random_layered(p);
    if (!g.ok()) std::abort();
    it = cache.emplace(std::make_pair(ops, back), std::move(g).value()).first;
  }
  return it->second;
}

void set_graph_counters(benchmark::State& state, const Graph& g) {
  state.counters["ops"] = g.op_count();
  state.counters["edges"] = g.edge_count();
}

std::vector<NodeRrt> blackwell_nodes() {
  const Target& t = blackwell_target();
  std::vector<NodeRrt> nodes;
  for (const char* kind : {"tiled_tma_load", "smem_write", "smem_read", "wgmma", "alu", "exp",
                           "tmem_load", "mbarrier_wait", "named_barrier", "cp_async"}) {
    Op op;
    op.kind = kind;
    apply_kind_defaults(t, op);
    nodes.push_back(NodeRrt::lower(op, t));
  }
  return nodes;
}

// A table about half full: ops committed wherever they fit, in turn, until
// half the rows of slot 16 (tp_smem_wr) are taken.
void half_fill(ModuloRrt& rrt, const std::vector<NodeRrt>& nodes) {
  const int64_t ii = rrt.ii();
  int64_t placed_cycles = 0;
  for (int64_t start = 0; start < 4 * ii && placed_cycles < 2 * ii; ++start) {
    const NodeRrt& n = nodes[static_cast<size_t>(start) % nodes.size()];
    if (rrt.probe(n, start)) {
      rrt.commit(n, start);
      placed_cycles += n.duration;
    }
  }
}

void BM_RrtProbe(benchmark::State& state) {
  const int64_t ii = state.range(0);
  const std::vector<NodeRrt> nodes = blackwell_nodes();
  ModuloRrt rrt(blackwell_target());
  rrt.reset(ii);
  half_fill(rrt, nodes);
  size_t i = 0;
  int64_t start = 0, fits = 0;
  for (auto _ : state) {
    const bool ok = rrt.probe(nodes[i], start);
    benchmark::DoNotOptimize(ok);
    fits += ok ? 1 : 0;
    if (++i == nodes.size()) i = 0;
    start += 3;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["fit_share"] =
      static_cast<double>(fits) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}
BENCHMARK(BM_RrtProbe)->Arg(8)->Arg(32)->Arg(256)->Arg(4096);

void BM_RrtCommitRelease(benchmark::State& state) {
  const int64_t ii = state.range(0);
  const std::vector<NodeRrt> nodes = blackwell_nodes();
  ModuloRrt rrt(blackwell_target());
  rrt.reset(ii);
  // Each node at a start where it fits in the empty table: its own cycle.
  size_t i = 0;
  for (auto _ : state) {
    const NodeRrt& n = nodes[i];
    rrt.commit(n, static_cast<int64_t>(i));
    rrt.release(n, static_cast<int64_t>(i));
    benchmark::ClobberMemory();
    if (++i == nodes.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RrtCommitRelease)->Arg(16)->Arg(256)->Arg(4096);

void BM_RrtReset(benchmark::State& state) {
  ModuloRrt rrt(blackwell_target());
  for (auto _ : state) {
    rrt.reset(state.range(0));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_RrtReset)->Arg(16)->Arg(256)->Arg(4096);

template <int64_t (*Bound)(const Graph&)>
void BM_MiiPart(benchmark::State& state) {
  Graph g = layered(static_cast<int>(state.range(0)));
  for (OpId v = 0; v < g.op_count(); v += 8) g.ops[v].max_depth = 3;  // DepMII has work
  int64_t value = 0;
  for (auto _ : state) {
    value = Bound(g);
    benchmark::DoNotOptimize(value);
  }
  set_graph_counters(state, g);
  state.counters["bound"] = static_cast<double>(value);
}
#define MII_SIZES ->Arg(16)->Arg(64)->Arg(256)->Arg(1024)
BENCHMARK_TEMPLATE(BM_MiiPart, resource_mii) MII_SIZES;
BENCHMARK_TEMPLATE(BM_MiiPart, recurrence_mii) MII_SIZES;
BENCHMARK_TEMPLATE(BM_MiiPart, fine_density_mii) MII_SIZES;
BENCHMARK_TEMPLATE(BM_MiiPart, dependency_mii) MII_SIZES;

void BM_ComputeMii(benchmark::State& state) {
  const Graph& g = layered(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(compute_mii(g));
  set_graph_counters(state, g);
}
BENCHMARK(BM_ComputeMii) MII_SIZES;

void BM_LongestZeroDistancePaths(benchmark::State& state) {
  const Graph& g = layered(static_cast<int>(state.range(0)));
  const Adjacency adj = Adjacency::build(g);
  for (auto _ : state) benchmark::DoNotOptimize(longest_zero_distance_paths(g, adj));
  set_graph_counters(state, g);
}
BENCHMARK(BM_LongestZeroDistancePaths) MII_SIZES->Arg(8192);

// Args: ops, loop-carried edges per 1000 forward ones, SCC method (0 auto,
// 1 Floyd-Warshall, 2 feedback, 3 Dijkstra). One rebuild of the closure at II = RecMII
// per iteration, the matrix object reused as a scheduler would.
void BM_DistanceClosure(benchmark::State& state) {
  const Graph& g = layered(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const Adjacency adj = Adjacency::build(g);
  const int64_t ii = recurrence_mii(g);
  DistanceMatrix m;
  m.set_scc_method(static_cast<DistanceMatrix::SccMethod>(state.range(2)));
  m.set_across_ii(false);  // a closure every time, not the lines read back
  if (!m.build(g, adj, ii)) {
    state.SkipWithError("RecMII infeasible");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(m.build(g, adj, ii));
  set_graph_counters(state, g);
  state.counters["ii"] = static_cast<double>(ii);
  state.counters["sccs"] = m.stats().components;
  state.counters["largest_scc"] = m.stats().largest_component;
  state.counters["heads"] = m.stats().largest_head_set;
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(g.op_count()) * g.op_count(), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DistanceClosure)
    ->ArgNames({"ops", "back", "method"})
    ->ArgsProduct({{16, 64, 256, 1024}, {0, 20, 100}, {0}})
    ->ArgsProduct({{64, 256, 1024}, {20, 100}, {1, 2, 3}})
    ->Unit(benchmark::kMicrosecond);

void BM_Serial(benchmark::State& state) {
  const Graph& g = layered(static_cast<int>(state.range(0)));
  int64_t ii = 0;
  for (auto _ : state) {
    Schedule s = generate_serial(g);
    ii = s.ii;
    benchmark::DoNotOptimize(s);
  }
  set_graph_counters(state, g);
  state.counters["ii"] = static_cast<double>(ii);
}
BENCHMARK(BM_Serial) MII_SIZES->Unit(benchmark::kMicrosecond);

void BM_KahnWalk(benchmark::State& state) {
  const Graph& g = layered(static_cast<int>(state.range(0)));
  const Adjacency adj = Adjacency::build(g);
  for (auto _ : state) benchmark::DoNotOptimize(zero_distance_walk(g, adj));
  set_graph_counters(state, g);
}
BENCHMARK(BM_KahnWalk) MII_SIZES->Arg(8192);

// One proposal of one placement arm, mid-schedule: the graph's cost-based
// schedule is computed once, the first half of its ops (in Kahn order) are
// seated at their final starts, and each iteration asks the arm for a
// proposal over the ready set that leaves. Proposals are not committed, so
// every iteration sees the same state. `proposed` = share of iterations
// with a proposal; `ready` = size of the ready set.
void BM_Arm(benchmark::State& state, Arm arm) {
  const Graph& g = layered(static_cast<int>(state.range(0)));
  CostBasedOptions opts;
  const Schedule final_schedule = generate_cost_based(g, opts).schedule;
  if (!final_schedule.feasible) {
    state.SkipWithError("no cost-based schedule");
    return;
  }
  const cost_based::Context ctx(g, opts, compute_mii(g));
  cost_based::Placement placement(ctx);
  if (!placement.reset(final_schedule.ii)) {
    state.SkipWithError("closure infeasible at the schedule's II");
    return;
  }
  CostBasedStats stats;
  cost_based::Driver driver(ctx, placement, stats);
  const std::vector<OpId> walk = zero_distance_walk(g, Adjacency::build(g));
  for (size_t i = 0; i < walk.size() / 2; ++i) {
    const OpId v = walk[i];
    if (placement.fits(v, final_schedule.start[v])) placement.place(v, final_schedule.start[v]);
  }
  const std::vector<OpId> ready = driver.ready_set(Rung::kInitialPlacement);
  if (ready.empty()) {
    state.SkipWithError("empty ready set");
    return;
  }
  int64_t proposed = 0;
  for (auto _ : state) {
    std::optional<cost_based::Proposal> p;
    switch (arm) {
      case Arm::kPermute: p = driver.arms().try_permute(ready, /*whole_set=*/false); break;
      case Arm::kFuse: p = driver.arms().try_fuse(ready); break;
      case Arm::kRetry: p = driver.arms().try_retry(ready); break;
      case Arm::kCostBased: p = driver.arms().try_cost_based(ready); break;
    }
    proposed += p ? 1 : 0;
    benchmark::DoNotOptimize(p);
  }
  set_graph_counters(state, g);
  state.counters["ii"] = static_cast<double>(final_schedule.ii);
  state.counters["ready"] = static_cast<double>(ready.size());
  state.counters["proposed"] =
      static_cast<double>(proposed) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}
#define ARM_SIZES ->Arg(16)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond)
BENCHMARK_CAPTURE(BM_Arm, permute, Arm::kPermute) ARM_SIZES;
BENCHMARK_CAPTURE(BM_Arm, fuse, Arm::kFuse) ARM_SIZES;
BENCHMARK_CAPTURE(BM_Arm, retry, Arm::kRetry) ARM_SIZES;
BENCHMARK_CAPTURE(BM_Arm, cost_based, Arm::kCostBased) ARM_SIZES;

}  // namespace
}  // namespace tilesched
