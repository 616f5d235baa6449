// The `hopper` target (tilesched/target.h, hopper_target()): eight pooled
// slots, one per throughput unit of an SM, each of capacity
// hopper::kCyclesPerUnit; the shared memory of a block as the storage pool;
// op kinds whose default encodings are the cost (tilesched/hopper.h) of a
// reference tile. docs/TARGETS.md gives every number's source.
#include <cassert>
#include <string>

#include "tilesched/hopper.h"
#include "tilesched/target.h"

namespace tilesched {

namespace {

// A kind of the hopper target: its default encoding is the cost of the
// reference tile (hopper::reference_work), its register footprint that
// tile's result over its 8 warps (hopper::kReferenceThreads).
OpKind hopper_kind(const char* name, std::string_view summary, int64_t result_bytes) {
  OpKind k;
  k.name = name;
  const StatusOr<hopper::Encoding> e =
      hopper::encode(hopper::cycles_of(name, hopper::reference_work(name)));
  assert(e.ok() && "the reference tiles fit the format's limits");
  k.latency = e->latency;
  k.resources = e->resources;
  k.registers = hopper::registers_per_thread(result_bytes, hopper::kReferenceThreads);
  k.summary = summary;
  const std::string_view n = name;
  k.async = n == "tiled_tma_load" || n == "tma_store" || n == "cp_async" || n == "wgmma" ||
            n == "mbarrier_arrive";
  k.tma = n == "tiled_tma_load" || n == "tma_store";
  k.wgmma = n == "wgmma";
  k.waits = n == "cp_async_wait" || n == "wgmma_wait" || n == "mbarrier_wait" ||
            n == "named_barrier";
  return k;
}

std::vector<OpKind> hopper_kinds() {
  constexpr int64_t kTile16 = 128 * 64 * 2, kTile32 = 128 * 64 * 4;
  std::vector<OpKind> kinds = {
      hopper_kind("tiled_tma_load", "TMA copy global -> SMEM (tt.descriptor_load)", 0),
      hopper_kind("tma_store", "TMA copy SMEM -> global (tt.descriptor_store)", 0),
      hopper_kind("global_load", "ld.global into registers through L1 (tt.load)", kTile16),
      hopper_kind("global_store", "st.global from registers (tt.store)", 0),
      hopper_kind("cp_async", "cp.async global -> SMEM (ttg.async_copy_global_to_local)", 0),
      hopper_kind("cp_async_commit", "cp.async.commit_group", 0),
      hopper_kind("cp_async_wait", "cp.async.wait_group (ttg.async_wait)", 0),
      hopper_kind("smem_write", "registers -> SMEM (ttg.local_alloc, ttg.local_store)", 0),
      hopper_kind("smem_read", "SMEM -> registers (ttg.local_load)", kTile16),
      hopper_kind("wgmma", "asynchronous warpgroup MMA (ttng.warp_group_dot)", 128 * 128 * 4),
      hopper_kind("wgmma_wait", "wgmma.wait_group (ttng.warp_group_dot_wait)", 0),
      hopper_kind("mbarrier_arrive", "mbarrier arrive / expect-tx", 0),
      hopper_kind("mbarrier_wait", "mbarrier try_wait (ttng.wait_barrier)", 0),
      hopper_kind("named_barrier", "bar.sync (gpu.barrier)", 0),
      hopper_kind("fence", "fence.proxy.async (ttng.fence_async_shared)", 0),
      hopper_kind("exp", "exp2 on the SFU (math.exp2)", kTile32),
      hopper_kind("sfu", "other MUFU math: log2, rsqrt, sqrt, sin, cos, reciprocal", kTile32),
      hopper_kind("alu", "elementwise arithmetic on the CUDA cores (arith.*)", kTile32),
      hopper_kind("convert", "type conversion (arith.truncf, arith.extf, ...)", kTile16),
      hopper_kind("reduce", "tt.reduce: combine ops and a warp-shuffle tree", 128 * 4),
      hopper_kind("address", "pointer arithmetic, once per vectorized access (tt.addptr)", 0),
      hopper_kind("convert_layout", "layout change through SMEM (ttg.convert_layout)", kTile16),
  };
  kinds.push_back(generic_kind());
  return kinds;
}

}  // namespace

const Target& hopper_target() {
  static const Target target = [] {
    Target t;
    t.name = "hopper";
    t.builtin = true;
    for (std::string_view name : hopper::kSlotNames) {
      t.slots.push_back(Slot{std::string(name), hopper::kCyclesPerUnit, false});
    }
    t.pools = {{"smem_bytes", PoolKind::kStorage, hopper::kSmemBytesPerBlock, 0, false}};
    t.kinds = hopper_kinds();
    t.register_budget = hopper::kMaxRegistersPerThread;
    return t;
  }();
  return target;
}

}  // namespace tilesched
