// A loop on the whole Hopper SM (tilesched/hopper_sm.h): the loads Triton
// pipelines, CTAs per SM by NVIDIA's occupancy rules, the shared memory
// Triton's multi-buffering needs, the busy cycles of each unit, and the
// loaded memory latency the target's schedules must hide. docs/TARGETS.md
// gives the sources.
#include <algorithm>
#include <cmath>

#include "model/arith.h"
#include "tilesched/hopper_sm.h"
#include "tilesched/limits.h"

namespace tilesched::hopper {

bool is_pipelined_load(const Op& op) {
  return op.kind == "global_load" || op.kind == "cp_async" || op.kind == "tiled_tma_load";
}

std::string_view cta_limit_name(CtaLimit limit) {
  switch (limit) {
    case CtaLimit::kSharedMemory: return "shared memory";
    case CtaLimit::kRegisters: return "registers";
    case CtaLimit::kThreads: return "threads";
    case CtaLimit::kBlocks: return "blocks";
  }
  return "shared memory";
}

int64_t ctas_per_sm(const CtaFootprint& cta, CtaLimit* limit) {
  if (limit != nullptr) *limit = CtaLimit::kSharedMemory;
  if (cta.threads <= 0 || cta.threads > kMaxThreadsPerSm) return 0;
  if (cta.registers_per_thread > kMaxRegistersPerThread) return 0;
  const int64_t warps = ceil_div(cta.threads, 32);
  const int64_t per_thread = ceil_div(std::max<int64_t>(cta.registers_per_thread, 1),
                                      kThreadRegisterStep) * kThreadRegisterStep;
  const int64_t per_warp = ceil_div(per_thread * 32, kRegisterUnit) * kRegisterUnit;
  const int64_t by_smem = cta.smem_bytes <= kSmemBytesPerBlock
                              ? kSmemBytesPerSm / (std::max<int64_t>(cta.smem_bytes, 0) +
                                                   kReservedSmemPerBlock)
                              : 0;
  const std::pair<int64_t, CtaLimit> bounds[] = {
      {by_smem, CtaLimit::kSharedMemory},
      {kRegistersPerSm / per_warp / warps, CtaLimit::kRegisters},
      {kMaxThreadsPerSm / cta.threads, CtaLimit::kThreads},
      {kMaxBlocksPerSm, CtaLimit::kBlocks}};
  int64_t least = bounds[0].first;
  CtaLimit which = bounds[0].second;
  for (const auto& [n, l] : bounds) {
    if (n < least) least = n, which = l;
  }
  if (limit != nullptr) *limit = which;
  return least;
}

namespace {

bool is_mma(const Op& op) { return op.kind == "wgmma" || op.kind == "tcgen05_mma"; }

// A load op's tile an MMA reads straight from shared memory (a TMA load
// into a wgmma operand, as a generated GEMM has it; no ttg.local_alloc
// between them): an operand buffer like a local_alloc's.
bool mma_operand(const Graph& g, int v) {
  for (const Edge& e : g.edges) {
    if (e.from == v && e.kind == EdgeKind::kData && e.distance == 0 && is_mma(g.ops[e.to])) return true;
  }
  return false;
}

// A load op's own buffer: its value goes on to registers.
bool is_load_buffer(const Graph& g, int v) {
  const Op& op = g.ops[v];
  return (op.kind == "global_load" || op.kind == "tiled_tma_load") && !mma_operand(g, v);
}

// The most the loop's buffers hold at once in program order when nothing is
// multi-buffered: a buffer is written at its op and freed after its last
// same-iteration reader (an op later in the body). Load buffers are left
// out: an unpipelined load needs none.
int64_t one_stage_peak(const Graph& g) {
  std::vector<int64_t> freed_after(g.ops.size(), 0);
  for (int v = 0; v < g.op_count(); ++v) {
    const int64_t bytes = g.ops[v].store_bytes;
    if (bytes <= 0 || is_load_buffer(g, v)) continue;
    int last = v;
    for (const Edge& e : g.edges) {
      if (e.from == v && e.kind == EdgeKind::kData && e.distance == 0) last = std::max(last, e.to);
    }
    freed_after[last] += bytes;
  }
  int64_t peak = 0, live = 0;
  for (int v = 0; v < g.op_count(); ++v) {
    live += is_load_buffer(g, v) ? 0 : g.ops[v].store_bytes;
    peak = std::max(peak, live);
    live -= freed_after[v];
  }
  return peak;
}

}  // namespace

std::vector<int64_t> buffer_copies(const Graph& g, const std::vector<int64_t>& stage) {
  // Where each buffer's copy is issued: the earliest stage of a pipelined
  // load filling it (distance 0), else the buffer op's own stage.
  std::vector<int64_t> issued(stage.begin(), stage.end());
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData && e.distance == 0 && is_pipelined_load(g.ops[e.from])) {
      issued[e.to] = std::min(issued[e.to], stage[e.from]);
    }
  }
  std::vector<int64_t> last_read(g.ops.size(), -1);
  std::vector<bool> read_by_mma(g.ops.size(), false);
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData) continue;
    last_read[e.from] = std::max(last_read[e.from], stage[e.to] + e.distance);
    if (is_mma(g.ops[e.to])) read_by_mma[e.from] = true;
  }
  std::vector<int64_t> copies(g.ops.size(), 0);
  for (int v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].store_bytes <= 0) continue;
    const int64_t span = std::max<int64_t>(last_read[v] - issued[v], 0);
    if (is_load_buffer(g, v)) {
      copies[v] = span;
    } else {
      copies[v] = span >= 1 ? span + (read_by_mma[v] ? 1 : 0) : 1;
    }
  }
  return copies;
}

