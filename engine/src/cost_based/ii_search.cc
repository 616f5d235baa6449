// The II search of the cost-based generator (see ii_search.h).
#include "ii_search.h"

#include <algorithm>

#include "../rrt.h"

namespace tilesched::cost_based {

IiRange ii_range(const Context& ctx, const Schedule& serial) {
  IiRange r;
  r.lower = heuristic_ii_lower(ctx.g, ctx.mii.max(), ctx.group_span_bound);
  r.cap = heuristic_ii_cap(ctx.g, r.lower, ctx.opts.ii_cap, serial);
  return r;
}

std::optional<int64_t> search_ii(IiSearch how, const IiRange& range, const SearchProbe& attempt) {
  if (range.lower > range.cap) return std::nullopt;
  if (how == IiSearch::kLinear) return linear_search(attempt, range.lower, range.cap);
  std::optional<int64_t> found = gallop_then_bisect(attempt, range.lower, range.cap);
  if (found && !attempt(*found)) found.reset();  // restore the winning placement
  return found;
}

}  // namespace tilesched::cost_based
