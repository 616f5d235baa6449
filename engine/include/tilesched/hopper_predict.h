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
#include "tilesched/hopper_sm.h"

namespace tilesched::hopper {

// ---- Predicting a Triton pipeline's time ----

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
                               const FittedConstants& fit = {}, const Gpu& gpu = kH200);

// The loop run by Triton with the stage assignment `stage` (indexed by op
// id; the schedule's stage of each op) on one SM: the model of
// predict_stages for any assignment, not only Triton's own. The graph
// as_pipelined under `stage`, shared memory from buffer_copies, CTAs per SM
// from it and `cta`'s registers and threads, the memory latency at the
// utilization the prediction implies. `stages` of the result is the
// assignment's stage count (1 + its largest entry).
// REQUIRES: stage.size() == g.ops.size(), every entry >= 0.
StagePrediction predict_schedule(const Graph& g, const std::vector<int64_t>& stage,
                                 const CtaFootprint& cta, const FittedConstants& fit = {},
                                 const Gpu& gpu = kH200);

// The loop with each pipelined load also charged to DRAM at `gpu`'s
// bandwidth (its bytes: its L2 cycles at kL2BytesPerCycle), for a loop whose
// loads stream from DRAM (hopper::streams_from_dram: no MMA, so no other CTA
// re-reads its bytes from L2). Other ops unchanged.
Graph with_streamed_loads(const Graph& g, const Gpu& gpu);

// Microseconds a kernel of `grid` CTAs, each running `trip` iterations,
// takes at that prediction on `gpu`: waves of sm_count x ctas_per_sm CTAs,
// each wave trip x ctas_per_sm x sm_cycles cycles. 0 when one CTA does not
// fit. REQUIRES: grid >= 1, trip >= 1.
double kernel_microseconds(const StagePrediction& p, int64_t grid, int64_t trip, const Gpu& gpu);

// A kernel's launch: `tiles` output tiles of `trip` loop iterations each.
// Not persistent: one CTA per tile, in waves of sm_count x ctas_per_sm.
// Persistent: min(tiles, sm_count x ctas_per_sm) CTAs, each running its
// share of the tiles back to back.
struct KernelShape {
  int64_t tiles = 1;
  int64_t trip = 1;
  bool persistent = false;
};

// Microseconds of the kernel at that prediction on `gpu`: each round of
// tiles (a wave, or a persistent CTA's next tile) takes trip x ctas_per_sm x
// sm_cycles; each CTA's pipeline fills once before its first iteration's
// data arrives (memory_latency cycles no earlier iteration hides): once per
// wave, once per persistent CTA. 0 when one CTA does not fit.
// kernel_microseconds(p, grid, trip, gpu) is the non-persistent shape.
// REQUIRES: tiles >= 1, trip >= 1.
double kernel_microseconds(const StagePrediction& p, const KernelShape& k, const Gpu& gpu);

}  // namespace tilesched::hopper
