// Independent checkers of the contract's rules (see checkers.h). Written from
// the definitions, cycle by cycle, without the engine's verifier, RRT,
// storage model or materializer.
#include "checkers.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "tilesched/agents.h"

namespace tilesched::props {

namespace {

// D_v, the footprint duration: the longest triple, at least 1. Our own copy.
int64_t own_footprint(const Op& op) {
  int64_t d = 1;
  for (const Triple& t : op.resources) d = std::max(d, t.duration);
  return d;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string ops_named(const Graph& g, const std::vector<OpId>& ops) {
  std::string out;
  for (size_t i = 0; i < ops.size() && i < 6; ++i) out += (i ? "," : "") + g.ops[ops[i]].name;
  if (ops.size() > 6) out += ",...";
  return out;
}

// A modulo table rebuilt cycle by cycle: (resource, row) -> load and claimants.
class RowTable {
 public:
  void add(int resource, int64_t row, int64_t units, OpId v) {
    auto& cell = cells_[{resource, row}];
    cell.first += units;
    cell.second.push_back(v);
  }
  template <typename Capacity, typename Name>
  void report(const Graph& g, int64_t ii, Capacity capacity, Name name, Problems& out) const {
    for (const auto& [key, cell] : cells_) {
      const int64_t cap = capacity(key.first);
      if (cell.first > cap)
        out.push_back(name(key.first) + " row " + std::to_string(key.second) + " of II " +
                      std::to_string(ii) + " holds " + std::to_string(cell.first) + " > " +
                      std::to_string(cap) + " (" + ops_named(g, cell.second) + ")");
    }
  }

 private:
  std::map<std::pair<int, int64_t>, std::pair<int64_t, std::vector<OpId>>> cells_;
};

}  // namespace

std::string join(const Problems& p, size_t limit) {
  std::string out;
  for (size_t i = 0; i < p.size() && i < limit; ++i) out += "\n  " + p[i];
  if (p.size() > limit) out += "\n  ... and " + std::to_string(p.size() - limit) + " more";
  return out;
}

Problems check_shape(const Graph& g, const Schedule& s) {
  Problems out;
  if (s.ii < 1) out.push_back("II " + std::to_string(s.ii) + " < 1");
  if (s.start.size() != g.ops.size()) {
    out.push_back("start has " + std::to_string(s.start.size()) + " entries for " +
                  std::to_string(g.op_count()) + " ops");
    return out;
  }
  for (OpId v = 0; v < g.op_count(); ++v)
    if (s.start[v] < 0) out.push_back("op " + g.ops[v].name + " starts at a negative cycle");
  return out;
}

Problems check_dependences(const Graph& g, const Schedule& s) {
  Problems out;
  for (const Edge& e : g.edges) {
    const int64_t lhs = s.start[e.to] + e.distance * s.ii;
    const int64_t rhs = s.start[e.from] + e.latency;
    if (lhs < rhs)
      out.push_back("edge " + g.ops[e.from].name + " -> " + g.ops[e.to].name + " (latency " +
                    std::to_string(e.latency) + ", distance " + std::to_string(e.distance) +
                    "): " + std::to_string(s.start[e.to]) + " + " + std::to_string(e.distance) +
                    "*" + std::to_string(s.ii) + " < " + std::to_string(s.start[e.from]) + " + " +
                    std::to_string(e.latency));
  }
  return out;
}

Problems check_slots(const Graph& g, const Schedule& s) {
  RowTable table;
  for (OpId v = 0; v < g.op_count(); ++v)
    for (const Triple& t : g.ops[v].resources)
      for (int64_t k = 0; k < t.duration; ++k)
        table.add(t.slot, (s.start[v] + k) % s.ii, t.occupancy, v);
  Problems out;
  table.report(
      g, s.ii, [&](int slot) { return g.target.slots[slot - 1].capacity; },
      [&](int slot) { return "slot " + std::to_string(slot) + " (" + g.target.slots[slot - 1].name + ")"; },
      out);
  return out;
}

Problems check_rate_pools(const Graph& g, const Schedule& s) {
  RowTable table;
  for (OpId v = 0; v < g.op_count(); ++v) {
    const int64_t d = own_footprint(g.ops[v]);
    for (const PoolUse& u : g.ops[v].pools) {
      if (g.target.pools[u.pool].kind != PoolKind::kRate) continue;
      for (int64_t k = 0; k < d; ++k) table.add(u.pool, (s.start[v] + k) % s.ii, u.count, v);
    }
  }
  Problems out;
  table.report(
      g, s.ii, [&](int p) { return g.target.pools[p].capacity; },
      [&](int p) { return "rate pool " + g.target.pools[p].name; }, out);
  return out;
}

Problems check_storage(const Graph& g, const Schedule& s) {
  Problems out;
  for (size_t p = 0; p < g.target.pools.size(); ++p) {
    const Pool& pool = g.target.pools[p];
    if (pool.kind != PoolKind::kStorage) continue;
    int64_t total = 0;
    std::string terms;
    for (OpId v = 0; v < g.op_count(); ++v) {
      if (g.ops[v].store_bytes == 0) continue;
      int64_t lifetime = 1;
      for (const Edge& e : g.edges) {
        if (e.from != v || e.kind != EdgeKind::kData) continue;
        lifetime = std::max(lifetime, s.start[e.to] + e.distance * s.ii +
                                          own_footprint(g.ops[e.to]) - s.start[v]);
      }
      const int64_t copies = ceil_div(lifetime, s.ii);
      if (g.ops[v].store_bytes > (pool.capacity - total) / copies) {  // no overflow
        total = pool.capacity + 1;
        terms += " " + g.ops[v].name + ":" + std::to_string(g.ops[v].store_bytes) + "x" +
                 std::to_string(copies);
        break;
      }
      total += g.ops[v].store_bytes * copies;
      terms += " " + g.ops[v].name + ":" + std::to_string(g.ops[v].store_bytes) + "x" +
               std::to_string(copies);
      if (total > pool.capacity) break;
    }
    if (total > pool.capacity)
      out.push_back("storage pool " + pool.name + " at II " + std::to_string(s.ii) + ": " +
                    std::to_string(total) + " B > " + std::to_string(pool.capacity) + " B;" +
                    terms);
  }
  return out;
}

Problems check_groups(const Graph& g, const Schedule& s) {
  std::map<int64_t, std::set<int64_t>> stages;  // leader_gid -> stages its ops are in
  std::map<int64_t, std::vector<OpId>> members;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (!g.ops[v].leader_gid) continue;
    stages[*g.ops[v].leader_gid].insert(s.start[v] / s.ii);
    members[*g.ops[v].leader_gid].push_back(v);
  }
  Problems out;
  for (const auto& [gid, st] : stages)
    if (st.size() > 1)
      out.push_back("leader_gid " + std::to_string(gid) + " spans " + std::to_string(st.size()) +
                    " stages (" + ops_named(g, members[gid]) + ")");
  return out;
}

Problems check_max_depth(const Graph& g, const Schedule& s) {
  Problems out;
  for (OpId v = 0; v < g.op_count(); ++v)
    if (g.ops[v].max_depth && s.start[v] / s.ii > *g.ops[v].max_depth)
      out.push_back("op " + g.ops[v].name + " in stage " + std::to_string(s.start[v] / s.ii) +
                    " > max_depth " + std::to_string(*g.ops[v].max_depth));
  return out;
}

Problems check_forced_serial(const Graph& g, const Schedule& s) {
  Problems out;
  if (!g.attrs.force_serial_execution) return out;
  int64_t makespan = 0;
  for (OpId v = 0; v < g.op_count(); ++v) {
    makespan = std::max(makespan, s.start[v] + own_footprint(g.ops[v]));
    if (s.start[v] >= s.ii)
      out.push_back("force_serial: op " + g.ops[v].name + " not in stage 0");
  }
  if (s.ii < makespan)
    out.push_back("force_serial: II " + std::to_string(s.ii) + " < makespan " +
                  std::to_string(makespan));
  return out;
}

Problems check_stage_order(const Graph& g, const Schedule& s) {
  Problems out;
  const int n = g.op_count();
  if (s.stage.size() != s.start.size() || s.order.size() != s.start.size()) {
    out.push_back("stage/order vectors do not have one entry per op");
    return out;
  }
  // Own derivation: sort by (start, id); rank restarts at each stage.
  std::vector<OpId> by_start(n);
  for (OpId v = 0; v < n; ++v) by_start[v] = v;
  std::sort(by_start.begin(), by_start.end(), [&](OpId a, OpId b) {
    return std::make_pair(s.start[a], a) < std::make_pair(s.start[b], b);
  });
  std::map<int64_t, int64_t> next_rank;
  int64_t max_stage = -1;
  for (OpId v : by_start) {
    const int64_t stage = s.start[v] / s.ii;
    const int64_t order = next_rank[stage]++;
    max_stage = std::max(max_stage, stage);
    if (s.stage[v] != stage || s.order[v] != order)
      out.push_back("op " + g.ops[v].name + " (start " + std::to_string(s.start[v]) +
                    ") records (stage " + std::to_string(s.stage[v]) + ", order " +
                    std::to_string(s.order[v]) + "), expected (" + std::to_string(stage) + ", " +
                    std::to_string(order) + ")");
  }
  if (s.stage_count != max_stage + 1)
    out.push_back("stage_count " + std::to_string(s.stage_count) + ", expected " +
                  std::to_string(max_stage + 1));
  // Totality straight from the recorded values as well.
  std::set<std::pair<int64_t, int64_t>> seen;
  for (OpId v = 0; v < n; ++v)
    if (!seen.insert({s.stage[v], s.order[v]}).second)
      out.push_back("(stage, order) of op " + g.ops[v].name + " is not unique");
  for (OpId u = 0; u < n; ++u)
    for (OpId v = 0; v < n; ++v)
      if (s.stage[u] == s.stage[v] && s.start[u] < s.start[v] && s.order[u] > s.order[v]) {
        out.push_back("order of " + g.ops[u].name + " and " + g.ops[v].name +
                      " disagrees with their starts");
        return out;
      }
  return out;
}

Problems check_legal(const Graph& g, const Schedule& s) {
  Problems out = check_shape(g, s);
  if (!out.empty()) return out;
  for (auto* check : {check_dependences, check_slots, check_rate_pools, check_storage,
                      check_groups, check_max_depth, check_forced_serial, check_stage_order}) {
    Problems p = check(g, s);
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

// ------------------------------------------------------------- bounds

bool has_positive_cycle(const Graph& g, int64_t ii) {
  // Longest paths from a virtual source joined to every op by weight 0;
  // still relaxing after n rounds means a positive cycle.
  const int n = g.op_count();
  std::vector<int64_t> dist(n, 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const Edge& e : g.edges) {
      const int64_t w = e.latency - ii * e.distance;
      if (dist[e.from] + w > dist[e.to]) {
        dist[e.to] = dist[e.from] + w;
        changed = true;
      }
    }
    if (!changed) return false;
  }
  return true;
}

MiiBounds own_mii(const Graph& g) {
  MiiBounds b;
  const Target& t = g.target;
  // ResMII and FineMII.
  std::vector<int64_t> slot_sum(t.slot_count() + 1, 0);
  std::vector<int64_t> pool_sum(t.pools.size(), 0);
  for (const Op& op : g.ops) {
    for (const Triple& tr : op.resources) slot_sum[tr.slot] += tr.occupancy * tr.duration;
    for (const PoolUse& u : op.pools) pool_sum[u.pool] += u.count * own_footprint(op);
  }
  for (int j = 1; j <= t.slot_count(); ++j) {
    const int64_t cap = t.slots[j - 1].capacity;
    if (cap == 1) b.resource = std::max(b.resource, slot_sum[j]);
    else b.fine_density = std::max(b.fine_density, ceil_div(slot_sum[j], cap));
  }
  for (size_t p = 0; p < t.pools.size(); ++p)
    if (t.pools[p].kind == PoolKind::kRate)
      b.fine_density = std::max(b.fine_density, ceil_div(pool_sum[p], t.pools[p].capacity));
  // RecMII: the smallest II >= 1 without a positive cycle (monotone in II).
  int64_t lo = 1, hi = 1;
  for (const Edge& e : g.edges) hi += e.latency;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (has_positive_cycle(g, mid)) lo = mid + 1;
    else hi = mid;
  }
  b.recurrence = lo;
  // DepMII: LP_v, the longest distance-0 path ending at v (from 0).
  const int n = g.op_count();
  std::vector<int64_t> lp(n, 0);
  for (int round = 0; round <= n; ++round) {
    bool changed = false;
    for (const Edge& e : g.edges)
      if (e.distance == 0 && lp[e.from] + e.latency > lp[e.to]) {
        lp[e.to] = lp[e.from] + e.latency;
        changed = true;
      }
    if (!changed) break;
  }
  for (OpId v = 0; v < n; ++v)
    if (g.ops[v].max_depth)
      b.dependency = std::max(b.dependency, ceil_div(lp[v] + 1, *g.ops[v].max_depth + 1));
  return b;
}

// ------------------------------------------------------- materialization

namespace {

bool own_is_async(const Graph& g, OpId v) {
  for (const OpKind& k : g.target.kinds)
    if (k.name == g.ops[v].kind) return k.async || k.tma || k.wgmma;
  return false;
}

// (stage, order), the region position the materialization rules compare.
std::pair<int64_t, int64_t> position(const Schedule& s, OpId v) {
  return {s.stage[v], s.order[v]};
}

// A data edge's value exists where its consumer runs.
bool live_edge(const Schedule& s, const Edge& e) {
  return e.distance > 0 || (e.from != e.to && position(s, e.from) < position(s, e.to));
}

// Nothing crosses agents (warp roles) but through a pipe.
bool pipe_needed(const Graph& g, const Schedule& s, const AgentAssignment& a, const Edge& e) {
  return own_is_async(g, e.from) || s.stage[e.from] != s.stage[e.to] || e.distance > 0 ||
         !live_edge(s, e) || a.of_op[e.from] != a.of_op[e.to];
}

// A pipe carries every live data edge from its producers to its consumer
// (every non-live one for the fallback, which has no producers).
bool pipe_carries(const Schedule& s, const Pipe& p, const Edge& e) {
  if (e.kind != EdgeKind::kData || e.to != p.consumer) return false;
  const bool has = std::find(p.producers.begin(), p.producers.end(), e.from) != p.producers.end();
  return p.producers.empty() ? !live_edge(s, e) : has && live_edge(s, e);
}

// Each data edge that needs a pipe has exactly one; each order edge one mutex.
void check_edge_carriers(const Graph& g, const Schedule& s, const AgentAssignment& a,
                         Problems& out) {
  for (const Edge& e : g.edges) {
    const std::string name = g.ops[e.from].name + " -> " + g.ops[e.to].name;
    int carriers = 0;
    if (e.kind == EdgeKind::kData) {
      for (const Pipe& p : s.pipes) carriers += pipe_carries(s, p, e) ? 1 : 0;
      if (pipe_needed(g, s, a, e) && carriers != 1)
        out.push_back("data edge " + name + " needs a pipe; " + std::to_string(carriers) +
                      " carry it");
    } else {
      for (const Mutex& m : s.mutexes)
        if (m.releaser == e.from && m.acquirer == e.to) ++carriers;
      if (carriers != 1)
        out.push_back("order edge " + name + " needs one mutex; " + std::to_string(carriers) +
                      " carry it");
    }
  }
}

// A pipe carries an edge that needs one, is owned by its earliest producer
// and is as deep as its deepest live edge.
void check_pipe_post(const Graph& g, const Schedule& s, const AgentAssignment& a, const Pipe& p,
                     Problems& out) {
  bool needed = false;
  int64_t depth = 1;
  for (const Edge& e : g.edges) {
    if (!pipe_carries(s, p, e)) continue;
    needed = needed || pipe_needed(g, s, a, e);
    if (!p.producers.empty())
      depth = std::max(depth, s.stage[e.to] - s.stage[e.from] + e.distance + 1);
  }
  if (!needed) out.push_back(p.id + " carries no edge that needs a pipe");
  OpId owner = p.producers.empty() ? p.consumer : p.producers.front();
  for (OpId u : p.producers)
    if (position(s, u) < position(s, owner)) owner = u;
  if (p.owner != owner)
    out.push_back(p.id + ": owner " + g.ops[p.owner].name + ", earliest is " + g.ops[owner].name);
  if (p.depth != depth)
    out.push_back(p.id + ": depth " + std::to_string(p.depth) + ", expected " +
                  std::to_string(depth));
  // One producer agent and one consumer agent, the ones it records.
  const std::string& consumer = a.name_of(p.consumer);
  if (p.consumer_agent != consumer)
    out.push_back(p.id + ": consumer agent " + p.consumer_agent + ", expected " + consumer);
  for (OpId u : p.producers)
    if (a.name_of(u) != p.producer_agent)
      out.push_back(p.id + ": producer " + g.ops[u].name + " runs in " + a.name_of(u) +
                    ", the pipe records " + p.producer_agent);
  if (p.producers.empty() && p.producer_agent != consumer)
    out.push_back(p.id + ": a consumer-only pipe records producer agent " + p.producer_agent);
}

// Every op runs in its graph-given agent, and the schedule says so.
void check_op_agents(const Graph& g, const Schedule& s, const AgentAssignment& a, Problems& out) {
  if (s.agents.size() != g.ops.size()) {
    out.push_back("the schedule names " + std::to_string(s.agents.size()) + " op agents for " +
                  std::to_string(g.ops.size()) + " ops");
    return;
  }
  for (OpId v = 0; v < g.op_count(); ++v)
    if (s.agents[v] != a.name_of(v))
      out.push_back(g.ops[v].name + " in agent " + s.agents[v] + ", expected " + a.name_of(v));
}

void check_mutex_post(const Graph& g, const Schedule& s, const Mutex& m, Problems& out) {
  const OpId owner = position(s, m.acquirer) < position(s, m.releaser) ? m.acquirer : m.releaser;
  if (m.owner != owner)
    out.push_back(m.id + ": owner " + g.ops[m.owner].name + ", earliest is " + g.ops[owner].name);
  int64_t depth = 1;
  for (const Edge& e : g.edges)
    if (e.kind == EdgeKind::kOrder && e.from == m.releaser && e.to == m.acquirer)
      depth = std::max(depth, s.stage[e.to] - s.stage[e.from] + e.distance + 1);
  if (m.depth != depth)
    out.push_back(m.id + ": depth " + std::to_string(m.depth) + ", expected " +
                  std::to_string(depth));
}

}  // namespace

Problems check_materialization_post(const Graph& g, const Schedule& s) {
  Problems out;
  const AgentAssignment a = assign_agents(g);
  check_edge_carriers(g, s, a, out);
  check_op_agents(g, s, a, out);
  for (const Pipe& p : s.pipes) check_pipe_post(g, s, a, p, out);
  for (const Mutex& m : s.mutexes) check_mutex_post(g, s, m, out);
  return out;
}

}  // namespace tilesched::props
