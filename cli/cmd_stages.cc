// `tilesched stages GRAPH`: for num_stages S = 1..max, the least II a
// generator finds with at most S stages, and the hopper target's prediction
// of the loop pipelined by Triton at S stages (shared memory per CTA, CTAs
// per SM, SM cycles and microseconds per iteration, the bound that decides
// the time, time relative to the best S), then the recommended S: the least
// whose predicted time is within 2 % of the best. Warps come from the graph
// and registers are estimated from it unless given. Text or --json (schema
// tilesched.stages/1, docs/TARGETS.md, "tilesched stages").
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "hopper_options.h"
#include "option_rules.h"
#include "tilesched/generate.h"
#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

constexpr double kRecommendTolerance = 1.02;  // within 2 % of the best
constexpr int64_t kMaxStagesAsked = 32;

struct StagesFlags : HopperFlags {
  std::string graph_path, generator = "cost-based", effort = "default";
  int64_t max_stages = 6;
  bool json = false;
  double time_limit_s = 10.0;
};

using Setup = HopperSetup;

struct StageRow {
  hopper::StagePrediction p;
  std::optional<int64_t> ii;  // absent when the generator found no schedule
  std::optional<int64_t> stage_count;
  // The exact generator's proof: whether every lower II was proven
  // infeasible, and the least II it did not refute; none for a heuristic.
  std::optional<bool> ii_proven;
  std::optional<int64_t> ii_lower_bound;
  double relative_time = 0.0;  // 0 when one CTA does not fit
};

po::options_description stages_options(StagesFlags& f) {
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("max", po::value(&f.max_stages)->default_value(6), "num_stages tried: 1..MAX (1..32)")
      ("generator,g", po::value(&f.generator)->default_value("cost-based"),
       "the generator whose II(S) is printed (tilesched schedule --generator)");
  add_hopper_options(visible, f);
  visible.add_options()
      ("effort", po::value(&f.effort)->default_value("default"),
       "cost-based: fast | default | full, its work budget (tilesched schedule --effort)")
      ("time-limit", po::value(&f.time_limit_s)->default_value(10.0),
       "exact: wall-clock budget per S in seconds")
      ("json", po::bool_switch(&f.json), "write tilesched.stages/1 JSON instead of the table");
  add_output_option(visible, "the table or JSON");
  add_quiet_option(visible);
  return visible;
}

Status check_ranges(const StagesFlags& f) {
  if (f.max_stages < 1 || f.max_stages > kMaxStagesAsked) {
    return Status::InvalidInput("--max must be between 1 and " + std::to_string(kMaxStagesAsked));
  }
  if (!(f.time_limit_s >= 0.0 && f.time_limit_s <= 86400.0)) {
    return Status::InvalidInput("--time-limit must be between 0 and 86400 seconds");
  }
  return Status::Ok();
}

Status check_flags(const StagesFlags& f, GenerateOptions& opts, Setup& setup) {
  if (Status s = check_ranges(f); !s.ok()) return s;
  if (Status s = check_hopper_flags(f, setup); !s.ok()) return s;
  std::optional<GeneratorKind> k = parse_generator(f.generator);
  if (!k) {
    return Status::InvalidInput("--generator: unknown generator '" + f.generator + "' (" +
                                generator_names() + ")");
  }
  opts.generator = *k;
  if (std::optional<Effort> e = parse_effort(f.effort)) {
    opts.cost_based.effort = *e;
  } else {
    return Status::InvalidInput("--effort: unknown level '" + f.effort + "' (fast, default, full)");
  }
  opts.exact.time_limit_ms = static_cast<int64_t>(f.time_limit_s * 1000.0 + 0.5);
  return Status::Ok();
}

// Every S's row; relative times against the fastest S that fits. The
// generator schedules the graph with the loaded memory latency, the one
// the prediction uses.
StatusOr<std::vector<StageRow>> predict_all(const Graph& g, const StagesFlags& f,
                                            const Setup& setup, const GenerateOptions& opts) {
  const hopper::CtaFootprint cta{0, setup.registers, setup.warps * 32};
  const Graph loaded = hopper::with_loaded_memory_latency(g, f.fit);
  StatusOr<std::vector<Schedule>> schedules =
      generate_schedules_per_stage_cap(loaded, opts, f.max_stages);
  if (!schedules.ok()) return schedules.status();
  std::vector<StageRow> rows;
  double best = 0.0;
  for (int64_t s = 1; s <= f.max_stages; ++s) {
    StageRow r;
    r.p = hopper::predict_stages(g, s, cta, f.fit, *setup.gpu);
    if (const Schedule& schedule = (*schedules)[s - 1]; schedule.feasible) {
      r.ii = schedule.ii;
      r.stage_count = schedule.stage_count;
      if (opts.generator == GeneratorKind::kExact) {
        r.ii_proven = schedule.proven_optimal;
        r.ii_lower_bound = schedule.lower_bound;
      }
    }
    if (r.p.ctas_per_sm > 0 && (best == 0.0 || r.p.sm_cycles < best)) best = r.p.sm_cycles;
    rows.push_back(r);
  }
  for (StageRow& r : rows) {
    if (r.p.ctas_per_sm > 0 && best > 0.0) r.relative_time = r.p.sm_cycles / best;
  }
  return rows;
}

