// Random layered loop graphs on the Blackwell target: the benchmarks' and
// tests' workhorse family. Ops sit in layers; distance-0 edges only run from
// one layer to a later one (the previous layer, sometimes the one before),
// so no zero-distance cycle can arise, and a share of loop-carried edges
// (distance 1..3) run from an op back to itself or an earlier op, closing
// recurrences. Kinds mix TMA loads, SMEM traffic, WGMMAs, ALU and SFU work,
// TMEM loads and barriers. SMEM writes' store_bytes, each counted once per
// iteration its buffer stays live across (1 + the longest distance it is
// read at), add up to at most the SMEM budget, so the serial schedule of
// every generated graph is legal.
//
// Deterministic: one SplitMix64 stream seeded from params.seed; the same
// parameters give the same graph on every platform and compiler.
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
