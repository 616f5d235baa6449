// The II search every generator shares (HatScheT's one II loop, each
// scheduler supplying an attempt at one II): the range it searches, the
// storage test before any placement, the per-II loop (linear, as Rau and
// the seeds; or galloping, seed 000's sub_988080), the serial fallback,
// rule L7's serial schedule and the one give-up message. The cost-based
// generator (both variants), ims and sms search [heuristic_ii_lower,
// heuristic_ii_cap]; the exact oracle searches its own range (from the same
// lower bound to one below the best heuristic II) with a proof per II.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
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

// A heuristic's range: heuristic_ii_lower (search.h) from the MII and the
// groups' span bound, raised to `ii_floor` (0: none; the stage cap's runs
// search above the uncapped II, stage_cap.h), up to heuristic_ii_cap
// (`ii_cap` when non-zero, else the serial II when the serial schedule is
// legal, else the sequential cap).
IiRange heuristic_ii_range(const Graph& g, int64_t mii, int64_t group_span, int64_t ii_floor,
                           int64_t ii_cap, const Schedule& serial);

enum class IiSearchEnd {
  kFound,          // `ii` placed
  kStorageBudget,  // the stores alone exceed the pool, or every II tried failed on L4
  kCapReached,     // no II of the range placed
  kStopped,        // the attempt said kStop before any II placed
  kNever,          // no II can be legal (forced_together_conflict): no attempt made
};

struct IiSearchResult {
  IiSearchEnd end = IiSearchEnd::kCapReached;
  int64_t ii = 0;     // when kFound
  int64_t tried = 0;  // attempts made (the galloping search's replay included)
  int64_t screened = 0;  // IIs the screen rejected, with no attempt made
  // The stores' least total when they alone exceed the storage pool (no
  // attempt was made; storage.h).
  std::optional<int64_t> stores_over;
  // Why no II can be legal, when ops that must start together over-use a
  // slot (graph_algo.h, forced_together_conflict; no attempt was made).
  std::optional<std::string> never;
  // The II the deadline stopped the search before (kStopped; no attempt
  // at it was made).
  std::optional<int64_t> deadline_at;
};

// Searches `range`: first the stores against the storage pool and the ops
// forced to start together against their slots (no attempt when no II can
// be legal), then attempt(ii) for II = lower, lower + 1, ...
// (linear) or galloping then bisecting (kGalloping: the found II is
// attempted once more at the end, so that the generator's placement is the
// found II's). Linear stops at the first kPlaced or kStop. With a
// `screen` (ii_screen.h), an II it rejects counts as not placed without an
// attempt; it never rejects a feasible II, so the search ends where it would
// without it. Once `deadline` (tilesched/deadline.h) has passed no attempt
// starts: the search ends kStopped, with deadline_at.
IiSearchResult search_ii(const Graph& g, const IiRange& range, IiSearch how,
                         const IiAttemptFn& attempt, IiScreen* screen = nullptr,
                         const Deadline& deadline = std::nullopt);

// A test seam: when set, called before every attempt search_ii makes (the
// exact oracle's limit tests stand in a slow heuristic with it).
extern std::function<void(int64_t ii)> ii_attempt_for_tests;

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

// Rule L7 is hard: under force_serial_execution every generator publishes
// the serial schedule, named as its own, flagged "force_serial", with one
// line saying so.
Schedule forced_serial(const Schedule& serial, std::string_view generator);

}  // namespace tilesched
