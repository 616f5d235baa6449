// Targets: the slots an op's resource vector claims, the capacity pools, and
// the op kinds with their default encodings (seed 002, "Slot Encoding" and
// "Concrete Encodings"). Slots are one-based, as in the seeds: slot s owns
// bit 1 << (s - 1) of a 64-bit RRT row. docs/TARGETS.md tabulates the
// Blackwell model and marks which numbers come from the seeds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilesched {

// One (slot, duration, occupancy) triple of a resource vector (seed 002).
struct Triple {
  int slot = 0;            // one-based slot id
  int64_t duration = 0;    // cycles the slot is held from the op's start
  int64_t occupancy = 1;   // units of the slot held; 1 on singleton slots
  friend bool operator==(const Triple&, const Triple&) = default;
};

// Pressure on a capacity pool, held for the op's whole footprint duration.
struct PoolUse {
  int pool = 0;            // zero-based index into Target::pools
  int64_t count = 0;
  friend bool operator==(const PoolUse&, const PoolUse&) = default;
};

struct Slot {
  std::string name;
  int64_t capacity = 1;    // 1: singleton (a bit in the RRT row); >1: pooled (a counter)
  bool from_seed = false;  // the seeds fix this slot; otherwise it is our choice
  friend bool operator==(const Slot&, const Slot&) = default;
};

enum class PoolKind {
  kRate,     // L3: per modulo row, like a pooled slot (TMEM banks, named barriers)
  kStorage,  // L4: bytes held for a buffer's lifetime (SMEM); fed by store_bytes
  kSlot,     // the capacity of a pooled slot (Blackwell pool 4 = slot 15's capacity)
};

struct Pool {
  std::string name;
  PoolKind kind = PoolKind::kRate;
  int64_t capacity = 1;
  int bound_slot = 0;      // for PoolKind::kSlot: the one-based slot it sizes
  bool from_seed = false;
  friend bool operator==(const Pool&, const Pool&) = default;
};

// Default encoding of an op kind. Any field can be overridden per op.
struct OpKind {
  std::string name;
  int64_t latency = 1;
  std::vector<Triple> resources;
  std::vector<PoolUse> pools;
  int64_t registers = 0;   // registers per thread its value holds (spill model)
  bool async = false;      // async pipeline op (cp.async, TMEM copies, barriers' async side)
  bool tma = false;
  bool wgmma = false;      // WGMMA or tcgen05 MMA
  bool waits = false;      // a barrier wait: an order edge from it guards the op it precedes
  bool from_seed = false;  // encoding and latency given by seed 002
  std::string_view summary;
};

inline uint64_t slot_bit(int one_based_slot) {
  return uint64_t{1} << (one_based_slot - 1);
}

struct Target;

// The bank model of the cost evaluators' bank-pressure term (seed 000): the
// slots whose holders count as bank occupants, and the pools whose
// capacities cap the in-iteration and the cross-iteration occupants.
struct BankModel {
  uint64_t singleton_slots = 0;  // slot_bit()s of singleton bank slots
  uint64_t pooled_slots = 0;     // slot_bit()s of pooled bank slots
  int in_iteration_pool = 0;     // index into Target::pools
  int cross_iteration_pool = 0;  // index into Target::pools

  // True when the triple holds a bank slot of `target`.
  bool holds(const Target& target, const Triple& t) const;
};

struct Target {
  std::string name;        // "blackwell", "hopper" or the inline target's name
  bool builtin = false;    // true: written as a plain string in graph JSON
  std::vector<Slot> slots; // slots[s - 1] is slot s
  std::vector<Pool> pools;
  std::vector<OpKind> kinds;  // "generic" is always present
  // Registers per thread the spill model allows before it surcharges a
  // seat (seed 002); 0 turns the model off.
  int64_t register_budget = 0;
  // The bank-pressure evaluator's model; none turns the term off. Like the
  // kinds, it derives from the target's identity (operator== skips it).
  std::optional<BankModel> bank_model;

  int slot_count() const { return static_cast<int>(slots.size()); }
  const Slot& slot(int one_based) const { return slots[one_based - 1]; }
  // One-based slot id by name, or nullopt.
  std::optional<int> find_slot(std::string_view name) const;
  std::optional<int> find_pool(std::string_view name) const;
  const OpKind* find_kind(std::string_view name) const;
  // Index of the storage pool that store_bytes charges, if the target has one.
  std::optional<int> storage_pool() const;

  friend bool operator==(const Target& a, const Target& b);
};


// The seeds' Blackwell model: 24 slots, the 9-entry pool capacity vector.
const Target& blackwell_target();

// The Hopper model (H100/H200, sm_90): one pooled slot per throughput unit
// of an SM, shared memory per block as the storage pool; tilesched/hopper.h
// has its numbers and the cost of a tile op, docs/TARGETS.md their sources
// (built in engine/src/model/hopper_target.cc).
const Target& hopper_target();

// The `generic` kind every target has: explicit latency, resources, pools.
OpKind generic_kind();

// A built-in target by name ("blackwell", "hopper"), or nullptr.
const Target* find_builtin_target(std::string_view name);
// "blackwell, hopper": the built-in targets' names, for messages.
std::string builtin_target_names();

// An inline generic target: named slots and pools; only the `generic` kind.
Target make_generic_target(std::string name, std::vector<Slot> slots,
                           std::vector<Pool> pools, int64_t register_budget = 0);

std::string_view pool_kind_name(PoolKind kind);

}  // namespace tilesched
