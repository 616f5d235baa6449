// A CNF under construction on a CaDiCaL solver, for the exact oracle's SAT
// backend (docs/EXACT.md, "The SAT backend"): fresh variables, the two
// constant literals (clauses drop a false literal and vanish with a true
// one), and at-most constraints sum w_i [l_i] <= bound as a reduced
// ordered BDD over the terms (Abio, Nieuwenhuis, Oliveras and
// Rodriguez-Carbonell, "BDDs for Pseudo-Boolean Constraints", SAT 2012:
// interval memoisation), which covers at-most-one, cardinality and
// weighted sums alike. Internal to the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace CaDiCaL {
class Solver;
}

namespace tilesched::exact_internal {

class Cnf {
 public:
  // Variable 1 is the constant true (a unit clause).
  explicit Cnf(CaDiCaL::Solver& solver);

  static constexpr int kTrue = 1;
  static constexpr int kFalse = -1;

  int new_var() { return ++vars_; }
  // Whether some clause became empty (all its literals constant false):
  // the CNF is unsat whatever the solver says.
  bool inconsistent() const { return inconsistent_; }
  int vars() const { return vars_; }
  int64_t clauses() const { return clauses_; }
  int64_t literals() const { return literals_; }  // over the clauses given the solver

  void clause(std::initializer_list<int> lits);
  void clause(const std::vector<int>& lits);

  struct Term {
    int64_t weight;
    int lit;
  };
  // sum over terms of weight * [lit] <= bound (weights >= 0).
  void at_most(std::vector<Term> terms, int64_t bound);

 private:
  struct Node {
    int64_t lo, hi;  // the bounds for which this node is the same function
    int lit;
  };
  struct Built {
    int lit;
    int64_t lo, hi;
  };
  // The node of "sum of terms_[i..] <= bound" and its interval.
  Built bdd(size_t i, int64_t bound);
  template <class Lits>
  void add(const Lits& lits);

  CaDiCaL::Solver& solver_;
  int vars_ = 1;
  int64_t clauses_ = 0;
  int64_t literals_ = 0;
  bool inconsistent_ = false;
  // The BDD under construction: its terms, their suffix sums, and the
  // nodes made so far per level.
  std::vector<Term> terms_;
  std::vector<int64_t> rest_;
  std::vector<std::vector<Node>> memo_;
};

}  // namespace tilesched::exact_internal
