// One II's spec and each op's window under it (query.h).
#include "query.h"

#include <algorithm>
#include <utility>

#include "bounds.h"
#include "tilesched/limits.h"

namespace tilesched::exact_internal {

std::optional<ModelSpec> model_spec(const Graph& g, int64_t ii, int64_t stage_bound,
                                    Clock::time_point deadline,
                                    std::optional<std::vector<int64_t>> asap) {
  if (!asap) asap = longest_paths(g, ii, false);
  std::optional<std::vector<int64_t>> tail = longest_paths(g, ii, true);
  if (!asap || !tail) return std::nullopt;
  ModelSpec spec;
  spec.ii = ii;
  spec.stage_bound = stage_bound;
  spec.asap = std::move(*asap);
  spec.tail = std::move(*tail);
  spec.deadline = deadline;
  return spec;
}

int64_t latest_start(const Graph& g, const ModelSpec& spec, OpId v) {
  const int64_t ii = spec.ii;
  const int64_t horizon =
      std::min(limits::kMaxStart, ii * std::min(spec.stage_bound + 1, limits::kMaxStart / ii) - 1);
  const Op& op = g.ops[v];
  int64_t hi = horizon - spec.tail[v];
  if (op.max_depth) hi = std::min(hi, ii * (*op.max_depth + 1) - 1);  // L6
  if (g.attrs.force_serial_execution) {  // L7: stage 0 and s_v + D_v <= II
    hi = std::min(hi, ii - footprint_duration(op));
  }
  return hi;
}

namespace {

// check_work's price of one unit of the backend's work on p.
int64_t work_per_unit(const IiProblem& p) {
  return kWorkPerConflict + p.variables() / kVariablesPerWork;
}

}  // namespace

int64_t check_work(const IiProblem& p) {
  return kWorkPerLiteral * p.literals() + work_per_unit(p) * p.units_used();
}

int64_t units_within(const IiProblem& p, int64_t units, int64_t work) {
  if (work <= 0) return units;
  const int64_t within = std::max<int64_t>(1, (work - check_work(p)) / work_per_unit(p));
  return units > 0 ? std::min(units, within) : within;
}

}  // namespace tilesched::exact_internal
