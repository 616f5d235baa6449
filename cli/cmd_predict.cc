// `tilesched predict GRAPH SCHEDULE`: the price of a stage assignment on
// Hopper, from the model `tilesched stages` uses (hopper::predict_schedule):
// time per loop iteration (SM cycles, microseconds) and per kernel, shared
// memory for the buffers the assignment needs, CTAs per SM and what caps
// them, the bound that decides the time, and the time relative to Triton's
// own schedule at a num_stages. `--triton S` prices Triton's own assignment
// instead of a SCHEDULE. Text or --json (tilesched.predict/1,
// docs/FORMATS.md).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "hopper_options.h"
#include "option_rules.h"
#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/triton_export.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

constexpr int64_t kMaxNumStages = 32;

struct PredictFlags : HopperFlags {
  std::string graph_path, schedule_path;
  std::optional<int64_t> triton, num_stages;
  bool json = false;
};

// The assignment priced and Triton's own it is compared with.
struct Priced {
  std::string source;  // the schedule's generator, or "triton"
  std::optional<int64_t> ii;
  std::vector<int64_t> stage;
  hopper::StagePrediction p;
  std::vector<int64_t> copies;  // hopper::buffer_copies
  int64_t baseline_stages = 1;
  hopper::StagePrediction baseline;
};

po::options_description predict_options(PredictFlags& f) {
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("triton", po::value<int64_t>(),
       "price Triton's own stage assignment at this num_stages (instead of a SCHEDULE)")
      ("num-stages", po::value<int64_t>(),
       "the num_stages of Triton's own schedule the time is compared with (default: the "
       "graph's attrs.triton_num_stages, else the assignment's stage count)");
  add_hopper_options(visible, f);
  visible.add_options()
      ("json", po::bool_switch(&f.json), "write tilesched.predict/1 JSON instead of the text");
  add_output_option(visible, "the text or JSON");
  add_quiet_option(visible);
  return visible;
}

Status check_flags(const PredictFlags& f, HopperSetup& setup) {
  const bool has_schedule = !f.schedule_path.empty();
  if (has_schedule == f.triton.has_value()) {
    return Status::InvalidInput("give either a SCHEDULE or --triton S, not both or neither");
  }
  for (const auto& [flag, value] : {std::pair{"--triton", f.triton}, {"--num-stages", f.num_stages}}) {
    if (value && (*value < 1 || *value > kMaxNumStages)) {
      return Status::InvalidInput(std::string(flag) + " must be between 1 and " +
                                  std::to_string(kMaxNumStages));
    }
  }
  return check_hopper_flags(f, setup);
}

// A schedule of a loop imported from TTGIR is priced as Triton would run
// it, so one that export --to triton refuses (Triton's pipeliner would
// lower it to wrong results, or refuse it) is refused here too. Graphs not
// imported from TTGIR have no such rules.
Status check_exportable(const Graph& g, const Schedule& s) {
  for (const Op& op : g.ops) {
    if (!op.source_position || !op.source_op) return Status::Ok();
  }
  StatusOr<TritonSchedule> t = triton_schedule_from(g, s);
  if (!t.ok()) return t.status();
  return check_triton_lowering(g, *t);
}

// The schedule's stage of every op, refused when an edge runs backwards
// (a producer in a later stage than its consumer allows): no pipeline runs it.
StatusOr<std::vector<int64_t>> schedule_stages(const Graph& g, const PredictFlags& f,
                                               Priced& out) {
  StatusOr<Schedule> s = read_stage_assignment_input(f.schedule_path, g);
  if (!s.ok()) return s.status();
  if (!s->feasible) {
    return Status::InvalidInput(input_name(f.schedule_path) +
                                ": $.feasible: the schedule is infeasible: no stages to price");
  }
  for (const Edge& e : g.edges) {
    if (s->stage[e.from] > s->stage[e.to] + e.distance) {
      return Status::InvalidInput(
          input_name(f.schedule_path) + ": $.ops: '" + g.ops[e.from].name + "' in stage " +
          std::to_string(s->stage[e.from]) + " feeds '" + g.ops[e.to].name + "' in stage " +
          std::to_string(s->stage[e.to]) + " at distance " + std::to_string(e.distance) +
          ": the edge runs backwards");
    }
  }
  if (Status st = check_exportable(g, *s); !st.ok()) {
    return Status::InvalidInput(input_name(f.schedule_path) + ": " + st.message());
  }
  out.source = s->generator.empty() ? "schedule" : s->generator;
  out.ii = s->ii;
  return s->stage;
}

