// A loop graph on hopper_target() on the whole Hopper SM (docs/TARGETS.md,
// "hopper: predicting num_stages"): the loads Triton's pipeliner moves
// ahead, the CTAs one SM runs at once by NVIDIA's occupancy rules, the
// shared memory Triton's multi-buffering needs, the busy cycles of each
// unit, and the loaded memory latency a schedule must hide. The prediction
// (tilesched/hopper_predict.h) is built on them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/hopper.h"

namespace tilesched::hopper {

// ---- The loads ----

// True for the loads Triton's pipeliner moves ahead: global_load,
// cp_async and tiled_tma_load.
bool is_pipelined_load(const Op& op);

// ---- A kernel on the whole SM ----

// What one CTA of a kernel holds while it runs.
struct CtaFootprint {
  int64_t smem_bytes = 0;
  int64_t registers_per_thread = 0;
  int64_t threads = 128;
};

// What caps the CTAs one SM runs at once.
enum class CtaLimit { kSharedMemory, kRegisters, kThreads, kBlocks };
std::string_view cta_limit_name(CtaLimit limit);  // "shared memory", "registers", ...

// CTAs of that footprint one SM runs at once: the least of what shared
// memory (each CTA also takes the driver's kReservedSmemPerBlock),
// registers (per thread rounded up to kThreadRegisterStep, per warp to
// kRegisterUnit), threads and the block limit allow; 0 when one does not
// fit. `limit`, when given, receives which of them is the least (the first
// in that order on a tie).
int64_t ctas_per_sm(const CtaFootprint& cta, CtaLimit* limit = nullptr);

// Shared memory one CTA of a loop graph needs when Triton pipelines it
// `stages` deep: the graph's resident_smem_bytes, plus every buffer
// (store_bytes) `stages` times -- but a load op's own buffer (a pipelined
// load whose value goes on to registers, docs/TTGIR.md "Buffers")
// `stages - 1` times; at one stage buffers that are never alive together
// share memory, so the most the buffers hold at once in program order (a
// buffer lives from its op to its last same-iteration reader), load
// buffers left out (an unpipelined load needs none).
// REQUIRES: stages >= 1.
int64_t predicted_smem_bytes(const Graph& g, int64_t stages);

// The copies of each buffer (indexed by op id; 0 for an op without
// store_bytes) Triton allocates for the loop pipelined with the stage
// assignment `stage` (indexed by op id): a buffer written by a local_alloc
// gets one copy per stage between the copy's issue (the stage of the
// pipelined load that fills it, else its own) and its last reader, plus one
// when a warpgroup MMA reads it (the MMA still in flight holds its slot);
// at least one. A load op's own buffer (its value goes on to registers) one
// per stage between the load and its last reader; none when the load is not
// pipelined (a reader in its own stage). At one stage (every entry 0) every
// buffer has one copy.
std::vector<int64_t> buffer_copies(const Graph& g, const std::vector<int64_t>& stage);

// Shared memory one CTA needs for the loop pipelined with `stage`: the
// graph's resident_smem_bytes plus each buffer's store_bytes times its
// buffer_copies; with one stage, the most the buffers hold at once in
// program order (as predicted_smem_bytes(g, 1)). On Triton's own
// assignment of the shared kernels it is predicted_smem_bytes(g, S); it is
// less where the graph's own edges keep the readers closer to the copies
// than S - 1 stages (a generated loop's buffer ring).
int64_t predicted_smem_bytes(const Graph& g, const std::vector<int64_t>& stage);

// Cycles per iteration each slot of hopper_target() is busy for the loop
// (Σ duration x occupancy), indexed by slot id (entry 0 unused).
std::vector<int64_t> unit_cycles(const Graph& g);

// The most of unit_cycles: the SM's busiest unit.
int64_t busiest_unit_cycles(const Graph& g);

// Cycles per loop iteration on one SM when `ctas` CTAs share it, each
// starting an iteration every `ii` units: their iterations interleave
// (ii x kCyclesPerUnit / ctas) until the busiest unit is full.
// REQUIRES: ii >= 1, ctas >= 1.
double cycles_per_iteration(const Graph& g, int64_t ii, int64_t ctas);

// ---- The memory latency a loop's schedule must hide ----

// The graph with every pipelined load's latency (and its outgoing edges'
// that carry it) set to loaded_memory_latency at the utilization the loop
// creates when its busiest unit sets the pace (its L2 cycles over the
// busiest unit's), plus the load's own transfer time: the latency a
// schedule at the resource-bound II must hide on a loaded SM. Loads whose
// latency would exceed limits::kMaxLatency keep the largest the format
// allows.
Graph with_loaded_memory_latency(const Graph& g, const FittedConstants& fit = {});

}  // namespace tilesched::hopper
