// The bounds every model of the exact oracle shares (bounds.h).
#include "bounds.h"

#include <algorithm>
#include <cstdint>

#include "model/arith.h"
#include "op_pairs.h"
#include "tilesched/limits.h"

namespace tilesched::exact_internal {

std::optional<std::vector<int64_t>> longest_paths(const Graph& g, int64_t ii, bool reverse) {
  const int n = g.op_count();
  std::vector<int64_t> dist(n, 0);
  // Bellman-Ford from the virtual source: n rounds settle every simple
  // path; a change in round n + 1 means a positive cycle.
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const Edge& e : g.edges) {
      const OpId from = reverse ? e.to : e.from;
      const OpId to = reverse ? e.from : e.to;
      const int64_t w = e.latency - e.distance * ii;
      if (dist[from] + w > dist[to]) {
        dist[to] = dist[from] + w;
        changed = true;
      }
    }
    if (!changed) return dist;
  }
  return std::nullopt;
}

std::vector<int> topological_components(int n, const std::vector<WeightedEdge>& edges, int& count) {
  std::vector<std::vector<OpId>> out(n), in(n);
  for (const WeightedEdge& e : edges) {
    out[e.from].push_back(e.to);
    in[e.to].push_back(e.from);
  }
  std::vector<OpId> finish;
  std::vector<char> seen(n, 0);
  for (OpId root = 0; root < n; ++root) {
    if (seen[root]) continue;
    std::vector<std::pair<OpId, size_t>> stack = {{root, 0}};
    seen[root] = 1;
    while (!stack.empty()) {
      auto& [v, i] = stack.back();
      if (i < out[v].size()) {
        const OpId w = out[v][i++];
        if (!seen[w]) {
          seen[w] = 1;
          stack.push_back({w, 0});
        }
      } else {
        finish.push_back(v);
        stack.pop_back();
      }
    }
  }
  std::vector<int> comp(n, -1);
  count = 0;
  for (auto it = finish.rbegin(); it != finish.rend(); ++it) {
    if (comp[*it] >= 0) continue;
    std::vector<OpId> stack = {*it};
    comp[*it] = count;
    while (!stack.empty()) {
      const OpId v = stack.back();
      stack.pop_back();
      for (OpId u : in[v]) {
        if (comp[u] < 0) {
          comp[u] = count;
          stack.push_back(u);
        }
      }
    }
    ++count;
  }
  return comp;
}

int64_t stage_bound(const Graph& g, int64_t ii) {
  if (g.attrs.force_serial_execution) return 0;
  const bool storage = g.target.storage_pool().has_value();
  const int n = g.op_count();
  // The stage difference graph (docs/EXACT.md), each edge with the largest
  // weight it can take whatever the rows.
  std::vector<WeightedEdge> edges;
  for (const Edge& e : g.edges) {
    // L1: k_to - k_from >= ceil((r_from + latency - r_to) / II) - distance.
    edges.push_back({e.from, e.to, ceil_div(e.latency + ii - 1, ii) - e.distance});
    // L4 keeps each buffer's consumers no further away: k_from >= k_to - D,
    // D >= (a lower bound of the L1 weight) >= -distance.
    if (storage && e.kind == EdgeKind::kData && g.ops[e.from].store_bytes > 0) {
      edges.push_back({e.to, e.from, e.distance});
    }
  }
  // L5: a group's members share a stage (weight 0 both ways).
  for (const auto& [u, v] : leader_group_pairs(g)) {
    edges.push_back({u, v, 0});
    edges.push_back({v, u, 0});
  }
  // A longest simple path visits each component in one stretch, taking at
  // most one edge out of each op: inside a component at most the sum over
  // its ops of their largest positive inner edge weight; between
  // components, a longest path over the condensation (a DAG).
  int count = 0;
  const std::vector<int> comp = topological_components(n, edges, count);
  std::vector<int64_t> best_inner(n, 0), inner(count, 0), reach(count, 0);
  for (const WeightedEdge& e : edges) {
    if (comp[e.from] == comp[e.to]) best_inner[e.from] = std::max(best_inner[e.from], e.weight);
  }
  for (OpId v = 0; v < n; ++v) {
    inner[comp[v]] = std::min(inner[comp[v]] + best_inner[v], limits::kMaxStart);
  }
  std::vector<std::vector<const WeightedEdge*>> entering(count);
  for (const WeightedEdge& e : edges) {
    if (comp[e.from] != comp[e.to]) entering[comp[e.to]].push_back(&e);
  }
  int64_t k = 0;
  for (int c = 0; c < count; ++c) {  // topological order
    int64_t before = 0;  // the path may start in c
    for (const WeightedEdge* e : entering[c]) {
      before = std::max(before, reach[comp[e->from]] + e->weight);
    }
    reach[c] = std::min(before + inner[c], limits::kMaxStart);
    k = std::max(k, reach[c]);
  }
  return k;
}

}  // namespace tilesched::exact_internal
