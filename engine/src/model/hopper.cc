// The Hopper cost model (hopper.h): the cycles of each throughput unit an
// op of a kind needs for its tile, their encoding in units of
// kCyclesPerUnit, the memory latency under load, and the GPUs.
// docs/TARGETS.md gives every number's source.
#include "tilesched/hopper.h"

#include <algorithm>
#include <string>

#include "arith.h"
#include "tilesched/limits.h"

namespace tilesched::hopper {

namespace {

// Cycles for `amount` at `per_cycle` per cycle; at least one when amount > 0.
int64_t at_rate(int64_t amount, int64_t per_cycle) {
  return amount <= 0 ? 0 : ceil_div(amount, per_cycle);
}

int64_t dram_cycles(int64_t bytes, const Gpu& gpu) {
  // bytes / (GB/s / SMs / clock), in integers: GB/s x 1000 = bytes per MHz-second.
  return bytes <= 0 ? 0 : ceil_div(bytes * gpu.sm_count * gpu.clock_mhz, gpu.dram_gb_per_s * 1000);
}

// Dense tensor-core FLOPs per cycle for an MMA on `e` inputs.
int64_t mma_flops_per_cycle(Element e) {
  switch (e) {
    case Element::kF8:
    case Element::kI8:
    case Element::kI1: return 2 * kTensorFlopsPerCycle;
    case Element::kF32: return kTensorFlopsPerCycle / 2;  // tf32
    case Element::kF64: return kTensorFlopsPerCycle / 16;
    default: return kTensorFlopsPerCycle;
  }
}

// CUDA-core results per cycle for an elementwise op on `e`.
int64_t alu_lanes(Element e) {
  switch (e) {
    case Element::kF16:
    case Element::kBF16: return 2 * kFp32LanesPerCycle;  // packed half2 ops
    case Element::kF32: return kFp32LanesPerCycle;
    case Element::kF64:
    case Element::kI64:
    case Element::kPointer: return kInt32LanesPerCycle / 2;  // two 32-bit halves
    default: return kInt32LanesPerCycle;
  }
}

Cycles transfer(const Work& w, bool tma, bool through_smem, bool to_dram, const Gpu& gpu) {
  Cycles c;
  c.tma = tma ? kTmaIssueCycles : 0;
  c.l2 = at_rate(w.bytes, kL2BytesPerCycle);
  const int64_t passes = through_smem ? (w.to_registers ? 2 : 1) : 0;  // TMA lands in SMEM
  c.smem = at_rate(passes * w.bytes, kSmemBytesPerCycle);
  c.dram = to_dram ? dram_cycles(w.bytes, gpu) : 0;
  c.latency = kIdleMemoryLatency + c.l2;
  return c;
}

Cycles mma(const Work& w) {
  Cycles c;
  const int64_t bits = element_bits(w.element);
  c.tensor = at_rate(2 * w.m * w.n * w.k, mma_flops_per_cycle(w.element));
  const int64_t a_bytes = w.m * w.k * bits / 8;
  const int64_t b_bytes = w.k * w.n * bits / 8;
  const int64_t read = (w.a_in_smem ? a_bytes * w.warp_groups_n : 0) + b_bytes * w.warp_groups_m;
  c.smem = at_rate(read, kSmemBytesPerCycle);
  c.latency = kSmemLatency + c.tensor;
  return c;
}

Cycles compute(int64_t cycles, int64_t latency, bool sfu) {
  Cycles c;
  (sfu ? c.sfu : c.alu) = cycles;
  c.latency = latency + cycles;
  return c;
}

Cycles sync_op(int64_t latency) {
  Cycles c;
  c.sync = 1;
  c.latency = latency;
  return c;
}

Cycles memory_kind(std::string_view kind, const Work& w, const Gpu& gpu) {
  if (kind == "tiled_tma_load") return transfer(w, true, true, false, gpu);
  if (kind == "tma_store") return transfer(w, true, true, true, gpu);
  if (kind == "global_load" || kind == "cp_async") return transfer(w, false, true, false, gpu);
  if (kind == "global_store") return transfer(w, false, true, true, gpu);
  Cycles c;
  const int64_t passes = kind == "convert_layout" ? 2 : 1;  // write, then read back
  c.smem = at_rate(passes * w.bytes, kSmemBytesPerCycle);
  c.latency = kSmemLatency + c.smem;
  return c;
}

Cycles compute_kind(std::string_view kind, const Work& w) {
  if (kind == "exp" || kind == "sfu") {
    return compute(at_rate(w.elements, kSfuLanesPerCycle), kSfuLatency, true);
  }
  if (kind == "convert") return compute(at_rate(w.elements, kConvertLanesPerCycle), kAluLatency, false);
  if (kind == "address") {
    const int64_t vectors = ceil_div(w.elements, std::max<int64_t>(1, w.vector));
    return compute(at_rate(vectors, alu_lanes(Element::kPointer)), kAluLatency, false);
  }
  if (kind == "reduce") {
    // The combine op on every element, then a 5-step shuffle tree (32 lanes) per result.
    const int64_t combine = at_rate(w.elements, alu_lanes(w.element));
    const int64_t shuffle = at_rate(5 * w.out_elements, kShuffleLanesPerCycle);
    return compute(combine + shuffle, kSmemLatency, false);
  }
  return compute(at_rate(w.elements, alu_lanes(w.element)), kAluLatency, false);  // alu
}

bool is_memory_kind(std::string_view kind) {
  for (std::string_view k : {"tiled_tma_load", "tma_store", "global_load", "global_store",
                             "cp_async", "smem_write", "smem_read", "convert_layout"}) {
    if (kind == k) return true;
  }
  return false;
}

}  // namespace

int element_bits(Element e) {
  switch (e) {
    case Element::kI1: return 8;  // predicates are stored one per byte
    case Element::kF8:
    case Element::kI8: return 8;
    case Element::kF16:
    case Element::kBF16:
    case Element::kI16: return 16;
    case Element::kF32:
    case Element::kI32: return 32;
    case Element::kF64:
    case Element::kI64:
    case Element::kPointer: return 64;
  }
  return 32;
}

bool is_float(Element e) {
  return e == Element::kF16 || e == Element::kBF16 || e == Element::kF32 || e == Element::kF64 ||
         e == Element::kF8;
}

Cycles cycles_of(std::string_view kind, const Work& w, const Gpu& gpu) {
  if (kind == "wgmma") return mma(w);
  if (is_memory_kind(kind)) return memory_kind(kind, w, gpu);
  if (kind == "mbarrier_wait" || kind == "mbarrier_arrive" || kind == "named_barrier" ||
      kind == "fence") {
    return sync_op(kSmemLatency);
  }
  if (kind == "cp_async_wait" || kind == "cp_async_commit" || kind == "wgmma_wait") {
    return sync_op(kAluLatency);
  }
  if (kind == "alu" || kind == "exp" || kind == "sfu" || kind == "convert" ||
      kind == "address" || kind == "reduce") {
    return compute_kind(kind, w);
  }
  return Cycles{};  // generic
}

StatusOr<Encoding> encode(const Cycles& c) {
  Encoding e;
  e.latency = ceil_div(std::max<int64_t>(c.latency, 0), kCyclesPerUnit);
  if (e.latency > limits::kMaxLatency) {
    return Status::InvalidInput("a latency of " + std::to_string(c.latency) +
                                " cycles is more than " + std::to_string(limits::kMaxLatency) +
                                " units of " + std::to_string(kCyclesPerUnit) + " cycles");
  }
  const std::pair<int, int64_t> units[] = {{kTensor, c.tensor}, {kTma, c.tma},   {kL2, c.l2},
                                           {kDram, c.dram},     {kSmem, c.smem}, {kAlu, c.alu},
                                           {kSfu, c.sfu},       {kSync, c.sync}};
  for (const auto& [slot, cycles] : units) {
    if (cycles <= 0) continue;
    const int64_t rows = ceil_div(cycles, kCyclesPerUnit);
    if (rows > limits::kMaxDuration) {
      return Status::InvalidInput(
          std::to_string(cycles) + " cycles of " + std::string(kSlotNames[slot - 1]) +
          " are more than a resource triple holds (" + std::to_string(limits::kMaxDuration) +
          " units of " + std::to_string(kCyclesPerUnit) + " cycles)");
    }
    e.resources.push_back(Triple{slot, rows, ceil_div(cycles, rows)});
  }
  return e;
}

double loaded_memory_latency(double utilization, const FittedConstants& fit) {
  const double u = std::clamp(utilization, 0.0, 0.99);
  return std::min(static_cast<double>(fit.max_loaded_memory_latency),
                  static_cast<double>(kIdleMemoryLatency) / (1.0 - u));
}

const Gpu* find_gpu(std::string_view name) {
  for (const Gpu* g : {&kH100Sxm, &kH200}) {
    if (g->name == name) return g;
  }
  return nullptr;
}

std::string_view gpu_names() { return "h100, h200"; }

double dram_bytes_per_cycle(const Gpu& gpu) {
  return static_cast<double>(gpu.dram_gb_per_s) * 1000.0 /
         static_cast<double>(gpu.sm_count * gpu.clock_mhz);
}

int64_t registers_per_thread(int64_t bytes, int64_t threads) {
  if (bytes <= 0 || threads <= 0) return 0;
  return std::min<int64_t>(limits::kMaxRegisters, ceil_div(ceil_div(bytes, threads), 4));
}

Work reference_work(std::string_view kind) {
  Work w;
  if (kind == "wgmma") {
    w.m = 128, w.n = 128, w.k = 64;
    w.element = Element::kF16;
    w.warp_groups_m = 2;
    return w;
  }
  w.elements = 128 * 64;
  w.out_elements = 128;
  w.bytes = 128 * 64 * 2;  // one 128x64 fp16 tile
  w.vector = 8;            // 16-byte accesses of fp16
  return w;
}

}  // namespace tilesched::hopper
