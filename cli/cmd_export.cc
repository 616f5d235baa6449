// `tilesched export GRAPH --dot | --resolved`: the loop graph in another
// form (docs/DRAW.md). --dot writes Graphviz DOT (latency and distance on
// each edge, loop-carried edges dashed, order edges dotted); --resolved
// writes tilesched.resolved/1, the graph with every kind default applied and
// the target's slots and pools spelled out, which scripts/draw.py reads so
// that the machine model has one source, the engine.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "tilesched/json_io.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

// `s` as a DOT double-quoted string: quotes and backslashes escaped,
// newlines as \n, other control characters dropped.
std::string dot_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) {
      out += c;
    }
  }
  return out + "\"";
}

std::string to_dot(const Graph& g) {
  std::string out = "digraph " + dot_quote(g.name) + " {\n";
  out += "  graph [label=" +
         dot_quote(g.name + " (" + g.target.name + "): " + std::to_string(g.op_count()) +
                   " ops, " + std::to_string(g.edge_count()) + " edges") +
         ", labelloc=t, fontname=\"Helvetica\"];\n";
  out += "  node [shape=box, fontname=\"Helvetica\"];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  for (OpId v = 0; v < g.op_count(); ++v) {
    const Op& op = g.ops[v];
    out += "  n" + std::to_string(v) + " [label=" +
           dot_quote(op.name + "\n" + op.kind + ", lat " + std::to_string(op.latency)) + "];\n";
  }
  for (const Edge& e : g.edges) {
    std::string label = "lat " + std::to_string(e.latency);
    if (e.distance > 0) label += "\ndist " + std::to_string(e.distance);
    std::string style = e.kind == EdgeKind::kOrder ? "dotted" : e.distance > 0 ? "dashed" : "solid";
    out += "  n" + std::to_string(e.from) + " -> n" + std::to_string(e.to) +
           " [label=" + dot_quote(label) + ", style=" + style + "];\n";
  }
  return out + "}\n";
}

std::string to_resolved_json(const Graph& g) {
  using Json = nlohmann::ordered_json;
  Json slots = Json::array();
  for (int s = 1; s <= g.target.slot_count(); ++s) {
    slots.push_back({{"slot", s}, {"name", g.target.slot(s).name},
                     {"capacity", g.target.slot(s).capacity}});
  }
  Json pools = Json::array();
  for (const Pool& p : g.target.pools) {
    pools.push_back({{"name", p.name}, {"kind", std::string(pool_kind_name(p.kind))},
                     {"capacity", p.capacity}});
  }
  Json ops = Json::array();
  for (const Op& op : g.ops) {
    Json resources = Json::array();
    for (const Triple& t : op.resources) {
      resources.push_back({{"slot", t.slot}, {"duration", t.duration}, {"occupancy", t.occupancy}});
    }
    Json uses = Json::object();
    for (const PoolUse& p : op.pools) uses[g.target.pools[p.pool].name] = p.count;
    ops.push_back({{"id", op.name}, {"kind", op.kind}, {"latency", op.latency},
                   {"resources", resources}, {"pools", uses}});
  }
  Json edges = Json::array();
  for (const Edge& e : g.edges) {
    edges.push_back({{"from", g.ops[e.from].name}, {"to", g.ops[e.to].name},
                     {"latency", e.latency}, {"distance", e.distance},
                     {"kind", e.kind == EdgeKind::kOrder ? "order" : "data"}});
  }
  const Json doc = {{"format", "tilesched.resolved/1"}, {"name", g.name},
                    {"target", {{"name", g.target.name}, {"slots", slots}, {"pools", pools}}},
                    {"ops", ops}, {"edges", edges}};
  return doc.dump(1) + "\n";
}

}  // namespace

int run_export(const Args& args) {
  std::string graph_path;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("dot", "Graphviz DOT: one box per op (id, kind, latency), one arrow per edge labelled "
              "with its latency and distance; loop-carried edges dashed, order edges dotted")
      ("resolved", "tilesched.resolved/1 JSON: every op's latency, resources and pools with "
                   "the kind defaults applied, edges with their latencies, the target's slots "
                   "and pools (what scripts/draw.py reads)");
  add_output_option(visible, "the DOT or JSON");
  add_quiet_option(visible);
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&graph_path)->value_name("GRAPH")->required(),
                       "loop graph JSON, - for standard input");
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "export", "GRAPH (--dot | --resolved) [-o FILE]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (vm.count("dot") == vm.count("resolved")) {
    return fail("export", Status::InvalidInput("give exactly one of --dot and --resolved"));
  }
  StatusOr<Graph> graph = read_graph_input(graph_path);
  if (!graph.ok()) return fail("export", graph.status());
  const std::string text = vm.count("dot") ? to_dot(*graph) : to_resolved_json(*graph);
  if (Status s = emit(output_path(vm), text); !s.ok()) return fail("export", s);
  return kExitOk;
}

}  // namespace tilesched::cli
