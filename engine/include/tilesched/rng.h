// The project's one source of deterministic randomness: splitmix64 (Steele,
// Lea and Flood, "Fast splittable pseudorandom number generators", 2014)
// with our own range and shuffle helpers. std::uniform_int_distribution and
// std::shuffle differ between standard libraries; these give the same
// sequence on every compiler, so generated graphs and sweep rows reproduce
// byte for byte (docs/CONTRACT.md, "Files").
#pragma once

#include <cassert>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <utility>

namespace tilesched {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  // The next 64 random bits.
  uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform over [0, bound), without modulo bias: draws that fall in the
  // incomplete last block of 2^64 mod bound values are rejected and redrawn.
  // REQUIRES: bound >= 1.
  uint64_t below(uint64_t bound) {
    assert(bound >= 1);
    const uint64_t reject_below = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const uint64_t x = next();
      if (x >= reject_below) return x % bound;
    }
  }

  // Uniform over [lo, hi], both included. REQUIRES: lo <= hi.
  int64_t uniform(int64_t lo, int64_t hi) {
    assert(lo <= hi);
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    const uint64_t offset = span == UINT64_MAX ? next() : below(span + 1);
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);  // modular, C++20
  }

  // True with probability per_mille / 1000 (clamped to [0, 1000]).
  bool chance_per_mille(int64_t per_mille) {
    if (per_mille <= 0) return false;
    if (per_mille >= 1000) return true;
    return static_cast<int64_t>(below(1000)) < per_mille;
  }

  // Fisher-Yates: every permutation equally likely, drawn from this
  // generator only.
  template <std::ranges::random_access_range R>
    requires std::ranges::sized_range<R>
  void shuffle(R&& items) {
    auto first = std::ranges::begin(items);
    const auto n = static_cast<uint64_t>(std::ranges::size(items));
    for (uint64_t i = n; i > 1; --i) {
      const uint64_t j = below(i);  // j in [0, i)
      using std::swap;
      swap(first[static_cast<std::ptrdiff_t>(i - 1)], first[static_cast<std::ptrdiff_t>(j)]);
    }
  }

 private:
  uint64_t state_;
};

}  // namespace tilesched