StatusOr<Priced> price(const Graph& g, const PredictFlags& f, const HopperSetup& setup) {
  Priced out;
  if (f.triton) {
    out.source = "triton";
    out.stage = hopper::triton_stages(g, *f.triton);
  } else {
    StatusOr<std::vector<int64_t>> stage = schedule_stages(g, f, out);
    if (!stage.ok()) return stage.status();
    out.stage = *stage;
  }
  const hopper::CtaFootprint cta{0, setup.registers, setup.warps * 32};
  out.p = f.triton ? hopper::predict_stages(g, *f.triton, cta, f.fit, *setup.gpu)
                   : hopper::predict_schedule(g, out.stage, cta, f.fit, *setup.gpu);
  out.copies = hopper::buffer_copies(g, out.stage);
  out.baseline_stages = f.num_stages ? *f.num_stages
                        : g.attrs.triton_num_stages && *g.attrs.triton_num_stages >= 1 &&
                                *g.attrs.triton_num_stages <= kMaxNumStages
                            ? *g.attrs.triton_num_stages
                            : out.p.stages;
  out.baseline = hopper::predict_stages(g, out.baseline_stages, cta, f.fit, *setup.gpu);
  return out;
}

bool fits(const hopper::StagePrediction& p) { return p.ctas_per_sm > 0; }

std::optional<double> relative(const Priced& r) {
  if (!fits(r.p) || !fits(r.baseline)) return std::nullopt;
  return r.p.sm_cycles / r.baseline.sm_cycles;
}

nlohmann::ordered_json buffers_json(const Graph& g, const Priced& r) {
  using Json = nlohmann::ordered_json;
  Json buffers = Json::array();
  for (int v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].store_bytes <= 0) continue;
    buffers.push_back({{"op", g.ops[v].name}, {"bytes", g.ops[v].store_bytes},
                       {"copies", r.copies[v]}});
  }
  return buffers;
}

std::string as_json(const Graph& g, const PredictFlags& f, const HopperSetup& setup,
                    const Priced& r) {
  using Json = nlohmann::ordered_json;
  Json out = {{"format", "tilesched.predict/1"}, {"graph", g.name}, {"source", r.source},
              {"ii", r.ii ? Json(*r.ii) : Json(nullptr)}, {"stage_count", r.p.stages},
              {"stage", r.stage}};
  add_hopper_setup_json(out, f, setup);
  out["smem_bytes"] = r.p.smem_bytes;
  out["resident_smem_bytes"] = g.attrs.resident_smem_bytes.value_or(0);
  out["buffers"] = buffers_json(g, r);
  add_prediction_json(out, r.p, g, f, setup);
  out["bound_detail"] = bound_detail(r.p);
  out["busiest_unit"] = std::string(hopper::kSlotNames[r.p.busiest_slot - 1]);
  out["triton"] = {{"num_stages", r.baseline_stages},
                   {"smem_bytes", r.baseline.smem_bytes},
                   {"sm_cycles", fits(r.baseline) ? Json(rounded(r.baseline.sm_cycles)) : Json(nullptr)}};
  const std::optional<double> rel = relative(r);
  out["relative_to_triton"] = rel ? Json(rounded(*rel)) : Json(nullptr);
  add_kernel_class_json(out, g, setup, {r.p});
  return out.dump(2) + "\n";
}

