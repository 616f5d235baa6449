// MaterializeSchedule: the second pass of the seeds (seed 003, "Pass 2";
// seed 000, "Schedule::solve" and "Pipe and Mutex Emission"). It reads a
// finished schedule -- the plain Schedule both generators publish, nothing
// of theirs -- and emits the Pipe_ and Mutex_ coordination values: one
// Mutex_ per (releaser, acquirer) pair of order edges, one Pipe_ per group
// of producers that share an origin value at a consumer. It never searches
// an II, never probes a reservation table and never moves an op.
// docs/MATERIALIZE.md states the rules and every choice made here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/pipes.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

// One step of the rebuilt region: the ops in (stage, order), each preceded
// by the mutexes it acquires and followed by the pipes it produces into and
// the mutexes it releases. Pipes are consumed as the consumer's operands.
struct RegionStep {
  enum class Kind { kAcquire, kOp, kProduce, kRelease };
  Kind kind = Kind::kOp;
  OpId op = 0;     // the op the step belongs to
  int value = -1;  // pipe index (kProduce) or mutex index (kAcquire, kRelease)
  friend bool operator==(const RegionStep&, const RegionStep&) = default;
};

struct Materialization {
  std::vector<Pipe> pipes;         // Pipe_0, Pipe_1, ... in emission order
  std::vector<Mutex> mutexes;      // Mutex_0, Mutex_1, ...
  std::vector<RegionStep> region;  // the rebuilt scheduled region
  // Per op id, the agent that runs it (assign_agents, tilesched/agents.h);
  // the region dump partitions each stage by it (agent_switch).
  std::vector<std::string> agents;
  bool trivial_fallback = false;   // some pipe is a consumer-only fallback
  friend bool operator==(const Materialization&, const Materialization&) = default;
};

// Emits the values of a finished schedule: the two maps, Mutex_ then Pipe_
// placeholders, Schedule::solve per candidate pair, duplicate collapse, the
// region rebuilt in (stage, order), and check_materialization as a hard
// postcondition. REQUIRES (else InvalidInput): s.feasible, s.ii >= 1, one
// start, stage and order per op, and (stage, order) unique per op. A
// schedule that breaks L1 can fail the postconditions (a depth below 1):
// that is InvalidInput too, naming the first one.
StatusOr<Materialization> materialize(const Graph& g, const Schedule& s);

// What materialize() does beyond emitting the values. The defaults are
// the whole pass; the sweep, which hands every schedule to the independent
// verifier (verify.h: it derives the values again and checks each pipe's
// and mutex's coverage, grouping, owner, depth, recorded edges, ids,
// agents and the fallback flag) and never reads the region, leaves both
// off. A build with assertions (no NDEBUG) checks the postconditions
// whatever `postconditions` says.
struct MaterializeOptions {
  bool postconditions = true;  // check_materialization as a hard postcondition
  bool region = true;          // rebuild Materialization::region
};
StatusOr<Materialization> materialize(const Graph& g, const Schedule& s,
                                      const MaterializeOptions& opts);

// Stores m's pipes and mutexes in s, and kTrivialFallbackFlag in s.flags
// when m used the fallback (once). Pass an rvalue where m is not needed
// after: its values move.
void attach_materialization(Schedule& s, Materialization m);

// The materialization a schedule carries (its pipes, mutexes and flags),
// with the region rebuilt from them; no solve records. What
// `tilesched schedule --emit region` works from (the verifier derives the
// values on its own: docs/VERIFIER.md).
Materialization carried_materialization(const Graph& g, const Schedule& s);

// Every violated postcondition (docs/MATERIALIZE.md), one line each (empty:
// all hold). Checked from the definitions above, not by re-running the
// solve: each pipe-needing edge is carried by exactly one pipe and each
// order edge by exactly one mutex; no pipe or mutex carries nothing it
// needs; the async same-iteration producers of a consumer share one pipe
// and no other producers are grouped; owners are earliest; no two pipes
// with the same producers and consumer (nor mutexes with the same pair);
// depths >= 1 and equal to the formula; recorded edges agree; ids are
// Pipe_0.. and Mutex_0.. in order; the region lists every op once in
// (stage, order) with each value spliced in where produced and consumed;
// the trivial-fallback flag is set exactly when a fallback pipe exists.
std::vector<std::string> check_materialization(const Graph& g, const Schedule& s,
                                               const Materialization& m);

// The rebuilt region as MLIR-like text: the values declared first, then one
// block per stage with its ops in order, Pipe_/Mutex_ values spliced in;
// II and stage count in the header. docs/MATERIALIZE.md shows an example.
std::string dump_region(const Graph& g, const Schedule& s, const Materialization& m);

}  // namespace tilesched
