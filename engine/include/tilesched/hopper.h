// The Hopper model (H100/H200 SXM, sm_90): the physical numbers of one SM
// and the cost of a tile op as a function of its shape and element type.
// hopper_target() (tilesched/target.h) is built from it: its kinds' default
// encodings are hopper_cost() of a reference tile, and the TTGIR importer
// (tilesched/graphgen/ttgir.h) sets each op's latency and resources from
// the op's own tile. docs/TARGETS.md tabulates every number with its source.
//
// Time is counted in units of kCyclesPerUnit SM cycles. Every throughput
// unit of the SM is a pooled slot of capacity kCyclesPerUnit: an op that
// needs c cycles of a unit holds it for d = ceil(c / 16) rows at occupancy
// ceil(c / d), so the slot's rows add up cycles of that unit, within one
// cycle per row of the exact count.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/status.h"
#include "tilesched/target.h"

namespace tilesched::hopper {

inline constexpr int64_t kCyclesPerUnit = 16;

// The slots of hopper_target(): slot s is kSlotNames[s - 1], every one of
// capacity kCyclesPerUnit.
enum SlotId { kTensor = 1, kTma, kL2, kDram, kSmem, kAlu, kSfu, kSync };
inline constexpr std::string_view kSlotNames[] = {"tensor", "tma", "l2",  "dram",
                                                  "smem",   "alu", "sfu", "sync"};

// One SM of an H100/H200 SXM (docs/TARGETS.md, "hopper").
inline constexpr int64_t kSmCount = 132;
inline constexpr int64_t kClockMhz = 1830;                 // the clock of the datasheet's peaks
inline constexpr int64_t kTensorFlopsPerCycle = 4096;      // dense fp16/bf16, fp32 accumulate
inline constexpr int64_t kFp32LanesPerCycle = 128;         // FFMA results per cycle
inline constexpr int64_t kInt32LanesPerCycle = 64;         // IADD/IMAD/LOP results per cycle
inline constexpr int64_t kSfuLanesPerCycle = 16;           // MUFU (ex2, rcp, ...) results per cycle
inline constexpr int64_t kConvertLanesPerCycle = 64;       // f32 <-> f16 conversions per cycle
inline constexpr int64_t kShuffleLanesPerCycle = 32;       // warp shuffle results per cycle
inline constexpr int64_t kSmemBytesPerCycle = 128;         // 32 banks x 4 bytes
inline constexpr int64_t kL2BytesPerCycle = 40;            // L2 -> SM, per SM (provisional)
inline constexpr int64_t kDramBytesPerCycleX100 = 1987;    // 4.8 TB/s / 132 SMs / 1.83 GHz
inline constexpr int64_t kSmemBytesPerBlock = 232448;      // 227 KiB: the L4 budget
inline constexpr int64_t kSmemBytesPerSm = 233472;         // 228 KiB
inline constexpr int64_t kRegistersPerSm = 65536;
inline constexpr int64_t kMaxRegistersPerThread = 255;
inline constexpr int64_t kMaxThreadsPerSm = 2048;
inline constexpr int64_t kMaxBlocksPerSm = 32;
inline constexpr int64_t kReservedSmemPerBlock = 1024;     // the driver's, per CTA
inline constexpr int64_t kRegisterUnit = 256;              // registers are given to warps in these
inline constexpr int64_t kThreadRegisterStep = 8;          // per-thread counts round up to these
// Latencies, in cycles.
inline constexpr int64_t kAluLatency = 4;
inline constexpr int64_t kSfuLatency = 20;
inline constexpr int64_t kSmemLatency = 30;
inline constexpr int64_t kL2Latency = 260;
inline constexpr int64_t kTmaIssueCycles = 16;

// The element type of a tile, as the cost rules tell them apart.
enum class Element { kF16, kBF16, kF32, kF64, kF8, kI1, kI8, kI16, kI32, kI64, kPointer };
int element_bits(Element e);
bool is_float(Element e);

// What an op does, read off its tile types. Fields a kind does not use stay 0.
struct Work {
  int64_t elements = 0;        // elements of the tile the op computes on
  int64_t out_elements = 0;    // reduce: elements of its result
  Element element = Element::kF32;
  int64_t bytes = 0;           // bytes a load, store, copy or layout change moves
  bool to_registers = false;   // a TMA load whose result is a register tensor: read back from SMEM
  int64_t m = 0, n = 0, k = 0; // MMA shape: (m x k) * (k x n)
  bool a_in_smem = true;       // MMA: operand A read from shared memory (else registers)
  int64_t warp_groups_m = 1;   // MMA: warp groups splitting M; each reads all of B
  int64_t warp_groups_n = 1;   // MMA: warp groups splitting N; each reads all of A
  int64_t vector = 1;          // address arithmetic: elements per vectorized access
};

// Cycles of each throughput unit an op needs, and its latency in cycles.
struct Cycles {
  int64_t latency = 1;
  int64_t tensor = 0, tma = 0, l2 = 0, dram = 0, smem = 0, alu = 0, sfu = 0, sync = 0;
};

// The cost of an op of Hopper kind `kind` doing `w`. Unknown kinds
// (and `generic`) cost one cycle of latency and nothing else.
Cycles cycles_of(std::string_view kind, const Work& w);

// An op's encoding on hopper_target(): latency in units, resource triples.
struct Encoding {
  int64_t latency = 1;
  std::vector<Triple> resources;
};

// Converts cycles to units. InvalidInput when a unit would be held longer
// than limits::kMaxDuration units, or the latency exceeds limits::kMaxLatency.
StatusOr<Encoding> encode(const Cycles& c);

// Registers per thread a tile of `bytes` spread over `threads` threads holds.
int64_t registers_per_thread(int64_t bytes, int64_t threads);

// The reference tile each kind's default encoding is computed for
// (docs/TARGETS.md): 128x64 fp16 transfers, a 128x128x64 fp16 MMA,
// 128x64 fp32 elementwise tiles.
Work reference_work(std::string_view kind);

// ---- A kernel on the whole SM (inputs of a performance prediction) ----

// What one CTA of a kernel holds while it runs.
struct CtaFootprint {
  int64_t smem_bytes = 0;
  int64_t registers_per_thread = 0;
  int64_t threads = 128;
};

// CTAs of that footprint one SM runs at once: the least of what shared
// memory (each CTA also takes the driver's kReservedSmemPerBlock),
// registers (per thread rounded up to kThreadRegisterStep, per warp to
// kRegisterUnit), threads and the block limit allow; 0 when one does not fit.
int64_t ctas_per_sm(const CtaFootprint& cta);

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

// Cycles per iteration the SM's busiest unit needs for the loop: over the
// slots of hopper_target(), the most of Σ duration x occupancy.
int64_t busiest_unit_cycles(const Graph& g);

// Cycles per loop iteration on one SM when `ctas` CTAs share it, each
// starting an iteration every `ii` units: their iterations interleave
// (ii x kCyclesPerUnit / ctas) until the busiest unit is full.
// REQUIRES: ii >= 1, ctas >= 1.
double cycles_per_iteration(const Graph& g, int64_t ii, int64_t ctas);

// ---- Predicting a Triton pipeline's time (docs/TARGETS.md, "Predicting
// num_stages") ----

// The latency of a global or TMA load, before the tile's own transfer
// time, grows with how busy the memory system is: kIdleMemoryLatency on an
// idle GPU (paper), queueing as latency / (1 - utilization) under load, and
// at most kMaxLoadedMemoryLatency (the memory system holds a bounded number
// of requests; fitted once on all shared configurations, docs/TARGETS.md).
// Utilization is the loop's L2 traffic over what the SM's share of L2
// bandwidth (kL2BytesPerCycle) moves in the predicted time. The target's
// kL2Latency (an idle L2 hit) is what the schedulers see.
inline constexpr int64_t kIdleMemoryLatency = 480;
inline constexpr int64_t kMaxLoadedMemoryLatency = 1500;

// True for the loads Triton's pipeliner moves ahead: global_load,
// cp_async and tiled_tma_load.
bool is_pipelined_load(const Op& op);

// The loop as Triton's pipeliner lowers it at num_stages >= 2: a load whose
// same-iteration consumers are all shared-memory writes (`ttg.local_alloc`)
// becomes one asynchronous copy into the buffer, so the writes cost nothing
// (latency one unit, no resources) and a TMA load is not read back from
// shared memory (its smem triple is halved). Other ops are unchanged.
Graph as_pipelined(const Graph& g);

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
// when their same-iteration operands are ready and, when pipelined (more
// than one stage), in issue order (older stages first, then program order).
// Loads take `memory_latency` plus their L2 transfer time; other edges
// their latency. At least the busiest unit's cycles.
double cta_cycles_per_iteration(const Graph& g, const std::vector<int64_t>& stage,
                                double memory_latency);

// One num_stages of a loop, predicted.
struct StagePrediction {
  int64_t stages = 1;
  int64_t smem_bytes = 0;    // predicted_smem_bytes
  int64_t ctas_per_sm = 0;   // 0: one CTA does not fit
  double cta_cycles = 0;     // per iteration of one CTA (cta_cycles_per_iteration)
  double sm_cycles = 0;      // per iteration on the SM: max(cta / ctas, busiest unit)
  double memory_latency = 0; // the loaded latency the prediction settled on
};

// The loop run by Triton at num_stages `stages` on one SM: the graph
// as_pipelined (at 2 stages or more), Triton's stage assignment, CTAs per
// SM from the predicted shared memory and `cta`'s registers and threads
// (its smem_bytes is ignored), and the memory latency at the utilization
// the prediction itself implies (a damped fixed-point iteration of a fixed
// number of steps). sm_cycles is the time per iteration of the whole
// kernel up to a constant (the grid's iterations over 132 SMs).
// REQUIRES: stages >= 1.
StagePrediction predict_stages(const Graph& g, int64_t stages, const CtaFootprint& cta);

}  // namespace tilesched::hopper
