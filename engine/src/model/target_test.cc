#include "tilesched/target.h"

#include <gtest/gtest.h>

namespace tilesched {
namespace {

TEST(Target, BlackwellHas24OneBasedSlotsInOneRow) {
  const Target& t = blackwell_target();
  EXPECT_EQ(t.slot_count(), 24);
  EXPECT_EQ(slot_bit(1), uint64_t{1});
  EXPECT_EQ(slot_bit(16), uint64_t{1} << 15);  // seed 002: 1 << (slot_id - 1)
  EXPECT_EQ(slot_bit(24), uint64_t{1} << 23);
}

TEST(Target, SeedFixedSlotNames) {
  const Target& t = blackwell_target();
  EXPECT_EQ(t.find_slot("tc_and_mma"), 11);
  EXPECT_EQ(t.find_slot("tma"), 12);
  EXPECT_EQ(t.find_slot("tp_smem_rd"), 15);
  EXPECT_EQ(t.find_slot("tp_smem_wr"), 16);
  EXPECT_EQ(t.find_slot("tp_mma"), 19);
  EXPECT_TRUE(t.slot(11).from_seed);
  EXPECT_FALSE(t.slot(1).from_seed);
  EXPECT_EQ(t.find_slot("nope"), std::nullopt);
}

TEST(Target, PoolCapacityVectorHasTheSeedEntries) {
  const Target& t = blackwell_target();
  ASSERT_EQ(t.pools.size(), 9u);
  EXPECT_EQ(t.pools[1].name, "tmem");
  EXPECT_EQ(t.pools[1].capacity, 4);
  EXPECT_EQ(t.pools[1].kind, PoolKind::kRate);
  EXPECT_EQ(t.pools[4].capacity, 5);
  EXPECT_EQ(t.pools[4].kind, PoolKind::kSlot);
  EXPECT_EQ(t.pools[4].bound_slot, 15);
  EXPECT_EQ(t.slot(15).capacity, t.pools[4].capacity);  // pool 4 sizes tp_smem_rd
  EXPECT_EQ(t.pools[5].capacity, 232448);
  EXPECT_EQ(t.pools[5].kind, PoolKind::kStorage);
  EXPECT_EQ(t.storage_pool(), 5);
  EXPECT_EQ(t.pools[6].capacity, 3);
  EXPECT_EQ(t.pools[6].name, "named_barriers");
  for (int p : {1, 4, 5, 6}) EXPECT_TRUE(t.pools[p].from_seed) << p;
  for (int p : {0, 2, 3, 7, 8}) EXPECT_FALSE(t.pools[p].from_seed) << p;
}

TEST(Target, SeedEncodings) {
  const Target& t = blackwell_target();
  const OpKind* load = t.find_kind("tiled_tma_load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->resources, (std::vector<Triple>{{12, 8, 1}, {16, 8, 1}}));
  EXPECT_EQ(load->latency, 8);
  EXPECT_TRUE(load->tma);
  const OpKind* mma = t.find_kind("wgmma");
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->resources, (std::vector<Triple>{{11, 8, 1}, {19, 8, 1}}));
  EXPECT_EQ(mma->latency, 16);
  EXPECT_EQ(mma->pools, (std::vector<PoolUse>{{1, 1}}));  // TMEM pool pressure
  EXPECT_TRUE(mma->wgmma);
  EXPECT_EQ(t.find_kind("smem_write")->resources, (std::vector<Triple>{{16, 7, 1}}));
  EXPECT_EQ(t.find_kind("smem_read")->resources, (std::vector<Triple>{{15, 7, 1}}));
  for (const char* k : {"tiled_tma_load", "wgmma", "smem_write", "smem_read"}) {
    EXPECT_TRUE(t.find_kind(k)->from_seed) << k;
  }
}

TEST(Target, EveryBlackwellKindFitsTheModel) {
  const Target& t = blackwell_target();
  for (const OpKind& k : t.kinds) {
    for (const Triple& tr : k.resources) {
      ASSERT_GE(tr.slot, 1) << k.name;
      ASSERT_LE(tr.slot, t.slot_count()) << k.name;
      EXPECT_LE(tr.occupancy, t.slot(tr.slot).capacity) << k.name;
    }
    for (const PoolUse& u : k.pools) {
      ASSERT_LT(u.pool, static_cast<int>(t.pools.size())) << k.name;
      EXPECT_EQ(t.pools[u.pool].kind, PoolKind::kRate) << k.name;
    }
  }
  EXPECT_NE(t.find_kind("generic"), nullptr);
}

TEST(Target, GenericTargetHasOnlyTheGenericKind) {
  const Target t = make_generic_target("dsp", {{"alu", 2, false}, {"mul", 1, false}},
                                       {{"regs", PoolKind::kRate, 8, 0, false}});
  EXPECT_FALSE(t.builtin);
  ASSERT_EQ(t.kinds.size(), 1u);
  EXPECT_EQ(t.kinds[0].name, "generic");
  EXPECT_EQ(t.find_slot("mul"), 2);
  EXPECT_EQ(t.find_pool("regs"), 0);
  EXPECT_EQ(t.storage_pool(), std::nullopt);
  EXPECT_EQ(t.find_kind("wgmma"), nullptr);
}

}  // namespace
}  // namespace tilesched
