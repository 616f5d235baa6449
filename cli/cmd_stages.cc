// `tilesched stages GRAPH --max 6`: for num_stages S = 1..max, the least II
// a generator finds with at most S stages, and the hopper target's
// prediction of the loop pipelined by Triton at S stages (shared memory per
// CTA, CTAs per SM, time relative to the best S), then the recommended S:
// the least whose predicted time is within 2 % of the best. Text or --json
// (schema tilesched.stages/1, docs/TARGETS.md, "tilesched stages").
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "tilesched/generate.h"
#include "tilesched/hopper.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

constexpr double kRecommendTolerance = 1.02;  // within 2 % of the best
constexpr int64_t kMaxStagesAsked = 32;

struct StagesFlags {
  std::string graph_path, generator = "cost-based";
  int64_t max_stages = 6;
  int64_t registers = 128;
  int64_t warps = 4;
  bool json = false;
  double time_limit_s = 10.0;
};

struct StageRow {
  hopper::StagePrediction p;
  std::optional<int64_t> ii;  // absent when the generator found no schedule
  std::optional<int64_t> stage_count;
  double relative_time = 0.0;  // 0 when one CTA does not fit
};

po::options_description stages_options(StagesFlags& f) {
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("max", po::value(&f.max_stages)->default_value(6), "num_stages tried: 1..MAX (1..32)")
      ("generator,g", po::value(&f.generator)->default_value("cost-based"),
       "the generator whose II(S) is printed (tilesched schedule --generator)")
      ("registers", po::value(&f.registers)->default_value(128),
       "registers per thread of the compiled kernel (ptxas's count; for CTAs per SM)")
      ("warps", po::value(&f.warps)->default_value(4), "warps per CTA (Triton's num_warps)")
      ("time-limit", po::value(&f.time_limit_s)->default_value(10.0),
       "exact: wall-clock budget per S in seconds")
      ("json", po::bool_switch(&f.json), "write tilesched.stages/1 JSON instead of the table");
  add_output_option(visible, "the table or JSON");
  add_quiet_option(visible);
  return visible;
}

Status check_flags(const StagesFlags& f, GenerateOptions& opts) {
  if (f.max_stages < 1 || f.max_stages > kMaxStagesAsked) {
    return Status::InvalidInput("--max must be between 1 and " + std::to_string(kMaxStagesAsked));
  }
  if (f.registers < 1 || f.registers > hopper::kMaxRegistersPerThread) {
    return Status::InvalidInput("--registers must be between 1 and " +
                                std::to_string(hopper::kMaxRegistersPerThread));
  }
  if (f.warps < 1 || f.warps > hopper::kMaxThreadsPerSm / 32) {
    return Status::InvalidInput("--warps must be between 1 and " +
                                std::to_string(hopper::kMaxThreadsPerSm / 32));
  }
  if (!(f.time_limit_s >= 0.0 && f.time_limit_s <= 86400.0)) {
    return Status::InvalidInput("--time-limit must be between 0 and 86400 seconds");
  }
  std::optional<GeneratorKind> k = parse_generator(f.generator);
  if (!k) {
    return Status::InvalidInput("--generator: unknown generator '" + f.generator + "' (" +
                                generator_names() + ")");
  }
  opts.generator = *k;
  opts.exact.time_limit_ms = static_cast<int64_t>(f.time_limit_s * 1000.0 + 0.5);
  return Status::Ok();
}

