// The constraint builder's four families (Builder, see strategy.h).
#include "strategy.h"

#include <algorithm>
#include <bit>

#include "graph/storage.h"
#include "util/test_seams.h"

namespace tilesched::cost_based {

Builder::Builder(const Context& ctx, Placement& placement, CostBasedStats& stats, Notes& notes)
    : ctx_(ctx), placement_(placement), stats_(stats), notes_(notes) {}

void Builder::start() {
  lifted_.clear();
  add_density_constraints();
  add_grouping_constraints();
}

int64_t Builder::consumer_stage_span(OpId v, const std::vector<int64_t>& start) const {
  const int64_t ii = placement_.ii();
  int64_t span = 0;
  for (int p = ctx_.adj.out_begin[v]; p < ctx_.adj.out_begin[v + 1]; ++p) {
    const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
    if (e.kind == EdgeKind::kData && e.to != v) {
      span = std::max(span, start[e.to] / ii - start[v] / ii);
    }
  }
  return span;
}

void Builder::add_batch(std::vector<BuilderConstraint> batch) {
  if (batch.empty()) return;
  const ConstraintFamily family = batch.front().family;
  std::string line = "II " + std::to_string(placement_.ii()) + ": builder constraint";
  line += batch.size() == 1 ? ": " : "s (" + std::to_string(batch.size()) + "), first: ";
  line += batch.front().rationale;
  notes_.add(std::move(line));
  stats_.constraints_added += static_cast<int64_t>(batch.size());
  stats_.family_added[static_cast<int>(family)] += static_cast<int64_t>(batch.size());
  for (BuilderConstraint& c : batch) {
    c.batch = next_batch_;
    placement_.constraints().add(std::move(c));
  }
  ++next_batch_;
}

void Builder::lift_batch(const char* why) {
  std::vector<BuilderConstraint> batch = placement_.constraints().lift_latest_batch();
  const ConstraintFamily family = batch.front().family;
  notes_.add("II " + std::to_string(placement_.ii()) + ": lifted " + std::to_string(batch.size()) +
       " " + std::string(constraint_family_name(family)) + " constraint(s) (" +
       batch.front().rationale + "): " + why);
  stats_.constraints_lifted += static_cast<int64_t>(batch.size());
  stats_.family_lifted[static_cast<int>(family)] += static_cast<int64_t>(batch.size());
  for (BuilderConstraint& c : batch) {
    if (c.shape == BuilderConstraint::Shape::kStageSpan) lifted_.push_back(std::move(c));
  }
}

// Density: a singleton slot whose footprint fills at least 3/4 of the II's
// rows leaves little room to spread its ops, and each stage an op drifts
// past its earliest adds a prologue iteration. The builder keeps every op on
// such a slot within one stage of its earliest (a MaxDepthConstraint).
void Builder::add_density_constraints() {
  const Graph& g = ctx_.g;
  const int64_t ii = placement_.ii();
  std::vector<int64_t> load(static_cast<size_t>(g.target.slot_count()) + 1, 0);
  ctx_.count_scan(2 * int64_t{g.op_count()}, "builder.scan");
  for (const Op& op : g.ops) {
    for (const Triple& tr : op.resources) {
      if (g.target.slot(tr.slot).capacity == 1) load[tr.slot] += tr.duration;
    }
  }
  uint64_t dense = 0;
  for (int slot = 1; slot <= g.target.slot_count(); ++slot) {
    if (4 * load[slot] >= 3 * ii) dense |= slot_bit(slot);
  }
  if (dense == 0) return;
  std::vector<BuilderConstraint> batch;
  for (OpId v = 0; v < g.op_count(); ++v) {
    const uint64_t on = ctx_.singleton_mask[v] & dense;
    if (on == 0) continue;
    const int64_t limit = placement_.asap(v) / ii + 1;
    if (g.ops[v].max_depth && *g.ops[v].max_depth <= limit) continue;  // L6 is tighter
    const int slot = std::countr_zero(on) + 1;
    batch.push_back({ConstraintFamily::kDensity, BuilderConstraint::Shape::kMaxStage, v, v,
                     limit, 0,
                     "density: slot " + std::to_string(slot) + " is " +
                         std::to_string(100 * load[slot] / ii) + "% full at II " +
                         std::to_string(ii) + ", so '" + g.ops[v].name +
                         "' stays within one stage of its earliest (stage <= " +
                         std::to_string(limit) + ")"});
  }
  add_batch(std::move(batch));
}

// Grouping: a distance-0 order edge from a barrier wait (a kind with
// `waits`: mbarrier_wait, cp_async_wait, named_barrier) guards the op it
// precedes; the builder ties the pair into one stage (a SameDepthConstraint)
// where the closure allows it, so the wait and what it releases issue in
// the same iteration window. Ops in leader groups are left to L5.
void Builder::add_grouping_constraints() {
  const Graph& g = ctx_.g;
  const int64_t ii = placement_.ii();
  std::vector<BuilderConstraint> batch;
  ctx_.count_scan(static_cast<int64_t>(g.edges.size()), "builder.scan");
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kOrder || e.distance != 0 || e.from == e.to) continue;
    const OpKind* kind = g.target.find_kind(g.ops[e.from].kind);
    if (kind == nullptr || !kind->waits) continue;
    if (ctx_.group_of[e.from] != kNoGroup || ctx_.group_of[e.to] != kNoGroup) continue;
    if (placement_.longest_path(e.from, e.to) > ii - 1) continue;  // cannot share a stage
    batch.push_back({ConstraintFamily::kGrouping, BuilderConstraint::Shape::kSameStage, e.from,
                     e.to, 0, 0,
                     "grouping: the wait '" + g.ops[e.from].name + "' and the op it guards, '" +
                         g.ops[e.to].name + "', share a stage"});
  }
  add_batch(std::move(batch));
}

