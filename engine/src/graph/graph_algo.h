// Graph algorithms the validator, the MII bounds and the schedule
// generators share: Kahn's walk, strongly connected components and longest
// in-iteration paths. Iterative (no recursion), so deep graphs cannot
// overflow the stack.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

// Kahn's walk over `count` nodes: `for_each_successor(v, f)` calls f(w)
// once for every edge v -> w of the graph being walked (parallel edges
// repeat). Of the ready nodes, the one with the smallest key[v] comes
// first, ties by the smaller id. Nodes on a cycle are never ready and are
// left out of the result. The serial generator walks ops by program index,
// the distance closure each component's ops, the cost-based generator the
// distance-0 condensation by each component's first op.
template <class ForEachSuccessor>
std::vector<int> kahn_walk(int count, const std::vector<int>& key,
                           ForEachSuccessor&& for_each_successor) {
  std::vector<int> in_degree(static_cast<size_t>(count), 0);
  for (int v = 0; v < count; ++v) for_each_successor(v, [&](int w) { ++in_degree[w]; });
  using Entry = std::pair<int, int>;  // (key, node)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (int v = 0; v < count; ++v) {
    if (in_degree[v] == 0) ready.push({key[v], v});
  }
  std::vector<int> walk;
  walk.reserve(static_cast<size_t>(count));
  while (!ready.empty()) {
    const int v = ready.top().second;
    ready.pop();
    walk.push_back(v);
    for_each_successor(v, [&](int w) {
      if (--in_degree[w] == 0) ready.push({key[w], w});
    });
  }
  return walk;
}

// Kahn's walk over the ops and their distance-0 edges (seed 001's serial
// walk): of the ready ops, the lowest program index first. A walk shorter
// than the graph met a zero-distance cycle.
std::vector<OpId> zero_distance_walk(const Graph& g, const Adjacency& adj);

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

// Each component's ops in id order, in one flat list (no list per
// component): members[begin[c] .. begin[c + 1]).
struct ComponentMembers {
  std::vector<int> begin;  // count + 1 entries
  std::vector<OpId> members;
  std::span<const OpId> of(int c) const {
    return {members.data() + begin[c], static_cast<size_t>(begin[c + 1] - begin[c])};
  }
};
ComponentMembers component_members(const Components& c);

// Whether any op has a max_depth (rule L6).
bool any_max_depth(const Graph& g);

// For every op, the longest path over distance-0 edges ending at it (sum of
// edge latencies; 0 for a root). REQUIRES: no zero-distance positive cycle.
std::vector<int64_t> longest_zero_distance_paths(const Graph& g, const Adjacency& adj);

// The first distance-0 edge with positive latency inside a distance-0
// strongly connected component (it closes a positive cycle), if any.
std::optional<int> find_zero_distance_positive_cycle(const Graph& g, const Adjacency& adj);

// Ops on one zero-latency zero-distance cycle start in the same cycle at
// every II (each edge of the cycle needs s_v >= s_u, around the cycle).
// When such ops together hold more units of one slot or rate pool than it
// has, at that common start, no II can schedule the graph. Returns the
// reason ("ops a and b start together (a zero-latency cycle) and hold 2
// units of slot tma (capacity 1) in that cycle"), or nullopt. Sound, not
// complete: other rules are not considered.
std::optional<std::string> forced_together_conflict(const Graph& g, const Adjacency& adj);

// Leader groups (rule L5): dense ids in order of first appearance, members
// in ascending op id.
struct LeaderGroups {
  static constexpr int kNone = -1;
  std::vector<int> group_of;               // per op, or kNone
  std::vector<std::vector<OpId>> members;  // per group
};
LeaderGroups find_leader_groups(const Graph& g);

// The least II at which every group can share a stage: members u, v joined
// by a distance-0 path of latency P need s_v - s_u >= P and
// |s_v - s_u| <= II - 1, so II >= P + 1. 1 when no group has two members.
// REQUIRES: no zero-distance positive cycle.
int64_t group_span_bound(const Graph& g, const Adjacency& adj,
                         const std::vector<std::vector<OpId>>& members);

// A lower bound on II from L2 and L3 that the resource MII misses: holds of
// one pooled slot (or rate pool) that each take more than half its capacity
// can never share a modulo row, so their durations must fit in II side by
// side. Per slot and rate pool, the sum over ops of the longest such hold
// (an op's own holds start together and overlap anyway); the largest sum,
// 1 when there is none. Eight holds of 2 units on a 3-unit slot, 3 cycles
// each, need II >= 24 where the resource MII says 16.
int64_t exclusive_holds_bound(const Graph& g);

}  // namespace tilesched
