// The effort levels' budgets (see effort.h).
#include "effort.h"

#include <algorithm>

namespace tilesched::cost_based {

namespace {

// Units per unit of size (ops + edges) and the floor, per level.
struct Rates {
  int64_t attempt, walk, descent, floor;
};
constexpr Rates kFast = {32, 128, 32, 2'000};
constexpr Rates kDefault = {128, 512, 128, 10'000};

}  // namespace

EffortBudgets effort_budgets(Effort effort, const Graph& g) {
  if (effort == Effort::kFull) return {};
  const Rates& r = effort == Effort::kFast ? kFast : kDefault;
  const int64_t size = g.op_count() + static_cast<int64_t>(g.edges.size());
  auto scaled = [&](int64_t rate) { return std::max(r.floor, rate * size); };
  return {scaled(r.attempt), scaled(r.walk), scaled(r.descent)};
}

}  // namespace tilesched::cost_based
