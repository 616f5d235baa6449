#include "graph/reachability.h"

#include <span>

namespace tilesched {

Reachability::Reachability(const Graph& g, const Adjacency& adj)
    : comp_(strongly_connected(g, adj, EdgeFilter::kAll)) {
  const int n = g.op_count();
  words_ = (static_cast<size_t>(n) + 63) / 64;
  cyclic_.assign(comp_.count, 0);
  rows_.assign(static_cast<size_t>(comp_.count) * words_, 0);
  const ComponentMembers members = component_members(comp_);
  std::vector<int> merged_into(comp_.count, -1);  // per component: the last row it was ORed into
  // Tarjan numbers the components sinks first: an edge between two
  // components runs from a higher id to a lower one, so every row a
  // component ORs in is complete when it is read.
  for (int c = 0; c < comp_.count; ++c) {
    uint64_t* row = &rows_[static_cast<size_t>(c) * words_];
    const std::span<const OpId> ops = members.of(c);
    if (ops.size() > 1) cyclic_[c] = 1;
    for (OpId x : ops) {
      row[x >> 6] |= uint64_t{1} << (x & 63);
      for (int p = adj.out_begin[x]; p < adj.out_begin[x + 1]; ++p) {
        const OpId y = g.edges[adj.out_edges[p]].to;
        const int d = comp_.component[y];
        ++build_work_;
        if (d == c) {
          if (y == x) cyclic_[c] = 1;
          continue;
        }
        if (merged_into[d] == c) continue;
        merged_into[d] = c;
        const uint64_t* from = &rows_[static_cast<size_t>(d) * words_];
        for (size_t w = 0; w < words_; ++w) row[w] |= from[w];
        build_work_ += static_cast<int64_t>(words_);
      }
    }
  }
}

}  // namespace tilesched
