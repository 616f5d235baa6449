// The time-indexed SAT encoding of one II (docs/EXACT.md, "The SAT
// backend"): per op v and cycle t of its window [ASAP_v, ALAP_v], an order
// literal y(v, t) = [s_v <= t]. L1 is binary clauses, the stage limits and
// L6/L7 shrink windows, a start implies its row literal, and L4 counts the
// buffer copies each start pair forces.
#include <algorithm>
#include <memory>
#include <optional>

#include "op_pairs.h"
#include "sat_model.h"
#include "tilesched/limits.h"

namespace tilesched::exact_internal {

namespace {

class TimeIndexedModel : public SatModel {
 public:
  TimeIndexedModel(const Graph& g, const ModelSpec& spec);
  std::vector<int64_t> starts() const override;

 private:
  std::vector<int> make_rows(OpId v) override;
  bool assume_stages(int64_t stages) override;
  // [s_v <= t] as a literal (a constant outside the window).
  int le(OpId v, int64_t t) const;
  void add_chains_and_dependences();
  void add_symmetry();
  void add_groups();
  void add_storage();

  std::vector<int64_t> lo_, hi_;
  std::vector<int> first_;  // y(v, lo_v) is variable first_[v], then consecutive
};

TimeIndexedModel::TimeIndexedModel(const Graph& g, const ModelSpec& spec) : SatModel(g, spec) {
  const int n = g.op_count();
  lo_ = spec.asap;
  hi_.assign(n, 0);
  first_.assign(n, 0);
  for (OpId v = 0; v < n; ++v) {
    if (v % 64 == 0) check_deadline("variables");
    hi_[v] = latest_start(g, spec, v);
    empty_ = empty_ || hi_[v] < lo_[v];
  }
  if (empty_) return;
  for (OpId v = 0; v < n; ++v) {
    first_[v] = cnf_.vars() + 1;
    for (int64_t t = lo_[v]; t < hi_[v]; ++t) cnf_.new_var();
  }
  add_chains_and_dependences();
  add_symmetry();
  add_groups();
  add_storage();
  add_resources();
}

int TimeIndexedModel::le(OpId v, int64_t t) const {
  if (t < lo_[v]) return Cnf::kFalse;
  if (t >= hi_[v]) return Cnf::kTrue;
  return first_[v] + static_cast<int>(t - lo_[v]);
}

// The order chains y(v, t) -> y(v, t + 1), and L1 for every edge: s_from >=
// t implies s_to >= t + latency - distance * II.
void TimeIndexedModel::add_chains_and_dependences() {
  for (OpId v = 0; v < g_.op_count(); ++v) {
    if (v % 64 == 0) check_deadline("variables");
    for (int64_t t = lo_[v]; t + 1 < hi_[v]; ++t) cnf_.clause({-le(v, t), le(v, t + 1)});
  }
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
    check_deadline("dependences");
  }
}

// Symmetry 1 (no groups): some op starts at 0; Symmetry 2: interchangeable
// ops keep their id order (docs/EXACT.md).
void TimeIndexedModel::add_symmetry() {
  if (!has_groups(g_) && g_.op_count() > 0) {
    std::vector<int> at_zero;
    for (OpId v = 0; v < g_.op_count(); ++v) at_zero.push_back(le(v, 0));
    cnf_.clause(at_zero);
  }
  for (const auto& [u, v] : interchangeable_pairs(g_)) {  // s_u <= s_v
    check_deadline("symmetry");
    for (int64_t t = lo_[v]; t < hi_[v]; ++t) cnf_.clause({-le(v, t), le(u, t)});
  }
}

// L5: a group's members share a stage; the stage of v is at most b exactly
// when y(v, II * (b + 1) - 1).
void TimeIndexedModel::add_groups() {
  for (const auto& [u, v] : leader_group_pairs(g_)) {
    for (int64_t b = 0; b <= k_; ++b) {
      const int64_t t = ii_ * (b + 1) - 1;
      cnf_.clause({-le(u, t), le(v, t)});
      cnf_.clause({le(u, t), -le(v, t)});
    }
  }
}

// x(v, t) = y(v, t) and not y(v, t - 1) implies m(v, t mod II).
std::vector<int> TimeIndexedModel::make_rows(OpId v) {
  std::vector<int> m(ii_, Cnf::kFalse);
  const int64_t last = std::min(hi_[v], lo_[v] + ii_ - 1);
  for (int64_t t = lo_[v]; t <= last; ++t) m[t % ii_] = cnf_.new_var();
  for (int64_t t = lo_[v]; t <= hi_[v]; ++t) {
    cnf_.clause({-le(v, t), le(v, t - 1), m[t % ii_]});
  }
  return m;
}

// L4: copies_v >= j (j >= 2) is forced when some data consumer w ends more
// than (j - 1) * II after s_v: s_v <= t and s_w >= t + (j - 1) * II - e + 1
// (e = distance * II + D_w) imply it. Every such literal adds bytes_v.
void TimeIndexedModel::add_storage() {
  SatModel::add_storage(lo_, hi_, [this](OpId v, int64_t most, std::vector<Cnf::Term>& terms) {
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
      check_deadline("storage");
    }
  });
}

// Every start at most the canonical ALAP start with `stages` stages.
bool TimeIndexedModel::assume_stages(int64_t stages) {
  for (OpId v = 0; v < g_.op_count(); ++v) {
    const int lit = le(v, ii_ * (stages + 1) - 1 - tail_[v]);
    if (lit == Cnf::kFalse) return false;
    if (lit != Cnf::kTrue) solver_.assume(lit);
  }
  return true;
}

std::vector<int64_t> TimeIndexedModel::starts() const {
  std::vector<int64_t> out(g_.op_count(), 0);
  for (OpId v = 0; v < g_.op_count(); ++v) {
    int64_t t = lo_[v];
    while (t < hi_[v] && solver_.val(le(v, t)) < 0) ++t;
    out[v] = t;
  }
  return out;
}

}  // namespace

std::unique_ptr<IiProblem> make_time_indexed(const Graph& g, const ModelSpec& spec,
                                             int64_t max_literals) {
  int64_t total = 0;
  for (OpId v = 0; v < g.op_count(); ++v) {
    total += std::max<int64_t>(0, latest_start(g, spec, v) - spec.asap[v]);
    if (total > max_literals) return nullptr;
  }
  return std::make_unique<TimeIndexedModel>(g, spec);
}

}  // namespace tilesched::exact_internal
