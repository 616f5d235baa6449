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
  // 4.8 TB/s of HBM3e over 132 SMs at 1.83 GHz: 19.87 bytes per cycle and SM.
  EXPECT_NEAR(4.8e12 / (kSmCount * kClockMhz * 1e6), kDramBytesPerCycleX100 / 100.0, 0.01);
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
  EXPECT_EQ(tma.latency, kL2Latency + 410);
  Work to_registers = bytes(16384);
  to_registers.to_registers = true;
  EXPECT_EQ(cycles_of("tiled_tma_load", to_registers).smem, 256);
  EXPECT_EQ(cycles_of("global_store", bytes(16384)).dram, 825);
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

TEST(HopperModel, RegistersPerThreadOfATile) {
  EXPECT_EQ(registers_per_thread(128 * 128 * 4, 256), 64);  // an fp32 accumulator, 8 warps
  EXPECT_EQ(registers_per_thread(1, 256), 1);
  EXPECT_EQ(registers_per_thread(0, 256), 0);
}

TEST(HopperKernel, CtasPerSmIsTheLeastOfSharedMemoryRegistersAndThreads) {
  // The shared configurations (8 warps): 128 registers and up to about
  // 113 KiB allow two CTAs; 166 registers (attention) one.
  EXPECT_EQ(ctas_per_sm({32768, 128, 256}), 2);
  EXPECT_EQ(ctas_per_sm({65536, 114, 256}), 2);
  EXPECT_EQ(ctas_per_sm({115712, 128, 256}), 2);
  EXPECT_EQ(ctas_per_sm({115713, 128, 256}), 1);
  EXPECT_EQ(ctas_per_sm({131072, 128, 256}), 1);
  EXPECT_EQ(ctas_per_sm({49152, 166, 256}), 1);
  EXPECT_EQ(ctas_per_sm({65552, 90, 256}), 2);    // registers allow 2, shared memory 3
  EXPECT_EQ(ctas_per_sm({16384, 32, 128}), 13);   // shared memory binds: 228 KiB / 17 KiB
  EXPECT_EQ(ctas_per_sm({0, 16, 64}), 32);        // the block limit
  EXPECT_EQ(ctas_per_sm({232449, 32, 128}), 0);   // more than a block may have
  EXPECT_EQ(ctas_per_sm({0, 256, 256}), 0);       // more than 255 registers
}

TEST(HopperKernel, SharedCtasInterleaveUntilTheBusiestUnitIsFull) {
  GraphBuilder b(hopper_target(), "two-dots");
  b.op("a", "wgmma");  // 512 tensor cycles each
  b.op("b", "wgmma");
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(busiest_unit_cycles(*g), 1024);
  EXPECT_DOUBLE_EQ(cycles_per_iteration(*g, 100, 1), 1600.0);
  EXPECT_DOUBLE_EQ(cycles_per_iteration(*g, 100, 2), 1024.0);  // not 800: the tensor cores are full
}

TEST(HopperKernel, SharedMemoryMultiBuffersAtTwoStagesAndReusesAtOne) {
  GraphBuilder b(hopper_target(), "k-then-v");
  const OpId k = b.op("k", "smem_write");
  const OpId qk = b.op("qk", "wgmma");
  const OpId v = b.op("v", "smem_write");
  const OpId pv = b.op("pv", "wgmma");
  b.at(k).store_bytes = 16384;
  b.at(v).store_bytes = 16384;
  b.edge(k, qk);
  b.edge(v, pv);
  b.edge(qk, pv);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  g->attrs.resident_smem_bytes = 32768;  // a Q tile allocated outside the loop
  EXPECT_EQ(predicted_smem_bytes(*g, 1), 32768 + 16384);  // k is dead before v is written
  EXPECT_EQ(predicted_smem_bytes(*g, 2), 32768 + 2 * 32768);
  EXPECT_EQ(predicted_smem_bytes(*g, 4), 32768 + 4 * 32768);
}

// A pointer-load matmul step: two tiles loaded and written to shared
// memory, one MMA accumulating across iterations, the address bumped.
Graph matmul_step() {
  GraphBuilder b(hopper_target(), "matmul-step");
  const OpId p = b.op("p", "address");
  const OpId a = b.op("a", "global_load");  // 416 L2 cycles, latency 42 units
  const OpId aw = b.op("aw", "smem_write");
  const OpId bl = b.op("b", "global_load");
  const OpId bw = b.op("bw", "smem_write");
  const OpId mma = b.op("mma", "wgmma");  // 512 tensor cycles, latency 34 units
  b.at(aw).store_bytes = 16384;
  b.at(bw).store_bytes = 16384;
  b.edge(p, a, std::nullopt, 1);
  b.edge(p, p, std::nullopt, 1);
  b.edge(a, aw);
  b.edge(bl, bw);
  b.edge(aw, mma);
  b.edge(bw, mma);
  b.edge(mma, mma, std::nullopt, 1);
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok());
  return *g;
}

