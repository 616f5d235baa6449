// The exact oracle's checks of one II under a work budget: its interface
// for the steps after a heuristic's search (repair/). Two checks on one
// graph: the whole graph on the row/stage SAT model, and the
// components-first proof (components.h). The budget is CaDiCaL's learned
// clauses and the work those and the model's size price (query.h,
// check_work), never the clock, so every answer is deterministic.
// REQUIRES: the graph passed validate_graph and outlives the checks.
// A solver failure throws WorkChecks::SolverFailed.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

namespace exact_internal {
class Backend;
class ComponentProof;
}  // namespace exact_internal

class WorkChecks {
 public:
  struct SolverFailed {};
  enum class Answer { kFound, kNone, kUnknown };
  // What a check may spend: at most `units` of the backend's work (learned
  // clauses) and at most `work` as check_work prices it, the model's
  // literals included; 0: no such limit. A check that runs takes at least
  // one unit.
  struct Budget {
    int64_t units = 0;
    int64_t work = 0;
  };
  // What a check spent: the backend's units (at least 1 for a check that
  // ran) and their work as check_work prices it.
  struct Spent {
    int64_t units = 0;
    int64_t work = 0;
  };
  struct Result {
    Answer answer = Answer::kUnknown;
    std::vector<int64_t> start;  // kFound: a legal schedule's starts at the II
    Spent spent;
  };

  explicit WorkChecks(const Graph& g);
  ~WorkChecks();
  WorkChecks(const WorkChecks&) = delete;
  WorkChecks& operator=(const WorkChecks&) = delete;

  // The whole graph at ii, at most min(stages, the II's own stage bound)
  // stages, under `budget`; CaDiCaL in its stable mode only when
  // `stable_only`. kFound: the starts pass the verifier; kNone: unsat (or
  // ii below a recurrence); kUnknown: out of budget, a model over the
  // backend's size limit, or starts the verifier refuses (a bug in the
  // model).
  Result whole_graph(int64_t ii, int64_t stages, const Budget& budget, bool stable_only);
  // The size of whole_graph's model at ii, before it is built: every op's
  // window of starts times one plus the cycles its holds occupy (the
  // resource clauses dominate); 0 when ii is below a recurrence.
  int64_t model_cells(int64_t ii, int64_t stages) const;
  // Whether some component of the graph provably has no schedule at ii:
  // each component's check under `budget.units`, their work together
  // under `budget.work`. `spent` gains what they spent.
  bool component_rules_out(int64_t ii, const Budget& budget, Spent& spent);
  // The components the proof asks (0 before its first call).
  int component_count() const;

 private:
  exact_internal::Backend& backend();

  const Graph& g_;
  std::unique_ptr<exact_internal::Backend> backend_;  // made at the first check
  std::unique_ptr<exact_internal::ComponentProof> components_;
};

}  // namespace tilesched
