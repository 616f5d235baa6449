// A foreign scheduler through `tilesched schedule` (foreign_schedule.h):
// resolve it, run it once, materialize and verify its answer, write it like
// any generator's. A foreign scheduler's failure is bad input here (exit 2,
// one line naming the graph, the scheduler and the failure kind), never a
// partial output file.
#include <iostream>

#include "commands.h"
#include "foreign_schedule.h"
#include "tilesched/foreign.h"
#include "tilesched/json_io.h"
#include "tilesched/materialize.h"
#include "tilesched/verify.h"

namespace tilesched::cli {
namespace {

// The options a foreign scheduler reads; every other one given explicitly
// is refused rather than ignored.
constexpr const char* kForeignOptions[] = {"generator", "max-stages", "ii-cap", "emit",
                                           "output",    "quiet",      "graph"};

Status check_foreign_options(const boost::program_options::variables_map& vm,
                             const std::string& generator) {
  for (const auto& [name, value] : vm) {
    if (value.defaulted()) continue;
    bool read = false;
    for (const char* o : kForeignOptions) read = read || name == o;
    if (!read) {
      return Status::InvalidInput("--" + name + " applies to the built-in generators only, not " +
                                  generator + " (a foreign scheduler reads --max-stages and "
                                  "--ii-cap)");
    }
  }
  return Status::Ok();
}

}  // namespace

int run_foreign_schedule(const boost::program_options::variables_map& vm,
                         const ForeignScheduleArgs& args) {
  if (args.emit_kind != "json" && args.emit_kind != "region") {
    return fail("schedule", Status::InvalidInput("--emit: unknown output '" + args.emit_kind +
                                                 "' (json, region)"));
  }
  if (Status s = check_foreign_options(vm, args.generator); !s.ok()) return fail("schedule", s);
  if (args.ii_cap < 0 || args.max_stages < 0) {
    return fail("schedule", Status::InvalidInput("--ii-cap and --max-stages must be >= 0"));
  }
  StatusOr<ForeignScheduler> sched = resolve_foreign(args.generator);
  if (!sched.ok()) return fail("schedule", sched.status());
  StatusOr<Graph> graph = read_graph_input(args.graph_path);
  if (!graph.ok()) return fail("schedule", graph.status());

  ForeignRequest req;
  req.ii_max = args.ii_cap;
  req.max_stages = args.max_stages;
  ForeignOutcome o = run_foreign(*sched, *graph, req);
  const std::string where = input_name(args.graph_path) + ": " + sched->name + ": ";
  if (!o.schedule) {
    return fail("schedule", Status::InvalidInput(where + std::string(foreign_failure_name(o.failure)) +
                                                 ": " + o.message));
  }
  Schedule& s = *o.schedule;
  if (s.feasible) {
    StatusOr<Materialization> m = materialize(*graph, s);
    if (m.ok()) {
      attach_materialization(s, std::move(*m));
    } else {
      s.diagnostics.push_back(m.status().message());
    }
    const VerifyReport report = verify_schedule(*graph, s);
    if (!report.legal()) {
      const Violation& v = report.violations.front();
      return fail("schedule", Status::InvalidInput(
                                  where + "illegal: " + std::string(rule_name(v.rule)) + ": " +
                                  v.message +
                                  (report.violations.size() > 1
                                       ? " (+" + std::to_string(report.violations.size() - 1) +
                                             " more)"
                                       : "")));
    }
  }
  s.options.emplace_back("version", sched->version);
  const std::string text =
      args.emit_kind == "region"
          ? dump_region(*graph, s, carried_materialization(*graph, s))
          : write_schedule_json(*graph, s);
  if (!s.feasible) {
    std::cerr << "tilesched schedule: " << where << "no legal schedule ("
              << failure_reason_name(s.failure) << ")"
              << (s.diagnostics.empty() ? "" : ": " + s.diagnostics.front()) << "\n";
    if (Status st = emit(output_path(vm), text); !st.ok()) return fail("schedule", st);
    return kExitNoSchedule;
  }
  if (Status st = emit(output_path(vm), text); !st.ok()) return fail("schedule", st);
  return kExitOk;
}

}  // namespace tilesched::cli