TEST(HopperPrediction, PipelinedLoadsCopyStraightIntoTheirBuffers) {
  const Graph g = matmul_step();
  const Graph p = as_pipelined(g);
  const OpId aw = *g.find_op("aw");
  EXPECT_TRUE(p.ops[aw].resources.empty());  // the copy writes the buffer
  EXPECT_EQ(p.ops[aw].latency, 1);
  EXPECT_EQ(p.ops[aw].store_bytes, 16384);   // still a buffer
  EXPECT_EQ(p.ops[*g.find_op("a")].resources, g.ops[*g.find_op("a")].resources);
  EXPECT_EQ(p.ops[*g.find_op("mma")].resources, g.ops[*g.find_op("mma")].resources);
  EXPECT_EQ(busiest_unit_cycles(g), 896);  // smem: 2 x 128 (L1) + 2 x 128 (writes) + 384 (MMA)
  EXPECT_EQ(busiest_unit_cycles(p), 832);  // l2: 2 x 416
}

TEST(HopperPrediction, TritonsStagesPutLoadsFirstAndTheRestLast) {
  const Graph g = matmul_step();
  // p a aw b bw mma: loads and their writes in 0, the MMA in S - 1, the
  // address bump one stage before the load it feeds (distance 1).
  EXPECT_EQ(triton_stages(g, 1), (std::vector<int64_t>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(triton_stages(g, 2), (std::vector<int64_t>{1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(triton_stages(g, 4), (std::vector<int64_t>{1, 0, 0, 0, 0, 3}));
}

TEST(HopperPrediction, StagesHideTheLoadLatencyAtStageBoundaries) {
  const Graph g = matmul_step();
  const Graph p = as_pipelined(g);
  // One stage: load (1000 + 416), write (160), MMA (544) one after another.
  EXPECT_DOUBLE_EQ(cta_cycles_per_iteration(g, triton_stages(g, 1), 1000.0), 2120.0);
  // Two: the copy issued after the address bump (48) arrives (1416, and the
  // folded write's unit) before the next kernel iteration's MMA.
  EXPECT_DOUBLE_EQ(cta_cycles_per_iteration(p, triton_stages(p, 2), 1000.0), 1480.0);
  // Three: two kernel iterations to arrive in; then the L2 bandwidth binds.
  EXPECT_DOUBLE_EQ(cta_cycles_per_iteration(p, triton_stages(p, 3), 1000.0), 832.0);
}

TEST(HopperPrediction, CtasShareTheSmAndTheMemoryLatencyFollowsTheLoad) {
  const Graph g = matmul_step();
  const CtaFootprint cta{0, 128, 256};  // 8 warps of 128 registers: 2 CTAs by registers
  double previous = 0.0;
  for (int64_t s = 1; s <= 4; ++s) {
    const StagePrediction p = predict_stages(g, s, cta);
    EXPECT_EQ(p.stages, s);
    EXPECT_EQ(p.smem_bytes, predicted_smem_bytes(g, s));
    EXPECT_EQ(p.ctas_per_sm, s <= 3 ? 2 : 1) << s;  // 4 x 32 KiB leave room for one
    EXPECT_GE(p.memory_latency, static_cast<double>(kIdleMemoryLatency));
    EXPECT_LE(p.memory_latency, static_cast<double>(kMaxLoadedMemoryLatency));
    EXPECT_DOUBLE_EQ(p.sm_cycles, std::max(p.cta_cycles / static_cast<double>(p.ctas_per_sm),
                                           s == 1 ? 896.0 : 832.0));
    if (s > 1) {
      EXPECT_LE(p.sm_cycles, previous) << s;  // deeper never predicts slower here
    }
    previous = p.sm_cycles;
  }
  EXPECT_DOUBLE_EQ(predict_stages(g, 3, cta).sm_cycles, 832.0);  // bandwidth-bound
  EXPECT_GT(predict_stages(g, 1, cta).sm_cycles, 1.2 * 832.0);    // the load's latency shows
  EXPECT_EQ(predict_stages(g, 8, cta).ctas_per_sm, 0);            // 8 x 32 KiB do not fit
  EXPECT_EQ(predict_stages(g, 8, cta).sm_cycles, 0.0);
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
