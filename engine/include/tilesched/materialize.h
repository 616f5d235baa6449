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

// Written to Schedule::flags when a consumer-only fallback pipe was emitted
// (seed 000's trivial-fallback bit, Schedule.flags |= 4).
inline constexpr std::string_view kTrivialFallbackFlag = "trivial-fallback";

// ------------------------------------------------------------ edge rules
// Each REQUIRES: s.stage and s.order hold one entry per op of g.

// Asynchronous: the op's kind has the async, tma or wgmma flag (target.h).
// An op of an unknown kind, and every `generic` op, is synchronous.
bool is_async(const Graph& g, OpId v);

// A data edge u -> v is live at its consumer when the value it reads
// exists when v runs in region order: it is loop-carried (distance > 0),
// or u comes strictly before v in (stage, order).
bool live_at_consumer(const Schedule& s, const Edge& e);

// Issue 4, item 4, plus one case: a data edge u -> v needs a Pipe_ when u
// is asynchronous, when stage(u) != stage(v), when it is loop-carried, or
// when it is not live at v (only a zero-latency edge between ops started
// in the same cycle can be). Order edges need a Mutex_ instead.
bool needs_pipe(const Graph& g, const Schedule& s, int edge);

// Buffers in flight along an edge: stage(v) - stage(u) + distance + 1.
int64_t edge_depth(const Schedule& s, const Edge& e);

// The raw value a data edge that needs a pipe carries to its consumer:
// the origin producers are grouped by (docs/MATERIALIZE.md, "Origins").
struct RawValue {
  enum class Kind {
    kArrival,     // a live same-iteration edge from an asynchronous op: every
                  // such producer arrives on the consumer's one barrier, so
                  // they share this value; `op` is the consumer
    kValue,       // any other live edge: the producer's own result; `op` is it
    kUnproduced,  // an edge that is not live: the producer's value of this
                  // iteration, not yet defined where the consumer runs
  };
  Kind kind = Kind::kValue;
  OpId op = 0;
  friend bool operator==(const RawValue&, const RawValue&) = default;
};
std::string_view raw_value_kind_name(RawValue::Kind k);  // "arrival", "value", "unproduced"
// REQUIRES: g.edges[edge] is a data edge.
RawValue raw_value(const Graph& g, const Schedule& s, int edge);

// The edges a value carries, derived from its fields alone (ascending ids):
// a pipe with producers carries every live data edge from one of them to
// its consumer; a pipe without producers (the fallback) carries every data
// edge into its consumer that is not live. A mutex carries every order
// edge from its releaser to its acquirer.
std::vector<int> pipe_edges(const Graph& g, const Schedule& s, const Pipe& p);
std::vector<int> mutex_edges(const Graph& g, const Mutex& m);

// ------------------------------------------------------- materialization

// What Schedule::solve did for one (raw value, consumer) candidate pair.
struct PairSolve {
  RawValue raw;
  OpId consumer = 0;
  int candidates = 0;      // producers of pipe-needing edges into the consumer
  std::vector<OpId> live;  // the producer set closed under live-at-consumer
  int groups = 0;          // disjoint-set roots among `live`
  bool fallback = false;   // nothing was live: the consumer-only pipe
  // Set when the owner map answered: a group emitted for an earlier pair
  // of this consumer, with this owner, already carries the raw value (the
  // consumer itself for a repeated fallback); `live` and `groups` stay empty.
  OpId repeat_of = -1;
  std::vector<int> pipes;  // indices of the final pipes it emitted into
  int collapsed = 0;       // of those, how many duplicated an earlier pipe
  friend bool operator==(const PairSolve&, const PairSolve&) = default;
};

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
  bool trivial_fallback = false;   // some pipe is a consumer-only fallback
  std::vector<PairSolve> solves;   // one per candidate pair, in walker order
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

// Stores m's pipes and mutexes in s, and kTrivialFallbackFlag in s.flags
// when m used the fallback (once).
void attach_materialization(Schedule& s, const Materialization& m);

// The materialization a schedule carries (its pipes, mutexes and flags),
// with the region rebuilt from them; no solve records. What the verifier
// and `tilesched schedule --emit region` work from.
Materialization carried_materialization(const Graph& g, const Schedule& s);

// Every violated postcondition of issue 4, item 5, one line each (empty:
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
