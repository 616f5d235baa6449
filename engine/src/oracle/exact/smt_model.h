// The exact oracle's per-II model (docs/EXACT.md, "Formulation"): integer
// stage k_v and row r_v per op, start s_v = II * k_v + r_v, and L1-L7 as
// linear constraints over them. Internal to the engine; Z3 types stay in
// this header and exact/*.cc.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include <z3++.h>

#include "holds.h"
#include "query.h"
#include "tilesched/graph.h"

namespace tilesched::exact_internal {

// The constraints of one candidate II on a solver of its own.
class SmtModel {
 public:
  // REQUIRES: g validated, ii >= 1; asap and tail from longest_paths at ii.
  // Throws ModelDeadline once `deadline` has passed.
  SmtModel(z3::context& ctx, const Graph& g, int64_t ii, int64_t stage_bound,
          const std::vector<int64_t>& asap, const std::vector<int64_t>& tail,
          unsigned random_seed, std::chrono::steady_clock::time_point deadline);

  // One check under a Z3 resource limit counted from the check's start
  // (0: none). The time limit is the caller's: it interrupts the context
  // at `until` (Z3's own "timeout" parameter is never set, see smt_backend.cc's
  // Watchdog), and a check ended by that interrupt answers unknown.
  z3::check_result check(std::chrono::steady_clock::time_point until, int64_t rlimit = 0);
  // Z3's resource counter of this context so far ("rlimit count").
  int64_t resources_used() const;
  // The starts of the last sat check's model.
  std::vector<int64_t> starts() const;

  // The start-sum tie-break's bound: sum of s_v <= t. (The stage descent
  // builds a fresh model per step with the step's stage bound instead: a
  // push on a large model internalises it outside any time limit.)
  void limit_start_sum(int64_t t);

 private:
  void add_dependences();
  // L2 (singleton slots pairwise, pooled ones per arc) and L3.
  void add_slots_and_rate_pools();
  void add_storage();
  void add_groups_depths_serial();
  void add_interchangeable_order();
  // Pooled capacity: at every hold's first row, the holds covering it fit.
  void add_modulo_capacity(const std::vector<Hold>& holds, int64_t capacity);
  void add_singleton(const std::vector<Hold>& holds);
  void check_deadline() const;

  z3::context& ctx_;
  const Graph& g_;
  int64_t ii_;
  std::chrono::steady_clock::time_point deadline_;
  z3::solver solver_;
  std::vector<z3::expr> k_, r_, s_;
};

}  // namespace tilesched::exact_internal
