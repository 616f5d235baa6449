// Independent checkers of the contract's rules (docs/CONTRACT.md) for the
// property tests. Each is written from the definitions alone (L4 with its
// δ·II term, docs/VERIFIER.md) and shares no code with the engine's
// verifier, RRT, generators or materializer, so a bug in those cannot hide
// itself: the slot and pool tables are rebuilt cycle by cycle (the verifier
// sweeps intervals), RecMII is checked with Bellman-Ford (the engine uses a
// parametric search). Each returns one line per problem found; empty means
// the rule holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched::props {

using Problems = std::vector<std::string>;

// II >= 1 and one start >= 0 per op. The other checkers assume it.
Problems check_shape(const Graph& g, const Schedule& s);
// L1: s_v + δ·II >= s_u + λ for every edge.
Problems check_dependences(const Graph& g, const Schedule& s);
// L2: per slot and modulo row, the occupancy of every (op, cycle) landing
// there is within the slot's capacity (a singleton row has one claimant).
Problems check_slots(const Graph& g, const Schedule& s);
// L3: per rate pool and modulo row, the counts held over each op's
// footprint duration are within the pool's capacity.
Problems check_rate_pools(const Graph& g, const Schedule& s);
// L4: Σ bytes_v · ⌈lifetime_v / II⌉ <= the storage pool's capacity.
Problems check_storage(const Graph& g, const Schedule& s);
// L5: ops with one leader_gid share a stage.
Problems check_groups(const Graph& g, const Schedule& s);
// L6: stage_v <= max_depth_v.
Problems check_max_depth(const Graph& g, const Schedule& s);
// L7 (only for force_serial_execution): all in stage 0, II >= makespan.
Problems check_forced_serial(const Graph& g, const Schedule& s);
// Stage/order totality: stage = ⌊start/II⌋, (stage, order) unique, order
// agrees with (start, id) inside a stage, stage_count = 1 + max stage.
Problems check_stage_order(const Graph& g, const Schedule& s);
// Everything above.
Problems check_legal(const Graph& g, const Schedule& s);

// The four lower bounds recomputed from their formulas (docs/BOUNDS.md); RecMII by
// bisection over Bellman-Ford positive-cycle tests.
MiiBounds own_mii(const Graph& g);
// True when the graph has a dependence cycle with Σ(λ − II·δ) > 0.
bool has_positive_cycle(const Graph& g, int64_t ii);

// Materialization postconditions of the carried Pipe_/Mutex_ values: each
// data edge that needs a pipe (async producer, cross-stage, loop-carried,
// or not live at its consumer) is carried by exactly one pipe, each order
// edge by exactly one mutex, every pipe carries an edge that needs one,
// owners are the earliest by (stage, order), depths follow the formula;
// nothing crosses agents (tilesched/agents.h) but through a pipe, each
// pipe records its one producer agent and its consumer's, and the
// schedule each op's agent.
Problems check_materialization_post(const Graph& g, const Schedule& s);

// "a, b, c" (at most `limit`, then "... and N more").
std::string join(const Problems& p, size_t limit = 8);

}  // namespace tilesched::props
