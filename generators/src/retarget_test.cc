// Tests for retargeting generated graphs (retarget.h): kind defaults move
// to the new target, deliberate values stay, and graphs that cannot move
// say why.
#include "tilesched/graphgen/retarget.h"

#include <gtest/gtest.h>

#include "tilesched/generate.h"
#include "tilesched/hopper.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/serial.h"
#include "tilesched/validate.h"
#include "tilesched/verify.h"

namespace tilesched::graphgen {
namespace {

Graph family_graph(std::string_view family, int ops, const ParamMap& params = {}) {
  StatusOr<Graph> g = generate(family, ops, 1, params);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? *g : Graph{};
}

TEST(Retarget, GemmMainloopMovesToHopperKindDefaults) {
  // Every kind at its default latency (none drawn from the seed), and
  // tiles of the reference's 16 KiB, so that every op takes the kind
  // defaults.
  const Graph g = family_graph("gemm_mainloop", 16, {{"kind_latencies", 1}, {"tile_kib", 16}});
  StatusOr<Graph> h = retarget(g, hopper_target());
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->name, g.name + "/target=hopper");
  EXPECT_EQ(h->target, hopper_target());
  EXPECT_EQ(h->attrs.num_warps, 8);  // the warps the reference tiles are costed for
  ASSERT_EQ(h->op_count(), g.op_count());
  for (int v = 0; v < h->op_count(); ++v) {
    const OpKind* k = hopper_target().find_kind(h->ops[v].kind);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(h->ops[v].kind, g.ops[v].kind);
    EXPECT_EQ(h->ops[v].resources, k->resources) << h->ops[v].name;
    EXPECT_EQ(h->ops[v].latency, k->latency) << h->ops[v].name;
    EXPECT_EQ(h->ops[v].store_bytes, g.ops[v].store_bytes);
  }
  EXPECT_EQ(h->edge_count(), g.edge_count());
  const Schedule serial = generate_serial(*h);
  ASSERT_TRUE(serial.feasible);
  EXPECT_TRUE(verify_schedule(*h, serial).legal());
  GenerateOptions opts;
  opts.generator = GeneratorKind::kCostBased;
  StatusOr<Schedule> s = generate_schedule(*h, opts);
  ASSERT_TRUE(s.ok() && s->feasible);
  EXPECT_TRUE(verify_schedule(*h, *s).legal());
}

// The units an op holds slot `slot` for, over its resource triples.
int64_t slot_units(const Op& op, int slot) {
  int64_t units = 0;
  for (const Triple& t : op.resources) units += t.slot == slot ? t.duration : 0;
  return units;
}

TEST(Retarget, HopperCostsFollowTheTileBytes) {
  // 32 KiB tiles: twice the reference's bytes through L2 and shared
  // memory for each TMA load, and an MMA twice as deep (K = 128).
  const ParamMap kib16 = {{"kind_latencies", 1}, {"tile_kib", 16}};
  const ParamMap kib32 = {{"kind_latencies", 1}, {"tile_kib", 32}};
  StatusOr<Graph> small = retarget(family_graph("gemm_mainloop", 8, kib16), hopper_target());
  StatusOr<Graph> big = retarget(family_graph("gemm_mainloop", 8, kib32), hopper_target());
  ASSERT_TRUE(small.ok() && big.ok());
  int loads = 0, mmas = 0;
  for (int v = 0; v < big->op_count(); ++v) {
    const Op& a = small->ops[v];
    const Op& b = big->ops[v];
    if (b.kind == "tiled_tma_load") {
      ++loads;
      EXPECT_EQ(b.store_bytes, 32768);
      EXPECT_EQ(slot_units(b, hopper::kL2), 2 * slot_units(a, hopper::kL2)) << b.name;
      EXPECT_EQ(slot_units(b, hopper::kSmem), 2 * slot_units(a, hopper::kSmem)) << b.name;
      EXPECT_GT(b.latency, a.latency) << b.name;  // its bytes arrive later
    } else if (b.kind == "wgmma") {
      ++mmas;
      EXPECT_EQ(slot_units(b, hopper::kTensor), 2 * slot_units(a, hopper::kTensor)) << b.name;
    } else {
      EXPECT_EQ(b.resources, a.resources) << b.name;
    }
  }
  EXPECT_EQ(loads, 2);
  EXPECT_EQ(mmas, 1);
}

TEST(Retarget, KeepsLatenciesAFamilySetOnPurpose) {
  const Graph g = family_graph("chains", 24);  // random latencies per op
  StatusOr<Graph> h = retarget(g, hopper_target());
  ASSERT_TRUE(h.ok()) << h.status().message();
  for (int v = 0; v < g.op_count(); ++v) {
    const int64_t kind_latency = blackwell_target().find_kind(g.ops[v].kind)->latency;
    if (g.ops[v].latency != kind_latency) {
      EXPECT_EQ(h->ops[v].latency, g.ops[v].latency) << g.ops[v].name;
    }
  }
  EXPECT_TRUE(validate_graph(*h).ok());
}

TEST(Retarget, RefusesKindsHopperLacksAndInlineTargets) {
  StatusOr<Graph> tmem = retarget(family_graph("fa4_forward", 40), hopper_target());
  ASSERT_FALSE(tmem.ok());
  EXPECT_NE(tmem.status().message().find("has no counterpart on target hopper"), std::string::npos)
      << tmem.status().message();
  StatusOr<Graph> inline_target = retarget(family_graph("resource_saturated", 16), hopper_target());
  ASSERT_FALSE(inline_target.ok());
  EXPECT_NE(inline_target.status().message().find("has its own target"), std::string::npos);
}

}  // namespace
}  // namespace tilesched::graphgen
