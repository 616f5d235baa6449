// The holders' packing bound (holders_packing.h; docs/BOUNDS.md, "The
// holders' packing").
#include "holders_packing.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace tilesched {

namespace {

// One hold of a searched op: `units` on `slot` (an index into the rows'
// columns) for `cycles` cycles from the op's start.
struct Hold {
  int slot;
  int64_t cycles, units;
  auto operator<=>(const Hold&) const = default;
};

struct Holder {
  std::vector<Hold> holds;
  int64_t area = 0;  // units times cycles over its holds
};

// The densest slot (the most unit-cycles per unit of capacity; the lowest
// id on a tie), 0 where no op holds one.
int densest_slot(const Graph& g) {
  std::vector<int64_t> area(static_cast<size_t>(g.target.slot_count()) + 1, 0);
  for (const Op& op : g.ops) {
    for (const Triple& t : op.resources) area[t.slot] += t.duration * t.occupancy;
  }
  int best = 0;
  for (int s = 1; s <= g.target.slot_count(); ++s) {
    const int64_t cap = g.target.slot(s).capacity;
    const int64_t d = (area[s] + cap - 1) / cap;
    if (area[s] > 0 && (best == 0 || d > (area[best] + g.target.slot(best).capacity - 1) /
                                               g.target.slot(best).capacity)) {
      best = s;
    }
  }
  return best;
}

// The ops searched: the densest slot's holders, then those of each other
// slot they hold (in the order the slots are first met), each slot's
// largest first (then by op id), at most kPackingMaxOps in all; their holds
// on every slot, with the slots renumbered densely (`caps` their
// capacities).
std::vector<Holder> holders(const Graph& g, int densest, std::vector<int64_t>& caps) {
  const size_t slots = static_cast<size_t>(g.target.slot_count()) + 1;
  std::vector<std::vector<std::pair<int64_t, OpId>>> by_slot(slots);
  for (OpId v = 0; v < g.op_count(); ++v) {
    int64_t area = 0;
    for (const Triple& t : g.ops[v].resources) area += t.duration * t.occupancy;
    for (const Triple& t : g.ops[v].resources) by_slot[t.slot].emplace_back(-area, v);
  }
  std::vector<int> column(slots, -1);
  std::vector<char> taken(static_cast<size_t>(g.op_count()), 0);
  std::vector<int> queue = {densest};
  column[densest] = 0;
  caps.push_back(g.target.slot(densest).capacity);
  std::vector<Holder> out;
  for (size_t q = 0; q < queue.size(); ++q) {
    auto& ops = by_slot[queue[q]];
    std::sort(ops.begin(), ops.end());
    for (const auto& [neg_area, v] : ops) {
      if (taken[v] || out.size() == static_cast<size_t>(kPackingMaxOps)) continue;
      taken[v] = 1;
      Holder h;
      h.area = -neg_area;
      for (const Triple& t : g.ops[v].resources) {
        if (column[t.slot] < 0) {
          column[t.slot] = static_cast<int>(caps.size());
          caps.push_back(g.target.slot(t.slot).capacity);
          queue.push_back(t.slot);
        }
        h.holds.push_back({column[t.slot], t.duration, t.occupancy});
      }
      std::sort(h.holds.begin(), h.holds.end());
      out.push_back(std::move(h));
    }
  }
  // Largest first: the search fixes the first one's row and fills round it.
  std::stable_sort(out.begin(), out.end(),
                   [](const Holder& a, const Holder& b) { return a.area > b.area; });
  return out;
}

// A backtracking search for rows of the holders at one II: the first at
// row 0 (a rotation of any packing is one), each next at every row in
// turn; a holder equal to the one before it starts no earlier (a
// permutation of equal holders is one). `cells` counts the cells touched
// against the cap.
class Packing {
 public:
  Packing(const std::vector<Holder>& hs, const std::vector<int64_t>& caps, int64_t ii,
          int64_t& cells)
      : hs_(hs), caps_(caps), ii_(ii), row_(hs.size(), 0), cells_(cells) {
    // The rows' cells count too: a large II runs the cap out before they
    // are made.
    cells_ += ii * static_cast<int64_t>(caps.size());
    if (!out()) used_.assign(static_cast<size_t>(ii) * caps.size(), 0);
  }

  // True: a packing; false: none, or the cap ran out (out()).
  bool search(size_t i) {
    if (out()) return false;
    if (i == hs_.size()) return true;
    // Rows from the one before's onwards (wrapping round, but not for an
    // equal holder): a packing that exists is mostly found on the first
    // path, the holders side by side.
    const bool same = i > 0 && hs_[i].holds == hs_[i - 1].holds;
    const int64_t from = i == 0 ? 0 : row_[i - 1];
    const int64_t count = i == 0 ? 1 : same ? ii_ - from : ii_;
    for (int64_t j = 0; j < count && !out(); ++j) {
      const int64_t r = (from + j) % ii_;
      if (!add(i, r)) continue;
      row_[i] = r;
      if (search(i + 1)) return true;
      remove(i, r);
    }
    return false;
  }
  bool out() const { return cells_ > kPackingMaxCells; }

 private:
  int64_t& at(int64_t row, int slot) {
    return used_[static_cast<size_t>(row) * caps_.size() + static_cast<size_t>(slot)];
  }
  // Adds holder i at row r; where a row passes a capacity, takes back what
  // it added and says false.
  bool add(size_t i, int64_t r) {
    const std::vector<Hold>& holds = hs_[i].holds;
    for (size_t h = 0; h < holds.size(); ++h) {
      const Hold& hold = holds[h];
      for (int64_t k = 0, row = r; k < hold.cycles; ++k, row = row + 1 == ii_ ? 0 : row + 1) {
        ++cells_;
        int64_t& u = at(row, hold.slot);
        u += hold.units;
        if (u > caps_[hold.slot]) {
          take_back(holds, h, k, r);
          return false;
        }
      }
    }
    return true;
  }
  // Takes back holds [0, h) whole and hold h's first k + 1 cycles.
  void take_back(const std::vector<Hold>& holds, size_t h, int64_t k, int64_t r) {
    for (size_t p = 0; p <= h; ++p) {
      const int64_t cycles = p == h ? k + 1 : holds[p].cycles;
      for (int64_t j = 0, row = r; j < cycles; ++j, row = row + 1 == ii_ ? 0 : row + 1) {
        at(row, holds[p].slot) -= holds[p].units;
      }
    }
  }
  void remove(size_t i, int64_t r) {
    const std::vector<Hold>& holds = hs_[i].holds;
    take_back(holds, holds.size() - 1, holds.back().cycles - 1, r);
  }

  const std::vector<Holder>& hs_;
  const std::vector<int64_t>& caps_;
  int64_t ii_;
  std::vector<int64_t> used_;
  std::vector<int64_t> row_;
  int64_t& cells_;
};

}  // namespace

int64_t holders_packing_bound(const Graph& g, int64_t from) {
  const int slot = densest_slot(g);
  if (slot == 0) return from;
  std::vector<int64_t> caps;
  const std::vector<Holder> hs = holders(g, slot, caps);
  int64_t cells = 0;
  for (int64_t ii = from; ii < from + kPackingMaxIis; ++ii) {
    Packing p(hs, caps, ii, cells);
    if (p.search(0) || p.out()) return ii;
  }
  return from + kPackingMaxIis;
}

}  // namespace tilesched
