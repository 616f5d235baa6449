// The stage cap's runs (see stage_cap.h).
#include "stage_cap.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ii_driver.h"
#include "ii_range.h"
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
  // What the finish step (StageCapFinishFn) made of the answer at one cap:
  // the schedule and the work and time of every finish step it took (its
  // own and those of the caps below it worked out for it).
  struct Finished {
    std::optional<Schedule> best;
    int64_t work = 0, ns = 0;
    bool done = false;
  };

  CappedChain(const Graph& g, int64_t floor, const StageCapRunFn& run, int64_t& spent)
      : g_(g), floor_(floor), run_(run), spent_(spent) {}

  Status extend(int64_t cap) {
    Status st = run_at(cap);
    caps_.push_back({cap, best, found_at});
    return st;
  }

  // The answer at the last cap extended with `finish` applied: the best run
  // up to that cap, or the answer at the cap below where that is lower,
  // worked out (and kept) only where the caps below have a bound under the
  // best run's II (stage_cap.h, StageCapFinishFn).
  const Finished& finished(const StageCapFinishFn& finish) { return finished_at(caps_.size() - 1, finish); }

  std::optional<Schedule> best;
  int64_t found_at = 0;
  Schedule last;
  int64_t work() const { return work_; }  // the runs' work.total together

 private:
  struct Cap {
    int64_t cap;
    std::optional<Schedule> best;  // the best run up to this cap
    int64_t found_at;
    Finished finished;
    int64_t bound = -1;            // the least II an answer at this cap can have; -1: not yet
  };

  Status run_at(int64_t cap) {
    if (done_) return Status::Ok();
    StageCapRun r;
    r.ii_floor = floor_;
    r.ii_cap = best ? best->ii - 1 : 0;
    r.spent_ns = spent_;
    r.capped = true;
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

  // An answer at cap i is a run above the floor or a finish step's result
  // at or above the capped graph's lower bound (and the floor).
  int64_t bound_at(size_t i) {
    Cap& c = caps_[i];
    if (c.bound < 0) {
      const Graph h = with_stage_cap(g_, c.cap);
      c.bound = std::max(floor_, ii_lower_bound(h, compute_mii(h).max()));
    }
    return c.bound;
  }

  const Finished& finished_at(size_t i, const StageCapFinishFn& finish) {
    Finished& f = caps_[i].finished;
    if (f.done || !caps_[i].best) return f;
    f.done = true;
    Schedule s = *caps_[i].best;
    int64_t below = INT64_MAX;
    for (size_t j = 0; j < i; ++j) below = std::min(below, bound_at(j));
    if (s.ii > below) {
      const Finished& b = finished_at(i - 1, finish);
      f.work += b.work;
      f.ns += b.ns;
      if (b.best && b.best->ii < s.ii) s = *b.best;
    }
    const int64_t work0 = s.stat("work.total"), ns0 = s.time_ns;
    finish(with_stage_cap(g_, caps_[i].cap), floor_, s);
    f.work += s.stat("work.total") - work0;
    f.ns += s.time_ns - ns0;
    f.best = std::move(s);
    return f;
  }

  const Graph& g_;
  int64_t floor_;
  const StageCapRunFn& run_;
  int64_t& spent_;
  int64_t work_ = 0;
  bool done_ = false;
  std::vector<Cap> caps_;
};

std::string stages_word(int64_t n) { return n == 1 ? " stage" : " stages"; }

std::string uncapped_words(const Schedule& u) {
  if (!u.feasible) return "the uncapped run found no schedule";
  return "the uncapped schedule (II " + std::to_string(u.ii) + ") has " +
         std::to_string(u.stage_count) + stages_word(u.stage_count);
}

// The answer under a cap of `max_stages` from the uncapped run and the
// chain so far (which ran only when the uncapped schedule has more stages).
// With `finish`, the chain's answer is the finished one (CappedChain::
// finished), its work and time added.
Schedule answer(const Graph& g, int64_t max_stages, const Schedule& uncapped,
                CappedChain* chain, int64_t spent, const StageCapFinishFn& finish) {
  Schedule out;
  std::string line;
  int64_t finish_work = 0;
  if (chain == nullptr) {
    out = uncapped;
    line = "stage cap " + std::to_string(max_stages) + ": the uncapped schedule has " +
           std::to_string(out.stage_count) + stages_word(out.stage_count) + " and is kept";
  } else if (chain->best) {
    line = "stage cap " + std::to_string(max_stages) + ": " + uncapped_words(uncapped) +
           "; the run capped at " + std::to_string(chain->found_at) +
           stages_word(chain->found_at) + " found II " + std::to_string(chain->best->ii);
    out = *chain->best;
    if (finish) {
      const CappedChain::Finished& f = chain->finished(finish);
      out = *f.best;
      finish_work = f.work;
      spent += f.ns;
    }
  } else {
    out = chain->last;
    line = "stage cap " + std::to_string(max_stages) + ": no run with at most " +
           std::to_string(max_stages) + stages_word(max_stages) + " found a schedule";
  }
  out.mii = compute_mii(with_stage_cap(g, max_stages));
  out.time_ns = spent;
  // work.total, as time_ns, is every run's: the uncapped one and the chain's.
  for (auto& [k, v] : out.stats) {
    if (k == "work.total") {
      v = uncapped.stat("work.total") + (chain != nullptr ? chain->work() : 0) + finish_work;
    }
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
                                            StageCapMode mode, const StageCapRunFn& run,
                                            const StageCapFinishFn& finish) {
  StatusOr<Schedule> uncapped = run(g, StageCapRun{});
  if (!uncapped.ok()) return uncapped.status();
  int64_t spent = uncapped->time_ns;
  if (kept(*uncapped, max_stages)) {
    return answer(g, max_stages, *uncapped, nullptr, spent, finish);
  }
  CappedChain chain(g, uncapped->feasible ? uncapped->ii : 0, run, spent);
  for (int64_t cap = mode == StageCapMode::kChain ? 1 : max_stages; cap <= max_stages; ++cap) {
    if (Status st = chain.extend(cap); !st.ok()) return st;
  }
  return answer(g, max_stages, *uncapped, &chain, spent, finish);
}

StatusOr<std::vector<Schedule>> schedules_under_stage_caps(const Graph& g, int64_t max_stages,
                                                           const StageCapRunFn& run,
                                                           const StageCapFinishFn& finish) {
  StatusOr<Schedule> uncapped = run(g, StageCapRun{});
  if (!uncapped.ok()) return uncapped.status();
  int64_t spent = uncapped->time_ns;
  CappedChain chain(g, uncapped->feasible ? uncapped->ii : 0, run, spent);
  std::vector<Schedule> out;
  for (int64_t cap = 1; cap <= max_stages; ++cap) {
    if (kept(*uncapped, cap)) {
      out.push_back(answer(g, cap, *uncapped, nullptr, spent, finish));
      continue;
    }
    if (Status st = chain.extend(cap); !st.ok()) return st;
    out.push_back(answer(g, cap, *uncapped, &chain, spent, finish));
  }
  return out;
}

}  // namespace tilesched