bool Builder::already_lifted(OpId producer, int64_t max_span) const {
  return std::any_of(lifted_.begin(), lifted_.end(), [&](const BuilderConstraint& l) {
    return l.op == producer && l.limit >= max_span;
  });
}

// Depth, for L4: the producer whose buffer copies cost the most bytes gets
// its consumers pulled one stage closer.
std::optional<BuilderConstraint> Builder::tighten_for_storage(
    const std::vector<int64_t>& start) const {
  const int64_t ii = placement_.ii();
  std::optional<BuilderConstraint> best;
  int64_t best_bytes = 0;
  ctx_.count_scan(ctx_.g.op_count(), "builder.scan");
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    const int64_t bytes = ctx_.g.ops[v].store_bytes;
    if (bytes == 0) continue;
    const int64_t span = consumer_stage_span(v, start);
    const int64_t copies = buffer_copies(ctx_.g, ctx_.adj, start, ii, v);
    const int64_t extra = bytes * (copies - 1);
    if (span > 0 && extra > best_bytes && !already_lifted(v, span - 1)) {
      best_bytes = extra;
      best = BuilderConstraint{
          ConstraintFamily::kDepth, BuilderConstraint::Shape::kStageSpan, v, v, span - 1, 0,
          "depth: consumers of '" + ctx_.g.ops[v].name + "' at most " +
              std::to_string(span - 1) + " stage(s) behind it, for the SMEM budget (L4): " +
              std::to_string(copies) + " copies of " + std::to_string(bytes) + " bytes overlap"};
    }
  }
  return best;
}

// The fullest modulo row of seed 002's register model (docs/COST_BASED.md):
// a difference array over the rows, each value live from its start to
// live_end().
Builder::Pressure Builder::register_peak(const std::vector<int64_t>& start) const {
  const int64_t ii = placement_.ii();
  std::vector<int64_t> diff(static_cast<size_t>(ii) + 1, 0);
  int64_t everywhere = 0;  // registers of live ranges that wrap whole IIs
  ctx_.count_scan(ctx_.g.op_count() + ii, "builder.scan");
  for (OpId u = 0; u < ctx_.g.op_count(); ++u) {
    if (ctx_.regs[u] == 0) continue;
    const int64_t len = live_end(placement_, u) - start[u];
    everywhere += ctx_.regs[u] * (len / ii);
    const int64_t from = start[u] % ii, to = from + len % ii;  // [from, to) modulo ii
    diff[from] += ctx_.regs[u];
    if (to <= ii) {
      diff[to] -= ctx_.regs[u];
    } else {
      diff[ii] -= ctx_.regs[u];
      diff[0] += ctx_.regs[u];
      diff[to - ii] -= ctx_.regs[u];
    }
  }
  Pressure p;
  int64_t running = 0;
  for (int64_t r = 0; r < ii; ++r) {
    running += diff[r];
    if (everywhere + running > p.peak) p = {everywhere + running, r};
  }
  return p;
}

// Register pressure (seed 002's model, docs/COST_BASED.md): when the
// fullest modulo row holds more live registers than the budget, the value
// live in that row that is held across the most stages (weighted by its
// registers) gets its consumers pulled one stage closer.
std::optional<BuilderConstraint> Builder::tighten_for_registers(
    const std::vector<int64_t>& start, const Pressure& pressure) const {
  if (ctx_.reg_budget == 0 || pressure.peak <= ctx_.reg_budget) return std::nullopt;
  const int64_t ii = placement_.ii();
  std::optional<BuilderConstraint> best;
  int64_t best_weight = 0;
  ctx_.count_scan(ctx_.g.op_count(), "builder.scan");
  for (OpId u = 0; u < ctx_.g.op_count(); ++u) {
    if (ctx_.regs[u] == 0) continue;
    const int64_t len = live_end(placement_, u) - start[u];
    const int64_t offset = ((pressure.row - start[u]) % ii + ii) % ii;
    if (len <= offset) continue;  // not live in the peak row
    const int64_t span = consumer_stage_span(u, start);
    if (span > 0 && ctx_.regs[u] * span > best_weight && !already_lifted(u, span - 1)) {
      best_weight = ctx_.regs[u] * span;
      best = BuilderConstraint{
          ConstraintFamily::kRegisterPressure, BuilderConstraint::Shape::kStageSpan, u, u,
          span - 1, 0,
          "register pressure: " + std::to_string(pressure.peak) + " registers live in row " +
              std::to_string(pressure.row) + " (budget " + std::to_string(ctx_.reg_budget) +
              "), so consumers of '" + ctx_.g.ops[u].name + "' at most " +
              std::to_string(span - 1) + " stage(s) behind it"};
    }
  }
  return best;
}

}  // namespace tilesched::cost_based
