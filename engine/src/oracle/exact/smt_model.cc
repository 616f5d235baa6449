// The exact oracle's per-II model: L1-L7 over integer stages and rows
// (docs/EXACT.md, "Formulation", states each encoding and why it is exact).
#include "smt_model.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "op_pairs.h"
#include "tilesched/limits.h"

namespace tilesched::exact_internal {

namespace {

// Z3's default solver puts a tactic pipeline (preprocessing, probes) in
// front of its SMT core, which costs about 5 ms per check whatever the
// model's size; the plain SMT core ("simple") starts at once. Measured with
// exact_bench and the fuzz_differential corpus (docs/EXACT.md, "Solver"):
// up to 16 ops the plain core is faster (half the time on 8-op graphs), above
// that the preprocessing pays for itself (30-45 % faster on 17-64 ops).
constexpr int kPlainSolverMaxOps = 16;

z3::solver make_solver(z3::context& ctx, const Graph& g) {
  if (g.op_count() <= kPlainSolverMaxOps) return z3::solver(ctx, z3::solver::simple());
  return z3::solver(ctx);
}

}  // namespace

SmtModel::SmtModel(z3::context& ctx, const Graph& g, int64_t ii, int64_t stage_bound,
                 const std::vector<int64_t>& asap, const std::vector<int64_t>& tail,
                 unsigned random_seed, std::chrono::steady_clock::time_point deadline)
    : ctx_(ctx), g_(g), ii_(ii), deadline_(deadline), solver_(make_solver(ctx, g)) {
  z3::params p(ctx_);
  p.set("random_seed", random_seed);
  solver_.set(p);
  const int n = g.op_count();
  // The latest start any op needs (docs/EXACT.md), and the verifier's limit.
  const int64_t horizon =
      std::min(limits::kMaxStart, ii * std::min(stage_bound + 1, limits::kMaxStart / ii) - 1);
  for (OpId v = 0; v < n; ++v) {
    const std::string id = std::to_string(v);
    k_.push_back(ctx_.int_const(("k" + id).c_str()));
    r_.push_back(ctx_.int_const(("r" + id).c_str()));
    s_.push_back(ctx_.int_val(ii) * k_[v] + r_[v]);
    solver_.add(r_[v] >= 0 && r_[v] <= ctx_.int_val(ii - 1));
    solver_.add(k_[v] >= 0 && k_[v] <= ctx_.int_val(stage_bound));
    // ASAP/ALAP window: implied by L1 and the stage bound.
    solver_.add(s_[v] >= ctx_.int_val(asap[v]));
    solver_.add(s_[v] <= ctx_.int_val(horizon - tail[v]));
  }
  check_deadline();
  add_dependences();
  add_slots_and_rate_pools();
  add_storage();
  add_groups_depths_serial();
  // Symmetry: without groups, shifting every start down by the smallest
  // keeps a schedule legal (docs/EXACT.md), so some op starts at 0.
  if (!has_groups(g) && n > 0) {
    z3::expr_vector at_zero(ctx_);
    for (OpId v = 0; v < n; ++v) at_zero.push_back(s_[v] == 0);
    solver_.add(z3::mk_or(at_zero));
  }
  check_deadline();
  add_interchangeable_order();
}

void SmtModel::check_deadline() const {
  if (std::chrono::steady_clock::now() >= deadline_) throw ModelDeadline{};
}

// Interchangeable ops keep their id order (docs/EXACT.md, "Symmetry 2").
void SmtModel::add_interchangeable_order() {
  check_deadline();
  for (const auto& [u, v] : interchangeable_pairs(g_)) solver_.add(s_[u] <= s_[v]);
}

void SmtModel::add_dependences() {
  for (const Edge& e : g_.edges) {
    solver_.add(s_[e.to] + ctx_.int_val(e.distance * ii_) >= s_[e.from] + ctx_.int_val(e.latency));
  }
}

void SmtModel::add_singleton(const std::vector<Hold>& holds) {
  for (size_t a = 0; a < holds.size(); ++a) {
    check_deadline();
    if (holds[a].duration > ii_) {  // collides with itself
      solver_.add(ctx_.bool_val(false));
      return;
    }
    for (size_t b = a + 1; b < holds.size(); ++b) {
      const Hold& u = holds[a];
      const Hold& v = holds[b];
      if (u.duration + v.duration > ii_) {
        solver_.add(ctx_.bool_val(false));
        return;
      }
      const z3::expr& ru = r_[u.op];
      const z3::expr& rv = r_[v.op];
      const z3::expr du = ctx_.int_val(u.duration);
      const z3::expr dv = ctx_.int_val(v.duration);
      const z3::expr ii = ctx_.int_val(ii_);
      // The two modulo intervals [r, r + d) do not meet: one follows the
      // other, and wraps round no further than the other's start.
      solver_.add((ru + du <= rv && rv + dv <= ru + ii) || (rv + dv <= ru && ru + du <= rv + ii));
    }
  }
}

void SmtModel::add_modulo_capacity(const std::vector<Hold>& holds, int64_t capacity) {
  // Full turns load every row alike; the partial arcs of duration mod II
  // rows are what varies. The load is largest at the first row of some
  // arc, so checking every arc's first row checks every row.
  const ModuloHolds split = split_modulo(holds, ii_, capacity);
  if (split.over) {
    solver_.add(ctx_.bool_val(false));
    return;
  }
  const int64_t base = split.base;
  const std::vector<Hold>& arcs = split.arcs;
  if (base + split.arcs_total <= capacity) return;
  const z3::expr ii = ctx_.int_val(ii_);
  for (const Hold& u : arcs) {
    check_deadline();
    z3::expr load = ctx_.int_val(u.amount);
    for (const Hold& v : arcs) {
      if (v.op == u.op) continue;
      // Row r_u lies on v's arc: (r_u - r_v) mod II < p_v.
      const z3::expr diff = r_[u.op] - r_[v.op];
      const z3::expr covers = (diff >= 0 && diff <= ctx_.int_val(v.duration - 1)) ||
                              diff <= ctx_.int_val(v.duration - 1) - ii;
      load = load + z3::ite(covers, ctx_.int_val(v.amount), ctx_.int_val(0));
    }
    solver_.add(load <= ctx_.int_val(capacity - base));
  }
}

void SmtModel::add_slots_and_rate_pools() {
  for (const CapacityHolds& c : capacity_holds(g_)) {
    const bool unit = std::all_of(c.holds.begin(), c.holds.end(),
                                  [](const Hold& h) { return h.amount == 1; });
    if (c.slot && c.capacity == 1 && unit) {
      add_singleton(c.holds);
    } else {
      add_modulo_capacity(c.holds, c.capacity);
    }
  }
}

void SmtModel::add_storage() {
  const std::optional<int> pool = g_.target.storage_pool();
  if (!pool) return;
  // copies_v >= 1 and II * copies_v >= every data consumer's end minus
  // s_v: the least such copies_v is ceil(lifetime_v / II) exactly.
  z3::expr total = ctx_.int_val(0);
  bool any = false;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    const int64_t bytes = g_.ops[v].store_bytes;
    if (bytes <= 0) continue;
    any = true;
    const z3::expr copies = ctx_.int_const(("c" + std::to_string(v)).c_str());
    solver_.add(copies >= 1);
    for (const Edge& e : g_.edges) {
      if (e.from != v || e.kind != EdgeKind::kData) continue;
      const int64_t extra = e.distance * ii_ + footprint_duration(g_.ops[e.to]);
      solver_.add(ctx_.int_val(ii_) * copies >= s_[e.to] + ctx_.int_val(extra) - s_[v]);
    }
    total = total + ctx_.int_val(bytes) * copies;
  }
  if (any) solver_.add(total <= ctx_.int_val(g_.target.pools[*pool].capacity));
}

