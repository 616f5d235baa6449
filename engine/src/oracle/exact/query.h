// The exact oracle's question at one candidate II, whatever solver answers
// it (docs/EXACT.md): the spec every caller builds (ModelSpec, model_spec),
// the backend that turns it into a model (an SMT model on Z3, a CNF on
// CaDiCaL), the model's check, and each op's window under the spec.
// Internal to the engine; no solver's header is included here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/exact.h"
#include "tilesched/graph.h"

namespace tilesched::exact_internal {

using Clock = std::chrono::steady_clock;

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

// The latest start of op v in the canonical schedule with
// spec.stage_bound stages (and within L6, L7 and the verifier's largest
// start): the top of its window in any legal schedule whose stages are all
// at most spec.stage_bound (docs/EXACT.md, step 5 of "The search").
int64_t latest_start(const Graph& g, const ModelSpec& spec, OpId v);

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
  // The model's size as the solver holds it: its variables and the
  // literals of its clauses (0 where the backend does not count them).
  virtual int64_t variables() const { return 0; }
  virtual int64_t literals() const { return 0; }
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

// The work of a model's checks so far, in units that track CPU time (the
// cost-based generator's meter: docs/EXACT.md, "The repair's work"), from
// sizes and counts alone, never the clock: kWorkPerLiteral per literal of
// its clauses (building them, and the solver's first passes over them),
// and per unit of the backend's work (a CaDiCaL learned clause)
// kWorkPerConflict and one unit per kVariablesPerWork variables (analysing
// the conflict, then propagating again a trail that grows with the model).
inline constexpr int64_t kWorkPerLiteral = 4, kWorkPerConflict = 1'024, kVariablesPerWork = 3;
int64_t check_work(const IiProblem& p);
// A check's limit in backend units: at most `units` (0: none) and, where
// `work` > 0, the most (at least 1) that keep check_work(p) within `work`.
int64_t units_within(const IiProblem& p, int64_t units, int64_t work);

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
