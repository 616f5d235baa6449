// The effort levels' budgets (see effort.h).
#include "effort.h"

#include <algorithm>

namespace tilesched::cost_based {

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
