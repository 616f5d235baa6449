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
  int64_t total = 0;  // <= kMaxOps * kMaxPoolCapacity: no overflow
  for (const Op& op : g.ops) total += op.store_bytes;
  if (total > g.target.pools[*pool].capacity) return total;
  return std::nullopt;
}

std::string stores_over_storage_diagnostic(const Graph& g, int64_t total) {
  return "store_bytes add up to " + std::to_string(total) + ", more than the storage pool's " +
         std::to_string(g.target.pools[*g.target.storage_pool()].capacity) +
         " bytes: L4 fails at every II";
}

}  // namespace tilesched
