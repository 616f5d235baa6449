// `tilesched schedule GRAPH`: read a loop graph, run a generator, print the
// schedule JSON (docs/FORMATS.md) or, with --emit region, the
// materialized region (docs/MATERIALIZE.md). Exit 1 when no legal schedule
// exists.
#include <iostream>

#include "commands.h"
#include "foreign_schedule.h"
#include "option_rules.h"
#include "tilesched/foreign.h"
#include "tilesched/generate.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "tilesched/materialize.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

// The options given as text, before they are checked.
struct ScheduleFlags {
  std::string graph_path, generator = "auto", arm_policy = "first-success", ii_search = "linear",
                          emit_kind = "json", policy_fallback = "on", packing_repair = "cost-based",
                          exact_backend = "sat", sat_encoding = "rowstage", effort = "default";
  double time_limit_s = 10.0;
};

// The generator and its search: which generator, the stage cap, the
// selector's threshold and the cost-based generator's knobs.
void add_generator_options(po::options_description& visible, ScheduleFlags& f,
                           GenerateOptions& opts) {
  visible.add_options()
      ("generator,g", po::value(&f.generator)->default_value("auto"),
       "auto | serial | cost-based | cost-based-seed (cost-based as the seeds write it, "
       "docs/COST_BASED.md) | ims (Rau's iterative modulo scheduling) | sms (swing "
       "modulo scheduling) | exact (the "
       "oracle, on CaDiCaL or Z3: the optimal II, proven when the time limit allows); auto applies seed 001's "
       "selector and says on stderr when it picks serial; ext:NAME | plugin:PATH: a foreign "
       "scheduler (docs/PLUGINS.md)")
      ("max-stages", po::value(&opts.max_stages)->default_value(0),
       "the stage cap: the least II with at most this many stages, every generator "
       "(every op's max_depth lowered to S - 1); 0 = no cap")
      ("serial-threshold", po::value(&opts.serial_threshold)->default_value(8),
       "auto: graphs of fewer ops get the serial schedule (seed 001's threshold; 0 = never "
       "for that reason)")
      ("arm-policy", po::value(&f.arm_policy)->default_value("first-success"),
       "cost-based: first-success (seed 004: the first arm that seats wins) or best-cost "
       "(seed 001: every arm proposes, the cheapest wins)")
      ("effort", po::value(&f.effort)->default_value("default"),
       "cost-based: fast | default | full, the work budget of each II attempt, the II walk "
       "and the descent, counted in work units (docs/COST_BASED.md \"Effort\"); full: no "
       "budget beyond the mechanisms' own")
      ("ii-search", po::value(&f.ii_search)->default_value("linear"),
       "cost-based: linear (MII, MII+1, ...) or galloping (seed 000's exponential-then-binary "
       "driver)")
      ("ii-cap", po::value(&opts.search.ii_cap)->default_value(0),
       "cost-based, ims, sms: largest II tried; 0 = the serial schedule's II")
      ("seed", po::value(&opts.cost_based.seed)->default_value(1),
       "cost-based: seed of the permute arm's sampling")
      ("max-constraint-iterations",
       po::value(&opts.cost_based.max_constraint_iterations)->default_value(16),
       "cost-based: bound of the constraint refinement loop (seed 003)")
      ("backtrack-budget-ratio",
       po::value(&opts.cost_based.backtrack_budget_ratio)->default_value(32),
       "cost-based: seats per op the backtracking rung may spend at one II; 0 = the seeds' "
       "ladder only (docs/COST_BASED.md)");
}

