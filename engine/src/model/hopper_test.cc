// Tests for the Hopper model (tilesched/hopper.h) and the hopper target:
// the numbers docs/TARGETS.md gives, pinned, and how costs follow tile
// shape and element type.
#include "tilesched/hopper.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "tilesched/graph_builder.h"
#include "tilesched/limits.h"
#include "tilesched/target.h"

namespace tilesched::hopper {
namespace {

Work mma(int64_t m, int64_t n, int64_t k, Element e = Element::kF16) {
  Work w;
  w.m = m, w.n = n, w.k = k;
  w.element = e;
  return w;
}

Work tile(int64_t elements, Element e) {
  Work w;
  w.elements = elements;
  w.element = e;
  return w;
}

Work bytes(int64_t b) {
  Work w;
  w.bytes = b;
  return w;
}

TEST(HopperModel, PeakNumbersAreTheDatasheetsPerSmAndCycle) {
  // 4096 dense fp16 FLOP per cycle and SM x 132 SMs x 1.83 GHz = 989.4 TFLOP/s.
  EXPECT_EQ(kTensorFlopsPerCycle * kSmCount * kClockMhz, 989429760);  // MFLOP/s
  // 4.8 TB/s of HBM3e over 132 SMs at 1.83 GHz: 19.87 bytes per cycle and
  // SM on an H200; 3.35 TB/s, 13.87, on an H100 SXM.
  EXPECT_NEAR(dram_bytes_per_cycle(kH200), 19.87, 0.01);
  EXPECT_NEAR(dram_bytes_per_cycle(kH100Sxm), 13.87, 0.01);
  EXPECT_EQ(kSmemBytesPerCycle, 128);
  EXPECT_EQ(kSfuLanesPerCycle, 16);
  EXPECT_EQ(kFp32LanesPerCycle, 128);
  EXPECT_EQ(kSmemBytesPerBlock, 227 * 1024);
  EXPECT_EQ(kSmemBytesPerSm, 228 * 1024);
  EXPECT_EQ(kCyclesPerUnit, 16);
}

TEST(HopperModel, MmaTimeFollowsShapeAndElementType) {
  EXPECT_EQ(cycles_of("wgmma", mma(128, 128, 64)).tensor, 512);
  EXPECT_EQ(cycles_of("wgmma", mma(64, 64, 16)).tensor, 32);
  EXPECT_EQ(cycles_of("wgmma", mma(128, 128, 64, Element::kBF16)).tensor, 512);
  EXPECT_EQ(cycles_of("wgmma", mma(128, 128, 64, Element::kF8)).tensor, 256);
  EXPECT_EQ(cycles_of("wgmma", mma(128, 128, 64, Element::kF32)).tensor, 1024);  // tf32
  EXPECT_GT(cycles_of("wgmma", mma(128, 128, 64)).latency,
            cycles_of("wgmma", mma(64, 64, 16)).latency);
  // Operands read from SMEM: A once per warp group along N, B once per warp group along M.
  Work w = mma(128, 128, 64);
  w.warp_groups_m = 2;
  EXPECT_EQ(cycles_of("wgmma", w).smem, (16384 + 2 * 16384) / 128);
  w.a_in_smem = false;
  EXPECT_EQ(cycles_of("wgmma", w).smem, 2 * 16384 / 128);
}

TEST(HopperModel, CudaCoreAndSfuTimeFollowElementsAndType) {
  EXPECT_EQ(cycles_of("alu", tile(8192, Element::kF32)).alu, 64);
  EXPECT_EQ(cycles_of("alu", tile(8192, Element::kF16)).alu, 32);
  EXPECT_EQ(cycles_of("alu", tile(8192, Element::kI32)).alu, 128);
  EXPECT_EQ(cycles_of("exp", tile(8192, Element::kF32)).sfu, 512);
  EXPECT_EQ(cycles_of("exp", tile(8192, Element::kF32)).alu, 0);
  EXPECT_EQ(cycles_of("alu", tile(1, Element::kI32)).alu, 1);  // a scalar still issues
}

TEST(HopperModel, TransfersChargeL2AndSharedMemoryBandwidth) {
  const Cycles tma = cycles_of("tiled_tma_load", bytes(16384));
  EXPECT_EQ(tma.l2, 410);  // 16 KiB at 40 bytes per cycle
  EXPECT_EQ(tma.smem, 128);
  EXPECT_EQ(tma.tma, kTmaIssueCycles);
  EXPECT_EQ(tma.dram, 0);  // tiles are re-read from L2 by other CTAs
  EXPECT_EQ(tma.latency, kIdleMemoryLatency + 410);
  Work to_registers = bytes(16384);
  to_registers.to_registers = true;
  EXPECT_EQ(cycles_of("tiled_tma_load", to_registers).smem, 256);
  EXPECT_EQ(cycles_of("global_store", bytes(16384)).dram, 825);
  EXPECT_EQ(cycles_of("global_store", bytes(16384), kH100Sxm).dram, 1182);  // 16384 / 13.87
  EXPECT_EQ(cycles_of("convert_layout", bytes(16384)).smem, 256);  // written, read back
  EXPECT_EQ(cycles_of("smem_write", bytes(16384)).smem, 128);
}

TEST(HopperModel, EncodingCountsCyclesAsOccupancyOfSixteenCycleRows) {
  Cycles c;
  c.tensor = 512, c.alu = 17, c.sync = 1, c.latency = 542;
  StatusOr<Encoding> e = encode(c);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->latency, 34);
  EXPECT_EQ(e->resources,
            (std::vector<Triple>{{kTensor, 32, 16}, {kAlu, 2, 9}, {kSync, 1, 1}}));
  c.sfu = (limits::kMaxDuration + 1) * kCyclesPerUnit;
  const StatusOr<Encoding> too_long = encode(c);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("cycles of sfu"), std::string::npos);
}

