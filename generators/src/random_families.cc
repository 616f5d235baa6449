// The random families of the registry (families.h). Each one stresses a
// different part of the scheduler; generators/README.md documents their
// parameters. Every family gives exactly `ops` ops, numbers them in a
// topological order of the distance-0 edges (so no zero-distance cycle can
// arise) and closes recurrences only with edges of distance >= 1. SMEM
// bytes are drawn freely here; generate() scales them into the budget.
#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "family_util.h"
#include "tilesched/graph_builder.h"
#include "tilesched/graphgen/random_layered.h"

namespace tilesched::graphgen::detail {

namespace {

// Adds a Blackwell op of a random kind; SMEM writes get a tile-sized buffer.
OpId add_tile_op(GraphBuilder& b, SplitMix64& rng, int index) {
  const std::string_view kind = pick(rng, kTileMix);
  const OpId id = b.op(name_of("n", index), std::string(kind));
  if (kind == "smem_write") b.at(id).store_bytes = rng.uniform(4096, 32768);
  return id;
}

Status check_range(std::string_view family, const ParamMap& p, std::string_view lo,
                   std::string_view hi) {
  if (param(p, lo) > param(p, hi)) {
    return Status::InvalidInput(std::string(family) + ": parameter " + std::string(lo) + " (" +
                                std::to_string(param(p, lo)) + ") is above " + std::string(hi) +
                                " (" + std::to_string(param(p, hi)) + ")");
  }
  return Status::Ok();
}

// Forward edges into each op from up to `window` ops before it, each with
// chance edge_per_mille; an order edge now and then (WAR-style, latency 0).
void forward_edges(GraphBuilder& b, SplitMix64& rng, int n, int64_t window,
                   int64_t edge_per_mille) {
  for (OpId v = 1; v < n; ++v) {
    for (OpId u = std::max<OpId>(0, v - static_cast<OpId>(window)); u < v; ++u) {
      if (!rng.chance_per_mille(edge_per_mille)) continue;
      if (rng.chance_per_mille(60)) {
        b.edge(u, v, 0, 0, EdgeKind::kOrder);
      } else {
        b.edge(u, v);
      }
    }
  }
}

}  // namespace

StatusOr<Graph> build_layered(int ops, uint64_t seed, const ParamMap& p) {
  LayeredParams lp;
  lp.ops = ops;
  lp.seed = seed;
  lp.layers = static_cast<int>(param(p, "layers"));
  lp.edge_per_mille = static_cast<int>(param(p, "edge_per_mille"));
  lp.max_fan_in = static_cast<int>(param(p, "max_fan_in"));
  lp.back_edge_per_mille = static_cast<int>(param(p, "back_edge_per_mille"));
  StatusOr<Graph> g = random_layered(lp);
  if (g.ok()) g->name.clear();
  return g;
}

// A sparse DAG over a window of earlier ops, then loop-carried edges from
// an op back to one a random span earlier (0: a self-loop; up to 64 ops):
// recurrences of many lengths and distances. Latencies are redrawn.
StatusOr<Graph> build_sparse_recurrent(int ops, uint64_t seed, const ParamMap& p) {
  if (Status s = check_range("sparse_recurrent", p, "lat_min", "lat_max"); !s.ok()) return s;
  SplitMix64 rng(seed);
  GraphBuilder b(blackwell_target(), "");
  for (int v = 0; v < ops; ++v) {
    const OpId id = add_tile_op(b, rng, v);
    b.at(id).latency = rng.uniform(param(p, "lat_min"), param(p, "lat_max"));
  }
  forward_edges(b, rng, ops, param(p, "window"), param(p, "edge_per_mille"));
  const int64_t recurrences = (ops * param(p, "recurrence_per_mille") + 500) / 1000;
  constexpr std::array<int64_t, 5> kSpans = {0, 1, 4, 16, 64};
  for (int64_t i = 0; i < recurrences; ++i) {
    const OpId v = uniform_int(rng, 0, ops - 1);
    const int64_t span = kSpans[static_cast<size_t>(rng.uniform(0, kSpans.size() - 1))];
    const OpId u = uniform_int(rng, std::max<int64_t>(0, v - span), v);
    b.edge(v, u, std::nullopt, rng.uniform(1, param(p, "max_distance")));
  }
  return std::move(b).build();
}

// Series-parallel: split the op count recursively, in series (a then b)
// or in parallel (fork, a and b side by side, join); the exit feeds the
// entry of the next iteration when `carried` is set.
StatusOr<Graph> build_series_parallel(int ops, uint64_t seed, const ParamMap& p) {
  SplitMix64 rng(seed);
  GraphBuilder b(blackwell_target(), "");
  const int64_t parallel = param(p, "parallel_per_mille");
  int next = 0;
  // Returns (entry, exit) of a sub-graph of n ops; ids ascend along edges.
  std::function<std::pair<OpId, OpId>(int)> build = [&](int n) -> std::pair<OpId, OpId> {
    if (n == 1) {
      const OpId v = add_tile_op(b, rng, next++);
      return {v, v};
    }
    if (n >= 4 && rng.chance_per_mille(parallel)) {
      const OpId fork = add_tile_op(b, rng, next++);
      const int a = uniform_int(rng, 1, n - 3);
      const auto [a_in, a_out] = build(a);
      const auto [b_in, b_out] = build(n - 2 - a);
      const OpId join = add_tile_op(b, rng, next++);
      b.edge(fork, a_in);
      b.edge(fork, b_in);
      b.edge(a_out, join);
      b.edge(b_out, join);
      return {fork, join};
    }
    const int a = uniform_int(rng, 1, n - 1);
    const auto [a_in, a_out] = build(a);
    const auto [b_in, b_out] = build(n - a);
    b.edge(a_out, b_in);
    return {a_in, b_out};
  };
  const auto [entry, exit] = build(ops);
  if (param(p, "carried") != 0) b.edge(exit, entry, std::nullopt, 1);
  return std::move(b).build();
}

// Long critical paths: a few chains of ALU/SFU/MMA/SMEM work with long
// latencies, sparse cross links from a chain to a later one, and a
// loop-carried edge closing each chain (a recurrence as long as the chain).
StatusOr<Graph> build_chains(int ops, uint64_t seed, const ParamMap& p) {
  if (Status s = check_range("chains", p, "lat_min", "lat_max"); !s.ok()) return s;
  constexpr std::array<KindWeight, 4> kChainMix = {{
      {"alu", 4}, {"exp", 2}, {"wgmma", 1}, {"smem_read", 1}}};
  SplitMix64 rng(seed);
  GraphBuilder b(blackwell_target(), "");
  const int chains = static_cast<int>(std::min<int64_t>(param(p, "chains"), ops));
  std::vector<OpId> begin(static_cast<size_t>(chains) + 1, 0);
  for (int c = 0; c < chains; ++c) begin[c + 1] = begin[c] + ops / chains + (c < ops % chains);
  for (int v = 0; v < ops; ++v) {
    const OpId id = b.op(name_of("n", v), std::string(pick(rng, kChainMix)));
    b.at(id).latency = rng.uniform(param(p, "lat_min"), param(p, "lat_max"));
  }
  for (int c = 0; c < chains; ++c) {
    for (OpId v = begin[c] + 1; v < begin[c + 1]; ++v) b.edge(v - 1, v);
  }
  for (int c = 0; c + 1 < chains; ++c) {
    for (OpId u = begin[c]; u < begin[c + 1]; ++u) {
      if (!rng.chance_per_mille(param(p, "cross_per_mille"))) continue;
      b.edge(u, uniform_int(rng, begin[c + 1], ops - 1));
    }
  }
  for (int c = 0; c < chains; ++c) {
    if (!rng.chance_per_mille(param(p, "close_per_mille"))) continue;
    b.edge(begin[c + 1] - 1, begin[c], std::nullopt, rng.uniform(1, param(p, "max_distance")));
  }
  return std::move(b).build();
}

// Many ops on few slots of a generic target: some slots pooled (capacity
// 2..max_capacity, claimed with occupancy above 1), one rate pool, and
// durations up to max_duration: ResMII and FineMII dominate.
StatusOr<Graph> build_resource_saturated(int ops, uint64_t seed, const ParamMap& p) {
  SplitMix64 rng(seed);
  const int slots = static_cast<int>(param(p, "slots"));
  std::vector<Slot> slot_list;
  for (int s = 0; s < slots; ++s) {
    const int64_t cap = rng.chance_per_mille(param(p, "pooled_per_mille"))
                            ? rng.uniform(2, param(p, "max_capacity"))
                            : 1;
    slot_list.push_back(Slot{name_of("unit", s), cap, false});
  }
  std::vector<Pool> pools = {Pool{"bank", PoolKind::kRate, 2, 0, false}};
  const Target target = make_generic_target("saturated", slot_list, pools);
  GraphBuilder b(target, "");
  std::vector<int> order(static_cast<size_t>(slots));
  for (int v = 0; v < ops; ++v) {
    for (int s = 0; s < slots; ++s) order[s] = s;
    rng.shuffle(order);
    const int claims = uniform_int(rng, 1, std::min<int64_t>(param(p, "max_claims"), slots));
    std::vector<Triple> triples;
    for (int k = 0; k < claims; ++k) {
      const int s = order[k];
      triples.push_back(Triple{s + 1, rng.uniform(1, param(p, "max_duration")),
                               rng.uniform(1, slot_list[s].capacity)});
    }
    std::sort(triples.begin(), triples.end(),
              [](const Triple& x, const Triple& y) { return x.slot < y.slot; });
    const OpId id = b.generic(name_of("n", v), rng.uniform(1, 8), std::move(triples));
    if (rng.chance_per_mille(param(p, "pool_per_mille"))) {
      b.at(id).pools = {PoolUse{0, rng.uniform(1, 2)}};
    }
  }
  forward_edges(b, rng, ops, 8, param(p, "edge_per_mille"));
  for (int64_t i = 0; i < ops / 16; ++i) {
    const OpId v = uniform_int(rng, 0, ops - 1);
    b.edge(v, uniform_int(rng, 0, v), std::nullopt, 1);
  }
  return std::move(b).build();
}

// SMEM-bound: buffers written by a TMA load + SMEM write and read by SMEM
// reads and WGMMAs up to max_distance iterations later (long lifetimes),
// sized so that one copy per live iteration fills fill_per_mille of the
// budget: L4 binds as soon as iterations overlap.
StatusOr<Graph> build_memory_bound(int ops, uint64_t seed, const ParamMap& p) {
  SplitMix64 rng(seed);
  GraphBuilder b(blackwell_target(), "");
  std::vector<OpId> writes;
  std::vector<int64_t> copies;
  int v = 0;
  OpId last = -1;
  while (v < ops) {
    if (ops - v < 3) {  // too few left for a buffer: ALU work on the last value
      const OpId a = b.op(name_of("n", v++), "alu");
      if (last >= 0) b.edge(last, a);
      last = a;
      continue;
    }
    const int readers =
        uniform_int(rng, 1, std::min<int64_t>(param(p, "readers_max"), ops - v - 2));
    const OpId load = b.op(name_of("n", v++), "tiled_tma_load");
    const OpId write = b.op(name_of("n", v++), "smem_write");
    b.edge(load, write);
    int64_t longest = 0;
    OpId reader = write;
    for (int r = 0; r < readers; ++r) {
      reader = b.op(name_of("n", v++), rng.chance_per_mille(500) ? "smem_read" : "wgmma");
      const int64_t d = rng.uniform(0, param(p, "max_distance"));
      b.edge(write, reader, std::nullopt, d);
      longest = std::max(longest, d);
    }
    // The next write into this buffer waits until its last read is done.
    b.edge(reader, write, 0, longest + 1, EdgeKind::kOrder);
    writes.push_back(write);
    copies.push_back(1 + longest);
    last = reader;
  }
  const int64_t budget = blackwell_target().pools[*blackwell_target().storage_pool()].capacity;
  int64_t total_copies = 0;
  for (int64_t c : copies) total_copies += c;
  if (total_copies > 0) {
    const int64_t share = budget * param(p, "fill_per_mille") / 1000 / total_copies;
    for (OpId w : writes) b.at(w).store_bytes = rng.uniform(std::max<int64_t>(1, share * 7 / 8), std::max<int64_t>(1, share));
  }
  return std::move(b).build();
}

// Constraint-heavy: a sparse DAG plus leader groups (L5), max depths (L6)
// and extra order edges, forward and loop-carried.
StatusOr<Graph> build_constraint_heavy(int ops, uint64_t seed, const ParamMap& p) {
  SplitMix64 rng(seed);
  GraphBuilder b(blackwell_target(), "");
  for (int v = 0; v < ops; ++v) add_tile_op(b, rng, v);
  forward_edges(b, rng, ops, 8, param(p, "edge_per_mille"));
  int64_t group = 0;
  for (int v = 0; v < ops;) {
    if (!rng.chance_per_mille(param(p, "group_per_mille"))) {
      ++v;
      continue;
    }
    const int size = uniform_int(rng, 2, param(p, "group_size_max"));
    for (int k = 0; k < size && v < ops; ++k, ++v) {
      b.at(v).gid = group;
      b.at(v).leader_gid = group;
    }
    ++group;
  }
  for (int v = 0; v < ops; ++v) {
    if (rng.chance_per_mille(param(p, "max_depth_per_mille"))) {
      b.at(v).max_depth = rng.uniform(0, param(p, "depth_max"));
    }
  }
  for (int v = 1; v < ops; ++v) {
    if (!rng.chance_per_mille(param(p, "order_per_mille"))) continue;
    const OpId u = uniform_int(rng, 0, v - 1);
    if (rng.chance_per_mille(500)) {
      b.edge(u, v, rng.uniform(0, 4), 0, EdgeKind::kOrder);
    } else {
      const int64_t latency = rng.uniform(0, 8);  // two draws: keep their order fixed
      b.edge(v, u, latency, rng.uniform(1, 2), EdgeKind::kOrder);
    }
  }
  return std::move(b).build();
}

}  // namespace tilesched::graphgen::detail
