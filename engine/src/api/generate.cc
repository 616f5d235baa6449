// Generator selection (seed 001) and dispatch.
#include "tilesched/generate.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "repair/packing_repair.h"
#include "search/ii_driver.h"
#include "search/stage_cap.h"
#include "tilesched/ims.h"
#include "tilesched/materialize.h"
#include "tilesched/serial.h"
#include "tilesched/sms.h"
#include "util/elapsed.h"
#include "util/test_seams.h"

namespace tilesched {

namespace {

// One row per generator a caller can name: its name and how it runs.
// Adding a generator is one row here (and its kind and options).
struct GeneratorEntry {
  GeneratorKind kind;
  std::string_view name;
  StatusOr<Schedule> (*run)(const Graph&, const GenerateOptions&);
};

// The repair's floor at default (about 10 ms of work at the measured 10-30
// ns per unit, as the search's bound below its start: docs/COST_BASED.md
// "Effort").
constexpr int64_t kRepairFloor = 524'288, kRepairFactor = 16;

// The stats repair.from_ii, repair.tried and repair.work, after
// refinement_status (replacing an earlier level's).
void set_repair_stats(Schedule& s, const PackingRepairReport& r) {
  std::erase_if(s.stats, [](const auto& kv) { return kv.first.starts_with("repair."); });
  s.stats.emplace_back("repair.from_ii", r.from_ii);
  s.stats.emplace_back("repair.tried", r.tried);
  s.stats.emplace_back("repair.work", r.work);
}

StatusOr<Schedule> run_serial(const Graph& g, const GenerateOptions&) {
  return generate_serial(g);
}
// The packing repair after a cost-based level's search, on the call's one
// meter: at default it may spend 16 times what the search spent
// (work.total, the cheaper levels' included) or 524,288 units, whichever is
// more; at full, no bound. Its effect is the schedule's stats repair.from_ii (the II
// before it; 0 where it did not run), repair.tried and repair.work, and
// work.total gains its work.
void repair_after_search(const Graph& g, const GenerateOptions& opts, Effort effort,
                         Schedule& s) {
  PackingRepairOptions ro = packing_repair_options(effort);
  if (effort == Effort::kDefault) {
    ro.work_budget = std::max<int64_t>(kRepairFloor, kRepairFactor * s.stat("work.total"));
  }
  PackingRepairReport report;
  repair_packing(g, opts.search.ii_floor, ro, s, &report);
  test_seams::count_units("repair", report.work);
  for (auto& [k, v] : s.stats) {
    if (k == "work.total") v += report.work;
  }
  // A repair that did not run leaves an earlier level's statistics.
  if (report.from_ii > 0 || s.stat("repair.from_ii") == 0) set_repair_stats(s, report);
}

// One effort level's run and, unless it is off, the packing repair after
// it. More effort is never worse (docs/COST_BASED.md "Effort"): a level
// above fast starts from the cheaper level's whole run (its search, its
// repair) as the schedule to beat, so its II is at most that one's.
Schedule cost_based_at(Effort effort, const Graph& g, const GenerateOptions& opts) {
  CostBasedOptions o = opts.cost_based;
  o.effort = effort;
  const bool repairs = opts.packing_repair != PackingRepair::kOff;
  if (effort == Effort::kFast || !o.ims_start) {
    Schedule s = generate_cost_based(g, o, opts.search).schedule;
    if (repairs) {
      repair_after_search(g, opts, effort, s);
    } else {
      set_repair_stats(s, {});
    }
    return s;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const Effort cheaper = effort == Effort::kFull ? Effort::kDefault : Effort::kFast;
  const Schedule before = cost_based_at(cheaper, g, opts);
  Schedule s =
      generate_cost_based(g, o, opts.search, before.feasible ? &before : nullptr).schedule;
  // Kept the cheaper level's schedule: as it was published (its repair's
  // flag and statistics). This level's repair runs all the same: its bound
  // is larger (fast has none, default's is bounded, full's is not).
  const bool kept = s.feasible && before.feasible && s.ii == before.ii &&
                    s.start == before.start;
  if (kept) {
    s.flags = before.flags;
    std::erase_if(s.stats, [](const auto& kv) { return kv.first.starts_with("repair."); });
    for (const auto& kv : before.stats) {
      if (kv.first.starts_with("repair.")) s.stats.push_back(kv);
    }
  }
  if (repairs) {
    repair_after_search(g, opts, effort, s);
  } else if (!kept) {
    set_repair_stats(s, {});
  }
  s.time_ns = elapsed_ns(t0);
  return s;
}

StatusOr<Schedule> run_cost_based(const Graph& g, const GenerateOptions& opts) {
  return cost_based_at(opts.cost_based.effort, g, opts);
}
StatusOr<Schedule> run_cost_based_seed(const Graph& g, const GenerateOptions& opts) {
  Schedule s =
      generate_cost_based(g, as_the_seeds_write_it(opts.cost_based), opts.search).schedule;
  s.generator = generator_name(GeneratorKind::kCostBasedSeed);
  return s;
}
StatusOr<Schedule> run_ims(const Graph& g, const GenerateOptions& opts) {
  return generate_ims(g, opts.ims, opts.search);
}
StatusOr<Schedule> run_sms(const Graph& g, const GenerateOptions& opts) {
  return generate_sms(g, opts.sms, opts.search);
}
StatusOr<Schedule> run_exact(const Graph& g, const GenerateOptions& opts) {
  StatusOr<ExactResult> r = generate_exact(g, opts.exact);
  if (!r.ok()) return r.status();
  return std::move(r->schedule);
}

constexpr GeneratorEntry kGenerators[] = {
    {GeneratorKind::kAuto, "auto", nullptr},  // resolved by select_generator
    {GeneratorKind::kSerial, "serial", run_serial},
    {GeneratorKind::kCostBased, "cost-based", run_cost_based},
    {GeneratorKind::kCostBasedSeed, "cost-based-seed", run_cost_based_seed},
    {GeneratorKind::kIms, "ims", run_ims},
    {GeneratorKind::kSms, "sms", run_sms},
    {GeneratorKind::kExact, "exact", run_exact},
};

constexpr auto kKinds = [] {
  std::array<GeneratorKind, std::size(kGenerators)> kinds{};
  for (size_t i = 0; i < kinds.size(); ++i) kinds[i] = kGenerators[i].kind;
  return kinds;
}();

const GeneratorEntry& entry(GeneratorKind k) {
  for (const GeneratorEntry& e : kGenerators) {
    if (e.kind == k) return e;
  }
  std::abort();  // every kind has a row
}

}  // namespace

std::string_view generator_name(GeneratorKind k) { return entry(k).name; }

std::string_view packing_repair_name(PackingRepair p) {
  switch (p) {
    case PackingRepair::kCostBased: return "cost-based";
    case PackingRepair::kAll: return "all";
    case PackingRepair::kOff: return "off";
  }
  return "off";
}

std::optional<PackingRepair> parse_packing_repair(std::string_view name) {
  for (PackingRepair p : {PackingRepair::kCostBased, PackingRepair::kAll, PackingRepair::kOff}) {
    if (packing_repair_name(p) == name) return p;
  }
  return std::nullopt;
}

std::optional<GeneratorKind> parse_generator(std::string_view name) {
  for (const GeneratorEntry& e : kGenerators) {
    if (e.name == name) return e.kind;
  }
  return std::nullopt;
}

std::span<const GeneratorKind> all_generators() { return kKinds; }

std::string generator_names() {
  std::string out;
  for (const GeneratorEntry& e : kGenerators) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

Selection select_generator(const Graph& g, const GenerateOptions& opts) {
  if (g.attrs.force_serial_execution) {
    return {GeneratorKind::kSerial, "force_serial_execution is set"};
  }
  if (g.op_count() < opts.serial_threshold) {
    return {GeneratorKind::kSerial, "op count " + std::to_string(g.op_count()) +
                                        " is below serial_threshold " +
                                        std::to_string(opts.serial_threshold)};
  }
  for (const Op& op : g.ops) {
    const OpKind* kind = g.target.find_kind(op.kind);
    if (kind != nullptr && (kind->async || kind->tma || kind->wgmma)) {
      return {GeneratorKind::kCostBased,
              "async/TMA/WGMMA op '" + op.name + "' present and " +
                  std::to_string(g.op_count()) + " ops"};
    }
  }
  return {GeneratorKind::kSerial, "no async pipeline, TMA or WGMMA op"};
}

// MaterializeSchedule after the generator (seed 003's second pass), outside
// the generator's time_ns. Only the plain schedule goes in.
Schedule with_materialization(const Graph& g, Schedule s) {
  if (!s.feasible) return s;
  StatusOr<Materialization> m = materialize(g, s);
  if (m.ok()) {
    attach_materialization(s, std::move(*m));
  } else {
    s.diagnostics.push_back(m.status().message());
  }
  return s;
}

namespace {

// `opts` for one run under the stage cap (stage_cap.h): the heuristics'
// II range narrowed to the run's, the oracle's time limit less what the
// earlier runs spent. A capped run leaves the packing repair to the step
// after the chain (repair_capped).
GenerateOptions for_run(const GenerateOptions& opts, const StageCapRun& r) {
  GenerateOptions o = opts;
  if (r.capped) o.packing_repair = PackingRepair::kOff;
  o.search.ii_floor = std::max(o.search.ii_floor, r.ii_floor);
  int64_t& cap = o.search.ii_cap;
  if (r.ii_cap > 0) cap = cap > 0 ? std::min(cap, r.ii_cap) : r.ii_cap;
  o.exact.time_limit_ms = std::max<int64_t>(0, o.exact.time_limit_ms - r.spent_ns / 1'000'000);
  // A capped run's search below its start: its start's multiple alone (the
  // uncapped run paid the floor).
  if (r.ii_floor > 0) o.cost_based.below_floor = false;
  return o;
}

// One run of generator k, then the packing repair where it applies (the
// heuristics that search IIs: cost-based, ims, sms).
StatusOr<Schedule> run_once(GeneratorKind k, const Graph& g, const GenerateOptions& opts) {
  StatusOr<Schedule> s = entry(k).run(g, opts);
  const bool baseline = k == GeneratorKind::kIms || k == GeneratorKind::kSms;
  // Cost-based repairs inside its run (cost_based_at), after each level.
  const bool repairs = baseline && opts.packing_repair == PackingRepair::kAll;
  if (s.ok() && repairs) {
    repair_packing(g, opts.search.ii_floor, packing_repair_options(opts.cost_based.effort), *s);
  }
  return s;
}

// The packing repair of a capped answer, the step after the stage cap's
// chain (StageCapFinishFn): where generator k repairs at all (run_once,
// cost_based_at), the same repair on the capped graph above `floor` (the
// uncapped II, below which no capped run searched). The chain's runs skip
// theirs, so the repair runs once per answer where no tighter cap could
// have beaten it (stage_cap.h); nullptr where k does not repair.
StageCapFinishFn repair_capped(GeneratorKind k, const GenerateOptions& opts) {
  const bool baseline = k == GeneratorKind::kIms || k == GeneratorKind::kSms;
  const bool cost_based = k == GeneratorKind::kCostBased;
  if (!(cost_based && opts.packing_repair != PackingRepair::kOff) &&
      !(baseline && opts.packing_repair == PackingRepair::kAll)) {
    return nullptr;
  }
  return [k, &opts](const Graph& capped, int64_t floor, Schedule& s) {
    GenerateOptions o = opts;
    o.search.ii_floor = std::max(o.search.ii_floor, floor);
    if (k == GeneratorKind::kCostBased) {
      repair_after_search(capped, o, o.cost_based.effort, s);
    } else {
      repair_packing(capped, o.search.ii_floor, packing_repair_options(o.cost_based.effort), s);
    }
  };
}

// One generator's schedule of `g`, under the stage cap when there is one.
StatusOr<Schedule> run_generator(GeneratorKind k, const Graph& g, const GenerateOptions& opts) {
  if (opts.max_stages <= 0) return run_once(k, g, opts);
  const StageCapMode mode = k == GeneratorKind::kExact ? StageCapMode::kOnce : StageCapMode::kChain;
  return schedule_under_stage_cap(
      g, opts.max_stages, mode,
      [&](const Graph& h, const StageCapRun& r) { return run_once(k, h, for_run(opts, r)); },
      repair_capped(k, opts));
}

}  // namespace

StatusOr<Schedule> generate_schedule(const Graph& g, const GenerateOptions& opts) {
  Selection sel;
  if (opts.generator == GeneratorKind::kAuto) {
    sel = select_generator(g, opts);
    sel.reason = "auto: " + sel.reason;
  } else {
    sel = {opts.generator, "requested"};
  }
  StatusOr<Schedule> s = run_generator(sel.chosen, g, opts);
  if (!s.ok()) return s.status();
  if (opts.generator == GeneratorKind::kAuto && sel.chosen == GeneratorKind::kSerial &&
      !g.attrs.force_serial_execution && s->failure == FailureReason::kDependenceCycle) {
    // Seed 001: when the walk cannot order the ops, "the caller falls back
    // to a stronger strategy"; the cost-based generator seats the ops of a
    // zero-latency cycle in one cycle.
    sel = {GeneratorKind::kCostBased,
           sel.reason + "; the serial walk cannot order a zero-distance cycle, so cost-based"};
    s = run_generator(sel.chosen, g, opts);
    if (!s.ok()) return s.status();
  }
  Schedule out = opts.materialize ? with_materialization(g, std::move(*s)) : std::move(*s);
  out.selection = std::move(sel.reason);
  return out;
}

StatusOr<std::vector<Schedule>> generate_schedules_per_stage_cap(const Graph& g,
                                                                 const GenerateOptions& opts,
                                                                 int64_t max_stages) {
  std::vector<Schedule> out;
  const GeneratorKind k = opts.generator;
  if (k == GeneratorKind::kAuto || k == GeneratorKind::kExact) {
    GenerateOptions o = opts;
    for (int64_t s = 1; s <= max_stages; ++s) {
      o.max_stages = s;
      StatusOr<Schedule> one = generate_schedule(g, o);
      if (!one.ok()) return one.status();
      out.push_back(std::move(*one));
    }
    return out;
  }
  StatusOr<std::vector<Schedule>> all =
      schedules_under_stage_caps(
          g, max_stages,
          [&](const Graph& h, const StageCapRun& r) { return run_once(k, h, for_run(opts, r)); },
          repair_capped(k, opts));
  if (!all.ok()) return all.status();
  for (Schedule& s : *all) {
    out.push_back(opts.materialize ? with_materialization(g, std::move(s)) : std::move(s));
    out.back().selection = "requested";
  }
  return out;
}

}  // namespace tilesched
