// Tests for the modulo reservation table: seed 002's slot bits, encodings
// and OR-fold lowering, probe/commit/release on the worked example, pooled
// slots, rate pools, self-overlap, diagnostics, and a randomized cross-check
// against a brute-force L2/L3 count.
#include "rrt.h"

#include <gtest/gtest.h>

#include <vector>

namespace tilesched {
namespace {

const Op& kind_op(std::string_view kind) {
  static std::vector<Op> ops;
  static const Target& t = blackwell_target();
  for (const Op& o : ops) {
    if (o.kind == kind) return o;
  }
  Op o;
  o.name = std::string(kind);
  o.kind = std::string(kind);
  apply_kind_defaults(t, o);
  ops.push_back(o);
  return ops.back();
}

NodeRrt lower_kind(std::string_view kind) {
  return NodeRrt::lower(kind_op(kind), blackwell_target());
}

Op generic_op(std::vector<Triple> resources, std::vector<PoolUse> pools = {}) {
  Op o;
  o.name = "g";
  o.kind = "generic";
  o.resources = std::move(resources);
  o.pools = std::move(pools);
  return o;
}

TEST(RrtSlotEncoding, OneBasedSlotBits) {
  EXPECT_EQ(slot_bit(1), uint64_t{1});
  EXPECT_EQ(slot_bit(12), uint64_t{1} << 11);
  EXPECT_EQ(slot_bit(16), uint64_t{1} << 15);
  EXPECT_EQ(slot_bit(24), uint64_t{1} << 23);
  EXPECT_EQ(slot_bit(64), uint64_t{1} << 63);
}

TEST(RrtSlotEncoding, SeedEncodingsOfBlackwell) {
  EXPECT_EQ(kind_op("tiled_tma_load").resources,
            (std::vector<Triple>{{12, 8, 1}, {16, 8, 1}}));
  EXPECT_EQ(kind_op("wgmma").resources, (std::vector<Triple>{{11, 8, 1}, {19, 8, 1}}));
  EXPECT_EQ(kind_op("smem_write").resources, (std::vector<Triple>{{16, 7, 1}}));
  EXPECT_EQ(kind_op("smem_read").resources, (std::vector<Triple>{{15, 7, 1}}));
}

TEST(RrtLower, OrFoldsTmaLoad) {
  const NodeRrt n = lower_kind("tiled_tma_load");
  EXPECT_EQ(n.duration, 8);
  EXPECT_EQ(n.footprint, 8);
  EXPECT_EQ(n.longest_singleton, 8);
  ASSERT_EQ(n.rows.size(), 8u);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(n.rows[k], slot_bit(12) | slot_bit(16)) << k;
  EXPECT_EQ(n.rows[0], uint64_t{0x8800});
  EXPECT_TRUE(n.pooled.empty());
  EXPECT_TRUE(n.pools.empty());
  EXPECT_EQ(n.triples, kind_op("tiled_tma_load").resources);
}

TEST(RrtLower, ShorterTripleDropsOutOfTrailingRows) {
  const Op op = generic_op({{5, 2, 1}, {6, 4, 1}});
  const NodeRrt n = NodeRrt::lower(op, blackwell_target());
  EXPECT_EQ(n.duration, 4);
  ASSERT_EQ(n.rows.size(), 4u);
  EXPECT_EQ(n.rows[0], slot_bit(5) | slot_bit(6));
  EXPECT_EQ(n.rows[1], slot_bit(5) | slot_bit(6));
  EXPECT_EQ(n.rows[2], slot_bit(6));
  EXPECT_EQ(n.rows[3], slot_bit(6));
}

TEST(RrtLower, PooledSlotAndRatePoolsGoToCounters) {
  const NodeRrt read = lower_kind("smem_read");
  EXPECT_EQ(read.duration, 7);
  EXPECT_EQ(read.longest_singleton, 0);
  EXPECT_EQ(read.pooled, (std::vector<Triple>{{15, 7, 1}}));
  for (uint64_t r : read.rows) EXPECT_EQ(r, 0u);

  const NodeRrt mma = lower_kind("wgmma");
  EXPECT_EQ(mma.pools, (std::vector<PoolUse>{{1, 1}}));
  EXPECT_TRUE(mma.pooled.empty());

  const NodeRrt bare = NodeRrt::lower(generic_op({}, {{6, 2}}), blackwell_target());
  EXPECT_EQ(bare.duration, 0);
  EXPECT_EQ(bare.footprint, 1);
  EXPECT_TRUE(bare.rows.empty());
  EXPECT_EQ(bare.pools, (std::vector<PoolUse>{{6, 2}}));
}

// Seed 000's worked example: load and write both on slot 16 cannot share
// II 8 (8 + 7 cycles of one singleton slot).
TEST(RrtProbe, WorkedExampleConflictsAtII8) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(8);
  const NodeRrt load = lower_kind("tiled_tma_load");
  const NodeRrt write = lower_kind("smem_write");
  ASSERT_TRUE(rrt.probe(load, 0));
  rrt.commit(load, 0);
  for (int64_t r = 0; r < 8; ++r) EXPECT_EQ(rrt.row(r), uint64_t{0x8800}) << r;
  for (int64_t s = 0; s < 16; ++s) EXPECT_FALSE(rrt.probe(write, s)) << s;

