// The modulo resource reservation table (seeds 002 and 004; rules L2 and
// L3 of docs/CONTRACT.md).
//
// Singleton slots are bits of a 64-bit word per modulo row, probed with one
// AND per footprint cycle. Pooled slots and rate pools are counters per
// modulo row; an op that holds a counter for d cycles lands on row
// (start + i) mod II exactly floor(d / II) times, plus once more for the
// first d mod II rows from its start, so each touched row is checked once
// with that closed-form hit count. docs/BOUNDS.md has the details.
#include "rrt.h"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <cstdio>

#include "util/test_seams.h"

namespace tilesched {

namespace {

// The modulo row after `r`, without a division.
inline int64_t next_row(int64_t r, int64_t ii) { return r + 1 == ii ? 0 : r + 1; }

std::string hex_row(uint64_t row) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, row);
  return buf;
}

}  // namespace

// How many of the cycles [0, d) of a footprint land on the i-th row from
// its start (0 <= i < II): floor(d / II), plus one for the first d mod II.
struct ModuloRrt::Hits {
  Hits(int64_t d, int64_t ii) : whole(d / ii), extra(d % ii), touched(std::min(d, ii)) {}
  int64_t at(int64_t i) const { return whole + (i < extra ? 1 : 0); }
  int64_t whole;
  int64_t extra;
  int64_t touched;  // rows the footprint reaches: min(d, II)
};

NodeRrt NodeRrt::lower(const Op& op, const Target& target) {
  NodeRrt n;
  n.triples = op.resources;
  for (const Triple& t : op.resources) {
    assert(t.slot >= 1 && t.slot <= target.slot_count());
    assert(t.duration >= 0);
    n.duration = std::max(n.duration, t.duration);
  }
  n.footprint = std::max<int64_t>(1, n.duration);
  n.rows.assign(static_cast<size_t>(n.duration), 0);
  for (const Triple& t : op.resources) {
    if (target.slot(t.slot).capacity > 1) {
      n.pooled.push_back(t);
      continue;
    }
    const uint64_t bit = slot_bit(t.slot);
    for (int64_t k = 0; k < t.duration; ++k) {
      assert((n.rows[k] & bit) == 0 && "at most one triple per slot");
      n.rows[k] |= bit;
    }
    n.longest_singleton = std::max(n.longest_singleton, t.duration);
  }
  for (const PoolUse& p : op.pools) {
    assert(p.pool >= 0 && p.pool < static_cast<int>(target.pools.size()));
    if (target.pools[p.pool].kind == PoolKind::kRate && p.count > 0) n.pools.push_back(p);
  }
  return n;
}

std::string RrtConflict::describe(const Target& target, const NodeRrt& node,
                                  int64_t ii) const {
  std::string s;
  if (kind == Kind::kRatePool) {
    const PoolUse* use = nullptr;
    for (const PoolUse& p : node.pools) {
      if (p.pool == pool) use = &p;
    }
    s = "pool " + std::to_string(pool) + " " + target.pools[pool].name + " (count " +
        std::to_string(use ? use->count : 0) + ", held " + std::to_string(node.footprint) +
        " cycles)";
  } else {
    const Triple& t = node.triples[triple];
    s = "triple (slot " + std::to_string(t.slot) + " " + target.slot(t.slot).name +
        ", duration " + std::to_string(t.duration) + ", occupancy " +
        std::to_string(t.occupancy) + ")";
  }
  const std::string at = " at modulo row " + std::to_string(row) + " of II " +
                         std::to_string(ii);
  switch (kind) {
    case Kind::kSingletonRow:
      return s + " collides" + at + ": global row " + hex_row(global_row);
    case Kind::kSelfOverlap:
      return s + " overlaps itself" + at + ": a singleton slot held " +
             std::to_string(node.triples[triple].duration) + " cycles needs II >= " +
             std::to_string(node.triples[triple].duration);
    case Kind::kPooledSlot:
    case Kind::kRatePool:
      return s + " exceeds its capacity" + at + ": " + std::to_string(used) +
             " used + " + std::to_string(requested) + " requested > capacity " +
             std::to_string(capacity);
  }
  return s;
}

