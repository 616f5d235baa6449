// tilesched: schedule, verify, explain, generate, import and export loop
// graphs; sweep generators over graph families, compare and merge sweeps,
// replay a sweep row; predict num_stages and the time of a stage assignment.
// `tilesched --help` lists them.
#include <iostream>
#include <string>
#include <string_view>

#include "commands.h"
#include "tilesched/version.h"

namespace {

constexpr std::string_view kUsage =
    "usage: tilesched COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  schedule GRAPH   schedule a loop graph and print the schedule JSON\n"
    "  verify GRAPH SCHEDULE [--json]\n"
    "                   check a schedule against the legality rules L1-L7\n"
    "  generate --list | --family NAME --ops N [--seed S] [--param k=v ...]\n"
    "                   write a loop graph of a random or structured family\n"
    "  import --from hatschet GRAPH.graphml --resources RM.xml\n"
    "  import --from ttgir FILE.ttgir [--list] [--loop N]\n"
    "                   convert a HatScheT (HLS) instance, or a loop of a Triton TTGIR\n"
    "                   dump, to a loop graph\n"
    "  sweep --output FILE.csv\n"
    "                   run generators over families, sizes and seeds (or graph files) into a CSV\n"
    "  compare BASE.csv NEW.csv\n"
    "                   compare two sweeps; exit 1 when NEW regresses\n"
    "  merge OUT.csv SHARD.csv...\n"
    "                   join the shards of one sweep into the file a single run writes\n"
    "  replay FILE.csv --row N\n"
    "                   regenerate one sweep row's graph and schedule\n"
    "  export GRAPH --dot | --resolved\n"
    "  export GRAPH SCHEDULE|--own --to triton\n"
    "                   write the loop graph as Graphviz DOT or with its defaults resolved,\n"
    "                   or a schedule of a TTGIR loop as the stages Triton's pipeliner reads\n"
    "  explain GRAPH [SCHEDULE] [--json]\n"
    "                   why the II is not lower: the MII bound that binds, or a core\n"
    "                   of ops, edges and slots infeasible below it\n"
    "  stages GRAPH [--max S] [--json]\n"
    "                   II, shared memory, CTAs per SM and predicted time for num_stages 1..S\n"
    "  predict GRAPH SCHEDULE | GRAPH --triton S [--json]\n"
    "                   the predicted time, shared memory and bound of a stage assignment\n"
    "  candidates GRAPH -o DIR\n"
    "                   every generator's distinct stage assignment of a TTGIR loop, priced,\n"
    "                   ranked and exported for Triton\n"
    "\n"
    "`tilesched COMMAND --help` describes each. Exit status: 0 done, 1 no legal\n"
    "schedule (verify: illegal), 2 bad usage or bad input. Every command takes\n"
    "-q/--quiet, and all but merge (OUT.csv first) -o/--output FILE (- for\n"
    "standard output); an input GRAPH or SCHEDULE of - is standard input.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace tilesched::cli;
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitBadInput;
  }
  const std::string_view command = argv[1];
  const Args args(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "tilesched " << tilesched::engine_version() << " ("
              << tilesched::engine_git_sha() << ")\n";
    return kExitOk;
  }
  if (command == "schedule") return run_schedule(args);
  if (command == "verify") return run_verify(args);
  if (command == "generate") return run_generate(args);
  if (command == "import") return run_import(args);
  if (command == "sweep") return run_sweep(args);
  if (command == "compare") return run_compare(args);
  if (command == "merge") return run_merge(args);
  if (command == "replay") return run_replay(args);
  if (command == "export") return run_export(args);
  if (command == "explain") return run_explain(args);
  if (command == "stages") return run_stages(args);
  if (command == "predict") return run_predict(args);
  if (command == "candidates") return run_candidates(args);
  std::cerr << "tilesched: unknown command '" << command << "' (see tilesched --help)\n";
  return kExitBadInput;
}
