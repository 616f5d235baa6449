// Generator selection and dispatch (seed 001, "Generator Selection").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/cost_based.h"
#include "tilesched/exact.h"
#include "tilesched/graph.h"
#include "tilesched/ii_search.h"
#include "tilesched/ims.h"
#include "tilesched/sms.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

enum class GeneratorKind { kAuto, kSerial, kCostBased, kCostBasedSeed, kIms, kSms, kExact };
std::string_view generator_name(GeneratorKind k);
std::optional<GeneratorKind> parse_generator(std::string_view name);
// Every kind, in the order tools list them (the table in generate.cc).
std::span<const GeneratorKind> all_generators();
// Their names, comma-separated: "auto, serial, cost-based, cost-based-seed, ims, sms, exact".
std::string generator_names();

enum class PackingRepair { kCostBased, kAll, kOff };
std::string_view packing_repair_name(PackingRepair p);  // "cost-based", "all", "off"
std::optional<PackingRepair> parse_packing_repair(std::string_view name);

struct GenerateOptions {
  GeneratorKind generator = GeneratorKind::kAuto;
  int serial_threshold = 8;  // seed 001: op count below it selects serial
  // The stage cap: at most this many stages (0: none). Every generator
  // then finds the least II it can with at most S stages (rule L6 with
  // every op's max_depth lowered to S - 1; the schedule's MII is the
  // capped graph's, and its options record max_stages).
  int64_t max_stages = 0;
  // The packing repair (docs/EXACT.md, "The packing repair"): where a
  // generator ends above its lower bound on a graph of at most 64 ops whose
  // slots pack several holders per row, the IIs below its answer are tried
  // by the oracle's SAT model under a fixed work budget. By default after
  // the cost-based generator only (ims and sms are the literature's
  // baselines, docs/BASELINES.md); kAll adds them; kOff: the generators'
  // own answers.
  PackingRepair packing_repair = PackingRepair::kCostBased;
  // The II range and the deadline of whichever heuristic runs (cost-based,
  // cost-based-seed, ims, sms; tilesched/ii_search.h); the packing repair
  // starts at its floor too.
  IiSearchOptions search;
  CostBasedOptions cost_based;
  ImsOptions ims;
  SmsOptions sms;
  ExactOptions exact;
  // Materialize a feasible schedule's Pipe_/Mutex_ values into it (the
  // default). The sweep turns it off to time the generator alone, then
  // calls with_materialization.
  bool materialize = true;
};

struct Selection {
  GeneratorKind chosen = GeneratorKind::kSerial;
  std::string reason;
};

// The seed's selector: force_serial_execution, op count below the
// threshold, or no async/TMA/WGMMA op selects serial; otherwise cost-based.
Selection select_generator(const Graph& g, const GenerateOptions& opts);

// Runs the requested (or selected) generator, records the selection in
// the schedule, and materializes a feasible schedule's Pipe_/Mutex_ values
// into it (materialize.h; not counted in time_ns). A failure of the exact
// oracle's solver is an InvalidInput status; no legal schedule is a
// Schedule with feasible = false.
StatusOr<Schedule> generate_schedule(const Graph& g, const GenerateOptions& opts);

// `s` with its Pipe_/Mutex_ values materialized in (a feasible schedule
// of g; an infeasible one is returned as it is): what generate_schedule
// does after the generator unless opts.materialize is off.
Schedule with_materialization(const Graph& g, Schedule s);

// generate_schedule's schedules under the caps 1..max_stages (REQUIRES:
// max_stages >= 1; opts.max_stages is not read), the one under cap S at
// index S - 1. The heuristics make one uncapped run and one chain of
// capped runs for all of them (stage_cap.h, schedules_under_stage_caps);
// kAuto and the oracle run once per cap. Each schedule is the one
// generate_schedule gives with max_stages S, but for its time_ns.
StatusOr<std::vector<Schedule>> generate_schedules_per_stage_cap(const Graph& g,
                                                                 const GenerateOptions& opts,
                                                                 int64_t max_stages);

}  // namespace tilesched
