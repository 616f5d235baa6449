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

// The chain of capped runs, extended one cap at a time in increasing
// order, each run above `floor` and below the best II so far (once nothing
// is left between them, later caps run nothing). After extend(c) it holds
// what the runs up to cap c gave: the best schedule (nullopt: none was feasible),
// the cap it was found at, and the last run's schedule (the failure
// reported when none was feasible); `spent` gains their time.
class CappedChain {
 public:
  CappedChain(const Graph& g, int64_t floor, const StageCapRunFn& run, int64_t& spent)
      : g_(g), floor_(floor), run_(run), spent_(spent) {}

  Status extend(int64_t cap) {
    if (done_) return Status::Ok();
    StageCapRun r;
    r.ii_floor = floor_;
    r.ii_cap = best ? best->ii - 1 : 0;
    r.spent_ns = spent_;
    if (best && r.ii_cap < floor_) {  // nothing left between the floor and the best
      done_ = true;
      return Status::Ok();
    }
    StatusOr<Schedule> s = run_(with_stage_cap(g_, cap), r);
    if (!s.ok()) return s.status();
    spent_ += s->time_ns;
    work_ += s->stat("work.total");  // the cost-based generator's
    if (better(*s, best)) {
      best = *s;
      found_at = cap;
    }
    last = std::move(*s);
    return Status::Ok();
  }

  std::optional<Schedule> best;
  int64_t found_at = 0;
  Schedule last;
  int64_t work() const { return work_; }  // the runs' work.total together

 private:
  const Graph& g_;
  int64_t floor_;
  const StageCapRunFn& run_;
  int64_t& spent_;
  int64_t work_ = 0;
  bool done_ = false;
};

std::string stages_word(int64_t n) { return n == 1 ? " stage" : " stages"; }

std::string uncapped_words(const Schedule& u) {
  if (!u.feasible) return "the uncapped run found no schedule";
  return "the uncapped schedule (II " + std::to_string(u.ii) + ") has " +
         std::to_string(u.stage_count) + stages_word(u.stage_count);
}

// The answer under a cap of `max_stages` from the uncapped run and the
// chain so far (which ran only when the uncapped schedule has more stages).
Schedule answer(const Graph& g, int64_t max_stages, const Schedule& uncapped,
                const CappedChain* chain, int64_t spent) {
  Schedule out;
  std::string line;
  if (chain == nullptr) {
    out = uncapped;
    line = "stage cap " + std::to_string(max_stages) + ": the uncapped schedule has " +
           std::to_string(out.stage_count) + stages_word(out.stage_count) + " and is kept";
  } else if (chain->best) {
    out = *chain->best;
    line = "stage cap " + std::to_string(max_stages) + ": " + uncapped_words(uncapped) +
           "; the run capped at " + std::to_string(chain->found_at) +
           stages_word(chain->found_at) + " found II " + std::to_string(out.ii);
  } else {
    out = chain->last;
    line = "stage cap " + std::to_string(max_stages) + ": no run with at most " +
           std::to_string(max_stages) + stages_word(max_stages) + " found a schedule";
  }
  out.mii = compute_mii(with_stage_cap(g, max_stages));
  out.time_ns = spent;
  // work.total, as time_ns, is every run's: the uncapped one and the chain's.
  for (auto& [k, v] : out.stats) {
    if (k == "work.total") v = uncapped.stat("work.total") + (chain != nullptr ? chain->work() : 0);
  }
  // The caller's options, as the uncapped run records them (a capped run's
  // record its narrowed range).
  out.options = uncapped.options;
  out.options.emplace_back("max_stages", std::to_string(max_stages));
  out.diagnostics.push_back(std::move(line));
  return out;
}

bool kept(const Schedule& uncapped, int64_t max_stages) {
  return uncapped.feasible && uncapped.stage_count <= max_stages;
}

}  // namespace

StatusOr<Schedule> schedule_under_stage_cap(const Graph& g, int64_t max_stages,
                                            StageCapMode mode, const StageCapRunFn& run) {
  StatusOr<Schedule> uncapped = run(g, StageCapRun{});
  if (!uncapped.ok()) return uncapped.status();
  int64_t spent = uncapped->time_ns;
  if (kept(*uncapped, max_stages)) return answer(g, max_stages, *uncapped, nullptr, spent);
  CappedChain chain(g, uncapped->feasible ? uncapped->ii : 0, run, spent);
  for (int64_t cap = mode == StageCapMode::kChain ? 1 : max_stages; cap <= max_stages; ++cap) {
    if (Status st = chain.extend(cap); !st.ok()) return st;
  }
  return answer(g, max_stages, *uncapped, &chain, spent);
}

StatusOr<std::vector<Schedule>> schedules_under_stage_caps(const Graph& g, int64_t max_stages,
                                                           const StageCapRunFn& run) {
  StatusOr<Schedule> uncapped = run(g, StageCapRun{});
  if (!uncapped.ok()) return uncapped.status();
  int64_t spent = uncapped->time_ns;
  CappedChain chain(g, uncapped->feasible ? uncapped->ii : 0, run, spent);
  std::vector<Schedule> out;
  for (int64_t cap = 1; cap <= max_stages; ++cap) {
    if (kept(*uncapped, cap)) {
      out.push_back(answer(g, cap, *uncapped, nullptr, spent));
      continue;
    }
    if (Status st = chain.extend(cap); !st.ok()) return st;
    out.push_back(answer(g, cap, *uncapped, &chain, spent));
  }
  return out;
}

}  // namespace tilesched