std::optional<int64_t> recommended(const std::vector<StageRow>& rows) {
  for (const StageRow& r : rows) {
    if (r.p.ctas_per_sm > 0 && r.relative_time <= kRecommendTolerance) return r.p.stages;
  }
  return std::nullopt;
}

std::vector<hopper::StagePrediction> predictions(const std::vector<StageRow>& rows) {
  std::vector<hopper::StagePrediction> out;
  for (const StageRow& r : rows) out.push_back(r.p);
  return out;
}

nlohmann::ordered_json row_json(const StageRow& r, const Graph& g, const StagesFlags& f,
                                const Setup& setup) {
  using Json = nlohmann::ordered_json;
  const bool fits = r.p.ctas_per_sm > 0;
  Json o;
  o["s"] = r.p.stages;
  o["ii"] = r.ii ? Json(*r.ii) : Json(nullptr);
  o["stage_count"] = r.stage_count ? Json(*r.stage_count) : Json(nullptr);
  o["ii_proven_optimal"] = r.ii_proven ? Json(*r.ii_proven) : Json(nullptr);
  o["ii_lower_bound"] = r.ii_lower_bound ? Json(*r.ii_lower_bound) : Json(nullptr);
  o["smem_bytes"] = r.p.smem_bytes;
  add_prediction_json(o, r.p, g, f, setup);
  o["busiest_unit"] = std::string(hopper::kSlotNames[r.p.busiest_slot - 1]);
  o["relative_time"] = fits ? Json(rounded(r.relative_time)) : Json(nullptr);
  return o;
}

std::string as_json(const Graph& g, const StagesFlags& f, const Setup& setup,
                    const std::vector<StageRow>& rows) {
  using Json = nlohmann::ordered_json;
  Json stages = Json::array();
  for (const StageRow& r : rows) stages.push_back(row_json(r, g, f, setup));
  const std::optional<int64_t> rec = recommended(rows);
  Json out = {{"format", "tilesched.stages/1"},
              {"graph", g.name},
              {"generator", f.generator},
              {"gpu", std::string(setup.gpu->name)},
              {"registers", setup.registers},
              {"registers_estimated", setup.registers_estimated},
              {"warps", setup.warps},
              {"warps_from", setup.warps_from},
              {"ii_unit_cycles", hopper::kCyclesPerUnit},
              {"fit", {{"max_loaded_memory_latency", f.fit.max_loaded_memory_latency},
                       {"l2_bytes_per_cycle", f.fit.l2_bytes_per_cycle}}},
              {"stages", stages},
              {"recommended", rec ? Json(*rec) : Json(nullptr)}};
  add_kernel_class_json(out, g, setup, predictions(rows));
  return out.dump(2) + "\n";
}

// The lines above the table: the graph, what the prediction ran with and
// where each figure came from, and the constants it assumes.
std::string setup_text(const Graph& g, const StagesFlags& f, const Setup& setup) {
  char line[512];
  std::snprintf(line, sizeof line,
                "gpu %s (%lld MHz, %lld SMs), %lld warps (%s), %lld registers per thread (%s)\n",
                std::string(setup.gpu->name).c_str(), static_cast<long long>(setup.gpu->clock_mhz),
                static_cast<long long>(setup.gpu->sm_count), static_cast<long long>(setup.warps),
                setup.warps_from.c_str(), static_cast<long long>(setup.registers),
                setup.registers_estimated ? "estimated from the graph" : "given");
  std::string out = g.name + "\n" + line;
  std::snprintf(line, sizeof line,
                "assumed: memory latency %lld cycles idle, at most %lld on a loaded SM (fit); "
                "L2 -> SM %lld bytes/cycle (fit), HBM %.2f bytes/cycle per SM\n",
                static_cast<long long>(hopper::kIdleMemoryLatency),
                static_cast<long long>(f.fit.max_loaded_memory_latency),
                static_cast<long long>(f.fit.l2_bytes_per_cycle),
                hopper::dram_bytes_per_cycle(*setup.gpu));
  return out + line;
}

// What each column is, and which are computed and which predicted.
std::string column_notes(const StagesFlags& f) {
  return "our schedule: the " + f.generator +
         " generator's least II with at most S stages (SM cycles, " +
         std::to_string(hopper::kCyclesPerUnit) +
         " per unit) and its stage count, computed.\n"
         "predicted, for Triton's own pipeline at num_stages S (its stage assignment, not our "
         "schedule): shared memory per CTA,\n"
         "  CTAs per SM (shared memory, registers, warps), the loaded memory latency, one CTA's "
         "cycles per iteration, and the SM's:\n"
         "  one CTA's over the CTAs sharing the SM, at least the busiest unit's (so not II), in "
         "us at the clock, over the best S.\n";
}

