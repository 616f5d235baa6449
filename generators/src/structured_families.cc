// The structured families of the registry (families.h): loop bodies of the
// GPU kernels people software-pipeline, on the Blackwell target
// (docs/TARGETS.md). Each one unrolls a unit of work (a k-tile, a KV tile,
// a filter tap, a pipeline stage) as many times as `ops` allows, rounding
// down, and records the unit count in the graph's name. The seed draws the
// instance: the parameters not given, optional ops included (the registry,
// families.cc), then one latency per kind (kind_latencies.h), then, in
// grouped_gemm, the deal of k-tiles (generators/README.md, "What the seed
// draws"). Buffers charge SMEM through store_bytes; generate() scales them
// into the budget when many units are unrolled.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "family_util.h"
#include "kind_latencies.h"
#include "tilesched/graph_builder.h"

namespace tilesched::graphgen::detail {

namespace {

// What the seed draws for a structured family beyond its parameters: the
// kind latencies first, then, from `rng`, whatever the family draws itself.
struct Instance {
  Instance(uint64_t seed, const ParamMap& p)
      : rng(seed), latencies(rng, param(p, "kind_latencies") == 1) {}
  SplitMix64 rng;
  KindLatencies latencies;
};

// A GraphBuilder on the Blackwell target with unit-indexed op names; every
// op takes its kind's drawn latency.
class Kernel {
 public:
  using Ops = std::vector<OpId>;

  Kernel(int units, const KindLatencies& latencies)
      : b_(blackwell_target()), suffix_(units > 1), latencies_(latencies) {}
  // An op of unit `unit`: named with the unit's index when there are
  // several units.
  OpId op(std::string_view name, int unit, std::string_view kind, int64_t store_bytes = 0) {
    return named(suffix_ ? name_of(name, unit) : std::string(name), kind, store_bytes);
  }
  OpId named(std::string name, std::string_view kind, int64_t store_bytes = 0) {
    const OpId id = b_.op(std::move(name), std::string(kind));
    latencies_.apply(b_.at(id));
    b_.at(id).store_bytes = store_bytes;
    return id;
  }
  void data(OpId from, OpId to, int64_t distance = 0) { b_.edge(from, to, std::nullopt, distance); }
  // Every op of `from` feeds `to`, in order.
  void data(const Ops& from, OpId to) {
    for (OpId f : from) data(f, to);
  }
  // `from` feeds every op of `to`, in order.
  void data(OpId from, const Ops& to) {
    for (OpId t : to) data(from, t);
  }
  // A data edge along each consecutive pair of `chain`.
  void chain(const Ops& chain) {
    for (size_t i = 1; i < chain.size(); ++i) data(chain[i - 1], chain[i]);
  }
  void order(OpId from, OpId to, int64_t distance = 0) {
    b_.edge(from, to, 0, distance, EdgeKind::kOrder);
  }
  // `from` precedes every op of `to`, `distance` iterations apart.
  void order(OpId from, const Ops& to, int64_t distance = 0) {
    for (OpId t : to) order(from, t, distance);
  }
  Op& at(OpId id) { return b_.at(id); }
  // Puts `v` in leader group `group` (gid = leader_gid = group).
  void lead_group(OpId v, int group) {
    b_.at(v).gid = group;
    b_.at(v).leader_gid = group;
  }
  StatusOr<Graph> build(std::string derived) {
    StatusOr<Graph> g = b_.build();
    if (g.ok()) g->name = std::move(derived);
    return g;
  }

