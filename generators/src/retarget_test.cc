// Tests for retargeting generated graphs (retarget.h): kind defaults move
// to the new target, deliberate values stay, and graphs that cannot move
// say why.
#include "tilesched/graphgen/retarget.h"

#include <gtest/gtest.h>

#include "tilesched/generate.h"
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
  // Every kind at its default latency (none drawn from the seed), so that
  // every op takes the kind defaults.
  const Graph g = family_graph("gemm_mainloop", 32, {{"kind_latencies", 1}});
  StatusOr<Graph> h = retarget(g, hopper_target());
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->name, g.name + "/target=hopper");
  EXPECT_EQ(h->target, hopper_target());
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
