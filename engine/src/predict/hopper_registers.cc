// Registers per thread estimated from a loop graph
// (tilesched/hopper_registers.h): a liveness sweep in program order.
#include "tilesched/hopper_registers.h"

#include <algorithm>
#include <vector>

#include "tilesched/hopper.h"

namespace tilesched::hopper {

int64_t register_liveness_peak(const Graph& g) {
  const int n = g.op_count();
  std::vector<int> last_same(n, -1), last_next(n, -1);  // readers, by iteration
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData) continue;
    int& last = e.distance >= 1 ? last_next[e.from] : last_same[e.from];
    last = std::max(last, e.to);
  }
  // delta[p]: the change of the live sum between point p - 1 and point p,
  // where point p follows op p - 1 (point 0 is the top of the body).
  std::vector<int64_t> delta(n + 2, 0);
  auto alive = [&](int from, int to, int64_t regs) {  // points from..to, inclusive
    if (from > to) return;
    delta[from] += regs;
    delta[to + 1] -= regs;
  };
  for (int v = 0; v < n; ++v) {
    const int64_t regs = g.ops[v].kind == "address" ? 0 : g.ops[v].registers;
    if (regs <= 0) continue;
    if (last_next[v] >= 0) {
      alive(v + 1, n, regs);            // from its op to the end of the body
      alive(0, last_next[v], regs);     // from the top to its last reader
    } else if (last_same[v] > v) {
      alive(v + 1, last_same[v], regs); // between its op and its last reader
    }
  }
  int64_t live = 0, peak = 0;
  for (int p = 0; p <= n; ++p) {
    live += delta[p];
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t estimated_registers(const Graph& g) {
  return std::min<int64_t>(register_liveness_peak(g) + kRegisterOverhead, kMaxRegistersPerThread);
}

}  // namespace tilesched::hopper
