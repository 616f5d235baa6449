// The heuristic schedules the exact oracle starts from and the best of them
// (docs/EXACT.md, "The start"; "Time limit" for the shares of the limit).
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "oracle.h"
#include "tilesched/cost_based.h"
#include "tilesched/ims.h"
#include "tilesched/serial.h"
#include "tilesched/sms.h"
#include "tilesched/verify.h"

namespace tilesched::exact_internal {

int64_t max_stage(const std::vector<int64_t>& start, int64_t ii) {
  int64_t m = 0;
  for (int64_t x : start) m = std::max(m, x / ii);
  return m;
}

// The heuristic schedules the oracle starts from, in the order they run
// (on equal II and stage count the first wins). Another generator (a
// scheduler) joins the start by one entry here. Each run after serial is
// capped at the best II so far: it can tie it with fewer stages, and
// searching above it is wasted. The time limit covers them (docs/EXACT.md,
// "Time limit"): serial always runs (it is linear in the graph and the
// oracle has no answer without it); first-success cost-based may take all
// that remains before the oracle's deadline, each later one half of what
// remains, and a run its deadline cuts short is named in `skipped`, as is
// one that finds no time left to start. best_heuristic verifies every
// schedule.
std::vector<Schedule> heuristic_schedules(const Graph& g, const ExactOptions& opts,
                                          const Budget& budget, std::vector<std::string>& skipped) {
  std::vector<Schedule> out;
  int64_t best_ii = 0;  // 0: none yet
  auto run = [&](const std::string& name, int share, auto generate) {
    const int64_t left_ms = budget.remaining_ms();
    if (left_ms <= 0) {
      skipped.push_back(name);
      return;
    }
    IiSearchOptions search;  // capped at the best II so far, under its share of the time
    search.ii_cap = best_ii;
    search.deadline = Clock::now() + std::chrono::milliseconds(left_ms / share);
    Schedule s = generate(search);
    if (!s.feasible && deadline_passed(search.deadline)) {
      skipped.push_back(name);
      return;
    }
    if (s.feasible && (best_ii == 0 || s.ii < best_ii)) best_ii = s.ii;
    out.push_back(std::move(s));
  };
  out.push_back(generate_serial(g));
  if (out.back().feasible) best_ii = out.back().ii;
  for (ArmPolicy policy : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
    const std::string name = "cost-based (" + std::string(arm_policy_name(policy)) + ")";
    run(name, policy == ArmPolicy::kFirstSuccess ? 1 : 2, [&](const IiSearchOptions& search) {
      CostBasedOptions o = opts.start;
      o.arm_policy = policy;
      Schedule s = generate_cost_based(g, o, search).schedule;
      s.generator = name;
      return s;
    });
  }
  // The baseline modulo schedulers (docs/BASELINES.md).
  run("ims", 2, [&](const IiSearchOptions& search) { return generate_ims(g, {}, search); });
  run("sms", 2, [&](const IiSearchOptions& search) { return generate_sms(g, {}, search); });
  return out;
}

// The legal schedule of least II, then least stage count, shifted so that
// its smallest start is 0 (which keeps it legal, docs/EXACT.md, and only
// lowers stages); nullopt when no heuristic found a legal one.
std::optional<Schedule> best_heuristic(const Graph& g, std::vector<Schedule> candidates) {
  std::optional<Schedule> best;
  bool groups = false;
  for (const Op& op : g.ops) groups = groups || op.leader_gid.has_value();
  for (Schedule& s : candidates) {
    if (!s.feasible || !verify_schedule(g, s).legal()) continue;
    if (!groups && !s.start.empty()) {
      Schedule shifted = s;
      const int64_t low = *std::min_element(s.start.begin(), s.start.end());
      for (int64_t& x : shifted.start) x -= low;
      derive_stage_order(shifted);
      if (verify_schedule(g, shifted).legal()) s = std::move(shifted);
    }
    derive_stage_order(s);
    if (!best || s.ii < best->ii || (s.ii == best->ii && s.stage_count < best->stage_count)) {
      best = std::move(s);
    }
  }
  return best;
}

}  // namespace tilesched::exact_internal