// What runs after or around a generator: the packing repair, the policy
// fallback, the descent, ims's and the oracle's budgets, and the output's kind.
void add_budget_options(po::options_description& visible, ScheduleFlags& f,
                        GenerateOptions& opts) {
  visible.add_options()
      ("packing-repair", po::value(&f.packing_repair)->default_value("cost-based"),
       "cost-based | all | off: after which generators (cost-based; all = ims and sms too), "
       "on graphs of at most 64 ops whose slots pack several holders per row, the IIs below "
       "the answer are tried by the oracle's SAT model under a fixed work budget "
       "(docs/EXACT.md, \"The packing repair\")")
      ("policy-fallback", po::value(&f.policy_fallback)->default_value("on"),
       "cost-based best-cost: on = first-success's rungs run when best-cost's fail at an II, "
       "and its whole attempt when best-cost's placement misses the SMEM budget; "
       "off = seed 001's policy alone")
      ("descent-budget-ratio",
       po::value(&opts.cost_based.descent_budget_ratio)->default_value(1000),
       "cost-based: seats per op the backtracking rung may spend at each II below the one "
       "the search found; 0 = keep the search's II (docs/COST_BASED.md)")
      ("ims-budget-ratio", po::value(&opts.ims.budget_ratio)->default_value(3.0),
       "ims: placement steps per II, as a multiple of the op count (Rau's BudgetRatio)")
      ("time-limit", po::value(&f.time_limit_s)->default_value(10.0),
       "exact: wall-clock budget in seconds (the heuristic upper bound included); when it "
       "ends, the best schedule found and the best lower bound, proven_optimal false")
      ("exact-backend", po::value(&f.exact_backend)->default_value("sat"),
       "exact: sat (a CNF on CaDiCaL) or smt (an integer model on Z3); "
       "docs/EXACT.md")
      ("exact-start-sum", po::bool_switch(&opts.exact.minimise_start_sum),
       "exact, --exact-backend smt: after the stage count, minimise the sum of starts (a "
       "canonical tie-break among the optimal schedules; dozens more checks); docs/EXACT.md")
      ("sat-encoding", po::value(&f.sat_encoding)->default_value("rowstage"),
       "exact, --exact-backend sat: the CNF, rowstage (an op's row and stage apart) or time "
       "(one literal per op and cycle of its window: larger models); docs/EXACT.md")
      ("emit", po::value(&f.emit_kind)->default_value("json"),
       "json (the schedule with its Pipe_/Mutex_ values) or region (the materialized region "
       "as MLIR-like text: stages, ops in order, values spliced in)");
}

po::options_description schedule_options(ScheduleFlags& f, GenerateOptions& opts) {
  po::options_description visible("options");
  visible.add_options()("help,h", "show this help");
  add_generator_options(visible, f, opts);
  add_budget_options(visible, f, opts);
  add_output_option(visible, "the schedule (or region)");
  add_quiet_option(visible);
  return visible;
}

Status check_numbers(const ScheduleFlags& f, GenerateOptions& opts);

// Checks the flags and fills in `opts`; InvalidInput names the option.
Status resolve_flags(const ScheduleFlags& f, GenerateOptions& opts) {
  if (f.emit_kind != "json" && f.emit_kind != "region") {
    return Status::InvalidInput("--emit: unknown output '" + f.emit_kind + "' (json, region)");
  }
  if (std::optional<GeneratorKind> k = parse_generator(f.generator)) {
    opts.generator = *k;
  } else {
    return Status::InvalidInput("--generator: unknown generator '" + f.generator +
                                "' (" + generator_names() + ")");
  }
  if (std::optional<ArmPolicy> p = parse_arm_policy(f.arm_policy)) {
    opts.cost_based.arm_policy = *p;
  } else {
    return Status::InvalidInput("--arm-policy: unknown policy '" + f.arm_policy +
                                "' (first-success, best-cost)");
  }
  if (std::optional<Effort> e = parse_effort(f.effort)) {
    opts.cost_based.effort = *e;
  } else {
    return Status::InvalidInput("--effort: unknown level '" + f.effort + "' (fast, default, full)");
  }
  if (f.policy_fallback != "on" && f.policy_fallback != "off") {
    return Status::InvalidInput("--policy-fallback: '" + f.policy_fallback + "' is not on or off");
  }
  opts.cost_based.policy_fallback = f.policy_fallback == "on";
  const std::optional<PackingRepair> repair = parse_packing_repair(f.packing_repair);
  if (!repair) {
    return Status::InvalidInput("--packing-repair: '" + f.packing_repair +
                                "' is not cost-based, all or off");
  }
  opts.packing_repair = *repair;
  if (std::optional<IiSearch> s = parse_ii_search(f.ii_search)) {
    opts.cost_based.ii_search = *s;
  } else {
    return Status::InvalidInput("--ii-search: unknown search '" + f.ii_search +
                                "' (linear, galloping)");
  }
  return check_numbers(f, opts);
}

