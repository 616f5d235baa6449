// What the iterative modulo scheduler reads from a graph once, before any
// II is tried: adjacency, RRT footprints, which ops claim each resource
// (to find whom to evict), leader groups (rule L5) and the facts rule L4
// needs. docs/BASELINES.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "bounds/rrt.h"
#include "tilesched/graph.h"

namespace tilesched::ims {

inline constexpr int kNoGroup = -1;  // LeaderGroups::kNone

struct Problem {
  explicit Problem(const Graph& graph);

  const Graph& g;
  Adjacency adj;
  std::vector<NodeRrt> nodes;                  // per op
  std::vector<std::vector<OpId>> slot_users;   // by slot - 1: ops with a triple on it
  std::vector<std::vector<OpId>> pool_users;   // by pool: ops holding a rate pool
  // Leader groups (L5): dense ids in order of first appearance.
  std::vector<int> group_of;                   // per op, or kNoGroup
  std::vector<std::vector<OpId>> group_members;
  // Members u, v joined by a distance-0 path of latency P share a stage
  // only if II >= P + 1: the II search starts at max(MII, this).
  int64_t group_span_bound = 1;
  // L4: the storage pool's capacity, and per op the least lifetime its
  // buffer can have at any II: max(1, max over data edges v -> w of
  // lambda + D_w) (L1 gives s_w + delta*II >= s_v + lambda).
  std::optional<int64_t> storage_capacity;
  std::vector<int64_t> least_lifetime;

 private:
  void find_users();
};

// The bytes L4 charges at `ii` to any schedule: every buffer at its least
// lifetime. Saturates just above the capacity. REQUIRES: storage_capacity.
int64_t storage_floor(const Problem& p, int64_t ii);

}  // namespace tilesched::ims
