// A CNF on CaDiCaL with constant literals and BDD-encoded at-most
// constraints (cnf.h).
#include "cnf.h"

#include <algorithm>
#include <iterator>
#include <numeric>

#include <cadical.hpp>

#include "util/test_seams.h"

namespace tilesched::exact_internal {

namespace {

constexpr int64_t kInfinity = int64_t{1} << 62;

}  // namespace

Cnf::Cnf(CaDiCaL::Solver& solver) : solver_(solver) {
  solver_.set("quiet", 1);  // no "c ..." lines on stdout
  clause({kTrue});
}

template <class Lits>
void Cnf::add(const Lits& lits) {
  test_seams::count_trips("sat.literal", static_cast<int64_t>(std::size(lits)));
  for (int l : lits) {
    if (l == kTrue) return;  // satisfied
  }
  bool any = false;
  for (int l : lits) {
    if (l == kFalse) continue;
    solver_.add(l);
    ++literals_;
    any = true;
  }
  if (!any) {
    // The empty clause: the CNF is unsat. Recorded here rather than given
    // to CaDiCaL 1.5.3, which printed "found falsified original clause"
    // for it and still answered satisfiable in a model of ours
    // (fuzz-found: long.ExactDifferential.TinyGraphsAgainstBruteForce,
    // seed 1004, a leader group across an ASAP stage boundary).
    inconsistent_ = true;
    return;
  }
  solver_.add(0);
  ++clauses_;
}

void Cnf::clause(std::initializer_list<int> lits) { add(lits); }
void Cnf::clause(const std::vector<int>& lits) { add(lits); }

void Cnf::at_most(std::vector<Term> terms, int64_t bound) {
  // Constants and weights no term can reach: settled without the BDD.
  std::vector<Term> kept;
  for (const Term& t : terms) {
    if (t.weight <= 0 || t.lit == kFalse) continue;
    if (t.lit == kTrue) {
      bound -= t.weight;
    } else {
      kept.push_back(t);
    }
  }
  if (bound < 0) {
    clause({kFalse});
    return;
  }
  std::vector<Term> live;
  for (const Term& t : kept) {
    if (t.weight > bound) {
      clause({-t.lit});
    } else {
      live.push_back(t);
    }
  }
  int64_t divisor = 0;
  int64_t total = 0;
  for (const Term& t : live) {
    divisor = std::gcd(divisor, t.weight);
    total += t.weight;
  }
  if (total <= bound) return;
  for (Term& t : live) t.weight /= divisor;
  bound /= divisor;
  // Heavier terms first: fewer distinct partial sums near the root.
  std::stable_sort(live.begin(), live.end(),
                   [](const Term& a, const Term& b) { return a.weight > b.weight; });
  terms_ = std::move(live);
  rest_.assign(terms_.size() + 1, 0);
  for (size_t i = terms_.size(); i-- > 0;) rest_[i] = rest_[i + 1] + terms_[i].weight;
  memo_.assign(terms_.size() + 1, {});
  clause({bdd(0, bound).lit});
  terms_.clear();
  memo_.clear();
}

// The node is one-directional: node -> (the constraint on terms i.. holds),
// which is all an upper bound needs. Its interval is that of the paper:
// every bound in [lo, hi] gives the same function of the remaining terms.
Cnf::Built Cnf::bdd(size_t i, int64_t bound) {
  if (bound < 0) return {kFalse, -kInfinity, -1};
  if (rest_[i] <= bound) return {kTrue, rest_[i], kInfinity};
  for (const Node& n : memo_[i]) {
    if (n.lo <= bound && bound <= n.hi) return {n.lit, n.lo, n.hi};
  }
  const Term& t = terms_[i];
  const Built taken = bdd(i + 1, bound - t.weight);
  const Built skipped = bdd(i + 1, bound);
  const int64_t lo = std::max(taken.lo == -kInfinity ? -kInfinity : taken.lo + t.weight, skipped.lo);
  const int64_t hi = std::min(taken.hi == kInfinity ? kInfinity : taken.hi + t.weight, skipped.hi);
  int lit = skipped.lit;
  if (taken.lit != skipped.lit) {
    lit = new_var();
    clause({-lit, -t.lit, taken.lit});
    clause({-lit, skipped.lit});
  }
  memo_[i].push_back({lo, hi, lit});
  return {lit, lo, hi};
}

}  // namespace tilesched::exact_internal
