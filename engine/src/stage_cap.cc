// The stage cap's runs (see stage_cap.h).
#include "stage_cap.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ii_driver.h"
#include "tilesched/mii.h"

namespace tilesched {

namespace {

// True when `s` is a better answer than `best` (none yet: any feasible one):
// the least II; on equal IIs the first run found stands.
bool better(const Schedule& s, const std::optional<Schedule>& best) {
  return s.feasible && (!best || s.ii < best->ii);
}

// What the capped runs gave: the best schedule (nullopt: none was
// feasible), the cap it was found at, and the last run's schedule (the
// failure reported when none was feasible).
struct CappedRuns {
  std::optional<Schedule> best;
  int64_t found_at = 0;
  Schedule last;
};

// The capped runs for caps `from`..`to`, each above `floor` and below the
// best II so far; `spent` gains their time.
StatusOr<CappedRuns> capped_runs(const Graph& g, int64_t from, int64_t to, int64_t floor,
                                 const StageCapRunFn& run, int64_t& spent) {
  CappedRuns out;
  for (int64_t cap = from; cap <= to; ++cap) {
    StageCapRun r;
    r.ii_floor = floor;
    r.ii_cap = out.best ? out.best->ii - 1 : 0;
    r.spent_ns = spent;
    if (out.best && r.ii_cap < floor) break;  // nothing left between the floor and the best
    StatusOr<Schedule> s = run(with_stage_cap(g, cap), r);
    if (!s.ok()) return s.status();
    spent += s->time_ns;
    if (better(*s, out.best)) {
      out.best = *s;
      out.found_at = cap;
    }
    out.last = std::move(*s);
  }
  return out;
}

std::string stages_word(int64_t n) { return n == 1 ? " stage" : " stages"; }

std::string uncapped_words(const Schedule& u) {
  if (!u.feasible) return "the uncapped run found no schedule";
  return "the uncapped schedule (II " + std::to_string(u.ii) + ") has " +
         std::to_string(u.stage_count) + stages_word(u.stage_count);
}

}  // namespace

StatusOr<Schedule> schedule_under_stage_cap(const Graph& g, int64_t max_stages,
                                            StageCapMode mode, const StageCapRunFn& run) {
  StatusOr<Schedule> uncapped = run(g, StageCapRun{});
  if (!uncapped.ok()) return uncapped.status();
  int64_t spent = uncapped->time_ns;
  // The caller's options, as the uncapped run records them (a capped run's
  // record its narrowed range).
  std::vector<std::pair<std::string, std::string>> options = uncapped->options;
  Schedule out;
  std::string line;
  if (uncapped->feasible && uncapped->stage_count <= max_stages) {
    out = std::move(*uncapped);
    line = "stage cap " + std::to_string(max_stages) + ": the uncapped schedule has " +
           std::to_string(out.stage_count) + stages_word(out.stage_count) + " and is kept";
  } else {
    const int64_t floor = uncapped->feasible ? uncapped->ii : 0;
    const int64_t from = mode == StageCapMode::kChain ? 1 : max_stages;
    StatusOr<CappedRuns> runs = capped_runs(g, from, max_stages, floor, run, spent);
    if (!runs.ok()) return runs.status();
    if (runs->best) {
      out = std::move(*runs->best);
      line = "stage cap " + std::to_string(max_stages) + ": " + uncapped_words(*uncapped) +
             "; the run capped at " +
             std::to_string(runs->found_at) + stages_word(runs->found_at) + " found II " +
             std::to_string(out.ii);
    } else {
      out = std::move(runs->last);
      line = "stage cap " + std::to_string(max_stages) + ": no run with at most " +
             std::to_string(max_stages) + stages_word(max_stages) + " found a schedule";
    }
  }
  out.mii = compute_mii(with_stage_cap(g, max_stages));
  out.time_ns = spent;
  out.options = std::move(options);
  out.options.emplace_back("max_stages", std::to_string(max_stages));
  out.diagnostics.push_back(std::move(line));
  return out;
}

}  // namespace tilesched
