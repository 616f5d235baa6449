// A saturated slot's holders packed as one (docs/COST_BASED.md
// "Packing"): where one slot's holders fill nearly all its units at the
// II, the backtracking search seats them first, together: the holders that
// take more than half the slot (no two of them share a row) laid end to
// end around the modulo rows, with gaps of at most the rows they leave
// free, the other holders in the rows left, and each holder's stage the
// earliest the longest paths between the holders allow. The search then
// seats the other ops around them; a dead end there asks for the next
// packing.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "context.h"
#include "placement.h"

namespace tilesched::cost_based {

struct PackingPlan {
  int slot = 0;
  std::vector<OpId> chain;   // its holders of more than half its units, longest first
  std::vector<OpId> shared;  // its other holders
};

// The plan at `ii`: the fullest slot whose holders fill at least 7/8 of
// its units, when 2..kMaxChain of them take more than half of it, at most
// kMaxHolders hold it and every hold is shorter than the II; none
// otherwise.
inline constexpr int kMaxChain = 12;
inline constexpr int kMaxHolders = 16;
std::optional<PackingPlan> packing_plan(const Context& ctx, int64_t ii);

class Packer {
 public:
  using Seats = std::vector<std::pair<OpId, int64_t>>;
  // REQUIRES: p at the plan's II (its windows reset), nothing placed.
  Packer(const Context& ctx, const Placement& p, const PackingPlan& plan);

  // Calls visit(seats), a start for every holder, for each packing in
  // search order until visit returns false or `steps` assignments are
  // spent; true when it stopped for either, false when the packings ran
  // out. Counts its work on the context's meter.
  bool each(const std::function<bool(const Seats&)>& visit, int64_t steps);

 private:
  // Holder i at residue r: its rows fit the holders' table and the
  // holders placed so far keep feasible stages. False leaves nothing set.
  bool assign(int i, int64_t r);
  void unassign(int i);
  // The least stages of the assigned holders under their bounds and the
  // longest paths between them, into stage_; false when there are none.
  bool stages();
  bool chain_from(int64_t pos, int64_t slack, int placed);
  // Holder i's rows fit the table at residue r (work: rows read).
  bool fits(int i, int64_t r, int64_t& work) const;
  // Every chain holder not placed has a residue in [pos, end) that fits.
  bool each_unplaced_fits(int64_t pos, int64_t end);
  bool shared_from(size_t j);
  bool spend();

  const Context& ctx_;
  const int64_t ii_;
  const int slot_count_;
  std::vector<OpId> holders_;  // chain, then shared
  int chain_size_ = 0;
  std::vector<int64_t> cycles_;  // per holder: its hold on the plan's slot
  std::vector<std::vector<int64_t>> dist_;  // D between holders, kNoPath where none
  std::vector<int64_t> lo_, hi_;            // start bounds per holder
  std::vector<std::pair<int, int>> same_stage_;  // holders of one leader group
  std::vector<int64_t> residue_;  // per holder, -1 unassigned
  std::vector<int64_t> stage_;
  std::vector<int64_t> usage_;    // slot_count_ + 1 rows of ii_ counters
  const std::function<bool(const Seats&)>* visit_ = nullptr;
  int64_t steps_ = 0;
  bool stop_ = false;
  int64_t first_ = 0;  // the first chain holder's residue
};

}  // namespace tilesched::cost_based
