// The Hopper model (H100/H200 SXM, sm_90): the physical numbers of one SM
// and the cost of a tile op as a function of its shape and element type.
// hopper_target() is made from it (its kinds' defaults are cycles_of() a
// reference tile), the TTGIR importer costs each op's own tile with it, and
// the prediction of a Triton pipeline (tilesched/hopper_predict.h) uses the
// same costs. Time is counted in units of kCyclesPerUnit SM cycles, every
// throughput unit a pooled slot of capacity kCyclesPerUnit.
// docs/TARGETS.md tabulates every number with its source and the encoding.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

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
inline constexpr int64_t kL2BytesPerCycle = 40;            // L2 -> SM, per SM: fitted
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
inline constexpr int64_t kTmaIssueCycles = 16;

// The memory latency, one model for the target and the prediction: a load
// from global memory (or a TMA copy) waits kIdleMemoryLatency cycles on an
// idle GPU (paper), queued as latency / (1 - U) when the SM's share of L2
// bandwidth is busy a fraction U of the time, and at most
// kMaxLoadedMemoryLatency (the memory system holds a bounded number of
// requests; fitted, docs/TARGETS.md). Its tile's transfer time (bytes /
// kL2BytesPerCycle) comes on top. The target's transfer kinds carry the
// idle latency; an imported loop carries the latency at the utilization its
// own busiest unit allows (hopper_sm.h, with_loaded_memory_latency).
inline constexpr int64_t kIdleMemoryLatency = 480;
inline constexpr int64_t kMaxLoadedMemoryLatency = 1500;

// The constants fitted to measured kernels, as one value that a fit (the
// leave-one-kernel-out check of scripts/fidelity) may replace.
struct FittedConstants {
  int64_t max_loaded_memory_latency = kMaxLoadedMemoryLatency;
  int64_t l2_bytes_per_cycle = kL2BytesPerCycle;
  friend bool operator==(const FittedConstants&, const FittedConstants&) = default;
};

// kIdleMemoryLatency / (1 - utilization), at most the fitted cap; the
// utilization is clamped to [0, 0.99].
double loaded_memory_latency(double utilization, const FittedConstants& fit = {});

// The GPU a kernel runs on: the datasheet numbers that differ between
// Hopper parts (both have 132 SMs at the same clock; NVIDIA H100 SXM and
// H200 datasheets). The per-SM numbers above are the H200's; dram_cycles
// and the absolute times of a prediction take the GPU.
struct Gpu {
  std::string_view name;
  int64_t sm_count = kSmCount;
  int64_t clock_mhz = kClockMhz;
  int64_t dram_gb_per_s = 4800;   // HBM bandwidth
  int64_t memory_gib = 141;       // HBM capacity
};
inline constexpr Gpu kH200{"h200", kSmCount, kClockMhz, 4800, 141};
inline constexpr Gpu kH100Sxm{"h100", kSmCount, kClockMhz, 3350, 80};
// "h100" or "h200"; nullptr for another name.
const Gpu* find_gpu(std::string_view name);
// The GPU names find_gpu knows, for messages: "h100, h200".
std::string_view gpu_names();
// HBM bytes per cycle one SM's share of `gpu` moves.
double dram_bytes_per_cycle(const Gpu& gpu);

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

// The cost of an op of Hopper kind `kind` doing `w` on `gpu` (its HBM
// bandwidth sets the dram cycles of a store). Unknown kinds (and
// `generic`) cost one cycle of latency and nothing else.
Cycles cycles_of(std::string_view kind, const Work& w, const Gpu& gpu = kH200);

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

// The threads the reference tiles are costed for: 8 warps (the MMA split
// over two warp groups, each tile's result spread over all of them).
inline constexpr int64_t kReferenceThreads = 256;

// The reference tile each kind's default encoding is computed for
// (docs/TARGETS.md): 128x64 fp16 transfers, a 128x128x64 fp16 MMA,
// 128x64 fp32 elementwise tiles.
Work reference_work(std::string_view kind);

}  // namespace tilesched::hopper
