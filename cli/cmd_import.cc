// `tilesched import --from hatschet GRAPH.graphml --resources RM.xml`:
// convert a loop graph from another tool into tilesched.loop/1 JSON
// (generators/include/tilesched/graphgen/hatschet.h describes the mapping).
#include <iostream>

#include "commands.h"
#include "tilesched/graphgen/hatschet.h"
#include "tilesched/json_io.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

// import_hatschet; GRAPH "-" is read from standard input and the graph
// named "hatschet/stdin".
StatusOr<Graph> import_graph(const std::string& graph_path, const std::string& resources_path) {
  if (graph_path != kStdio) return graphgen::import_hatschet(graph_path, resources_path);
  StatusOr<std::string> graphml = read_standard_input();
  if (!graphml.ok()) return graphml.status();
  StatusOr<std::string> rm = read_file(resources_path);
  if (!rm.ok()) return rm.status();
  return graphgen::import_hatschet_text(*graphml, kStdinName, *rm, resources_path,
                                        "hatschet/stdin");
}

}  // namespace

int run_import(const Args& args) {
  std::string from, graph_path, resources_path;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("from", po::value(&from)->required(), "the input format: hatschet (HatScheT GraphML "
       "graph + XML resource model)")
      ("resources,r", po::value(&resources_path)->required(),
       "the resource model (RM.xml)");
  add_output_option(visible, "the graph");
  add_quiet_option(visible);
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&graph_path)->value_name("GRAPH.graphml")->required(),
                       "the graph file, - for standard input");
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
  StatusOr<Graph> graph = import_graph(graph_path, resources_path);
  if (!graph.ok()) return fail("import", graph.status());
  if (Status s = emit(output_path(vm), write_graph_json(*graph)); !s.ok()) return fail("import", s);
  return kExitOk;
}

}  // namespace tilesched::cli
