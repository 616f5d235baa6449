// The components-first proof (components.h).
#include "components.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "bounds.h"
#include "util/test_seams.h"

namespace tilesched::exact_internal {

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
  const std::vector<int> comp = topological_components(n, edges, count);
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

ComponentVerdict ComponentProof::prove(int64_t ii, Backend& backend, const ComponentBudget& budget,
                                       ComponentChecks& checks) {
  if (!components_) components_ = component_subgraphs(g_);
  const int64_t work_before = work_used_;
  for (const Graph& sub : *components_) {
    // A check of less than a millisecond is not worth the model.
    if (budget.until - Clock::now() < std::chrono::milliseconds(1)) return ComponentVerdict::kOpen;
    const int64_t work_left = budget.work > 0 ? budget.work - (work_used_ - work_before) : 0;
    if (budget.work > 0 && work_left <= 0) return ComponentVerdict::kOpen;
    std::optional<std::vector<int64_t>> asap = longest_paths(sub, ii, false);
    if (!asap) return ComponentVerdict::kInfeasible;  // below the component's recurrence
    const ModelSpec spec =
        *model_spec(sub, ii, stage_bound(sub, ii), budget.until, std::move(asap));
    std::unique_ptr<IiProblem> problem;
    try {
      problem = backend.build(sub, spec);
    } catch (const ModelDeadline&) {
      return ComponentVerdict::kCut;
    }
    if (problem == nullptr) continue;  // over the backend's size limit
    const Answer a = checks.check(*problem, spec.stage_bound, budget.until,
                                  units_within(*problem, budget.units, work_left));
    units_used_ += std::max<int64_t>(problem->units_used(), 1);
    work_used_ += check_work(*problem);
    checks.release(problem);
    if (a == Answer::kUnsat) return ComponentVerdict::kInfeasible;
  }
  return ComponentVerdict::kOpen;
}

}  // namespace tilesched::exact_internal
