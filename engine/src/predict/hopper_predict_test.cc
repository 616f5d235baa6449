// Tests for the prediction of a Triton pipeline on Hopper
// (tilesched/hopper_predict.h) and the register estimate
// (tilesched/hopper_registers.h): occupancy, multi-buffered shared memory,
// the loaded memory latency, Triton's stages, the bound of each S.
#include "tilesched/hopper_predict.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "tilesched/graph_builder.h"
#include "tilesched/hopper_registers.h"
#include "tilesched/limits.h"
#include "tilesched/target.h"

namespace tilesched::hopper {
namespace {

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
  const OpId kl = b.op("kl", "global_load");
  const OpId k = b.op("k", "smem_write");
  const OpId qk = b.op("qk", "wgmma");
  const OpId vl = b.op("vl", "global_load");
  const OpId v = b.op("v", "smem_write");
  const OpId pv = b.op("pv", "wgmma");
  b.at(k).store_bytes = 16384;
  b.at(v).store_bytes = 16384;
  b.edge(kl, k);
  b.edge(k, qk);
  b.edge(vl, v);
  b.edge(v, pv);
  b.edge(qk, pv);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  g->attrs.resident_smem_bytes = 32768;  // a Q tile allocated outside the loop
  EXPECT_EQ(predicted_smem_bytes(*g, 1), 32768 + 16384);  // k is dead before v is written
  EXPECT_EQ(predicted_smem_bytes(*g, 2), 32768 + 2 * 32768);
  EXPECT_EQ(predicted_smem_bytes(*g, 4), 32768 + 4 * 32768);
}

TEST(HopperKernel, BufferCopiesFollowTheStagesBetweenCopyAndReader) {
  GraphBuilder b(hopper_target(), "copies");
  const OpId l = b.op("l", "global_load");
  const OpId w = b.op("w", "smem_write");    // filled by l's copy, read by an MMA
  const OpId m = b.op("m", "wgmma");
  const OpId x = b.op("x", "alu");
  const OpId xw = b.op("xw", "smem_write");  // written from registers, read by a load
  const OpId r = b.op("r", "smem_read");
  b.at(w).store_bytes = 1000;
  b.at(xw).store_bytes = 100;
  b.edge(l, w);
  b.edge(w, m);
  b.edge(x, xw);
  b.edge(xw, r);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  // l w m x xw r: the copy in stage 0, its MMA two stages later: 2 + 1
  // copies; xw read two stages after its write by a load from shared
  // memory: 2, no MMA slot.
  EXPECT_EQ(buffer_copies(*g, {0, 2, 2, 0, 0, 2}), (std::vector<int64_t>{0, 3, 0, 0, 2, 0}));
  EXPECT_EQ(predicted_smem_bytes(*g, std::vector<int64_t>{0, 2, 2, 0, 0, 2}), 3000 + 200);
  // Read in the stage it is written: one copy, not multi-buffered.
  EXPECT_EQ(buffer_copies(*g, {0, 1, 1, 1, 1, 1}), (std::vector<int64_t>{0, 2, 0, 0, 1, 0}));
  // A load read in its own stage stays a load into registers: its write
  // keeps its cost; read a stage later it is one copy into the buffer.
  EXPECT_FALSE(as_pipelined(*g, {0, 0, 0, 0, 0, 0}).ops[w].resources.empty());
  EXPECT_TRUE(as_pipelined(*g, {0, 1, 1, 0, 0, 0}).ops[w].resources.empty());
}

// A TMA load whose tile a wgmma reads straight from shared memory (the
// generated gemm_mainloop's shape, no ttg.local_alloc between them): the
// tile is an operand buffer, there at one stage and `stages` deep, unlike
// a load read back into registers (stages - 1 deep, none at one stage).
TEST(HopperKernel, ATmaTileAWgmmaReadsIsThereAtEveryStageCount) {
  GraphBuilder b(hopper_target(), "tma-into-wgmma");
  std::vector<OpId> tiles;  // A, B (read by the wgmma) and a row tile (read by an ALU op)
  for (const char* name : {"a", "b", "row"}) {
    tiles.push_back(b.op(name, "tiled_tma_load"));
    b.at(tiles.back()).store_bytes = 16384;
  }
  const OpId mma = b.op("mma", "wgmma");
  b.edge(tiles[0], mma);
  b.edge(tiles[1], mma);
  b.edge(tiles[2], b.op("use", "alu"));
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(predicted_smem_bytes(*g, 1), 32768);  // a and b; row not pipelined
  EXPECT_EQ(predicted_smem_bytes(*g, 2), 2 * 32768 + 16384);
  EXPECT_EQ(predicted_smem_bytes(*g, 3), 3 * 32768 + 2 * 16384);
}

// A pointer-load matmul step: two tiles loaded and written to shared
// memory, one MMA accumulating across iterations, the address bumped.
Graph matmul_step() {
  GraphBuilder b(hopper_target(), "matmul-step");
  const OpId p = b.op("p", "address");
  const OpId a = b.op("a", "global_load");  // 416 L2 cycles, latency 56 units
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

TEST(HopperPrediction, ElementwiseOpsStreamIntoEachOther) {
  GraphBuilder b(hopper_target(), "softmax-ish");
  const OpId x = b.op("x", "alu");  // 128x64 fp32: 64 alu cycles, latency 5 units (80)
  const OpId e = b.op("e", "exp");  // 512 sfu cycles, latency 34 units (544)
  const OpId y = b.op("y", "alu");
  const OpId m = b.op("m", "wgmma");  // not elementwise: waits for y's whole tile
  b.edge(x, e);
  b.edge(e, y);
  b.edge(y, m);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  // x -> e: e starts once x's first elements are through (80 - 64 = 16
  // cycles); e -> y: y keeps behind e, starting 544 - 64 = 480 cycles after
  // it; m starts after y's whole 80: at 576 (summed whole-tile latencies:
  // 704). The tensor cores' 512 cycles do not bind.
  EXPECT_DOUBLE_EQ(cta_cycles_per_iteration(*g, triton_stages(*g, 1), 480.0), 576.0);
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

TEST(HopperKernel, CtasPerSmNamesWhatCapsThem) {
  CtaLimit limit = CtaLimit::kBlocks;
  EXPECT_EQ(ctas_per_sm({131072, 128, 256}, &limit), 1);
  EXPECT_EQ(limit, CtaLimit::kSharedMemory);
  EXPECT_EQ(ctas_per_sm({32768, 166, 256}, &limit), 1);
  EXPECT_EQ(limit, CtaLimit::kRegisters);
  EXPECT_EQ(ctas_per_sm({0, 16, 1024}, &limit), 2);
  EXPECT_EQ(limit, CtaLimit::kThreads);
  EXPECT_EQ(ctas_per_sm({0, 16, 32}, &limit), 32);
  EXPECT_EQ(limit, CtaLimit::kBlocks);
  EXPECT_EQ(cta_limit_name(CtaLimit::kRegisters), "registers");
}

TEST(HopperLatency, ALoopsLoadsCarryTheLatencyOfTheLoadedSm) {
  const Graph g = matmul_step();
  const OpId a = *g.find_op("a");
  EXPECT_EQ(g.ops[a].latency, 56);  // the target's idle latency: (480 + 416) / 16
  // L2 busy 832 of the busiest unit's 896 cycles: 480 / (1 - 0.93) > the
  // 1500-cycle cap, so 1500 + 416 cycles.
  const Graph loaded = with_loaded_memory_latency(g);
  EXPECT_EQ(loaded.ops[a].latency, 120);
  for (const Edge& e : loaded.edges) {
    if (e.from == a) {
      EXPECT_EQ(e.latency, 120);
    }
  }
  EXPECT_EQ(loaded.ops[*g.find_op("mma")].latency, g.ops[*g.find_op("mma")].latency);
  EXPECT_EQ(with_loaded_memory_latency(loaded), loaded);  // it reads costs, not latencies
  FittedConstants fit;
  fit.max_loaded_memory_latency = 800;
  EXPECT_EQ(with_loaded_memory_latency(g, fit).ops[a].latency, 76);  // (800 + 416) / 16
}

TEST(HopperLatency, ALightLoadWaitsLittleMoreThanTheIdleLatency) {
  GraphBuilder b(hopper_target(), "light");
  const OpId l = b.op("l", "global_load");   // 416 L2 cycles
  const OpId m = b.op("m", "wgmma");
  const OpId m2 = b.op("m2", "wgmma");
  const OpId m3 = b.op("m3", "wgmma");       // 1536 tensor cycles in all
  b.edge(l, m);
  b.edge(m, m2);
  b.edge(m2, m3);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  // 416 / 1536 of L2 busy: 480 / 0.729 = 658.6 cycles, + 416.
  EXPECT_EQ(with_loaded_memory_latency(*g).ops[l].latency, 68);
}

TEST(HopperPrediction, EachStageNamesTheBoundThatDecidesIt) {
  const Graph g = matmul_step();
  const CtaFootprint cta{0, 128, 256};
  const StagePrediction one = predict_stages(g, 1, cta);
  EXPECT_EQ(one.bound, Bound::kLatency);
  EXPECT_EQ(one.ctas_limit, CtaLimit::kRegisters);
  const StagePrediction three = predict_stages(g, 3, cta);
  EXPECT_EQ(three.bound, Bound::kL2Bandwidth);
  EXPECT_EQ(three.busiest_slot, kL2);
  EXPECT_EQ(predict_stages(g, 8, cta).bound, Bound::kSharedMemory);
  EXPECT_EQ(bound_name(Bound::kL2Bandwidth), "l2_bandwidth");
  // A faster L2 (a refit) leaves the tensor cores' 512 cycles and the
  // shared-memory port's 640 (2 x 128 copied in, 384 read by the MMA) to decide.
  FittedConstants fast;
  fast.l2_bytes_per_cycle = 400;
  const StagePrediction refit = predict_stages(g, 3, cta, fast);
  EXPECT_EQ(refit.busiest_slot, kSmem);
  EXPECT_LT(refit.sm_cycles, three.sm_cycles);
}

TEST(HopperPrediction, AKernelRunsInWavesOfCoResidentCtas) {
  StagePrediction p;
  p.ctas_per_sm = 2;
  p.sm_cycles = 915.0;
  // 4096 CTAs over 132 x 2: 16 waves, each 128 iterations x 2 CTAs x 915 cycles.
  EXPECT_NEAR(kernel_microseconds(p, 4096, 128, kH200), 16.0 * 128 * 2 * 915 / 1830.0, 1e-9);
  EXPECT_NEAR(kernel_microseconds(p, 264, 128, kH200), 128.0, 1e-9);  // one wave
  p.ctas_per_sm = 0;
  EXPECT_EQ(kernel_microseconds(p, 4096, 128, kH200), 0.0);
}

TEST(HopperRegisters, LoopCarriedValuesAndTheWidestMomentCount) {
  GraphBuilder b(hopper_target(), "acc");
  const OpId p = b.op("p", "address");      // a pointer tile: counts nothing
  const OpId x = b.op("x", "alu");          // 32 registers, read by y
  const OpId y = b.op("y", "alu");          // 32, read by acc
  const OpId acc = b.op("acc", "wgmma");    // 64, carried to the next iteration
  b.edge(p, p, std::nullopt, 1);
  b.edge(x, y);
  b.edge(y, acc);
  b.edge(acc, acc, std::nullopt, 1);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  // After y: x is dead (last read by y), y (32) and the carried acc (64) live.
  EXPECT_EQ(register_liveness_peak(*g), 96);
  EXPECT_EQ(estimated_registers(*g), 96 + kRegisterOverhead);
  g->ops[acc].registers = 250;
  EXPECT_EQ(estimated_registers(*g), kMaxRegistersPerThread);
}

}  // namespace
}  // namespace tilesched::hopper
