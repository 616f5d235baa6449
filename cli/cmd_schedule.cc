// `tilesched schedule GRAPH`: read a loop graph, run a generator, print the
// schedule JSON (SPEC.md section 4). Exit 1 when no legal schedule exists.
#include <iostream>

#include "commands.h"
#include "tilesched/generate.h"
#include "tilesched/json_io.h"

namespace po = boost::program_options;

namespace tilesched::cli {

int run_schedule(const Args& args) {
  std::string graph_path, generator = "auto";
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("generator,g", po::value(&generator)->default_value("auto"),
       "auto | serial (cost-based and exact arrive with later issues); auto applies "
       "seed 001's selector")
      ("output,o", po::value<std::string>(), "write the schedule JSON here (atomically) "
       "instead of standard output");
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&graph_path)->required(), "loop graph JSON");
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "schedule", "GRAPH [options]", visible, hidden,
                                           positional, vm)) {
    return *done;
  }

  GenerateOptions opts;
  if (std::optional<GeneratorKind> k = parse_generator(generator)) {
    opts.generator = *k;
  } else {
    return fail("schedule", Status::InvalidInput("--generator: unknown generator '" + generator +
                                                 "' (auto, serial, cost-based, exact)"));
  }
  StatusOr<Graph> graph = read_graph_file(graph_path);
  if (!graph.ok()) return fail("schedule", graph.status());
  StatusOr<Schedule> schedule = generate_schedule(*graph, opts);
  if (!schedule.ok()) return fail("schedule", schedule.status());

  std::optional<std::string> out;
  if (vm.count("output")) out = vm["output"].as<std::string>();
  if (Status s = emit(out, write_schedule_json(*graph, *schedule)); !s.ok()) {
    return fail("schedule", s);
  }
  if (!schedule->feasible) {
    std::cerr << "tilesched schedule: " << graph_path << ": no legal schedule ("
              << failure_reason_name(schedule->failure) << ")\n";
    return kExitNoSchedule;
  }
  return kExitOk;
}

}  // namespace tilesched::cli
