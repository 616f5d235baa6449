// The per-kind latency draws of the structured families: drawn latencies
// lie in their ranges, holds scale with them, barriers keep their defaults,
// and the draws consume the stream the same way whether kept or not.
#include "kind_latencies.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tilesched/target.h"

namespace tilesched::graphgen::detail {
namespace {

Op fresh(std::string_view kind) {
  Op op;
  op.kind = std::string(kind);
  apply_kind_defaults(blackwell_target(), op);
  return op;
}

TEST(KindLatencies, DrawnLatenciesLieInTheirRangesAndScaleTheHolds) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    SplitMix64 rng(seed);
    const KindLatencies drawn(rng, false);
    for (const LatencyRange& range : kLatencyRanges) {
      const Op before = fresh(range.kind);
      Op after = before;
      drawn.apply(after);
      EXPECT_GE(after.latency, range.lo) << range.kind;
      EXPECT_LE(after.latency, range.hi) << range.kind;
      ASSERT_EQ(after.resources.size(), before.resources.size());
      for (size_t i = 0; i < after.resources.size(); ++i) {
        // duration x drawn / default latency, to the nearest cycle (halves
        // up), at least 1.
        const int64_t d = before.resources[i].duration;
        const int64_t expected =
            std::max<int64_t>(1, (2 * d * after.latency + before.latency) / (2 * before.latency));
        EXPECT_EQ(after.resources[i].duration, expected) << range.kind;
        EXPECT_EQ(after.resources[i].slot, before.resources[i].slot);
      }
    }
  }
}

TEST(KindLatencies, AHoldAsLongAsTheLatencyStaysAsLongAsTheDrawnOne) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SplitMix64 rng(seed);
    const KindLatencies drawn(rng, false);
    Op load = fresh("tiled_tma_load");  // 8 cycles, held 8 on both slots
    drawn.apply(load);
    for (const Triple& t : load.resources) EXPECT_EQ(t.duration, load.latency);
  }
}

TEST(KindLatencies, BarriersAndKeptDefaultsAreLeftAlone) {
  SplitMix64 rng(7);
  const KindLatencies drawn(rng, false);
  for (std::string_view kind : {"mbarrier_wait", "mbarrier_arrive", "named_barrier",
                                "cp_async_wait"}) {
    Op op = fresh(kind);
    drawn.apply(op);
    EXPECT_EQ(op, fresh(kind)) << kind;
  }
  SplitMix64 again(7);
  const KindLatencies kept(again, true);
  for (const LatencyRange& range : kLatencyRanges) {
    Op op = fresh(range.kind);
    kept.apply(op);
    EXPECT_EQ(op, fresh(range.kind)) << range.kind;
  }
}

TEST(KindLatencies, KeepingTheDefaultsDrawsTheSameNumbers) {
  SplitMix64 a(11), b(11);
  const KindLatencies drawn(a, false);
  const KindLatencies kept(b, true);
  EXPECT_EQ(a.next(), b.next());
}

}  // namespace
}  // namespace tilesched::graphgen::detail
