// The packing repair (see repair.h).
#include "repair.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/elapsed.h"
#include "../exact/bounds.h"
#include "../exact/query.h"
#include "graph/graph_algo.h"
#include "search/ii_range.h"
#include "screen.h"
#include "tilesched/mii.h"
#include "tilesched/verify.h"

namespace tilesched {

namespace {

using exact_internal::Answer;
using exact_internal::Clock;

// The least II worth a check: the heuristics' own lower bound, and the floor.
int64_t lowest_ii(const Graph& g, int64_t ii_floor) {
  return std::max(ii_lower_bound(g, compute_mii(g).max()), ii_floor);
}

// What one check of the whole graph gave: the starts of a legal schedule,
// or none with the solver's answer.
struct Packed {
  Answer answer = Answer::kUnknown;
  std::optional<std::vector<int64_t>> start;
};

// One II's check under `units` of work, CaDiCaL in its stable mode only
// when `stable_only`: the starts of a legal schedule at ii, or none
// (unsat, out of budget, no model, or a schedule the verifier refuses,
// which would be a bug in the model). `used` gains the work spent.
// The work of the repair in the generator's units, against its bound.
// The lower bound's check may spend the whole bound (where the rows pack
// exactly it is the answer); the bisection's checks after it only what is
// left of a kLaterShare-th of it.
struct Meter {
  int64_t budget = 0;  // 0: none
  int64_t work = 0;
  bool first = true;
  bool out = false;
  static constexpr int64_t kLaterShare = 8;
  int64_t limit() const { return first ? budget : budget / kLaterShare; }
  bool admits(int64_t more) {
    if (budget > 0 && work + more > limit()) out = true;
    return !out;
  }
};

// The size of the model at `spec`: every op's window of starts times the
// cycles its holds occupy (the resource clauses dominate).
int64_t model_size(const Graph& g, const exact_internal::ModelSpec& spec) {
  int64_t size = 0;
  for (OpId v = 0; v < g.op_count(); ++v) {
    int64_t held = 1;
    for (const Triple& t : g.ops[v].resources) held += t.duration;
    const int64_t window = exact_internal::latest_start(g, spec, v) - spec.asap[v] + 1;
    size += std::max<int64_t>(window, 1) * held;
  }
  return size * kUnitsPerModelCell;
}

Packed pack_at(const Graph& g, int64_t ii, int64_t stages, int64_t units, bool stable_only,
               exact_internal::Backend& backend, int64_t& used, Meter& meter) {
  std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g, ii, false);
  if (!asap) return {Answer::kUnsat, std::nullopt};  // II below RecMII
  // A tight stage bound, as the oracle's first check at an II: a much
  // smaller model; a schedule it finds is legal all the same. The budget is
  // work, never the clock.
  exact_internal::ModelSpec spec = *exact_internal::model_spec(
      g, ii, std::min(stages, exact_internal::stage_bound(g, ii)), Clock::time_point::max(),
      std::move(asap));
  spec.stable_only = stable_only;
  const int64_t size = model_size(g, spec);
  if (!meter.admits(size)) return {};
  meter.work += size;
  const std::unique_ptr<exact_internal::IiProblem> model = backend.build(g, spec);
  if (model == nullptr) return {};  // over the backend's size limit
  if (meter.budget > 0) {
    units = std::min(units, std::max<int64_t>(1, (meter.limit() - meter.work) / kUnitsPerSolverUnit));
  }
  const Answer a = model->check(spec.stage_bound, Clock::time_point::max(), units);
  used += std::max<int64_t>(model->units_used(), 1);
  meter.work += std::max<int64_t>(model->units_used(), 1) * kUnitsPerSolverUnit;
  if (a != Answer::kSat) return {a, std::nullopt};
  Schedule s;
  s.ii = ii;
  s.start = model->starts();
  s.feasible = true;
  derive_stage_order(s);
  if (!verify_schedule(g, s).legal()) return {};
  return {a, std::move(s.start)};
}

// The work of one repair: the SAT checks of the whole graph (`used`,
// bounded by units_total), the screen's component checks (`screened`) and
// the second attempts (`second`), each under a units_total of its own; the
// IIs tried, those the screen ruled out, those a second attempt found.
struct Tally {
  int64_t used = 0, screened = 0, second = 0;
  int64_t tried = 0, ruled_out = 0, found_second = 0;
};

// The budget of the next check of the whole graph: units_per_ii, within
// what is left of units_total.
int64_t next_budget(const PackingRepairOptions& opts, const Tally& t) {
  return std::min(opts.units_per_ii, opts.units_total - t.used);
}

std::string repair_line(int64_t from, int64_t to, const Tally& t) {
  std::string line = "packing repair: II " + std::to_string(from) + " -> " + std::to_string(to) +
                     " (the SAT model re-packed every row; " + std::to_string(t.tried) +
                     " II(s) tried, ";
  if (t.ruled_out > 0) line += std::to_string(t.ruled_out) + " ruled out by the screen, ";
  if (t.found_second > 0) line += std::to_string(t.found_second) + " found in stable mode, ";
  return line + std::to_string(t.used + t.screened + t.second) + " units)";
}

// One II tried: the screen (a proof that ii has no schedule skips the
// rest), the check of the whole graph, and where that ended unknown a
// second attempt in CaDiCaL's stable mode. Each under its own budget, so
// the screen and the second attempt never take work from the checks of
// the whole graph.
std::optional<std::vector<int64_t>> try_ii(const Graph& g, int64_t ii, int64_t stages,
                                           const PackingRepairOptions& opts,
                                           ComponentScreen& screen,
                                           exact_internal::Backend& backend, Tally& t,
                                           Meter& meter) {
  const int64_t screened = t.screened;
  if (opts.units_screen > 0 && t.screened < opts.units_total &&
      screen.rules_out(ii, opts.units_screen, backend, t.screened)) {
    meter.work += (t.screened - screened) * kUnitsPerSolverUnit;
    ++t.ruled_out;
    return std::nullopt;  // the check of the whole graph would be unsat
  }
  meter.work += (t.screened - screened) * kUnitsPerSolverUnit;
  Packed p = pack_at(g, ii, stages, next_budget(opts, t), false, backend, t.used, meter);
  if (p.start || p.answer != Answer::kUnknown || meter.out) return std::move(p.start);
  if (opts.units_second <= 0 || t.second >= opts.units_total) return std::nullopt;
  p = pack_at(g, ii, stages, std::min(opts.units_second, opts.units_total - t.second), true,
              backend, t.second, meter);
  if (p.start) ++t.found_second;
  return std::move(p.start);
}

}  // namespace


