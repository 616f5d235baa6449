// Live registers per modulo row, kept up to date as seats change, so that
// the spill model's register_pressure (registers.h) reads a row in
// O(log II) instead of walking every placed op and its consumers.
//
// A value live over [from, from + len) at II holds its registers in every
// row len / II times, plus once more on the cyclic run of len % II rows
// from row from % II. The first part is one running total; the second is
// a Fenwick tree over the rows' differences (range add, point query).
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

namespace tilesched::cost_based {

class RegisterRows {
 public:
  // Every row empty at `ii` (no allocation when the II is unchanged).
  void reset(int64_t ii) {
    assert(ii >= 1);
    ii_ = ii;
    whole_ = 0;
    tree_.assign(static_cast<size_t>(ii) + 1, 0);
  }
  // Adds (sign +1) or removes (sign -1) `regs` live over [from, from + len).
  // REQUIRES: from >= 0, len >= 0.
  void add(int64_t regs, int64_t from, int64_t len, int sign) {
    const int64_t r = sign * regs;
    whole_ += r * (len / ii_);
    const int64_t a = from % ii_, k = len % ii_;
    if (k == 0) return;
    if (a + k <= ii_) {
      range_add(a, a + k, r);
    } else {
      range_add(a, ii_, r);
      range_add(0, a + k - ii_, r);
    }
  }
  // Registers live in `row` (0 <= row < II).
  int64_t at(int64_t row) const {
    int64_t sum = whole_;
    for (int64_t i = row + 1; i > 0; i -= i & -i) sum += tree_[i];
    return sum;
  }

 private:
  // Adds r to the rows [lo, hi).
  void range_add(int64_t lo, int64_t hi, int64_t r) {
    point_add(lo, r);
    if (hi < ii_) point_add(hi, -r);
  }
  void point_add(int64_t row, int64_t r) {
    for (int64_t i = row + 1; i <= ii_; i += i & -i) tree_[i] += r;
  }

  int64_t ii_ = 1;
  int64_t whole_ = 0;
  std::vector<int64_t> tree_;  // Fenwick tree, 1-based
};

}  // namespace tilesched::cost_based