  RrtConflict why;
  ASSERT_FALSE(rrt.probe(write, 0, &why));
  EXPECT_EQ(why.kind, RrtConflict::Kind::kSingletonRow);
  EXPECT_EQ(why.triple, 0);
  EXPECT_EQ(why.slot, 16);
  EXPECT_EQ(why.row, 0);
  EXPECT_EQ(why.global_row, uint64_t{0x8800});
  EXPECT_EQ(why.describe(blackwell_target(), write, 8),
            "triple (slot 16 tp_smem_wr, duration 7, occupancy 1) collides at modulo "
            "row 0 of II 8: global row 0x0000000000008800");

  ASSERT_FALSE(rrt.probe(write, 11, &why));
  EXPECT_EQ(why.row, 3);
}

TEST(RrtProbe, WorkedExampleFitsAtII15) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(15);
  const NodeRrt load = lower_kind("tiled_tma_load");
  const NodeRrt write = lower_kind("smem_write");
  rrt.commit(load, 0);
  RrtConflict why;
  EXPECT_FALSE(rrt.probe(write, 7, &why));
  EXPECT_EQ(why.row, 7);
  EXPECT_FALSE(rrt.probe(write, 14, &why));  // wraps onto rows 0..5
  EXPECT_EQ(why.row, 0);
  ASSERT_TRUE(rrt.probe(write, 8));
  rrt.commit(write, 8);
  EXPECT_EQ(rrt.row(0), slot_bit(12) | slot_bit(16));
  EXPECT_EQ(rrt.row(7), slot_bit(12) | slot_bit(16));
  for (int64_t r = 8; r < 15; ++r) EXPECT_EQ(rrt.row(r), slot_bit(16)) << r;
  EXPECT_EQ(rrt.slot_usage(16, 14), 1);
  EXPECT_EQ(rrt.slot_usage(12, 14), 0);
}

TEST(RrtProbe, StartsWrapModuloII) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(10);
  const NodeRrt load = lower_kind("tiled_tma_load");
  const int64_t start = (int64_t{1} << 40) + 6;  // == 6 + 4 (mod 10)
  ASSERT_EQ(start % 10, 2);
  rrt.commit(load, start);
  for (int64_t r : {2, 3, 4, 5, 6, 7, 8, 9}) EXPECT_EQ(rrt.row(r), uint64_t{0x8800}) << r;
  EXPECT_EQ(rrt.row(0), 0u);
  EXPECT_EQ(rrt.row(1), 0u);
  const NodeRrt two = NodeRrt::lower(generic_op({{16, 2, 1}}), blackwell_target());
  EXPECT_TRUE(rrt.probe(two, 0));
  EXPECT_TRUE(rrt.probe(two, 10));
  EXPECT_FALSE(rrt.probe(two, 9));  // rows 9 and 0
  EXPECT_FALSE(rrt.probe(two, 1));  // rows 1 and 2
}

TEST(RrtProbe, FirstConflictInTripleOrder) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(8);
  rrt.commit(NodeRrt::lower(generic_op({{16, 1, 1}}), blackwell_target()), 5);
  rrt.commit(NodeRrt::lower(generic_op({{12, 1, 1}}), blackwell_target()), 6);
  RrtConflict why;
  ASSERT_FALSE(rrt.probe(lower_kind("tiled_tma_load"), 0, &why));
  // Slot 16 collides earlier (row 5), but slot 12 is the first triple.
  EXPECT_EQ(why.triple, 0);
  EXPECT_EQ(why.slot, 12);
  EXPECT_EQ(why.row, 6);
  EXPECT_EQ(why.global_row, slot_bit(12));
}

