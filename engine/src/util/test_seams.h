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

}  // namespace tilesched::test_seams
