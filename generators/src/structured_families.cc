// The structured families of the registry (families.h): loop bodies of the
// GPU kernels people software-pipeline, on the Blackwell target
// (docs/TARGETS.md). Each one unrolls a unit of work (a k-tile, a KV tile,
// a filter tap, a pipeline stage) as many times as `ops` allows, rounding
// down, and records the unit count in the graph's name. Latencies and
// resources are the target's kind defaults: the seed's numbers for TMA
// loads, WGMMAs and SMEM traffic, ours for the rest (generators/README.md
// says which family uses which). Buffers charge SMEM through store_bytes;
// generate() scales them into the budget when many units are unrolled.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "family_util.h"

namespace tilesched::gen::detail {

namespace {

// A GraphBuilder on the Blackwell target with unit-indexed op names.
class Kernel {
 public:
  explicit Kernel(int units) : b_(blackwell_target()), suffix_(units > 1) {}
  // An op of unit `unit`: named with the unit's index when there are
  // several units.
  OpId op(std::string_view name, int unit, std::string_view kind, int64_t store_bytes = 0) {
    return named(suffix_ ? name_of(name, unit) : std::string(name), kind, store_bytes);
  }
  OpId named(std::string name, std::string_view kind, int64_t store_bytes = 0) {
    const OpId id = b_.op(std::move(name), std::string(kind));
    b_.at(id).store_bytes = store_bytes;
    return id;
  }
  void data(OpId from, OpId to, int64_t distance = 0) { b_.edge(from, to, std::nullopt, distance); }
  void order(OpId from, OpId to, int64_t distance = 0) {
    b_.edge(from, to, 0, distance, EdgeKind::kOrder);
  }
  Op& at(OpId id) { return b_.at(id); }
  StatusOr<Graph> build(std::string derived) {
    StatusOr<Graph> g = b_.build();
    if (g.ok()) g->name = std::move(derived);
    return g;
  }

