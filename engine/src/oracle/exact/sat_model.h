// The exact oracle's SAT models (docs/EXACT.md, "The SAT backend"): what
// the two CNF encodings of one II share on CaDiCaL. Each op's start row is
// a set of row literals m(v, r), implied by the op's start (never the other
// way: a row literal set without need only adds load); L2 and L3 are
// at-most constraints (cnf.h) over per-row occupancy literals; a check
// limits the stages by assumptions, so one model answers every stage bound
// up to its K. The encodings: time-indexed (sat_time.cc, one order literal
// per op and cycle of its window) and row/stage (sat_rowstage.cc, order
// literals for the row and for the stage apart).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <cadical.hpp>

#include "cnf.h"
#include "holds.h"
#include "query.h"

namespace tilesched::exact_internal {

// Ends a solve at the check's time limit. CaDiCaL 1.5 polls it only
// between decisions, so a solve runs on past `until` for as long as it
// goes without polling: on a large CNF a run of conflicts or a lucky
// phase without a decision lasted 0.3 s of CPU (2.3 s of the clock under
// load, md_grid graph7's 630,000 variables). The longest such stretch is
// kept, in thread CPU time, for the oracle's reserve. The CPU clock is a
// system call, so it is read only at polls a millisecond or more of the
// clock after its last reading: a stretch's CPU time is then read from a
// mark less than a millisecond of the clock before the stretch began.
class SolveUntil : public CaDiCaL::Terminator {
 public:
  Clock::time_point until;
  int64_t longest_gap_cpu_us = 0;  // between polls, over every solve

  // At a solve's start: its first stretch begins here.
  void start(Clock::time_point stop_at);
  bool terminate() override;

 private:
  Clock::time_point last_poll_;  // or the solve's start
  Clock::time_point mark_;       // when the CPU clock was last read
  int64_t mark_cpu_us_ = 0;      // what it read
};

// Counts learned clauses: the backend's deterministic work units.
class LearnCounter : public CaDiCaL::Learner {
 public:
  int64_t count = 0;
  bool learning(int) override {
    ++count;
    return false;
  }
  void learn(int) override {}
};

class SatModel : public IiProblem {
 public:
  SatModel(const Graph& g, const ModelSpec& spec);
  ~SatModel() override;

  bool limits_stages() const override { return true; }
  Answer check(int64_t stages, Clock::time_point until, int64_t units) override;
  int64_t units_used() const override { return learned_.count; }
  int64_t variables() const override { return cnf_.vars(); }
  int64_t literals() const override { return cnf_.literals(); }
  bool limit_start_sum(int64_t) override { return false; }
  int64_t unpolled_cpu_us() const override;

 protected:
  // The row literals of op v: one per row, kFalse where v cannot start.
  virtual std::vector<int> make_rows(OpId v) = 0;
  // o(v, q) per row q: forced true when row q lies on the arc of `arc`
  // rows from v's start row (0 < arc < II). By default implied by the row
  // literals (II * arc clauses).
  virtual std::vector<int> make_occupancy(OpId v, int64_t arc);
  // Assumes every stage at most `stages` (< K) for the next solve; false
  // when no start of some op meets it (unsat without a solve).
  virtual bool assume_stages(int64_t stages) = 0;
  // L2 and L3 over the row literals; then the solver's callbacks.
  void add_resources();
  // L4, written once for both encodings: one copy of every stored buffer
  // is fixed; `copies(v, most, terms)` adds op v's literals copies_v >= j
  // (j = 2 .. most, most = ceil(longest / II) for v's longest data lifetime
  // over the start windows [lo, hi]), one term of v's bytes each, and the
  // clauses that force them (polling the deadline as it goes); the terms
  // then fit the pool beside the fixed copies.
  using StorageCopies = std::function<void(OpId v, int64_t most, std::vector<Cnf::Term>& terms)>;
  void add_storage(const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                   const StorageCopies& copies);
  // Throws ModelDeadline once the build's deadline has passed; every
  // phase of a build polls it inside its loops, naming itself.
  void check_deadline(const char* phase) const;

  // The prior estimate of unpolled_cpu_us: one microsecond per this many
  // literals of the CNF.
  static constexpr int64_t kLiteralsPerUnpolledCpuUs = 2;

  const Graph& g_;
  int64_t ii_;
  int64_t k_;
  Clock::time_point deadline_;
  std::vector<int64_t> asap_, tail_;
  mutable CaDiCaL::Solver solver_;
  bool stable_only_;  // ModelSpec::stable_only, set on solver_ before cnf_'s first clause
  Cnf cnf_{solver_};
  bool empty_ = false;  // some window is empty: unsat whatever the stages

 private:
  const std::vector<int>& rows(OpId v);
  std::vector<int> occupancy(OpId v, int64_t arc);
  void add_modulo_capacity(const std::vector<Hold>& holds, int64_t capacity);

  SolveUntil until_;
  LearnCounter learned_;
  std::vector<std::vector<int>> rows_;  // empty: not made yet
  // o(v, q) per (op, arc length): row q lies on v's partial arc
  std::vector<std::vector<std::pair<int64_t, std::vector<int>>>> occupancy_;
};

// The time-indexed model, or nullptr when its windows exceed `max_literals`
// order literals in all.
std::unique_ptr<IiProblem> make_time_indexed(const Graph& g, const ModelSpec& spec,
                                             int64_t max_literals);
std::unique_ptr<IiProblem> make_row_stage(const Graph& g, const ModelSpec& spec);

}  // namespace tilesched::exact_internal
