// Graph algorithms the validator, the MII bounds and the generators share:
// strongly connected components and longest in-iteration paths. Iterative
// (no recursion), so deep graphs cannot overflow the stack.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

enum class EdgeFilter { kAll, kZeroDistance };

// Components of the subgraph of edges that `filter` keeps. component[v] is
// a dense id; components are numbered in reverse topological order of the
// condensation (Tarjan): an edge between components goes from a higher id
// to a lower or equal one.
struct Components {
  int count = 0;
  std::vector<int> component;  // per op
};
Components strongly_connected(const Graph& g, const Adjacency& adj, EdgeFilter filter);

// For every op, the longest path over distance-0 edges ending at it (sum of
// edge latencies; 0 for a root). REQUIRES: no zero-distance positive cycle.
std::vector<int64_t> longest_zero_distance_paths(const Graph& g, const Adjacency& adj);

// The first distance-0 edge with positive latency inside a distance-0
// strongly connected component (it closes a positive cycle), if any.
std::optional<int> find_zero_distance_positive_cycle(const Graph& g, const Adjacency& adj);

}  // namespace tilesched