ModuloRrt::ModuloRrt(const Target& target) : target_(&target) {
  counter_of_slot_.assign(static_cast<size_t>(target.slot_count()), kNoCounter);
  for (int s = 0; s < target.slot_count(); ++s) {
    if (target.slots[s].capacity > 1) {
      counter_of_slot_[s] = counters_per_row_++;
      capacity_.push_back(target.slots[s].capacity);
    }
  }
  counter_of_pool_.assign(target.pools.size(), kNoCounter);
  for (size_t p = 0; p < target.pools.size(); ++p) {
    // kSlot pools are a pooled slot's capacity, already counted above;
    // storage pools are L4, outside the table.
    if (target.pools[p].kind == PoolKind::kRate) {
      counter_of_pool_[p] = counters_per_row_++;
      capacity_.push_back(target.pools[p].capacity);
    }
  }
}

void ModuloRrt::reset(int64_t ii) {
  assert(ii >= 1 && ii <= kMaxRrtII);
  ii_ = ii;
  test_seams::count_trips("rrt.reset", ii);
  rows_.assign(static_cast<size_t>(ii), 0);
  counters_.assign(static_cast<size_t>(ii * counters_per_row_), 0);
}

int64_t ModuloRrt::slot_usage(int slot, int64_t row) const {
  assert(slot >= 1 && slot <= target_->slot_count() && row >= 0 && row < ii_);
  const int c = counter_of_slot_[slot - 1];
  if (c == kNoCounter) return static_cast<int64_t>((rows_[row] >> (slot - 1)) & 1u);
  return counters_of(row)[c];
}

int64_t ModuloRrt::pool_usage(int pool, int64_t row) const {
  assert(pool >= 0 && pool < static_cast<int>(target_->pools.size()));
  assert(row >= 0 && row < ii_);
  const Pool& p = target_->pools[pool];
  if (p.kind == PoolKind::kSlot) return slot_usage(p.bound_slot, row);
  const int c = counter_of_pool_[pool];
  return c == kNoCounter ? 0 : counters_of(row)[c];
}

bool ModuloRrt::probe(const NodeRrt& node, int64_t start, RrtConflict* why) const {
  assert(ii_ >= 1 && start >= 0);
  const int64_t base = start % ii_;
  test_seams::count_trips("rrt.probe", 1);
  if (probe_fast(node, base)) return true;
  if (why != nullptr) find_conflict(node, base, *why);
  return false;
}

int64_t ModuloRrt::first_fit(const NodeRrt& node, int64_t lo, int64_t hi) const {
  assert(ii_ >= 1 && lo >= 0);
  if (node.longest_singleton > ii_) return -1;  // collides with itself at any start
  int64_t base = lo % ii_;
  for (int64_t t = lo; t <= hi; ++t) {
    if (probe_fast(node, base)) {
      test_seams::count_trips("rrt.probe", t - lo + 1);
      return t;
    }
    base = next_row(base, ii_);
  }
  test_seams::count_trips("rrt.probe", hi >= lo ? hi - lo + 1 : 0);
  return -1;
}

inline int64_t ModuloRrt::first_overload(int c, int64_t units, const Hits& h, int64_t base) const {
  const int64_t cap = capacity_[c];
  int64_t r = base;
  for (int64_t i = 0; i < h.touched; ++i) {
    if (counters_of(r)[c] + units * h.at(i) > cap) return i;
    r = next_row(r, ii_);
  }
  return -1;
}

bool ModuloRrt::probe_fast(const NodeRrt& node, int64_t base) const {
  // Self-overlap: cycles k and k + II of the footprint share a modulo row.
  // The rows are nested (each triple starts at cycle 0), so rows[k + II]
  // meets rows[k] exactly when rows[k + II] is non-empty, i.e. when some
  // singleton triple is longer than II.
  if (node.longest_singleton > ii_) return false;
  int64_t r = base;
  for (int64_t k = 0; k < node.longest_singleton; ++k) {
    if ((rows_[r] & node.rows[k]) != 0) return false;
    r = next_row(r, ii_);
  }
  for (const Triple& t : node.pooled) {
    const int c = counter_of_slot_[t.slot - 1];
    if (first_overload(c, t.occupancy, Hits(t.duration, ii_), base) >= 0) return false;
  }
  const Hits h(node.footprint, ii_);
  for (const PoolUse& p : node.pools) {
    if (first_overload(counter_of_pool_[p.pool], p.count, h, base) >= 0) return false;
  }
  return true;
}