// The rows whose II the exact generator did not prove least (its time limit
// ended first), with the lower bound it reached.
std::string unproven_note(const std::vector<StageRow>& rows) {
  std::string out;
  for (const StageRow& r : rows) {
    if (!r.ii_proven || *r.ii_proven) continue;
    out += (out.empty() ? "" : ", ") + std::string("S ") + std::to_string(r.p.stages) +
           " (lower bound " +
           (r.ii_lower_bound ? std::to_string(*r.ii_lower_bound * hopper::kCyclesPerUnit) +
                                   " cycles"
                             : std::string("none")) +
           ")";
  }
  if (out.empty()) return out;
  return "* not proven least: the time limit ended before the exact generator proved "
         "every lower II infeasible: " + out + "\n";
}

std::string as_text(const Graph& g, const StagesFlags& f, const Setup& setup,
                    const std::vector<StageRow>& rows) {
  std::string out = setup_text(g, f, setup) + kernel_class_text(g, setup, predictions(rows)) + "\n";
  out += "      our schedule    | predicted: Triton's pipeline at num_stages S, on one SM\n";
  out += "   S  II cycles stages |  smem bytes  CTAs  latency  CTA cycles   SM cycles  "
         "us/iter  relative  bound\n";
  out += "                       |     per CTA per SM   cycles  /iteration  /iteration\n";
  char line[256];
  for (const StageRow& r : rows) {
    std::string ii = r.ii ? std::to_string(*r.ii * hopper::kCyclesPerUnit) : "-";
    if (r.ii_proven && !*r.ii_proven) ii += "*";
    const std::string sc = r.stage_count ? std::to_string(*r.stage_count) : "-";
    const long long s = static_cast<long long>(r.p.stages);
    const long long smem = static_cast<long long>(r.p.smem_bytes);
    if (r.p.ctas_per_sm > 0) {
      std::snprintf(line, sizeof line,
                    "%4lld %10s %6s | %11lld %6lld %8.0f %11.0f %11.0f %8.3f %9.3f  %s\n", s,
                    ii.c_str(), sc.c_str(), smem, static_cast<long long>(r.p.ctas_per_sm),
                    r.p.memory_latency, r.p.cta_cycles, r.p.sm_cycles,
                    microseconds_per_iteration(r.p, *setup.gpu), r.relative_time,
                    bound_text(r.p).c_str());
    } else {
      std::snprintf(line, sizeof line, "%4lld %10s %6s | %11lld %6s %8s %11s %11s %8s %9s  %s\n",
                    s, ii.c_str(), sc.c_str(), smem, "0", "-", "-", "-", "-", "-",
                    bound_text(r.p).c_str());
    }
    out += line;
  }
  out += column_notes(f);
  out += unproven_note(rows);
  const std::optional<int64_t> rec = recommended(rows);
  if (rec && f.grid && f.trip) {
    const double us = hopper::kernel_microseconds(rows[*rec - 1].p, kernel_shape(g, f), *setup.gpu);
    std::snprintf(line, sizeof line, "kernel at num_stages %lld: %.1f us (predicted)\n",
                  static_cast<long long>(*rec), us);
    out += line;
  }
  return out + "recommended num_stages: " + (rec ? std::to_string(*rec) : std::string("none")) +
         "\n";
}

}  // namespace

int run_stages(const Args& args) {
  StagesFlags f;
  const po::options_description visible = stages_options(f);
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&f.graph_path)->value_name("GRAPH")->required(),
                       "loop graph JSON on the hopper target, - for standard input");
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "stages", "GRAPH [--max S] [--json]", visible,
                                           hidden, positional, vm)) {
    return *done;
  }
  read_hopper_options(vm, f);
  GenerateOptions opts;
  Setup setup;
  if (Status s = check_flags(f, opts, setup); !s.ok()) return fail("stages", s);
  if (Status s = check_option_rules("stages", vm, {&opts.generator, 1}); !s.ok()) {
    return fail("stages", s);
  }
  StatusOr<Graph> graph = read_graph_input(f.graph_path);
  if (!graph.ok()) return fail("stages", graph.status());
  if (Status s = require_hopper_target(*graph, f.graph_path); !s.ok()) return fail("stages", s);
  if (Status s = require_unpipelined_loop(*graph, f.graph_path, "a num_stages");
      !s.ok()) {
    return fail("stages", s);
  }
  complete_hopper_setup(*graph, f, setup);
  StatusOr<std::vector<StageRow>> rows = predict_all(*graph, f, setup, opts);
  if (!rows.ok()) return fail("stages", rows.status());
  const std::string text =
      f.json ? as_json(*graph, f, setup, *rows) : as_text(*graph, f, setup, *rows);
  if (Status s = emit(output_path(vm), text); !s.ok()) return fail("stages", s);
  return kExitOk;
}

}  // namespace tilesched::cli
