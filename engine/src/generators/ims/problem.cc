// Per-graph facts of the iterative modulo scheduler (see problem.h).
#include "problem.h"

#include <algorithm>

#include "graph/graph_algo.h"

namespace tilesched::ims {

Problem::Problem(const Graph& graph) : g(graph), adj(Adjacency::build(graph)) {
  nodes.reserve(g.ops.size());
  for (const Op& op : g.ops) nodes.push_back(NodeRrt::lower(op, g.target));
  find_users();
  LeaderGroups groups = find_leader_groups(g);
  group_of = std::move(groups.group_of);
  group_members = std::move(groups.members);
  group_span_bound = tilesched::group_span_bound(g, adj, group_members);
  if (const std::optional<int> sp = g.target.storage_pool()) {
    storage_capacity = g.target.pools[*sp].capacity;
  }
  least_lifetime.assign(g.ops.size(), 1);
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData) continue;
    const int64_t life = e.latency + footprint_duration(g.ops[e.to]);
    least_lifetime[e.from] = std::max(least_lifetime[e.from], life);
  }
}

void Problem::find_users() {
  slot_users.assign(static_cast<size_t>(g.target.slot_count()), {});
  pool_users.assign(g.target.pools.size(), {});
  for (OpId v = 0; v < g.op_count(); ++v) {
    for (const Triple& t : nodes[v].triples) {
      if (t.duration > 0) slot_users[t.slot - 1].push_back(v);
    }
    for (const PoolUse& u : nodes[v].pools) pool_users[u.pool].push_back(v);
  }
}

int64_t storage_floor(const Problem& p, int64_t ii) {
  const int64_t cap = *p.storage_capacity;
  int64_t total = 0;
  for (OpId v = 0; v < p.g.op_count() && total <= cap; ++v) {
    const int64_t bytes = p.g.ops[v].store_bytes;
    if (bytes != 0) total += bytes * ((p.least_lifetime[v] + ii - 1) / ii);
  }
  return total;
}

}  // namespace tilesched::ims
