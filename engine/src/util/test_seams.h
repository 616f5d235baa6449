// The test seams: hooks a test sets to act at a fixed point of a run (the
// exact oracle's limit tests stand in a slow heuristic, a slow check or a
// slow model build with them). Production code calls each one when it is
// set and never sets one; all are unset outside the tests.
#pragma once

#include <cstdint>
#include <functional>

namespace tilesched::test_seams {

// Called before every attempt search_ii makes (search/ii_driver.h), with
// its II; not by the descent.
extern std::function<void(int64_t ii)> before_ii_attempt;

// Called by the exact oracle after every check, once the check's answer is
// in and before the model is read (exact_test.cc makes the oracle's
// deadline pass there).
extern void (*between_checks)();

// Called by the SAT models at every deadline poll of their build, with the
// phase that polls (exact_limit_test.cc checks that every phase polls
// inside its loop).
extern void (*build_poll)(const char* phase);

// The least ops of a strongly connected component the oracle proves
// infeasible on its own (oracle/exact/components.h, component_subgraphs): 8,
// since a small graph's own checks take milliseconds and a check per
// component per II would cost more than it saves (fuzz_differential's
// rate). The tests lower it to 2.
extern int min_component_ops;

// The cap on one satisfiability check of the exact oracle, in ms
// (oracle/exact/budget.h); 0, the default: half of what remains of the
// time limit. The limit tests set 1 to cut every check.
extern int64_t per_check_limit_ms;

// Called by every loop of a cost-based call whose trip count grows with
// the graph (the table's scans and resets, the windows' updates, the
// seats' costs, the IMS start's steps, the repair's model), with the
// loop's name and the trips it just made: meter_trips_test.cc holds each
// loop's sum against the call's stats.work.total, so a loop the one meter
// (docs/COST_BASED.md "Effort") stops counting fails it. Unset outside
// that test; count_trips is then one test of a null pointer.
extern void (*loop_trips)(const char* loop, int64_t trips);
inline void count_trips(const char* loop, int64_t trips) {
  if (loop_trips != nullptr) [[unlikely]] loop_trips(loop, trips);
}
// Called with every charge to the cost-based meter, named for the loop it
// pays for (Context::count), so that the same test holds each loop's trips
// against its own charges.
extern void (*loop_units)(const char* loop, int64_t units);
inline void count_units(const char* loop, int64_t units) {
  if (loop_units != nullptr) [[unlikely]] loop_units(loop, units);
}

}  // namespace tilesched::test_seams
