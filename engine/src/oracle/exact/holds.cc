// What the slots and rate pools carry at an II (holds.h).
#include "holds.h"

#include <utility>

namespace tilesched::exact_internal {

ModuloHolds split_modulo(const std::vector<Hold>& holds, int64_t ii, int64_t capacity) {
  ModuloHolds m;
  for (const Hold& h : holds) {
    if (h.duration <= 0 || h.amount <= 0) continue;
    m.base += h.amount * (h.duration / ii);
    if (h.duration % ii != 0) {
      m.arcs.push_back({h.op, h.duration % ii, h.amount});
      m.arcs_total += h.amount;
    }
    if (m.base > capacity) {
      m.over = true;
      return m;
    }
  }
  return m;
}

std::vector<CapacityHolds> capacity_holds(const Graph& g) {
  std::vector<CapacityHolds> slots(g.target.slot_count()), pools(g.target.pools.size());
  for (OpId v = 0; v < g.op_count(); ++v) {
    for (const Triple& t : g.ops[v].resources) {
      if (t.duration > 0 && t.occupancy > 0) {
        slots[t.slot - 1].holds.push_back({v, t.duration, t.occupancy});
      }
    }
    for (const PoolUse& p : g.ops[v].pools) {  // rate pools hold for D_v
      if (p.count > 0) pools[p.pool].holds.push_back({v, footprint_duration(g.ops[v]), p.count});
    }
  }
  std::vector<CapacityHolds> out;
  for (size_t j = 0; j < slots.size(); ++j) {
    if (slots[j].holds.empty()) continue;
    slots[j].capacity = g.target.slots[j].capacity;
    out.push_back(std::move(slots[j]));
  }
  for (size_t p = 0; p < pools.size(); ++p) {
    if (g.target.pools[p].kind != PoolKind::kRate || pools[p].holds.empty()) continue;
    pools[p].capacity = g.target.pools[p].capacity;
    pools[p].slot = false;
    out.push_back(std::move(pools[p]));
  }
  return out;
}

}  // namespace tilesched::exact_internal
