// The exact oracle's per-II model: L1-L7 over integer stages and rows
// (docs/EXACT.md, "Formulation", states each encoding and why it is exact).
#include "model.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <string>

#include "tilesched/limits.h"

namespace tilesched::exact_internal {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// Z3's default solver puts a tactic pipeline (preprocessing, probes) in
// front of its SMT core, which costs about 5 ms per check whatever the
// model's size; the plain SMT core ("simple") starts at once. Measured with
// exact_bench and the fuzz_differential corpus (docs/EXACT.md, "Solver"):
// up to 16 ops the plain core is faster (half the time on 8-op graphs), above
// that the preprocessing pays for itself (30-45 % faster on 17-64 ops).
constexpr int kPlainSolverMaxOps = 16;

z3::solver make_solver(z3::context& ctx, const Graph& g) {
  if (g.op_count() <= kPlainSolverMaxOps) return z3::solver(ctx, z3::solver::simple());
  return z3::solver(ctx);
}

}  // namespace

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

IiModel::IiModel(z3::context& ctx, const Graph& g, int64_t ii, int64_t stage_bound,
                 const std::vector<int64_t>& asap, const std::vector<int64_t>& tail,
                 unsigned random_seed, std::chrono::steady_clock::time_point deadline)
    : ctx_(ctx), g_(g), ii_(ii), deadline_(deadline), solver_(make_solver(ctx, g)) {
  z3::params p(ctx_);
  p.set("random_seed", random_seed);
  solver_.set(p);
  const int n = g.op_count();
  // The latest start any op needs (docs/EXACT.md), and the verifier's limit.
  const int64_t horizon =
      std::min(limits::kMaxStart, ii * std::min(stage_bound + 1, limits::kMaxStart / ii) - 1);
  for (OpId v = 0; v < n; ++v) {
    const std::string id = std::to_string(v);
    k_.push_back(ctx_.int_const(("k" + id).c_str()));
    r_.push_back(ctx_.int_const(("r" + id).c_str()));
    s_.push_back(ctx_.int_val(ii) * k_[v] + r_[v]);
    solver_.add(r_[v] >= 0 && r_[v] <= ctx_.int_val(ii - 1));
    solver_.add(k_[v] >= 0 && k_[v] <= ctx_.int_val(stage_bound));
    // ASAP/ALAP window: implied by L1 and the stage bound.
    solver_.add(s_[v] >= ctx_.int_val(asap[v]));
    solver_.add(s_[v] <= ctx_.int_val(horizon - tail[v]));
  }
  check_deadline();
  add_dependences();
  add_slots();
  add_rate_pools();
  add_storage();
  add_groups_depths_serial();
  // Symmetry: without groups, shifting every start down by the smallest
  // keeps a schedule legal (docs/EXACT.md), so some op starts at 0.
  const bool groups = std::any_of(g.ops.begin(), g.ops.end(),
                                  [](const Op& op) { return op.leader_gid.has_value(); });
  if (!groups && n > 0) {
    z3::expr_vector at_zero(ctx_);
    for (OpId v = 0; v < n; ++v) at_zero.push_back(s_[v] == 0);
    solver_.add(z3::mk_or(at_zero));
  }
  check_deadline();
  add_interchangeable_order();
}

void IiModel::check_deadline() const {
  if (std::chrono::steady_clock::now() >= deadline_) throw ModelDeadline{};
}

