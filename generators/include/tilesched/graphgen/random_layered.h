// Random layered loop graphs on the Blackwell target: the benchmarks' and
// tests' workhorse family. Distance-0 edges run only from a layer to a later
// one, so no zero-distance cycle arises; loop-carried edges (distance 1..3)
// close recurrences; the SMEM writes' buffers fit the SMEM budget, so the
// serial schedule of every generated graph is legal. Deterministic: one
// SplitMix64 stream seeded from params.seed, the same graph on every
// platform and compiler. generators/README.md gives its parameters.
#pragma once

#include <cstdint>

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::graphgen {

struct LayeredParams {
  int ops = 64;                   // 1 .. limits::kMaxOps
  int layers = 0;                 // 0: round(sqrt(ops)); otherwise clamped to ops
  int edge_per_mille = 300;       // chance of each candidate forward edge
  int max_fan_in = 4;             // forward in-edges per op, at most
  int back_edge_per_mille = 100;  // loop-carried edges per 1000 forward edges
  uint64_t seed = 0;
};

// InvalidInput for parameters out of range (ops, per mille outside
// 0..1000, max_fan_in < 1, negative layers) or a graph beyond the limits.
StatusOr<Graph> random_layered(const LayeredParams& params);

}  // namespace tilesched::graphgen