TEST(HopperModel, TheMemoryLatencyQueuesUnderLoadUpToTheFittedCap) {
  EXPECT_DOUBLE_EQ(loaded_memory_latency(0.0), 480.0);
  EXPECT_DOUBLE_EQ(loaded_memory_latency(0.5), 960.0);
  EXPECT_DOUBLE_EQ(loaded_memory_latency(0.9), 1500.0);  // 4800 capped
  EXPECT_DOUBLE_EQ(loaded_memory_latency(-1.0), 480.0);
  FittedConstants fit;
  fit.max_loaded_memory_latency = 4000;
  EXPECT_DOUBLE_EQ(loaded_memory_latency(0.99, fit), 4000.0);
  EXPECT_NEAR(loaded_memory_latency(0.75, fit), 1920.0, 1e-9);
}

TEST(HopperModel, GpusByName) {
  EXPECT_EQ(find_gpu("h200"), &kH200);
  EXPECT_EQ(find_gpu("h100"), &kH100Sxm);
  EXPECT_EQ(find_gpu("a100"), nullptr);
  EXPECT_EQ(kH100Sxm.memory_gib, 80);
  EXPECT_EQ(kH200.memory_gib, 141);
  EXPECT_EQ(gpu_names(), "h100, h200");
}

TEST(HopperModel, RegistersPerThreadOfATile) {
  EXPECT_EQ(registers_per_thread(128 * 128 * 4, 256), 64);  // an fp32 accumulator, 8 warps
  EXPECT_EQ(registers_per_thread(1, 256), 1);
  EXPECT_EQ(registers_per_thread(0, 256), 0);
}

TEST(HopperTarget, HasEightThroughputSlotsAndTheBlocksSharedMemory) {
  const Target& t = hopper_target();
  EXPECT_TRUE(t.builtin);
  ASSERT_EQ(t.slot_count(), 8);
  for (int s = 1; s <= 8; ++s) {
    EXPECT_EQ(t.slot(s).name, kSlotNames[s - 1]);
    EXPECT_EQ(t.slot(s).capacity, kCyclesPerUnit);
  }
  EXPECT_EQ(t.find_slot("tensor"), kTensor);
  ASSERT_EQ(t.storage_pool(), 0);
  EXPECT_EQ(t.pools[0].capacity, 232448);
  EXPECT_EQ(t.register_budget, 255);
  EXPECT_EQ(find_builtin_target("hopper"), &t);
  EXPECT_EQ(find_builtin_target("blackwell"), &blackwell_target());
  EXPECT_EQ(find_builtin_target("ampere"), nullptr);
}

TEST(HopperTarget, KindDefaultsAreTheReferenceTilesCost) {
  const Target& t = hopper_target();
  for (const OpKind& k : t.kinds) {
    if (k.name == "generic") continue;
    StatusOr<Encoding> e = encode(cycles_of(k.name, reference_work(k.name)));
    ASSERT_TRUE(e.ok()) << k.name;
    EXPECT_EQ(k.latency, e->latency) << k.name;
    EXPECT_EQ(k.resources, e->resources) << k.name;
    for (const Triple& tr : k.resources) EXPECT_LE(tr.occupancy, t.slot(tr.slot).capacity);
  }
  const OpKind* mma = t.find_kind("wgmma");
  ASSERT_NE(mma, nullptr);
  EXPECT_TRUE(mma->wgmma && mma->async);
  EXPECT_EQ(mma->registers, 64);
  EXPECT_EQ(mma->resources.front(), (Triple{kTensor, 32, 16}));  // 128x128x64 fp16: 512 cycles
  EXPECT_TRUE(t.find_kind("tiled_tma_load")->tma);
  for (const char* k : {"cp_async_wait", "wgmma_wait", "mbarrier_wait", "named_barrier"}) {
    EXPECT_TRUE(t.find_kind(k)->waits) << k;
  }
  // Every Blackwell kind a Hopper SM also has exists under the same name.
  for (const char* k : {"tiled_tma_load", "tma_store", "cp_async", "cp_async_wait", "smem_write",
                        "smem_read", "wgmma", "mbarrier_arrive", "mbarrier_wait",
                        "named_barrier", "exp", "alu", "generic"}) {
    EXPECT_NE(t.find_kind(k), nullptr) << k;
  }
  EXPECT_EQ(t.find_kind("tmem_load"), nullptr);
}

}  // namespace
}  // namespace tilesched::hopper
