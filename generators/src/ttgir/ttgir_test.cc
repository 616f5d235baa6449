// Tests for the TTGIR importer: the tokenizer and parser on our own small
// snippets, the mapping (kinds, costs from tile shapes, edges, Triton's
// schedule, unknown ops), one-line refusals of malformed input, the
// committed Triton dumps of generators/testdata/ttgir/, and every shared
// configuration of TILESCHED_KERNELS_DIR (skipped when it is absent).
#include "tilesched/graphgen/ttgir_import.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/json_io.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"
#include "../schedule_expect.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen {
namespace {

namespace fs = std::filesystem;

const std::string kTestdata = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir";
const std::string kKernelsDir = TILESCHED_KERNELS_DIR;

// A 64x64 loop in the shape Triton prints: a pointer load into shared
// memory, a warpgroup dot accumulating across iterations, the pointer
// advanced through an iter_arg.
constexpr std::string_view kPrelude = R"(
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
#loc = loc("k.py":1:0)
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%a: !tt.ptr<f16> loc("a"(#loc)), %n: i32) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<64> : tensor<64x64xi32, #blocked>
    %init = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %p0 = tt.splat %a : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
)";

constexpr std::string_view kLoop = R"(
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %p = %p0) -> (tensor<64x64xf32, #mma>, tensor<64x64x!tt.ptr<f16>, #blocked>)  : i32 {
      %x = tt.load %p {loop.cluster = 1 : i32, loop.stage = 0 : i32} : tensor<64x64x!tt.ptr<f16>, #blocked> loc(#loc)
      %s = ttg.local_alloc %x {loop.cluster = 0 : i32, loop.stage = 1 : i32} : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
      %d = ttng.warp_group_dot %s, %s, %acc {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      %q = tt.addptr %p, %step : tensor<64x64x!tt.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
      scf.yield %d, %q : tensor<64x64xf32, #mma>, tensor<64x64x!tt.ptr<f16>, #blocked>
    } {tt.num_stages = 2 : i32}
)";

constexpr std::string_view kEpilogue = R"(
    tt.return
  }
}
)";

std::string module_with(std::string_view loop) {
  return std::string(kPrelude) + std::string(loop) + std::string(kEpilogue);
}

StatusOr<TtgirImport> import(std::string_view text, TtgirOptions options = {}) {
  return import_ttgir_text(text, "k.ttgir", options, "k");
}

const Op& op_named(const Graph& g, std::string_view id) {
  const std::optional<OpId> v = g.find_op(id);
  EXPECT_TRUE(v.has_value()) << id;
  return g.ops[v.value_or(0)];
}

// The edge from -> to of `kind`, or nullptr.
const Edge* edge(const Graph& g, std::string_view from, std::string_view to,
                 EdgeKind kind = EdgeKind::kData) {
  const std::optional<OpId> u = g.find_op(from), v = g.find_op(to);
  for (const Edge& e : g.edges) {
    if (u && v && e.from == *u && e.to == *v && e.kind == kind) return &e;
  }
  return nullptr;
}

int64_t held(const Op& op, hopper::SlotId slot) {
  for (const Triple& t : op.resources) {
    if (t.slot == slot) return t.duration * t.occupancy;
  }
  return 0;
}

