// The options and output pieces `tilesched stages` and `tilesched predict`
// share (hopper_options.h).
#include "hopper_options.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "commands.h"
#include "tilesched/hopper_class.h"
#include "tilesched/hopper_registers.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

constexpr int64_t kDefaultWarps = 4;  // Triton's num_warps when the graph does not say
constexpr int64_t kMaxCount = int64_t{1} << 40;

std::optional<int64_t> given(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? std::optional<int64_t>(vm[name].as<int64_t>()) : std::nullopt;
}

Status out_of(const char* flag, int64_t lo, int64_t hi) {
  return Status::InvalidInput(std::string(flag) + " must be between " + std::to_string(lo) +
                              " and " + std::to_string(hi));
}

}  // namespace

void add_hopper_options(po::options_description& options, HopperFlags& f) {
  options.add_options()
      ("registers", po::value<int64_t>(),
       "registers per thread of the compiled kernel (ptxas's count; default: estimated from the graph)")
      ("warps", po::value<int64_t>(),
       "warps per CTA (Triton's num_warps; default: the graph's attrs.num_warps, else 4)")
      ("gpu", po::value(&f.gpu)->default_value("h200"), "the GPU: h100 (H100 SXM) or h200")
      ("grid", po::value<int64_t>(), "CTAs the kernel launches (with --trip: the kernel's time)")
      ("trip", po::value<int64_t>(), "iterations of the loop each CTA runs (with --grid)")
      ("persistent", po::bool_switch(&f.persistent),
       "with --grid: GRID is the output tiles of a persistent kernel (as many CTAs as fit, each "
       "running tiles back to back, --trip iterations per tile); on for a persistent GEMM")
      ("fit-max-latency", po::value(&f.fit.max_loaded_memory_latency)
           ->default_value(hopper::kMaxLoadedMemoryLatency),
       "the fitted cap on the loaded memory latency, in cycles (for refits)")
      ("fit-l2-bytes", po::value(&f.fit.l2_bytes_per_cycle)->default_value(hopper::kL2BytesPerCycle),
       "the fitted L2 bandwidth per SM, in bytes per cycle (for refits)");
}

void read_hopper_options(const po::variables_map& vm, HopperFlags& f) {
  f.registers = given(vm, "registers"), f.warps = given(vm, "warps");
  f.grid = given(vm, "grid"), f.trip = given(vm, "trip");
}

Status check_hopper_flags(const HopperFlags& f, HopperSetup& setup) {
  if (f.registers && (*f.registers < 1 || *f.registers > hopper::kMaxRegistersPerThread)) {
    return out_of("--registers", 1, hopper::kMaxRegistersPerThread);
  }
  const int64_t max_warps = hopper::kMaxThreadsPerSm / 32;
  if (f.warps && (*f.warps < 1 || *f.warps > max_warps)) return out_of("--warps", 1, max_warps);
  if (f.grid && (*f.grid < 1 || *f.grid > kMaxCount)) return out_of("--grid", 1, kMaxCount);
  if (f.trip && (*f.trip < 1 || *f.trip > kMaxCount)) return out_of("--trip", 1, kMaxCount);
  if (f.grid.has_value() != f.trip.has_value()) {
    return Status::InvalidInput("--grid and --trip go together");
  }
  if (f.fit.max_loaded_memory_latency < hopper::kIdleMemoryLatency ||
      f.fit.max_loaded_memory_latency > 100000) {
    return out_of("--fit-max-latency", hopper::kIdleMemoryLatency, 100000);
  }
  if (f.fit.l2_bytes_per_cycle < 1 || f.fit.l2_bytes_per_cycle > 4096) {
    return out_of("--fit-l2-bytes", 1, 4096);
  }
  setup.gpu = hopper::find_gpu(f.gpu);
  if (setup.gpu == nullptr) {
    return Status::InvalidInput("--gpu: unknown GPU '" + f.gpu + "' (" +
                                std::string(hopper::gpu_names()) + ")");
  }
  return Status::Ok();
}

Status require_hopper_target(const Graph& g, const std::string& path) {
  if (g.target.name == "hopper") return Status::Ok();
  return Status::InvalidInput(input_name(path) + ": $.target: the graph is on '" + g.target.name +
                              "'; the prediction needs the hopper target");
}

Status require_unpipelined_loop(const Graph& g, const std::string& path, std::string_view command) {
  static constexpr std::string_view kPipelinerOps[] = {
      "ttg.async_copy_global_to_local", "ttg.async_commit_group", "ttg.async_wait",
      "ttng.async_tma_copy_global_to_local", "ttng.barrier_expect", "ttng.wait_barrier"};
  for (int v = 0; v < g.op_count(); ++v) {
    const std::optional<std::string>& op = g.ops[v].source_op;
    if (!op || std::find(std::begin(kPipelinerOps), std::end(kPipelinerOps), *op) ==
                   std::end(kPipelinerOps)) {
      continue;
    }
    return Status::InvalidInput(
        input_name(path) + ": $.ops[" + std::to_string(v) + "]: op '" + g.ops[v].name + "' is a " +
        *op + ": the loop is one Triton's pipeliner already lowered (--loop 1 or 2 of a "
        "scheduled dump); " + std::string(command) + " needs the loop it pipelines (the "
        "default loop of the dump, docs/TTGIR.md)");
  }
  return Status::Ok();
}

