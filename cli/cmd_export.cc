// `tilesched export GRAPH --dot | --resolved`: the loop graph in another
// form (docs/DRAW.md). --dot writes Graphviz DOT (latency and distance on
// each edge, loop-carried edges dashed, order edges dotted); --resolved
// writes tilesched.resolved/1, the graph with every kind default applied and
// the target's slots and pools spelled out, which scripts/draw.py reads so
// that the machine model has one source, the engine.
// `tilesched export GRAPH (SCHEDULE | --own) --to triton`: a schedule of a
// loop imported from TTGIR as Triton's pipeliner reads it, tilesched.triton/1
// (tilesched/triton_export.h; docs/TTGIR.md, "Export to Triton").
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "option_rules.h"
#include "tilesched/triton_export.h"
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

// tilesched.triton/1 of the schedule at `schedule_path`, or with `own` of
// the graph's own Triton schedule, once it passes the lowering checks.
StatusOr<TritonSchedule> triton_schedule(const Graph& g,
                                                   const std::string& schedule_path, bool own) {
  if (own) return triton_schedule_own(g);
  StatusOr<Schedule> s = read_stage_assignment_input(schedule_path, g);
  if (!s.ok()) return s.status();
  return triton_schedule_from(g, *s);
}

StatusOr<std::string> to_triton(const Graph& g, const std::string& schedule_path, bool own,
                                bool buffer_rule) {
  StatusOr<TritonSchedule> t = triton_schedule(g, schedule_path, own);
  if (!t.ok()) return t.status();
  if (Status s = check_triton_lowering(g, *t, buffer_rule); !s.ok()) return s;
  return triton_schedule_json(*t);
}

void add_formats(po::options_description& visible, std::string& to) {
  visible.add_options()
      ("help,h", "show this help")
      ("dot", "Graphviz DOT: one box per op (id, kind, latency), one arrow per edge labelled "
              "with its latency and distance; loop-carried edges dashed, order edges dotted")
      ("resolved", "tilesched.resolved/1 JSON: every op's latency, resources and pools with "
                   "the kind defaults applied, edges with their latencies, the target's slots "
                   "and pools (what scripts/draw.py reads)")
      ("to", po::value(&to)->value_name("triton"),
       "triton: tilesched.triton/1 JSON, SCHEDULE's stage and cluster of every op of a loop "
       "imported from TTGIR, keyed by its position in the loop body (docs/TTGIR.md); refused "
       "where Triton's pipeliner would not lower it correctly")
      ("own", "with --to triton and no SCHEDULE: the graph's own Triton schedule (the "
              "loop.stage and loop.cluster the importer kept)")
      ("skip-buffer-rule", "with --to triton: write a schedule that reads a buffer outside the "
                           "stage writing it, to test that rule on a GPU; its kernel may compute "
                           "wrong results");
}

}  // namespace

int run_export(const Args& args) {
  std::string graph_path, schedule_path, to;
  po::options_description visible("options");
  add_formats(visible, to);
  add_output_option(visible, "the DOT or JSON");
  add_quiet_option(visible);
  po::options_description hidden;
  hidden.add_options()
      ("graph", po::value(&graph_path)->value_name("GRAPH")->required(),
       "loop graph JSON, - for standard input")
      ("schedule", po::value(&schedule_path)->value_name("SCHEDULE"), "schedule JSON");
  po::positional_options_description positional;
  positional.add("graph", 1).add("schedule", 1);
  po::variables_map vm;
  if (std::optional<int> done =
          parse_args(args, "export",
                     "GRAPH (--dot | --resolved) [-o FILE]\n"
                     "       tilesched export GRAPH (SCHEDULE | --own) --to triton [-o FILE]",
                     visible, hidden, positional, vm)) {
    return *done;
  }
  if (Status s = check_option_rules("export", vm); !s.ok()) return fail("export", s);
  const bool triton = vm.count("to") > 0;
  if (vm.count("dot") + vm.count("resolved") + vm.count("to") != 1) {
    return fail("export", Status::InvalidInput("give exactly one of --dot, --resolved and --to"));
  }
  if (triton && to != "triton") {
    return fail("export", Status::InvalidInput("--to " + to + ": the only target is triton"));
  }
  if (triton == (vm.count("schedule") + vm.count("own") != 1)) {
    return fail("export", Status::InvalidInput(
                              triton ? "--to triton needs exactly one of SCHEDULE and --own"
                                     : "SCHEDULE and --own go with --to triton"));
  }
  if (graph_path == kStdio && schedule_path == kStdio) {
    return fail("export", Status::InvalidInput("GRAPH and SCHEDULE cannot both be standard input (-)"));
  }
  StatusOr<Graph> graph = read_graph_input(graph_path);
  if (!graph.ok()) return fail("export", graph.status());
  if (triton) {
    StatusOr<std::string> json = to_triton(*graph, schedule_path, vm.count("own") > 0,
                                           vm.count("skip-buffer-rule") == 0);
    if (!json.ok()) return fail("export", json.status());
    if (Status s = emit(output_path(vm), *json); !s.ok()) return fail("export", s);
    return kExitOk;
  }
  const std::string text = vm.count("dot") ? to_dot(*graph) : to_resolved_json(*graph);
  if (Status s = emit(output_path(vm), text); !s.ok()) return fail("export", s);
  return kExitOk;
}

}  // namespace tilesched::cli
