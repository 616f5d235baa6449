// The exact oracle's SAT backend (docs/EXACT.md, "The SAT backend"): one
// CNF per candidate II on CaDiCaL, kept across the stage limits asked at
// that II (assumptions). Time-indexed in the order encoding: per op v and
// cycle t of its window [ASAP_v, ALAP_v], a literal y(v, t) = [s_v <= t];
// L1 becomes binary clauses, the stage limits and L6/L7 shrink windows,
// the modulo rows of the RRT are row literals implied by the start, and
// L2/L3/L4 are at-most constraints (cnf.h) per modulo row and over the
// storage pool.
#include <algorithm>
#include <climits>
#include <memory>
#include <optional>
#include <string>

#include <cadical.hpp>

#include "cnf.h"
#include "problem.h"
#include "tilesched/limits.h"

namespace tilesched::exact_internal {

namespace {

// The largest time-indexed model built: the sum over ops of their window
// sizes (order literals). Beyond it (huge IIs times many stages) the
// backend answers unknown without a model; docs/EXACT.md.
constexpr int64_t kMaxOrderLiterals = 3'000'000;

// Ends a solve at the check's time limit (CaDiCaL polls it).
class Until : public CaDiCaL::Terminator {
 public:
  Clock::time_point until;
  bool terminate() override { return Clock::now() >= until; }
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

struct Hold {
  OpId op;
  int64_t duration;
  int64_t amount;
};

class SatProblem : public IiProblem {
 public:
  SatProblem(const Graph& g, const ModelSpec& spec);
  ~SatProblem() override {
    solver_.disconnect_terminator();
    solver_.disconnect_learner();
  }

  bool limits_stages() const override { return true; }
  Answer check(int64_t stages, Clock::time_point until, int64_t units) override;
  int64_t units_used() const override { return learned_.count; }
  std::vector<int64_t> starts() const override;
  bool limit_start_sum(int64_t) override { return false; }

  // Whether the windows fit the size cap (otherwise nothing was built).
  bool built() const { return built_; }

 private:
  bool make_windows(const ModelSpec& spec);
  // [s_v <= t] as a literal (a constant outside the window).
  int le(OpId v, int64_t t) const;
  void add_chains_and_dependences();
  void add_symmetry();
  void add_groups();
  const std::vector<int>& rows(OpId v);
  const std::vector<int>& occupancy(OpId v, int64_t arc);
  void add_modulo_capacity(const std::vector<Hold>& holds, int64_t capacity);
  void add_slots();
  void add_rate_pools();
  void add_storage();
  void add_storage_copies(OpId v, std::vector<Cnf::Term>& terms);
  void check_deadline() const;