// The import refuses `text` with one line naming k.ttgir, `line` and `what`.
void expect_refused(std::string_view text, int line, std::string_view what,
                    TtgirOptions options = {}) {
  StatusOr<TtgirImport> r = import(text, options);
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(m.rfind("k.ttgir:" + std::to_string(line) + ": ", 0), 0u) << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(TtgirSyntax, TokenizerDropsLocationsAndKeepsResultNumbers) {
  StatusOr<std::vector<ttgir::Token>> t =
      ttgir::tokenize("%a#1 = x.y %b loc(callsite(\"f(1)\":2:3 at #loc4)) : tensor<2x!tt.ptr<f16>>",
                      "s");
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::vector<std::string_view> texts;
  for (const ttgir::Token& tok : *t) texts.push_back(tok.text);
  const std::vector<std::string_view> want = {"%a#1", "=", "x.y", "%b", ":", "tensor", "<",
                                              "2x",   "!tt.ptr", "<", "f16", ">", ">"};
  EXPECT_EQ(texts, want);
}

TEST(TtgirSyntax, ANumberMayStartOrEndTheInput) {
  for (std::string_view text : {"0", "-1", "1e+5", "0 1.5e-3"}) {
    StatusOr<std::vector<ttgir::Token>> t = ttgir::tokenize(text, "s");
    ASSERT_TRUE(t.ok()) << text;
    EXPECT_EQ(t->front().kind, ttgir::Tok::kNumber) << text;
    EXPECT_EQ(t->front().text, text.substr(0, text.find(' '))) << text;
  }
}

TEST(TtgirSyntax, ParserReadsRegionsBlocksAndTrailingAttributes) {
  const std::string text = module_with(kLoop);
  StatusOr<std::vector<ttgir::Token>> t = ttgir::tokenize(text, "k");
  ASSERT_TRUE(t.ok());
  StatusOr<ttgir::Document> doc = ttgir::parse_document(*t, "k");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_EQ(doc->ops.size(), 1u);
  EXPECT_EQ(doc->ops[0].name, "module");
  EXPECT_EQ(doc->aliases.size(), 5u);  // #blocked #mma #shared #smem #loc
  const ttgir::Operation& func = doc->ops[0].regions.at(0).blocks.at(0).ops.at(0);
  EXPECT_EQ(func.name, "tt.func");
  const ttgir::Operation& loop = func.regions.at(0).blocks.at(0).ops.at(5);
  EXPECT_EQ(loop.name, "scf.for");
  EXPECT_EQ(loop.results, (std::vector<std::string>{"%r#0", "%r#1"}));
  EXPECT_EQ(loop.regions.at(0).blocks.at(0).ops.size(), 5u);
  EXPECT_EQ(loop.tokens.back().text, "}");  // {tt.num_stages = 2 : i32} after the region
}

TEST(TtgirImport, MapsTheLoopToKindsCostsAndEdges) {
  StatusOr<TtgirImport> r = import(module_with(kLoop));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(g.target.name, "hopper");
  ASSERT_EQ(g.op_count(), 4);
  EXPECT_EQ(op_named(g, "x").kind, "global_load");
  EXPECT_EQ(op_named(g, "s").kind, "smem_write");
  EXPECT_EQ(op_named(g, "d").kind, "wgmma");
  EXPECT_EQ(op_named(g, "q").kind, "address");
  EXPECT_EQ(op_named(g, "d").source_op, "ttng.warp_group_dot");
  EXPECT_EQ(op_named(g, "s").store_bytes, 64 * 64 * 2);
  // 64x64x64 fp16: 2*64^3 / 4096 = 128 tensor-core cycles.
  EXPECT_EQ(held(op_named(g, "d"), hopper::kTensor), 128);
  // Same-iteration data edges; the accumulator and the pointer one iteration on.
  ASSERT_NE(edge(g, "x", "s"), nullptr);
  EXPECT_EQ(edge(g, "x", "s")->distance, 0);
  EXPECT_EQ(edge(g, "s", "d")->distance, 0);
  ASSERT_NE(edge(g, "d", "d"), nullptr);
  EXPECT_EQ(edge(g, "d", "d")->distance, 1);
  ASSERT_NE(edge(g, "q", "x"), nullptr);
  EXPECT_EQ(edge(g, "q", "x")->distance, 1);
  EXPECT_EQ(edge(g, "q", "q")->distance, 1);
  EXPECT_EQ(g.edge_count(), 5);
  EXPECT_EQ(edge(g, "x", "s")->latency, op_named(g, "x").latency);
  expect_every_generator_verifies(g);
}

TEST(TtgirImport, KeepsTritonsScheduleOnOpsAndLoop) {
  StatusOr<TtgirImport> r = import(module_with(kLoop));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->graph.attrs.triton_num_stages, 2);
  EXPECT_EQ(op_named(r->graph, "x").triton_stage, 0);
  EXPECT_EQ(op_named(r->graph, "x").triton_cluster, 1);
  EXPECT_EQ(op_named(r->graph, "s").triton_stage, 1);
  EXPECT_FALSE(op_named(r->graph, "d").triton_stage.has_value());
  // Each op's position in the body; a folded op (the splat) is counted.
  EXPECT_EQ(op_named(r->graph, "x").source_position, 0);
  EXPECT_EQ(op_named(r->graph, "q").source_position, 3);
  StatusOr<TtgirImport> folded = import(module_with(R"(
    %f = arith.constant 1.000000e+00 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32, #blocked>)  : i32 {
      %c = tt.splat %f : f32 -> tensor<64xf32, #blocked>
      %a = arith.addf %acc, %c : tensor<64xf32, #blocked>
      scf.yield %a : tensor<64xf32, #blocked>
    }
)"), TtgirOptions{0, false});
  ASSERT_TRUE(folded.ok()) << folded.status().message();
  ASSERT_EQ(folded->graph.op_count(), 1);
  EXPECT_EQ(op_named(folded->graph, "a").source_position, 1);
  // The fields survive the JSON round trip.
  StatusOr<Graph> back = parse_graph_json(write_graph_json(r->graph), "k");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, r->graph);
}

