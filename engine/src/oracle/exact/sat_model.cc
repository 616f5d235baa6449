// What the exact oracle's SAT encodings share (sat_model.h): the row and
// occupancy literals, L2/L3 as per-row at-most constraints, and a check
// under the stage limit's assumptions, the time limit and a conflict budget.
#include "sat_model.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "util/elapsed.h"
#include "util/test_seams.h"

namespace tilesched::exact_internal {

namespace {

// CaDiCaL takes options only before the first clause.
bool configure(CaDiCaL::Solver& solver, const ModelSpec& spec) {
  if (spec.stable_only) solver.set("stabilizeonly", 1);
  return spec.stable_only;
}

}  // namespace

SatModel::SatModel(const Graph& g, const ModelSpec& spec)
    : g_(g),
      ii_(spec.ii),
      k_(spec.stage_bound),
      deadline_(spec.deadline),
      asap_(spec.asap),
      tail_(spec.tail),
      stable_only_(configure(solver_, spec)),
      rows_(g.op_count()),
      occupancy_(g.op_count()) {}

SatModel::~SatModel() {
  solver_.disconnect_terminator();
  solver_.disconnect_learner();
}

void SatModel::check_deadline(const char* phase) const {
  if (test_seams::build_poll != nullptr) test_seams::build_poll(phase);
  if (Clock::now() >= deadline_) throw ModelDeadline{};
}

void SatModel::add_storage(const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                           const StorageCopies& copies) {
  const std::optional<int> pool = g_.target.storage_pool();
  if (!pool) return;
  int64_t fixed = 0;  // one copy of every buffer
  std::vector<Cnf::Term> terms;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    if (g_.ops[v].store_bytes <= 0) continue;
    fixed += g_.ops[v].store_bytes;
    int64_t longest = 1;
    for (const Edge& e : g_.edges) {
      if (e.from != v || e.kind != EdgeKind::kData) continue;
      longest = std::max(longest, hi[e.to] + e.distance * ii_ +
                                      footprint_duration(g_.ops[e.to]) - lo[v]);
    }
    copies(v, (longest + ii_ - 1) / ii_, terms);
  }
  cnf_.at_most(std::move(terms), g_.target.pools[*pool].capacity - fixed);
}

void SolveUntil::start(Clock::time_point stop_at) {
  until = stop_at;
  last_poll_ = mark_ = Clock::now();
  mark_cpu_us_ = thread_cpu_us();
}

bool SolveUntil::terminate() {
  constexpr Clock::duration kCpuReadEvery = std::chrono::milliseconds(1);
  const Clock::time_point now = Clock::now();
  if (now - mark_ >= kCpuReadEvery) {
    const int64_t cpu = thread_cpu_us();
    if (now - last_poll_ >= kCpuReadEvery) {
      longest_gap_cpu_us = std::max(longest_gap_cpu_us, cpu - mark_cpu_us_);
    }
    mark_ = now;
    mark_cpu_us_ = cpu;
  }
  last_poll_ = now;
  return now >= until;
}

// Before the first check, an estimate from the CNF's size: the longest
// stretch measured on the HLS and structured sets, per literal, with a
// margin (docs/EXACT.md, "Time limit").
int64_t SatModel::unpolled_cpu_us() const {
  return std::max(until_.longest_gap_cpu_us, cnf_.literals() / kLiteralsPerUnpolledCpuUs);
}

const std::vector<int>& SatModel::rows(OpId v) {
  if (rows_[v].empty()) rows_[v] = make_rows(v);
  return rows_[v];
}

std::vector<int> SatModel::occupancy(OpId v, int64_t arc) {
  for (const auto& [p, lits] : occupancy_[v]) {
    if (p == arc) return lits;
  }
  std::vector<int> o = make_occupancy(v, arc);
  occupancy_[v].emplace_back(arc, o);
  return o;
}

// Implied by every row literal whose arc covers q.
std::vector<int> SatModel::make_occupancy(OpId v, int64_t arc) {
  const std::vector<int>& m = rows(v);
  std::vector<int> o(ii_, Cnf::kFalse);
  for (int64_t r = 0; r < ii_; ++r) {
    if (m[r] == Cnf::kFalse) continue;
    for (int64_t j = 0; j < arc; ++j) {
      int& q = o[(r + j) % ii_];
      if (q == Cnf::kFalse) q = cnf_.new_var();
      cnf_.clause({-m[r], q});
    }
  }
  return o;
}

// L2/L3 on one slot or pool: full turns load every row alike (a constant);
// the partial arcs of duration mod II rows are at most the rest, per row.
void SatModel::add_modulo_capacity(const std::vector<Hold>& holds, int64_t capacity) {
  const ModuloHolds split = split_modulo(holds, ii_, capacity);
  if (split.over) {
    cnf_.clause({Cnf::kFalse});
    return;
  }
  const int64_t base = split.base;
  const std::vector<Hold>& arcs = split.arcs;
  if (base + split.arcs_total <= capacity) return;
  std::vector<std::vector<int>> occ;
  for (const Hold& h : arcs) occ.push_back(occupancy(h.op, h.duration));
  for (int64_t q = 0; q < ii_; ++q) {
    std::vector<Cnf::Term> terms;
    for (size_t i = 0; i < arcs.size(); ++i) terms.push_back({arcs[i].amount, occ[i][q]});
    cnf_.at_most(std::move(terms), capacity - base);
    if (q % 64 == 0) check_deadline("resources");
  }
}

void SatModel::add_resources() {
  for (const CapacityHolds& c : capacity_holds(g_)) add_modulo_capacity(c.holds, c.capacity);
  solver_.connect_terminator(&until_);
  solver_.connect_learner(&learned_);
}

Answer SatModel::check(int64_t stages, Clock::time_point until, int64_t units) {
  if (empty_ || cnf_.inconsistent()) return Answer::kUnsat;
  if (Clock::now() >= until) return Answer::kUnknown;
  if (stages < k_ && !assume_stages(stages)) return Answer::kUnsat;
  if (cnf_.inconsistent()) return Answer::kUnsat;
  if (units > 0) solver_.limit("conflicts", static_cast<int>(std::min<int64_t>(units, INT_MAX)));
  until_.start(until);
  const int r = solver_.solve();
  until_.terminate();  // the stretch from the last poll to the return
  if (r == 10) return Answer::kSat;
  if (r == 20) return Answer::kUnsat;
  return Answer::kUnknown;
}

}  // namespace tilesched::exact_internal