 private:
  GraphBuilder b_;
  bool suffix_;
};

// Whole units of `per_unit` ops after `fixed` ones, rounding down.
StatusOr<int> units_for(std::string_view family, int ops, int fixed, int per_unit,
                        int min_units = 1) {
  const int units = ops >= fixed ? (ops - fixed) / per_unit : 0;
  if (units < min_units) {
    return Status::InvalidInput(std::string(family) + ": ops " + std::to_string(ops) +
                                " is below the smallest graph with these parameters (" +
                                std::to_string(fixed + min_units * per_unit) + " ops)");
  }
  return units;
}

int64_t tile_bytes(const ParamMap& p) { return param(p, "tile_kib") * 1024; }

// Links a per-unit chain v[0] -> v[1] -> ... and closes it with a
// loop-carried edge v[last] -> v[0] of distance 1 (a running value).
void recurrence(Kernel& k, const std::vector<OpId>& v) {
  for (size_t i = 1; i < v.size(); ++i) k.data(v[i - 1], v[i]);
  k.data(v.back(), v.front(), 1);
}

}  // namespace

// Seed 000's worked example (TMA load, SMEM write, WGMMA, SMEM read; load ->
// read of latency 8), `copies` independent copies sharing the slots.
StatusOr<Graph> build_seed_worked_example(int ops, uint64_t, const ParamMap& p) {
  StatusOr<int> units = units_for("seed_worked_example", ops, 0, 4);
  if (!units.ok()) return units.status();
  Kernel k(*units);
  for (int u = 0; u < *units; ++u) {
    const OpId load = k.op("load", u, "tiled_tma_load");
    k.op("write", u, "smem_write", param(p, "store_bytes"));
    k.op("mma", u, "wgmma");
    const OpId read = k.op("read", u, "smem_read");
    k.data(load, read);  // the source latency, 8, as in the seed
  }
  return k.build("copies=" + std::to_string(*units));
}

// Hopper-style GEMM mainloop, k_tiles unrolled: per k-tile TMA loads of A
// and B into SMEM, an mbarrier wait, a WGMMA accumulating into the running
// accumulator (a recurrence across k-tiles and iterations), and an arrive
// that frees the stage's buffers for the load `stages` iterations later.
StatusOr<Graph> build_gemm_mainloop(int ops, uint64_t, const ParamMap& p) {
  StatusOr<int> units = units_for("gemm_mainloop", ops, 0, 5);
  if (!units.ok()) return units.status();
  Kernel k(*units);
  std::vector<OpId> mmas;
  for (int u = 0; u < *units; ++u) {
    const OpId a = k.op("load_a", u, "tiled_tma_load", tile_bytes(p));
    const OpId b = k.op("load_b", u, "tiled_tma_load", tile_bytes(p));
    const OpId wait = k.op("wait", u, "mbarrier_wait");
    const OpId mma = k.op("mma", u, "wgmma");
    const OpId free = k.op("free", u, "mbarrier_arrive");
    k.data(a, wait);
    k.data(b, wait);
    k.data(a, mma);
    k.data(b, mma);
    k.order(wait, mma);
    k.data(mma, free);
    k.order(free, a, param(p, "stages"));
    k.order(free, b, param(p, "stages"));
    mmas.push_back(mma);
  }
  recurrence(k, mmas);
  return k.build("k_tiles=" + std::to_string(*units));
}

// Blackwell persistent GEMM: a tile scheduler step, the k-tile mainloop
// with tcgen05 MMAs into a TMEM accumulator, then an epilogue in
// sub-tiles (TMEM load -> convert on the CUDA cores -> SMEM write -> TMA
// store). The next tile's first MMA may overwrite the accumulator only
// after the epilogue has read it (`tmem_buffers` accumulators in flight);
// the next SMEM write waits for the TMA store to drain its buffer.
StatusOr<Graph> build_persistent_gemm(int ops, uint64_t, const ParamMap& p) {
  const int epi = static_cast<int>(param(p, "epi_subtiles"));
  StatusOr<int> units = units_for("persistent_gemm", ops, 1 + 4 * epi, 5);
  if (!units.ok()) return units.status();
  Kernel k(*units);
  const OpId sched = k.named("next_tile", "alu");
  k.data(sched, sched, 1);  // the tile counter
  std::vector<OpId> mmas;
  for (int u = 0; u < *units; ++u) {
    const OpId a = k.op("load_a", u, "tiled_tma_load", tile_bytes(p));
    const OpId b = k.op("load_b", u, "tiled_tma_load", tile_bytes(p));
    const OpId wait = k.op("wait", u, "mbarrier_wait");
    const OpId mma = k.op("mma", u, "tcgen05_mma");
    const OpId free = k.op("free", u, "mbarrier_arrive");
    k.data(sched, a);
    k.data(sched, b);
    k.data(a, wait);
    k.data(b, wait);
    k.data(a, mma);
    k.data(b, mma);
    k.order(wait, mma);
    k.data(mma, free);
    k.order(free, a, param(p, "stages"));
    k.order(free, b, param(p, "stages"));
    if (!mmas.empty()) k.data(mmas.back(), mma);
    mmas.push_back(mma);
  }
  for (int j = 0; j < epi; ++j) {
    const OpId ld = k.named(name_of("epi_tmem_load", j), "tmem_load");
    const OpId cvt = k.named(name_of("epi_convert", j), "alu");
    const OpId st = k.named(name_of("epi_smem_write", j), "smem_write", tile_bytes(p) / 2);
    const OpId out = k.named(name_of("epi_tma_store", j), "tma_store");
    k.data(mmas.back(), ld);
    k.data(ld, cvt);
    k.data(cvt, st);
    k.data(st, out);
    k.order(out, st, 1);
    k.order(ld, mmas.front(), param(p, "tmem_buffers"));
  }
  return k.build("k_tiles=" + std::to_string(*units));
}

// FlashAttention forward, FA3 shape (Hopper), kv_tiles unrolled: TMA loads
// of K and V, S = QK^T on WGMMA, the running row max (a recurrence), exp
// on the SFU, the running row sum (a recurrence), the rescale of O by
// exp(m_old - m_new), O += PV on WGMMA (the accumulator recurrence), and
// the arrive that frees the K/V stage.
StatusOr<Graph> build_fa3_forward(int ops, uint64_t, const ParamMap& p) {
  StatusOr<int> units = units_for("fa3_forward", ops, 0, 11);
  if (!units.ok()) return units.status();
  Kernel k(*units);
  std::vector<OpId> maxes, sums, pvs, rescales;
  for (int u = 0; u < *units; ++u) {
    const OpId lk = k.op("load_k", u, "tiled_tma_load", tile_bytes(p));
    const OpId lv = k.op("load_v", u, "tiled_tma_load", tile_bytes(p));
    const OpId wk = k.op("wait_k", u, "mbarrier_wait");
    const OpId qk = k.op("qk", u, "wgmma");
    const OpId mx = k.op("rowmax", u, "alu");
    const OpId ex = k.op("exp", u, "exp");
    const OpId sm = k.op("rowsum", u, "alu");
    const OpId rs = k.op("rescale", u, "alu");
    const OpId wv = k.op("wait_v", u, "mbarrier_wait");
    const OpId pv = k.op("pv", u, "wgmma");
    const OpId fr = k.op("free_kv", u, "mbarrier_arrive");
    k.data(lk, wk);
    k.data(lk, qk);
    k.order(wk, qk);
    k.data(qk, mx);
    k.data(qk, ex);
    k.data(mx, ex);
    k.data(ex, sm);
    k.data(mx, rs);
    k.data(lv, wv);
    k.data(lv, pv);
    k.order(wv, pv);
    k.data(ex, pv);
    k.data(rs, pv);
    k.data(pv, fr);
    k.order(fr, lk, param(p, "stages"));
    k.order(fr, lv, param(p, "stages"));
    maxes.push_back(mx);
    sums.push_back(sm);
    pvs.push_back(pv);
    rescales.push_back(rs);
  }
  recurrence(k, maxes);
  recurrence(k, sums);
  recurrence(k, pvs);
  // The rescale factor needs the previous tile's max as well.
  for (size_t i = 0; i < rescales.size(); ++i) {
    if (i > 0) {
      k.data(maxes[i - 1], rescales[i]);
    } else {
      k.data(maxes.back(), rescales[0], 1);
    }
  }
  return k.build("kv_tiles=" + std::to_string(*units));
}

// FlashAttention forward, FA4 shape (Blackwell), kv_tiles unrolled: S =
// QK^T by a tcgen05 MMA into TMEM, a TMEM load of S, the running max, exp2
// split between the SFU and a polynomial on the CUDA cores, the running
// sum, P stored back to TMEM, O += PV by a tcgen05 MMA, and the correction
// step that rescales O in TMEM (TMEM load -> scale -> TMEM store) between
// one PV MMA and the next: the accumulator recurrence runs through it.
StatusOr<Graph> build_fa4_forward(int ops, uint64_t, const ParamMap& p) {
  StatusOr<int> units = units_for("fa4_forward", ops, 0, 16);
  if (!units.ok()) return units.status();
  Kernel k(*units);
  std::vector<OpId> maxes, sums, pvs, corr_loads, corr_stores;
  for (int u = 0; u < *units; ++u) {
    const OpId lk = k.op("load_k", u, "tiled_tma_load", tile_bytes(p));
    const OpId lv = k.op("load_v", u, "tiled_tma_load", tile_bytes(p));
    const OpId wk = k.op("wait_k", u, "mbarrier_wait");
    const OpId qk = k.op("qk", u, "tcgen05_mma");
    const OpId sl = k.op("s_tmem_load", u, "tmem_load");
    const OpId mx = k.op("rowmax", u, "alu");
    const OpId ex = k.op("exp_sfu", u, "exp");
    const OpId ep = k.op("exp_poly", u, "alu");
    const OpId sm = k.op("rowsum", u, "alu");
    const OpId ps = k.op("p_tmem_store", u, "tmem_store");
    const OpId wv = k.op("wait_v", u, "mbarrier_wait");
    const OpId pv = k.op("pv", u, "tcgen05_mma");
    const OpId ol = k.op("o_tmem_load", u, "tmem_load");
    const OpId os = k.op("o_scale", u, "alu");
    const OpId ot = k.op("o_tmem_store", u, "tmem_store");
    const OpId fr = k.op("free_kv", u, "mbarrier_arrive");
    k.data(lk, wk);
    k.data(lk, qk);
    k.order(wk, qk);
    k.data(qk, sl);
    k.data(sl, mx);
    k.data(sl, ex);
    k.data(sl, ep);
    k.data(mx, ex);
    k.data(mx, ep);
    k.data(ex, sm);
    k.data(ep, sm);
    k.data(ex, ps);
    k.data(ep, ps);
    k.data(lv, wv);
    k.data(lv, pv);
    k.order(wv, pv);
    k.data(ps, pv);
    k.data(ol, os);
    k.data(mx, os);
    k.data(os, ot);
    k.data(ot, pv);
    k.data(pv, fr);
    k.order(fr, lk, param(p, "stages"));
    k.order(fr, lv, param(p, "stages"));
    maxes.push_back(mx);
    sums.push_back(sm);
    pvs.push_back(pv);
    corr_loads.push_back(ol);
  }
  recurrence(k, maxes);
  recurrence(k, sums);
  // O flows pv[i-1] -> correction i -> pv[i]; the first tile's correction
  // reads the previous iteration's last PV.
  for (size_t i = 0; i < pvs.size(); ++i) {
    if (i > 0) {
      k.data(pvs[i - 1], corr_loads[i]);
    } else {
      k.data(pvs.back(), corr_loads[0], 1);
    }
  }
  return k.build("kv_tiles=" + std::to_string(*units));
}

// FlashAttention backward (FA2/FA3 shape), the inner loop over Q tiles for
// one K/V block, q_tiles unrolled: TMA loads of Q and dO, S = QK^T and
// dP = dO V^T on WGMMA, P = exp(S - LSE) on the SFU, dS = P (dP - D) on the
// CUDA cores, dV += P^T dO and dK += dS^T Q (two accumulator recurrences),
// dS staged in SMEM for dQ = dS K, and dQ added to global memory by a TMA
// store (reduce).
StatusOr<Graph> build_fa_backward(int ops, uint64_t, const ParamMap& p) {
  StatusOr<int> units = units_for("fa_backward", ops, 0, 13);
  if (!units.ok()) return units.status();
  Kernel k(*units);
  std::vector<OpId> dvs, dks;
  for (int u = 0; u < *units; ++u) {
    const OpId lq = k.op("load_q", u, "tiled_tma_load", tile_bytes(p));
    const OpId ld = k.op("load_do", u, "tiled_tma_load", tile_bytes(p));
    const OpId wt = k.op("wait", u, "mbarrier_wait");
    const OpId s = k.op("s", u, "wgmma");
    const OpId pe = k.op("p_exp", u, "exp");
    const OpId dp = k.op("dp", u, "wgmma");
    const OpId ds = k.op("ds", u, "alu");
    const OpId dv = k.op("dv", u, "wgmma");
    const OpId dk = k.op("dk", u, "wgmma");
    const OpId st = k.op("ds_smem_write", u, "smem_write", tile_bytes(p) / 2);
    const OpId dq = k.op("dq", u, "wgmma");
    const OpId out = k.op("dq_tma_reduce", u, "tma_store");
    const OpId fr = k.op("free", u, "mbarrier_arrive");
    k.data(lq, wt);
    k.data(ld, wt);
    k.data(lq, s);
    k.order(wt, s);
    k.data(s, pe);
    k.data(ld, dp);
    k.order(wt, dp);
    k.data(pe, ds);
    k.data(dp, ds);
    k.data(pe, dv);
    k.data(ld, dv);
    k.data(ds, dk);
    k.data(lq, dk);
    k.data(ds, st);
    k.data(st, dq);
    k.data(dq, out);
    k.order(out, st, 1);  // the dS buffer is reused once the reduce has read it
    k.data(dv, fr);
    k.data(dk, fr);
    k.data(dq, fr);
    k.order(fr, lq, param(p, "stages"));
    k.order(fr, ld, param(p, "stages"));
    dvs.push_back(dv);
    dks.push_back(dk);
  }
  recurrence(k, dvs);
  recurrence(k, dks);
  return k.build("q_tiles=" + std::to_string(*units));
}

// Grouped (MoE) GEMM: `groups` experts in one loop body, each a small
// mainloop (TMA loads, WGMMA chain, arrive) after a tensormap update of
// the expert's pointers and before a TMA store of its tile. The k-tiles
// are dealt to experts unevenly, the way tokens route: each expert gets
// one, and every further one goes to expert 0 with chance skew_per_mille,
// else to a uniformly drawn expert (the seed decides).
StatusOr<Graph> build_grouped_gemm(int ops, uint64_t seed, const ParamMap& p) {
  const int groups = static_cast<int>(param(p, "groups"));
  StatusOr<int> units = units_for("grouped_gemm", ops, 2 * groups, 4, groups);
  if (!units.ok()) return units.status();
  SplitMix64 rng(seed);
  std::vector<int> tiles(static_cast<size_t>(groups), 1);
  for (int t = groups; t < *units; ++t) {
    ++tiles[rng.chance_per_mille(param(p, "skew_per_mille")) ? 0
                                                             : uniform_int(rng, 0, groups - 1)];
  }
  Kernel k(2);  // names always carry their index
  std::vector<OpId> descs;
  OpId prev_store = -1;
  int index = 0;
  for (int g = 0; g < groups; ++g) {
    const OpId desc = k.op("tensormap", g, "alu");
    if (!descs.empty()) k.data(descs.back(), desc);
    descs.push_back(desc);
    OpId prev_mma = -1;
    for (int t = 0; t < tiles[g]; ++t, ++index) {
      const OpId a = k.op("load_a", index, "tiled_tma_load", tile_bytes(p));
      const OpId b = k.op("load_b", index, "tiled_tma_load", tile_bytes(p));
      const OpId mma = k.op("mma", index, "wgmma");
      const OpId free = k.op("free", index, "mbarrier_arrive");
      k.data(desc, a);
      k.data(desc, b);
      k.data(a, mma);
      k.data(b, mma);
      if (prev_mma >= 0) k.data(prev_mma, mma);
      k.data(mma, free);
      k.order(free, a, param(p, "stages"));
      k.order(free, b, param(p, "stages"));
      prev_mma = mma;
    }
    const OpId store = k.op("store", g, "tma_store");
    k.data(prev_mma, store);
    if (prev_store >= 0) k.order(prev_store, store);
    prev_store = store;
  }
  k.data(descs.back(), descs.front(), 1);
  std::string sizes;
  for (int t : tiles) sizes += (sizes.empty() ? "" : ",") + std::to_string(t);
  return k.build("k_tiles=" + std::to_string(*units) + "/expert_tiles=" + sizes);
}

// Implicit-GEMM convolution, taps unrolled (filter position x channel
// chunk): im2col coordinates on the CUDA cores (a running update), the
// activation gather by cp.async into SMEM and its wait (groups retire in
// order), the filter tile by TMA, and a WGMMA accumulating into the
// running accumulator; the stage's buffers are reused `stages` iterations
// later.
StatusOr<Graph> build_implicit_conv(int ops, uint64_t, const ParamMap& p) {
  StatusOr<int> units = units_for("implicit_conv", ops, 0, 5);
  if (!units.ok()) return units.status();
  Kernel k(*units);
  std::vector<OpId> addrs, mmas;
  OpId prev_wait = -1;
  for (int u = 0; u < *units; ++u) {
    const OpId addr = k.op("im2col", u, "alu");
    const OpId act = k.op("act_cp_async", u, "cp_async", tile_bytes(p));
    const OpId wait = k.op("act_wait", u, "cp_async_wait");
    const OpId filt = k.op("filter_load", u, "tiled_tma_load", tile_bytes(p));
    const OpId mma = k.op("mma", u, "wgmma");
    k.data(addr, act);
    k.data(act, wait);
    k.data(act, mma);
    k.order(wait, mma);
    k.data(filt, mma);
    if (prev_wait >= 0) k.order(prev_wait, wait);
    prev_wait = wait;
    k.order(mma, act, param(p, "stages"));
    k.order(mma, filt, param(p, "stages"));
    addrs.push_back(addr);
    mmas.push_back(mma);
  }
  recurrence(k, addrs);
  recurrence(k, mmas);
  return k.build("taps=" + std::to_string(*units));
}

// Warp-specialized producer/consumer GEMM loop (the ping-pong shape):
// per pipeline stage a producer waits for an empty buffer and issues TMA
// loads of A and B; the consumer warpgroups wait for the full buffer, then
// take turns on the tensor core (a WGMMA each, handed on through a named
// barrier: order edges), and release the buffer. Constraints: the
// consumer's wait, MMAs and barriers of one stage share a pipeline stage
// (leader group), and the producer's loads run at most `stages` - 1
// pipeline stages deep (max depth).
StatusOr<Graph> build_warp_specialized(int ops, uint64_t, const ParamMap& p) {
  const int consumers = static_cast<int>(param(p, "consumers"));
  const int64_t stages = param(p, "stages");
  StatusOr<int> units = units_for("warp_specialized", ops, 0, 5 + 2 * consumers);
  if (!units.ok()) return units.status();
  Kernel k(2);
  std::vector<std::vector<OpId>> accum(static_cast<size_t>(consumers));
  OpId first_mma = -1, last_sync = -1;
  for (int u = 0; u < *units; ++u) {
    const OpId empty = k.op("empty_wait", u, "mbarrier_wait");
    const OpId a = k.op("load_a", u, "tiled_tma_load", tile_bytes(p));
    const OpId b = k.op("load_b", u, "tiled_tma_load", tile_bytes(p));
    const OpId full = k.op("full_wait", u, "mbarrier_wait");
    k.order(empty, a);
    k.order(empty, b);
    k.data(a, full);
    k.data(b, full);
    k.at(a).max_depth = stages - 1;
    k.at(b).max_depth = stages - 1;
    k.at(full).gid = u;
    k.at(full).leader_gid = u;
    std::vector<OpId> mmas;
    for (int c = 0; c < consumers; ++c) {
      const OpId mma = k.op("mma_c" + std::to_string(c) + "_", u, "wgmma");
      const OpId sync = k.op("sync_c" + std::to_string(c) + "_", u, "named_barrier");
      k.data(a, mma);
      k.data(b, mma);
      k.order(full, mma);
      k.order(mma, sync);
      if (last_sync >= 0) k.order(last_sync, mma);  // the tensor core changes hands
      for (OpId v : {mma, sync}) {
        k.at(v).gid = u;
        k.at(v).leader_gid = u;
      }
      if (first_mma < 0) first_mma = mma;
      last_sync = sync;
      accum[c].push_back(mma);
      mmas.push_back(mma);
    }
    const OpId release = k.op("release", u, "mbarrier_arrive");
    for (OpId mma : mmas) k.data(mma, release);
    k.order(release, empty, stages);
  }
  k.order(last_sync, first_mma, 1);
  for (const std::vector<OpId>& chain : accum) recurrence(k, chain);
  return k.build("stages_unrolled=" + std::to_string(*units));
}

}  // namespace tilesched::gen::detail