std::string smem_text(const Graph& g, const Priced& r) {
  std::string out = "shared memory: " + std::to_string(r.p.smem_bytes) + " bytes per CTA (";
  std::string parts;
  if (g.attrs.resident_smem_bytes.value_or(0) > 0) {
    parts = "resident " + std::to_string(*g.attrs.resident_smem_bytes);
  }
  for (int v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].store_bytes <= 0) continue;
    parts += (parts.empty() ? "" : ", ") + g.ops[v].name + " " +
             std::to_string(g.ops[v].store_bytes) + " x " + std::to_string(r.copies[v]);
  }
  return out + (parts.empty() ? "no buffers" : parts) + ")\n";
}

std::string as_text(const Graph& g, const PredictFlags& f, const HopperSetup& setup,
                    const Priced& r) {
  char line[512];
  std::string out = g.name + ": " + r.source +
                    (r.ii ? ", II " + ii_with_unit(g, *r.ii) : std::string()) +
                    ", " +
                    std::to_string(r.p.stages) + (r.p.stages == 1 ? " stage\n" : " stages\n");
  out += hopper_setup_text(setup) + "\n" + kernel_class_text(g, setup, {r.p}) + "\n" + smem_text(g, r);
  if (!fits(r.p)) return out + "does not fit: one CTA needs more than 227 KiB of shared memory\n";
  std::snprintf(line, sizeof line,
                "time per iteration: %.0f SM cycles (%.3f us), %lld CTA%s per SM (limited by %s), "
                "one CTA %.0f cycles\n",
                r.p.sm_cycles, microseconds_per_iteration(r.p, *setup.gpu),
                static_cast<long long>(r.p.ctas_per_sm), r.p.ctas_per_sm == 1 ? "" : "s",
                std::string(hopper::cta_limit_name(r.p.ctas_limit)).c_str(), r.p.cta_cycles);
  out += line;
  out += "bound: " + bound_text(r.p) + "; loaded memory latency " +
         std::to_string(static_cast<long long>(r.p.memory_latency + 0.5)) + " cycles\n";
  if (f.grid && f.trip) {
    std::snprintf(line, sizeof line, "kernel: %.1f us (%lld CTAs, %lld iterations each)\n",
                  hopper::kernel_microseconds(r.p, kernel_shape(g, f), *setup.gpu),
                  static_cast<long long>(*f.grid), static_cast<long long>(*f.trip));
    out += line;
  }
  if (const std::optional<double> rel = relative(r)) {
    std::snprintf(line, sizeof line, "relative to Triton's own at num_stages %lld (%.0f cycles): %.3f\n",
                  static_cast<long long>(r.baseline_stages), r.baseline.sm_cycles, *rel);
    out += line;
  }
  return out;
}

}  // namespace

int run_predict(const Args& args) {
  PredictFlags f;
  const po::options_description visible = predict_options(f);
  po::options_description hidden;
  hidden.add_options()
      ("graph", po::value(&f.graph_path)->value_name("GRAPH")->required(),
       "loop graph JSON on the hopper target, - for standard input")
      ("schedule", po::value(&f.schedule_path)->value_name("SCHEDULE"), "schedule JSON");
  po::positional_options_description positional;
  positional.add("graph", 1).add("schedule", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "predict", "GRAPH (SCHEDULE | --triton S) [--json]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (Status s = check_option_rules("predict", vm); !s.ok()) return fail("predict", s);
  read_hopper_options(vm, f);
  if (vm.count("triton")) f.triton = vm["triton"].as<int64_t>();
  if (vm.count("num-stages")) f.num_stages = vm["num-stages"].as<int64_t>();
  HopperSetup setup;
  if (Status s = check_flags(f, setup); !s.ok()) return fail("predict", s);
  StatusOr<Graph> graph = read_graph_input(f.graph_path);
  if (!graph.ok()) return fail("predict", graph.status());
  if (Status s = require_hopper_target(*graph, f.graph_path); !s.ok()) return fail("predict", s);
  complete_hopper_setup(*graph, f, setup);
  StatusOr<Priced> priced = price(*graph, f, setup);
  if (!priced.ok()) return fail("predict", priced.status());
  const std::string text =
      f.json ? as_json(*graph, f, setup, *priced) : as_text(*graph, f, setup, *priced);
  if (Status s = emit(output_path(vm), text); !s.ok()) return fail("predict", s);
  return kExitOk;
}

}  // namespace tilesched::cli
