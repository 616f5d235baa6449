// Shared pieces of the libFuzzer targets (fuzz/README.md): a structured loop graph
// drawn from a FuzzedDataProvider, the generator configurations every target
// sweeps, and the check that stops a run with a readable report. The targets
// abort on a broken invariant so libFuzzer (and the replay tests) see a crash.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"
#include "tilesched/verify.h"

namespace tilesched::fuzz {

// Bounds of a fuzzed graph. Small on purpose: the schedulers' cost grows with
// ops, II and latencies, and a fuzzer wants thousands of runs per second.
struct GraphCaps {
  int max_ops = 24;
  int max_edges = 64;
  int64_t max_latency = 12;
  int64_t max_duration = 8;
  int64_t max_distance = 3;
  int max_slots = 6;  // inline generic targets
  int max_pools = 3;
};

// The caps of the scheduling targets (fuzz_schedule, fuzz_materialize):
// small enough to keep the cost-based schedule, the costly part, near a
// millisecond under ASan (throughput: fuzz/README.md).
inline GraphCaps scheduling_caps() {
  GraphCaps caps;
  caps.max_ops = 12;
  caps.max_edges = 32;
  caps.max_latency = 8;
  caps.max_duration = 4;
  return caps;
}

// Draws a graph: the Blackwell target (kinds with optional latency,
// resource and pool overrides, SMEM stores) or an inline generic target
// (singleton and pooled slots, rate and storage pools); ops with groups and
// max depths; edges (data or order) with latencies and distances, forward
// or arbitrary; sometimes force_serial_execution. Returns the graph that
// passed validate_graph, or its InvalidInput (e.g. a zero-distance cycle
// with positive latency: such graphs are input errors).
StatusOr<Graph> consume_graph(FuzzedDataProvider& in, const GraphCaps& caps);

// One generator configuration of the sweep.
struct GeneratorConfig {
  std::string name;
  GenerateOptions options;
};
// serial; cost-based with both arm policies and both II searches; auto.
std::vector<GeneratorConfig> generator_configs(uint64_t seed);

// The cost-based generator's descent budget in the fuzzers: seats per op
// at each II below the one found. The default (10000) lets one small graph
// whose lower IIs cannot be met take a tenth of a second or more under the
// sanitizers; this still runs every line of the descent.
inline constexpr int kFuzzDescentBudgetRatio = 64;

// Prints "fuzz check failed: WHAT" and the context to stderr, then aborts.
[[noreturn]] void fail(std::string_view what, std::string_view context);

// The graph and (when given) the schedule as JSON, for failure reports.
std::string describe(const Graph& g);
std::string describe(const Graph& g, const Schedule& s);
// Every violation of a report, one per line.
std::string describe(const VerifyReport& r);

// The ops' store_bytes at the fewest copies any II allows (once, or d + 1
// for a buffer its own op reads d iterations later), when that exceeds the
// storage pool: L4 then fails at every II.
std::optional<int64_t> stores_over_storage(const Graph& g);

// What every generator's result must satisfy: a feasible schedule passes the
// verifier and has II >= MII; an infeasible one names a reason, and the
// storage-budget reason where the stores alone exceed the pool (or the
// dependence-cycle one, also true of such a graph when it has one).
void check_result(const Graph& g, const Schedule& s, const std::string& generator);

// Same feasibility, II and starts: what determinism means for a generator.
bool same_result(const Schedule& a, const Schedule& b);

}  // namespace tilesched::fuzz

// Aborts with a message when COND is false. CONTEXT is evaluated only then.
#define FUZZ_CHECK(cond, what, context)                  \
  do {                                                   \
    if (!(cond)) ::tilesched::fuzz::fail((what), (context)); \
  } while (false)
