// Agents (warp roles) of a warp-specialized loop: which group of warps runs
// each op (seed 003: MaterializeSchedule emits `agent_switch` partitioning
// along the warp-specialized boundaries). The assignment is a function of
// the graph alone -- op kinds, the loop file's optional per-op `agent`, and
// the edges that tie a barrier op to its copies -- so it never depends on
// the schedule and never changes one. docs/MATERIALIZE.md, "Agents",
// states the rule; docs/DECISIONS.md why.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

// The default agents: the copy warps (TMA loads, cp.async and their
// barrier ops) and the compute warps (everything else).
inline constexpr std::string_view kProducerAgent = "producer";
inline constexpr std::string_view kConsumerAgent = "consumer";

struct AgentAssignment {
  std::vector<std::string> names;  // distinct, in order of first use by op id
  std::vector<int> of_op;          // per op id: index into `names`
  const std::string& name_of(OpId v) const { return names[of_op[v]]; }
  int count() const { return static_cast<int>(names.size()); }
  friend bool operator==(const AgentAssignment&, const AgentAssignment&) = default;
};

// A copy op: its kind moves data into shared memory on the producer's
// behalf (`tiled_tma_load`, `cp_async`, `cp_async_wait`).
bool is_copy_kind(std::string_view kind);

// The agent of every op: an op's own `agent` when the loop file names one;
// else `producer` for a copy op; else, for an `mbarrier_wait` whose
// same-iteration successors (any edge, distance 0, not itself) are all copy
// ops of one agent, or an `mbarrier_arrive` whose same-iteration data
// predecessors are all copy ops of one agent, that agent (the barrier
// belongs to its copies); else `consumer`. A target without copy kinds
// (every inline target) puts every op without an `agent` in `consumer`.
AgentAssignment assign_agents(const Graph& g);

// An agent name a loop file may use: 1..64 characters from [A-Za-z0-9_],
// not starting with a digit.
bool valid_agent_name(std::string_view name);

}  // namespace tilesched
