// Derived schedule values (docs/CONTRACT.md, "Legal schedules"): stage =
// floor(start / II), order = rank inside the stage by (start, program index),
// stage_count = 1 + the largest stage.
#include "tilesched/schedule.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace tilesched {

int64_t Schedule::stat(std::string_view key) const {
  for (const auto& [k, v] : stats) {
    if (k == key) return v;
  }
  return 0;
}

int64_t MiiBounds::max() const {
  return std::max({resource, recurrence, fine_density, dependency});
}

std::string_view failure_reason_name(FailureReason r) {
  switch (r) {
    case FailureReason::kNone: return "none";
    case FailureReason::kDependenceCycle: return "dependence-cycle";
    case FailureReason::kStorageBudget: return "storage-budget";
    case FailureReason::kIiCapReached: return "ii-cap-reached";
    case FailureReason::kBudgetExhausted: return "budget-exhausted";
  }
  return "none";
}

void derive_stage_order(Schedule& s) {
  assert(s.ii >= 1);
  const size_t n = s.start.size();
  s.stage.assign(n, 0);
  s.order.assign(n, 0);
  std::vector<int> by_time(n);
  std::iota(by_time.begin(), by_time.end(), 0);
  for (size_t v = 0; v < n; ++v) s.stage[v] = s.start[v] / s.ii;
  // (stage, start, id) sorts stages apart and ranks inside each one.
  std::sort(by_time.begin(), by_time.end(), [&](int a, int b) {
    if (s.stage[a] != s.stage[b]) return s.stage[a] < s.stage[b];
    if (s.start[a] != s.start[b]) return s.start[a] < s.start[b];
    return a < b;
  });
  int64_t rank = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && s.stage[by_time[i]] != s.stage[by_time[i - 1]]) rank = 0;
    s.order[by_time[i]] = rank++;
  }
  int64_t max_stage = 0;
  for (int64_t st : s.stage) max_stage = std::max(max_stage, st);
  s.stage_count = n == 0 ? 0 : 1 + max_stage;
}

}  // namespace tilesched
