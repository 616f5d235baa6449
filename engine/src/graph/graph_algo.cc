// Kahn's walk over the distance-0 edges, strongly connected components
// (Tarjan, iterative) and longest in-iteration paths over the condensation.
#include "graph_algo.h"

#include <algorithm>
#include <string>

namespace tilesched {

namespace {

bool keeps(EdgeFilter filter, const Edge& e) {
  return filter == EdgeFilter::kAll || e.distance == 0;
}

}  // namespace

std::vector<OpId> zero_distance_walk(const Graph& g, const Adjacency& adj) {
  const int n = g.op_count();
  std::vector<int> by_id(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) by_id[v] = v;
  return kahn_walk(n, by_id, [&](int v, auto&& visit) {
    for (int p = adj.out_begin[v]; p < adj.out_begin[v + 1]; ++p) {
      const Edge& e = g.edges[adj.out_edges[p]];
      if (e.distance == 0) visit(e.to);
    }
  });
}

Components strongly_connected(const Graph& g, const Adjacency& adj, EdgeFilter filter) {
  const int n = g.op_count();
  constexpr int kUnvisited = -1;
  Components out;
  out.component.assign(n, 0);
  std::vector<int> index(n, kUnvisited), low(n, 0);
  std::vector<char> on_stack(n, 0);
  std::vector<int> stack;
  // Explicit DFS frames: (op, next position in its out-edge list).
  std::vector<std::pair<int, int>> frames;
  int next_index = 0;
  for (int root = 0; root < n; ++root) {
    if (index[root] != kUnvisited) continue;
    frames.push_back({root, adj.out_begin[root]});
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!frames.empty()) {
      auto& [v, pos] = frames.back();
      if (pos < adj.out_begin[v + 1]) {
        const Edge& e = g.edges[adj.out_edges[pos++]];
        if (!keeps(filter, e)) continue;
        const int w = e.to;
        if (index[w] == kUnvisited) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          on_stack[w] = 1;
          frames.push_back({w, adj.out_begin[w]});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const int done = v;
      frames.pop_back();
      if (!frames.empty()) {
        const int parent = frames.back().first;
        low[parent] = std::min(low[parent], low[done]);
      }
      if (low[done] == index[done]) {
        int w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          out.component[w] = out.count;
        } while (w != done);
        ++out.count;
      }
    }
  }
  return out;
}

std::optional<int> find_zero_distance_positive_cycle(const Graph& g, const Adjacency& adj) {
  const Components c = strongly_connected(g, adj, EdgeFilter::kZeroDistance);
  // Latencies are >= 0, so a zero-distance cycle is positive exactly when
  // one of its edges is; every edge inside a component lies on a cycle.
  for (int e = 0; e < g.edge_count(); ++e) {
    const Edge& edge = g.edges[e];
    if (edge.distance == 0 && edge.latency > 0 &&
        c.component[edge.from] == c.component[edge.to]) {
      return e;
    }
  }
  return std::nullopt;
}

ComponentMembers component_members(const Components& c) {
  ComponentMembers out;
  out.begin.assign(static_cast<size_t>(c.count) + 1, 0);
  for (int comp : c.component) ++out.begin[comp + 1];
  for (int k = 0; k < c.count; ++k) out.begin[k + 1] += out.begin[k];
  out.members.resize(c.component.size());
  std::vector<int> fill(out.begin.begin(), out.begin.end() - 1);
  for (OpId v = 0; v < static_cast<OpId>(c.component.size()); ++v) {
    out.members[fill[c.component[v]]++] = v;
  }
  return out;
}

bool any_max_depth(const Graph& g) {
  return std::any_of(g.ops.begin(), g.ops.end(), [](const Op& op) { return op.max_depth.has_value(); });
}

std::vector<int64_t> longest_zero_distance_paths(const Graph& g, const Adjacency& adj) {
  const int n = g.op_count();
  const Components c = strongly_connected(g, adj, EdgeFilter::kZeroDistance);
  // Bucket ops by component; Tarjan numbers sinks first, so descending
  // component ids visit the condensation in topological order.
  std::vector<int> begin(c.count + 1, 0), members(n);
  for (int v = 0; v < n; ++v) ++begin[c.component[v] + 1];
  for (int k = 0; k < c.count; ++k) begin[k + 1] += begin[k];
  std::vector<int> fill(begin.begin(), begin.end() - 1);
  for (int v = 0; v < n; ++v) members[fill[c.component[v]]++] = v;

  std::vector<int64_t> comp_lp(c.count, 0);
  for (int k = c.count - 1; k >= 0; --k) {
    int64_t best = 0;
    for (int i = begin[k]; i < begin[k + 1]; ++i) {
      const int v = members[i];
      for (int p = adj.in_begin[v]; p < adj.in_begin[v + 1]; ++p) {
        const Edge& e = g.edges[adj.in_edges[p]];
        if (e.distance != 0 || c.component[e.from] == k) continue;  // internal: latency 0
        best = std::max(best, comp_lp[c.component[e.from]] + e.latency);
      }
    }
    comp_lp[k] = best;
  }
  std::vector<int64_t> lp(n);
  for (int v = 0; v < n; ++v) lp[v] = comp_lp[c.component[v]];
  return lp;
}

LeaderGroups find_leader_groups(const Graph& g) {
  LeaderGroups out;
  out.group_of.assign(g.ops.size(), LeaderGroups::kNone);
  std::vector<int64_t> leaders;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (!g.ops[v].leader_gid) continue;
    auto it = std::find(leaders.begin(), leaders.end(), *g.ops[v].leader_gid);
    if (it == leaders.end()) {
      leaders.push_back(*g.ops[v].leader_gid);
      out.members.emplace_back();
      it = leaders.end() - 1;
    }
    const int group = static_cast<int>(it - leaders.begin());
    out.group_of[v] = group;
    out.members[group].push_back(v);
  }
  return out;
}

