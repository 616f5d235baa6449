// The row/stage SAT encoding of one II (docs/EXACT.md, "The SAT backend"):
// s_v = II * k_v + r_v with order literals [r_v <= r] (r < II) and
// [k_v <= k] (k <= K) apart, so a model grows with II + K per op rather
// than with II * K. L1 on an edge of latency q * II + p and distance d
// reads k_to >= k_from + q - d, plus one more when r_to < r_from + p, plus
// another when r_to < r_from + p - II; the window ends and L4 split the
// same way.
#include <algorithm>
#include <memory>
#include <optional>

#include "op_pairs.h"
#include "sat_model.h"

namespace tilesched::exact_internal {

namespace {

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

class RowStageModel : public SatModel {
 public:
  RowStageModel(const Graph& g, const ModelSpec& spec);
  std::vector<int64_t> starts() const override;
  void hint(const std::vector<int64_t>& starts) override;

 private:
  std::vector<int> make_rows(OpId v) override;
  std::vector<int> make_occupancy(OpId v, int64_t arc) override;
  bool assume_stages(int64_t stages) override;
  int rle(OpId v, int64_t r) const;  // [r_v <= r]
  int kle(OpId v, int64_t k) const;  // [k_v <= k]
  // s_v <= b under `guard` (kTrue: always).
  void start_at_most(OpId v, int64_t b, int guard);
  // A literal forced true whenever r_b >= r_a + p.
  int rows_reach(OpId a, OpId b, int64_t p);
  // A literal forced true whenever r_b < r_a + p.
  int rows_short(OpId a, OpId b, int64_t p);
  // k_b >= k_a + c unless `guard` is false.
  void stages_apart(OpId a, OpId b, int64_t c, int guard);
  void add_variables(const ModelSpec& spec);
  void add_dependences();
  void add_symmetry();
  void add_groups();
  void add_storage();
  void add_storage_edge(OpId v, const Edge& e, const std::vector<int>& at_least);

