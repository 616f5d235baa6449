// The stage floor of the resources (docs/EXACT.md, "The stage floor"): a
// lower bound on the stage count at one II proven without a solver. With
// at most S stages every op starts within [ASAP_v, latest start with S
// stages]; a slot or rate pool whose holds fill (nearly) every row of the
// II then cannot carry them when the windows leave some rows out of every
// hold's reach. An energy argument per row, as in the one-machine
// relaxations of cumulative scheduling (Baptiste, Le Pape and Nuijten,
// "Constraint-Based Scheduling", 2001, ch. 3), on the circle of II rows.
#include "stage_floor.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "holds.h"
#include "query.h"

namespace tilesched::exact_internal {

namespace {

// Whether the rows can carry one slot's or rate pool's holds at II (split
// into full turns and arcs) when op v starts within [lo_v, hi_v]: row q
// carries at most the capacity (less the full turns) and at most the
// amounts of the arcs that can cover q, and the rows together carry every
// arc. `load` is scratch of II + 1 entries.
bool rows_can_carry(const ModuloHolds& split, int64_t capacity, int64_t ii,
                    const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                    std::vector<int64_t>& load) {
  if (split.over) return false;
  if (split.base + split.arcs_total <= capacity) return true;
  const int64_t room = capacity - split.base;
  std::fill(load.begin(), load.end(), 0);
  int64_t need = 0;
  auto add = [&](int64_t first, int64_t last, int64_t amount) {  // rows [first, last)
    load[first] += amount;
    load[last] -= amount;
  };
  for (const Hold& h : split.arcs) {
    const int64_t starts = hi[h.op] - lo[h.op] + 1;
    if (starts <= 0) return false;
    need += h.amount * h.duration;
    // The start rows form the cyclic interval of `starts` rows from lo's
    // row; the arc covers `duration` rows from its start row.
    const int64_t reach = std::min(ii, starts + h.duration - 1);
    const int64_t first = lo[h.op] % ii;
    add(first, std::min(ii, first + reach), h.amount);
    if (first + reach > ii) add(0, first + reach - ii, h.amount);
  }
  int64_t have = 0, running = 0;
  for (int64_t q = 0; q < ii; ++q) {
    running += load[q];
    have += std::min(room, running);
  }
  return have >= need;
}

}  // namespace

std::optional<int64_t> resource_stage_floor(const Graph& g, int64_t ii,
                                            const std::vector<int64_t>& asap,
                                            const std::vector<int64_t>& tail, int64_t from,
                                            int64_t to) {
  std::vector<std::pair<ModuloHolds, int64_t>> splits;  // with the capacity
  for (const CapacityHolds& c : capacity_holds(g)) {
    splits.emplace_back(split_modulo(c.holds, ii, c.capacity), c.capacity);
  }
  std::vector<int64_t> hi(g.op_count()), load(ii + 1);
  ModelSpec spec;
  spec.ii = ii;
  spec.tail = tail;
  // The windows only grow with S, so whether the rows carry the holds is
  // monotone in S: bisection.
  auto fits = [&](int64_t stages) {
    spec.stage_bound = stages;
    for (OpId v = 0; v < g.op_count(); ++v) hi[v] = latest_start(g, spec, v);
    return std::all_of(splits.begin(), splits.end(), [&](const auto& s) {
      return rows_can_carry(s.first, s.second, ii, asap, hi, load);
    });
  };
  if (from > to || !fits(to)) return std::nullopt;
  while (from < to) {
    const int64_t mid = from + (to - from) / 2;
    if (fits(mid)) {
      to = mid;
    } else {
      from = mid + 1;
    }
  }
  return from;
}

}  // namespace tilesched::exact_internal