void complete_hopper_setup(const Graph& g, const HopperFlags& f, HopperSetup& setup) {
  if (f.warps) {
    setup.warps = *f.warps, setup.warps_from = "flag";
  } else if (g.attrs.num_warps && *g.attrs.num_warps >= 1 &&
             *g.attrs.num_warps <= hopper::kMaxThreadsPerSm / 32) {
    setup.warps = *g.attrs.num_warps, setup.warps_from = "graph";
  } else {
    setup.warps = kDefaultWarps, setup.warps_from = "default";
  }
  setup.registers_estimated = !f.registers.has_value();
  setup.registers = f.registers ? *f.registers : hopper::estimated_registers(g);
}

hopper::KernelShape kernel_shape(const Graph& g, const HopperFlags& f) {
  const bool persistent =
      f.persistent || hopper::classify_kernel(g) == hopper::KernelClass::kPersistentGemm;
  return hopper::KernelShape{*f.grid, *f.trip, persistent};
}

namespace {

std::vector<std::string> unexercised(const Graph& g, const HopperSetup& setup,
                                     const std::vector<hopper::StagePrediction>& ps) {
  int64_t most_ctas = 0;
  std::vector<std::string> units;
  for (const hopper::StagePrediction& p : ps) {
    most_ctas = std::max(most_ctas, p.ctas_per_sm);
    const std::string unit(hopper::kSlotNames[p.busiest_slot - 1]);
    if (p.ctas_per_sm > 0 && p.bound == hopper::Bound::kUnit &&
        std::find(units.begin(), units.end(), unit) == units.end()) {
      units.push_back(unit);
    }
  }
  return hopper::unexercised_mechanisms(g, setup.warps, setup.registers_estimated, most_ctas, units);
}

}  // namespace

std::string kernel_class_text(const Graph& g, const HopperSetup& setup,
                              const std::vector<hopper::StagePrediction>& ps) {
  const std::vector<std::string> notes = unexercised(g, setup, ps);
  std::string out = "kernel class: " + std::string(hopper::kernel_class_name(hopper::classify_kernel(g)));
  if (notes.empty()) return out + "; every mechanism used was exercised by the measured kernels";
  out += "; not exercised by the measured kernels, an extrapolation: ";
  for (size_t i = 0; i < notes.size(); ++i) out += (i ? "; " : "") + notes[i];
  return out;
}

void add_kernel_class_json(nlohmann::ordered_json& out, const Graph& g, const HopperSetup& setup,
                           const std::vector<hopper::StagePrediction>& ps) {
  out["kernel_class"] = std::string(hopper::kernel_class_name(hopper::classify_kernel(g)));
  out["unexercised"] = unexercised(g, setup, ps);
}

std::string hopper_setup_text(const HopperSetup& setup) {
  return "gpu " + std::string(setup.gpu->name) + ", " + std::to_string(setup.warps) + " warps (" +
         setup.warps_from + "), " + std::to_string(setup.registers) + " registers per thread" +
         (setup.registers_estimated ? " (estimated from the graph)" : " (given)");
}

void add_hopper_setup_json(nlohmann::ordered_json& out, const HopperFlags& f,
                           const HopperSetup& setup) {
  out["gpu"] = std::string(setup.gpu->name);
  out["registers"] = setup.registers;
  out["registers_estimated"] = setup.registers_estimated;
  out["warps"] = setup.warps;
  out["warps_from"] = setup.warps_from;
  out["fit"] = {{"max_loaded_memory_latency", f.fit.max_loaded_memory_latency},
                {"l2_bytes_per_cycle", f.fit.l2_bytes_per_cycle}};
}

void add_prediction_json(nlohmann::ordered_json& out, const hopper::StagePrediction& p,
                         const Graph& g, const HopperFlags& f, const HopperSetup& setup) {
  using Json = nlohmann::ordered_json;
  const bool fits = p.ctas_per_sm > 0;
  out["ctas_per_sm"] = p.ctas_per_sm;
  out["ctas_limit"] = std::string(hopper::cta_limit_name(p.ctas_limit));
  out["memory_latency"] = rounded(p.memory_latency);
  out["cta_cycles"] = rounded(p.cta_cycles);
  out["sm_cycles"] = fits ? Json(rounded(p.sm_cycles)) : Json(nullptr);
  out["us_per_iteration"] = fits ? Json(rounded(microseconds_per_iteration(p, *setup.gpu))) : Json(nullptr);
  if (f.grid && f.trip) {
    out["kernel_us"] = fits ? Json(rounded(hopper::kernel_microseconds(p, kernel_shape(g, f), *setup.gpu)))
                            : Json(nullptr);
  }
  out["bound"] = std::string(hopper::bound_name(p.bound));
}

std::string bound_detail(const hopper::StagePrediction& p) {
  switch (p.bound) {
    case hopper::Bound::kUnit:
      return std::string(hopper::kSlotNames[p.busiest_slot - 1]);
    case hopper::Bound::kLatency:
      return std::to_string(p.ctas_per_sm) + (p.ctas_per_sm == 1 ? " CTA: " : " CTAs: ") +
             std::string(hopper::cta_limit_name(p.ctas_limit));
    default: return "";
  }
}

std::string bound_text(const hopper::StagePrediction& p) {
  const std::string detail = bound_detail(p);
  const std::string name = p.bound == hopper::Bound::kL2Bandwidth    ? "L2 bandwidth"
                           : p.bound == hopper::Bound::kSharedMemory ? "shared memory"
                                                                     : std::string(hopper::bound_name(p.bound));
  return detail.empty() ? name : name + " (" + detail + ")";
}

double rounded(double x) { return std::round(x * 10000.0) / 10000.0; }

double microseconds_per_iteration(const hopper::StagePrediction& p, const hopper::Gpu& gpu) {
  return p.sm_cycles / static_cast<double>(gpu.clock_mhz);
}

}  // namespace tilesched::cli
