// Integer arithmetic the engine shares.
#pragma once

#include <cstdint>

namespace tilesched {

// The least integer at or above a / b, for b > 0 and any a (C++ division
// truncates toward zero, so a remainder above zero rounds up).
constexpr int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b > 0 ? 1 : 0); }

}  // namespace tilesched
