// Helpers shared by the family sources (not public): parameter access and
// the per-family build functions the registry (families.cc) lists.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tilesched/graph.h"
#include "tilesched/graphgen/params.h"
#include "tilesched/status.h"
#include "tilesched/rng.h"

namespace tilesched::graphgen::detail {

// A resolved parameter. REQUIRES: `name` is a parameter of the family.
int64_t param(const ParamMap& params, std::string_view name);

// Uniform over [lo, hi] as an int (the ranges here are small).
inline int uniform_int(SplitMix64& rng, int64_t lo, int64_t hi) {
  return static_cast<int>(rng.uniform(lo, hi));
}

// A kind and its weight in a random op mix.
struct KindWeight {
  std::string_view kind;
  int64_t weight;
};

// A tile loop's op mix: data movement and MMAs around CUDA-core and SFU
// work (random_layered and the random families draw from it).
inline constexpr std::array<KindWeight, 10> kTileMix = {{
    {"tiled_tma_load", 3},
    {"smem_write", 2},
    {"smem_read", 3},
    {"wgmma", 3},
    {"alu", 4},
    {"exp", 2},
    {"tmem_load", 1},
    {"mbarrier_arrive", 1},
    {"mbarrier_wait", 1},
    {"named_barrier", 1},
}};

// A kind drawn from `mix` with probability proportional to its weight (one
// draw from rng).
template <size_t N>
std::string_view pick(SplitMix64& rng, const std::array<KindWeight, N>& mix) {
  int64_t total = 0;
  for (const KindWeight& k : mix) total += k.weight;
  int64_t r = rng.uniform(0, total - 1);
  for (const KindWeight& k : mix) {
    if (r < k.weight) return k.kind;
    r -= k.weight;
  }
  return mix.back().kind;  // unreachable
}

// Op names: prefix + index ("n12", "mma3").
inline std::string name_of(std::string_view prefix, int64_t i) {
  return std::string(prefix) + std::to_string(i);
}

// Random families (random_families.cc).
StatusOr<Graph> build_layered(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_sparse_recurrent(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_series_parallel(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_chains(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_resource_saturated(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_memory_bound(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_constraint_heavy(int ops, uint64_t seed, const ParamMap& p);

// Structured families (structured_families.cc).
StatusOr<Graph> build_seed_worked_example(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_gemm_mainloop(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_persistent_gemm(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_fa3_forward(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_fa4_forward(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_fa_backward(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_grouped_gemm(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_implicit_conv(int ops, uint64_t seed, const ParamMap& p);
StatusOr<Graph> build_warp_specialized(int ops, uint64_t seed, const ParamMap& p);

}  // namespace tilesched::graphgen::detail
