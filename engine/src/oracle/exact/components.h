// The components-first proof (docs/EXACT.md, "Components first"): a legal
// schedule of the graph restricted to a strongly connected component's ops
// is legal for the component's subgraph (every rule only loses terms), so
// a component with no schedule of its own at an II proves that the graph
// has none there. One proof for both of its callers, each with its own
// budget: the oracle's share of a check's time (the clock), the packing
// repair's screen a work budget per check. Internal to the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "query.h"
#include "tilesched/graph.h"

namespace tilesched::exact_internal {

// The strongly connected components (over every edge, any distance) worth
// an infeasibility proof of their own (docs/EXACT.md, "Components first"):
// each as the subgraph its ops induce (same target and attributes, the
// edges between them), for those of at least test_seams::min_component_ops
// ops, at most three quarters of the graph, and holding some slot or pool.
// Largest first.
std::vector<Graph> component_subgraphs(const Graph& g);

// What one proof may spend: `until` bounds each component's build and
// check on the clock (max: no clock), `units` each check's deterministic
// work in the backend's units (0: no such limit), `work` the checks' work
// together as check_work prices it (0: no such limit; a proof whose work
// reaches it asks no further component).
struct ComponentBudget {
  Clock::time_point until = Clock::time_point::max();
  int64_t units = 0;
  int64_t work = 0;
};

// How the proof runs a check and releases a model. The defaults call the
// model alone; the oracle's keep its clock budget's reserve (oracle.h).
class ComponentChecks {
 public:
  virtual ~ComponentChecks() = default;
  virtual Answer check(IiProblem& problem, int64_t stages, Clock::time_point until,
                       int64_t units) {
    return problem.check(stages, until, units);
  }
  virtual void release(std::unique_ptr<IiProblem>& problem) { problem.reset(); }
};

enum class ComponentVerdict {
  kInfeasible,  // some component has no schedule at the II: nor has the graph
  kOpen,        // nothing proven (sat, unknown, no component, or out of time)
  kCut,         // a component's build passed `until`
};

// The components of one graph (component_subgraphs, computed at the first
// proof), proven largest first.
class ComponentProof {
 public:
  // REQUIRES: g passed validate_graph and outlives the proof.
  explicit ComponentProof(const Graph& g) : g_(g) {}
  // One proof at ii: the components in turn, each at its own stage bound
  // (no stage limit: unsat rules out every schedule of the graph at ii,
  // whatever its stage count), until one has none (a component below its
  // recurrence has none without a model), the budget's clock has less than
  // a millisecond left, or every component has been asked. A component
  // whose model the backend declines (its size) proves nothing.
  ComponentVerdict prove(int64_t ii, Backend& backend, const ComponentBudget& budget,
                         ComponentChecks& checks);
  ComponentVerdict prove(int64_t ii, Backend& backend, const ComponentBudget& budget) {
    ComponentChecks plain;
    return prove(ii, backend, budget, plain);
  }
  // The components asked (0 before the first proof).
  int component_count() const { return components_ ? static_cast<int>(components_->size()) : 0; }
  // The backend's work over every check so far (at least 1 per check),
  // and the checks' work as check_work prices it.
  int64_t units_used() const { return units_used_; }
  int64_t work_used() const { return work_used_; }

 private:
  const Graph& g_;
  std::optional<std::vector<Graph>> components_;
  int64_t units_used_ = 0;
  int64_t work_used_ = 0;
};

}  // namespace tilesched::exact_internal
