// The ordering phase of swing modulo scheduling (Llosa et al., PACT 1996,
// section 3; docs/BASELINES.md): node sets from the recurrences, the
// per-op timing at a candidate II, and the swing order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::sms {

// The ops split into node sets, in the order the swing visits them: one
// set per recurrence (a strongly connected component of the whole
// dependence graph with at least one edge inside), by RecMII decreasing,
// ties by the smallest op id; each set also takes the not yet assigned ops
// that lie on a path between it and the sets before it. The ops left over
// form the last set. Members of a set ascend by op id.
struct NodeSets {
  std::vector<std::vector<OpId>> sets;
  std::vector<int64_t> rec_mii;  // per set; 0 for the last set when it has no recurrence
  int recurrences = 0;           // sets that came from a recurrence
};
NodeSets find_node_sets(const Graph& g, const Adjacency& adj);

// Per-op timing at an II (edges weigh λ − II·δ): asap (the depth) =
// max(0, longest path into v), height = max(0, longest path out of v)
// (paths.h computes both), alap = max asap − height, mobility = alap −
// asap ≥ 0.
struct Timing {
  std::vector<int64_t> asap, alap, height;
  int64_t mobility(OpId v) const { return alap[v] - asap[v]; }
};
// The timing from its asap and height (the rest follows from them).
Timing timing_from(std::span<const int64_t> asap, std::span<const int64_t> height);

// The swing order: for each node set, start from the set's ops that are
// predecessors of the ops already ordered (bottom-up), else successors
// (top-down), else the op with the largest asap (bottom-up); top-down picks
// the largest height, bottom-up the largest depth, ties by the smaller
// mobility, then the smaller id; when the frontier empties the direction
// swings. Predecessors and successors here are over distance-0 edges (the
// loop body without its back edges). A set whose ops are not all reached
// this way starts again from the three cases.
std::vector<OpId> swing_order(const Graph& g, const Adjacency& adj, const NodeSets& sets,
                              const Timing& timing);

}  // namespace tilesched::sms
