// The effort levels' budgets (see effort.h).
#include "effort.h"

#include <algorithm>

namespace tilesched::cost_based {

namespace {

// Units per unit of size (ops + edges), per level.
struct Rates {
  int64_t attempt, walk, descent;
};
constexpr Rates kFast = {256, 1'024, 256};
constexpr Rates kDefault = {2'048, 8'192, 2'048};
// The size below which a graph's budgets are a graph of this size's (a
// 40-op loop has about 80 ops and edges): a small graph's fixed costs.
constexpr int64_t kLeastSize = 80;

}  // namespace

EffortBudgets effort_budgets(Effort effort, const Graph& g) {
  if (effort == Effort::kFull) return {0, 0, 0, 8};
  const Rates& r = effort == Effort::kFast ? kFast : kDefault;
  const int64_t size =
      std::max(kLeastSize, g.op_count() + static_cast<int64_t>(g.edges.size()));
  return {r.attempt * size, r.walk * size, r.descent * size, effort == Effort::kFast ? 2 : 4};
}

}  // namespace tilesched::cost_based
