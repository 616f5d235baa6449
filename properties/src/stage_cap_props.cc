// The stage cap (docs/CONTRACT.md, `--max-stages S`), for every generator:
// a cap S at least the uncapped schedule's stage count gives the uncapped
// schedule, and the II never rises as S grows (no schedule counts as above
// every II). Each capped schedule has at most S stages and is legal for the
// uncapped graph, by the independent checkers. The oracle proves its IIs
// only within its time limit, so for it the II rule is checked between
// proven answers.
#include <algorithm>
#include <limits>
#include <vector>

#include "prop_util.h"
#include "tilesched/generate.h"

namespace tilesched::props {
namespace {

// The caps tried below the uncapped stage count: 1..kMaxCapsBelow (a cap
// S runs the generator up to S + 1 times).
constexpr int64_t kMaxCapsBelow = 4;

struct Run {
  GeneratorKind kind;
  ArmPolicy policy = ArmPolicy::kFirstSuccess;
};

std::string name_of(const Run& r) {
  std::string n(generator_name(r.kind));
  if (r.kind == GeneratorKind::kCostBased) n += std::string("/") + std::string(arm_policy_name(r.policy));
  return n;
}

Schedule schedule_with_cap(const Graph& g, const Run& r, int64_t cap) {
  GenerateOptions o;
  o.generator = r.kind;
  o.cost_based.arm_policy = r.policy;
  o.max_stages = cap;
  o.exact.time_limit_ms = 5'000;
  StatusOr<Schedule> s = generate_schedule(g, o);
  if (!s.ok()) RC_FAIL(name_of(r) + " returned a status: " + s.status().message());
  return std::move(s).value();
}

// The schedule itself: what a consumer reads (options, MII, time and the
// diagnostics say how it was found), and the heuristics' counters (the
// oracle's stats carry its timings).
bool same_schedule(const Schedule& a, const Schedule& b, bool exact) {
  return a.feasible == b.feasible && a.ii == b.ii && a.start == b.start && a.stage == b.stage &&
         a.order == b.order && a.stage_count == b.stage_count && a.flags == b.flags &&
         a.pipes == b.pipes && a.mutexes == b.mutexes && (exact || a.stats == b.stats);
}

// The caps tried: 1..min(U, kMaxCapsBelow), then U and U + 1.
std::vector<int64_t> caps_for(int64_t uncapped_stages) {
  std::vector<int64_t> caps;
  for (int64_t s = 1; s <= std::min(uncapped_stages, kMaxCapsBelow); ++s) caps.push_back(s);
  for (int64_t s : {uncapped_stages, uncapped_stages + 1}) {
    if (caps.back() < s) caps.push_back(s);
  }
  return caps;
}

void monotone_cap(const Graph& g, const Run& r) {
  const Schedule u = schedule_with_cap(g, r, 0);
  RC_PRE(u.feasible);
  const bool exact = r.kind == GeneratorKind::kExact;
  RC_PRE(!exact || u.proven_optimal);
  int64_t last_ii = std::numeric_limits<int64_t>::max();
  int64_t last_cap = 0;
  for (int64_t cap : caps_for(u.stage_count)) {
    const Schedule s = schedule_with_cap(g, r, cap);
    const std::string at = name_of(r) + " under cap " + std::to_string(cap);
    if (s.feasible) {
      if (s.stage_count > cap)
        RC_FAIL(at + ": " + std::to_string(s.stage_count) + " stages");
      require_none(check_legal(g, s), "legality (" + at + ")", s);
    }
    if (cap >= u.stage_count && !same_schedule(s, u, exact))
      RC_FAIL(at + ": not the uncapped schedule (II " + std::to_string(u.ii) + ", " +
              std::to_string(u.stage_count) + " stages) but II " + std::to_string(s.ii) + ", " +
              std::to_string(s.stage_count) + " stages");
    if (exact && !s.proven_optimal) {
      last_ii = std::numeric_limits<int64_t>::max();  // nothing proven to compare with
      continue;
    }
    const int64_t ii = s.feasible ? s.ii : std::numeric_limits<int64_t>::max();
    if (ii > last_ii)
      RC_FAIL(name_of(r) + ": II " + std::to_string(ii) + " under cap " + std::to_string(cap) +
              " > II " + std::to_string(last_ii) + " under cap " + std::to_string(last_cap));
    last_ii = ii;
    last_cap = cap;
  }
  RC_CLASSIFY(u.stage_count > 1, "the cap binds");
}

// generate_schedules_per_stage_cap (one chain for every cap) gives, at
// each cap S, the schedule a run with max_stages S gives, diagnostics,
// options and MII included.
void every_cap_at_once(const Graph& g, const Run& r) {
  GenerateOptions o;
  o.generator = r.kind;
  o.cost_based.arm_policy = r.policy;
  const int64_t most = 3;
  StatusOr<std::vector<Schedule>> all = generate_schedules_per_stage_cap(g, o, most);
  if (!all.ok()) RC_FAIL(name_of(r) + " returned a status: " + all.status().message());
  RC_ASSERT(static_cast<int64_t>(all->size()) == most);
  for (int64_t cap = 1; cap <= most; ++cap) {
    const Schedule alone = schedule_with_cap(g, r, cap);
    const Schedule& at_once = (*all)[cap - 1];
    if (!same_schedule(at_once, alone, false) || at_once.diagnostics != alone.diagnostics ||
        at_once.options != alone.options || at_once.mii.max() != alone.mii.max() ||
        at_once.selection != alone.selection)
      RC_FAIL(name_of(r) + " under cap " + std::to_string(cap) + ": II " +
              std::to_string(at_once.ii) + " at once, II " + std::to_string(alone.ii) + " alone");
  }
}

}  // namespace

RC_GTEST_PROP(StageCap, MonotoneSerial, (const LoopGraph& g)) {
  monotone_cap(g.graph, {GeneratorKind::kSerial});
}
RC_GTEST_PROP(StageCap, MonotoneCostFirstSuccess, (const CostSizedGraph& g)) {
  monotone_cap(g.graph, {GeneratorKind::kCostBased, ArmPolicy::kFirstSuccess});
}
RC_GTEST_PROP(StageCap, MonotoneCostBestCost, (const CostSizedGraph& g)) {
  monotone_cap(g.graph, {GeneratorKind::kCostBased, ArmPolicy::kBestCost});
}
RC_GTEST_PROP(StageCap, MonotoneCostBasedSeed, (const CostSizedGraph& g)) {
  monotone_cap(g.graph, {GeneratorKind::kCostBasedSeed});
}
RC_GTEST_PROP(StageCap, MonotoneIms, (const LoopGraph& g)) {
  monotone_cap(g.graph, {GeneratorKind::kIms});
}
RC_GTEST_PROP(StageCap, MonotoneSms, (const LoopGraph& g)) {
  monotone_cap(g.graph, {GeneratorKind::kSms});
}
RC_GTEST_PROP(StageCap, EveryCapAtOnceIsEachCapAlone, (const CostSizedGraph& g)) {
  const Run r = *rc::gen::element(Run{GeneratorKind::kSerial},
                                  Run{GeneratorKind::kCostBased, ArmPolicy::kFirstSuccess},
                                  Run{GeneratorKind::kCostBased, ArmPolicy::kBestCost},
                                  Run{GeneratorKind::kIms}, Run{GeneratorKind::kSms});
  every_cap_at_once(g.graph, r);
}
// The oracle on small structural graphs, where it proves its IIs.
RC_GTEST_PROP(StageCap, MonotoneExact, ()) {
  const LoopGraph g = *rc::gen::resize(20, structural_graph());
  monotone_cap(g.graph, {GeneratorKind::kExact});
}

}  // namespace tilesched::props
