// The resource reservation table (seeds 002 and 004; rules L2/L3 of
// docs/CONTRACT.md): per-op footprints lowered from resource vectors, and
// the global modulo table with probe-before-commit and release.
//
// Singleton slots (capacity 1) are bits of one 64-bit row per cycle; pooled
// slots (capacity > 1) and rate pools are occupancy counters per modulo row,
// in flat arrays. Storage pools (L4) are not part of the table. Probing,
// committing and releasing never allocate. docs/BOUNDS.md describes the
// representation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/target.h"

namespace tilesched {

// An op's footprint (seed 002, lower_resource_vector): singleton bits
// OR-folded per cycle, duration = the longest triple.
//
// Every triple holds its slot from the op's start, so the rows are nested:
// rows[k + 1] is a subset of rows[k]. Built only by lower().
struct NodeRrt {
  int64_t duration = 0;            // max over triples; 0 when it has none
  int64_t footprint = 1;           // pools are held this long: max(1, duration)
  std::vector<uint64_t> rows;      // singleton-slot bits for cycles [0, duration)
  std::vector<Triple> pooled;      // triples on slots with capacity > 1
  std::vector<PoolUse> pools;      // rate-pool uses (storage pools left out)
  std::vector<Triple> triples;     // the resource vector, for diagnostics
  int64_t longest_singleton = 0;   // longest triple on a singleton slot

  // REQUIRES: op passed validate_graph against `target` (slots in range, at
  // most one triple per slot, pool indices in range).
  static NodeRrt lower(const Op& op, const Target& target);
};

// What a failed probe collided with (seed 002: "it prints the triple that
// caused the conflict together with the global RRT row"). A probe reports
// the first conflict in triple order, then cycle order; rate pools follow
// the triples, in the op's pool order.
struct RrtConflict {
  enum class Kind {
    kSingletonRow,  // a singleton slot's bit is already set in that row
    kSelfOverlap,   // a singleton triple longer than II meets itself
    kPooledSlot,    // a pooled slot's counter would exceed its capacity
    kRatePool,      // a rate pool's counter would exceed its capacity
  };
  Kind kind = Kind::kSingletonRow;
  int triple = 0;         // index into NodeRrt::triples (slot conflicts only)
  int slot = 0;           // one-based slot (slot conflicts only)
  int pool = 0;           // pool index (kRatePool only)
  int64_t row = 0;        // modulo row where it collided
  uint64_t global_row = 0;  // the singleton bits of that row
  int64_t used = 0;       // units already held in that row (counters only)
  int64_t requested = 0;  // units the op adds there (counters only)
  int64_t capacity = 0;   // the slot's or pool's capacity (counters only)

  // One line, e.g. "triple (slot 16 tp_smem_wr, duration 7, occupancy 1)
  // collides at modulo row 0 of II 8: global row 0x0000000000008800".
  std::string describe(const Target& target, const NodeRrt& node, int64_t ii) const;
};

class ModuloRrt {
 public:
  // Keeps a reference to `target`, which must outlive the table.
  explicit ModuloRrt(const Target& target);

  // Empties the table for a new II, reusing its storage.
  // REQUIRES: 1 <= ii <= kMaxRrtII.
  void reset(int64_t ii);
  int64_t ii() const { return ii_; }

  // True when `node` started at `start` fits; otherwise fills *why (when
  // not null). REQUIRES: reset() was called; start >= 0.
  bool probe(const NodeRrt& node, int64_t start, RrtConflict* why = nullptr) const;
  // The first start in [lo, hi] where `node` fits, or -1: the earliest-seat
  // scan, one modulo division for the whole range. REQUIRES: 0 <= lo.
  int64_t first_fit(const NodeRrt& node, int64_t lo, int64_t hi) const;
  // REQUIRES: probe(node, start) is true.
  void commit(const NodeRrt& node, int64_t start);
  // REQUIRES: the same node was committed at the same start.
  void release(const NodeRrt& node, int64_t start);

  // The singleton bits of modulo row r. REQUIRES: 0 <= r < ii().
  uint64_t row(int64_t r) const { return rows_[r]; }
  // Units of a slot held in modulo row r (0 or 1 for a singleton slot).
  int64_t slot_usage(int slot, int64_t row) const;
  // Units of a pool held in modulo row r: rate pools; a kSlot pool reports
  // its slot; storage pools are not tracked here and report 0.
  int64_t pool_usage(int pool, int64_t row) const;

  static constexpr int64_t kMaxRrtII = int64_t{1} << 22;

 private:
  static constexpr int kNoCounter = -1;
  struct Hits;  // how often a hold of d cycles lands on each row (rrt.cc)

  bool probe_fast(const NodeRrt& node, int64_t base) const;
  void find_conflict(const NodeRrt& node, int64_t base, RrtConflict& why) const;
  // The first singleton conflict of triple `t` from row `base`, into why.
  bool singleton_conflict(const Triple& t, int64_t base, RrtConflict& why) const;
  // The first row from `base` where `units` more on counter c, held as `h`
  // says, exceed its capacity: that row's offset from base, or -1. Inline
  // (defined in rrt.cc, its only caller): probe_fast runs it per counter.
  inline int64_t first_overload(int c, int64_t units, const Hits& h, int64_t base) const;
  // The first overload of counter c (first_overload) as `kind`, into why.
  bool counter_conflict(int c, int64_t units, const Hits& h, int64_t base,
                        RrtConflict::Kind kind, RrtConflict& why) const;
  // Adds `units` (negative to release) to counter c, held as `h` says.
  inline void add_units(int c, int64_t units, const Hits& h, int64_t base);
  // Adds `sign` (+1 or -1) times the node's counter usage from row `base`.
  void apply_counters(const NodeRrt& node, int64_t base, int64_t sign);
  const int64_t* counters_of(int64_t row) const {
    return counters_.data() + row * counters_per_row_;
  }
  int64_t* counters_of(int64_t row) { return counters_.data() + row * counters_per_row_; }

  const Target* target_;
  int64_t ii_ = 0;
  int counters_per_row_ = 0;
  std::vector<int> counter_of_slot_;   // by slot - 1; kNoCounter for singletons
  std::vector<int> counter_of_pool_;   // by pool index; kNoCounter unless a rate pool
  std::vector<int64_t> capacity_;      // by counter
  std::vector<uint64_t> rows_;         // singleton bits per modulo row
  std::vector<int64_t> counters_;      // [row * counters_per_row_ + counter]
};

}  // namespace tilesched