TEST(TtgirImport, KeepsEachOpsPositionInTheBodyAndTheModulesWarps) {
  // A folded op ahead of the load shifts every position by one: positions
  // count the body's operations as written, folded ones included.
  std::string loop(kLoop);
  const std::string load = "      %x = tt.load";
  loop.insert(loop.find(load), "      %z = arith.constant 0 : i32\n");
  StatusOr<TtgirImport> r = import(module_with(loop));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(op_named(g, "x").source_position, 1);
  EXPECT_EQ(op_named(g, "s").source_position, 2);
  EXPECT_EQ(op_named(g, "d").source_position, 3);
  EXPECT_EQ(op_named(g, "q").source_position, 4);
  EXPECT_EQ(g.attrs.num_warps, 4);
  auto warps = [](std::string_view attr) {
    std::string text = module_with(kLoop);
    const std::string_view four = "\"ttg.num-warps\" = 4 : i32";
    return text.replace(text.find(four), four.size(), attr);
  };
  StatusOr<TtgirImport> r8 = import(warps("\"ttg.num-warps\" = 8 : i32"));
  ASSERT_TRUE(r8.ok()) << r8.status().message();
  EXPECT_EQ(r8->graph.attrs.num_warps, 8);
  // 8 warps: the 64x64 fp32 accumulator spreads over twice the threads.
  EXPECT_EQ(op_named(r8->graph, "d").registers * 2, op_named(r->graph, "d").registers);
  StatusOr<TtgirImport> r0 = import(warps("\"ttg.shared\" = 0 : i32"));
  ASSERT_TRUE(r0.ok()) << r0.status().message();
  EXPECT_EQ(r0->graph.attrs.num_warps, 4);  // Triton's default
  const std::string zero = warps("\"ttg.num-warps\" = 0 : i32");
  expect_refused(zero, 7, "ttg.num-warps = 0 is out of range 1..1024");
}

