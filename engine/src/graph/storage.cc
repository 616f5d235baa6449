// L4 for the generators (see storage.h).
#include "storage.h"

#include <algorithm>

namespace tilesched {

int64_t buffer_copies(const Graph& g, const Adjacency& adj, const std::vector<int64_t>& start,
                      int64_t ii, OpId v) {
  int64_t lifetime = 1;
  for (int p = adj.out_begin[v]; p < adj.out_begin[v + 1]; ++p) {
    const Edge& e = g.edges[adj.out_edges[p]];
    if (e.kind != EdgeKind::kData) continue;
    lifetime = std::max(lifetime, start[e.to] + e.distance * ii +
                                      footprint_duration(g.ops[e.to]) - start[v]);
  }
  return (lifetime + ii - 1) / ii;
}

int64_t storage_bytes_needed(const Graph& g, const Adjacency& adj,
                             const std::vector<int64_t>& start, int64_t ii, int64_t cap) {
  int64_t total = 0;
  for (OpId v = 0; v < g.op_count() && total <= cap; ++v) {
    if (g.ops[v].store_bytes == 0) continue;
    total += g.ops[v].store_bytes * buffer_copies(g, adj, start, ii, v);
  }
  return total;
}

std::optional<int64_t> stores_over_storage(const Graph& g) {
  const std::optional<int> pool = g.target.storage_pool();
  if (!pool) return std::nullopt;
  std::vector<int64_t> copies(g.ops.size(), 1);
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData || e.from != e.to || e.distance == 0) continue;
    // lifetime d * II + D_v with D_v = footprint_duration >= 1
    copies[e.from] = std::max(copies[e.from], e.distance + 1);
  }
  // bytes <= kMaxPoolCapacity (2^40) times copies <= kMaxDistance + 1 (2^16 + 1)
  // stays below 2^57, so saturating at 2^62 cannot overflow.
  constexpr int64_t kSaturated = int64_t{1} << 62;
  int64_t total = 0;
  for (OpId v = 0; v < g.op_count(); ++v) {
    total = std::min(kSaturated, total + g.ops[v].store_bytes * copies[v]);
  }
  if (total > g.target.pools[*pool].capacity) return total;
  return std::nullopt;
}

std::string stores_over_storage_diagnostic(const Graph& g, int64_t total) {
  return "the stores need " + std::to_string(total) +
         " bytes at every II (each buffer once, or d + 1 times where its own op reads it d "
         "iterations later), more than the storage pool's " +
         std::to_string(g.target.pools[*g.target.storage_pool()].capacity) +
         " bytes: L4 fails at every II";
}

}  // namespace tilesched