// The numeric options' ranges; fills the ones derived from them.
Status check_numbers(const ScheduleFlags& f, GenerateOptions& opts) {
  if (opts.search.ii_cap < 0 || opts.cost_based.max_constraint_iterations < 1) {
    return Status::InvalidInput("--ii-cap must be >= 0 and --max-constraint-iterations >= 1");
  }
  if (opts.cost_based.backtrack_budget_ratio < 0 ||
      opts.cost_based.backtrack_budget_ratio > 1000000 ||
      opts.cost_based.descent_budget_ratio < 0 ||
      opts.cost_based.descent_budget_ratio > 1000000) {
    return Status::InvalidInput(
        "--backtrack-budget-ratio and --descent-budget-ratio must be between 0 and 1000000");
  }
  // NaN fails both comparisons.
  if (!(opts.ims.budget_ratio > 0.0 && opts.ims.budget_ratio <= 1000.0)) {
    return Status::InvalidInput("--ims-budget-ratio must be above 0 and at most 1000");
  }
  // Up to a day; NaN fails both comparisons.
  if (!(f.time_limit_s >= 0.0 && f.time_limit_s <= 86400.0)) {
    return Status::InvalidInput("--time-limit must be between 0 and 86400 seconds");
  }
  opts.exact.time_limit_ms = static_cast<int64_t>(f.time_limit_s * 1000.0 + 0.5);
  if (std::optional<ExactBackend> b = parse_exact_backend(f.exact_backend)) {
    opts.exact.backend = *b;
  } else {
    return Status::InvalidInput("--exact-backend: unknown backend '" + f.exact_backend +
                                "' (sat, smt)");
  }
  if (std::optional<SatEncoding> e = parse_sat_encoding(f.sat_encoding)) {
    opts.exact.sat_encoding = *e;
  } else {
    return Status::InvalidInput("--sat-encoding: unknown encoding '" + f.sat_encoding +
                                "' (rowstage, time)");
  }
  if (opts.max_stages < 0 || opts.max_stages > limits::kMaxMaxDepth + 1) {
    return Status::InvalidInput("--max-stages must be between 0 and " +
                                std::to_string(limits::kMaxMaxDepth + 1));
  }
  if (opts.serial_threshold < 0 || opts.serial_threshold > limits::kMaxOps + 1) {
    return Status::InvalidInput("--serial-threshold must be between 0 and " +
                                std::to_string(limits::kMaxOps + 1));
  }
  return Status::Ok();
}

// --sat-encoding with another backend than sat (the backend reads no CNF),
// --exact-start-sum with another than smt.
// (Which generator reads which option is the table of option_rules.cc.)
Status check_backend_options(const po::variables_map& vm) {
  if (vm.count("sat-encoding") && !vm["sat-encoding"].defaulted() &&
      vm["exact-backend"].as<std::string>() != "sat") {
    return Status::InvalidInput("--sat-encoding applies to --exact-backend sat only");
  }
  // The sum over every start has no small CNF: the SAT backend cannot bound it.
  if (vm.count("exact-start-sum") && !vm["exact-start-sum"].defaulted() &&
      vm["exact-backend"].as<std::string>() != "smt") {
    return Status::InvalidInput("--exact-start-sum applies to --exact-backend smt only");
  }
  return Status::Ok();
}

}  // namespace

int run_schedule(const Args& args) {
  ScheduleFlags f;
  GenerateOptions opts;
  const po::options_description visible = schedule_options(f, opts);
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&f.graph_path)->value_name("GRAPH")->required(),
                       "loop graph JSON, - for standard input");
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "schedule", "GRAPH [options]", visible, hidden,
                                           positional, vm)) {
    return *done;
  }
  if (is_foreign_generator(f.generator)) {
    return run_foreign_schedule(vm, {f.graph_path, f.generator, f.emit_kind, opts.max_stages,
                                     opts.search.ii_cap});
  }
  if (Status s = resolve_flags(f, opts); !s.ok()) return fail("schedule", s);
  if (Status s = check_option_rules("schedule", vm, {&opts.generator, 1}); !s.ok()) {
    return fail("schedule", s);
  }
  if (Status s = check_backend_options(vm); !s.ok()) return fail("schedule", s);
  StatusOr<Graph> graph = read_graph_input(f.graph_path);
  if (!graph.ok()) return fail("schedule", graph.status());
  StatusOr<Schedule> schedule = generate_schedule(*graph, opts);
  if (!schedule.ok()) return fail("schedule", schedule.status());

  const std::string text =
      f.emit_kind == "region"
          ? dump_region(*graph, *schedule, carried_materialization(*graph, *schedule))
          : write_schedule_json(*graph, *schedule);
  if (Status s = emit(output_path(vm), text); !s.ok()) {
    return fail("schedule", s);
  }
  if (opts.generator == GeneratorKind::kAuto &&
      schedule->generator != generator_name(GeneratorKind::kCostBased) && !quiet(vm)) {
    // The selector's choice is not the pipelining generator: say so once
    // (after the output is written: a failed write stays one line).
    std::cerr << "tilesched schedule: " << input_name(f.graph_path) << ": " << schedule->selection
              << ": the " << schedule->generator << " generator runs"
              << (graph->attrs.force_serial_execution ? ""
                                                      : " (--generator cost-based pipelines it)")
              << "\n";
  }
  if (!schedule->feasible) {
    std::cerr << "tilesched schedule: " << input_name(f.graph_path) << ": no legal schedule ("
              << failure_reason_name(schedule->failure) << ")\n";
    return kExitNoSchedule;
  }
  return kExitOk;
}

}  // namespace tilesched::cli
