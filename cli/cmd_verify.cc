// `tilesched verify GRAPH SCHEDULE`: check a schedule against L1-L7 and the
// stage/order totality; exit 0 legal, 1 illegal (every violation listed).
// The verdict is text, or with --json the tilesched.verdict/1 document of
// docs/FORMATS.md.
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "tilesched/json_io.h"
#include "tilesched/verify.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

std::string text_verdict(const Graph& g, const Schedule& s, const std::string& schedule_name,
                         const VerifyReport& report) {
  if (!s.feasible) return schedule_name + ": records no legal schedule (feasible: false)\n";
  if (report.legal()) {
    return "legal: " + g.name + ", II " + ii_with_unit(g, s.ii) + ", " +
           std::to_string(s.stage_count) + " stage(s), " + std::to_string(g.op_count()) +
           " ops\n";
  }
  std::string out = "illegal: " + std::to_string(report.violations.size()) + " violation(s)\n";
  for (const Violation& v : report.violations) {
    out += "  " + std::string(rule_name(v.rule)) + ": " + v.message + "\n";
  }
  return out;
}

std::string json_verdict(const Graph& g, const Schedule& s, const VerifyReport& report) {
  using Json = nlohmann::ordered_json;
  Json counts = Json::object();
  Json violations = Json::array();
  for (const Violation& v : report.violations) {  // in rule order
    const std::string rule(rule_name(v.rule));
    counts[rule] = counts.value(rule, 0) + 1;
    Json ops = Json::array();
    for (OpId op : v.ops) ops.push_back(g.ops[op].name);
    violations.push_back({{"rule", rule}, {"ops", ops}, {"message", v.message}});
  }
  const Json doc = {{"format", "tilesched.verdict/1"},
                    {"graph", g.name},
                    {"legal", s.feasible && report.legal()},
                    {"feasible", s.feasible},
                    {"ii", s.ii},
                    {"stage_count", s.stage_count},
                    {"op_count", g.op_count()},
                    {"violation_count", report.violations.size()},
                    {"rule_counts", counts},
                    {"violations", violations}};
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

int run_verify(const Args& args) {
  std::string graph_path, schedule_path;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("json", "print the verdict as tilesched.verdict/1 JSON (docs/FORMATS.md): legal or "
               "not, each violation's rule, ops and message, counts per rule");
  add_output_option(visible, "the verdict");
  add_quiet_option(visible);
  po::options_description hidden;
  hidden.add_options()
      ("graph", po::value(&graph_path)->value_name("GRAPH")->required(),
       "loop graph JSON, - for standard input")
      ("schedule", po::value(&schedule_path)->value_name("SCHEDULE")->required(),
       "schedule JSON, - for standard input");
  po::positional_options_description positional;
  positional.add("graph", 1).add("schedule", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "verify", "GRAPH SCHEDULE [--json] [-o FILE]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (graph_path == kStdio && schedule_path == kStdio) {
    return fail("verify", Status::InvalidInput(
                              "GRAPH and SCHEDULE cannot both be standard input (-)"));
  }

  StatusOr<Graph> graph = read_graph_input(graph_path);
  if (!graph.ok()) return fail("verify", graph.status());
  StatusOr<Schedule> schedule = read_schedule_input(schedule_path, *graph);
  if (!schedule.ok()) return fail("verify", schedule.status());
  // An infeasible schedule has nothing to check.
  const VerifyReport report = schedule->feasible ? verify_schedule(*graph, *schedule)
                                                 : VerifyReport{};
  const std::string verdict =
      vm.count("json") ? json_verdict(*graph, *schedule, report)
                       : text_verdict(*graph, *schedule, input_name(schedule_path), report);
  if (Status s = emit(output_path(vm), verdict); !s.ok()) return fail("verify", s);
  return schedule->feasible && report.legal() ? kExitOk : kExitNoSchedule;
}

}  // namespace tilesched::cli
