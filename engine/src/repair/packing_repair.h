// The packing repair, a step after a heuristic's search: where its II is
// above the lower bound on a graph whose slots pack several holders per row,
// the IIs it failed at are tried again by the exact oracle's SAT model of the
// whole graph (oracle/exact/work_checks.h) under a deterministic work budget,
// the lower bound first, then by bisection; a screen (screen.h) may rule an
// II out first, and a check that ends unknown gets a second attempt in
// CaDiCaL's stable mode. Every schedule it keeps passes the verifier.
// generate_schedule runs it after the heuristics (generate.h). The why and
// the budgets: docs/EXACT.md, "The packing repair".
#pragma once

#include <cstdint>

#include "tilesched/cost_based.h"
#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched {

struct PackingRepairOptions {
  // Graphs of more ops are left alone (a model per II costs more there).
  int max_ops = 64;
  // Work per II tried and for the whole repair, in the SAT backend's units
  // (learned clauses), for the checks of the whole graph.
  int64_t units_per_ii = 5'000;
  int64_t units_total = 20'000;
  // Per component check of the infeasibility screen (screen.h), which runs
  // before every check of the whole graph; 0: no screen. Its checks have a
  // units_total of their own.
  int64_t units_screen = 500;
  // Per second attempt, CaDiCaL in its stable mode only, at an II whose
  // check of the whole graph ended unknown (it finds some packings the
  // default mode does not within the budget, and misses others); 0: none.
  // Its attempts have a units_total of their own.
  int64_t units_second = 5'000;
  // The repair's bound in the cost-based generator's work units (one
  // meter for the call, docs/COST_BASED.md "Effort"): before each check of
  // the whole graph its model's size is estimated (every op's window of
  // starts times the cycles its holds occupy, kUnitsPerModelCell units
  // each) and counted; a check whose estimate passes what is left is not
  // built, and the repair ends. Every check (the screen's, the whole
  // graph's, the second attempts) then counts its work as the oracle
  // prices it (oracle/exact/query.h, check_work: the model's literals and
  // its learned clauses, each of those by the model's variables), and its
  // learned clauses are held to what is left. 0: no such bound.
  int64_t work_budget = 0;
};

// What one repair did: the II it started from, the IIs it tried, and its
// work in the generator's units (PackingRepairOptions::work_budget).
struct PackingRepairReport {
  int64_t from_ii = 0;
  int64_t tried = 0;
  int64_t work = 0;
  bool out_of_work = false;  // a check was left out for want of budget
};
// Units per cell of a model's size estimate (one op's start in its window
// times one cycle of its holds): the model's build beyond its literals
// (its windows, rows and occupancy) costs about this much per cell; its
// literals are check_work's.
inline constexpr int64_t kUnitsPerModelCell = 2;


// The repair at an effort level (tilesched/cost_based.h): the defaults
// above; at kFast max_ops 0, no repair (docs/EXACT.md "The packing
// repair").
PackingRepairOptions packing_repair_options(Effort effort);

// Whether some slot packs several holders per row (capacity above one), some
// hold takes several units, or some op uses a rate pool: where the repair
// can find what the ladders miss.
bool packs_rows(const Graph& g);

// Lowers `s` (a feasible schedule of g by a heuristic; its II at least
// `ii_floor`) where it can: a SAT check under the budget at L = max(the
// heuristics' lower bound, ii_floor), then, while it is not found, at the
// middle of the IIs between the last one not found (unsat or out of
// budget) and the least found. The least found replaces s (stage and
// order derived, Pipe_/Mutex_ values and agents dropped, flagged
// "packing_repair", one diagnostic line).
// Deterministic. Leaves s alone when g does not pack
// rows, has more than max_ops ops, or s is not feasible.
// With `report`, what it did (from_ii 0 where it did not run).
void repair_packing(const Graph& g, int64_t ii_floor, const PackingRepairOptions& opts,
                    Schedule& s, PackingRepairReport* report = nullptr);

}  // namespace tilesched
