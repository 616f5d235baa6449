// Whole-generator benchmarks: the serial and the cost-based generator (both
// arm policies, both II searches), IMS and SMS on random layered graphs of
// 16 to 1024 ops, every generator on every family, the cost-based and iterative
// modulo generators on the bundled examples, and the cost-based generator on
// every graph file of $TILESCHED_BENCH_GRAPHS. Counters report the schedule's II, MII,
// II/MII and stage count, so a run also records quality. results/records/
// holds dated measurements (bench/README.md says how to run it).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/cost_based.h"
#include "tilesched/generate.h"
#include "tilesched/ims.h"
#include "tilesched/sms.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/graphgen/random_layered.h"
#include "tilesched/json_io.h"
#include "tilesched/serial.h"

namespace tilesched {
namespace {

const Graph& layered(int ops, uint64_t seed) {
  static std::map<std::pair<int, uint64_t>, Graph> cache;
  auto it = cache.find({ops, seed});
  if (it == cache.end()) {
    graphgen::LayeredParams p;
    p.ops = ops;
    p.seed = seed;
    StatusOr<Graph> g = graphgen::random_layered(p);
    if (!g.ok()) std::abort();
    it = cache.emplace(std::make_pair(ops, seed), std::move(g).value()).first;
  }
  return it->second;
}

void report(benchmark::State& state, const Graph& g, const Schedule& s) {
  state.counters["ops"] = g.op_count();
  state.counters["ii"] = static_cast<double>(s.ii);
  state.counters["mii"] = static_cast<double>(s.mii.max());
  state.counters["ii_over_mii"] = s.mii.max() > 0 ? double(s.ii) / double(s.mii.max()) : 0.0;
  state.counters["stages"] = static_cast<double>(s.stage_count);
  state.counters["feasible"] = s.feasible ? 1 : 0;
}

// Args: ops, seed.
void BM_Serial(benchmark::State& state) {
  const Graph& g = layered(static_cast<int>(state.range(0)), static_cast<uint64_t>(state.range(1)));
  Schedule s;
  for (auto _ : state) {
    s = generate_serial(g);
    benchmark::DoNotOptimize(s.ii);
  }
  report(state, g, s);
}

// The cost-based generator on g under `policy` (0 first-success, 1
// best-cost) and `search` (0 linear, 1 galloping).
void run_cost_based(benchmark::State& state, const Graph& g, int64_t policy, int64_t search) {
  CostBasedOptions opts;
  opts.arm_policy = policy ? ArmPolicy::kBestCost : ArmPolicy::kFirstSuccess;
  opts.ii_search = search ? IiSearch::kGalloping : IiSearch::kLinear;
  Schedule s;
  for (auto _ : state) {
    s = generate_cost_based(g, opts).schedule;
    benchmark::DoNotOptimize(s.ii);
  }
  report(state, g, s);
}

// Args: ops, seed, policy (0 first-success, 1 best-cost), search (0 linear, 1 galloping).
void BM_CostBased(benchmark::State& state) {
  const Graph& g = layered(static_cast<int>(state.range(0)), static_cast<uint64_t>(state.range(1)));
  run_cost_based(state, g, state.range(2), state.range(3));
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int ops : {16, 64, 256, 1024}) {
    for (int seed : {1, 2, 3}) b->Args({ops, seed});
  }
}

void CostSizes(benchmark::internal::Benchmark* b) {
  for (int ops : {16, 64, 256, 1024}) {
    for (int seed : {1, 2, 3}) {
      b->Args({ops, seed, 0, 0});
      if (ops <= 64) b->Args({ops, seed, 1, 0});  // best-cost: minutes at 1024 ops
      b->Args({ops, seed, 0, 1});
    }
  }
}

// One run of a heuristic generator at its default options.
Schedule run_generator(GeneratorKind kind, const Graph& g) {
  switch (kind) {
    case GeneratorKind::kCostBased: return generate_cost_based(g, {}).schedule;
    case GeneratorKind::kCostBasedSeed:
      return generate_cost_based(g, as_the_seeds_write_it({})).schedule;
    case GeneratorKind::kIms: return generate_ims(g, {});
    case GeneratorKind::kSms: return generate_sms(g, {});
    default: return generate_serial(g);
  }
}

// Runs `kind` on g (or reports why there is no graph).
void run_on(benchmark::State& state, const StatusOr<Graph>& g, GeneratorKind kind) {
  if (!g.ok()) {
    state.SkipWithError(g.status().message().c_str());
    return;
  }
  Schedule s;
  for (auto _ : state) {
    s = run_generator(kind, *g);
    benchmark::DoNotOptimize(s.ii);
  }
  report(state, *g, s);
}

// Args: ops, seed. The baselines on BM_CostBased's graphs (their target:
// at most 100 ms at 1024 ops, seeds 1-3).
void run_layered(benchmark::State& state, GeneratorKind kind) {
  const Graph& g = layered(static_cast<int>(state.range(0)), static_cast<uint64_t>(state.range(1)));
  run_on(state, StatusOr<Graph>(g), kind);
}
void BM_Ims(benchmark::State& state) { run_layered(state, GeneratorKind::kIms); }
void BM_Sms(benchmark::State& state) { run_layered(state, GeneratorKind::kSms); }

// Every family of the registry (tilesched/graphgen/families.h, the sweep's
// families) with no parameter given, 16 to 1024 ops, seed 1: each
// generator of kFamilyGenerators (the cost-based one first-success,
// linear). Named BM_Family/<generator>/<family>/<ops>.
void BM_Family(benchmark::State& state, std::string family, GeneratorKind kind) {
  run_on(state, graphgen::generate(family, static_cast<int>(state.range(0)), 1, {}), kind);
}

// A bundled example (engine/examples/FILE) under `kind`.
void BM_Example(benchmark::State& state, GeneratorKind kind, const char* file) {
  run_on(state, read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) + "/" + file), kind);
}
void BM_CostBasedExample(benchmark::State& state, const char* file) {
  BM_Example(state, GeneratorKind::kCostBased, file);
}
void BM_ImsExample(benchmark::State& state, const char* file) {
  BM_Example(state, GeneratorKind::kIms, file);
}