TEST(TtgirImport, LargerDotTileHasLargerLatencyAndTensorTime) {
  auto dot_loop = [](int m, int n, int k) {
    const std::string a = std::to_string(m) + "x" + std::to_string(k) + "xf16";
    const std::string b = std::to_string(k) + "x" + std::to_string(n) + "xf16";
    const std::string c = std::to_string(m) + "x" + std::to_string(n) + "xf32";
    return "    %sa = ttg.local_alloc : () -> !ttg.memdesc<" + a + ", #shared, #smem, mutable>\n" +
           "    %sb = ttg.local_alloc : () -> !ttg.memdesc<" + b + ", #shared, #smem, mutable>\n" +
           "    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<" + c +
           ", #mma>) : i32 {\n      %d = ttng.warp_group_dot %sa, %sb, %acc : !ttg.memdesc<" + a +
           ", #shared, #smem> * !ttg.memdesc<" + b + ", #shared, #smem> -> tensor<" + c +
           ", #mma>\n      scf.yield %d : tensor<" + c + ", #mma>\n    }\n";
  };
  StatusOr<TtgirImport> big = import(module_with(dot_loop(128, 128, 64)));
  StatusOr<TtgirImport> small = import(module_with(dot_loop(64, 64, 16)));
  ASSERT_TRUE(big.ok()) << big.status().message();
  ASSERT_TRUE(small.ok()) << small.status().message();
  const Op& b = big->graph.ops.at(0);
  const Op& s = small->graph.ops.at(0);
  EXPECT_GT(b.latency, s.latency);
  EXPECT_EQ(held(b, hopper::kTensor), 512);  // 2*128*128*64 / 4096
  EXPECT_EQ(held(s, hopper::kTensor), 32);   // 2*64*64*16 / 4096
  EXPECT_GT(b.registers, s.registers);
}

TEST(TtgirImport, FoldedOpsPassTheirOperandsThrough) {
  const std::string loop = R"(
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32, #mma>) : i32 {
      %m = math.exp2 %acc : tensor<64x64xf32, #mma>
      %e = tt.expand_dims %m {axis = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<1x64x64xf32, #mma>
      %b = tt.reshape %e : tensor<1x64x64xf32, #mma> -> tensor<64x64xf32, #mma>
      %z = arith.addf %b, %init : tensor<64x64xf32, #mma>
      scf.yield %z : tensor<64x64xf32, #mma>
    }
)";
  StatusOr<TtgirImport> r = import(module_with(loop), TtgirOptions{0, false});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->graph.op_count(), 2);
  EXPECT_EQ(op_named(r->graph, "m").kind, "exp");
  EXPECT_EQ(op_named(r->graph, "z").kind, "alu");
  ASSERT_NE(edge(r->graph, "m", "z"), nullptr);
  EXPECT_EQ(edge(r->graph, "z", "m")->distance, 1);
}

TEST(TtgirImport, IterArgsPassedOnThroughYieldAddAnIterationPerHop) {
  const std::string loop = R"(
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init, %b = %init, %c = %init) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
      %x = math.exp2 %a : tensor<64x64xf32, #mma>
      %y = arith.addf %c, %c : tensor<64x64xf32, #mma>
      scf.yield %b, %x, %c : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
    }
{-#
  dialect_resources: { builtin: { blob: "0x04000000" } }
#-}
)";
  StatusOr<TtgirImport> r = import(module_with(loop), TtgirOptions{0, false});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  ASSERT_EQ(g.op_count(), 2);
  ASSERT_NE(edge(g, "x", "x"), nullptr);
  EXPECT_EQ(edge(g, "x", "x")->distance, 2);  // %a <- %b <- %x
  EXPECT_EQ(g.edge_count(), 1);               // %c is passed back unchanged: no producer
}

TEST(TtgirImport, OrdersOpsThatShareABuffer) {
  const std::string loop = R"(
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %w = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %t = ttg.local_load %v : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
      ttg.local_store %t, %v : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %u = ttg.local_load %w : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
      %y = ttg.local_load %v : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    }
)";
  StatusOr<TtgirImport> r = import(module_with(loop), TtgirOptions{0, false});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  ASSERT_EQ(g.op_count(), 4);  // t, local_store, u, y
  EXPECT_EQ(op_named(g, "local_store").kind, "smem_write");
  EXPECT_NE(edge(g, "t", "local_store"), nullptr);                  // data (the value stored)
  EXPECT_NE(edge(g, "local_store", "y", EdgeKind::kOrder), nullptr);  // write before read
  EXPECT_EQ(edge(g, "local_store", "u", EdgeKind::kOrder), nullptr);  // another slot
  EXPECT_EQ(edge(g, "t", "local_store", EdgeKind::kOrder), nullptr);  // already ordered
}

