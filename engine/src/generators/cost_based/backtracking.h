// The backtracking rung (docs/COST_BASED.md "Strategy ladder", "Beyond the
// seeds"): one run of its depth-first search (search_once, depth_first.cc)
// and the rung's runs over it (Backtracking, backtracking.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "context.h"
#include "placement.h"
#include "seating.h"

namespace tilesched::cost_based {

// One run of the backtracking rung's depth-first search (docs/COST_BASED.md
// "Beyond the seeds", the backtracking rung): at the placement's II, seat
// next the unplaced op with the fewest gated seats, ties by a given order,
// each seat within one II of its window; a dead end undoes the latest
// choice. The rung's runs, their budgets and orders, are Backtracking's
// (below).

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

// The backtracking rung (docs/COST_BASED.md "Strategy ladder", "Beyond the
// seeds") as its own unit: where the seed's rungs each commit to one
// greedy choice per op, its depth-first search (search_once) revisits the
// latest choice when a later op finds no seat, so a resource-tight II
// whose recurrences need a particular offset between two ops is found
// instead of given up. This unit runs the search's runs: their budgets,
// their tie-break orders (the priority order, seeded shuffles of it), the
// short runs before the long ones, and what failed runs showed. It takes
// the placement, the gate check and the budgets, and returns what
// happened; the driver counts it.

class Backtracking {
 public:
  explicit Backtracking(const Context& ctx) : ctx_(ctx) {}

  // The seats a rung may spend. In the search all three are one budget;
  // the descent gives its short runs more than its long runs, and a proof
  // in the priority order with the rung's budget amid them.
  struct Budgets {
    int64_t seats = 0;  // the long run in the priority order; restarts share half
    int64_t probe = 0;  // the short runs: their shuffles spend at most half
    int64_t proof = 0;  // a run in the priority order amid the shuffles (<= seats)
  };
  // A depth-first search at the placement's II (REQUIRES: an empty table)
  // that seats next the unplaced op with the fewest gated seats (ties by
  // the Rau rung's priority), trying each seat within one II of its
  // window, until every op is placed (and rule L4 holds) or `b.seats`
  // seats are spent; then `restarts` runs with seeded tie-break shuffles
  // share another half of it. Before those runs, short ones: the order
  // that placed every op last time, the priority order, then shuffled
  // orders (the constants below) spending at most half of `b.probe`;
  // where `b.proof` is below `b.seats`, they stop at half of it for a run
  // in the priority order with `b.proof` seats, and then go on. A
  // placement ends the rung, and so does a run that tried every seat, in
  // the priority order or at full length (a short shuffled run's verdict
  // does not count: its first op's one seat can rule out every
  // placement). On success the placement holds the seats. A run whose end
  // an earlier run of its order at this II shows (Known) seats nothing.
  // REQUIRES: b.seats > 0, b.proof <= b.seats.
  BacktrackResult run(Placement& p, Gates& gates, const Budgets& b, int restarts);
  // The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, ... (i >= 1): the short
  // runs' seats per op.
  static int64_t luby(int64_t i);
  // The short runs before the long ones (run()): the priority order with
  // kQuickSeatsPerOp seats per op, then at most kProbeRuns shuffled orders
  // spending at most budget / kProbeShare seats.
  // None below a budget of kProbeMinSeatsPerOp seats per op: there the
  // priority order's long run is all the budget allows.
  static constexpr int64_t kQuickSeatsPerOp = 4;
  static constexpr int kProbeRuns = 256;
  static constexpr int64_t kProbeShare = 2;
  static constexpr int64_t kProbeMinSeatsPerOp = 16;

  // The order (0 the priority order, r a restart's shuffle) whose run
  // placed every op last, and its seats: the short runs try it first.
  struct Winner {
    int order = 0;
    int64_t seats = 0;
  };

  // What the failed runs of one order at one II showed: runs are
  // deterministic (the table, the II, the order and the seat cap decide
  // them), so a run with at most `ran_out` seats runs out the same way and
  // one with at least `proved` seats tries every seat the same way; such a
  // run is answered without seating anything.
  struct Known {
    int64_t ran_out = 0;  // the largest cap a run spent (0: none)
    int64_t proved = -1;  // seats a run took to try every seat (-1: none)
    OpId stuck = 0;       // that run's op whose seats ran out first
  };
  // Per order, at one II with no builder constraint in force (kept across
  // the search's ladders and the descent, which tries the same IIs again).
  struct IiKnown {
    int64_t ii = 0;
    std::vector<Known> orders;
  };

  // The rung's seats: `ratio` per op, at most `work` / n^2 (a seat looks
  // at every unplaced op, and undoing one recomputes the dependence bounds
  // of the ops it bounded, O(n) each; so a seat costs up to O(n^2)).
  static int64_t budget(const Context& ctx, int ratio, int64_t work);

 private:
  const SearchFacts& facts();  // built on the first run
  // The table of what runs showed at the placement's II: kept across calls
  // when no builder constraint is in force, else a fresh one in `local`.
  std::vector<Known>& known(const Placement& p, std::vector<Known>& local);

  const Context& ctx_;
  std::optional<SearchFacts> facts_;
  std::optional<Winner> winner_;
  std::vector<IiKnown> known_;
};

}  // namespace tilesched::cost_based
