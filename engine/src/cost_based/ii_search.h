// The II search of the cost-based generator (seed 004 "II Search", linear;
// seed 000's exponential-then-binary driver, galloping): the range it
// searches and the search itself, one placement attempt per II probed.
#pragma once

#include <cstdint>
#include <optional>

#include "../search.h"
#include "context.h"

namespace tilesched::cost_based {

struct IiRange {
  int64_t lower = 1;  // max(MII, the groups' span bound)
  int64_t cap = 0;    // --ii-cap, else the serial II, else the sequential cap
};

// The range: the cap defaults to the serial II when the serial schedule is
// legal (never worse than serial), and the RRT bounds it.
IiRange ii_range(const Context& ctx, const Schedule& serial);

// Searches the range with `attempt` (a placement attempt at one II), as
// `how` says. On success the table holds the found II's placement (the
// galloping search re-runs the II it settles on).
std::optional<int64_t> search_ii(IiSearch how, const IiRange& range, const SearchProbe& attempt);

}  // namespace tilesched::cost_based
