// The exact oracle's view of one candidate II, whatever solver answers it
// (docs/EXACT.md): the backend interface (an SMT model on Z3, a CNF on
// CaDiCaL) and the bounds every model shares: the ASAP and tail longest
// paths, the stage bound K, and the interchangeable ops. Internal to the
// engine; no solver's header is included here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/exact.h"
#include "tilesched/graph.h"

namespace tilesched::exact_internal {

using Clock = std::chrono::steady_clock;

// Longest paths over edge weights latency - distance * II, from a virtual
// source joined to every op with weight 0 (forward: the ASAP start of each
// op in any legal schedule at II), or to a virtual sink (reverse: how far
// each op's start must stay below the latest start). nullopt: a positive
// cycle, so II is below RecMII.
std::optional<std::vector<int64_t>> longest_paths(const Graph& g, int64_t ii, bool reverse);

// K: every graph that has a legal schedule at II has one whose stages are
// all at most K (docs/EXACT.md, "Stage bound" gives the argument).
int64_t stage_bound(const Graph& g, int64_t ii);

// Pairs (u, v), u < v, of ops that can swap starts in any legal schedule
// (equal in every field a rule reads, the same edges, none between them);
// each op is paired with the latest earlier such op, so a model may keep
// s_u <= s_v for every pair (docs/EXACT.md, "Symmetry 2").
std::vector<std::pair<OpId, OpId>> interchangeable_pairs(const Graph& g);

// The strongly connected components (over every edge, any distance) worth
// an infeasibility proof of their own (docs/EXACT.md, "Components first"):
// each as the subgraph its ops induce (same target and attributes, the
// edges between them), for those of at least test_seams::min_component_ops ops, at
// most three quarters of the graph, and holding some slot or pool. Largest
// first.
std::vector<Graph> component_subgraphs(const Graph& g);

// Whether some op has a leader_gid (Symmetry 1 then does not hold).
bool has_groups(const Graph& g);

// Thrown while a model is built once its deadline has passed (a large
// graph's constraints can take seconds); the half-built model is discarded.
struct ModelDeadline {};

// Thrown by a backend whose solver failed (out of memory, ...): the oracle
// turns it into an InvalidInput status.
struct BackendFailure {
  std::string message;
};

enum class Answer { kSat, kUnsat, kUnknown };

// What a backend is given to build one II's model: the II, the stage bound
// K of the model, each op's ASAP start and its tail (longest_paths), and the
// deadline for building it.
struct ModelSpec {
  int64_t ii = 1;
  int64_t stage_bound = 0;
  std::vector<int64_t> asap, tail;
  Clock::time_point deadline;
  // The SAT backend searches in CaDiCaL's stable mode only
  // (`stabilizeonly`): the packing repair's second attempt at an II whose
  // first check ended unknown. The oracle leaves it false; other backends
  // ignore it.
  bool stable_only = false;
};

// One II's spec as every caller of a backend asks for it: the ASAP starts
// (`asap` when the caller has them, else computed) and the tails at ii,
// `stage_bound`, and `deadline` (none: the caller's budget is work, not the
// clock). nullopt when ii is below a recurrence (longest_paths finds a
// positive cycle).
std::optional<ModelSpec> model_spec(const Graph& g, int64_t ii, int64_t stage_bound,
                                    Clock::time_point deadline = Clock::time_point::max(),
                                    std::optional<std::vector<int64_t>> asap = std::nullopt);

// The constraints L1-L7 at one II with every stage at most K.
class IiProblem {
 public:
  virtual ~IiProblem() = default;
  // Whether check() takes a stage limit below K (on the same solver, by
  // assumptions); otherwise every check's limit is K itself.
  virtual bool limits_stages() const = 0;
  // Is there a legal schedule at II with every stage at most `stages`?
  // kUnknown once `until` passes or after `units` of the backend's
  // deterministic work (0: no such limit).
  virtual Answer check(int64_t stages, Clock::time_point until, int64_t units) = 0;
  // The backend's deterministic work counter of this model so far (Z3
  // resource units; CaDiCaL learned clauses).
  virtual int64_t units_used() const = 0;
  // The starts of the last kSat answer.
  virtual std::vector<int64_t> starts() const = 0;
  // Adds sum of starts <= t for every later check; false: not supported.
  virtual bool limit_start_sum(int64_t t) = 0;
  // A schedule near which the next checks should look first (a phase hint:
  // it changes where the search begins, never the answer); a backend may
  // ignore it.
  virtual void hint(const std::vector<int64_t>& starts) { (void)starts; }
  // The longest stretch, in microseconds of this thread's CPU time, that
  // this model's solver has run without looking at the clock: a check may
  // end that late after its `until`, stretched by the CPU share the
  // thread gets (0: the backend does not know). Before the model's first
  // check, an estimate from its size. The oracle keeps that much of its
  // time in reserve (docs/EXACT.md, "Time limit").
  virtual int64_t unpolled_cpu_us() const { return 0; }
};

// One op's hold of a slot or pool: `amount` units for `duration` cycles
// from its start.
struct Hold {
  OpId op;
  int64_t duration;
  int64_t amount;
};

// L2/L3 on one slot or pool at II: full turns of the II load every row
// alike (`base`); the partial arcs, duration mod II rows each, are what
// varies from row to row. `over`: the base alone exceeds the capacity (no
// placement fits). Holds of no duration or amount are left out.
struct ModuloHolds {
  int64_t base = 0;
  int64_t arcs_total = 0;  // the arcs' amounts together
  std::vector<Hold> arcs;
  bool over = false;
};
ModuloHolds split_modulo(const std::vector<Hold>& holds, int64_t ii, int64_t capacity);

// The holds of one singleton or pooled slot (L2) or rate pool (L3, each
// held for the holder's footprint duration D_v), with its capacity.
struct CapacityHolds {
  std::vector<Hold> holds;
  int64_t capacity = 0;
  bool slot = true;  // false: a rate pool
};
// Every slot and rate pool that some op holds, slots first, in id order.
std::vector<CapacityHolds> capacity_holds(const Graph& g);

// The latest start of op v in the canonical schedule with
// spec.stage_bound stages (and within L6, L7 and the verifier's largest
// start): the top of its window in any legal schedule whose stages are all
// at most spec.stage_bound (docs/EXACT.md, step 5 of "The search").
int64_t latest_start(const Graph& g, const ModelSpec& spec, OpId v);

// The stage floor of the resources (docs/EXACT.md, "The stage floor"): the
// least S in [from, to] at which, with every op's start within [ASAP_v,
// latest_start with S stages], each slot and rate pool can still carry its
// holds: per row, the load is at most the capacity and at most what the ops
// whose window reaches that row can bring, and the rows together must carry
// every hold. No legal schedule at II has all its stages below it; nullopt
// when no S in [from, to] passes (then none at most `to` exists).
std::optional<int64_t> resource_stage_floor(const Graph& g, int64_t ii,
                                            const std::vector<int64_t>& asap,
                                            const std::vector<int64_t>& tail, int64_t from,
                                            int64_t to);

// L5: pairs (u, v) of ops of one leader group, each member paired with the
// one before it in (leader_gid, op id) order; a model that ties each pair
// ties every group.
std::vector<std::pair<OpId, OpId>> leader_group_pairs(const Graph& g);

class Backend {
 public:
  virtual ~Backend() = default;
  // Throws ModelDeadline when spec.deadline passes while building, and
  // BackendFailure when the solver fails.
  virtual std::unique_ptr<IiProblem> build(const Graph& g, const ModelSpec& spec) = 0;
};

std::unique_ptr<Backend> make_smt_backend(unsigned random_seed);
std::unique_ptr<Backend> make_sat_backend(SatEncoding encoding);

}  // namespace tilesched::exact_internal