TEST(RrtPooled, SmemReadUpToCapacityFive) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(7);
  const NodeRrt read = lower_kind("smem_read");
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(rrt.probe(read, 7 * i)) << i;
    rrt.commit(read, 7 * i);
  }
  for (int64_t r = 0; r < 7; ++r) {
    EXPECT_EQ(rrt.slot_usage(15, r), 5);
    EXPECT_EQ(rrt.pool_usage(4, r), 5);  // pool 4 is slot 15's capacity
    EXPECT_EQ(rrt.row(r), 0u);           // no singleton bits
  }
  RrtConflict why;
  ASSERT_FALSE(rrt.probe(read, 3, &why));
  EXPECT_EQ(why.kind, RrtConflict::Kind::kPooledSlot);
  EXPECT_EQ(why.slot, 15);
  EXPECT_EQ(why.row, 3);
  EXPECT_EQ(why.used, 5);
  EXPECT_EQ(why.requested, 1);
  EXPECT_EQ(why.capacity, 5);
  EXPECT_EQ(why.describe(blackwell_target(), read, 7),
            "triple (slot 15 tp_smem_rd, duration 7, occupancy 1) exceeds its capacity at "
            "modulo row 3 of II 7: 5 used + 1 requested > capacity 5");
}

TEST(RrtPooled, DurationLongerThanIICountsEveryLap) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(4);
  const NodeRrt read = lower_kind("smem_read");  // 7 cycles: rows hit 2, 2, 2, 1
  rrt.commit(read, 0);
  EXPECT_EQ(rrt.slot_usage(15, 0), 2);
  EXPECT_EQ(rrt.slot_usage(15, 1), 2);
  EXPECT_EQ(rrt.slot_usage(15, 2), 2);
  EXPECT_EQ(rrt.slot_usage(15, 3), 1);
  ASSERT_TRUE(rrt.probe(read, 1));  // rows 1, 2, 3 get 2, row 0 gets 1
  rrt.commit(read, 1);
  EXPECT_EQ(rrt.slot_usage(15, 0), 3);
  EXPECT_EQ(rrt.slot_usage(15, 1), 4);
  EXPECT_EQ(rrt.slot_usage(15, 3), 3);
  RrtConflict why;
  ASSERT_FALSE(rrt.probe(read, 1, &why));
  EXPECT_EQ(why.row, 1);
  EXPECT_EQ(why.used, 4);
  EXPECT_EQ(why.requested, 2);
  // Starting at row 0 adds 2 to rows 0..2 and 1 to row 3: row 1 would hold 6.
  ASSERT_FALSE(rrt.probe(read, 0, &why));
  EXPECT_EQ(why.row, 1);
  // From row 3 the rows 3, 0, 1 get 2 and row 2 gets 1: rows 3 and 0 reach
  // exactly 5, row 1 would reach 6.
  ASSERT_FALSE(rrt.probe(read, 3, &why));
  EXPECT_EQ(why.row, 1);
  EXPECT_EQ(why.requested, 2);
  ASSERT_FALSE(rrt.probe(read, 2, &why));
  EXPECT_EQ(why.row, 2);
  // A 3-cycle read still fits from row 3 (rows 3, 0, 1 get 1 each)? Row 1
  // holds 4, so yes; a 4-cycle one also covers row 2 (4 + 1 = 5): fits too.
  const NodeRrt short_read = NodeRrt::lower(generic_op({{15, 4, 1}}), blackwell_target());
  EXPECT_TRUE(rrt.probe(short_read, 3));
}

TEST(RrtRatePool, TmemCapacityFour) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(3);
  const NodeRrt user = NodeRrt::lower(generic_op({}, {{1, 1}}), blackwell_target());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(rrt.probe(user, 3 * i)) << i;
    rrt.commit(user, 3 * i);
  }
  EXPECT_EQ(rrt.pool_usage(1, 0), 4);
  EXPECT_EQ(rrt.pool_usage(1, 1), 0);
  RrtConflict why;
  ASSERT_FALSE(rrt.probe(user, 0, &why));
  EXPECT_EQ(why.kind, RrtConflict::Kind::kRatePool);
  EXPECT_EQ(why.pool, 1);
  EXPECT_EQ(why.row, 0);
  EXPECT_EQ(why.used, 4);
  EXPECT_EQ(why.requested, 1);
  EXPECT_EQ(why.capacity, 4);
  EXPECT_EQ(why.describe(blackwell_target(), user, 3),
            "pool 1 tmem (count 1, held 1 cycles) exceeds its capacity at modulo row 0 of "
            "II 3: 4 used + 1 requested > capacity 4");
  EXPECT_TRUE(rrt.probe(user, 1));
}

