// `tilesched explain GRAPH [SCHEDULE]`: why the II is not lower. The II is
// the schedule's, or, without one, that of the schedule --generator makes.
// Text, or with --json the tilesched.explain/1 document of docs/EXPLAIN.md,
// which `scripts/draw.py --explain` draws over the Gantt chart. When a lower
// II is legal, both give the oracle's schedule at it (the witness).
#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "option_rules.h"
#include "tilesched/explain.h"
#include "tilesched/foreign.h"
#include "tilesched/generate.h"
#include "tilesched/json_io.h"
#include "tilesched/verify.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

std::string edge_text(const Graph& g, int i) {
  const Edge& e = g.edges[i];
  return g.ops[e.from].name + " -> " + g.ops[e.to].name + " (" +
         (e.kind == EdgeKind::kOrder ? "order" : "data") + ", latency " +
         std::to_string(e.latency) + ", distance " + std::to_string(e.distance) + ")";
}

std::string text_explanation(const Graph& g, const Explanation& e, const std::string& source) {
  const MiiBounds& m = e.mii;
  std::string out = g.name + ": II " + ii_with_unit(g, e.ii) + ", " + source + "\n";
  out += "MII " + ii_with_unit(g, m.max()) + ": resource " + std::to_string(m.resource) +
         ", recurrence " + std::to_string(m.recurrence) + ", fine-density " +
         std::to_string(m.fine_density) + ", dependency " + std::to_string(m.dependency) + "\n";
  out += std::string(explain_verdict_name(e.verdict)) + ": " + e.summary + "\n";
  if (!e.ops.empty()) {
    out += "  ops:";
    for (OpId v : e.ops) out += " " + g.ops[v].name;
    out += "\n";
  }
  for (int i : e.edges) out += "  edge: " + edge_text(g, i) + "\n";
  for (const std::string& r : e.resources) out += "  resource: " + r + "\n";
  if (e.witness) {
    out += "  witness at II " + std::to_string(e.witness->ii) + " (op@start; --json gives it as a "
           "schedule):";
    for (OpId v = 0; v < g.op_count(); ++v) {
      out += " " + g.ops[v].name + "@" + std::to_string(e.witness->start[v]);
    }
    out += "\n";
  }
  if (e.checks > 0) out += "  oracle questions: " + std::to_string(e.checks) + "\n";
  return out;
}

std::string json_explanation(const Graph& g, const Explanation& e, const std::string& source) {
  using Json = nlohmann::ordered_json;
  Json ops = Json::array();
  for (OpId v : e.ops) ops.push_back(g.ops[v].name);
  Json edges = Json::array();
  for (int i : e.edges) {
    const Edge& edge = g.edges[i];
    edges.push_back({{"index", i},
                     {"from", g.ops[edge.from].name},
                     {"to", g.ops[edge.to].name},
                     {"kind", edge.kind == EdgeKind::kOrder ? "order" : "data"},
                     {"latency", edge.latency},
                     {"distance", edge.distance}});
  }
  const MiiBounds& m = e.mii;
  const Json doc = {
      {"format", "tilesched.explain/1"},
      {"graph", g.name},
      {"ii", e.ii},
      {"source", source},
      {"mii",
       {{"max", m.max()},
        {"resource", m.resource},
        {"recurrence", m.recurrence},
        {"fine_density", m.fine_density},
        {"dependency", m.dependency}}},
      {"verdict", explain_verdict_name(e.verdict)},
      {"bound", e.bound.empty() ? Json(nullptr) : Json(e.bound)},
      {"summary", e.summary},
      {"ops", ops},
      {"edges", edges},
      {"resources", e.resources},
      {"minimal", e.minimal},
      {"lower_ii", e.verdict == ExplainVerdict::kLowerFeasible ? Json(e.lower_ii) : Json(nullptr)},
      {"witness", e.witness ? Json::parse(write_schedule_json(g, *e.witness)) : Json(nullptr)},
      {"checks", e.checks}};
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// The II to explain: the schedule's, or the generator's schedule's.
StatusOr<Schedule> schedule_to_explain(const Graph& g, const std::string& schedule_path,
                                       const std::string& generator, std::string& source) {
  if (!schedule_path.empty()) {
    source = "the schedule " + input_name(schedule_path);
    return read_schedule_input(schedule_path, g);
  }
  if (is_foreign_generator(generator)) {  // docs/PLUGINS.md
    StatusOr<ForeignScheduler> f = resolve_foreign(generator);
    if (!f.ok()) return f.status();
    ForeignOutcome o = run_foreign(*f, g, {});
    if (!o.schedule) {
      return Status::InvalidInput(f->name + ": " + std::string(foreign_failure_name(o.failure)) +
                                  ": " + o.message);
    }
    source = "the " + f->name + " schedule";
    return std::move(*o.schedule);
  }
  GenerateOptions opts;
  if (std::optional<GeneratorKind> k = parse_generator(generator)) {
    opts.generator = *k;
  } else {
    return Status::InvalidInput("--generator: unknown generator '" + generator + "' (" +
                                generator_names() + ")");
  }
  StatusOr<Schedule> s = generate_schedule(g, opts);
  if (s.ok()) source = "the " + s->generator + " schedule";
  return s;
}

// The options nothing reads (option_rules.h), both inputs on standard
// input, the time limit's range.
Status check_usage(const po::variables_map& vm, const std::string& graph_path,
                   const std::string& schedule_path, double time_limit_s) {
  if (Status s = check_option_rules("explain", vm); !s.ok()) return s;
  if (graph_path == kStdio && schedule_path == kStdio) {
    return Status::InvalidInput("GRAPH and SCHEDULE cannot both be standard input (-)");
  }
  if (!(time_limit_s >= 0.0 && time_limit_s <= 86400.0)) {  // NaN fails both
    return Status::InvalidInput("--time-limit must be between 0 and 86400 seconds");
  }
  return Status::Ok();
}

}  // namespace

