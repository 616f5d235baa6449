// `tilesched import --from hatschet GRAPH.graphml --resources RM.xml`:
// convert a loop graph from another tool into tilesched.loop/1 JSON
// (generators/include/tilesched/graphgen/hatschet.h describes the mapping).
#include <iostream>

#include "commands.h"
#include "tilesched/graphgen/hatschet.h"
#include "tilesched/json_io.h"

namespace po = boost::program_options;

namespace tilesched::cli {

int run_import(const Args& args) {
  std::string from, graph_path, resources_path;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("from", po::value(&from)->required(), "the input format: hatschet (HatScheT GraphML "
       "graph + XML resource model)")
      ("resources,r", po::value(&resources_path)->required(), "the resource model (RM.xml)")
      ("output,o", po::value<std::string>(), "write the graph here (atomically) instead of "
       "standard output");
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&graph_path)->required(), "the graph file");
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "import",
                                           "--from hatschet GRAPH.graphml --resources RM.xml "
                                           "[-o FILE]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (from != "hatschet") {
    return fail("import", Status::InvalidInput("--from: unknown format '" + from +
                                               "' (hatschet)"));
  }
  StatusOr<Graph> graph = graphgen::import_hatschet(graph_path, resources_path);
  if (!graph.ok()) return fail("import", graph.status());
  std::optional<std::string> out;
  if (vm.count("output")) out = vm["output"].as<std::string>();
  if (Status s = emit(out, write_graph_json(*graph)); !s.ok()) return fail("import", s);
  return kExitOk;
}

}  // namespace tilesched::cli
