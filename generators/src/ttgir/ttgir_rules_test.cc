// Tests for Triton's lowering rules as constraints of an imported graph
// (add_triton_rules, tilesched/graphgen/ttgir_rules.h; docs/TTGIR.md, "Triton's
// rules as constraints"): the groups of a buffer and its readers and of an
// scf.if's ops, the order edges that keep an scf.if after what it reads,
// the refusal of a buffer read in a later iteration, the import option
// that leaves them off, and every generator's schedule of the shapes that
// need them passing the export's checks.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "tilesched/generate.h"
#include "tilesched/triton_export.h"
#include "tilesched/graphgen/ttgir_import.h"

namespace tilesched::graphgen {
namespace {

const std::string kTestdata = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir";
const std::string kMatmul = kTestdata + "/matmul_STAGES3_BM128_BN128_BK64_W8.triton-scheduled.ttgir";
const std::string kPersistent = kTestdata + "/shapes/persistent_tma_matmul_f16.ttgir";

Graph imported(const std::string& path, bool rules = true) {
  TtgirOptions options;
  options.triton_rules = rules;
  StatusOr<TtgirImport> r = import_ttgir(path, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->graph : Graph{};
}

// Op ids by leader_gid.
std::map<int64_t, std::set<std::string>> groups_of(const Graph& g) {
  std::map<int64_t, std::set<std::string>> out;
  for (const Op& op : g.ops) {
    if (op.leader_gid) out[*op.leader_gid].insert(op.name);
  }
  return out;
}

TEST(TritonRules, EachBufferAndTheOpsReadingItShareAGroup) {
  // A's and B's buffers (x_51, y_55) are both read by the dot acc_56: one
  // group of the three, and no other op in a group.
  const std::map<int64_t, std::set<std::string>> want = {{1, {"x_51", "y_55", "acc_56"}}};
  EXPECT_EQ(groups_of(imported(kMatmul)), want);
  EXPECT_TRUE(groups_of(imported(kMatmul, false)).empty());
  EXPECT_EQ(imported(kMatmul, false).edges.size(), imported(kMatmul).edges.size());
}

TEST(TritonRules, TheOpsOfOneScfIfShareAGroupAndStartAfterWhatTheyRead) {
  const Graph g = imported(kPersistent);
  const Graph free = imported(kPersistent, false);
  std::map<int64_t, std::set<OpId>> at;
  for (OpId v = 0; v < g.op_count(); ++v) at[*g.ops[v].source_position].insert(v);
  std::set<std::pair<OpId, OpId>> joined;
  for (const Edge& e : g.edges) {
    if (e.distance == 0) joined.emplace(e.from, e.to);
  }
  int positions = 0;
  for (const auto& [position, ops] : at) {
    if (ops.size() < 2) continue;
    ++positions;
    const std::optional<int64_t> gid = g.ops[*ops.begin()].leader_gid;
    ASSERT_TRUE(gid.has_value()) << "position " << position;
    for (const OpId v : ops) EXPECT_EQ(g.ops[v].leader_gid, gid) << g.ops[v].name;
    // Whatever an op of the scf.if reads in the iteration, each of its ops
    // starts after.
    for (const Edge& e : free.edges) {
      if (e.distance != 0 || !ops.count(e.to) || ops.count(e.from)) continue;
      for (const OpId w : ops) {
        EXPECT_TRUE(joined.count({e.from, w})) << g.ops[e.from].name << " -> " << g.ops[w].name;
      }
    }
  }
  EXPECT_EQ(positions, 2);
  // The epilogue's scf.if converts the dot's result (acc_18) but computes
  // the next tile's offsets (tile_id_c_21) from values the dot does not
  // touch: the rule adds the edge, of latency 0, between them.
  const OpId dot = *g.find_op("acc_18"), offsets = *g.find_op("tile_id_c_21");
  bool found = false;
  for (const Edge& e : g.edges) {
    if (e.from == dot && e.to == offsets) {
      found = true;
      EXPECT_EQ(e.kind, EdgeKind::kOrder);
      EXPECT_EQ(e.latency, 0);
      EXPECT_EQ(e.distance, 0);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_GT(g.edges.size(), free.edges.size());
}

TEST(TritonRules, EveryGeneratorsScheduleOfAnScfIfLoopExports) {
  const Graph g = imported(kPersistent);
  for (const std::string_view name : {"serial", "cost-based", "cost-based-seed", "ims", "sms", "exact"}) {
    for (const int64_t cap : {0, 1, 2, 3}) {
      GenerateOptions options;
      options.generator = *parse_generator(name);
      options.max_stages = cap;
      options.exact.time_limit_ms = 500;
      StatusOr<Schedule> s = generate_schedule(g, options);
      ASSERT_TRUE(s.ok()) << name << ": " << s.status().message();
      StatusOr<TritonSchedule> t = triton_schedule_from(g, *s);
      ASSERT_TRUE(t.ok()) << name << " cap " << cap << ": " << t.status().message();
      const Status checked = check_triton_lowering(g, *t, true);
      EXPECT_TRUE(checked.ok()) << name << " cap " << cap << ": " << checked.message();
    }
  }
}

// A buffer written in one iteration and read in the next: its reader
// would have to sit a stage before its writer, which no group says.
constexpr std::string_view kCarriedBuffer = R"(#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module {
  tt.func @carry(%t: tensor<64x64xf16, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b0 = ttg.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %b0) -> (!ttg.memdesc<64x64xf16, #shared, #smem>) : i32 {
      %v = ttg.local_load %b : !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf16, #blocked>
      %w = arith.addf %v, %v : tensor<64x64xf16, #blocked>
      %nb = ttg.local_alloc %w : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
      scf.yield %nb : !ttg.memdesc<64x64xf16, #shared, #smem>
    }
    tt.return
  }
}
)";

TEST(TritonRules, ABufferReadInALaterIterationIsRefusedWithTheRulesOnly) {
  TtgirOptions options;
  options.loop = 0;
  StatusOr<TtgirImport> r = import_ttgir_text(kCarriedBuffer, "c.ttgir", options, "c");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "c.ttgir:9: op 'v' reads the buffer op 'nb' (ttg.local_alloc) writes 1 iteration(s) "
            "later, which no stage group can keep in the writer's stage (import with "
            "--no-triton-rules to study the loop unconstrained)");
  options.triton_rules = false;
  r = import_ttgir_text(kCarriedBuffer, "c.ttgir", options, "c");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(groups_of(r->graph).empty());
}

}  // namespace
}  // namespace tilesched::graphgen