TEST(RrtRatePool, HeldForTheWholeFootprint) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(8);
  // Two TMEM units for 3 cycles (the alu triple sets the footprint).
  const NodeRrt user = NodeRrt::lower(generic_op({{23, 3, 1}}, {{1, 2}}), blackwell_target());
  EXPECT_EQ(user.footprint, 3);
  rrt.commit(user, 0);
  EXPECT_EQ(rrt.pool_usage(1, 0), 2);
  EXPECT_EQ(rrt.pool_usage(1, 2), 2);
  EXPECT_EQ(rrt.pool_usage(1, 3), 0);
  const NodeRrt other = NodeRrt::lower(generic_op({{24, 1, 1}}, {{1, 3}}), blackwell_target());
  EXPECT_FALSE(rrt.probe(other, 2));
  EXPECT_TRUE(rrt.probe(other, 3));
  // Storage pools are not in the table.
  EXPECT_EQ(rrt.pool_usage(5, 0), 0);
}

TEST(RrtSelfOverlap, SingletonLongerThanII) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(7);
  const NodeRrt load = lower_kind("tiled_tma_load");
  RrtConflict why;
  ASSERT_FALSE(rrt.probe(load, 9, &why));
  EXPECT_EQ(why.kind, RrtConflict::Kind::kSelfOverlap);
  EXPECT_EQ(why.triple, 0);
  EXPECT_EQ(why.slot, 12);
  EXPECT_EQ(why.row, 2);
  EXPECT_EQ(why.describe(blackwell_target(), load, 7),
            "triple (slot 12 tma, duration 8, occupancy 1) overlaps itself at modulo row 2 "
            "of II 7: a singleton slot held 8 cycles needs II >= 8");
  rrt.reset(8);
  EXPECT_TRUE(rrt.probe(load, 9));
}

TEST(RrtSelfOverlap, LongPooledTripleWithShortSingletonFits) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(4);
  // Duration 9 > II, but the singleton part (slot 23) holds only 2 cycles.
  const NodeRrt n = NodeRrt::lower(generic_op({{23, 2, 1}, {15, 9, 1}}), blackwell_target());
  EXPECT_EQ(n.duration, 9);
  EXPECT_EQ(n.longest_singleton, 2);
  ASSERT_TRUE(rrt.probe(n, 0));
  rrt.commit(n, 0);  // slot 15: rows 0..3 get 3, 2, 2, 2
  EXPECT_EQ(rrt.slot_usage(15, 0), 3);
  EXPECT_EQ(rrt.slot_usage(15, 1), 2);
  EXPECT_FALSE(rrt.probe(n, 1));  // slot 23 row 1
  ASSERT_TRUE(rrt.probe(n, 2));   // slot 15: row 2 gets 3 (5), rows 3, 0, 1 get 2
  rrt.commit(n, 2);
  EXPECT_EQ(rrt.slot_usage(15, 0), 5);
  EXPECT_EQ(rrt.slot_usage(15, 2), 5);
  EXPECT_EQ(rrt.row(0), slot_bit(23));
  EXPECT_EQ(rrt.row(3), slot_bit(23));
  RrtConflict why;
  // A third copy has singleton room nowhere; slot 15 is also full.
  ASSERT_FALSE(rrt.probe(n, 4, &why));
  EXPECT_EQ(why.kind, RrtConflict::Kind::kSingletonRow);
  EXPECT_EQ(why.slot, 23);
}

TEST(RrtRelease, RestoresTheTable) {
  ModuloRrt rrt(blackwell_target());
  rrt.reset(15);
  const NodeRrt load = lower_kind("tiled_tma_load");
  const NodeRrt write = lower_kind("smem_write");
  const NodeRrt mma = lower_kind("wgmma");
  const NodeRrt read = lower_kind("smem_read");
  rrt.commit(load, 0);
  rrt.commit(write, 8);
  rrt.commit(mma, 20);
  rrt.commit(read, 3);
  rrt.commit(read, 4);
  EXPECT_FALSE(rrt.probe(write, 8));
  rrt.release(write, 8);
  EXPECT_TRUE(rrt.probe(write, 8));
  EXPECT_FALSE(rrt.probe(write, 9));  // row 0 is still the load's
  rrt.release(read, 3);
  rrt.release(load, 0);
  rrt.release(mma, 20);
  rrt.release(read, 4);
  for (int64_t r = 0; r < 15; ++r) {
    EXPECT_EQ(rrt.row(r), 0u);
    EXPECT_EQ(rrt.slot_usage(15, r), 0);
    EXPECT_EQ(rrt.pool_usage(1, r), 0);
  }
  rrt.commit(write, 0);
  rrt.reset(3);
  for (int64_t r = 0; r < 3; ++r) EXPECT_EQ(rrt.row(r), 0u);
  EXPECT_EQ(rrt.ii(), 3);
}

