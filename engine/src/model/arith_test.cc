// ceil_div (arith.h) on both signs, at multiples and between them.
#include "model/arith.h"

#include <gtest/gtest.h>

namespace tilesched {
namespace {

TEST(Arith, CeilDivRoundsUpOnBothSigns) {
  EXPECT_EQ(ceil_div(0, 4), 0);
  EXPECT_EQ(ceil_div(1, 4), 1);
  EXPECT_EQ(ceil_div(8, 4), 2);
  EXPECT_EQ(ceil_div(9, 4), 3);
  EXPECT_EQ(ceil_div(-1, 4), 0);
  EXPECT_EQ(ceil_div(-4, 4), -1);
  EXPECT_EQ(ceil_div(-5, 4), -1);
  EXPECT_EQ(ceil_div(-8, 4), -2);
  // No a + b - 1 to overflow.
  EXPECT_EQ(ceil_div(INT64_MAX, 2), INT64_MAX / 2 + 1);
  static_assert(ceil_div(7, 2) == 4);
}

}  // namespace
}  // namespace tilesched
