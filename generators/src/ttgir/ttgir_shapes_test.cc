// Tests for the loop shapes the TTGIR importer reads beyond one plain
// scf.for: scf.if in the body (guarded ops, a persistent epilogue's store),
// nested loops (only the inner one is imported), several loops in one
// function (each listed and importable, shared memory by liveness),
// scf.while, warp_group_dot with its waits, fp8 and bf16 tiles, and the
// buffers Triton's pipeliner gives loads read into registers. The loops
// are our own, in the form Triton 3.6 prints (generators/testdata/ttgir/
// shapes/, PROVENANCE.md there).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../schedule_expect.h"
#include "tilesched/graphgen/ttgir_import.h"
#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/json_io.h"

namespace tilesched::graphgen {
namespace {

namespace fs = std::filesystem;

const std::string kShapes = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir/shapes";
const std::string kDumps = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir";

StatusOr<TtgirImport> shape(const std::string& file, std::optional<int> loop = {}) {
  return import_ttgir(kShapes + "/" + file, TtgirOptions{loop, true});
}

const Op& op_named(const Graph& g, std::string_view id) {
  const std::optional<OpId> v = g.find_op(id);
  EXPECT_TRUE(v.has_value()) << id;
  return g.ops[v.value_or(0)];
}

const Edge* edge(const Graph& g, std::string_view from, std::string_view to) {
  const std::optional<OpId> u = g.find_op(from), v = g.find_op(to);
  for (const Edge& e : g.edges) {
    if (u && v && e.from == *u && e.to == *v && e.kind == EdgeKind::kData) return &e;
  }
  return nullptr;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".ttgir") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TtgirShapes, EveryInnermostLoopImportsStrictlyAndEveryGeneratorVerifies) {
  int loops = 0;
  for (const std::string& path : files_in(kShapes)) {
    StatusOr<std::string> text = read_file(path);
    ASSERT_TRUE(text.ok());
    StatusOr<std::vector<TtgirLoop>> listed = list_ttgir_loops(*text, path);
    ASSERT_TRUE(listed.ok()) << listed.status().message();
    for (const TtgirLoop& l : *listed) {
      if (!l.innermost) continue;
      StatusOr<TtgirImport> r = import_ttgir(path, TtgirOptions{l.index, true});
      ASSERT_TRUE(r.ok()) << path << " loop " << l.index << ": " << r.status().message();
      EXPECT_TRUE(r->unknown_ops.empty());
      expect_every_generator_verifies(r->graph);
      ++loops;
    }
  }
  EXPECT_EQ(loops, 6);  // rownorm has two
}

// --list counts the graph ops an import makes: folded ops, terminators
// and nested loops left out, scf.if branches counted.
TEST(TtgirShapes, ListedOpCountsAreTheImportedOps) {
  std::vector<std::string> files = files_in(kShapes);
  for (const std::string& f : files_in(kDumps)) files.push_back(f);
  for (const std::string& path : files) {
    StatusOr<std::string> text = read_file(path);
    ASSERT_TRUE(text.ok());
    StatusOr<std::vector<TtgirLoop>> listed = list_ttgir_loops(*text, path);
    ASSERT_TRUE(listed.ok());
    for (const TtgirLoop& l : *listed) {
      if (!l.innermost) continue;
      StatusOr<TtgirImport> r = import_ttgir(path, TtgirOptions{l.index, false});
      ASSERT_TRUE(r.ok()) << path << ": " << r.status().message();
      EXPECT_EQ(l.op_count, r->graph.op_count()) << path << " loop " << l.index;
    }
  }
}

TEST(TtgirShapes, PersistentEpilogueInAnScfIfIsImportedGuarded) {
  StatusOr<TtgirImport> r = shape("persistent_tma_matmul_f16.ttgir");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(g.attrs.num_warps, 8);
  const Op& store = op_named(g, "descriptor_store");
  EXPECT_EQ(store.kind, "tma_store");
  // Guarded: the store reads the condition; the store, its conversion and
  // the next tile's index share the scf.if's position (the body's 15th op).
  ASSERT_NE(edge(g, "last", "descriptor_store"), nullptr);
  EXPECT_NE(edge(g, "acc_18", "c"), nullptr);
  EXPECT_NE(edge(g, "c", "c_25"), nullptr);
  EXPECT_EQ(store.source_position, 14);
  EXPECT_EQ(op_named(g, "c").source_position, 14);
  // The prologue's scf.if yields the new tile's offsets: the loads depend
  // on the branch that computes them and on the condition that chose it.
  EXPECT_NE(edge(g, "offs_am_13", "a"), nullptr);
  EXPECT_NE(edge(g, "first", "a"), nullptr);
  EXPECT_EQ(op_named(g, "offs_am_13").source_position, 4);
  // The next tile's index goes round the loop through the epilogue.
  ASSERT_NE(edge(g, "tile_id_c_21", "tile_id_c_21"), nullptr);
  EXPECT_EQ(edge(g, "tile_id_c_21", "tile_id_c_21")->distance, 1);
  // The TMA store stages its 128x128 fp16 tile in a buffer of its own,
  // alive for the whole loop.
  EXPECT_EQ(g.attrs.resident_smem_bytes, 128 * 128 * 2);
  EXPECT_EQ(hopper::predicted_smem_bytes(g, 3), 3 * 2 * 128 * 64 * 2 + 128 * 128 * 2);
}

TEST(TtgirShapes, NestedLoopsImportTheInnerOneAndRefuseTheOuter) {
  const std::string path = kShapes + "/persistent_matmul_nested_bf16.ttgir";
  StatusOr<std::string> text = read_file(path);
  ASSERT_TRUE(text.ok());
  StatusOr<std::vector<TtgirLoop>> listed = list_ttgir_loops(*text, "p.ttgir");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_FALSE((*listed)[0].innermost);
  EXPECT_EQ((*listed)[0].function, "@persistent_matmul_bf16");
  EXPECT_EQ((*listed)[0].op_count, 19);  // the per-tile ops around the k loop
  EXPECT_TRUE((*listed)[1].innermost);
  EXPECT_EQ(default_ttgir_loop(*listed), 1);
  StatusOr<TtgirImport> inner = shape("persistent_matmul_nested_bf16.ttgir");
  ASSERT_TRUE(inner.ok()) << inner.status().message();
  EXPECT_EQ(inner->loop, 1);
  EXPECT_EQ(inner->graph.op_count(), 7);  // the per-tile ops are context, not graph ops
  EXPECT_EQ(op_named(inner->graph, "x_28").store_bytes, 128 * 64 * 2);  // bf16 tiles
  StatusOr<TtgirImport> outer = import_ttgir_text(*text, "p.ttgir", TtgirOptions{0, false}, "p");
  ASSERT_FALSE(outer.ok());
  EXPECT_EQ(outer.status().message().rfind("p.ttgir:33: loop 0 holds another loop; only innermost", 0),
            0u)
      << outer.status().message();
}

// Two loops over the same row: each is listed and importable; each load
// read into registers carries the buffer Triton's pipeliner gives it,
// one tile (S - 1) deep: 2048 bytes per stage of the 1024 fp16 row tile.
TEST(TtgirShapes, RowNormalizationLoopsPipelineTheirLoadsThroughSharedMemory) {
  for (int loop : {0, 1}) {
    StatusOr<TtgirImport> r = shape("rownorm_f16.ttgir", loop);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Graph& g = r->graph;
    const Op& load = op_named(g, loop == 0 ? "x" : "x_22");
    EXPECT_EQ(load.store_bytes, 2048);
    EXPECT_FALSE(g.attrs.resident_smem_bytes.has_value());  // the loops' buffers do not overlap
    const int64_t want[] = {0, 2048, 4096, 6144};
    for (int64_t s = 1; s <= 4; ++s) EXPECT_EQ(hopper::predicted_smem_bytes(g, s), want[s - 1]) << s;
  }
  StatusOr<TtgirImport> second = shape("rownorm_f16.ttgir", 1);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(op_named(second->graph, "store").kind, "global_store");  // the row's store
  EXPECT_NE(edge(second->graph, "y_24", "store"), nullptr);
}

TEST(TtgirShapes, WhileLoopCarriesValuesThroughConditionAndYield) {
  StatusOr<TtgirImport> r = shape("while_segment_sum_f32.ttgir");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  ASSERT_EQ(g.op_count(), 7);  // more, cols_6, x_ptrs_7, mask_8, x, acc_9, off_10
  // The do block's arguments stand for what scf.condition forwards, which
  // is what scf.yield passed one iteration back.
  ASSERT_NE(edge(g, "acc_9", "acc_9"), nullptr);
  EXPECT_EQ(edge(g, "acc_9", "acc_9")->distance, 1);
  ASSERT_NE(edge(g, "off_10", "more"), nullptr);
  EXPECT_EQ(edge(g, "off_10", "more")->distance, 1);
  EXPECT_EQ(edge(g, "off_10", "off_10")->distance, 1);
  EXPECT_NE(edge(g, "x", "acc_9"), nullptr);
  EXPECT_EQ(op_named(g, "x").store_bytes, 512 * 4);
  // Positions run across the two blocks: scf.condition is 1, the do
  // block's first op (a folded splat) 2.
  EXPECT_EQ(op_named(g, "more").source_position, 0);
  EXPECT_EQ(op_named(g, "cols_6").source_position, 3);
  EXPECT_EQ(op_named(g, "off_10").source_position, 8);
}

TEST(TtgirShapes, Fp8WarpGroupDotWithItsWaits) {
  StatusOr<TtgirImport> r = shape("fp8_tma_matmul_wgmma_wait.ttgir");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(op_named(g, "acc_11").kind, "wgmma");
  EXPECT_EQ(op_named(g, "acc_12").kind, "wgmma_wait");
  ASSERT_NE(edge(g, "acc_11", "acc_12"), nullptr);
  ASSERT_NE(edge(g, "acc_12", "acc_11"), nullptr);  // the waited accumulator, next iteration
  EXPECT_EQ(edge(g, "acc_12", "acc_11")->distance, 1);
  // Two 3 x 128x128 fp8 tiles and three 8-byte barriers, allocated outside.
  EXPECT_EQ(g.attrs.resident_smem_bytes, 2 * 3 * 128 * 128 + 3 * 8);
  // fp8 runs the tensor cores at twice the fp16 rate: a 128x128x128 fp8
  // dot takes what a 128x128x64 fp16 one does.
  StatusOr<TtgirImport> f16 = import_ttgir(
      kDumps + "/matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0.input.ttgir", TtgirOptions{});
  ASSERT_TRUE(f16.ok());
  EXPECT_EQ(op_named(g, "acc_11").resources, op_named(f16->graph, "acc_22").resources);
}

// A buffer allocated before a loop is counted for it when it is still
// used at or after the loop's start (alive while it runs), whether or not
// the loop itself names it; one whose last use is before the loop is not.
TEST(TtgirShapes, BuffersAllocatedOutsideCountForEveryLoopTheyAreAliveIn) {
  const std::string text = R"(
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @f(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %early = ttg.local_alloc : () -> !ttg.memdesc<256xf32, #shared, #smem, mutable>
    %kept = ttg.local_alloc : () -> !ttg.memdesc<128xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %kept[%c0] : !ttg.memdesc<128xf32, #shared, #smem, mutable> -> !ttg.memdesc<128xf32, #shared, #smem, mutable>
    %e = ttg.local_load %early : !ttg.memdesc<256xf32, #shared, #smem, mutable> -> tensor<256xf32>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %t = arith.addi %i, %c1 : i32
    }
    scf.for %j = %c0 to %n step %c1 : i32 {
      %u = arith.addi %j, %c1 : i32
    }
    %w = ttg.local_load %v : !ttg.memdesc<128xf32, #shared, #smem, mutable> -> tensor<128xf32>
    tt.return
  }
}
)";
  for (int loop : {0, 1}) {
    StatusOr<TtgirImport> r = import_ttgir_text(text, "b.ttgir", TtgirOptions{loop, true}, "b");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->graph.attrs.resident_smem_bytes, 128 * 4) << loop;  // %kept, not %early
  }
}

