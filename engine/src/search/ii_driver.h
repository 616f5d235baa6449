// The II search every generator shares, as HatScheT's one II loop: its
// range (heuristic_ii_range, oracle_ii_range), the test before any attempt
// (precheck_ii), the upward modes (search_ii: linear, galloping, galloping
// above a squeeze) and the downward one (descend_ii), and what is published
// when it ends (publish_search). Each mode skips an II the II screen rejects
// and starts no attempt past the deadline. The modes in full:
// docs/SEARCH.md, "The II search".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ii_screen.h"
#include "tilesched/deadline.h"
#include "tilesched/graph.h"
#include "tilesched/ii_search.h"
#include "tilesched/schedule.h"

namespace tilesched {

// What a generator's attempt at one II concluded.
enum class IiVerdict {
  kPlaced,     // every op seated and every rule holds: the search ends here
  kNotPlaced,  // some op found no seat, a cycle needs a larger II, ...
  kSqueezed,   // not placed, and the IIs just above look no easier: a
               // linear search gallops over the rest of its range (a
               // failure like kNotPlaced at the cap and when galloping)
  kStorage,    // placed (or proven placeable only) beyond the storage pool, L4
  kStop,       // the generator's budget is spent: no later II is tried
};

// One attempt at one II. On kPlaced the generator keeps the placement
// (the caller reads it back); the driver asks nothing else of it.
using IiAttemptFn = std::function<IiVerdict(int64_t ii)>;

struct IiRange {
  int64_t lower = 1;  // no II below it can be legal
  int64_t cap = 0;    // the last II tried
};

// The exact oracle's range: the same lower bound as a heuristic's
// (heuristic_ii_lower, ii_range.h, from the MII and the graph's leader-group
// span bound), up to one below `best_heuristic_ii`, or to
// sequential_ii_cap (ii_range.h) when no heuristic gave a schedule. It may
// be empty (the best heuristic's II is the lower bound: nothing left to
// prove).
IiRange oracle_ii_range(const Graph& g, int64_t mii, std::optional<int64_t> best_heuristic_ii);

// A heuristic's range: heuristic_ii_lower (ii_range.h) from the MII and the
// groups' span bound, raised to `ii_floor` (0: none; the stage cap's runs
// search above the uncapped II, stage_cap.h), up to heuristic_ii_cap
// (`ii_cap` when non-zero, else the serial II when the serial schedule is
// legal, else the sequential cap).
IiRange heuristic_ii_range(const Graph& g, int64_t mii, int64_t group_span, int64_t ii_floor,
                           int64_t ii_cap, const Schedule& serial);

// Why no II of any range can be legal, found before any attempt; both
// unset when the search may go on.
struct IiPrecheck {
  // The stores' least total when they alone exceed the storage pool
  // (storage.h, stores_over_storage).
  std::optional<int64_t> stores_over;
  // Why, when ops that must start together over-use a slot (graph_algo.h,
  // forced_together_conflict).
  std::optional<std::string> never;
};

// The test before any attempt, once per run: its caller hands it to
// search_ii. The exact oracle runs it before its start schedules, so that a
// graph whose stores exceed the pool costs no heuristic run.
IiPrecheck precheck_ii(const Graph& g);

enum class IiSearchEnd {
  kFound,          // `ii` placed
  kStorageBudget,  // the stores alone exceed the pool, or every II tried failed on L4
  kCapReached,     // no II of the range placed
  kStopped,        // an attempt said kStop, or the deadline passed, before any II placed
  kNever,          // no II can be legal (forced_together_conflict): no attempt made
};

struct IiSearchResult {
  IiSearchEnd end = IiSearchEnd::kCapReached;
  int64_t ii = 0;     // when kFound
  int64_t tried = 0;  // attempts made (the galloping search's replay included)
  int64_t screened = 0;  // IIs the screen rejected, with no attempt made
  // The pre-check the search began with: when it says why no II can be
  // legal, no attempt was made (kStorageBudget, kNever).
  IiPrecheck precheck;
  // The II the deadline stopped the search before (kStopped; no attempt
  // at it was made).
  std::optional<int64_t> deadline_at;
};

// The upward modes. Searches `range`: first `precheck` (precheck_ii of the
// graph, run once by the caller; no attempt when it says no II can be
// legal), then attempt(ii) for II = lower, lower + 1, ... (linear) or
// galloping then bisecting (kGalloping: the found II is
// attempted once more at the end, so that the generator's placement is the
// found II's). Linear stops at the first kPlaced or kStop; a kSqueezed at
// an II below the cap hands the rest of the range to the gallop above a
// squeeze: from the next II, at ii = min(cap, f + 1), min(cap, f + 2),
// min(cap, f + 4), ... where f is the last II that failed (a screened II
// counts as failed), until one places or the cap fails (kCapReached);
// then the IIs from f + 1 up, until one places; the gallop point is the
// found II when none below it does, and is attempted again when the walk
// attempted below it, so that the generator's placement is the found II's.
// A kStop there ends the search kStopped. With a
// `screen` (ii_screen.h), an II it rejects counts as not placed without an
// attempt; it never rejects a feasible II, so the search ends where it would
// without it. Once `deadline` (tilesched/deadline.h) has passed no attempt
// starts: the search ends kStopped, with deadline_at. `tried` and
// `screened` count the attempts and skips of every mode the search ran.
IiSearchResult search_ii(IiPrecheck precheck, const IiRange& range, IiSearch how,
                         const IiAttemptFn& attempt, IiScreen* screen = nullptr,
                         const Deadline& deadline = std::nullopt);

// What one attempt of the downward mode concluded.
enum class DescentVerdict {
  kPlaced,       // every op seated at this II: the descent goes on below it
  kSearchedAll,  // every placement was tried and none holds: a lower II is
                 // no easier, so the descent ends
  kOutOfBudget,  // the attempt ran out of budget: a lower II may still place
};

// One attempt of the descent at one II. On kPlaced the generator keeps (or
// copies out) the placement; the last kPlaced is the lowest II's.
using DescentAttemptFn = std::function<DescentVerdict(int64_t ii)>;

// The descent's attempts that may run out of budget before it stops (2
// keeps every region of the reference run that 3 gives:
// results/records/2026-11-26-cost-based-speed-3.md).
inline constexpr int kDescentMisses = 2;

enum class IiDescentEnd {
  kLowerBound,   // every II down to the lower bound was screened or tried
  kSearchedAll,  // an attempt said kSearchedAll
  kMisses,       // kDescentMisses attempts said kOutOfBudget
  kDeadline,     // the deadline passed before the next attempt
};

struct IiDescentResult {
  IiDescentEnd end = IiDescentEnd::kLowerBound;
  int64_t ii = 0;        // the lowest II placed, or the found II when none
  int64_t tried = 0;     // attempts made
  int64_t placed = 0;    // attempts that said kPlaced
  int64_t screened = 0;  // IIs the screen rejected, with no attempt made
};

// The downward mode, below `found` (an II the upward search placed): for
// II = found - 1, found - 2, ..., lower, first the deadline (once it has
// passed, no attempt starts and the lowest II placed so far stands), then
// the screen (rearmed first; an II it rejects is skipped and costs no
// miss, so the descent reaches at least the IIs it would without it),
// then attempt(ii). kPlaced lowers the result to ii and goes on; kSearchedAll
// ends the descent; kOutOfBudget goes on until kDescentMisses of them.
// The test seam test_seams::before_ii_attempt is not called here.
IiDescentResult descend_ii(int64_t found, int64_t lower, const DescentAttemptFn& attempt,
                           IiScreen* screen = nullptr, const Deadline& deadline = std::nullopt);

// The give-up line every generator writes when no II of the range placed:
// "no legal placement for II L to C (the cap)", or that the cap is below
// the lower bound when the range is empty.
std::string give_up_message(const IiRange& range);

// Fills `s` (whose graph, generator, options and MII the caller set) from
// the search's end: kFound gives a feasible schedule with `start` at
// result.ii, stage and order derived; kNever gives the dependence-cycle
// failure with its reason; otherwise, when `fallback` is a
// legal serial schedule, it is published flagged "serial_fallback" with
// one line saying so; otherwise the failure (storage-budget, ii-cap-reached
// or budget-exhausted) and its diagnostic (a deadline's: "the deadline
// passed before II N was tried").
void publish_search(const Graph& g, const IiRange& range, const IiSearchResult& result,
                    const std::vector<int64_t>& start, const Schedule* fallback, Schedule& s);

// The stage cap's graph: `g` with every op's max_depth (rule L6) lowered
// to max_stages - 1, so that every generator's search is the least II with
// at most max_stages stages. A schedule of it is legal for `g` too.
// REQUIRES: max_stages >= 1.
Graph with_stage_cap(const Graph& g, int64_t max_stages);

}  // namespace tilesched
