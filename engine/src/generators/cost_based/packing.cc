// A saturated slot's holders packed as one (see packing.h).
#include "packing.h"

#include <algorithm>
#include <tuple>

#include "model/arith.h"
#include "util/test_seams.h"

namespace tilesched::cost_based {

namespace {

constexpr int64_t kNone = INT64_MIN / 4;
// Slack rows up to which every gap is tried (chain_from).
constexpr int64_t kEveryGap = 1;
// Table rows checked or path relaxations per work unit.
constexpr int64_t kStepsPerUnit = 16;

// Longest path weights (latency - ii * distance) from `from` to every op,
// kNone where no path leads; label-correcting, as the windows keep them.
// REQUIRES: no positive cycle at ii.
std::vector<int64_t> longest_from(const Context& ctx, OpId from, int64_t ii, int64_t& work) {
  const int n = ctx.g.op_count();
  std::vector<int64_t> d(n, kNone);
  std::vector<char> queued(n, 0);
  std::vector<OpId> queue{from};
  d[from] = 0;
  queued[from] = 1;
  for (size_t head = 0; head < queue.size(); ++head) {
    const OpId x = queue[head];
    queued[x] = 0;
    for (int q = ctx.adj.out_begin[x]; q < ctx.adj.out_begin[x + 1]; ++q) {
      const Edge& e = ctx.g.edges[ctx.adj.out_edges[q]];
      ++work;
      const int64_t w = d[x] + e.latency - ii * e.distance;
      if (w > d[e.to] && e.to != from) {
        d[e.to] = w;
        if (!queued[e.to]) {
          queued[e.to] = 1;
          queue.push_back(e.to);
        }
      }
    }
  }
  return d;
}

}  // namespace

std::optional<PackingPlan> packing_plan(const Context& ctx, int64_t ii) {
  const Target& target = ctx.g.target;
  const int slots = static_cast<int>(target.slots.size());
  std::vector<int64_t> demand(slots + 1, 0);
  for (const Op& op : ctx.g.ops) {
    for (const Triple& t : op.resources) demand[t.slot] += t.occupancy * t.duration;
  }
  if (ii <= 1) return std::nullopt;
  // A slot is saturated when its holds fill 7/8 of its units, or its
  // exclusive holds (more than half its units: no two share a row) 7/8 of
  // its rows; the fullest by units is packed.
  std::vector<int64_t> exclusive_rows(slots + 1, 0);
  for (const Op& op : ctx.g.ops) {
    for (const Triple& t : op.resources) {
      if (2 * t.occupancy > target.slot(t.slot).capacity) exclusive_rows[t.slot] += t.duration;
    }
  }
  int best = 0;
  for (int s = 1; s <= slots; ++s) {
    const int64_t units = target.slot(s).capacity * ii;
    if ((8 * demand[s] >= 7 * units || 8 * exclusive_rows[s] >= 7 * ii) &&
        (best == 0 || demand[s] * target.slot(best).capacity * ii > demand[best] * units)) {
      best = s;
    }
  }
  if (best == 0) return std::nullopt;
  PackingPlan plan;
  plan.slot = best;
  const int64_t capacity = target.slot(best).capacity;
  // The chain's order: by depth (the longest latency path from a source),
  // so the ring of rows follows the dataflow and the stages stay few; then
  // the holds that also load other slots most (laid first, they leave the
  // others' rows where the rest can go), the longest, the id.
  std::vector<std::tuple<int64_t, int64_t, int64_t, OpId>> chain;
  for (OpId v = 0; v < ctx.g.op_count(); ++v) {
    int64_t here = -1, elsewhere = 0;
    for (const Triple& t : ctx.g.ops[v].resources) {
      if (t.duration <= 0) continue;
      if (t.slot != best) {
        elsewhere += t.occupancy * t.duration * capacity / target.slot(t.slot).capacity;
        continue;
      }
      if (t.duration >= ii) return std::nullopt;
      here = 2 * t.occupancy > capacity ? t.duration : 0;
    }
    if (here > 0) chain.push_back({ctx.depth[v], -elsewhere, -here, v});
    if (here == 0) plan.shared.push_back(v);
  }
  std::sort(chain.begin(), chain.end());
  for (const auto& [depth, e, d, v] : chain) plan.chain.push_back(v);
  const size_t holders = plan.chain.size() + plan.shared.size();
  if (plan.chain.size() < 2 || plan.chain.size() > kMaxChain || holders > kMaxHolders) {
    return std::nullopt;
  }
  return plan;
}

Packer::Packer(const Context& ctx, const Placement& p, const PackingPlan& plan)
    : ctx_(ctx), ii_(p.ii()), slot_count_(static_cast<int>(ctx.g.target.slots.size())) {
  holders_ = plan.chain;
  holders_.insert(holders_.end(), plan.shared.begin(), plan.shared.end());
  chain_size_ = static_cast<int>(plan.chain.size());
  const int k = static_cast<int>(holders_.size());
  cycles_.assign(k, 0);
  dist_.assign(k, std::vector<int64_t>(k, kNone));
  lo_.assign(k, 0);
  hi_.assign(k, kUnbounded);
  residue_.assign(k, -1);
  stage_.assign(k, 0);
  usage_.assign(static_cast<size_t>(slot_count_ + 1) * ii_, 0);
  int64_t work = 0;
  for (int i = 0; i < k; ++i) {
    const OpId h = holders_[i];
    for (const Triple& t : ctx.g.ops[h].resources) {
      if (t.slot == plan.slot) cycles_[i] = t.duration;
    }
    const std::vector<int64_t> d = longest_from(ctx, h, ii_, work);
    for (int j = 0; j < k; ++j) {
      if (j != i) dist_[i][j] = d[holders_[j]];
    }
    // Every start is >= 0 and below (max_depth + 1) * II: the bounds the
    // paths from and to every op put on this one.
    lo_[i] = p.asap(h);
    for (OpId x = 0; x < ctx.g.op_count(); ++x) {
      const std::optional<int64_t>& depth = ctx.g.ops[x].max_depth;
      if (d[x] != kNone && depth) hi_[i] = std::min(hi_[i], (*depth + 1) * ii_ - 1 - d[x]);
    }
    for (int j = 0; j < i; ++j) {
      if (ctx.group_of[h] != kNoGroup && ctx.group_of[h] == ctx.group_of[holders_[j]]) {
        same_stage_.push_back({j, i});
      }
    }
  }
  ctx.count(ceil_div(work, kStepsPerUnit), "packing.steps");
  test_seams::count_trips("packing.steps", work);
}

bool Packer::stages() {
  const int k = static_cast<int>(holders_.size());
  int assigned = 0;
  for (int i = 0; i < k; ++i) {
    if (residue_[i] < 0) continue;
    ++assigned;
    stage_[i] = ceil_div(lo_[i] - residue_[i], ii_);
    if (stage_[i] * ii_ + residue_[i] > hi_[i]) return false;
  }
  // Longest paths over the stages: s_j - s_i >= D[i][j] with s = stage *
  // II + residue; a leader group's holders share a stage.
  int64_t work = 0;
  for (int round = 0; round <= assigned; ++round) {
    bool changed = false;
    auto raise = [&](int j, int64_t least) {
      if (least <= stage_[j]) return true;
      stage_[j] = least;
      changed = true;
      return stage_[j] * ii_ + residue_[j] <= hi_[j];
    };
    for (int i = 0; i < k; ++i) {
      if (residue_[i] < 0) continue;
      for (int j = 0; j < k; ++j) {
        ++work;
        if (residue_[j] < 0 || dist_[i][j] == kNone) continue;
        const int64_t need = ceil_div(dist_[i][j] - residue_[j] + residue_[i], ii_);
        if (!raise(j, stage_[i] + need)) return false;
      }
    }
    for (const auto& [a, b] : same_stage_) {
      if (residue_[a] < 0 || residue_[b] < 0) continue;
      if (!raise(b, stage_[a]) || !raise(a, stage_[b])) return false;
    }
    if (!changed) {
      ctx_.count(ceil_div(work, kStepsPerUnit), "packing.steps");
      test_seams::count_trips("packing.steps", work);
      return true;
    }
  }
  ctx_.count(ceil_div(work, kStepsPerUnit), "packing.steps");
  test_seams::count_trips("packing.steps", work);
  return false;  // still rising: a positive cycle among the holders
}

// Calls f(row) for the modulo rows [r, r + d) at ii, without a division
// per row. REQUIRES: 0 <= r < ii, d <= ii.
template <class F>
bool each_row(int64_t r, int64_t d, int64_t ii, F&& f) {
  if (d > ii) {  // a hold longer than the II laps its own rows
    for (int64_t c = 0; c < d; ++c) {
      if (!f((r + c) % ii)) return false;
    }
    return true;
  }
  const int64_t first = std::min(d, ii - r);
  for (int64_t c = 0; c < first; ++c) {
    if (!f(r + c)) return false;
  }
  for (int64_t c = 0; c < d - first; ++c) {
    if (!f(c)) return false;
  }
  return true;
}

bool Packer::assign(int i, int64_t r) {
  int64_t work = 0;  // counted with the stages' (one assignment, one step)
  if (!fits(i, r, work)) return false;
  for (const Triple& t : ctx_.g.ops[holders_[i]].resources) {
    int64_t* row = &usage_[static_cast<size_t>(t.slot) * ii_];
    each_row(r, t.duration, ii_, [&](int64_t x) { return (row[x] += t.occupancy, true); });
  }
  residue_[i] = r;
  if (stages()) return true;
  unassign(i);
  return false;
}

void Packer::unassign(int i) {
  const int64_t r = residue_[i];
  for (const Triple& t : ctx_.g.ops[holders_[i]].resources) {
    int64_t* row = &usage_[static_cast<size_t>(t.slot) * ii_];
    each_row(r, t.duration, ii_, [&](int64_t x) { return (row[x] -= t.occupancy, true); });
  }
  residue_[i] = -1;
}

bool Packer::spend() {
  if (--steps_ < 0 || ctx_.out_of_work()) stop_ = true;
  return !stop_;
}

bool Packer::fits(int i, int64_t r, int64_t& work) const {
  for (const Triple& t : ctx_.g.ops[holders_[i]].resources) {
    const int64_t room = ctx_.g.target.slot(t.slot).capacity - t.occupancy;
    const int64_t* row = &usage_[static_cast<size_t>(t.slot) * ii_];
    if (!each_row(r, t.duration, ii_, [&](int64_t x) { return (++work, row[x] <= room); })) {
      return false;
    }
  }
  return true;
}

bool Packer::each_unplaced_fits(int64_t pos, int64_t end) {
  int64_t work = 0;
  bool ok = true;
  for (int i = 1; i < chain_size_ && ok; ++i) {
    if (residue_[i] >= 0) continue;
    ok = false;
    for (int64_t p = pos; p + cycles_[i] <= end && !ok; ++p) ok = fits(i, p % ii_, work);
  }
  ctx_.count(ceil_div(work, kStepsPerUnit), "packing.steps");
  test_seams::count_trips("packing.steps", work);
  return ok;
}

// The chain holders after the first, each at most `slack` rows after the
// end `pos` of the one before, in chain order tried first; each one
// placed leaves a seat in the rows still free for every one not placed.
// With more than kEveryGap rows of slack only the first residue where a
// holder fits (the rows and the stages) is tried: the gaps then go where
// a holder needs them, and the branching is over the order alone.
bool Packer::chain_from(int64_t pos, int64_t slack, int placed) {
  if (placed == chain_size_) return shared_from(0);
  if (!each_unplaced_fits(pos, first_ + ii_)) return false;
  for (int i = 1; i < chain_size_ && !stop_; ++i) {
    if (residue_[i] >= 0) continue;
    for (int64_t gap = 0; gap <= slack && !stop_; ++gap) {
      if (!spend()) break;
      if (!assign(i, (pos + gap) % ii_)) continue;
      const bool done = chain_from(pos + gap + cycles_[i], slack - gap, placed + 1);
      unassign(i);
      if (done) return true;
      if (slack > kEveryGap) break;
    }
  }
  return stop_;
}

bool Packer::shared_from(size_t j) {
  const size_t i = static_cast<size_t>(chain_size_) + j;
  if (i == holders_.size()) {
    Seats seats;
    for (size_t h = 0; h < holders_.size(); ++h) {
      seats.push_back({holders_[h], stage_[h] * ii_ + residue_[h]});
    }
    if (!(*visit_)(seats)) stop_ = true;
    return stop_;
  }
  for (int64_t r = 0; r < ii_ && !stop_; ++r) {
    if (!spend()) break;
    if (!assign(static_cast<int>(i), r)) continue;
    const bool done = shared_from(j + 1);
    unassign(static_cast<int>(i));
    if (done) return true;
  }
  return stop_;
}

bool Packer::each(const std::function<bool(const Seats&)>& visit, int64_t steps) {
  visit_ = &visit;
  steps_ = steps;
  stop_ = false;
  int64_t chained = 0;
  for (int i = 0; i < chain_size_; ++i) chained += cycles_[i];
  if (chained > ii_) return false;
  // The first holder's residue: every one once, from its earliest start's
  // on, coarse first (a stride of the shortest chain hold, then the rows
  // between): the residue matters through the stages (where the rows wrap
  // among the holders), and a shift shorter than any hold seldom changes
  // that, so neighbouring residues tend to fail together.
  const int64_t first = lo_[0] % ii_;
  int64_t stride = ii_;
  for (int i = 0; i < chain_size_; ++i) stride = std::min(stride, cycles_[i]);
  stride = std::max<int64_t>(stride, 1);
  for (int64_t k = 0; k < ii_ && !stop_; ++k) {
    const int64_t per = (ii_ + stride - 1) / stride;  // residues in one pass
    const int64_t r = (first + (k % per) * stride + k / per) % ii_;
    if (!spend()) break;
    if (!assign(0, r)) continue;
    first_ = r;
    const bool done = chain_from(r + cycles_[0], ii_ - chained, 1);
    unassign(0);
    if (done) break;
  }
  visit_ = nullptr;
  return stop_;
}

}  // namespace tilesched::cost_based
