// Per-graph facts of the iterative modulo scheduler (see problem.h).
#include "problem.h"

#include <algorithm>

#include "../graph_algo.h"

namespace tilesched::ims {

Problem::Problem(const Graph& graph) : g(graph), adj(Adjacency::build(graph)) {
  nodes.reserve(g.ops.size());
  for (const Op& op : g.ops) nodes.push_back(NodeRrt::lower(op, g.target));
  find_users();
  find_groups();
  bound_group_spans();
  if (const std::optional<int> sp = g.target.storage_pool()) {
    storage_capacity = g.target.pools[*sp].capacity;
  }
  least_lifetime.assign(g.ops.size(), 1);
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData) continue;
    const int64_t life = e.latency + footprint_duration(g.ops[e.to]);
    least_lifetime[e.from] = std::max(least_lifetime[e.from], life);
  }
  for (const Op& op : g.ops) store_total += op.store_bytes;  // <= 2^13 * 2^40
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

void Problem::find_groups() {
  group_of.assign(g.ops.size(), kNoGroup);
  std::vector<int64_t> leaders;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (!g.ops[v].leader_gid) continue;
    auto it = std::find(leaders.begin(), leaders.end(), *g.ops[v].leader_gid);
    if (it == leaders.end()) {
      leaders.push_back(*g.ops[v].leader_gid);
      group_members.emplace_back();
      it = leaders.end() - 1;
    }
    group_of[v] = static_cast<int>(it - leaders.begin());
    group_members[group_of[v]].push_back(v);
  }
}

// Longest distance-0 paths from each member over the distance-0
// condensation. Inside a distance-0 component every edge has latency 0
// (validate_graph refuses a positive one), so a component is one value.
void Problem::bound_group_spans() {
  if (std::none_of(group_members.begin(), group_members.end(),
                   [](const std::vector<OpId>& m) { return m.size() > 1; })) {
    return;
  }
  const Components zero = strongly_connected(g, adj, EdgeFilter::kZeroDistance);
  std::vector<std::vector<OpId>> members_of(zero.count);
  for (OpId v = 0; v < g.op_count(); ++v) members_of[zero.component[v]].push_back(v);
  constexpr int64_t kUnreached = INT64_MIN;
  std::vector<int64_t> reach(zero.count);
  for (const std::vector<OpId>& members : group_members) {
    if (members.size() < 2) continue;
    for (OpId source : members) {
      std::fill(reach.begin(), reach.end(), kUnreached);
      reach[zero.component[source]] = 0;
      for (int c = zero.component[source]; c >= 0; --c) {  // topological: ids descend
        if (reach[c] == kUnreached) continue;
        for (OpId u : members_of[c]) {
          for (int p = adj.out_begin[u]; p < adj.out_begin[u + 1]; ++p) {
            const Edge& e = g.edges[adj.out_edges[p]];
            const int d = zero.component[e.to];
            if (e.distance == 0 && d != c) reach[d] = std::max(reach[d], reach[c] + e.latency);
          }
        }
      }
      for (OpId v : members) {
        const int64_t r = reach[zero.component[v]];
        if (v != source && r != kUnreached) group_span_bound = std::max(group_span_bound, r + 1);
      }
    }
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