// Longest distance-0 paths from each member over the distance-0
// condensation. Inside a distance-0 component every edge has latency 0
// (validate_graph refuses a positive one), so a component is one value.
int64_t group_span_bound(const Graph& g, const Adjacency& adj,
                         const std::vector<std::vector<OpId>>& members) {
  int64_t bound = 1;
  if (std::none_of(members.begin(), members.end(),
                   [](const std::vector<OpId>& m) { return m.size() > 1; })) {
    return bound;
  }
  const Components zero = strongly_connected(g, adj, EdgeFilter::kZeroDistance);
  const ComponentMembers members_of = component_members(zero);
  constexpr int64_t kUnreached = INT64_MIN;
  std::vector<int64_t> reach(zero.count);
  for (const std::vector<OpId>& group : members) {
    if (group.size() < 2) continue;
    for (OpId source : group) {
      std::fill(reach.begin(), reach.end(), kUnreached);
      reach[zero.component[source]] = 0;
      for (int c = zero.component[source]; c >= 0; --c) {  // topological: ids descend
        if (reach[c] == kUnreached) continue;
        for (OpId u : members_of.of(c)) {
          for (int p = adj.out_begin[u]; p < adj.out_begin[u + 1]; ++p) {
            const Edge& e = g.edges[adj.out_edges[p]];
            const int d = zero.component[e.to];
            if (e.distance == 0 && d != c) reach[d] = std::max(reach[d], reach[c] + e.latency);
          }
        }
      }
      for (OpId v : group) {
        const int64_t r = reach[zero.component[v]];
        if (v != source && r != kUnreached) bound = std::max(bound, r + 1);
      }
    }
  }
  return bound;
}

int64_t exclusive_holds_bound(const Graph& g) {
  const size_t slots = static_cast<size_t>(g.target.slot_count());
  std::vector<int64_t> sum(slots + g.target.pools.size(), 0);  // slots, then pools
  std::vector<int64_t> longest(sum.size());
  for (const Op& op : g.ops) {
    std::fill(longest.begin(), longest.end(), 0);
    for (const Triple& t : op.resources) {
      const size_t j = static_cast<size_t>(t.slot - 1);
      if (2 * t.occupancy > g.target.slots[j].capacity) {
        longest[j] = std::max(longest[j], t.duration);
      }
    }
    for (const PoolUse& u : op.pools) {
      const Pool& pool = g.target.pools[u.pool];
      if (pool.kind == PoolKind::kRate && 2 * u.count > pool.capacity) {
        longest[slots + u.pool] = footprint_duration(op);
      }
    }
    for (size_t j = 0; j < sum.size(); ++j) sum[j] += longest[j];
  }
  int64_t bound = 1;
  for (int64_t s : sum) bound = std::max(bound, s);
  return bound;
}


namespace {

// One slot's or rate pool's load at a component's common start.
struct SharedLoad {
  int64_t units = 0;
  std::vector<OpId> holders;
};

std::string forced_conflict_message(const Graph& g, const SharedLoad& load,
                                    const std::string& what, int64_t capacity) {
  std::string ops;
  for (size_t i = 0; i < load.holders.size(); ++i) {
    ops += (i == 0 ? "" : i + 1 == load.holders.size() ? " and " : ", ") +
           g.ops[load.holders[i]].name;
  }
  return "ops " + ops + " start in the same cycle at every II (a zero-latency " +
         "zero-distance cycle) and there hold " + std::to_string(load.units) + " units of " +
         what + " (capacity " + std::to_string(capacity) + "): no II can schedule them";
}

}  // namespace

std::optional<std::string> forced_together_conflict(const Graph& g, const Adjacency& adj) {
  const Components c = strongly_connected(g, adj, EdgeFilter::kZeroDistance);
  if (c.count == g.op_count()) return std::nullopt;  // every component a lone op
  const ComponentMembers members = component_members(c);
  // Per component, the load of every slot and rate pool at the common
  // start; a component of one op cannot conflict with itself.
  const int slots = g.target.slot_count();
  std::vector<SharedLoad> load(static_cast<size_t>(slots) + g.target.pools.size());
  for (int k = c.count - 1; k >= 0; --k) {
    if (members.of(k).size() < 2) continue;
    for (SharedLoad& l : load) l = SharedLoad{};
    for (OpId v : members.of(k)) {
      const Op& op = g.ops[v];
      for (const Triple& tr : op.resources) {
        if (tr.duration <= 0) continue;
        load[tr.slot - 1].units += tr.occupancy;
        load[tr.slot - 1].holders.push_back(v);
      }
      for (const PoolUse& use : op.pools) {
        load[slots + use.pool].units += use.count;
        load[slots + use.pool].holders.push_back(v);
      }
    }
    for (int s = 1; s <= slots; ++s) {
      const Slot& slot = g.target.slot(s);
      if (load[s - 1].units > slot.capacity) {
        return forced_conflict_message(g, load[s - 1], "slot " + slot.name, slot.capacity);
      }
    }
    for (size_t p = 0; p < g.target.pools.size(); ++p) {
      const Pool& pool = g.target.pools[p];
      if (pool.kind == PoolKind::kRate && load[slots + p].units > pool.capacity) {
        return forced_conflict_message(g, load[slots + p], "pool " + pool.name, pool.capacity);
      }
    }
  }
  return std::nullopt;
}

}  // namespace tilesched