// Ops that differ in nothing but their names (gid aside, which no rule
// reads) and meet the same edges, none between them, can swap starts in any
// legal schedule: keeping them in id order loses nothing (docs/EXACT.md).
void IiModel::add_interchangeable_order() {
  // (other end, or -1 for a self-loop; latency; distance; kind)
  using EdgeKey = std::tuple<OpId, int64_t, int64_t, int>;
  struct Signature {
    std::vector<EdgeKey> out, in;
    bool operator<(const Signature& o) const { return std::tie(out, in) < std::tie(o.out, o.in); }
  };
  const int n = g_.op_count();
  std::vector<Signature> sig(n);
  std::vector<std::vector<OpId>> neighbours(n);
  for (const Edge& e : g_.edges) {
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
  auto same_op = [&](OpId u, OpId v) {
    Op a = g_.ops[u], b = g_.ops[v];
    a.name = b.name;
    a.gid = b.gid;
    return a == b;
  };
  // Chain each op to the latest earlier op it can swap with.
  for (OpId v = 0; v < n; ++v) {
    check_deadline();
    for (OpId u = v - 1; u >= 0; --u) {
      if (!same_op(u, v) || sig[u].out != sig[v].out || sig[u].in != sig[v].in) continue;
      if (std::find(neighbours[v].begin(), neighbours[v].end(), u) != neighbours[v].end()) continue;
      solver_.add(s_[u] <= s_[v]);
      break;
    }
  }
}

void IiModel::add_dependences() {
  for (const Edge& e : g_.edges) {
    solver_.add(s_[e.to] + ctx_.int_val(e.distance * ii_) >= s_[e.from] + ctx_.int_val(e.latency));
  }
}

void IiModel::add_singleton(const std::vector<Hold>& holds) {
  for (size_t a = 0; a < holds.size(); ++a) {
    check_deadline();
    if (holds[a].duration > ii_) {  // collides with itself
      solver_.add(ctx_.bool_val(false));
      return;
    }
    for (size_t b = a + 1; b < holds.size(); ++b) {
      const Hold& u = holds[a];
      const Hold& v = holds[b];
      if (u.duration + v.duration > ii_) {
        solver_.add(ctx_.bool_val(false));
        return;
      }
      const z3::expr& ru = r_[u.op];
      const z3::expr& rv = r_[v.op];
      const z3::expr du = ctx_.int_val(u.duration);
      const z3::expr dv = ctx_.int_val(v.duration);
      const z3::expr ii = ctx_.int_val(ii_);
      // The two modulo intervals [r, r + d) do not meet: one follows the
      // other, and wraps round no further than the other's start.
      solver_.add((ru + du <= rv && rv + dv <= ru + ii) || (rv + dv <= ru && ru + du <= rv + ii));
    }
  }
}

void IiModel::add_modulo_capacity(const std::vector<Hold>& holds, int64_t capacity) {
  // Full turns load every row alike; the partial arcs of duration mod II
  // rows are what varies. The load is largest at the first row of some
  // arc, so checking every arc's first row checks every row.
  int64_t base = 0;
  int64_t arcs_total = 0;
  std::vector<Hold> arcs;
  for (const Hold& h : holds) {
    if (h.duration <= 0 || h.amount <= 0) continue;
    base += h.amount * (h.duration / ii_);
    if (h.duration % ii_ != 0) {
      arcs.push_back({h.op, h.duration % ii_, h.amount});
      arcs_total += h.amount;
    }
    if (base > capacity) {
      solver_.add(ctx_.bool_val(false));
      return;
    }
  }
  if (base + arcs_total <= capacity) return;
  const z3::expr ii = ctx_.int_val(ii_);
  for (const Hold& u : arcs) {
    check_deadline();
    z3::expr load = ctx_.int_val(u.amount);
    for (const Hold& v : arcs) {
      if (v.op == u.op) continue;
      // Row r_u lies on v's arc: (r_u - r_v) mod II < p_v.
      const z3::expr diff = r_[u.op] - r_[v.op];
      const z3::expr covers = (diff >= 0 && diff <= ctx_.int_val(v.duration - 1)) ||
                              diff <= ctx_.int_val(v.duration - 1) - ii;
      load = load + z3::ite(covers, ctx_.int_val(v.amount), ctx_.int_val(0));
    }
    solver_.add(load <= ctx_.int_val(capacity - base));
  }
}

void IiModel::add_slots() {
  const int slots = g_.target.slot_count();
  std::vector<std::vector<Hold>> by_slot(slots);
  for (OpId v = 0; v < g_.op_count(); ++v) {
    for (const Triple& t : g_.ops[v].resources) {
      if (t.duration > 0 && t.occupancy > 0) {
        by_slot[t.slot - 1].push_back({v, t.duration, t.occupancy});
      }
    }
  }
  for (int j = 0; j < slots; ++j) {
    if (by_slot[j].empty()) continue;
    const int64_t capacity = g_.target.slots[j].capacity;
    const bool unit = std::all_of(by_slot[j].begin(), by_slot[j].end(),
                                  [](const Hold& h) { return h.amount == 1; });
    if (capacity == 1 && unit) {
      add_singleton(by_slot[j]);
    } else {
      add_modulo_capacity(by_slot[j], capacity);
    }
  }
}

void IiModel::add_rate_pools() {
  const int pools = static_cast<int>(g_.target.pools.size());
  std::vector<std::vector<Hold>> by_pool(pools);
  for (OpId v = 0; v < g_.op_count(); ++v) {
    for (const PoolUse& p : g_.ops[v].pools) {
      if (p.count > 0) by_pool[p.pool].push_back({v, footprint_duration(g_.ops[v]), p.count});
    }
  }
  for (int p = 0; p < pools; ++p) {
    if (g_.target.pools[p].kind != PoolKind::kRate || by_pool[p].empty()) continue;
    add_modulo_capacity(by_pool[p], g_.target.pools[p].capacity);
  }
}

void IiModel::add_storage() {
  const std::optional<int> pool = g_.target.storage_pool();
  if (!pool) return;
  // copies_v >= 1 and II * copies_v >= every data consumer's end minus
  // s_v: the least such copies_v is ceil(lifetime_v / II) exactly.
  z3::expr total = ctx_.int_val(0);
  bool any = false;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    const int64_t bytes = g_.ops[v].store_bytes;
    if (bytes <= 0) continue;
    any = true;
    const z3::expr copies = ctx_.int_const(("c" + std::to_string(v)).c_str());
    solver_.add(copies >= 1);
    for (const Edge& e : g_.edges) {
      if (e.from != v || e.kind != EdgeKind::kData) continue;
      const int64_t extra = e.distance * ii_ + footprint_duration(g_.ops[e.to]);
      solver_.add(ctx_.int_val(ii_) * copies >= s_[e.to] + ctx_.int_val(extra) - s_[v]);
    }
    total = total + ctx_.int_val(bytes) * copies;
  }
  if (any) solver_.add(total <= ctx_.int_val(g_.target.pools[*pool].capacity));
}

