// The two maps of MaterializeSchedule and the per-edge facts.
#include "value_maps.h"

#include <algorithm>

#include "stage_order.h"

namespace tilesched::materialize_internal {

ValueMaps build_value_maps(const Graph& g, const Schedule& s) {
  const int n = g.op_count();
  const int m = g.edge_count();
  ValueMaps maps;
  maps.agents = assign_agents(g);
  maps.needs.assign(m, 0);
  maps.live.assign(m, 0);
  maps.depth.assign(m, 0);
  maps.raw.assign(m, RawValue{});
  maps.op_depth = s.stage;
  maps.needed_in.assign(n, {});
  maps.data_in.assign(n, {});
  // Each op's data in-edges counted first, so that each list is allocated
  // once (every schedule of a sweep builds these maps).
  std::vector<int> data_degree(n, 0);
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData) ++data_degree[e.to];
  }
  for (int v = 0; v < n; ++v) {
    maps.data_in[v].reserve(data_degree[v]);
    maps.needed_in[v].reserve(data_degree[v]);
  }
  for (int i = 0; i < m; ++i) {
    const Edge& e = g.edges[i];
    maps.depth[i] = edge_depth(s, e);
    if (e.kind != EdgeKind::kData) continue;
    maps.data_in[e.to].push_back(i);
    maps.live[i] = live_at_consumer(s, e) ? 1 : 0;
    if (!needs_pipe(g, s, maps.agents, i)) continue;
    maps.needs[i] = 1;
    maps.raw[i] = raw_value(g, s, maps.agents, i);
    maps.needed_in[e.to].push_back(i);
  }
  for (std::vector<int>& in : maps.data_in) {
    std::sort(in.begin(), in.end(), [&](int a, int b) {
      return g.edges[a].from != g.edges[b].from ? g.edges[a].from < g.edges[b].from : a < b;
    });
  }
  for (std::vector<int>& in : maps.needed_in) {
    // A strict total order (the edge id breaks ties): std::sort gives the
    // stable order without a temporary buffer.
    std::sort(in.begin(), in.end(), [&](int a, int b) {
      const OpId ua = g.edges[a].from;
      const OpId ub = g.edges[b].from;
      if (ua != ub) return before(s, ua, ub);
      return a < b;
    });
  }
  return maps;
}

void append_edges_from(const ValueMaps& maps, const Graph& g, OpId u, OpId consumer,
                       std::vector<int>& out) {
  const std::vector<int>& in = maps.data_in[consumer];
  auto it = std::lower_bound(in.begin(), in.end(), u,
                             [&](int e, OpId from) { return g.edges[e].from < from; });
  for (; it != in.end() && g.edges[*it].from == u; ++it) out.push_back(*it);
}

std::vector<int> pipe_edges_in(const ValueMaps& maps, const Graph& g, const Pipe& p) {
  std::vector<int> out;
  if (p.consumer < 0 || p.consumer >= g.op_count()) return out;
  if (p.producers.empty()) {
    for (int i : maps.data_in[p.consumer]) {
      if (!maps.live[i]) out.push_back(i);
    }
  } else {
    std::vector<int> from;
    for (OpId u : p.producers) {
      if (u < 0 || u >= g.op_count()) continue;
      from.clear();
      append_edges_from(maps, g, u, p.consumer, from);
      for (int i : from) {
        if (maps.live[i]) out.push_back(i);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace tilesched::materialize_internal