  std::vector<int64_t> lo_, hi_;     // the window of s_v
  std::vector<int64_t> kmin_, kmax_;  // of k_v
  std::vector<int> row_first_, stage_first_;
  std::vector<int> stage_act_;        // activation literal per stage limit (0: none yet)
};

RowStageModel::RowStageModel(const Graph& g, const ModelSpec& spec) : SatModel(g, spec) {
  add_variables(spec);
  if (empty_) return;
  add_dependences();
  add_symmetry();
  add_groups();
  add_storage();
  add_resources();
}

void RowStageModel::add_variables(const ModelSpec& spec) {
  const int n = g_.op_count();
  lo_ = spec.asap;
  hi_.assign(n, 0);
  kmin_.assign(n, 0);
  kmax_.assign(n, 0);
  row_first_.assign(n, 0);
  stage_first_.assign(n, 0);
  for (OpId v = 0; v < n; ++v) {
    if (v % 64 == 0) check_deadline("variables");
    hi_[v] = latest_start(g_, spec, v);
    empty_ = empty_ || hi_[v] < lo_[v];
    kmin_[v] = lo_[v] / ii_;
    kmax_[v] = std::max(kmin_[v], hi_[v] / ii_);
  }
  if (empty_) return;
  for (OpId v = 0; v < n; ++v) {
    if (v % 64 == 0) check_deadline("variables");
    row_first_[v] = cnf_.vars() + 1;
    for (int64_t r = 0; r + 1 < ii_; ++r) cnf_.new_var();
    stage_first_[v] = cnf_.vars() + 1;
    for (int64_t k = kmin_[v]; k < kmax_[v]; ++k) cnf_.new_var();
    for (int64_t r = 0; r + 2 < ii_; ++r) cnf_.clause({-rle(v, r), rle(v, r + 1)});
    for (int64_t k = kmin_[v]; k + 1 < kmax_[v]; ++k) cnf_.clause({-kle(v, k), kle(v, k + 1)});
    // The window: s_v >= ASAP_v (k_v = kmin_v needs the row to make up the
    // rest) and s_v <= its top.
    cnf_.clause({-kle(v, kmin_[v]), -rle(v, lo_[v] % ii_ - 1)});
    start_at_most(v, hi_[v], Cnf::kTrue);
  }
}

int RowStageModel::rle(OpId v, int64_t r) const {
  if (r < 0) return Cnf::kFalse;
  if (r >= ii_ - 1) return Cnf::kTrue;
  return row_first_[v] + static_cast<int>(r);
}

int RowStageModel::kle(OpId v, int64_t k) const {
  if (k < kmin_[v]) return Cnf::kFalse;
  if (k >= kmax_[v]) return Cnf::kTrue;
  return stage_first_[v] + static_cast<int>(k - kmin_[v]);
}

void RowStageModel::start_at_most(OpId v, int64_t b, int guard) {
  // k_v <= b / II, and k_v = b / II needs r_v <= b mod II.
  if (b < 0) {
    cnf_.clause({-guard});
    return;
  }
  cnf_.clause({-guard, kle(v, b / ii_)});
  cnf_.clause({-guard, kle(v, b / ii_ - 1), rle(v, b % ii_)});
}

int RowStageModel::rows_reach(OpId a, OpId b, int64_t p) {
  const int lit = cnf_.new_var();
  for (int64_t r = 0; r < ii_; ++r) {  // r_a <= r and r_b >= r + p
    cnf_.clause({-rle(a, r), rle(b, r + p - 1), lit});
  }
  return lit;
}

int RowStageModel::rows_short(OpId a, OpId b, int64_t p) {
  const int lit = cnf_.new_var();
  for (int64_t r = 0; r < ii_; ++r) {  // r_a >= r and r_b <= r + p - 1
    cnf_.clause({rle(a, r - 1), -rle(b, r + p - 1), lit});
  }
  return lit;
}

void RowStageModel::stages_apart(OpId a, OpId b, int64_t c, int guard) {
  for (int64_t k = kmin_[a]; k <= kmax_[a]; ++k) {  // k_a >= k implies k_b >= k + c
    cnf_.clause({-guard, kle(a, k - 1), -kle(b, k + c - 1)});
  }
}

// L1: II * (k_to - k_from - q + d) >= r_from + p - r_to, the right side in
// (-II, 2 * II).
void RowStageModel::add_dependences() {
  for (const Edge& e : g_.edges) {
    check_deadline("dependences");
    if (e.from == e.to) continue;  // II >= RecMII: a self-loop holds
    const int64_t q = e.latency / ii_, p = e.latency % ii_;
    const int64_t c = q - e.distance;
    stages_apart(e.from, e.to, c, Cnf::kTrue);
    stages_apart(e.from, e.to, c + 1, rows_short(e.from, e.to, p));
    if (p > 0) stages_apart(e.from, e.to, c + 2, rows_short(e.from, e.to, p - ii_));
  }
}

// Symmetry 1 (no groups): some op starts at 0; Symmetry 2: interchangeable
// ops keep their id order (docs/EXACT.md).
void RowStageModel::add_symmetry() {
  if (!has_groups(g_) && g_.op_count() > 0) {
    std::vector<int> at_zero;
    for (OpId v = 0; v < g_.op_count(); ++v) {
      const int z = cnf_.new_var();
      cnf_.clause({-z, kle(v, 0)});
      cnf_.clause({-z, rle(v, 0)});
      at_zero.push_back(z);
    }
    cnf_.clause(at_zero);
  }
  for (const auto& [u, v] : interchangeable_pairs(g_)) {  // s_u <= s_v
    check_deadline("symmetry");
    const int64_t first = std::min(kmin_[u], kmin_[v]), last = std::max(kmax_[u], kmax_[v]);
    for (int64_t k = first; k <= last; ++k) cnf_.clause({-kle(v, k), kle(u, k)});
    const int rows_ordered = cnf_.new_var();  // r_u <= r_v
    for (int64_t r = 0; r < ii_; ++r) cnf_.clause({-rows_ordered, -rle(v, r), rle(u, r)});
    for (int64_t k = first; k <= last; ++k) {  // k_u >= k and k_v <= k
      cnf_.clause({kle(u, k - 1), -kle(v, k), rows_ordered});
    }
  }
}

// L5: a group's members share a stage.
void RowStageModel::add_groups() {
  for (const auto& [u, v] : leader_group_pairs(g_)) {
    for (int64_t k = std::min(kmin_[u], kmin_[v]); k <= std::max(kmax_[u], kmax_[v]); ++k) {
      cnf_.clause({-kle(u, k), kle(v, k)});
      cnf_.clause({kle(u, k), -kle(v, k)});
    }
  }
}

// x(v, r) = [r_v <= r] and not [r_v <= r - 1] implies m(v, r).
std::vector<int> RowStageModel::make_rows(OpId v) {
  std::vector<int> m(ii_, Cnf::kFalse);
  for (int64_t r = 0; r < ii_; ++r) {
    m[r] = cnf_.new_var();
    cnf_.clause({-rle(v, r), rle(v, r - 1), m[r]});
  }
  return m;
}

// Row q lies on v's arc exactly when r_v is in [q - arc + 1, q], cyclically:
// one or two clauses over the order literals per row (the row literals
// would take `arc` per row).
std::vector<int> RowStageModel::make_occupancy(OpId v, int64_t arc) {
  std::vector<int> o(ii_);
  for (int64_t q = 0; q < ii_; ++q) {
    o[q] = cnf_.new_var();
    const int64_t first = q - arc + 1;
    if (first >= 0) {
      cnf_.clause({-rle(v, q), rle(v, first - 1), o[q]});
    } else {  // [0, q] and [first + II, II - 1]
      cnf_.clause({-rle(v, q), o[q]});
      cnf_.clause({rle(v, first + ii_ - 1), o[q]});
    }
  }
  return o;
}

// L4 for data edge e out of v: copies_v >= j when s_w - s_v >= T_j =
// (j - 1) * II - e_w + 1 (e_w = distance * II + D_w). With T_j = q * II + p
// (p the same for every j): II * (k_w - k_v - q) >= p + r_v - r_w, the right
// side in (-II, 2 * II).
void RowStageModel::add_storage_edge(OpId v, const Edge& e, const std::vector<int>& at_least) {
  const OpId w = e.to;
  const int64_t extra = e.distance * ii_ + footprint_duration(g_.ops[w]);
  const int64_t p = ((1 - extra) % ii_ + ii_) % ii_;
  const int reach0 = rows_reach(v, w, p);        // r_w >= r_v + p
  const int reach1 = rows_reach(v, w, p - ii_);  // r_w >= r_v + p - II
  for (size_t i = 0; i < at_least.size(); ++i) {
    const int64_t j = static_cast<int64_t>(i) + 2;
    const int64_t q = floor_div((j - 1) * ii_ - extra + 1, ii_);
    for (int64_t k = kmin_[v]; k <= kmax_[v]; ++k) {  // k_v <= k and k_w >= k + q + d
      cnf_.clause({-kle(v, k), kle(w, k + q + 1), at_least[i]});
      cnf_.clause({-kle(v, k), kle(w, k + q), -reach1, at_least[i]});
      cnf_.clause({-kle(v, k), kle(w, k + q - 1), -reach0, at_least[i]});
    }
  }
}

void RowStageModel::add_storage() {
  SatModel::add_storage(lo_, hi_, [this](OpId v, int64_t most, std::vector<Cnf::Term>& terms) {
    std::vector<int> at_least;  // copies_v >= 2, 3, ...
    for (int64_t j = 2; j <= most; ++j) {
      at_least.push_back(cnf_.new_var());
      cnf_.clause({-at_least.back(), at_least.size() > 1 ? at_least[at_least.size() - 2] : Cnf::kTrue});
      terms.push_back({g_.ops[v].store_bytes, at_least.back()});
    }
    for (const Edge& e : g_.edges) {
      if (e.from == v && e.kind == EdgeKind::kData) add_storage_edge(v, e, at_least);
    }
    check_deadline("storage");
  });
}

// Every start at most the canonical ALAP start with `stages` stages, under
// one activation literal per limit.
bool RowStageModel::assume_stages(int64_t stages) {
  if (stage_act_.size() <= static_cast<size_t>(stages)) stage_act_.resize(stages + 1, 0);
  int& act = stage_act_[stages];
  if (act == 0) {
    act = cnf_.new_var();
    for (OpId v = 0; v < g_.op_count(); ++v) {
      const int64_t b = ii_ * (stages + 1) - 1 - tail_[v];
      if (b < lo_[v]) {
        cnf_.clause({-act});
        break;
      }
      start_at_most(v, b, act);
    }
  }
  solver_.assume(act);
  return true;
}

// The order literals' phases: each op at the hinted row, and at the
// hinted stage or the nearest its literals allow.
void RowStageModel::hint(const std::vector<int64_t>& starts) {
  for (OpId v = 0; v < g_.op_count(); ++v) {
    const int64_t row = starts[v] % ii_, stage = starts[v] / ii_;
    for (int64_t r = 0; r + 1 < ii_; ++r) solver_.phase(r >= row ? rle(v, r) : -rle(v, r));
    for (int64_t k = kmin_[v]; k < kmax_[v]; ++k) {
      solver_.phase(k >= stage ? kle(v, k) : -kle(v, k));
    }
  }
}

std::vector<int64_t> RowStageModel::starts() const {
  std::vector<int64_t> out(g_.op_count(), 0);
  for (OpId v = 0; v < g_.op_count(); ++v) {
    int64_t k = kmin_[v], r = 0;
    while (k < kmax_[v] && solver_.val(kle(v, k)) < 0) ++k;
    while (r < ii_ - 1 && solver_.val(rle(v, r)) < 0) ++r;
    out[v] = ii_ * k + r;
  }
  return out;
}

}  // namespace

std::unique_ptr<IiProblem> make_row_stage(const Graph& g, const ModelSpec& spec) {
  return std::make_unique<RowStageModel>(g, spec);
}

}  // namespace tilesched::exact_internal