void SmtModel::add_groups_depths_serial() {
  std::vector<std::pair<int64_t, OpId>> members;
  for (OpId v = 0; v < g_.op_count(); ++v) {
    const Op& op = g_.ops[v];
    if (op.leader_gid) members.push_back({*op.leader_gid, v});
    if (op.max_depth) solver_.add(k_[v] <= ctx_.int_val(*op.max_depth));  // L6
    if (g_.attrs.force_serial_execution) {  // L7: stage 0, II >= makespan
      solver_.add(k_[v] == 0);
      solver_.add(r_[v] + ctx_.int_val(footprint_duration(op)) <= ctx_.int_val(ii_));
    }
  }
  std::sort(members.begin(), members.end());
  for (size_t i = 1; i < members.size(); ++i) {  // L5: a group shares one stage
    if (members[i].first == members[i - 1].first) {
      solver_.add(k_[members[i].second] == k_[members[i - 1].second]);
    }
  }
}

z3::check_result SmtModel::check(std::chrono::steady_clock::time_point until, int64_t rlimit) {
  z3::params p(ctx_);
  // Z3 counts the limit from where this check starts; 0 is none.
  p.set("rlimit", static_cast<unsigned>(std::clamp<int64_t>(rlimit, 0, UINT32_MAX)));
  solver_.set(p);
  try {
    return solver_.check();
  } catch (const z3::exception&) {
    // The watchdog's interrupt ("canceled") ends a check at its limit.
    if (std::chrono::steady_clock::now() >= until) return z3::unknown;
    throw;
  }
}

int64_t SmtModel::resources_used() const {
  const z3::stats st = solver_.statistics();
  for (unsigned i = 0; i < st.size(); ++i) {
    if (st.key(i) == "rlimit count") {
      return st.is_uint(i) ? int64_t{st.uint_value(i)} : static_cast<int64_t>(st.double_value(i));
    }
  }
  return 0;
}

std::vector<int64_t> SmtModel::starts() const {
  const z3::model m = solver_.get_model();
  std::vector<int64_t> out;
  out.reserve(s_.size());
  for (const z3::expr& s : s_) out.push_back(m.eval(s, true).get_numeral_int64());
  return out;
}

void SmtModel::limit_start_sum(int64_t t) {
  z3::expr sum = ctx_.int_val(0);
  for (const z3::expr& s : s_) sum = sum + s;
  solver_.add(sum <= ctx_.int_val(t));
}

}  // namespace tilesched::exact_internal
