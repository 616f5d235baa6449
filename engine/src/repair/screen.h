// The packing repair's infeasibility screen (docs/EXACT.md, "The packing
// repair"): before the SAT model of the whole graph is built at an II, the
// heuristics' own II screen (ii_screen.h: the closure's cycles, energy on
// cyclic arcs; no solver) looks at it, then the oracle's components-first
// proof (oracle/exact/work_checks.h), each component's check under a small
// work budget. A component with no schedule proves that the graph has none at
// that II either: the check of the whole graph would be unsat, and is
// skipped. Internal to the engine; the repair (packing_repair.h) is its one caller.
#pragma once

#include <cstdint>

#include "graph/graph_algo.h"
#include "oracle/exact/work_checks.h"
#include "search/ii_screen.h"
#include "tilesched/graph.h"

namespace tilesched {

class ComponentScreen {
 public:
  // REQUIRES: g passed validate_graph; g and `checks` (on g) outlive the
  // screen.
  ComponentScreen(const Graph& g, WorkChecks& checks)
      : g_(g),
        adj_(Adjacency::build(g)),
        ii_screen_(g_, adj_, nullptr, "closure.repair"),
        checks_(checks) {}
  // Whether ii is proven to have no schedule: by the II screen, or by some
  // component, each component's check under `budget.units` of the
  // backend's work (learned clauses; never the clock), their work together
  // under `budget.work` (WorkChecks::component_rules_out). `spent` gains
  // what the checks spent, its work the II screen's too (IiScreen::
  // take_units). False when nothing is proven: unknown, sat, or no
  // component worth a check.
  bool rules_out(int64_t ii, const WorkChecks::Budget& budget, WorkChecks::Spent& spent);
  // The components checked (computed on the first call to rules_out).
  int component_count() const { return checks_.component_count(); }

 private:
  const Graph& g_;
  const Adjacency adj_;
  IiScreen ii_screen_;
  WorkChecks& checks_;
};

}  // namespace tilesched
