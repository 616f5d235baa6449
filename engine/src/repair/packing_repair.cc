// The packing repair (see packing_repair.h).
#include "repair/packing_repair.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "oracle/exact/work_checks.h"
#include "repair/screen.h"
#include "search/ii_range.h"
#include "tilesched/mii.h"
#include "tilesched/schedule.h"
#include "util/elapsed.h"

namespace tilesched {

namespace {

// The least II worth a check: the heuristics' own lower bound, and the floor.
int64_t lowest_ii(const Graph& g, int64_t ii_floor) {
  return std::max(ii_lower_bound(g, compute_mii(g).max()), ii_floor);
}

// The work of the repair in the generator's units, against its bound.
// The checks of the whole graph may spend the whole bound until one finds
// nothing (the first, at the lowest II the screen leaves, is where the rows
// pack exactly the answer); after that only what is left of a
// kLaterShare-th of it (the later checks bisect above a bound the rows did
// not meet, and rarely pay: docs/EXACT.md, "The repair's work").
struct Meter {
  int64_t budget = 0;  // 0: none
  int64_t work = 0;
  bool first = true;
  bool out = false;
  static constexpr int64_t kLaterShare = 16;
  int64_t limit() const { return first ? budget : budget / kLaterShare; }
  bool admits(int64_t more) {
    if (budget > 0 && work + more > limit()) out = true;
    return !out;
  }
  // A check's budget: `units` learned clauses at most, and within what is
  // left of the bound (at least one unit of work: a check that runs takes
  // at least one learned clause).
  WorkChecks::Budget check(int64_t units) const {
    return {units, budget > 0 ? std::max<int64_t>(1, limit() - work) : 0};
  }
};

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
std::optional<std::vector<int64_t>> try_ii(int64_t ii, int64_t stages,
                                           const PackingRepairOptions& opts,
                                           ComponentScreen& screen, WorkChecks& checks, Tally& t,
                                           Meter& meter) {
  WorkChecks::Spent screened;
  const bool ruled_out = opts.units_screen > 0 && t.screened < opts.units_total &&
                         screen.rules_out(ii, meter.check(opts.units_screen), screened);
  t.screened += screened.units;
  meter.work += screened.work;
  if (ruled_out) {
    ++t.ruled_out;
    return std::nullopt;  // the check of the whole graph would be unsat
  }
  // The model's size is counted before it is built; one past the bound is
  // not built.
  const int64_t size = checks.model_cells(ii, stages) * kUnitsPerModelCell;
  if (!meter.admits(size)) return std::nullopt;
  meter.work += size;
  // The budget is work, never the clock.
  WorkChecks::Result p =
      checks.whole_graph(ii, stages, meter.check(next_budget(opts, t)), false);
  t.used += p.spent.units;
  meter.work += p.spent.work;
  if (p.answer == WorkChecks::Answer::kFound) return std::move(p.start);
  if (p.answer != WorkChecks::Answer::kUnknown) return std::nullopt;
  // Not where the first check spent what was left: its model would be
  // built again for one learned clause.
  if (opts.units_second <= 0 || t.second >= opts.units_total || !meter.admits(0)) {
    return std::nullopt;
  }
  p = checks.whole_graph(
      ii, stages, meter.check(std::min(opts.units_second, opts.units_total - t.second)), true);
  t.second += p.spent.units;
  meter.work += p.spent.work;
  if (p.answer != WorkChecks::Answer::kFound) return std::nullopt;
  ++t.found_second;
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
  WorkChecks checks(g);
  ComponentScreen screen(g, checks);
  Tally t;
  for (int64_t ii = lo; ii < hi && t.used < opts.units_total && !meter.out;
       ii = lo + (hi - lo) / 2) {
    ++t.tried;
    std::optional<std::vector<int64_t>> start;
    try {
      const int64_t checked = t.used;
      start = try_ii(ii, stages, opts, screen, checks, t, meter);
      // After an II whose checks (the stable mode's too) found nothing,
      // the smaller share.
      if (!start && t.used > checked) meter.first = false;
    } catch (const WorkChecks::SolverFailed&) {
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
