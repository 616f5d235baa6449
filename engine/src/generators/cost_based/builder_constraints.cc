// The builder constraints in force (see builder_constraints.h).
#include "builder_constraints.h"

#include <cassert>
#include <iterator>

namespace tilesched::cost_based {

BuilderConstraints::BuilderConstraints(const Context& ctx) : ctx_(ctx) {
  of_.assign(ctx.g.op_count(), {});
}

void BuilderConstraints::index(int c) {
  const BuilderConstraint& k = list_[c];
  of_[k.op].push_back(c);
  if (k.shape == BuilderConstraint::Shape::kSameStage) {
    of_[k.other].push_back(c);
  } else if (k.shape == BuilderConstraint::Shape::kStageSpan) {
    for (int p = ctx_.adj.out_begin[k.op]; p < ctx_.adj.out_begin[k.op + 1]; ++p) {
      const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
      if (e.kind != EdgeKind::kData || e.to == k.op) continue;
      std::vector<int>& list = of_[e.to];
      if (list.empty() || list.back() != c) list.push_back(c);  // parallel edges
    }
  }
}

void BuilderConstraints::add(BuilderConstraint c) {
  list_.push_back(std::move(c));
  index(static_cast<int>(list_.size()) - 1);
}

std::vector<BuilderConstraint> BuilderConstraints::lift_latest_batch() {
  assert(!list_.empty());
  const int batch = list_.back().batch;
  size_t first = list_.size();
  while (first > 0 && list_[first - 1].batch == batch) --first;
  std::vector<BuilderConstraint> lifted(
      std::make_move_iterator(list_.begin() + static_cast<ptrdiff_t>(first)),
      std::make_move_iterator(list_.end()));
  list_.resize(first);
  // Indices are appended in order, so the lifted ones sit at each list's end.
  for (std::vector<int>& list : of_) {
    while (!list.empty() && list.back() >= static_cast<int>(first)) list.pop_back();
  }
  return lifted;
}

void BuilderConstraints::clear() {
  list_.clear();
  for (std::vector<int>& list : of_) list.clear();
}

bool BuilderConstraints::breaks(OpId v, int64_t stage, OpId u, int64_t u_stage) const {
  for (int c : of_[v]) {
    const BuilderConstraint& k = list_[c];
    switch (k.shape) {
      case BuilderConstraint::Shape::kMaxStage:
        break;  // v's own bound: the window's, not a conflict with u
      case BuilderConstraint::Shape::kSameStage:
        if ((k.op == u || k.other == u) && u_stage != stage) return true;
        break;
      case BuilderConstraint::Shape::kStageSpan:
        if (k.op == u && stage - u_stage > k.limit) return true;  // v consumes u's value
        if (k.op == v && u_stage - stage > k.limit) {
          for (int p = ctx_.adj.out_begin[v]; p < ctx_.adj.out_begin[v + 1]; ++p) {
            const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
            if (e.kind == EdgeKind::kData && e.to == u) return true;
          }
        }
        break;
    }
  }
  return false;
}

std::optional<int64_t> BuilderConstraints::max_stage(OpId v) const {
  std::optional<int64_t> bound;
  for (int c : of_[v]) {
    const BuilderConstraint& k = list_[c];
    if (k.shape == BuilderConstraint::Shape::kMaxStage && (!bound || k.limit < *bound)) {
      bound = k.limit;
    }
  }
  return bound;
}

}  // namespace tilesched::cost_based
