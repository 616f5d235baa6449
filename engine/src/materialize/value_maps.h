// The two maps MaterializeSchedule builds from the schedule before it
// solves anything (seeds 003 and 000): async handle -> producer, and
// op -> scheduled depth,
// with the per-edge facts of the edge rule (value_rule.cc) computed once.
// Dense vectors indexed by op and edge id: no pointer keys, fixed order.
#pragma once

#include <cstdint>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/materialize.h"
#include "value_rule.h"
#include "tilesched/schedule.h"

namespace tilesched::materialize_internal {

struct ValueMaps {
  AgentAssignment agents;  // assign_agents(g)
  // Per edge id. `raw` is meaningful where `needs` is set.
  std::vector<char> needs;     // a data edge that needs a Pipe_ (needs_pipe)
  std::vector<char> live;      // a data edge live at its consumer
  std::vector<int64_t> depth;  // edge_depth
  std::vector<RawValue> raw;   // raw_value: the handle the edge carries
  // Map 2: op -> its scheduled depth (stage).
  std::vector<int64_t> op_depth;
  // Map 1, by consumer: its pipe-needing data in-edges, by producer
  // (stage, order) then edge id; the handles are their `raw` values.
  std::vector<std::vector<int>> needed_in;
  // Every data in-edge of each op, by producer id then edge id, so the
  // edges from one producer are a range (edges_from).
  std::vector<std::vector<int>> data_in;
};

// REQUIRES: s.stage and s.order hold one entry per op.
ValueMaps build_value_maps(const Graph& g, const Schedule& s);

// Appends the data edges u -> consumer to `out`, ascending id.
void append_edges_from(const ValueMaps& maps, const Graph& g, OpId u, OpId consumer,
                       std::vector<int>& out);

// pipe_edges() and mutex_edges() through the maps: linear in the
// consumer's in-edges instead of the whole edge list.
std::vector<int> pipe_edges_in(const ValueMaps& maps, const Graph& g, const Pipe& p);

}  // namespace tilesched::materialize_internal
