// One graph of the sweep, run: build it, run every generator configuration
// on it, verify each schedule, and fill the exact oracle's figure into all
// of the graph's rows. The sweep's workers and `tilesched replay` both go
// through here, so a replayed row is computed exactly as it was swept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sweep/csv.h"
#include "sweep/worklist.h"
#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/verify.h"

namespace tilesched::sweep {

// FNV-1a (64 bit) of the canonical graph JSON that write_graph_json writes
// for `g` with an empty name: stable across runs, platforms and compilers,
// it changes whenever the graph's content does (target, ops, edges, any
// field but the name), and two graphs that differ only in their names
// (e.g. two seeds of a family that drew the same instance) hash equal.
uint64_t graph_hash(const Graph& g);

// Materializes a feasible `s`'s Pipe_/Mutex_ values into it and verifies
// it: `s` and the report are those of with_materialization(g, s) then
// verify_schedule, but for a schedule the verifier accepts, whose values
// are not checked twice (the materializer's postcondition check is left
// to the verifier, which checks every carried value on its own; row.cc).
// An infeasible `s` is only verified.
VerifyReport materialize_and_verify(const Graph& g, Schedule& s);

struct ConfigRun {
  SweepRow row;
  std::optional<Schedule> schedule;  // absent when the generator failed to run
};

// One generator on one graph, materialized and verified. Never throws or
// aborts on a generator error: that becomes a row with feasible = 0,
// verified = 0 and the reason. cpu_ns is the thread's CPU time of the
// generator call alone (generate_schedule without the materialization),
// what time_ns times, less the cost of reading the clock; wall_ns covers the materialization and the
// verification too. `hash` is graph_hash(g), computed once per graph.
ConfigRun run_config(const Graph& g, uint64_t hash, const GraphKey& key,
                     const GeneratorConfig& config);
ConfigRun run_config(const Graph& g, const GraphKey& key, const GeneratorConfig& config);

// Every configuration on the graph `key` names, rows in `configs` order,
// optimal_ii / proven filled by fill_optimal. A graph that cannot be built
// gives one row per configuration with failure "graph-error".
std::vector<SweepRow> run_graph(const GraphKey& key, const std::vector<GeneratorConfig>& configs);

// The one place that reads the exact oracle's result: a row gets
// optimal_ii = the II of the verified exact schedule under the same stage
// cap (max_stages) as the row, proven = whether the oracle proved it
// optimal and stages_proven = whether it proved the stage count minimal;
// with no such exact row all three stay empty.
void fill_optimal(std::vector<ConfigRun>& runs);

}  // namespace tilesched::sweep