int64_t predicted_smem_bytes(const Graph& g, const std::vector<int64_t>& stage) {
  const bool pipelined = std::any_of(stage.begin(), stage.end(), [](int64_t s) { return s > 0; });
  int64_t loop = 0;
  if (!pipelined) {
    loop = one_stage_peak(g);
  } else {
    const std::vector<int64_t> copies = buffer_copies(g, stage);
    for (int v = 0; v < g.op_count(); ++v) loop += g.ops[v].store_bytes * copies[v];
  }
  return g.attrs.resident_smem_bytes.value_or(0) + loop;
}

int64_t predicted_smem_bytes(const Graph& g, int64_t stages) {
  int64_t loop = stages <= 1 ? one_stage_peak(g) : 0;
  for (int v = 0; stages > 1 && v < g.op_count(); ++v) {
    loop += g.ops[v].store_bytes * (is_load_buffer(g, v) ? stages - 1 : stages);
  }
  return g.attrs.resident_smem_bytes.value_or(0) + loop;
}

std::vector<int64_t> unit_cycles(const Graph& g) {
  std::vector<int64_t> per_slot(g.target.slots.size() + 1, 0);
  for (const Op& op : g.ops) {
    for (const Triple& t : op.resources) {
      if (t.slot >= 1 && t.slot < static_cast<int>(per_slot.size())) {
        per_slot[t.slot] += t.duration * t.occupancy;
      }
    }
  }
  return per_slot;
}

int64_t busiest_unit_cycles(const Graph& g) {
  const std::vector<int64_t> per_slot = unit_cycles(g);
  return *std::max_element(per_slot.begin(), per_slot.end());
}

double cycles_per_iteration(const Graph& g, int64_t ii, int64_t ctas) {
  const double interleaved = static_cast<double>(ii * kCyclesPerUnit) / static_cast<double>(ctas);
  return std::max(interleaved, static_cast<double>(busiest_unit_cycles(g)));
}

Graph with_loaded_memory_latency(const Graph& g, const FittedConstants& fit) {
  Graph out = g;
  const std::vector<int64_t> units = unit_cycles(g);
  const int64_t busiest = *std::max_element(units.begin(), units.end());
  if (busiest <= 0 || static_cast<size_t>(kL2) >= units.size()) return out;
  const double l2_scale = static_cast<double>(kL2BytesPerCycle) /
                          static_cast<double>(std::max<int64_t>(fit.l2_bytes_per_cycle, 1));
  const double utilization =
      static_cast<double>(units[kL2]) * l2_scale / static_cast<double>(busiest);
  const double waited = loaded_memory_latency(utilization, fit);
  std::vector<int64_t> old_latency(g.ops.size(), 0);
  for (int v = 0; v < g.op_count(); ++v) {
    Op& op = out.ops[v];
    old_latency[v] = op.latency;
    if (!is_pipelined_load(op)) continue;
    int64_t l2 = 0;
    for (const Triple& t : op.resources) {
      if (t.slot == kL2) l2 += t.duration * t.occupancy;
    }
    const double cycles = waited + static_cast<double>(l2) * l2_scale;
    const int64_t units_needed = static_cast<int64_t>(std::ceil(cycles / kCyclesPerUnit));
    op.latency = std::min<int64_t>(units_needed, limits::kMaxLatency);
  }
  for (Edge& e : out.edges) {
    if (is_pipelined_load(g.ops[e.from]) && e.latency == old_latency[e.from]) {
      e.latency = out.ops[e.from].latency;
    }
  }
  return out;
}

}  // namespace tilesched::hopper