  const Graph& g_;
  int64_t ii_;
  int64_t k_;
  Clock::time_point deadline_;
  std::vector<int64_t> tail_, lo_, hi_;
  std::vector<int> first_;  // y(v, lo_v) is variable first_[v], then consecutive
  mutable CaDiCaL::Solver solver_;
  Cnf cnf_{solver_};
  Until until_;
  LearnCounter learned_;
  std::vector<std::vector<int>> rows_;  // m(v, r): v starts in row r (empty: not made)
  // o(v, q) per (op, arc length): row q lies on v's partial arc
  std::vector<std::vector<std::pair<int64_t, std::vector<int>>>> occupancy_;
  bool built_ = false;
  bool empty_ = false;  // some window is empty: unsat whatever the stages
};

SatProblem::SatProblem(const Graph& g, const ModelSpec& spec)
    : g_(g), ii_(spec.ii), k_(spec.stage_bound), deadline_(spec.deadline), tail_(spec.tail) {
  if (!make_windows(spec)) return;
  built_ = true;
  if (empty_) return;
  rows_.assign(g.op_count(), {});
  occupancy_.assign(g.op_count(), {});
  add_chains_and_dependences();
  add_symmetry();
  add_groups();
  add_slots();
  add_rate_pools();
  add_storage();
  solver_.connect_terminator(&until_);
  solver_.connect_learner(&learned_);
}

// The window of each op: from its ASAP start to the latest start of the
// canonical schedule with K stages (minus its tail), within L6's and L7's
// stage limits and the verifier's largest start.
bool SatProblem::make_windows(const ModelSpec& spec) {
  const int n = g_.op_count();
  const int64_t horizon =
      std::min(limits::kMaxStart, ii_ * std::min(k_ + 1, limits::kMaxStart / ii_) - 1);
  int64_t total = 0;
  lo_.assign(n, 0);
  hi_.assign(n, 0);
  first_.assign(n, 0);
  for (OpId v = 0; v < n; ++v) {
    const Op& op = g_.ops[v];
    lo_[v] = spec.asap[v];
    hi_[v] = horizon - spec.tail[v];
    if (op.max_depth) hi_[v] = std::min(hi_[v], ii_ * (*op.max_depth + 1) - 1);  // L6
    if (g_.attrs.force_serial_execution) {  // L7: stage 0 and s_v + D_v <= II
      hi_[v] = std::min(hi_[v], ii_ - footprint_duration(op));
    }
    if (hi_[v] < lo_[v]) {
      empty_ = true;
      continue;
    }
    total += hi_[v] - lo_[v];
    if (total > kMaxOrderLiterals) return false;
  }
  if (empty_) return true;
  for (OpId v = 0; v < n; ++v) {
    first_[v] = cnf_.vars() + 1;
    for (int64_t t = lo_[v]; t < hi_[v]; ++t) cnf_.new_var();
  }
  return true;
}

int SatProblem::le(OpId v, int64_t t) const {
  if (t < lo_[v]) return Cnf::kFalse;
  if (t >= hi_[v]) return Cnf::kTrue;
  return first_[v] + static_cast<int>(t - lo_[v]);
}

void SatProblem::check_deadline() const {
  if (Clock::now() >= deadline_) throw ModelDeadline{};
}

// The order chains y(v, t) -> y(v, t + 1), and L1 for every edge: s_from >=
// t implies s_to >= t + latency - distance * II.
void SatProblem::add_chains_and_dependences() {
  for (OpId v = 0; v < g_.op_count(); ++v) {
    for (int64_t t = lo_[v]; t + 1 < hi_[v]; ++t) cnf_.clause({-le(v, t), le(v, t + 1)});
  }
  check_deadline();
  for (const Edge& e : g_.edges) {
    if (e.from == e.to) continue;  // II >= RecMII: a self-loop holds
    const int64_t c = e.latency - e.distance * ii_;
    for (int64_t t = lo_[e.from]; t <= hi_[e.from]; ++t) {
      if (t + c - 1 >= hi_[e.to]) {  // s_to >= t + c is impossible
        cnf_.clause({le(e.from, t - 1)});
        break;
      }
      if (t + c - 1 < lo_[e.to]) continue;  // implied by to's window
      cnf_.clause({le(e.from, t - 1), -le(e.to, t + c - 1)});
    }
    check_deadline();
  }
}

// Symmetry 1 (no groups): some op starts at 0; Symmetry 2: interchangeable
// ops keep their id order (docs/EXACT.md).
void SatProblem::add_symmetry() {
  if (!has_groups(g_) && g_.op_count() > 0) {
    std::vector<int> at_zero;
    for (OpId v = 0; v < g_.op_count(); ++v) at_zero.push_back(le(v, 0));
    cnf_.clause(at_zero);
  }
  for (const auto& [u, v] : interchangeable_pairs(g_)) {  // s_u <= s_v
    for (int64_t t = lo_[v]; t < hi_[v]; ++t) cnf_.clause({-le(v, t), le(u, t)});
  }
}

// L5: a group's members share a stage; the stage of v is at most b exactly
// when y(v, II * (b + 1) - 1).
void SatProblem::add_groups() {
  std::vector<std::pair<int64_t, OpId>> members;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    if (g_.ops[v].leader_gid) members.push_back({*g_.ops[v].leader_gid, v});
  }
  std::sort(members.begin(), members.end());
  for (size_t i = 1; i < members.size(); ++i) {
    if (members[i].first != members[i - 1].first) continue;
    const OpId u = members[i - 1].second, v = members[i].second;
    for (int64_t b = 0; b <= k_; ++b) {
      const int64_t t = ii_ * (b + 1) - 1;
      cnf_.clause({-le(u, t), le(v, t)});
      cnf_.clause({le(u, t), -le(v, t)});
    }
  }
}

// m(v, r) for every row r v can start in: x(v, t) = y(v, t) and not
// y(v, t - 1) implies m(v, t mod II). Only this direction: a row literal
// set without need only adds load, so the solver never needs to.
const std::vector<int>& SatProblem::rows(OpId v) {
  std::vector<int>& m = rows_[v];
  if (!m.empty()) return m;
  m.assign(ii_, Cnf::kFalse);
  const int64_t last = std::min(hi_[v], lo_[v] + ii_ - 1);
  for (int64_t t = lo_[v]; t <= last; ++t) m[t % ii_] = cnf_.new_var();
  for (int64_t t = lo_[v]; t <= hi_[v]; ++t) {
    cnf_.clause({-le(v, t), le(v, t - 1), m[t % ii_]});
  }
  return m;
}

// o(v, q) for a partial arc of `arc` rows from v's start row: implied by
// every row literal whose arc covers q.
const std::vector<int>& SatProblem::occupancy(OpId v, int64_t arc) {
  for (const auto& [p, lits] : occupancy_[v]) {
    if (p == arc) return lits;
  }
  const std::vector<int> m = rows(v);
  std::vector<int> o(ii_, Cnf::kFalse);
  for (int64_t r = 0; r < ii_; ++r) {
    if (m[r] == Cnf::kFalse) continue;
    for (int64_t j = 0; j < arc; ++j) {
      int& q = o[(r + j) % ii_];
      if (q == Cnf::kFalse) q = cnf_.new_var();
      cnf_.clause({-m[r], q});
    }
  }
  occupancy_[v].emplace_back(arc, std::move(o));
  return occupancy_[v].back().second;
}

// L2/L3 on one slot or pool: full turns load every row alike (a constant);
// the partial arcs of duration mod II rows are at most the rest, per row.
void SatProblem::add_modulo_capacity(const std::vector<Hold>& holds, int64_t capacity) {
  int64_t base = 0, arcs_total = 0;
  std::vector<Hold> arcs;
  for (const Hold& h : holds) {
    if (h.duration <= 0 || h.amount <= 0) continue;
    base += h.amount * (h.duration / ii_);
    if (h.duration % ii_ != 0) {
      arcs.push_back({h.op, h.duration % ii_, h.amount});
      arcs_total += h.amount;
    }
    if (base > capacity) {
      cnf_.clause({Cnf::kFalse});
      return;
    }
  }
  if (base + arcs_total <= capacity) return;
  std::vector<std::vector<int>> occ;  // copies: occupancy_ may grow meanwhile
  for (const Hold& h : arcs) occ.push_back(occupancy(h.op, h.duration));
  for (int64_t q = 0; q < ii_; ++q) {
    std::vector<Cnf::Term> terms;
    for (size_t i = 0; i < arcs.size(); ++i) terms.push_back({arcs[i].amount, occ[i][q]});
    cnf_.at_most(std::move(terms), capacity - base);
    if (q % 64 == 0) check_deadline();
  }
}

void SatProblem::add_slots() {
  std::vector<std::vector<Hold>> by_slot(g_.target.slot_count());
  for (OpId v = 0; v < g_.op_count(); ++v) {
    for (const Triple& t : g_.ops[v].resources) {
      if (t.duration > 0 && t.occupancy > 0) {
        by_slot[t.slot - 1].push_back({v, t.duration, t.occupancy});
      }
    }
  }
  for (size_t j = 0; j < by_slot.size(); ++j) {
    if (!by_slot[j].empty()) add_modulo_capacity(by_slot[j], g_.target.slots[j].capacity);
  }
}

void SatProblem::add_rate_pools() {
  std::vector<std::vector<Hold>> by_pool(g_.target.pools.size());
  for (OpId v = 0; v < g_.op_count(); ++v) {
    for (const PoolUse& p : g_.ops[v].pools) {
      if (p.count > 0) by_pool[p.pool].push_back({v, footprint_duration(g_.ops[v]), p.count});
    }
  }
  for (size_t p = 0; p < by_pool.size(); ++p) {
    if (g_.target.pools[p].kind != PoolKind::kRate || by_pool[p].empty()) continue;
    add_modulo_capacity(by_pool[p], g_.target.pools[p].capacity);
  }
}

// L4: copies_v >= j (j >= 2) is forced when some data consumer w ends more
// than (j - 1) * II after s_v: s_v <= t and s_w >= t + (j - 1) * II - e + 1
// (e = distance * II + D_w) imply it. Every such literal adds bytes_v.
void SatProblem::add_storage_copies(OpId v, std::vector<Cnf::Term>& terms) {
  int64_t longest = 1;
  for (const Edge& e : g_.edges) {
    if (e.from != v || e.kind != EdgeKind::kData) continue;
    longest = std::max(longest, hi_[e.to] + e.distance * ii_ +
                                    footprint_duration(g_.ops[e.to]) - lo_[v]);
  }
  const int64_t most = (longest + ii_ - 1) / ii_;
  int previous = Cnf::kTrue;  // copies >= 1
  for (int64_t j = 2; j <= most; ++j) {
    const int at_least = cnf_.new_var();
    cnf_.clause({-at_least, previous});
    previous = at_least;
    terms.push_back({g_.ops[v].store_bytes, at_least});
    for (const Edge& e : g_.edges) {
      if (e.from != v || e.kind != EdgeKind::kData) continue;
      const int64_t extra = e.distance * ii_ + footprint_duration(g_.ops[e.to]);
      for (int64_t t = lo_[v]; t <= hi_[v]; ++t) {
        const int64_t need = t + (j - 1) * ii_ - extra + 1;  // s_w >= need forces it
        if (need - 1 >= hi_[e.to]) break;
        cnf_.clause({-le(v, t), le(e.to, need - 1), at_least});
      }
    }
    check_deadline();
  }
}

void SatProblem::add_storage() {
  const std::optional<int> pool = g_.target.storage_pool();
  if (!pool) return;
  int64_t fixed = 0;  // one copy of every buffer
  std::vector<Cnf::Term> terms;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    if (g_.ops[v].store_bytes <= 0) continue;
    fixed += g_.ops[v].store_bytes;
    add_storage_copies(v, terms);
  }
  cnf_.at_most(std::move(terms), g_.target.pools[*pool].capacity - fixed);
}

Answer SatProblem::check(int64_t stages, Clock::time_point until, int64_t units) {
  if (empty_) return Answer::kUnsat;
  if (Clock::now() >= until) return Answer::kUnknown;
  if (stages < k_) {  // every start at most the canonical ALAP with `stages` stages
    for (OpId v = 0; v < g_.op_count(); ++v) {
      const int lit = le(v, ii_ * (stages + 1) - 1 - tail_[v]);
      if (lit == Cnf::kFalse) return Answer::kUnsat;
      if (lit != Cnf::kTrue) solver_.assume(lit);
    }
  }
  if (units > 0) solver_.limit("conflicts", static_cast<int>(std::min<int64_t>(units, INT_MAX)));
  until_.until = until;
  const int r = solver_.solve();
  if (r == 10) return Answer::kSat;
  if (r == 20) return Answer::kUnsat;
  return Answer::kUnknown;
}

std::vector<int64_t> SatProblem::starts() const {
  std::vector<int64_t> out(g_.op_count(), 0);
  for (OpId v = 0; v < g_.op_count(); ++v) {
    int64_t t = lo_[v];
    while (t < hi_[v] && solver_.val(le(v, t)) < 0) ++t;
    out[v] = t;
  }
  return out;
}

class SatBackend : public Backend {
 public:
  std::unique_ptr<IiProblem> build(const Graph& g, const ModelSpec& spec) override {
    auto problem = std::make_unique<SatProblem>(g, spec);
    if (!problem->built()) return nullptr;
    return problem;
  }
};

}  // namespace

std::unique_ptr<Backend> make_sat_backend() { return std::make_unique<SatBackend>(); }

}  // namespace tilesched::exact_internal
