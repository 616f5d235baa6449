// The bounds every model of the exact oracle shares (docs/EXACT.md): the
// ASAP and tail longest paths at an II, and the stage bound K with its
// argument over the stage difference graph's components. Internal to the
// engine.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::exact_internal {

// Longest paths over edge weights latency - distance * II, from a virtual
// source joined to every op with weight 0 (forward: the ASAP start of each
// op in any legal schedule at II), or to a virtual sink (reverse: how far
// each op's start must stay below the latest start). nullopt: a positive
// cycle, so II is below RecMII.
std::optional<std::vector<int64_t>> longest_paths(const Graph& g, int64_t ii, bool reverse);

// K: every graph that has a legal schedule at II has one whose stages are
// all at most K (docs/EXACT.md, "Stage bound" gives the argument).
int64_t stage_bound(const Graph& g, int64_t ii);

// An edge between op ids with a weight (the stage difference graph's).
struct WeightedEdge {
  OpId from, to;
  int64_t weight;
};

// Strongly connected components of the n ops and `edges` (Kosaraju,
// iterative); the result numbers them, per op, in topological order of the
// condensation (an edge between two components goes from a lower to a
// higher id), `count` receives how many.
std::vector<int> topological_components(int n, const std::vector<WeightedEdge>& edges, int& count);

}  // namespace tilesched::exact_internal
