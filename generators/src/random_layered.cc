// The random layered loop-graph family (see random_layered.h).
#include "tilesched/graphgen/random_layered.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilesched/graph_builder.h"
#include "tilesched/limits.h"
#include "tilesched/rng.h"
#include "family_util.h"

namespace tilesched::graphgen {

namespace {

Status check(const LayeredParams& p) {
  auto bad = [](const std::string& what) { return Status::InvalidInput("random_layered: " + what); };
  if (p.ops < 1 || p.ops > limits::kMaxOps) {
    return bad("ops " + std::to_string(p.ops) + " is out of range 1.." +
               std::to_string(limits::kMaxOps));
  }
  if (p.layers < 0) return bad("layers must be >= 0");
  if (p.edge_per_mille < 0 || p.edge_per_mille > 1000) return bad("edge_per_mille must be 0..1000");
  if (p.back_edge_per_mille < 0 || p.back_edge_per_mille > 1000) {
    return bad("back_edge_per_mille must be 0..1000");
  }
  if (p.max_fan_in < 1) return bad("max_fan_in must be >= 1");
  return Status::Ok();
}

// First op id of each layer, and one past the last op: every layer gets
// one op, the rest fall into random layers. Op ids run layer by layer, so
// program order is a topological order.
std::vector<int> layer_begins(const LayeredParams& p, SplitMix64& rng) {
  const int n = p.ops;
  const int layers =
      p.layers > 0 ? std::min(p.layers, n)
                   : std::max(1, static_cast<int>(std::lround(std::sqrt(static_cast<double>(n)))));
  std::vector<int> size(static_cast<size_t>(layers), 1);
  for (int i = layers; i < n; ++i) ++size[static_cast<size_t>(rng.uniform(0, layers - 1))];
  std::vector<int> begin(static_cast<size_t>(layers) + 1, 0);
  for (int l = 0; l < layers; ++l) begin[l + 1] = begin[l] + size[l];
  return begin;
}

// Forward edges: candidates from the previous layer in random order, then
// at a quarter of the rate from the one before, up to max_fan_in. An op
// that drew none from the previous layer gets one, so each layer hangs on
// the one before it. Returns how many edges it added.
int64_t add_forward_edges(GraphBuilder& b, const std::vector<int>& begin, const LayeredParams& p,
                          SplitMix64& rng) {
  const int layers = static_cast<int>(begin.size()) - 1;
  int64_t forward = 0;
  std::vector<OpId> candidates;
  auto add_forward = [&](OpId u, OpId v) {
    if (rng.chance_per_mille(60)) {
      b.edge(u, v, 0, 0, EdgeKind::kOrder);  // a WAR-style ordering
    } else {
      b.edge(u, v);
    }
    ++forward;
  };
  for (int l = 1; l < layers; ++l) {
    for (OpId v = begin[l]; v < begin[l + 1]; ++v) {
      int fan_in = 0;
      for (int back_by = 1; back_by <= 2 && l - back_by >= 0; ++back_by) {
        const int from = l - back_by;
        candidates.clear();
        for (OpId u = begin[from]; u < begin[from + 1]; ++u) candidates.push_back(u);
        rng.shuffle(candidates);
        const int64_t rate = back_by == 1 ? p.edge_per_mille : p.edge_per_mille / 4;
        for (OpId u : candidates) {
          if (fan_in == p.max_fan_in) break;
          if (!rng.chance_per_mille(rate)) continue;
          add_forward(u, v);
          ++fan_in;
        }
        if (back_by == 1 && fan_in == 0) {
          add_forward(candidates[static_cast<size_t>(
                          rng.uniform(0, static_cast<int64_t>(candidates.size()) - 1))],
                      v);
          ++fan_in;
        }
      }
    }
  }
  return forward;
}

// Loop-carried edges: from an op to itself or an earlier op, 1..3
// iterations later, with the source's latency (a recurrence),
// back_edge_per_mille of `forward` of them. Returns the longest distance
// each op is read at.
std::vector<int64_t> add_carried_edges(GraphBuilder& b, int n, int64_t forward,
                                       const LayeredParams& p, SplitMix64& rng) {
  const int64_t back = (forward * p.back_edge_per_mille + 500) / 1000;
  std::vector<int64_t> carried(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < back; ++i) {
    const OpId v = static_cast<OpId>(rng.uniform(0, n - 1));
    const OpId u = static_cast<OpId>(rng.uniform(0, v));
    const int64_t distance = rng.uniform(1, 3);
    b.edge(v, u, std::nullopt, distance);
    carried[v] = std::max(carried[v], distance);
  }
  return carried;
}

// SMEM buffers share the budget. A buffer read `d` iterations later is
// live in d + 1 overlapped iterations at once (rule L4,
// docs/CONTRACT.md), so it counts d + 1 times; each gets at most an equal
// share of what is left. The serial schedule's II covers the makespan, so
// it needs no more.
void share_smem(GraphBuilder& b, const std::vector<OpId>& writes,
                const std::vector<int64_t>& carried, SplitMix64& rng) {
  if (writes.empty()) return;
  const std::optional<int> pool = blackwell_target().storage_pool();
  const int64_t budget = pool ? blackwell_target().pools[*pool].capacity : 0;
  int64_t copies = 0;
  for (OpId w : writes) copies += 1 + carried[w];
  const int64_t share = std::min<int64_t>(32768, budget / copies);
  for (OpId w : writes) {
    b.at(w).store_bytes = share >= 1 ? rng.uniform(std::max<int64_t>(1, share / 2), share) : 0;
  }
}

}  // namespace

StatusOr<Graph> random_layered(const LayeredParams& p) {
  if (Status s = check(p); !s.ok()) return s;
  SplitMix64 rng(p.seed);
  const int n = p.ops;
  const std::vector<int> begin = layer_begins(p, rng);
  GraphBuilder b(blackwell_target(), "layered-" + std::to_string(n) + "-s" + std::to_string(p.seed));
  std::vector<OpId> writes;
  for (int v = 0; v < n; ++v) {
    const std::string_view kind = detail::pick(rng, detail::kTileMix);
    const OpId id = b.op("n" + std::to_string(v), std::string(kind));
    if (kind == "smem_write") writes.push_back(id);
  }
  const int64_t forward = add_forward_edges(b, begin, p, rng);
  share_smem(b, writes, add_carried_edges(b, n, forward, p, rng), rng);
  return std::move(b).build();
}

}  // namespace tilesched::graphgen
