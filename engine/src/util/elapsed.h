// Generator time (Schedule::time_ns): nanoseconds (or microseconds) on the
// steady clock; and the calling thread's CPU time, which the exact oracle's
// time limit compares with the clock (docs/EXACT.md, "Time limit").
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

namespace tilesched {

inline int64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              since)
      .count();
}

inline int64_t elapsed_us(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

// A system call (unlike the steady clock's vDSO read): callers keep it out
// of their hot loops.
inline int64_t thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace tilesched