TEST(TtgirImport, UnknownOpsImportAsGenericOrAreRefusedWhenStrict) {
  const std::string loop = R"(
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32, #mma>) : i32 {
      %m = future.op %acc : tensor<64x64xf32, #mma>
      %o = future.op %m : tensor<64x64xf32, #mma>
      %z = arith.addf %o, %init : tensor<64x64xf32, #mma>
      scf.yield %z : tensor<64x64xf32, #mma>
    }
)";
  StatusOr<TtgirImport> r = import(module_with(loop), TtgirOptions{0, false});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->unknown_ops, (std::vector<std::string>{"future.op"}));
  EXPECT_EQ(op_named(r->graph, "m").kind, "generic");
  EXPECT_EQ(op_named(r->graph, "m").source_op, "future.op");
  EXPECT_NE(edge(r->graph, "m", "o"), nullptr);
  expect_refused(module_with(loop), 16, "unknown op 'future.op' (--strict", TtgirOptions{0, true});
}

TEST(TtgirImport, MalformedInputIsOneLineWithFileAndLine) {
  expect_refused(module_with(kLoop) + "}\n", 26, "'}' closes no region");
  expect_refused("module {\n  tt.func @f() {\n", 2, "the region opened here is not closed");
  expect_refused("module {\n  %x = arith.addi (%a : i32\n}\n", 3, "unbalanced '}'");
  expect_refused("module {\n  %x = arith.addi (%a : i32\n", 2, "unbalanced brackets in 'arith.addi'");
  expect_refused("\n\n%x = arith.addi \x01\n", 3, "unexpected character '\\x01'");
  expect_refused("%x = \"unterminated\n", 1, "unterminated string");
  expect_refused("module {\n}\n", 1, "no scf.for or scf.while loop");
  std::string bad_shape = module_with(kLoop);  // in the tt.addptr of line 19
  bad_shape.replace(bad_shape.rfind("tensor<64x64xi32"), 16, "tensor<64x0xi32");
  expect_refused(bad_shape, 19, "tensor dimension '0' is out of range");
  expect_refused(module_with(kLoop), 1, "--loop 3: the input has 1 loops", TtgirOptions{3, false});
}

TEST(TtgirImport, DeepNestingAndHugeGroupsAreRefusedNotFollowed) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "op.x {\n";
  expect_refused(deep, 65, "regions nested deeper than 64");
  expect_refused("%a:99999 = x.y\n", 1, "result group '99999'");
}

TEST(TtgirLoops, ListsLoopsAndPicksTheInnermostWithADot) {
  const std::string nested = R"(
    scf.for %j = %c0 to %n step %c1 : i32 {
      scf.for %k = %c0 to %n step %c1 : i32 {
        %t = arith.addi %k, %c1 : i32
      }
    }
)" + std::string(kLoop);
  StatusOr<std::vector<TtgirLoop>> loops = list_ttgir_loops(module_with(nested), "k.ttgir");
  ASSERT_TRUE(loops.ok()) << loops.status().message();
  ASSERT_EQ(loops->size(), 3u);
  EXPECT_FALSE((*loops)[0].innermost);
  EXPECT_TRUE((*loops)[1].innermost);
  EXPECT_FALSE((*loops)[1].has_dot);
  EXPECT_TRUE((*loops)[2].has_dot);
  EXPECT_TRUE((*loops)[2].has_load);
  EXPECT_TRUE((*loops)[2].triton_schedule);
  EXPECT_EQ((*loops)[2].op_count, 4);
  EXPECT_EQ(default_ttgir_loop(*loops), 2);
  StatusOr<TtgirImport> r = import(module_with(nested));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->loop, 2);
  // Loop 0 holds a loop: only innermost loops are imported.
  expect_refused(module_with(nested), 15, "loop 0 holds another loop; only innermost loops",
                 TtgirOptions{0, false});
}

// ---- Triton's own dumps ---------------------------------------------------