TEST(TtgirShapes, MalformedShapesAreRefusedWithTheirLine) {
  const std::string head =
      "module {\n  tt.func @f(%n: i32) {\n    %c0 = arith.constant 0 : i32\n";
  auto refused = [](const std::string& text, std::string_view want) {
    StatusOr<TtgirImport> r = import_ttgir_text(text, "m.ttgir", TtgirOptions{0, false}, "m");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message().rfind(want, 0), 0u) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  };
  refused(head +
              "    scf.for %i = %c0 to %n step %c0 : i32 {\n      %b = arith.cmpi eq, %i, %c0 : i32\n"
              "      %r = scf.if %b -> (i32) {\n        scf.yield %c0, %c0 : i32, i32\n"
              "      } else {\n        scf.yield %c0 : i32\n      }\n    }\n  }\n}\n",
          "m.ttgir:7: scf.yield passes 2 values to an scf.if of 1 results");
  refused(head +
              "    %w = scf.while (%a = %c0) : (i32) -> i32 {\n"
              "      scf.condition(%b) %a, %a : i32, i32\n    } do {\n"
              "    ^bb0(%x: i32):\n      scf.yield %x : i32\n    }\n  }\n}\n",
          "m.ttgir:5: scf.condition passes 2 values to a do block of 1 arguments");
  refused(head +
              "    %w = scf.while (%a = %c0) : (i32) -> i32 {\n"
              "      %y = arith.addi %a, %a : i32\n    } do {\n"
              "    ^bb0(%x: i32):\n      scf.yield %x : i32\n    }\n  }\n}\n",
          "m.ttgir:4: scf.while's first region does not end in scf.condition");
  refused(head +
              "    %w = scf.while (%a = %c0) : (i32) -> i32 {\n"
              "      scf.condition(%b) %a : i32\n    } do {\n"
              "    ^bb0(%x: i32):\n      scf.yield %x, %x : i32, i32\n    }\n  }\n}\n",
          "m.ttgir:4: scf.while's scf.yield passes 2 values to 1 carried values");
}

}  // namespace
}  // namespace tilesched::graphgen
