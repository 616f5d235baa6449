// Predicting a Triton pipeline's time on Hopper (docs/TARGETS.md, "hopper:
// predicting num_stages"): a loop graph on hopper_target() run by Triton at
// num_stages S on one SM of a GPU. The costs are the target's
// (tilesched/hopper.h), and so is the memory latency: the same
// hopper::loaded_memory_latency, at the utilization the predicted time
// implies. Used by `tilesched stages` and scripts/fidelity; the target and
// the schedulers do not include it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/hopper.h"

namespace tilesched::hopper {

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

// ---- Predicting a Triton pipeline's time ----

// True for the loads Triton's pipeliner moves ahead: global_load,
// cp_async and tiled_tma_load.
bool is_pipelined_load(const Op& op);

// The loop as Triton's pipeliner lowers it at num_stages >= 2: a load whose
// same-iteration consumers are all shared-memory writes (`ttg.local_alloc`)
// becomes one asynchronous copy into the buffer, so the writes cost nothing
// (latency one unit, no resources) and a TMA load is not read back from
// shared memory (its smem triple is halved). Other ops are unchanged.
Graph as_pipelined(const Graph& g);

// The same for any stage assignment: only the loads whose buffers' readers
// all sit in a later stage (distance included) become copies; a load read
// in its own stage stays a load into registers followed by the write.
Graph as_pipelined(const Graph& g, const std::vector<int64_t>& stage);

// Triton's stage assignment at num_stages `stages`: every pipelined load and
// the buffer writes it feeds in stage 0, every other op in stage
// stages - 1, then each producer lowered until no edge runs backwards
// (an edge u -> v of distance d needs stage(u) <= stage(v) + d), which puts
// a load's address and mask arithmetic beside it. Indexed by op id.
// REQUIRES: stages >= 1.
std::vector<int64_t> triton_stages(const Graph& g, int64_t stages);

// Cycles one CTA needs per iteration of the loop pipelined with `stage`
// (indexed by op id; 1 + its largest entry stages) as Triton emits it:
// each kernel iteration first waits for what earlier iterations produced
// for it, so a value crossing k stage boundaries must arrive within k
// kernel iterations of its producer's start; inside an iteration ops start
// when their same-iteration operands are ready and in issue order (older
// stages first, then program order). Loads take `memory_latency` plus
// their L2 transfer time (their l2 cycles scaled to `fit`'s bandwidth);
// other edges their latency. At least the busiest unit's cycles.
double cta_cycles_per_iteration(const Graph& g, const std::vector<int64_t>& stage,
                                double memory_latency, const FittedConstants& fit = {});

// What decides an S's time.
enum class Bound {
  kLatency,       // one CTA's chain of waits, over the CTAs sharing the SM
  kUnit,          // the busiest throughput unit (not L2)
  kL2Bandwidth,   // the SM's share of L2 bandwidth
  kSharedMemory,  // one CTA's buffers do not fit: no time
};
std::string_view bound_name(Bound b);  // "latency", "unit", "l2_bandwidth", "shared_memory"

// One num_stages of a loop, predicted.
struct StagePrediction {
  int64_t stages = 1;
  int64_t smem_bytes = 0;    // predicted_smem_bytes
  int64_t ctas_per_sm = 0;   // 0: one CTA does not fit
  CtaLimit ctas_limit = CtaLimit::kSharedMemory;  // what caps ctas_per_sm
  double cta_cycles = 0;     // per iteration of one CTA (cta_cycles_per_iteration)
  double sm_cycles = 0;      // per iteration on the SM: max(cta / ctas, busiest unit)
  double memory_latency = 0; // the loaded latency the prediction settled on
  Bound bound = Bound::kSharedMemory;
  int busiest_slot = 0;      // the slot id of the busiest unit
};

// The loop run by Triton at num_stages `stages` on one SM: the graph
// as_pipelined (at 2 stages or more), Triton's stage assignment, CTAs per
// SM from the predicted shared memory and `cta`'s registers and threads
// (its smem_bytes is ignored), and the memory latency at the utilization
// the prediction itself implies (a damped fixed-point iteration of a fixed
// number of steps). sm_cycles is the time per iteration of the whole
// kernel up to a constant (the grid's iterations over the SMs).
// REQUIRES: stages >= 1.
StagePrediction predict_stages(const Graph& g, int64_t stages, const CtaFootprint& cta,
                               const FittedConstants& fit = {});

// The loop run by Triton with the stage assignment `stage` (indexed by op
// id; the schedule's stage of each op) on one SM: the model of
// predict_stages for any assignment, not only Triton's own. The graph
// as_pipelined under `stage`, shared memory from buffer_copies, CTAs per SM
// from it and `cta`'s registers and threads, the memory latency at the
// utilization the prediction implies. `stages` of the result is the
// assignment's stage count (1 + its largest entry).
// REQUIRES: stage.size() == g.ops.size(), every entry >= 0.
StagePrediction predict_schedule(const Graph& g, const std::vector<int64_t>& stage,
                                 const CtaFootprint& cta, const FittedConstants& fit = {});

// Microseconds a kernel of `grid` CTAs, each running `trip` iterations,
// takes at that prediction on `gpu`: waves of sm_count x ctas_per_sm CTAs,
// each wave trip x ctas_per_sm x sm_cycles cycles. 0 when one CTA does not
// fit. REQUIRES: grid >= 1, trip >= 1.
double kernel_microseconds(const StagePrediction& p, int64_t grid, int64_t trip, const Gpu& gpu);

}  // namespace tilesched::hopper