PackingRepairOptions packing_repair_options(Effort effort) {
  PackingRepairOptions o;
  // At kFast, no graph: building the SAT model of one II alone costs more
  // than the level's time (docs/EXACT.md "The packing repair").
  if (effort == Effort::kFast) o.max_ops = 0;
  return o;
}

bool packs_rows(const Graph& g) {
  for (const Op& op : g.ops) {
    if (!op.pools.empty()) return true;
    for (const Triple& t : op.resources) {
      if (t.occupancy > 1 || g.target.slot(t.slot).capacity > 1) return true;
    }
  }
  return false;
}

void repair_packing(const Graph& g, int64_t ii_floor, const PackingRepairOptions& opts,
                    Schedule& s, PackingRepairReport* report) {
  if (!s.feasible || g.op_count() > opts.max_ops || !packs_rows(g)) return;
  Meter meter;
  meter.budget = opts.work_budget;
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t from = s.ii;
  // The least II found so far is `hi` (s.ii); below `lo` nothing is tried
  // again. The lower bound first (where the rows pack exactly, it is the
  // answer), then bisection between the last II not found and the least
  // found.
  int64_t lo = lowest_ii(g, ii_floor), hi = s.ii;
  // The model's stage bound (largest stage): one above the heuristic's.
  const int64_t stages = s.stage_count;
  std::unique_ptr<exact_internal::Backend> backend;
  ComponentScreen screen(g);
  Tally t;
  for (int64_t ii = lo; ii < hi && t.used < opts.units_total && !meter.out;
       ii = lo + (hi - lo) / 2) {
    if (!backend) backend = exact_internal::make_sat_backend(SatEncoding::kRowStage);
    ++t.tried;
    std::optional<std::vector<int64_t>> start;
    try {
      start = try_ii(g, ii, stages, opts, screen, *backend, t, meter);
      meter.first = false;
    } catch (const exact_internal::BackendFailure&) {
      break;  // the solver failed: the schedule in hand stands
    }
    if (start) {
      hi = ii;
      s.ii = ii;
      s.start = std::move(*start);
    } else {
      lo = ii + 1;
    }
  }
  if (t.tried > 0) s.time_ns += elapsed_ns(t0);
  if (report != nullptr) *report = {from, t.tried, meter.work, meter.out};
  if (s.ii == from) return;
  derive_stage_order(s);
  // Values materialized from the old starts no longer hold (generate_schedule
  // materializes after the repair).
  s.pipes.clear();
  s.mutexes.clear();
  s.agents.clear();
  s.flags.push_back("packing_repair");
  s.diagnostics.push_back(repair_line(from, s.ii, t));
}

}  // namespace tilesched
