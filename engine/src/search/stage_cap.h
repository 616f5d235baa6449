// The stage cap (`--max-stages S`, docs/CONTRACT.md): every generator's
// answer under a cap of S stages, monotone by construction. The uncapped
// schedule comes first; when it has at most S stages it is the answer.
// Otherwise the generator runs on the capped graphs (every op's max_depth
// lowered, with_stage_cap in ii_driver.h) for caps 1, 2, ..., S, each
// searching only above the uncapped II and below the best II found so far,
// and the best is kept. So a cap at least the uncapped stage count never
// changes the schedule, and the II never rises as the cap grows. A step
// after the chain (the packing repair) keeps both (StageCapFinishFn).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

// One run of a generator under the cap: its graph (the uncapped one or a
// capped one) and the II range it may search. `ii_floor` and `ii_cap` are 0
// for the uncapped run (the generator's own range); a capped run searches
// [max(its lower bound, ii_floor), ii_cap], ii_cap 0 meaning the
// generator's own cap.
struct StageCapRun {
  int64_t ii_floor = 0;
  int64_t ii_cap = 0;
  int64_t spent_ns = 0;  // the earlier runs' time_ns, for a run with a time limit
  bool capped = false;   // a run of the chain, on a capped graph
};
using StageCapRunFn = std::function<StatusOr<Schedule>(const Graph&, const StageCapRun&)>;

// A step after the chain (the packing repair, api/generate.cc): lowers `s`,
// a schedule of `capped`, searching no IIs below `floor`, adding its work
// to s's work.total and its time to s.time_ns. Where one is given, the
// chain's runs leave it out (StageCapRun::capped) and the answer at cap c
// is the best run up to c with this step applied on the graph capped at c,
// started from the answer at c - 1 where that is lower. The answer at
// c - 1 is worked out only where it can be lower: where the bound at the
// caps below c (their graphs' heuristic lower bound, and the uncapped II)
// is under the best run's II. So the II still never rises as the cap
// grows, and on a loop whose best capped run is at or under the bound of
// every tighter cap, the step runs once.
using StageCapFinishFn = std::function<void(const Graph& capped, int64_t floor, Schedule& s)>;

// How the runs under the cap are chosen.
enum class StageCapMode {
  // The heuristics: the uncapped run, then caps 1..S above its II (above).
  kChain,
  // The oracle: the uncapped run, then only cap S (its proofs make the
  // answer monotone; the runs share the oracle's time limit through
  // StageCapRun::spent_ns).
  kOnce,
};

// The answer under a cap of `max_stages` stages (REQUIRES: >= 1). The
// schedule's options gain max_stages, its MII is the capped graph's, its
// time_ns is the runs' total, and one diagnostic line says which run it is.
// A run that fails with a status ends the call with it.
StatusOr<Schedule> schedule_under_stage_cap(const Graph& g, int64_t max_stages,
                                            StageCapMode mode, const StageCapRunFn& run,
                                            const StageCapFinishFn& finish = nullptr);

// The answers under every cap 1..max_stages at once, in kChain mode: the
// one uncapped run and one chain of capped runs, the answer at S being
// what schedule_under_stage_cap(g, S, kChain, run) gives (its chain is the
// first S runs of this one), so at most max_stages + 1 runs instead of
// about max_stages² / 2. Answer S's time_ns counts the uncapped run and
// the chain's runs up to cap S.
StatusOr<std::vector<Schedule>> schedules_under_stage_caps(const Graph& g, int64_t max_stages,
                                                           const StageCapRunFn& run,
                                                           const StageCapFinishFn& finish = nullptr);

}  // namespace tilesched
