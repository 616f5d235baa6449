// The bounds every model of the exact oracle shares (docs/EXACT.md): the
// ASAP and tail longest paths, the stage bound K and its argument over the
// stage difference graph's components, and the interchangeable ops.
#include "problem.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "model/arith.h"
#include "util/test_seams.h"
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

namespace {

struct WeightedEdge {
  OpId from, to;
  int64_t weight;
};

// Strongly connected components (Kosaraju, iterative); comp[v] numbers
// them in topological order of the condensation (an edge between two
// components goes from a lower to a higher id).
std::vector<int> components(int n, const std::vector<WeightedEdge>& edges, int& count) {
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

}  // namespace

std::optional<ModelSpec> model_spec(const Graph& g, int64_t ii, int64_t stage_bound,
                                    Clock::time_point deadline,
                                    std::optional<std::vector<int64_t>> asap) {
  if (!asap) asap = longest_paths(g, ii, false);
  std::optional<std::vector<int64_t>> tail = longest_paths(g, ii, true);
  if (!asap || !tail) return std::nullopt;
  ModelSpec spec;
  spec.ii = ii;
  spec.stage_bound = stage_bound;
  spec.asap = std::move(*asap);
  spec.tail = std::move(*tail);
  spec.deadline = deadline;
  return spec;
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
  std::vector<std::pair<int64_t, OpId>> members;
  for (OpId v = 0; v < n; ++v) {
    if (g.ops[v].leader_gid) members.push_back({*g.ops[v].leader_gid, v});
  }
  std::sort(members.begin(), members.end());
  for (size_t i = 1; i < members.size(); ++i) {
    if (members[i].first != members[i - 1].first) continue;
    edges.push_back({members[i - 1].second, members[i].second, 0});
    edges.push_back({members[i].second, members[i - 1].second, 0});
  }
  // A longest simple path visits each component in one stretch, taking at
  // most one edge out of each op: inside a component at most the sum over
  // its ops of their largest positive inner edge weight; between
  // components, a longest path over the condensation (a DAG).
  int count = 0;
  const std::vector<int> comp = components(n, edges, count);
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

namespace {

Graph induced_subgraph(const Graph& g, const std::vector<OpId>& ops) {
  Graph sub;
  sub.name = g.name;
  sub.target = g.target;
  sub.attrs = g.attrs;
  std::vector<OpId> index(g.op_count(), -1);
  for (OpId v : ops) {
    index[v] = sub.op_count();
    sub.ops.push_back(g.ops[v]);
  }
  for (const Edge& e : g.edges) {
    if (index[e.from] < 0 || index[e.to] < 0) continue;
    Edge copy = e;
    copy.from = index[e.from];
    copy.to = index[e.to];
    sub.edges.push_back(copy);
  }
  return sub;
}

bool holds_something(const Op& op) {
  return std::any_of(op.resources.begin(), op.resources.end(),
                     [](const Triple& t) { return t.duration > 0 && t.occupancy > 0; }) ||
         !op.pools.empty() || op.store_bytes > 0;
}

}  // namespace

std::vector<Graph> component_subgraphs(const Graph& g) {
  const int n = g.op_count();
  std::vector<WeightedEdge> edges;
  for (const Edge& e : g.edges) edges.push_back({e.from, e.to, 0});
  int count = 0;
  const std::vector<int> comp = components(n, edges, count);
  std::vector<std::vector<OpId>> members(count);
  for (OpId v = 0; v < n; ++v) members[comp[v]].push_back(v);
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::vector<Graph> out;
  for (const std::vector<OpId>& ops : members) {
    const int size = static_cast<int>(ops.size());
    if (size < std::max(2, test_seams::min_component_ops) || 4 * size > 3 * n) continue;
    if (std::none_of(ops.begin(), ops.end(), [&](OpId v) { return holds_something(g.ops[v]); })) {
      continue;
    }
    out.push_back(induced_subgraph(g, ops));
  }
  return out;
}

bool has_groups(const Graph& g) {
  return std::any_of(g.ops.begin(), g.ops.end(),
                     [](const Op& op) { return op.leader_gid.has_value(); });
}

namespace {

// (other end, or -1 for a self-loop; latency; distance; kind)
using EdgeKey = std::tuple<OpId, int64_t, int64_t, int>;
struct Signature {
  std::vector<EdgeKey> out, in;
};

std::vector<Signature> signatures(const Graph& g, std::vector<std::vector<OpId>>& neighbours) {
  std::vector<Signature> sig(g.op_count());
  neighbours.assign(g.op_count(), {});
  for (const Edge& e : g.edges) {
    const bool self = e.from == e.to;
    sig[e.from].out.emplace_back(self ? -1 : e.to, e.latency, e.distance, static_cast<int>(e.kind));
    if (!self) {
      sig[e.to].in.emplace_back(e.from, e.latency, e.distance, static_cast<int>(e.kind));
      neighbours[e.from].push_back(e.to);
      neighbours[e.to].push_back(e.from);
    }
  }
  for (Signature& x : sig) {
    std::sort(x.out.begin(), x.out.end());
    std::sort(x.in.begin(), x.in.end());
  }
  return sig;
}

}  // namespace

// Ops that differ in nothing but their names (gid aside, which no rule
// reads) and meet the same edges, none between them, can swap starts in any
// legal schedule: keeping them in id order loses nothing (docs/EXACT.md).
std::vector<std::pair<OpId, OpId>> interchangeable_pairs(const Graph& g) {
  std::vector<std::vector<OpId>> neighbours;
  const std::vector<Signature> sig = signatures(g, neighbours);
  auto same_op = [&](OpId u, OpId v) {
    Op a = g.ops[u], b = g.ops[v];
    a.name = b.name;
    a.gid = b.gid;
    return a == b;
  };
  std::vector<std::pair<OpId, OpId>> pairs;
  // Chain each op to the latest earlier op it can swap with.
  for (OpId v = 0; v < g.op_count(); ++v) {
    for (OpId u = v - 1; u >= 0; --u) {
      if (!same_op(u, v) || sig[u].out != sig[v].out || sig[u].in != sig[v].in) continue;
      if (std::find(neighbours[v].begin(), neighbours[v].end(), u) != neighbours[v].end()) continue;
      pairs.emplace_back(u, v);
      break;
    }
  }
  return pairs;
}

ModuloHolds split_modulo(const std::vector<Hold>& holds, int64_t ii, int64_t capacity) {
  ModuloHolds m;
  for (const Hold& h : holds) {
    if (h.duration <= 0 || h.amount <= 0) continue;
    m.base += h.amount * (h.duration / ii);
    if (h.duration % ii != 0) {
      m.arcs.push_back({h.op, h.duration % ii, h.amount});
      m.arcs_total += h.amount;
    }
    if (m.base > capacity) {
      m.over = true;
      return m;
    }
  }
  return m;
}

std::vector<CapacityHolds> capacity_holds(const Graph& g) {
  std::vector<CapacityHolds> slots(g.target.slot_count()), pools(g.target.pools.size());
  for (OpId v = 0; v < g.op_count(); ++v) {
    for (const Triple& t : g.ops[v].resources) {
      if (t.duration > 0 && t.occupancy > 0) {
        slots[t.slot - 1].holds.push_back({v, t.duration, t.occupancy});
      }
    }
    for (const PoolUse& p : g.ops[v].pools) {  // rate pools hold for D_v
      if (p.count > 0) pools[p.pool].holds.push_back({v, footprint_duration(g.ops[v]), p.count});
    }
  }
  std::vector<CapacityHolds> out;
  for (size_t j = 0; j < slots.size(); ++j) {
    if (slots[j].holds.empty()) continue;
    slots[j].capacity = g.target.slots[j].capacity;
    out.push_back(std::move(slots[j]));
  }
  for (size_t p = 0; p < pools.size(); ++p) {
    if (g.target.pools[p].kind != PoolKind::kRate || pools[p].holds.empty()) continue;
    pools[p].capacity = g.target.pools[p].capacity;
    pools[p].slot = false;
    out.push_back(std::move(pools[p]));
  }
  return out;
}

int64_t latest_start(const Graph& g, const ModelSpec& spec, OpId v) {
  const int64_t ii = spec.ii;
  const int64_t horizon =
      std::min(limits::kMaxStart, ii * std::min(spec.stage_bound + 1, limits::kMaxStart / ii) - 1);
  const Op& op = g.ops[v];
  int64_t hi = horizon - spec.tail[v];
  if (op.max_depth) hi = std::min(hi, ii * (*op.max_depth + 1) - 1);  // L6
  if (g.attrs.force_serial_execution) {  // L7: stage 0 and s_v + D_v <= II
    hi = std::min(hi, ii - footprint_duration(op));
  }
  return hi;
}

std::vector<std::pair<OpId, OpId>> leader_group_pairs(const Graph& g) {
  std::vector<std::pair<int64_t, OpId>> members;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].leader_gid) members.push_back({*g.ops[v].leader_gid, v});
  }
  std::sort(members.begin(), members.end());
  std::vector<std::pair<OpId, OpId>> pairs;
  for (size_t i = 1; i < members.size(); ++i) {
    if (members[i].first == members[i - 1].first) {
      pairs.push_back({members[i - 1].second, members[i].second});
    }
  }
  return pairs;
}

}  // namespace tilesched::exact_internal
