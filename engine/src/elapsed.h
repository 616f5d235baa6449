// Generator time (Schedule::time_ns): nanoseconds on the steady clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace tilesched {

inline int64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              since)
      .count();
}

}  // namespace tilesched