// splitmix64, for a deterministic randomized cross-check.
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
int64_t below(uint64_t& state, int64_t n) {
  return static_cast<int64_t>(next_random(state) % static_cast<uint64_t>(n));
}

// Brute force L2/L3: unfold every committed cycle onto its modulo row.
bool brute_fits(const Target& t, const std::vector<std::pair<Op, int64_t>>& placed,
                const Op& cand, int64_t start, int64_t ii) {
  const size_t nslots = static_cast<size_t>(t.slot_count());
  std::vector<int64_t> use(static_cast<size_t>(ii) * (nslots + t.pools.size()), 0);
  auto add = [&](const Op& op, int64_t s) {
    for (const Triple& tr : op.resources) {
      for (int64_t k = 0; k < tr.duration; ++k) {
        use[static_cast<size_t>((s + k) % ii) * (nslots + t.pools.size()) + tr.slot - 1] +=
            tr.occupancy;
      }
    }
    for (const PoolUse& p : op.pools) {
      for (int64_t k = 0; k < footprint_duration(op); ++k) {
        use[static_cast<size_t>((s + k) % ii) * (nslots + t.pools.size()) + nslots +
            p.pool] += p.count;
      }
    }
  };
  for (const auto& [op, s] : placed) add(op, s);
  add(cand, start);
  for (int64_t r = 0; r < ii; ++r) {
    for (size_t s = 0; s < nslots; ++s) {
      if (use[r * (nslots + t.pools.size()) + s] > t.slots[s].capacity) return false;
    }
    for (size_t p = 0; p < t.pools.size(); ++p) {
      if (use[r * (nslots + t.pools.size()) + nslots + p] > t.pools[p].capacity) return false;
    }
  }
  return true;
}

TEST(RrtRandomized, AgreesWithBruteForce) {
  const Target t = make_generic_target(
      "small", {{"a", 1}, {"b", 1}, {"c", 1}, {"p", 3}, {"q", 2}},
      {{"rate", PoolKind::kRate, 3}, {"bytes", PoolKind::kStorage, 1000}});
  uint64_t seed = 42;
  int fits = 0, conflicts = 0;
  for (int round = 0; round < 300; ++round) {
    const int64_t ii = 1 + below(seed, 9);
    ModuloRrt rrt(t);
    rrt.reset(ii);
    std::vector<std::pair<Op, int64_t>> placed;
    for (int step = 0; step < 12; ++step) {
      Op op = generic_op({});
      for (int s = 1; s <= 5; ++s) {
        if (below(seed, 3) != 0) continue;
        const int64_t cap = t.slot(s).capacity;
        op.resources.push_back({s, 1 + below(seed, 10), 1 + below(seed, cap)});
      }
      if (below(seed, 3) == 0) op.pools.push_back({0, 1 + below(seed, 3)});
      const NodeRrt n = NodeRrt::lower(op, t);
      const int64_t start = below(seed, 40);
      RrtConflict why;
      const bool got = rrt.probe(n, start, &why);
      ASSERT_EQ(got, brute_fits(t, placed, op, start, ii))
          << "round " << round << " step " << step << " ii " << ii;
      if (got) {
        ++fits;
        rrt.commit(n, start);
        placed.emplace_back(op, start);
      } else {
        ++conflicts;
        EXPECT_FALSE(why.describe(t, n, ii).empty());
      }
    }
    // Releasing everything empties the table.
    for (const auto& [op, s] : placed) rrt.release(NodeRrt::lower(op, t), s);
    for (int64_t r = 0; r < ii; ++r) {
      ASSERT_EQ(rrt.row(r), 0u);
      for (int s = 4; s <= 5; ++s) ASSERT_EQ(rrt.slot_usage(s, r), 0);
      ASSERT_EQ(rrt.pool_usage(0, r), 0);
    }
  }
  EXPECT_GT(fits, 300);
  EXPECT_GT(conflicts, 300);
}

}  // namespace
}  // namespace tilesched