 private:
  GraphBuilder b_;
  bool suffix_;
  KindLatencies latencies_;
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

// A graph of whole units of `per_unit` ops after `fixed` ones (units_for),
// its ops taking `in`'s latencies: `body(k, units)` adds them, and the
// graph records the unit count as "count_name=N".
template <typename Body>
StatusOr<Graph> unrolled(std::string_view family, int ops, int fixed, int per_unit,
                         std::string_view count_name, const Instance& in, Body body) {
  StatusOr<int> units = units_for(family, ops, fixed, per_unit);
  if (!units.ok()) return units.status();
  Kernel k(*units, in.latencies);
  body(k, *units);
  return k.build(std::string(count_name) + "=" + std::to_string(*units));
}

// The tile bodies the families compose. Op ids follow the order in which
// ops are added, the edge list the order in which edges are added: those
// two orders (not how ops and edges interleave) fix a graph's JSON.

// A TMA load of one `tile_kib` tile into SMEM.
OpId tma_tile(Kernel& k, std::string_view name, int unit, const ParamMap& p) {
  return k.op(name, unit, "tiled_tma_load", tile_bytes(p));
}

// The mbarrier wait for `loads` to land.
OpId wait_for(Kernel& k, std::string_view name, int unit, const Kernel::Ops& loads) {
  const OpId wait = k.op(name, unit, "mbarrier_wait");
  k.data(loads, wait);
  return wait;
}

// `mma` reads `operands` and issues after `wait`.
void issue_after(Kernel& k, OpId wait, OpId mma, const Kernel::Ops& operands) {
  k.data(operands, mma);
  k.order(wait, mma);
}

// An MMA on freshly loaded tiles: the wait for `loads`, then the MMA that
// reads them, issued after the wait.
OpId mma_on(Kernel& k, std::string_view wait_name, std::string_view mma_name, int unit,
            std::string_view mma_kind, const Kernel::Ops& loads) {
  const OpId wait = wait_for(k, wait_name, unit, loads);
  const OpId mma = k.op(mma_name, unit, mma_kind);
  issue_after(k, wait, mma, loads);
  return mma;
}

// The arrive that frees a pipeline stage once `done` have finished: each op
// of `refills` may write the stage's buffers again `stages` iterations
// later.
void free_stage(Kernel& k, std::string_view name, int unit, const Kernel::Ops& done,
                const Kernel::Ops& refills, int64_t stages) {
  const OpId free = k.op(name, unit, "mbarrier_arrive");
  k.data(done, free);
  k.order(free, refills, stages);
}

// One k-tile of a TMA-fed MMA mainloop: loads of A and B (after `issuer`,
// if any), the wait for both, the MMA, and the arrive that frees the stage.
// Returns the MMA.
OpId mainloop_tile(Kernel& k, int unit, std::string_view mma_kind, const ParamMap& p,
                   std::optional<OpId> issuer = std::nullopt) {
  const OpId a = tma_tile(k, "load_a", unit, p);
  const OpId b = tma_tile(k, "load_b", unit, p);
  if (issuer) k.data(*issuer, {a, b});
  const OpId mma = mma_on(k, "wait", "mma", unit, mma_kind, {a, b});
  free_stage(k, "free", unit, {mma}, {a, b}, param(p, "stages"));
  return mma;
}

// A KV tile's loads of K and V and S = QK^T, issued once K has landed.
struct KvTile {
  OpId load_k, load_v, qk;
};
KvTile kv_tile(Kernel& k, int unit, std::string_view mma_kind, const ParamMap& p) {
  const OpId lk = tma_tile(k, "load_k", unit, p);
  const OpId lv = tma_tile(k, "load_v", unit, p);
  return {lk, lv, mma_on(k, "wait_k", "qk", unit, mma_kind, {lk})};
}

// O += PV, issued once the tile's V has landed.
OpId pv_product(Kernel& k, int unit, std::string_view mma_kind, const KvTile& t) {
  return mma_on(k, "wait_v", "pv", unit, mma_kind, {t.load_v});
}

// The arrive that frees a KV tile's stage after `pv`.
void free_kv(Kernel& k, int unit, OpId pv, const KvTile& t, const ParamMap& p) {
  free_stage(k, "free_kv", unit, {pv}, {t.load_k, t.load_v}, param(p, "stages"));
}

// Links a per-unit chain v[0] -> v[1] -> ... and closes it with a
// loop-carried edge v[last] -> v[0] of distance 1 (a running value).
void recurrence(Kernel& k, const std::vector<OpId>& v) {
  k.chain(v);
  k.data(v.back(), v.front(), 1);
}

// Unit i's `to` reads unit i-1's `from`; the first unit's reads the previous
// iteration's last.
void from_previous_unit(Kernel& k, const std::vector<OpId>& from, const std::vector<OpId>& to) {
  for (size_t i = 0; i < to.size(); ++i) {
    if (i > 0) {
      k.data(from[i - 1], to[i]);
    } else {
      k.data(from.back(), to[0], 1);
    }
  }
}

}  // namespace

// Seed 000's worked example (TMA load, SMEM write, WGMMA, SMEM read; load ->
// read of the TMA's latency, 8 in the seed), `copies` independent copies
// sharing the slots.
StatusOr<Graph> build_seed_worked_example(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  return unrolled("seed_worked_example", ops, 0, 4, "copies", in, [&](Kernel& k, int units) {
    for (int u = 0; u < units; ++u) {
      const OpId load = k.op("load", u, "tiled_tma_load");
      k.op("write", u, "smem_write", param(p, "store_bytes"));
      k.op("mma", u, "wgmma");
      const OpId read = k.op("read", u, "smem_read");
      k.data(load, read);  // the source latency
    }
  });
}

// Hopper-style GEMM mainloop, k_tiles unrolled: per k-tile TMA loads of A
// and B into SMEM, an mbarrier wait, a WGMMA accumulating into the running
// accumulator (a recurrence across k-tiles and iterations), and an arrive
// that frees the stage's buffers for the load `stages` iterations later.
StatusOr<Graph> build_gemm_mainloop(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  return unrolled("gemm_mainloop", ops, 0, 5, "k_tiles", in, [&](Kernel& k, int units) {
    std::vector<OpId> mmas;
    for (int u = 0; u < units; ++u) mmas.push_back(mainloop_tile(k, u, "wgmma", p));
    recurrence(k, mmas);
  });
}

// Blackwell persistent GEMM: a tile scheduler step, the k-tile mainloop
// with tcgen05 MMAs into a TMEM accumulator, then an epilogue in
// sub-tiles (TMEM load -> convert on the CUDA cores, when `epi_convert`
// -> SMEM write -> TMA store). The next tile's first MMA may overwrite the
// accumulator only after the epilogue has read it (`tmem_buffers`
// accumulators in flight); the next SMEM write waits for the TMA store to
// drain its buffer.
StatusOr<Graph> build_persistent_gemm(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  const bool convert = param(p, "epi_convert") == 1;
  const int epi = static_cast<int>(param(p, "epi_subtiles"));
  const int fixed = 1 + (convert ? 4 : 3) * epi;
  return unrolled("persistent_gemm", ops, fixed, 5, "k_tiles", in, [&](Kernel& k, int units) {
    const OpId sched = k.named("next_tile", "alu");
    k.data(sched, sched, 1);  // the tile counter
    std::vector<OpId> mmas;
    for (int u = 0; u < units; ++u) {
      const OpId mma = mainloop_tile(k, u, "tcgen05_mma", p, sched);
      if (!mmas.empty()) k.data(mmas.back(), mma);
      mmas.push_back(mma);
    }
    for (int j = 0; j < epi; ++j) {
      const OpId ld = k.named(name_of("epi_tmem_load", j), "tmem_load");
      Kernel::Ops path = {mmas.back(), ld};
      if (convert) path.push_back(k.named(name_of("epi_convert", j), "alu"));
      const OpId st = k.named(name_of("epi_smem_write", j), "smem_write", tile_bytes(p) / 2);
      const OpId out = k.named(name_of("epi_tma_store", j), "tma_store");
      path.push_back(st);
      path.push_back(out);
      k.chain(path);
      k.order(out, st, 1);
      k.order(ld, mmas.front(), param(p, "tmem_buffers"));
    }
  });
}

// One KV tile of a FlashAttention forward loop: the running row max and
// row sum, O += PV, and the op through which the tile takes in the previous
// tile's state (FA3's rescale factor, FA4's correction of O).
struct AttentionTile {
  OpId max, sum, pv, carry_in;
};

// FA3's KV tile (Hopper): TMA loads of K and V, S = QK^T on WGMMA, the row
// max, exp on the SFU, the row sum, the rescale of O by exp(m_old - m_new),
// O += PV on WGMMA, and the arrive that frees the K/V stage.
AttentionTile fa3_tile(Kernel& k, int u, const ParamMap& p) {
  const KvTile t = kv_tile(k, u, "wgmma", p);
  const OpId mx = k.op("rowmax", u, "alu");
  const OpId ex = k.op("exp", u, "exp");
  k.data(t.qk, {mx, ex});
  k.data(mx, ex);
  const OpId sm = k.op("rowsum", u, "alu");
  k.data(ex, sm);
  const OpId rs = k.op("rescale", u, "alu");
  k.data(mx, rs);
  const OpId pv = pv_product(k, u, "wgmma", t);
  k.data({ex, rs}, pv);
  free_kv(k, u, pv, t, p);
  return {mx, sm, pv, rs};
}

// FA4's KV tile (Blackwell): S = QK^T by a tcgen05 MMA into TMEM, a TMEM
// load of S, the row max, exp2 on the SFU (split with a polynomial on the
// CUDA cores with `exp_poly`), the row sum, P stored back to TMEM, O += PV by
// a tcgen05 MMA after the correction step that rescales O in TMEM (TMEM
// load -> scale -> TMEM store), and the arrive that frees the K/V stage.
AttentionTile fa4_tile(Kernel& k, int u, const ParamMap& p) {
  const KvTile t = kv_tile(k, u, "tcgen05_mma", p);
  const OpId sl = k.op("s_tmem_load", u, "tmem_load");
  k.data(t.qk, sl);
  const OpId mx = k.op("rowmax", u, "alu");
  Kernel::Ops exps = {k.op("exp_sfu", u, "exp")};
  if (param(p, "exp_poly") == 1) exps.push_back(k.op("exp_poly", u, "alu"));
  k.data(sl, mx);
  k.data(sl, exps);
  k.data(mx, exps);
  const OpId sm = k.op("rowsum", u, "alu");
  const OpId ps = k.op("p_tmem_store", u, "tmem_store");
  k.data(exps, sm);
  k.data(exps, ps);
  const OpId pv = pv_product(k, u, "tcgen05_mma", t);
  k.data(ps, pv);
  const OpId ol = k.op("o_tmem_load", u, "tmem_load");
  const OpId os = k.op("o_scale", u, "alu");
  const OpId ot = k.op("o_tmem_store", u, "tmem_store");
  k.chain({ol, os});
  k.data(mx, os);
  k.chain({os, ot, pv});
  free_kv(k, u, pv, t, p);
  return {mx, sm, pv, ol};
}

// The KV tiles of a FlashAttention forward loop, by column.
struct AttentionLoop {
  std::vector<OpId> maxes, sums, pvs, carry_ins;
};

// `units` tiles built by `tile`, with the running max and the running sum
// carried across tiles and iterations (two recurrences).
template <typename TileFn>
AttentionLoop attention_loop(Kernel& k, int units, TileFn tile) {
  AttentionLoop loop;
  for (int u = 0; u < units; ++u) {
    const AttentionTile t = tile(u);
    loop.maxes.push_back(t.max);
    loop.sums.push_back(t.sum);
    loop.pvs.push_back(t.pv);
    loop.carry_ins.push_back(t.carry_in);
  }
  recurrence(k, loop.maxes);
  recurrence(k, loop.sums);
  return loop;
}

// FlashAttention forward, FA3 shape (Hopper), kv_tiles unrolled (fa3_tile):
// O += PV accumulates across tiles (a recurrence); each rescale factor
// needs the previous tile's max.
StatusOr<Graph> build_fa3_forward(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  return unrolled("fa3_forward", ops, 0, 11, "kv_tiles", in, [&](Kernel& k, int units) {
    const AttentionLoop loop = attention_loop(k, units, [&](int u) { return fa3_tile(k, u, p); });
    recurrence(k, loop.pvs);
    from_previous_unit(k, loop.maxes, loop.carry_ins);
  });
}

// FlashAttention forward, FA4 shape (Blackwell), kv_tiles unrolled
// (fa4_tile): O flows pv[i-1] -> correction i -> pv[i], so the accumulator
// recurrence runs through the corrections; the first tile's correction
// reads the previous iteration's last PV. Without `exp_poly` the SFU
// computes all of exp2, as in FA3 (a 15-op tile).
StatusOr<Graph> build_fa4_forward(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  const int per_tile = param(p, "exp_poly") == 1 ? 16 : 15;
  return unrolled("fa4_forward", ops, 0, per_tile, "kv_tiles", in, [&](Kernel& k, int units) {
    const AttentionLoop loop = attention_loop(k, units, [&](int u) { return fa4_tile(k, u, p); });
    from_previous_unit(k, loop.pvs, loop.carry_ins);
  });
}

// FlashAttention backward (FA2/FA3 shape), the inner loop over Q tiles for
// one K/V block, q_tiles unrolled: TMA loads of Q and dO, S = QK^T and
// dP = dO V^T on WGMMA, P = exp(S - LSE) on the SFU, dS = P (dP - D) on the
// CUDA cores, dV += P^T dO and dK += dS^T Q (two accumulator recurrences),
// dS staged in SMEM for dQ = dS K, and dQ added to global memory by a TMA
// store (reduce).
StatusOr<Graph> build_fa_backward(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  return unrolled("fa_backward", ops, 0, 13, "q_tiles", in, [&](Kernel& k, int units) {
    std::vector<OpId> dvs, dks;
    for (int u = 0; u < units; ++u) {
      const OpId lq = tma_tile(k, "load_q", u, p);
      const OpId ld = tma_tile(k, "load_do", u, p);
      const OpId wt = wait_for(k, "wait", u, {lq, ld});
      const OpId s = k.op("s", u, "wgmma");
      const OpId pe = k.op("p_exp", u, "exp");
      const OpId dp = k.op("dp", u, "wgmma");
      const OpId ds = k.op("ds", u, "alu");
      const OpId dv = k.op("dv", u, "wgmma");
      const OpId dk = k.op("dk", u, "wgmma");
      const OpId st = k.op("ds_smem_write", u, "smem_write", tile_bytes(p) / 2);
      const OpId dq = k.op("dq", u, "wgmma");
      const OpId out = k.op("dq_tma_reduce", u, "tma_store");
      issue_after(k, wt, s, {lq});
      k.data(s, pe);
      issue_after(k, wt, dp, {ld});
      k.data({pe, dp}, ds);
      k.data({pe, ld}, dv);
      k.data({ds, lq}, dk);
      k.chain({ds, st, dq, out});
      k.order(out, st,
              1);  // the dS buffer is reused once the reduce has read it
      free_stage(k, "free", u, {dv, dk, dq}, {lq, ld}, param(p, "stages"));
      dvs.push_back(dv);
      dks.push_back(dk);
    }
    recurrence(k, dvs);
    recurrence(k, dks);
  });
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
  Instance in(seed, p);
  std::vector<int> tiles(static_cast<size_t>(groups), 1);
  for (int t = groups; t < *units; ++t) {
    const bool to_first = in.rng.chance_per_mille(param(p, "skew_per_mille"));
    ++tiles[to_first ? 0 : uniform_int(in.rng, 0, groups - 1)];
  }
  Kernel k(2, in.latencies);  // names always carry their index
  std::vector<OpId> descs;
  OpId prev_store = -1;
  int index = 0;
  for (int g = 0; g < groups; ++g) {
    const OpId desc = k.op("tensormap", g, "alu");
    if (!descs.empty()) k.data(descs.back(), desc);
    descs.push_back(desc);
    OpId prev_mma = -1;
    for (int t = 0; t < tiles[g]; ++t, ++index) {
      const OpId a = tma_tile(k, "load_a", index, p);
      const OpId b = tma_tile(k, "load_b", index, p);
      const OpId mma = k.op("mma", index, "wgmma");
      k.data(desc, {a, b});
      k.data({a, b}, mma);
      if (prev_mma >= 0) k.data(prev_mma, mma);
      free_stage(k, "free", index, {mma}, {a, b}, param(p, "stages"));
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
StatusOr<Graph> build_implicit_conv(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  return unrolled("implicit_conv", ops, 0, 5, "taps", in, [&](Kernel& k, int units) {
    std::vector<OpId> addrs, mmas;
    OpId prev_wait = -1;
    for (int u = 0; u < units; ++u) {
      const OpId addr = k.op("im2col", u, "alu");
      const OpId act = k.op("act_cp_async", u, "cp_async", tile_bytes(p));
      const OpId wait = k.op("act_wait", u, "cp_async_wait");
      const OpId filt = tma_tile(k, "filter_load", u, p);
      const OpId mma = k.op("mma", u, "wgmma");
      k.chain({addr, act, wait});
      issue_after(k, wait, mma, {act});
      k.data(filt, mma);
      if (prev_wait >= 0) k.order(prev_wait, wait);
      prev_wait = wait;
      k.order(mma, {act, filt}, param(p, "stages"));  // the stage's buffers are free again
      addrs.push_back(addr);
      mmas.push_back(mma);
    }
    recurrence(k, addrs);
    recurrence(k, mmas);
  });
}

// Warp-specialized producer/consumer GEMM loop (the ping-pong shape):
// per pipeline stage a producer waits for an empty buffer and issues TMA
// loads of A and B; the consumer warpgroups wait for the full buffer, then
// take turns on the tensor core (a WGMMA each, handed on through a named
// barrier: order edges), and release the buffer. Constraints: the
// consumer's wait, MMAs and barriers of one stage share a pipeline stage
// (leader group), and the producer's loads run at most `stages` - 1
// pipeline stages deep (max depth).
StatusOr<Graph> build_warp_specialized(int ops, uint64_t seed, const ParamMap& p) {
  const Instance in(seed, p);
  const int consumers = static_cast<int>(param(p, "consumers"));
  const int64_t stages = param(p, "stages");
  StatusOr<int> units = units_for("warp_specialized", ops, 0, 5 + 2 * consumers);
  if (!units.ok()) return units.status();
  Kernel k(2, in.latencies);
  std::vector<std::vector<OpId>> accum(static_cast<size_t>(consumers));
  OpId first_mma = -1, last_sync = -1;
  for (int u = 0; u < *units; ++u) {
    const OpId empty = k.op("empty_wait", u, "mbarrier_wait");
    const OpId a = tma_tile(k, "load_a", u, p);
    const OpId b = tma_tile(k, "load_b", u, p);
    k.order(empty, {a, b});
    const OpId full = wait_for(k, "full_wait", u, {a, b});
    k.at(a).max_depth = stages - 1;
    k.at(b).max_depth = stages - 1;
    k.lead_group(full, u);
    std::vector<OpId> mmas;
    for (int c = 0; c < consumers; ++c) {
      const OpId mma = k.op("mma_c" + std::to_string(c) + "_", u, "wgmma");
      const OpId sync = k.op("sync_c" + std::to_string(c) + "_", u, "named_barrier");
      issue_after(k, full, mma, {a, b});
      k.order(mma, sync);
      if (last_sync >= 0) k.order(last_sync, mma);  // the tensor core changes hands
      k.lead_group(mma, u);
      k.lead_group(sync, u);
      if (first_mma < 0) first_mma = mma;
      last_sync = sync;
      accum[c].push_back(mma);
      mmas.push_back(mma);
    }
    free_stage(k, "release", u, mmas, {empty}, stages);
  }
  k.order(last_sync, first_mma, 1);
  for (const std::vector<OpId>& chain : accum) recurrence(k, chain);
  return k.build("stages_unrolled=" + std::to_string(*units));
}

}  // namespace tilesched::graphgen::detail
