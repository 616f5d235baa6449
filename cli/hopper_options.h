// The options `tilesched stages` and `tilesched predict` share: the GPU,
// the compiled kernel's registers and warps (estimated from the graph or
// read from it when not given), the grid and trip count of a kernel time,
// and the fitted constants of a refit (docs/TARGETS.md, "tilesched stages").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "tilesched/graph.h"
#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/status.h"

namespace tilesched::cli {

struct HopperFlags {
  std::string gpu = "h200";
  std::optional<int64_t> registers, warps, grid, trip;
  bool persistent = false;
  hopper::FittedConstants fit;
};

// What a prediction ran with, and where each number came from.
struct HopperSetup {
  int64_t registers = 0, warps = 0;
  bool registers_estimated = false;
  std::string warps_from;  // "flag", "graph" or "default"
  const hopper::Gpu* gpu = &hopper::kH200;
};

// Adds --registers, --warps, --gpu, --grid, --trip, --fit-max-latency and
// --fit-l2-bytes to `options`, writing into `f` (the optional ones by
// read_hopper_options after parsing).
void add_hopper_options(boost::program_options::options_description& options, HopperFlags& f);
void read_hopper_options(const boost::program_options::variables_map& vm, HopperFlags& f);

// The flags' ranges and the GPU's name; InvalidInput naming the flag.
Status check_hopper_flags(const HopperFlags& f, HopperSetup& setup);

// InvalidInput unless the graph is on the hopper target.
Status require_hopper_target(const Graph& g, const std::string& path);

// InvalidInput when the loop holds an op Triton's pipeliner emits (an
// async copy into a multi-buffered ring, a wait on one): the loop is one
// Triton already pipelined and lowered (--loop 1 or 2 of a scheduled
// dump), and a num_stages for it means nothing. `command` says what needs
// the loop before the pipeliner.
Status require_unpipelined_loop(const Graph& g, const std::string& path, std::string_view command);

// Warps from the flag, else the graph, else Triton's default; registers
// from the flag, else estimated from the graph.
void complete_hopper_setup(const Graph& g, const HopperFlags& f, HopperSetup& setup);

// The kernel's launch for a kernel time (--grid, --trip): persistent with
// --persistent or when the loop is a persistent GEMM (hopper_class.h).
// REQUIRES: f.grid and f.trip.
hopper::KernelShape kernel_shape(const Graph& g, const HopperFlags& f);

// The kernel's class and what the predictions rest on that the measured
// kernels did not exercise (hopper::unexercised_mechanisms), over the
// predictions `ps` made with `setup`: one line of text, and the JSON keys
// kernel_class and unexercised.
std::string kernel_class_text(const Graph& g, const HopperSetup& setup,
                              const std::vector<hopper::StagePrediction>& ps);
void add_kernel_class_json(nlohmann::ordered_json& out, const Graph& g, const HopperSetup& setup,
                           const std::vector<hopper::StagePrediction>& ps);

// "gpu h200, 8 warps (graph), 120 registers per thread (estimated from the graph)"
std::string hopper_setup_text(const HopperSetup& setup);

// The setup's keys of the JSON formats: gpu, registers, registers_estimated,
// warps, warps_from; then fit.
void add_hopper_setup_json(nlohmann::ordered_json& out, const HopperFlags& f,
                           const HopperSetup& setup);

// The bound in words, with the unit that decides a kUnit bound or what caps
// the CTAs of a latency bound: "latency (2 CTAs: registers)", "unit (tensor)",
// "L2 bandwidth", "shared memory".
std::string bound_text(const hopper::StagePrediction& p);
// Only the detail: the unit's name or "2 CTAs: registers"; "" for the others.
std::string bound_detail(const hopper::StagePrediction& p);

// The keys of one prediction both JSON formats share, in this order:
// ctas_per_sm, ctas_limit, memory_latency, cta_cycles, sm_cycles,
// us_per_iteration, kernel_us (with --grid and --trip), bound.
void add_prediction_json(nlohmann::ordered_json& out, const hopper::StagePrediction& p,
                         const Graph& g, const HopperFlags& f, const HopperSetup& setup);

// Rounded to 4 decimals, so that JSON output is stable across compilers.
double rounded(double x);

// The SM's cycles per iteration at the GPU's clock.
double microseconds_per_iteration(const hopper::StagePrediction& p, const hopper::Gpu& gpu);

}  // namespace tilesched::cli