void ModuloRrt::find_conflict(const NodeRrt& node, int64_t base, RrtConflict& why) const {
  why = RrtConflict{};
  for (int ti = 0; ti < static_cast<int>(node.triples.size()); ++ti) {
    const Triple& t = node.triples[ti];
    why.triple = ti;
    why.slot = t.slot;
    const int c = counter_of_slot_[t.slot - 1];
    if (c == kNoCounter ? singleton_conflict(t, base, why)
                        : counter_conflict(c, t.occupancy, Hits(t.duration, ii_), base,
                                           RrtConflict::Kind::kPooledSlot, why)) {
      return;
    }
  }
  const Hits h(node.footprint, ii_);
  for (const PoolUse& p : node.pools) {
    why = RrtConflict{};
    why.pool = p.pool;
    if (counter_conflict(counter_of_pool_[p.pool], p.count, h, base, RrtConflict::Kind::kRatePool,
                         why)) {
      return;
    }
  }
  assert(false && "probe_fast failed but no conflict was found");
}

bool ModuloRrt::singleton_conflict(const Triple& t, int64_t base, RrtConflict& why) const {
  if (t.duration > ii_) {
    // Cycles 0 and II of this triple both land on row `base`.
    why.kind = RrtConflict::Kind::kSelfOverlap;
    why.row = base;
    why.global_row = rows_[base];
    return true;
  }
  const uint64_t bit = slot_bit(t.slot);
  int64_t r = base;
  for (int64_t k = 0; k < t.duration; ++k) {
    if ((rows_[r] & bit) != 0) {
      why.kind = RrtConflict::Kind::kSingletonRow;
      why.row = r;
      why.global_row = rows_[r];
      return true;
    }
    r = next_row(r, ii_);
  }
  return false;
}

bool ModuloRrt::counter_conflict(int c, int64_t units, const Hits& h, int64_t base,
                                 RrtConflict::Kind kind, RrtConflict& why) const {
  const int64_t i = first_overload(c, units, h, base);
  if (i < 0) return false;
  const int64_t r = (base + i) % ii_;
  why.kind = kind;
  why.row = r;
  why.global_row = rows_[r];
  why.used = counters_of(r)[c];
  why.requested = units * h.at(i);
  why.capacity = capacity_[c];
  return true;
}

void ModuloRrt::commit(const NodeRrt& node, int64_t start) {
  assert(probe(node, start));
  test_seams::count_trips("rrt.commit", 1);
  const int64_t base = start % ii_;
  int64_t r = base;
  for (int64_t k = 0; k < node.longest_singleton; ++k) {
    rows_[r] |= node.rows[k];
    r = next_row(r, ii_);
  }
  apply_counters(node, base, +1);
}

void ModuloRrt::release(const NodeRrt& node, int64_t start) {
  assert(ii_ >= 1 && start >= 0);
  test_seams::count_trips("rrt.commit", 1);
  const int64_t base = start % ii_;
  int64_t r = base;
  for (int64_t k = 0; k < node.longest_singleton; ++k) {
    assert((rows_[r] & node.rows[k]) == node.rows[k] && "release of bits not held");
    rows_[r] &= ~node.rows[k];
    r = next_row(r, ii_);
  }
  apply_counters(node, base, -1);
}

inline void ModuloRrt::add_units(int c, int64_t units, const Hits& h, int64_t base) {
  int64_t r = base;
  for (int64_t i = 0; i < h.touched; ++i) {
    int64_t& used = counters_of(r)[c];
    used += units * h.at(i);
    assert(used >= 0 && "release of units not held");
    r = next_row(r, ii_);
  }
}

void ModuloRrt::apply_counters(const NodeRrt& node, int64_t base, int64_t sign) {
  for (const Triple& t : node.pooled) {
    add_units(counter_of_slot_[t.slot - 1], sign * t.occupancy, Hits(t.duration, ii_), base);
  }
  const Hits h(node.footprint, ii_);
  for (const PoolUse& p : node.pools) add_units(counter_of_pool_[p.pool], sign * p.count, h, base);
}

}  // namespace tilesched
