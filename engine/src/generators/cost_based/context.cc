// The per-graph facts of the cost-based generator and the effort levels'
// budgets (see context.h).
#include "context.h"

#include <algorithm>
#include <numeric>

#include "graph/graph_algo.h"

namespace tilesched::cost_based {

Context::Context(const Graph& graph, const CostBasedOptions& options, const MiiBounds& bounds)
    : g(graph), opts(options), adj(Adjacency::build(graph)), mii(bounds) {
  lower_footprints();
  depth = longest_zero_distance_paths(g, adj);
  rank_topologically();
  compute_heights();
  find_leader_groups();
  group_span_bound = tilesched::group_span_bound(g, adj, group_members);
  read_register_footprints();
  read_bank_model();
  if (std::optional<int> sp = g.target.storage_pool()) max_storage = g.target.pools[*sp].capacity;
}

// Per-op RRT footprints and the singleton slots each claims.
void Context::lower_footprints() {
  const int n = g.op_count();
  nodes.reserve(n);
  for (const Op& op : g.ops) nodes.push_back(NodeRrt::lower(op, g.target));
  singleton_mask.assign(n, 0);
  for (OpId v = 0; v < n; ++v) {
    for (uint64_t row : nodes[v].rows) singleton_mask[v] |= row;
  }
}

// Kahn over the distance-0 condensation, lowest program index first (the
// serial generator's tie-break); members of a component by id.
void Context::rank_topologically() {
  const int n = g.op_count();
  const Components zero = strongly_connected(g, adj, EdgeFilter::kZeroDistance);
  zero_scc = zero.component;
  const ComponentMembers comp_members = component_members(zero);
  std::vector<int> comp_min(zero.count);
  for (int c = 0; c < zero.count; ++c) comp_min[c] = comp_members.of(c).front();
  const std::vector<int> comp_walk = kahn_walk(zero.count, comp_min, [&](int c, auto&& visit) {
    for (OpId v : comp_members.of(c)) {
      for (int p = adj.out_begin[v]; p < adj.out_begin[v + 1]; ++p) {
        const Edge& e = g.edges[adj.out_edges[p]];
        if (e.distance == 0 && zero_scc[e.to] != c) visit(zero_scc[e.to]);
      }
    }
  });
  topo_rank.assign(n, 0);
  int rank = 0;
  for (int c : comp_walk) {
    for (OpId v : comp_members.of(c)) topo_rank[v] = rank++;
  }
}

// Longest latency path to a sink over distance-0 edges between components.
void Context::compute_heights() {
  const int n = g.op_count();
  std::vector<OpId> order(n);
  for (OpId v = 0; v < n; ++v) order[topo_rank[v]] = v;
  height.assign(n, 0);
  for (int i = n - 1; i >= 0; --i) {  // sinks first
    const OpId v = order[i];
    int64_t h = g.ops[v].latency;
    for (int p = adj.out_begin[v]; p < adj.out_begin[v + 1]; ++p) {
      const Edge& e = g.edges[adj.out_edges[p]];
      if (e.distance == 0 && zero_scc[e.to] != zero_scc[v]) h = std::max(h, e.latency + height[e.to]);
    }
    height[v] = h;
  }
}

// Dense group ids in order of first appearance; the anchor is the member
// first in topological order.
void Context::find_leader_groups() {
  LeaderGroups groups = tilesched::find_leader_groups(g);
  group_of = std::move(groups.group_of);
  group_members = std::move(groups.members);
  for (const std::vector<OpId>& members : group_members) {
    group_anchor.push_back(*std::min_element(
        members.begin(), members.end(),
        [&](OpId a, OpId b) { return topo_rank[a] < topo_rank[b]; }));
  }
}

// The spill model (seed 002) is on when the target has a register budget.
void Context::read_register_footprints() {
  const int n = g.op_count();
  regs.assign(n, 0);
  if (g.target.register_budget <= 0) return;
  for (OpId v = 0; v < n; ++v) regs[v] = g.ops[v].registers;
  reg_budget = g.target.register_budget;
}

void Context::read_bank_model() {
  const int n = g.op_count();
  touches_bank.assign(n, 0);
  bank_duration.assign(n, 0);
  if (!g.target.bank_model) return;
  const BankModel& model = *g.target.bank_model;
  bank_cap_in = g.target.pools[model.in_iteration_pool].capacity;
  bank_cap_cross = g.target.pools[model.cross_iteration_pool].capacity;
  for (OpId v = 0; v < n; ++v) {
    for (const Triple& t : g.ops[v].resources) {
      if (!model.holds(g.target, t)) continue;
      touches_bank[v] = 1;
      bank_duration[v] = std::max(bank_duration[v], t.duration);
    }
  }
}

// The effort levels' budgets.

namespace {

// Units per unit of size (ops + edges), per level.
struct Rates {
  int64_t attempt, walk, descent;
};
constexpr Rates kFast = {2'048, 8'192, 2'048};
constexpr Rates kDefault = {16'384, 65'536, 16'384};
// The size below which a graph's budgets are a graph of this size's (a
// 40-op loop has about 80 ops and edges): a small graph's fixed costs.
constexpr int64_t kLeastSize = 80;
// The search below the start: a multiple of the start's work (IMS's
// units and the generator's cost about the same time), and a floor for
// graphs whose IMS run is tiny: about 1 ms and 5 ms of work at the
// meter's typical 10-20 ns a unit.
constexpr int64_t kBelowFactorFast = 4, kBelowFactorDefault = 16;
constexpr int64_t kBelowFloorFast = 65'536, kBelowFloorDefault = 524'288;

}  // namespace

EffortBudgets effort_budgets(Effort effort, const Graph& g) {
  if (effort == Effort::kFull) return {0, 0, 0, 8};
  const bool fast = effort == Effort::kFast;
  const Rates& r = fast ? kFast : kDefault;
  const int64_t size =
      std::max(kLeastSize, g.op_count() + static_cast<int64_t>(g.edges.size()));
  EffortBudgets b{r.attempt * size, r.walk * size, r.descent * size, 1};
  b.below_factor = fast ? kBelowFactorFast : kBelowFactorDefault;
  b.below_floor = fast ? kBelowFloorFast : kBelowFloorDefault;
  return b;
}

}  // namespace tilesched::cost_based