int run_explain(const Args& args) {
  std::string graph_path, schedule_path, generator = "cost-based";
  double time_limit_s = 20.0;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("generator,g", po::value(&generator)->default_value("cost-based"),
       "without SCHEDULE: the generator (or ext:NAME, plugin:PATH) whose II is explained")
      ("time-limit", po::value(&time_limit_s)->default_value(20.0),
       "seconds for all the exact oracle's questions together (above the MII)")
      ("json", "print tilesched.explain/1 JSON (docs/EXPLAIN.md)");
  add_output_option(visible, "the explanation");
  add_quiet_option(visible);
  po::options_description hidden;
  hidden.add_options()
      ("graph", po::value(&graph_path)->value_name("GRAPH")->required(),
       "loop graph JSON, - for standard input")
      ("schedule", po::value(&schedule_path)->value_name("SCHEDULE"),
       "schedule JSON, - for standard input");
  po::positional_options_description positional;
  positional.add("graph", 1).add("schedule", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "explain", "GRAPH [SCHEDULE] [--json] [-o FILE]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (Status s = check_usage(vm, graph_path, schedule_path, time_limit_s); !s.ok()) {
    return fail("explain", s);
  }
  StatusOr<Graph> graph = read_graph_input(graph_path);
  if (!graph.ok()) return fail("explain", graph.status());
  std::string source;
  StatusOr<Schedule> schedule = schedule_to_explain(*graph, schedule_path, generator, source);
  if (!schedule.ok()) return fail("explain", schedule.status());
  if (!schedule->feasible) {
    std::cerr << "tilesched explain: " << source << " records no legal schedule ("
              << failure_reason_name(schedule->failure) << "): no II to explain\n";
    return kExitNoSchedule;
  }
  if (const VerifyReport r = verify_schedule(*graph, *schedule); !r.legal()) {
    std::cerr << "tilesched explain: " << source << " is illegal ("
              << rule_name(r.violations.front().rule) << ": " << r.violations.front().message
              << "): tilesched verify lists every violation\n";
    return kExitNoSchedule;
  }
  ExplainOptions opts;
  opts.time_limit_ms = static_cast<int64_t>(time_limit_s * 1000.0 + 0.5);
  opts.check_limit_ms = std::min(opts.check_limit_ms, opts.time_limit_ms);
  StatusOr<Explanation> e = explain_ii(*graph, schedule->ii, opts);
  if (!e.ok()) return fail("explain", e.status());
  const std::string text = vm.count("json") ? json_explanation(*graph, *e, source)
                                            : text_explanation(*graph, *e, source);
  if (Status s = emit(output_path(vm), text); !s.ok()) return fail("explain", s);
  return kExitOk;
}

}  // namespace tilesched::cli