// Args: policy (0 first-success, 1 best-cost). A graph file of the folder
// TILESCHED_BENCH_GRAPHS (below).
void BM_CostBasedFile(benchmark::State& state, const Graph& g) {
  run_cost_based(state, g, state.range(0), 0);
}

// Every *.loop.json of the folder named by TILESCHED_BENCH_GRAPHS (none
// without it), as BM_CostBasedFile/<file stem>/<policy>: the CPU time of
// the cost-based generator on a set of graphs (the HLS imports,
// scripts/cost_based_targets' structured set) without process start or
// graph reading.
[[maybe_unused]] const bool kGraphFilesRegistered = [] {
  const char* dir = std::getenv("TILESCHED_BENCH_GRAPHS");
  if (dir == nullptr) return false;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 10 && name.ends_with(".loop.json")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  static std::vector<Graph> graphs;  // registered benchmarks keep references
  graphs.reserve(files.size());
  for (const std::filesystem::path& f : files) {
    StatusOr<Graph> g = read_graph_file(f.string());
    if (!g.ok()) continue;
    graphs.push_back(std::move(g).value());
    const std::string stem = f.filename().string().substr(0, f.filename().string().size() - 10);
    benchmark::RegisterBenchmark(("BM_CostBasedFile/" + stem).c_str(), BM_CostBasedFile,
                                 std::cref(graphs.back()))
        ->Arg(0)
        ->Arg(1)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

// The generators BM_Family runs, with the time unit they report in.
struct FamilyGenerator {
  GeneratorKind kind;
  benchmark::TimeUnit unit;
};
constexpr FamilyGenerator kFamilyGenerators[] = {
    {GeneratorKind::kSerial, benchmark::kMicrosecond},
    {GeneratorKind::kCostBased, benchmark::kMillisecond},
    {GeneratorKind::kCostBasedSeed, benchmark::kMillisecond},
    {GeneratorKind::kIms, benchmark::kMicrosecond},
    {GeneratorKind::kSms, benchmark::kMicrosecond},
};

[[maybe_unused]] const bool kFamiliesRegistered = [] {
  for (const graphgen::Family& family : graphgen::families()) {
    const std::string f(family.name);
    for (const FamilyGenerator& gen : kFamilyGenerators) {
      benchmark::RegisterBenchmark(
          ("BM_Family/" + std::string(generator_name(gen.kind)) + "/" + f).c_str(), BM_Family,
          f, gen.kind)
          ->RangeMultiplier(4)
          ->Range(16, 1024)
          ->Unit(gen.unit);
    }
  }
  return true;
}();

BENCHMARK(BM_Serial)->Apply(Sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CostBased)->Apply(CostSizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Ims)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sms)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CostBasedExample, worked, "seed_worked_example.loop.json")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CostBasedExample, gemm, "gemm_mainloop.loop.json")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CostBasedExample, attention, "attention_forward.loop.json")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ImsExample, worked, "seed_worked_example.loop.json")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ImsExample, gemm, "gemm_mainloop.loop.json")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ImsExample, attention, "attention_forward.loop.json")
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tilesched
