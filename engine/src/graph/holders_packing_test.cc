// Tests for the holders' packing bound: matmul's two loads and its MMA
// (the bound the densities miss), the least packing found exactly where
// every op holds the densest slot, soundness against a brute-force search
// of rules L1, L2, L3 and L6 on tiny random graphs, and the cap.
#include "holders_packing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_algo.h"
#include "search/ii_range.h"
#include "testing/capped_brute_force.h"
#include "tilesched/graph_builder.h"
#include "tilesched/mii.h"
#include "tilesched/rng.h"

namespace tilesched {
namespace {

// matmul S3 from the shared Triton kernels, as the Hopper model holds it
// (slots of 16 units, every hold all 16): each load takes l2 for 26 cycles
// and smem for 8, the MMA the tensor cores for 32 and smem for 24; with
// `writes`, the two smem writes of 8 cycles each too. The loads' l2 holds
// must be 26 apart both ways, which leaves two smem gaps of II - 42 cycles
// together, one of them at least the MMA's 24: II >= 58.
Graph matmul_core(bool writes) {
  GraphBuilder b(make_generic_target(
      "t", {{"tensor", 16, false}, {"l2", 16, false}, {"smem", 16, false}}, {}));
  const OpId a = b.generic("load_a", 120, {{2, 26, 16}, {3, 8, 16}});
  const OpId c = b.generic("load_b", 120, {{2, 26, 16}, {3, 8, 16}});
  const OpId mma = b.generic("mma", 34, {{1, 32, 16}, {3, 24, 16}});
  if (writes) {
    const OpId wa = b.generic("write_a", 10, {{3, 8, 16}});
    const OpId wb = b.generic("write_b", 10, {{3, 8, 16}});
    b.edge(a, wa, 120);
    b.edge(c, wb, 120);
    b.edge(wa, mma, 10);
    b.edge(wb, mma, 10);
  } else {
    b.edge(a, mma, 120);
    b.edge(c, mma, 120);
  }
  return std::move(b.build()).value();
}

TEST(HoldersPacking, MatmulsLoadsAndMmaNeed58) {
  const Graph core = matmul_core(false);
  EXPECT_EQ(compute_mii(core).max(), 52);  // l2: 26 + 26
  EXPECT_EQ(holders_packing_bound(core, 52), 58);
  const Graph g = matmul_core(true);
  EXPECT_EQ(compute_mii(g).max(), 56);  // smem: 8 + 8 + 8 + 8 + 24
  EXPECT_EQ(ii_lower_bound(g, compute_mii(g).max()), 58);
  // A bottom at or above the answer is returned as it is.
  EXPECT_EQ(holders_packing_bound(g, 60), 60);
}

// Whether some rows (no dependences) hold every op of g within capacity.
bool packs(const Graph& g, std::vector<int64_t>& s, size_t placed, int64_t ii) {
  if (!capped_rows_fit(g, s, placed, ii)) return false;
  if (placed == s.size()) return true;
  for (s[placed] = 0; s[placed] < ii; ++s[placed]) {
    if (packs(g, s, placed + 1, ii)) return true;
  }
  return false;
}

// 2-4 ops, each holding both slots of a target with capacities 2-4, no
// edges: the densest slot's holders are every op, so the bound is the
// least II at which a brute force finds rows for them.
Graph every_op_holds_both(uint64_t seed) {
  SplitMix64 rng(seed);
  const int64_t c1 = 2 + static_cast<int64_t>(rng.below(3)),
                c2 = 2 + static_cast<int64_t>(rng.below(3));
  // (capped_rows_fit reads a rate pool; no op uses it.)
  GraphBuilder b(make_generic_target("t", {{"one", c1, false}, {"two", c2, false}},
                                     {{"r", PoolKind::kRate, 1, 0, false}}));
  const int n = 2 + static_cast<int>(rng.below(3));
  for (int v = 0; v < n; ++v) {
    b.generic("op" + std::to_string(v), 1,
              {{1, 1 + static_cast<int64_t>(rng.below(5)), 1 + static_cast<int64_t>(rng.below(c1))},
               {2, 1 + static_cast<int64_t>(rng.below(5)), 1 + static_cast<int64_t>(rng.below(c2))}});
  }
  return std::move(b.build()).value();
}

TEST(HoldersPacking, TheLeastPackingWhereEveryOpHoldsTheDensestSlot) {
  int raised = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    const Graph g = every_op_holds_both(seed);
    const int64_t mii = compute_mii(g).max();
    std::vector<int64_t> s(static_cast<size_t>(g.op_count()));
    int64_t least = mii;
    while (!packs(g, s, 0, least)) ++least;
    EXPECT_EQ(holders_packing_bound(g, mii), least) << "seed " << seed;
    raised += least > std::max(mii, exclusive_holds_bound(g));
  }
  EXPECT_GT(raised, 30);  // not vacuous: beyond the MII and the exclusive holds
}

TEST(HoldersPacking, NoScheduleBelowTheBound) {
  int raised = 0;
  for (uint64_t seed = 1; seed <= 20000; ++seed) {
    const Graph g = random_capped_tiny(seed);
    const int64_t mii = compute_mii(g).max();
    const int64_t bound = holders_packing_bound(g, mii);
    for (int64_t ii = mii; ii < bound; ++ii) {
      EXPECT_FALSE(brute_force_schedules(g, ii))
          << "seed " << seed << ": a schedule at II " << ii << " below the packing " << bound;
    }
    raised += bound > std::max(mii, exclusive_holds_bound(g));
  }
  EXPECT_GT(raised, 0);
}

// At an II whose rows alone pass the cap, the search stops at once and
// says the bottom.
TEST(HoldersPacking, TheCapEndsTheSearch) {
  const Graph g = matmul_core(false);
  const int64_t huge = kPackingMaxCells;
  EXPECT_EQ(holders_packing_bound(g, huge), huge);
}

}  // namespace
}  // namespace tilesched
