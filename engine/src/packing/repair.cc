// The packing repair (see repair.h).
#include "repair.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../elapsed.h"
#include "../exact/problem.h"
#include "../graph_algo.h"
#include "../search.h"
#include "screen.h"
#include "tilesched/mii.h"
#include "tilesched/verify.h"

namespace tilesched {

namespace {

using exact_internal::Answer;
using exact_internal::Clock;

// The least II worth a check: the heuristics' own lower bound, and the floor.
int64_t lowest_ii(const Graph& g, int64_t ii_floor) {
  const Adjacency adj = Adjacency::build(g);
  const int64_t lower = heuristic_ii_lower(
      g, compute_mii(g).max(), group_span_bound(g, adj, find_leader_groups(g).members));
  return std::max(lower, ii_floor);
}

// One II's check under `units` of work: the starts of a legal schedule at
// ii, or nullopt (unsat, out of budget, no model, or a schedule the
// verifier refuses, which would be a bug in the model). `used` gains the
// work spent.
std::optional<std::vector<int64_t>> pack_at(const Graph& g, int64_t ii, int64_t stages,
                                            int64_t units, exact_internal::Backend& backend,
                                            int64_t& used) {
  exact_internal::ModelSpec spec;
  spec.ii = ii;
  const std::optional<std::vector<int64_t>> asap = exact_internal::longest_paths(g, ii, false);
  const std::optional<std::vector<int64_t>> tail = exact_internal::longest_paths(g, ii, true);
  if (!asap || !tail) return std::nullopt;  // II below RecMII
  spec.asap = *asap;
  spec.tail = *tail;
  // A tight stage bound, as the oracle's first check at an II: a much
  // smaller model; a schedule it finds is legal all the same.
  spec.stage_bound = std::min(stages, exact_internal::stage_bound(g, ii));
  spec.deadline = Clock::time_point::max();  // the budget is work, never the clock
  const std::unique_ptr<exact_internal::IiProblem> model = backend.build(g, spec);
  if (model == nullptr) return std::nullopt;  // over the backend's size limit
  const Answer a = model->check(spec.stage_bound, Clock::time_point::max(), units);
  used += std::max<int64_t>(model->units_used(), 1);
  if (a != Answer::kSat) return std::nullopt;
  Schedule s;
  s.ii = ii;
  s.start = model->starts();
  s.feasible = true;
  derive_stage_order(s);
  if (!verify_schedule(g, s).legal()) return std::nullopt;
  return s.start;
}

// The work of one repair: the SAT checks of the whole graph (`used`,
// bounded by units_total), the screen's component checks (`screened`, the
// same bound of their own), the IIs tried and those the screen ruled out.
struct Tally {
  int64_t used = 0, screened = 0, tried = 0, ruled_out = 0;
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
  return line + std::to_string(t.used + t.screened) + " units)";
}

}  // namespace

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
                    Schedule& s) {
  if (!s.feasible || g.op_count() > opts.max_ops || !packs_rows(g)) return;
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
  for (int64_t ii = lo; ii < hi && t.used < opts.units_total; ii = lo + (hi - lo) / 2) {
    if (!backend) backend = exact_internal::make_sat_backend(SatEncoding::kRowStage);
    ++t.tried;
    std::optional<std::vector<int64_t>> start;
    try {
      if (opts.units_screen > 0 && t.screened < opts.units_total &&
          screen.rules_out(ii, opts.units_screen, *backend, t.screened)) {
        ++t.ruled_out;
        lo = ii + 1;  // no schedule at ii: the check of the whole graph would be unsat
        continue;
      }
      start = pack_at(g, ii, stages, next_budget(opts, t), *backend, t.used);
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
