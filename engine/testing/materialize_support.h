// Test support, for the materialization tests only: a feasible schedule at
// `ii` with the given starts and its derived stage and order.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tilesched/schedule.h"

namespace tilesched {

inline Schedule At(int64_t ii, std::vector<int64_t> start) {
  Schedule s;
  s.feasible = true;
  s.ii = ii;
  s.start = std::move(start);
  derive_stage_order(s);
  return s;
}

}  // namespace tilesched
