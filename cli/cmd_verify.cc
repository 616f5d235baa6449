// `tilesched verify GRAPH SCHEDULE`: check a schedule against L1-L7 and the
// stage/order totality; exit 0 legal, 1 illegal (every violation listed).
#include <iostream>

#include "commands.h"
#include "tilesched/json_io.h"
#include "tilesched/verify.h"

namespace po = boost::program_options;

namespace tilesched::cli {

int run_verify(const Args& args) {
  std::string graph_path, schedule_path;
  po::options_description visible("options");
  visible.add_options()("help,h", "show this help");
  po::options_description hidden;
  hidden.add_options()
      ("graph", po::value(&graph_path)->required(), "loop graph JSON")
      ("schedule", po::value(&schedule_path)->required(), "schedule JSON");
  po::positional_options_description positional;
  positional.add("graph", 1).add("schedule", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "verify", "GRAPH SCHEDULE", visible, hidden,
                                           positional, vm)) {
    return *done;
  }

  StatusOr<Graph> graph = read_graph_file(graph_path);
  if (!graph.ok()) return fail("verify", graph.status());
  StatusOr<Schedule> schedule = read_schedule_file(schedule_path, *graph);
  if (!schedule.ok()) return fail("verify", schedule.status());
  if (!schedule->feasible) {
    std::cout << schedule_path << ": records no legal schedule (feasible: false)\n";
    return kExitNoSchedule;
  }
  const VerifyReport report = verify_schedule(*graph, *schedule);
  if (report.legal()) {
    std::cout << "legal: " << graph->name << ", II " << schedule->ii << ", "
              << schedule->stage_count << " stage(s), " << graph->op_count() << " ops\n";
    return kExitOk;
  }
  std::cout << "illegal: " << report.violations.size() << " violation(s)\n";
  for (const Violation& v : report.violations) {
    std::cout << "  " << rule_name(v.rule) << ": " << v.message << "\n";
  }
  return kExitNoSchedule;
}

}  // namespace tilesched::cli