int count_kind(const Graph& g, std::string_view kind) {
  return static_cast<int>(std::count_if(g.ops.begin(), g.ops.end(),
                                        [&](const Op& op) { return op.kind == kind; }));
}

TEST(TtgirTriton, PointerMatmulLoopHasTheExpectedOps) {
  StatusOr<TtgirImport> r =
      import_ttgir(kTestdata + "/matmul_STAGES3_BM128_BN128_BK64_W8.input.ttgir", {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_EQ(g.name, "ttgir/matmul_STAGES3_BM128_BN128_BK64_W8.input/loop0");
  EXPECT_TRUE(r->unknown_ops.empty());
  EXPECT_EQ(g.attrs.triton_num_stages, 3);
  EXPECT_EQ(count_kind(g, "global_load"), 2);
  EXPECT_EQ(count_kind(g, "smem_write"), 2);
  EXPECT_EQ(count_kind(g, "wgmma"), 1);
  EXPECT_EQ(count_kind(g, "address"), 2);
  EXPECT_EQ(count_kind(g, "alu"), 4);  // x*64, K-x, two mask compares
  EXPECT_EQ(g.op_count(), 11);
  // 128x128x64 fp16: 512 tensor cycles; A and B tiles of 16 KiB each.
  EXPECT_EQ(held(op_named(g, "acc_56"), hopper::kTensor), 512);
  EXPECT_EQ(op_named(g, "x_51").store_bytes, 16384);
  EXPECT_EQ(edge(g, "acc_56", "acc_56")->distance, 1);
  EXPECT_EQ(edge(g, "ap_57", "x_50")->distance, 1);
  expect_every_generator_verifies(g);
}

TEST(TtgirTriton, AttentionKeepsQInSharedMemoryOutsideTheLoop) {
  StatusOr<TtgirImport> r =
      import_ttgir(kTestdata + "/attention_STAGES3_BM128_BN64_HEAD128_W8.input.ttgir", {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->graph.attrs.resident_smem_bytes, 128 * 128 * 2);  // the 128x128 fp16 Q tile
  EXPECT_EQ(count_kind(r->graph, "wgmma"), 2);
  EXPECT_EQ(count_kind(r->graph, "exp"), 2);
  EXPECT_EQ(count_kind(r->graph, "reduce"), 2);
  EXPECT_EQ(count_kind(r->graph, "global_load"), 2);
  EXPECT_TRUE(r->unknown_ops.empty());
}

TEST(TtgirTriton, ScheduledDumpDefaultsToTheScheduledLoop) {
  const std::string path =
      kTestdata + "/matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0.triton-scheduled.ttgir";
  StatusOr<std::string> text = read_file(path);
  ASSERT_TRUE(text.ok());
  StatusOr<std::vector<TtgirLoop>> loops = list_ttgir_loops(*text, path);
  ASSERT_TRUE(loops.ok()) << loops.status().message();
  ASSERT_EQ(loops->size(), 3u);  // before, after lowering, after expansion
  EXPECT_EQ(default_ttgir_loop(*loops), 0);
  StatusOr<TtgirImport> r = import_ttgir(path, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->graph.attrs.triton_num_stages, 3);
  for (const Op& op : r->graph.ops) {
    EXPECT_TRUE(op.triton_stage.has_value()) << op.name;
    if (op.kind == "tiled_tma_load") {
      EXPECT_EQ(op.triton_stage, 0) << op.name;
    }
    if (op.kind == "wgmma") {
      EXPECT_EQ(op.triton_stage, 2) << op.name;
    }
  }
  EXPECT_FALSE(r->graph.attrs.resident_smem_bytes.has_value());  // its buffers are in the loop
  // The lowered and expanded loops import too (barriers, async copies);
  // their buffers, allocated outside the loop three deep, add up to the
  // compiled kernel's 98328 bytes (measured.json): two 3 x 16 KiB tiles
  // and three 8-byte barriers.
  for (int loop : {1, 2}) {
    StatusOr<TtgirImport> lowered = import_ttgir(path, TtgirOptions{loop, true});
    ASSERT_TRUE(lowered.ok()) << loop << ": " << lowered.status().message();
    EXPECT_GT(count_kind(lowered->graph, "mbarrier_wait"), 0);
    EXPECT_EQ(lowered->graph.attrs.resident_smem_bytes, 98328);
    expect_every_generator_verifies(lowered->graph);
  }
}

TEST(TtgirTriton, EveryCommittedDumpImportsWithKnownOpsAndVerifies) {
  int files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(kTestdata)) {
    if (e.path().extension() != ".ttgir") continue;
    ++files;
    StatusOr<TtgirImport> r = import_ttgir(e.path().string(), TtgirOptions{{}, true});
    ASSERT_TRUE(r.ok()) << r.status().message();
    expect_every_generator_verifies(r->graph);
  }
  EXPECT_EQ(files, 8);
}

// Every generator on every configuration is cli/ttgir_test.sh's check;
// here each imports strictly and its serial schedule verifies.
TEST(TtgirTriton, EverySharedConfigurationImportsStrictly) {
  if (!fs::is_directory(kKernelsDir)) {
    GTEST_SKIP() << "TILESCHED_KERNELS_DIR " << kKernelsDir << " is absent";
  }
  int inputs = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(kKernelsDir)) {
    if (e.path().extension() != ".ttgir") continue;
    inputs += e.path().string().find(".input.ttgir") != std::string::npos;
    StatusOr<TtgirImport> r = import_ttgir(e.path().string(), TtgirOptions{{}, true});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r->graph.attrs.triton_num_stages.has_value()) << e.path();
    EXPECT_TRUE(verify_schedule(r->graph, generate_serial(r->graph)).legal()) << e.path();
  }
  EXPECT_EQ(inputs, 19);
}

