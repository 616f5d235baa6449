// Tests for the gallop-then-bisect search: exact answers on monotone probes
// over many ranges (against the definition), the pinned probe sequence of
// one gallop, logarithmic probe counts (each probe counts its own calls),
// and what a non-monotone probe gets.
#include "ii_range.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace tilesched {
namespace {

// probe(v) = v >= threshold, recording every value asked and counting the
// calls.
struct Threshold {
  int64_t threshold;
  std::vector<int64_t>* asked = nullptr;
  int64_t* probes = nullptr;
  bool operator()(int64_t v) const {
    if (asked != nullptr) asked->push_back(v);
    if (probes != nullptr) ++*probes;
    return v >= threshold;
  }
};

TEST(SearchGallop, GallopProbesAPinnedSequence) {
  std::vector<int64_t> asked;
  EXPECT_EQ(gallop_then_bisect(Threshold{37, &asked}, 0, 100), 37);
  // Gallop 1..64, then bisect (32, 64].
  EXPECT_EQ(asked, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37}));
}

TEST(SearchGallop, GallopClampsToUpper) {
  std::vector<int64_t> asked;
  EXPECT_EQ(gallop_then_bisect(Threshold{90, &asked}, 5, 90), 90);
  // 5, 10, 20, 40, 80, then 90 (clamped); bisect (80, 90].
  EXPECT_EQ(asked, (std::vector<int64_t>{5, 10, 20, 40, 80, 90, 85, 88, 89}));
}

TEST(SearchGallop, AnswerAtLowerIsOneProbe) {
  int64_t probes = 0;
  EXPECT_EQ(gallop_then_bisect(Threshold{7, nullptr, &probes}, 7, 1000), 7);
  EXPECT_EQ(probes, 1);
}

TEST(SearchGallop, LowerZeroStartsAtOneThenChecksZero) {
  std::vector<int64_t> asked;
  EXPECT_EQ(gallop_then_bisect(Threshold{0, &asked}, 0, 50), 0);
  EXPECT_EQ(asked, (std::vector<int64_t>{1, 0}));
  asked.clear();
  EXPECT_EQ(gallop_then_bisect(Threshold{1, &asked}, 0, 50), 1);
  EXPECT_EQ(asked, (std::vector<int64_t>{1, 0}));
}

TEST(SearchGallop, DegenerateRanges) {
  EXPECT_EQ(gallop_then_bisect(Threshold{0}, 0, 0), 0);
  EXPECT_EQ(gallop_then_bisect(Threshold{1}, 0, 0), std::nullopt);
  EXPECT_EQ(gallop_then_bisect(Threshold{3}, 3, 3), 3);
  EXPECT_EQ(gallop_then_bisect(Threshold{4}, 3, 3), std::nullopt);
  int64_t probes = 0;
  EXPECT_EQ(gallop_then_bisect(Threshold{0, nullptr, &probes}, 5, 4), std::nullopt);  // empty
  EXPECT_EQ(probes, 0);
}

TEST(SearchGallop, NoneFeasibleIsNullopt) {
  int64_t probes = 0;
  EXPECT_EQ(gallop_then_bisect(Threshold{1001, nullptr, &probes}, 1, 1000), std::nullopt);
  EXPECT_EQ(probes, 11);  // 1, 2, ..., 512, then 1000
  EXPECT_EQ(gallop_then_bisect([](int64_t) { return false; }, 0, 0), std::nullopt);
}

TEST(SearchGallop, HugeUpperDoesNotOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t probes = 0;
  EXPECT_EQ(gallop_then_bisect(Threshold{kMax, nullptr, &probes}, 1, kMax), kMax);
  EXPECT_LE(probes, 2 * 64 + 2);
  EXPECT_EQ(gallop_then_bisect(Threshold{(int64_t{1} << 62) + 12345}, 0, kMax),
            (int64_t{1} << 62) + 12345);
}

// Every (lower, upper, threshold) with 0 <= lower <= upper <= 40 and the
// threshold anywhere from below lower to above upper: the gallop agrees
// with the definition, and its count stays logarithmic.
TEST(SearchGallop, MatchesTheDefinitionOnAllSmallMonotoneProbes) {
  int checked = 0;
  for (int64_t lower = 0; lower <= 40; ++lower) {
    for (int64_t upper = lower; upper <= 40; ++upper) {
      for (int64_t t = 0; t <= upper + 2; ++t) {
        const std::optional<int64_t> want =
            t > upper ? std::nullopt : std::optional<int64_t>(std::max(t, lower));
        int64_t probes = 0;
        const std::optional<int64_t> g =
            gallop_then_bisect(Threshold{t, nullptr, &probes}, lower, upper);
        ASSERT_EQ(g, want) << lower << " " << upper << " " << t;
        const int64_t span = std::bit_width(static_cast<uint64_t>(upper) + 1);
        ASSERT_LE(probes, 2 * span + 1) << lower << " " << upper << " " << t;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 20000);
}

TEST(SearchGallop, ProbeCountIsLogarithmicInTheAnswer) {
  for (int shift = 1; shift <= 40; ++shift) {
    const int64_t answer = (int64_t{1} << shift) + 1;  // just past a gallop point
    int64_t probes = 0;
    ASSERT_EQ(gallop_then_bisect(Threshold{answer, nullptr, &probes}, 1, int64_t{1} << 50),
              answer);
    // shift + 2 gallop probes, then a bisection of 2^shift values.
    EXPECT_LE(probes, 2 * shift + 3) << shift;
    EXPECT_GE(probes, shift + 2) << shift;
  }
}

TEST(SearchGallop, NonMonotoneProbeStillReturnsAFeasibleValue) {
  // True exactly on a sparse set: the result is in the set, though not
  // necessarily its minimum; never probed twice at one value.
  for (int pattern = 1; pattern < (1 << 12); pattern += 7) {
    std::vector<int64_t> asked;
    auto probe = [&](int64_t v) {
      asked.push_back(v);
      return ((pattern >> v) & 1) != 0;
    };
    const std::optional<int64_t> r = gallop_then_bisect(probe, 0, 11);
    if (r) {
      EXPECT_TRUE((pattern >> *r) & 1) << pattern;
    }
    if ((pattern >> 11) & 1) {
      EXPECT_TRUE(r.has_value()) << pattern;  // upper holds
    }
    std::sort(asked.begin(), asked.end());
    EXPECT_EQ(std::adjacent_find(asked.begin(), asked.end()), asked.end()) << pattern;
  }
  // A concrete miss: true at 0 and at 12 and above; the gallop never looks
  // at 0, so it answers 12, not the least value that holds.
  auto gap = [](int64_t v) { return v == 0 || v >= 12; };
  EXPECT_EQ(gallop_then_bisect(gap, 0, 20), 12);
}

}  // namespace
}  // namespace tilesched
