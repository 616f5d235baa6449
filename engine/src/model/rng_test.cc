// Tests for the splitmix64 generator and its helpers: pinned outputs (the
// sequence must never change: generated graphs and CSV rows depend on it),
// bounds, determinism, and rough uniformity of ranges and shuffles.
#include "tilesched/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

namespace tilesched {
namespace {

TEST(RngSplitMix64, GoldenFirstOutputs) {
  SplitMix64 a(0);
  EXPECT_EQ(a.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(a.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(a.next(), 0x06C45D188009454Full);
  EXPECT_EQ(a.next(), 0xF88BB8A8724C81ECull);
  SplitMix64 b(1);
  EXPECT_EQ(b.next(), 0x910A2DEC89025CC1ull);
  EXPECT_EQ(b.next(), 0xBEEB8DA1658EEC67ull);
  EXPECT_EQ(b.next(), 0xF893A2EEFB32555Eull);
  EXPECT_EQ(b.next(), 0x71C18690EE42C90Bull);
}

TEST(RngSplitMix64, GoldenUniformAndShuffle) {
  SplitMix64 r(42);
  std::vector<int64_t> got;
  for (int i = 0; i < 10; ++i) got.push_back(r.uniform(-5, 5));
  EXPECT_EQ(got, (std::vector<int64_t>{4, 0, -3, -4, -3, 4, 2, -3, 5, 5}));
  std::vector<int> v(10);
  std::iota(v.begin(), v.end(), 0);
  SplitMix64 s(7);
  s.shuffle(v);
  EXPECT_EQ(v, (std::vector<int>{8, 1, 5, 9, 0, 4, 3, 2, 6, 7}));
}

TEST(RngSplitMix64, SameSeedSameSequence) {
  SplitMix64 a(123456789), b(123456789), c(123456790);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs = differs || x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(RngUniform, StaysInBounds) {
  SplitMix64 r(5);
  const std::array<std::pair<int64_t, int64_t>, 7> ranges = {{
      {0, 0}, {3, 3}, {-1, 1}, {0, 6}, {-1000, 999}, {0, (int64_t{1} << 62) + 7},
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min() + 2},
  }};
  for (const auto& [lo, hi] : ranges) {
    for (int i = 0; i < 2000; ++i) {
      const int64_t x = r.uniform(lo, hi);
      ASSERT_GE(x, lo);
      ASSERT_LE(x, hi);
    }
  }
  // The full int64 range takes raw bits; both signs appear.
  bool neg = false, pos = false;
  for (int i = 0; i < 100; ++i) {
    const int64_t x = r.uniform(std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max());
    neg = neg || x < 0;
    pos = pos || x > 0;
  }
  EXPECT_TRUE(neg && pos);
}

TEST(RngUniform, HitsEveryValueRoughlyEqually) {
  SplitMix64 r(11);
  std::array<int, 7> count{};
  constexpr int kDraws = 70000;
  for (int i = 0; i < kDraws; ++i) ++count[static_cast<size_t>(r.uniform(10, 16) - 10)];
  for (int c : count) {
    EXPECT_GT(c, kDraws / 7 - 500);  // expected 10000, sd about 93
    EXPECT_LT(c, kDraws / 7 + 500);
  }
}

TEST(RngUniform, BelowOneIsZero) {
  SplitMix64 r(3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(r.below(1), 0u);
}

TEST(RngChance, ClampsAndRoughlyMatchesRate) {
  SplitMix64 r(9);
  int hits = 0;
  for (int i = 0; i < 100000; ++i) {
    EXPECT_FALSE(r.chance_per_mille(0));
    EXPECT_TRUE(r.chance_per_mille(1000));
    hits += r.chance_per_mille(250) ? 1 : 0;
  }
  EXPECT_GT(hits, 24000);  // expected 25000, sd about 137
  EXPECT_LT(hits, 26000);
}

TEST(RngShuffle, PermutesAndCoversAllOrders) {
  SplitMix64 r(17);
  std::map<std::vector<int>, int> seen;
  for (int i = 0; i < 6000; ++i) {
    std::vector<int> v = {0, 1, 2};
    r.shuffle(v);
    ++seen[v];
  }
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [order, c] : seen) {
    EXPECT_GT(c, 850);  // expected 1000, sd about 29
    EXPECT_LT(c, 1150);
  }
  std::vector<int> big(1000);
  std::iota(big.begin(), big.end(), 0);
  r.shuffle(big);
  std::vector<int> sorted = big;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(sorted[static_cast<size_t>(i)], i);
  EXPECT_NE(big, sorted);
  std::vector<int> empty, one = {4};
  r.shuffle(empty);
  r.shuffle(one);
  EXPECT_EQ(one, std::vector<int>{4});
}

}  // namespace
}  // namespace tilesched