TEST(TtgirTriton, PredictedSharedMemoryOfTheCommittedLoops) {
  // (file, predicted at num_stages 3, the compiled kernel's shared_bytes)
  const std::tuple<std::string, int64_t, int64_t> cases[] = {
      {"matmul_STAGES3_BM128_BN128_BK64_W8", 98304, 98304},
      {"matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0", 98304, 98328},
      {"attention_STAGES3_BM128_BN64_HEAD128_W8", 131072, 131072},
      {"attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0", 229376, 229432}};
  for (const auto& [name, predicted, compiled] : cases) {
    StatusOr<TtgirImport> g = import_ttgir(kTestdata + "/" + name + ".input.ttgir", {});
    ASSERT_TRUE(g.ok()) << g.status().message();
    EXPECT_EQ(hopper::predicted_smem_bytes(g->graph, 3), predicted) << name;
    EXPECT_NEAR(static_cast<double>(predicted) / static_cast<double>(compiled), 1.0, 0.001);
  }
  // Unpipelined, attention's K and V tiles are never alive together.
  StatusOr<TtgirImport> a =
      import_ttgir(kTestdata + "/attention_STAGES3_BM128_BN64_HEAD128_W8.input.ttgir", {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(hopper::predicted_smem_bytes(a->graph, 1), 32768 + 16384);  // measured: 49152
}

// Every op's stage is bounded so that Triton can allocate the loop's
// buffers num_stages deep within a CTA's 227 KiB: the largest such S,
// and the bytes one stage more would need.
TEST(TtgirTriton, StagesAreBoundedByWhatTritonsBuffersFit) {
  const std::tuple<std::string, int64_t> cases[] = {
      {"matmul_STAGES3_BM128_BN128_BK64_W8", 7},
      {"matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0", 7},
      {"attention_STAGES3_BM128_BN64_HEAD128_W8", 6},
      {"attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0", 3}};  // 4 x 64 KiB + Q's 32 KiB
  for (const auto& [name, stages] : cases) {
    const std::string path = kTestdata + "/" + name + ".input.ttgir";
    StatusOr<TtgirImport> r = import_ttgir(path, {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_TRUE(r->stage_bound.has_value()) << name;
    EXPECT_EQ(r->stage_bound->stages, stages) << name;
    EXPECT_LE(hopper::predicted_smem_bytes(r->graph, stages), hopper::kSmemBytesPerBlock);
    EXPECT_EQ(r->stage_bound->next_bytes, hopper::predicted_smem_bytes(r->graph, stages + 1));
    EXPECT_GT(r->stage_bound->next_bytes, hopper::kSmemBytesPerBlock) << name;
    for (const Op& op : r->graph.ops) EXPECT_EQ(op.max_depth, stages - 1) << name << " " << op.name;
    TtgirOptions unbounded;
    unbounded.smem_stage_bound = false;
    StatusOr<TtgirImport> free = import_ttgir(path, unbounded);
    ASSERT_TRUE(free.ok());
    EXPECT_FALSE(free->stage_bound.has_value());
    for (const Op& op : free->graph.ops) EXPECT_FALSE(op.max_depth.has_value()) << op.name;
  }
}

// Unbounded, cost-based's II-optimal schedule of the TMA attention has 4
// stages, whose buffers Triton cannot allocate; bounded, it keeps the
// II with 3.
TEST(TtgirTriton, CostBasedKeepsTheTmaAttentionWithinItsSharedMemory) {
  const std::string path =
      kTestdata + "/attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0.input.ttgir";
  StatusOr<TtgirImport> r = import_ttgir(path, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  GenerateOptions opts;
  opts.generator = GeneratorKind::kCostBased;
  StatusOr<Schedule> s = generate_schedule(r->graph, opts);
  ASSERT_TRUE(s.ok() && s->feasible);
  EXPECT_EQ(s->ii, s->mii.max());
  EXPECT_EQ(s->stage_count, 3);
  EXPECT_TRUE(verify_schedule(r->graph, *s).legal());
}

TEST(TtgirTriton, NoStageBoundWhenEveryDepthFitsOrNoneDoes) {
  StatusOr<TtgirImport> r =
      import_ttgir(kTestdata + "/matmul_STAGES3_BM128_BN128_BK64_W8.input.ttgir", {});
  ASSERT_TRUE(r.ok());
  Graph g = r->graph;
  for (Op& op : g.ops) op.store_bytes = 0;
  EXPECT_FALSE(ttgir_stage_bound(g).has_value());  // no buffer: any depth fits
  g = r->graph;
  g.attrs.resident_smem_bytes = hopper::kSmemBytesPerBlock;  // with one stage's tiles: over
  EXPECT_FALSE(ttgir_stage_bound(g).has_value());
}

// The shared memory a configuration is predicted to need (the loop's
// buffers at its num_stages and what it keeps outside the loop) is within
// 5 % of what the compiled kernel uses (measured.json's shared_bytes).
TEST(TtgirTriton, PredictedSharedMemoryMatchesTheCompiledKernels) {
  if (!fs::is_directory(kKernelsDir)) {
    GTEST_SKIP() << "TILESCHED_KERNELS_DIR " << kKernelsDir << " is absent";
  }
  StatusOr<std::string> text = read_file(kKernelsDir + "/measured.json");
  ASSERT_TRUE(text.ok()) << text.status().message();
  const nlohmann::json measured = nlohmann::json::parse(*text);
  int configs = 0;
  for (const nlohmann::json& r : measured.at("results")) {
    const std::string tag = r.at("tag");
    StatusOr<TtgirImport> g = import_ttgir(kKernelsDir + "/" + tag + ".input.ttgir", {});
    ASSERT_TRUE(g.ok()) << g.status().message();
    const int64_t stages = r.at("config").at("STAGES");
    const double predicted = static_cast<double>(hopper::predicted_smem_bytes(g->graph, stages));
    const double compiled = r.at("shared_bytes").get<double>();
    EXPECT_NEAR(predicted / compiled, 1.0, 0.05) << tag << ": " << predicted << " vs " << compiled;
    ++configs;
  }
  EXPECT_EQ(configs, 19);
}

}  // namespace
}  // namespace tilesched::graphgen
