// One run of the backtracking rung's depth-first search (docs/COST_BASED.md
// "Beyond the seeds", the backtracking rung): at the placement's II, seat
// next the unplaced op with the fewest gated seats, ties by a given order,
// each seat within one II of its window; a dead end undoes the latest
// choice. The rung's runs, their budgets and orders, are backtrack.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "context.h"
#include "placement.h"
#include "admission.h"

namespace tilesched::cost_based {

struct BacktrackResult {
  bool placed = false;
  // The search gave up having tried every seat it allows (not for want of
  // budget): a lower II is no easier.
  bool searched_all = false;
  int64_t seats = 0;  // seats taken, over every run
  // One line per run that spent its budget ("II 8: backtracking spent ...").
  std::vector<std::string> failures;
  // When searched_all: the op whose seats ran out first.
  std::optional<OpId> stuck;
};

// What the search reads of the graph, the same at every II: the Rau rung's
// priority order made static, and each op's slot and pool masks.
struct SearchFacts {
  std::vector<OpId> order;
  std::vector<uint64_t> slots, pools;
  // By op, the other ops that share a slot, a pool or a leader group with
  // it: share[share_begin[v] .. share_begin[v + 1]).
  std::vector<int> share_begin;
  std::vector<OpId> share;
};
SearchFacts search_facts(const Context& ctx);

// One run on an empty table: seats through `gates` until every op is
// placed (and rule L4 holds; true, the placement holds the seats) or
// `budget` seats are spent (a failure line), or it has tried every seat
// (out.searched_all, out.stuck). Fail-first ties go to the op first in
// `order` (a permutation of the ops). Adds the seats it took to out.seats.
// Without stage rules (leader groups, max depths, builder constraints) the
// first op tries only its first seat: a placement shifted by a constant is
// a placement.
bool search_once(const Context& ctx, Placement& p, Gates& gates, const SearchFacts& facts,
                 const std::vector<OpId>& order, int64_t budget, BacktrackResult& out);

// The failure line of a run that spent its budget.
std::string spent_line(int64_t ii, int64_t budget);

}  // namespace tilesched::cost_based
