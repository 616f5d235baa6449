// What the slots and rate pools carry at an II (docs/EXACT.md,
// "Formulation", L2 and L3): each holder's hold, split into the full turns
// of the II and the partial arcs, per slot and rate pool. The encodings
// and the stage floor read them. Internal to the engine.
#pragma once

#include <cstdint>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::exact_internal {

// One op's hold of a slot or pool: `amount` units for `duration` cycles
// from its start.
struct Hold {
  OpId op;
  int64_t duration;
  int64_t amount;
};

// L2/L3 on one slot or pool at II: full turns of the II load every row
// alike (`base`); the partial arcs, duration mod II rows each, are what
// varies from row to row. `over`: the base alone exceeds the capacity (no
// placement fits). Holds of no duration or amount are left out.
struct ModuloHolds {
  int64_t base = 0;
  int64_t arcs_total = 0;  // the arcs' amounts together
  std::vector<Hold> arcs;
  bool over = false;
};
ModuloHolds split_modulo(const std::vector<Hold>& holds, int64_t ii, int64_t capacity);

// The holds of one singleton or pooled slot (L2) or rate pool (L3, each
// held for the holder's footprint duration D_v), with its capacity.
struct CapacityHolds {
  std::vector<Hold> holds;
  int64_t capacity = 0;
  bool slot = true;  // false: a rate pool
};
// Every slot and rate pool that some op holds, slots first, in id order.
std::vector<CapacityHolds> capacity_holds(const Graph& g);

}  // namespace tilesched::exact_internal
