// Register pressure off the seats (see registers.h).
#include "registers.h"

#include <algorithm>

namespace tilesched::cost_based {

int64_t live_end(const Placement& p, OpId u) { return p.live_end(u); }

int64_t register_pressure(const Placement& p, int64_t row) {
  return p.register_rows().at(row);  // kept by the placement as seats change
}

int64_t register_pressure_by_walk(const Placement& p, int64_t row) {
  const int64_t ii = p.ii();
  int64_t total = 0;
  for (OpId u : p.placed_ops()) {
    const int64_t regs = p.ctx().regs[u];
    if (regs == 0) continue;
    const int64_t from = p.start(u), len = live_end(p, u) - from;
    // Cycles of [from, from + len) that fall on `row`.
    const int64_t offset = ((row - from) % ii + ii) % ii;
    total += regs * (len / ii + (offset < len % ii ? 1 : 0));
  }
  return total;
}

}  // namespace tilesched::cost_based
