// One II of iterative modulo scheduling (see attempt.h). Rau's names:
// HeightR is height_, Estart early_start(), FindTimeSlot find_slot(), the
// forced placement with its evictions place().
#include "attempt.h"

#include <algorithm>
#include <cassert>

namespace tilesched::ims {

namespace {
constexpr int64_t kNever = INT64_MIN;
constexpr int64_t kNoDepthLimit = INT64_MAX;
}  // namespace

Attempt::Attempt(const Problem& p) : p_(p), rrt_(p.g.target) {
  const size_t n = p.g.ops.size();
  height_.assign(n, 0);
  rank_.assign(n, 0);
  by_rank_.assign(n, 0);
  start_.assign(n, 0);
  placed_.assign(n, 0);
  last_start_.assign(n, kNever);
  group_placed_.assign(p.group_members.size(), 0);
  group_stage_.assign(p.group_members.size(), 0);
}

AttemptResult Attempt::run(int64_t ii, int64_t budget) {
  assert(ii >= 1 && budget >= 1);
  ii_ = ii;
  evictions_ = 0;
  work_ = 0;
  AttemptResult r;
  const bool heights = compute_heights();
  r.work = work_;
  if (!heights) {
    r.outcome = Outcome::kPositiveCycle;
    r.why = "a dependence cycle is longer than II allows (II < RecMII)";
    return r;
  }
  rank_by_priority();
  rrt_.reset(ii);
  if (std::optional<std::string> m = misfit()) {
    r.work = work_ + p_.g.op_count();
    r.outcome = Outcome::kNoSeat;
    r.why = std::move(*m);
    return r;
  }
  std::fill(placed_.begin(), placed_.end(), 0);
  std::fill(last_start_.begin(), last_start_.end(), kNever);
  std::fill(group_placed_.begin(), group_placed_.end(), 0);
  unplaced_ = {};
  for (int k = 0; k < p_.g.op_count(); ++k) unplaced_.push(k);

  while (!unplaced_.empty()) {
    r.work = work_ + r.steps;
    if (r.steps == budget) {
      r.outcome = Outcome::kBudgetExhausted;
      r.why = "budget of " + std::to_string(budget) + " placement steps spent with " +
              std::to_string(unplaced_.size()) + " of " + std::to_string(p_.g.op_count()) +
              " ops unplaced";
      r.evictions = evictions_;
      return r;
    }
    const OpId v = by_rank_[unplaced_.top()];
    unplaced_.pop();
    const int64_t t = find_slot(v);
    ++r.steps;
    if (!place(v, t)) {  // unreachable once misfit() passed; kept as a reason
      r.outcome = Outcome::kNoSeat;
      r.why = "op '" + p_.g.ops[v].name + "' found no claimant to evict at cycle " +
              std::to_string(t);
      r.evictions = evictions_;
      r.work = work_ + r.steps;
      return r;
    }
  }
  shift_to_stage_zero();
  r.evictions = evictions_;
  r.work = work_ + r.steps;
  return r;
}

// HeightR(v) = max(latency_v, max over edges v -> w of lambda - II*delta +
// HeightR(w)): a longest-path fixpoint, by Bellman-Ford passes in
// decreasing program index (one pass for a graph in program order, more
// for each loop-carried edge that raises a height). Still changing after
// n + 1 passes means a positive cycle.
bool Attempt::compute_heights() {
  const Graph& g = p_.g;
  const int n = g.op_count();
  for (OpId v = 0; v < n; ++v) height_[v] = g.ops[v].latency;
  for (int pass = 0; pass <= n; ++pass) {
    bool changed = false;
    work_ += n + static_cast<int64_t>(g.edges.size());
    for (OpId v = n - 1; v >= 0; --v) {
      for (int q = p_.adj.out_begin[v]; q < p_.adj.out_begin[v + 1]; ++q) {
        const Edge& e = g.edges[p_.adj.out_edges[q]];
        const int64_t h = e.latency - ii_ * e.distance + height_[e.to];
        if (h > height_[v]) {
          height_[v] = h;
          changed = true;
        }
      }
    }
    if (!changed) return true;
  }
  return false;
}

void Attempt::rank_by_priority() {
  const int n = p_.g.op_count();
  for (OpId v = 0; v < n; ++v) by_rank_[v] = v;
  std::sort(by_rank_.begin(), by_rank_.end(), [&](OpId a, OpId b) {
    return height_[a] != height_[b] ? height_[a] > height_[b] : a < b;
  });
  for (int k = 0; k < n; ++k) rank_[by_rank_[k]] = k;
}

// A singleton slot held longer than II, or a counter an op alone
// overloads, makes every row fail: no eviction can help. REQUIRES: an
// empty table (every row alike, so probing cycle 0 decides).
std::optional<std::string> Attempt::misfit() {
  for (OpId v = 0; v < p_.g.op_count(); ++v) {
    RrtConflict why;
    if (!rrt_.probe(p_.nodes[v], 0, &why)) {
      return "op '" + p_.g.ops[v].name + "' fits no row of an empty table: " +
             why.describe(p_.g.target, p_.nodes[v], ii_);
    }
  }
  return std::nullopt;
}

int64_t Attempt::early_start(OpId v) const {
  int64_t e = 0;  // Rau's START pseudo-op at cycle 0
  for (int q = p_.adj.in_begin[v]; q < p_.adj.in_begin[v + 1]; ++q) {
    const Edge& edge = p_.g.edges[p_.adj.in_edges[q]];
    if (edge.from == v || !placed_[edge.from]) continue;
    e = std::max(e, start_[edge.from] + edge.latency - ii_ * edge.distance);
  }
  return e;
}

// Rau's range [Estart, Estart + II - 1], narrowed to the stage of v's
// group when some member is placed and Estart does not pass that stage
// (L5), and cut at v's last allowed stage (L6). The first free row in it;
// when there is none, the forced cycle: Estart, or one past where v was
// placed last if that is not earlier (so a forced op moves on).
int64_t Attempt::find_slot(OpId v) const {
  const NodeRrt& node = p_.nodes[v];
  const int64_t early = early_start(v);
  int64_t lo = early;
  int64_t hi = early + ii_ - 1;
  const int group = p_.group_of[v];
  if (group != kNoGroup && group_placed_[group] > 0) {
    const int64_t stage_start = group_stage_[group] * ii_;
    if (early <= stage_start + ii_ - 1) {
      lo = std::max(early, stage_start);
      hi = stage_start + ii_ - 1;
    }
  }
  const Op& op = p_.g.ops[v];
  const int64_t last_cycle = op.max_depth ? (*op.max_depth + 1) * ii_ - 1 : kNoDepthLimit;
  hi = std::min(hi, last_cycle);
  if (lo > hi) {
    // Estart is past v's last allowed stage: the latest free row of that
    // stage, else its last cycle; place() evicts the predecessors that
    // pushed v there.
    for (int64_t t = last_cycle; t >= std::max<int64_t>(0, last_cycle - ii_ + 1); --t) {
      ++work_;
      if (rrt_.probe(node, t)) return t;
    }
    return last_cycle;
  }
  const int64_t free = rrt_.first_fit(node, lo, hi);
  work_ += (free >= 0 ? free : hi) - lo + 1;
  if (free >= 0) return free;
  if (last_start_[v] != kNever && last_start_[v] >= lo && last_start_[v] < last_cycle) {
    return last_start_[v] + 1;
  }
  return lo;
}

// Seats v at t after unplacing every placed op it conflicts with: a
// dependence edge either way that t breaks, a group member in another
// stage, and, one at a time until v fits, the holder of the row the RRT
// reports busy.
bool Attempt::place(OpId v, int64_t t) {
  const Graph& g = p_.g;
  for (int q = p_.adj.out_begin[v]; q < p_.adj.out_begin[v + 1]; ++q) {
    const Edge& e = g.edges[p_.adj.out_edges[q]];
    if (e.to != v && placed_[e.to] && start_[e.to] + e.distance * ii_ < t + e.latency) {
      unseat(e.to);
    }
  }
  for (int q = p_.adj.in_begin[v]; q < p_.adj.in_begin[v + 1]; ++q) {
    const Edge& e = g.edges[p_.adj.in_edges[q]];
    if (e.from != v && placed_[e.from] && t + e.distance * ii_ < start_[e.from] + e.latency) {
      unseat(e.from);
    }
  }
  if (const int group = p_.group_of[v]; group != kNoGroup) {
    for (OpId u : p_.group_members[group]) {
      if (u != v && placed_[u] && start_[u] / ii_ != t / ii_) unseat(u);
    }
  }
  RrtConflict why;
  while ((++work_, !rrt_.probe(p_.nodes[v], t, &why))) {
    const std::optional<OpId> victim = claimant(why);
    if (!victim) return false;
    unseat(*victim);
  }
  seat(v, t);
  return true;
}

std::optional<OpId> Attempt::claimant(const RrtConflict& why) const {
  const std::vector<OpId>* users = nullptr;
  switch (why.kind) {
    case RrtConflict::Kind::kSingletonRow:
    case RrtConflict::Kind::kPooledSlot:
      users = &p_.slot_users[why.slot - 1];
      break;
    case RrtConflict::Kind::kRatePool:
      users = &p_.pool_users[why.pool];
      break;
    case RrtConflict::Kind::kSelfOverlap:
      return std::nullopt;
  }
  std::optional<OpId> victim;
  for (OpId u : *users) {
    if (!placed_[u] || (victim && rank_[u] < rank_[*victim])) continue;
    int64_t held = 0;
    if (why.kind == RrtConflict::Kind::kRatePool) {
      held = p_.nodes[u].footprint;
    } else {
      for (const Triple& tr : p_.nodes[u].triples) {
        if (tr.slot == why.slot) held = tr.duration;
      }
    }
    if (holds_row(u, held, why.row)) victim = u;
  }
  return victim;
}

bool Attempt::holds_row(OpId u, int64_t held, int64_t row) const {
  if (held >= ii_) return held > 0;
  const int64_t offset = ((row - start_[u]) % ii_ + ii_) % ii_;
  return offset < held;
}

void Attempt::seat(OpId v, int64_t t) {
  rrt_.commit(p_.nodes[v], t);
  start_[v] = t;
  placed_[v] = 1;
  last_start_[v] = t;
  if (const int group = p_.group_of[v]; group != kNoGroup) {
    if (group_placed_[group]++ == 0) group_stage_[group] = t / ii_;
  }
}

void Attempt::unseat(OpId u) {
  rrt_.release(p_.nodes[u], start_[u]);
  placed_[u] = 0;
  if (const int group = p_.group_of[u]; group != kNoGroup) --group_placed_[group];
  unplaced_.push(rank_[u]);
  ++evictions_;
}

void Attempt::shift_to_stage_zero() {
  if (start_.empty()) return;
  const int64_t first = *std::min_element(start_.begin(), start_.end());
  const int64_t shift = first / ii_ * ii_;
  if (shift == 0) return;
  for (int64_t& s : start_) s -= shift;
}

}  // namespace tilesched::ims
