// The (stage, order) comparator and the checks that make it a total order.
#include "stage_order.h"

#include <algorithm>
#include <numeric>

namespace tilesched::materialize_internal {

int compare_stage_order(const Schedule& s, OpId a, OpId b) {
  if (s.stage[a] != s.stage[b]) return s.stage[a] < s.stage[b] ? -1 : +1;
  if (s.order[a] != s.order[b]) return s.order[a] < s.order[b] ? -1 : +1;
  return a < b ? -1 : +1;  // only on a tie, which a valid schedule never has
}

void sort_by_stage_order(const Schedule& s, std::vector<OpId>& ops) {
  // The relation is a strict total order on distinct ops (it never answers
  // "equal"), so an unstable sort gives the stable sort's order, without
  // the temporary buffer std::stable_sort allocates.
  std::sort(ops.begin(), ops.end(),
                   [&](OpId a, OpId b) { return compare_stage_order(s, a, b) < 0; });
}

std::vector<OpId> ops_in_stage_order(const Schedule& s) {
  std::vector<OpId> ops(s.stage.size());
  std::iota(ops.begin(), ops.end(), 0);
  sort_by_stage_order(s, ops);
  return ops;
}

std::optional<std::string> stage_order_problem(const Graph& g, const Schedule& s) {
  const size_t n = g.ops.size();
  if (s.start.size() != n || s.stage.size() != n || s.order.size() != n) {
    return "the schedule has " + std::to_string(s.start.size()) + " starts, " +
           std::to_string(s.stage.size()) + " stages and " + std::to_string(s.order.size()) +
           " orders for " + std::to_string(n) + " ops";
  }
  const std::vector<OpId> ops = ops_in_stage_order(s);
  for (size_t i = 1; i < ops.size(); ++i) {
    const OpId a = ops[i - 1];
    const OpId b = ops[i];
    if (s.stage[a] == s.stage[b] && s.order[a] == s.order[b]) {
      return "ops " + g.ops[a].name + " and " + g.ops[b].name + " share stage " +
             std::to_string(s.stage[a]) + ", order " + std::to_string(s.order[a]) +
             " ((stage, order) must be a total order)";
    }
  }
  return std::nullopt;
}

}  // namespace tilesched::materialize_internal
