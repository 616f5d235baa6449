// The resource reservation table (seeds 002 and 004): per-op footprints
// lowered from resource vectors, and the global modulo table with
// probe-before-commit and release.
//
// Singleton slots (capacity 1) are bits of one 64-bit row per cycle; pooled
// slots and rate pools are occupancy counters per modulo row, in flat
// arrays. Probing never allocates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/target.h"

namespace tilesched {

// An op's footprint (seed 002, lower_resource_vector): singleton bits
// OR-folded per cycle, duration = the longest triple.
struct NodeRrt {
  int64_t duration = 0;            // max over triples; 0 when it has none
  int64_t footprint = 1;           // pools are held this long: max(1, duration)
  std::vector<uint64_t> rows;      // singleton-slot bits for cycles [0, duration)
  std::vector<Triple> pooled;      // triples on slots with capacity > 1
  std::vector<PoolUse> pools;      // rate-pool uses
  std::vector<Triple> triples;     // the resource vector, for diagnostics
  int64_t longest_singleton = 0;   // longest triple on a singleton slot

  static NodeRrt lower(const Op& op, const Target& target);
};

// What a failed probe collided with (seed 002: "it prints the triple that
// caused the conflict together with the global RRT row").
struct RrtConflict {
  enum class Kind { kSingletonRow, kSelfOverlap, kPooledSlot, kRatePool };
  Kind kind = Kind::kSingletonRow;
  int triple = 0;         // index into NodeRrt::triples (slot conflicts only)
  int slot = 0;           // one-based slot (slot conflicts only)
  int pool = 0;           // pool index (kRatePool only)
  int64_t row = 0;        // modulo row where it collided
  uint64_t global_row = 0;  // the singleton bits of that row
  int64_t used = 0;       // units already held in that row
  int64_t requested = 0;  // units the op adds there
  int64_t capacity = 0;
  std::string describe(const Target& target, const NodeRrt& node, int64_t ii) const;
};

class ModuloRrt {
 public:
  explicit ModuloRrt(const Target& target);

  // Empties the table for a new II. REQUIRES: 1 <= ii <= kMaxRrtII.
  void reset(int64_t ii);
  int64_t ii() const { return ii_; }

  // True when `node` started at `start` fits; otherwise fills *why.
  bool probe(const NodeRrt& node, int64_t start, RrtConflict* why = nullptr) const;
  // REQUIRES: probe(node, start) is true.
  void commit(const NodeRrt& node, int64_t start);
  // REQUIRES: the same node was committed at the same start.
  void release(const NodeRrt& node, int64_t start);

  uint64_t row(int64_t r) const { return rows_[r]; }
  int64_t slot_usage(int slot, int64_t row) const;
  int64_t pool_usage(int pool, int64_t row) const;

  static constexpr int64_t kMaxRrtII = int64_t{1} << 22;

 private:
  // How many of the cycles [start, start + duration) fall on modulo row r.
  int64_t hits(int64_t start, int64_t duration, int64_t r) const;
  void apply(const NodeRrt& node, int64_t start, int64_t sign);

  const Target* target_;
  int64_t ii_ = 0;
  int counters_per_row_ = 0;
  static constexpr int kNoCounter = -1;
  std::vector<int> counter_of_slot_;   // by slot - 1; kNoCounter for singletons
  std::vector<int> counter_of_pool_;   // by pool index; kNoCounter unless a rate pool
  std::vector<uint64_t> rows_;         // singleton bits per modulo row
  std::vector<int64_t> counters_;      // [row * counters_per_row_ + counter]
};

}  // namespace tilesched
