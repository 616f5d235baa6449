// The cost-based generator's names (effort levels, arm policies, arms,
// gates, rungs, constraint families, give-ups), the seeds' options
// (as_the_seeds_write_it) and its statistics' fields in their fixed order.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilesched/cost_based.h"

namespace tilesched {

std::string_view effort_name(Effort e) {
  static constexpr std::string_view kNames[] = {"fast", "default", "full"};
  return kNames[static_cast<int>(e)];
}
std::optional<Effort> parse_effort(std::string_view name) {
  for (Effort e : {Effort::kFast, Effort::kDefault, Effort::kFull}) {
    if (effort_name(e) == name) return e;
  }
  return std::nullopt;
}

std::string_view arm_policy_name(ArmPolicy p) {
  return p == ArmPolicy::kFirstSuccess ? "first-success" : "best-cost";
}
std::optional<ArmPolicy> parse_arm_policy(std::string_view name) {
  if (name == "first-success") return ArmPolicy::kFirstSuccess;
  if (name == "best-cost") return ArmPolicy::kBestCost;
  return std::nullopt;
}
std::string_view arm_name(Arm a) {
  static constexpr std::string_view kNames[] = {"permute", "fuse", "retry", "cost_based"};
  return kNames[static_cast<int>(a)];
}
std::string_view gate_name(Gate g) {
  static constexpr std::string_view kNames[] = {"g1_pending", "g2_max_depth", "g3_rrt",
                                                "g4_group"};
  return kNames[static_cast<int>(g)];
}
std::string_view rung_name(Rung r) {
  static constexpr std::string_view kNames[] = {
      "rau_refinement", "deepest_retry", "initial_placement", "cost_based_placement",
      "initial_after_clear", "cost_based_after_clear", "backtrack", "serial_fallback"};
  return kNames[static_cast<int>(r)];
}
std::string_view constraint_family_name(ConstraintFamily f) {
  static constexpr std::string_view kNames[] = {"register_pressure", "density", "depth",
                                                "grouping"};
  return kNames[static_cast<int>(f)];
}
std::string_view give_up_name(GiveUp g) {
  static constexpr std::string_view kNames[] = {"positive_cycle", "no_seat", "storage"};
  return kNames[static_cast<int>(g)];
}

CostBasedOptions as_the_seeds_write_it(CostBasedOptions opts) {
  opts.backtrack_budget_ratio = 0;
  opts.descent_budget_ratio = 0;
  opts.policy_fallback = false;
  opts.all_pairs_closure = true;
  opts.ims_start = false;
  opts.compact_stages = false;
  opts.effort = Effort::kFull;  // the seeds' bounds alone
  return opts;
}

namespace {

// Every statistic in the order stats_fields lists them: add(prefix, name,
// value), its key prefix + name.
template <class Add>
void each_stat(const CostBasedStats& s, Add&& add) {
  add("", "ii_tried", s.ii_tried);
  add("", "ii_screened", s.ii_screened);
  for (int a = 0; a < kArmCount; ++a) {
    add("arm_proposals.", arm_name(static_cast<Arm>(a)), s.arm_proposals[a]);
  }
  for (int a = 0; a < kArmCount; ++a) {
    add("arm_wins.", arm_name(static_cast<Arm>(a)), s.arm_wins[a]);
  }
  for (int g = 0; g < kGateCount; ++g) {
    add("gate_rejects.", gate_name(static_cast<Gate>(g)), s.gate_rejects[g]);
  }
  for (int r = 0; r < kRungCount; ++r) {
    add("rung_attempts.", rung_name(static_cast<Rung>(r)), s.rung_attempts[r]);
  }
  for (int r = 0; r < kRungCount; ++r) {
    add("rung_successes.", rung_name(static_cast<Rung>(r)), s.rung_successes[r]);
  }
  for (int g = 0; g < kGiveUpCount; ++g) {
    add("give_ups.", give_up_name(static_cast<GiveUp>(g)), s.give_ups[g]);
  }
  add("", "evictions", s.evictions);
  add("", "backtrack_seats", s.backtrack_seats);
  add("", "descent_successes", s.descent_successes);
  add("", "group_reorders", s.group_reorders);
  add("", "refinement_iterations", s.refinement_iterations);
  add("", "constraints_added", s.constraints_added);
  add("", "constraints_lifted", s.constraints_lifted);
  for (int f = 0; f < kConstraintFamilyCount; ++f) {
    const std::string_view name = constraint_family_name(static_cast<ConstraintFamily>(f));
    add("constraints_added.", name, s.family_added[f]);
    add("constraints_lifted.", name, s.family_lifted[f]);
  }
  add("", "spill_surcharges", s.spill_surcharges);
  add("work.", "search", s.work_search);
  add("work.", "descent", s.work_descent);
  add("work_budget_out.", "attempts", s.attempts_out_of_work);
  add("work_budget_out.", "walk", s.walk_out_of_work);
  add("work_budget_out.", "descent", s.descent_out_of_work);
  add("work.", "start", s.work_start);
  add("work.", "graph", s.work_graph);
  add("work.", "total", s.work_total);
  add("", "start_ii", s.start_ii);
  add("", "start_kept", s.start_kept);
  add("", "packed_first", s.packed_first);
  add("", "bisect_probes", s.bisect_probes);
}

}  // namespace

std::vector<std::pair<std::string, int64_t>> stats_fields(const CostBasedStats& s) {
  // The keys are the same for every schedule: spelled out once.
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    each_stat(CostBasedStats{}, [&](std::string_view prefix, std::string_view name, int64_t) {
      k.push_back(std::string(prefix) + std::string(name));
    });
    return k;
  }();
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(keys.size());
  size_t i = 0;
  each_stat(s, [&](std::string_view, std::string_view, int64_t value) {
    out.emplace_back(keys[i++], value);
  });
  return out;
}

}  // namespace tilesched
