// The II search's bounds and its galloping walk, the pieces the shared II
// search (ii_driver.h) builds its ranges and its galloping mode from: the
// bottom of every range (a heuristic's and the exact oracle's), the top of
// a heuristic's, the top when no schedule gives one, and seed 000's
// exponential-then-binary search (sub_988080), which the driver runs for
// --ii-search galloping. A probe is a whole placement attempt, so the walk
// is no hot loop: it takes a std::function. The other modes (linear, the
// gallop above a squeeze, the descent) are the driver's own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched {

// The top of the II search when no heuristic schedule gives one: every op
// issued after the one before it (its latency or footprint, whichever is
// longer) on top of `lower`, the search's lower bound; at most
// limits::kMaxII. heuristic_ii_cap uses it when the serial schedule is
// infeasible, the exact oracle's range (oracle_ii_range) when no heuristic
// succeeded.
int64_t sequential_ii_cap(const Graph& g, int64_t lower);

// The bottom of every II search (a heuristic generator's and the exact
// oracle's): the largest of the MII,
// the groups' span bound (group_span_bound), the exclusive-holds bound
// (exclusive_holds_bound, graph_algo.h) and, where ops have a max_depth,
// the stage span (stage_span_bound, graph/stage_span.h), raised to where
// the densest slot's holders pack (holders_packing_bound,
// graph/holders_packing.h). No II below it can be legal.
int64_t heuristic_ii_lower(const Graph& g, int64_t mii, int64_t group_span);
// The same with the groups' span bound computed from `g`.
int64_t ii_lower_bound(const Graph& g, int64_t mii);

// The top of a heuristic generator's II search from `lower`: `ii_cap` when
// given (non-zero), else the serial schedule's II when it is legal (never
// worse than serial), else sequential_ii_cap; at most the RRT's largest II.
int64_t heuristic_ii_cap(const Graph& g, int64_t lower, int64_t ii_cap, const Schedule& serial);

// A feasibility question about one integer (is this II placeable?).
using SearchProbe = std::function<bool(int64_t)>;

// Seed 000's sub_988080. Gallops hi = max(lower, 1), 2·hi, 4·hi, ... (each
// step clamped to upper) until probe(hi) holds, then bisects between the
// last value that failed (or `lower` when none did) and hi for the smallest
// value that holds. nullopt when the range is empty (lower > upper) or
// probe(upper) fails.
//
// With a monotone probe (false ... false true ... true over [lower, upper])
// the result is the smallest true value, after O(log answer) probes. Any
// other probe still yields a value at which the probe returned true — the
// bisection only ever moves its upper end onto such a value — but not
// necessarily the smallest one, and it may report nullopt although some
// value in the range holds.
//
// Two departures from the seed's listing, neither of which changes the
// answer on a monotone probe: the bisection starts above the last failed
// gallop point rather than at `lower`, and the value that ended the gallop
// is not probed twice.
//
// REQUIRES: lower >= 0. The probe is called with values in [lower, upper]
// only, never twice with the same value in one search.
std::optional<int64_t> gallop_then_bisect(const SearchProbe& probe, int64_t lower,
                                          int64_t upper);

}  // namespace tilesched
