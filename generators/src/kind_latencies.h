// What the seed draws first for every structured family (not public): one
// latency per op kind of the Blackwell target, from a documented range
// around the kind's default (generators/README.md, "What the seed draws"),
// shared by every op of that kind in the graph, as the instructions of one
// kernel share theirs. A drawn latency scales the kind's slot holds in
// proportion: a slower transfer or MMA occupies its unit longer.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "tilesched/graph.h"
#include "tilesched/rng.h"

namespace tilesched::graphgen::detail {

// The latencies one kind may take (inclusive; its default lies within).
struct LatencyRange {
  std::string_view kind;
  int64_t lo, hi;
};

// In draw order. Barriers (mbarrier_*, named_barrier, cp_async_wait) keep
// their defaults: their cost does not grow with the tile.
inline constexpr std::array<LatencyRange, 11> kLatencyRanges = {{
    {"tiled_tma_load", 6, 12},
    {"tma_store", 6, 12},
    {"cp_async", 8, 16},
    {"wgmma", 12, 24},
    {"tcgen05_mma", 12, 24},
    {"smem_write", 5, 9},
    {"smem_read", 5, 9},
    {"tmem_load", 4, 8},
    {"tmem_store", 3, 6},
    {"exp", 6, 12},
    {"alu", 2, 6},
}};

class KindLatencies {
 public:
  // Draws one latency per entry of kLatencyRanges, in table order, and
  // keeps them unless `keep_defaults`. The draws happen either way, so what
  // a family draws after them does not depend on `keep_defaults`.
  KindLatencies(SplitMix64& rng, bool keep_defaults);

  // Gives `op` its kind's drawn latency and scales each of its holds by
  // drawn / default latency (rounded, at least 1 cycle); a kind without a
  // range, or kept at its default, is left alone.
  // REQUIRES: `op` holds its kind's default latency and resources.
  void apply(Op& op) const;

 private:
  std::array<int64_t, kLatencyRanges.size()> drawn_{};  // 0: the kind's default
};

}  // namespace tilesched::graphgen::detail