// Every S's row; relative times against the fastest S that fits.
StatusOr<std::vector<StageRow>> predict_all(const Graph& g, const StagesFlags& f,
                                            GenerateOptions opts) {
  const hopper::CtaFootprint cta{0, f.registers, f.warps * 32};
  std::vector<StageRow> rows;
  double best = 0.0;
  for (int64_t s = 1; s <= f.max_stages; ++s) {
    StageRow r;
    r.p = hopper::predict_stages(g, s, cta);
    opts.max_stages = s;
    StatusOr<Schedule> schedule = generate_schedule(g, opts);
    if (!schedule.ok()) return schedule.status();
    if (schedule->feasible) {
      r.ii = schedule->ii;
      r.stage_count = schedule->stage_count;
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

// Rounded to 4 decimals, so that the output is stable across compilers.
double rounded(double x) { return std::round(x * 10000.0) / 10000.0; }

std::string as_json(const Graph& g, const StagesFlags& f, const std::vector<StageRow>& rows) {
  using Json = nlohmann::ordered_json;
  Json stages = Json::array();
  for (const StageRow& r : rows) {
    Json o;
    o["s"] = r.p.stages;
    o["ii"] = r.ii ? Json(*r.ii) : Json(nullptr);
    o["stage_count"] = r.stage_count ? Json(*r.stage_count) : Json(nullptr);
    o["smem_bytes"] = r.p.smem_bytes;
    o["ctas_per_sm"] = r.p.ctas_per_sm;
    o["cta_cycles"] = rounded(r.p.cta_cycles);
    o["sm_cycles"] = r.p.ctas_per_sm > 0 ? Json(rounded(r.p.sm_cycles)) : Json(nullptr);
    o["relative_time"] = r.p.ctas_per_sm > 0 ? Json(rounded(r.relative_time)) : Json(nullptr);
    stages.push_back(o);
  }
  const std::optional<int64_t> rec = recommended(rows);
  Json out = {{"format", "tilesched.stages/1"}, {"graph", g.name},
              {"generator", f.generator},      {"registers", f.registers},
              {"warps", f.warps},              {"stages", stages},
              {"recommended", rec ? Json(*rec) : Json(nullptr)}};
  return out.dump(2) + "\n";
}

std::string as_text(const Graph& g, const std::vector<StageRow>& rows) {
  std::string out = g.name + "\n   S      II  stages  smem_bytes  ctas/SM  cycles/iter  relative\n";
  char line[160];
  for (const StageRow& r : rows) {
    const std::string ii = r.ii ? std::to_string(*r.ii) : "-";
    const std::string sc = r.stage_count ? std::to_string(*r.stage_count) : "-";
    if (r.p.ctas_per_sm > 0) {
      std::snprintf(line, sizeof line, "%4lld %7s %7s %11lld %8lld %12.0f %9.3f\n",
                    static_cast<long long>(r.p.stages), ii.c_str(), sc.c_str(),
                    static_cast<long long>(r.p.smem_bytes), static_cast<long long>(r.p.ctas_per_sm),
                    r.p.sm_cycles, r.relative_time);
    } else {
      std::snprintf(line, sizeof line, "%4lld %7s %7s %11lld %8s %12s %9s\n",
                    static_cast<long long>(r.p.stages), ii.c_str(), sc.c_str(),
                    static_cast<long long>(r.p.smem_bytes), "0", "-", "-");
    }
    out += line;
  }
  const std::optional<int64_t> rec = recommended(rows);
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
  GenerateOptions opts;
  if (Status s = check_flags(f, opts); !s.ok()) return fail("stages", s);
  StatusOr<Graph> graph = read_graph_input(f.graph_path);
  if (!graph.ok()) return fail("stages", graph.status());
  if (graph->target.name != "hopper") {
    return fail("stages", Status::InvalidInput(input_name(f.graph_path) + ": $.target: the graph is on '" +
                                               graph->target.name +
                                               "'; the prediction needs the hopper target"));
  }
  StatusOr<std::vector<StageRow>> rows = predict_all(*graph, f, opts);
  if (!rows.ok()) return fail("stages", rows.status());
  const std::string text = f.json ? as_json(*graph, f, *rows) : as_text(*graph, *rows);
  if (Status s = emit(output_path(vm), text); !s.ok()) return fail("stages", s);
  return kExitOk;
}

}  // namespace tilesched::cli
