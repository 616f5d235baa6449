// The II search of the cost-based generator (see ii_search.h).
#include "ii_search.h"

#include <algorithm>

#include "../rrt.h"

namespace tilesched::cost_based {

IiRange ii_range(const Context& ctx, const Schedule& serial) {
  IiRange r;
  r.lower = std::max(ctx.mii.max(), ctx.group_span_bound);
  r.cap = ctx.opts.ii_cap;
  if (r.cap == 0) r.cap = serial.feasible ? serial.ii : sequential_ii_cap(ctx.g, r.lower);
  r.cap = std::min(r.cap, ModuloRrt::kMaxRrtII);
  return r;
}

// Without this check the search tried every II up to the cap, each through
// the whole strategy ladder, and then reported kIiCapReached (found by
// fuzz_materialize; fuzz/regressions/fuzz_materialize/stores-exceed-smem-every-ii).
std::optional<int64_t> stores_over_storage(const Graph& g) {
  const std::optional<int> pool = g.target.storage_pool();
  if (!pool) return std::nullopt;
  int64_t total = 0;  // <= kMaxOps * kMaxPoolCapacity: no overflow
  for (const Op& op : g.ops) total += op.store_bytes;
  if (total > g.target.pools[*pool].capacity) return total;
  return std::nullopt;
}

std::optional<int64_t> search_ii(IiSearch how, const IiRange& range, const SearchProbe& attempt) {
  if (range.lower > range.cap) return std::nullopt;
  if (how == IiSearch::kLinear) return linear_search(attempt, range.lower, range.cap);
  std::optional<int64_t> found = gallop_then_bisect(attempt, range.lower, range.cap);
  if (found && !attempt(*found)) found.reset();  // restore the winning placement
  return found;
}

}  // namespace tilesched::cost_based
