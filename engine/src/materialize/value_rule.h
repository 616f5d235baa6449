// The edge rule of MaterializeSchedule (docs/MATERIALIZE.md, "Which edges
// need values" and "Origins"): which edges of a finished schedule need a
// Pipe_ or a Mutex_, how deep it is, and which raw value a pipe carries.
// Internal to the materializer; which edges a value carries is the
// model's (../value_edges.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/value_edges.h"
#include "tilesched/agents.h"
#include "tilesched/graph.h"
#include "tilesched/pipes.h"
#include "tilesched/schedule.h"

namespace tilesched {

// Each REQUIRES: s.stage and s.order hold one entry per op of g.

// Asynchronous: the op's kind has the async, tma or wgmma flag (target.h).
// An op of an unknown kind, and every `generic` op, is synchronous.
bool is_async(const Graph& g, OpId v);

// The rule of docs/MATERIALIZE.md, "Which edges need values": a data edge
// u -> v needs a Pipe_ when u is asynchronous, when stage(u) != stage(v),
// when it is loop-carried, or when it is not live at v (only a zero-latency
// edge between ops started in the same cycle can be). Order edges need a
// Mutex_ instead. And, for warp specialization, when u and v run in
// different agents (`a`, assign_agents(g)): nothing crosses agents but
// through a Pipe_.
bool needs_pipe(const Graph& g, const Schedule& s, const AgentAssignment& a, int edge);

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
  // kArrival: the producers' agent (index into AgentAssignment::names):
  // the copies of one agent arrive on one barrier, another agent's
  // arrivals on another. 0 for the other kinds, whose `op` fixes it.
  int agent = 0;
  friend bool operator==(const RawValue&, const RawValue&) = default;
};
std::string_view raw_value_kind_name(RawValue::Kind k);  // "arrival", "value", "unproduced"
// REQUIRES: g.edges[edge] is a data edge.
RawValue raw_value(const Graph& g, const Schedule& s, const AgentAssignment& a, int edge);

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

}  // namespace tilesched