void IiModel::add_groups_depths_serial() {
  std::vector<std::pair<int64_t, OpId>> members;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    const Op& op = g_.ops[v];
    if (op.leader_gid) members.push_back({*op.leader_gid, v});
    if (op.max_depth) solver_.add(k_[v] <= ctx_.int_val(*op.max_depth));  // L6
    if (g_.attrs.force_serial_execution) {  // L7: stage 0, II >= makespan
      solver_.add(k_[v] == 0);
      solver_.add(r_[v] + ctx_.int_val(footprint_duration(op)) <= ctx_.int_val(ii_));
    }
  }
  std::sort(members.begin(), members.end());
  for (size_t i = 1; i < members.size(); ++i) {  // L5: a group shares one stage
    if (members[i].first == members[i - 1].first) {
      solver_.add(k_[members[i].second] == k_[members[i - 1].second]);
    }
  }
}

z3::check_result IiModel::check(std::chrono::steady_clock::time_point until, int64_t rlimit) {
  z3::params p(ctx_);
  // Z3 counts the limit from where this check starts; 0 is none.
  p.set("rlimit", static_cast<unsigned>(std::clamp<int64_t>(rlimit, 0, UINT32_MAX)));
  solver_.set(p);
  try {
    return solver_.check();
  } catch (const z3::exception&) {
    // The watchdog's interrupt ("canceled") ends a check at its limit.
    if (std::chrono::steady_clock::now() >= until) return z3::unknown;
    throw;
  }
}

int64_t IiModel::resources_used() const {
  const z3::stats st = solver_.statistics();
  for (unsigned i = 0; i < st.size(); ++i) {
    if (st.key(i) == "rlimit count") {
      return st.is_uint(i) ? int64_t{st.uint_value(i)} : static_cast<int64_t>(st.double_value(i));
    }
  }
  return 0;
}

std::vector<int64_t> IiModel::starts() const {
  const z3::model m = solver_.get_model();
  std::vector<int64_t> out;
  out.reserve(s_.size());
  for (const z3::expr& s : s_) out.push_back(m.eval(s, true).get_numeral_int64());
  return out;
}

void IiModel::limit_start_sum(int64_t t) {
  z3::expr sum = ctx_.int_val(0);
  for (const z3::expr& s : s_) sum = sum + s;
  solver_.add(sum <= ctx_.int_val(t));
}

}  // namespace tilesched::exact_internal
