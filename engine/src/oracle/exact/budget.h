// The exact oracle's wall-clock budget (docs/EXACT.md, "Time limit"):
// its deadline, the split of what remains between checks, and the reserve
// kept for a solver that runs on past its limit. Internal to the engine.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "util/elapsed.h"
#include "query.h"
#include "tilesched/exact.h"
#include "util/test_seams.h"

namespace tilesched::exact_internal {

// The wall-clock budget and its split between checks. Work stops 1/32 of
// the limit early: verifying the answer and tearing down the Z3 context
// after the last check must fit in the 5 % the limit allows beyond itself.
// It also stops as early again as the reserve: the last check may stop
// that late, and its model is freed before the call returns. The reserve is the larger of what was measured on the
// clock (how late a check stopped after its limit, how long a model took to
// free) and what was measured in this thread's CPU time (the longest a
// solver ran without looking at the clock, or a model's estimate of it
// before its first check; a free's CPU time) stretched by the CPU share the
// thread gets: on a loaded machine a stretch of 0.3 s of CPU took 2.3 s of
// the clock, and the first check of a model has no stretch of its own to
// learn from.
class Budget {
 public:
  Budget(Clock::time_point t0, const ExactOptions& opts)
      : t0_(t0),
        limit_us_(1000 * (opts.time_limit_ms - opts.time_limit_ms / 32)),
        cpu0_us_(thread_cpu_us()),
        mark_(t0),
        mark_cpu_us_(cpu0_us_) {}
  int64_t remaining_ms() const {
    return std::max<int64_t>(0, (limit_us_ - reserve_us() - elapsed_us(t0_)) / 1000);
  }
  // The limit of the next check; 0 means none is left.
  int64_t next_check_ms() const {
    const int64_t left = remaining_ms();
    if (left <= 0) return 0;
    const int64_t cap = test_seams::per_check_limit_ms > 0 ? test_seams::per_check_limit_ms
                                                           : std::max<int64_t>(1, left / 2);
    return std::min(left, cap);
  }
  Clock::time_point deadline() const {
    return t0_ + std::chrono::microseconds(limit_us_ - reserve_us());
  }
  // Raise the reserve measured on the clock, or in CPU time, to `us` when
  // that is more.
  void reserve_clock(int64_t us) { clock_us_ = std::max(clock_us_, us); }
  void reserve_cpu(int64_t us) { cpu_us_ = std::max(cpu_us_, us); }
  int64_t reserve_us() const {
    return std::max(clock_us_, static_cast<int64_t>(static_cast<double>(cpu_us_) / share_));
  }
  int64_t reserve_cpu_us() const { return cpu_us_; }
  // Measures the CPU share: the lower of the whole call's so far and the
  // last stretch's of at least kShareWindow (so that a load that rose lately
  // counts at once, and one that fell counts only as it shows over the call).
  void sample() {
    const Clock::time_point now = Clock::now();
    if (now - mark_ < kShareWindow) return;
    const int64_t cpu = thread_cpu_us();
    const double recent = ratio(cpu - mark_cpu_us_, now - mark_);
    const double whole = ratio(cpu - cpu0_us_, now - t0_);
    share_ = std::clamp(std::min(recent, whole), kMinShare, 1.0);
    mark_ = now;
    mark_cpu_us_ = cpu;
  }
  double share() const { return share_; }

 private:
  static constexpr Clock::duration kShareWindow = std::chrono::milliseconds(20);
  // Below this the reserve is over 50 times the CPU reserve: at that share
  // a CPU stretch of 20 ms already takes a second of the clock.
  static constexpr double kMinShare = 0.02;
  static double ratio(int64_t cpu_us, Clock::duration clock) {
    const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(clock).count();
    return us > 0 ? static_cast<double>(cpu_us) / static_cast<double>(us) : 1.0;
  }

  Clock::time_point t0_;
  int64_t limit_us_;
  int64_t clock_us_ = 0;
  int64_t cpu_us_ = 0;
  double share_ = 1.0;
  int64_t cpu0_us_;
  Clock::time_point mark_;  // the last sample's clock and CPU time
  int64_t mark_cpu_us_;
};

}  // namespace tilesched::exact_internal
