// Dependence windows from the all-pairs distance closure (seed 000's
// structural distance, Rau's MinDist; windows.h): every op's bounds kept
// incrementally. A seat folds itself into the bounds of the ops related to
// it (a path either way), O(related); an unseat takes itself back out
// where its bound was not the binding one and marks the others for
// recomputation from the placed ops (O(placed) each, when next read). With
// the undo trail on, unseating the latest seat restores the bounds it
// moved instead. Trial seats are not folded: bounds() folds them in.
// Memory O(ops²).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "bounds/distance.h"
#include "windows.h"

namespace tilesched::cost_based {

class ClosureWindows final : public Windows {
 public:
  // With `closure`, the unit reads the closure there (the generator's II
  // screen builds it, ii_screen.h) instead of keeping its own. The closure
  // is built at reset() unless it already holds the II. REQUIRES: g, adj,
  // seats and `closure` outlive the unit.
  ClosureWindows(const Graph& g, const Adjacency& adj, const Seats& seats,
                 DistanceMatrix* closure);

  bool reset(int64_t ii) override;
  void clear() override;
  // Off by default: the ladder's rungs seat every op once, and their trail
  // would grow to O(ops * related).
  void set_undo_trail(bool on) override;

  int64_t longest_path(OpId a, OpId b) const override {
    return dist_.has_path(a, b) ? dist_.at(a, b) : DistanceMatrix::kNoPath;
  }
  DepBounds bounds(OpId v) const override;
  int64_t earliest_pred_bound(OpId, const Window& w) const override {
    return w.earliest_pred_bound;
  }
  void broken_by(OpId v, int64_t t, std::vector<OpId>& out) const override;
  int64_t seat(OpId v, int64_t t) override;
  void unseat(OpId v) override;
  // related(v): the same ops at every seat.
  std::span<const OpId> moved(OpId v) override { return related(v); }

  // The ops with a path to or from v, v left out (the same at every II).
  // REQUIRES: a successful reset().
  std::span<const OpId> related(OpId v) const {
    return {related_.data() + related_begin_[v],
            static_cast<size_t>(related_begin_[v + 1] - related_begin_[v])};
  }

 private:
  // Folds a placed op at t into b, given D[placed][op] and D[op][placed].
  static void fold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t);
  // Takes the op at t back out of b where its bounds were not the binding
  // ones (then b is what folding the others gives); false where one was,
  // and b must be recomputed.
  static bool unfold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t);
  // The bounds from the placed ops outside the trial.
  const DepBounds& placed_bounds(OpId v) const;
  // D[*][v], from the transposed closure.
  const int64_t* column(OpId v) const {
    return dist_t_.get() + static_cast<size_t>(v) * static_cast<size_t>(n_);
  }
  void find_related();

  // An op's bounds before a seat folded into it.
  struct Saved {
    DepBounds before;
    bool was_dirty = false;  // restored as dirty (its bounds are recomputed)
  };

  const Graph& g_;
  const Adjacency& adj_;
  const Seats& seats_;
  const int n_;
  DistanceMatrix own_dist_;
  DistanceMatrix& dist_;  // own_dist_ or the generator's
  // The closure transposed: [v * n + u] = D[u][v]. Every cell is written
  // at each reset, so the storage is not zeroed first.
  std::unique_ptr<int64_t[]> dist_t_;
  size_t dist_t_cells_ = 0;
  mutable std::vector<DepBounds> dep_;
  mutable std::vector<char> dep_dirty_;
  std::vector<int> related_begin_;  // CSR over related_, built at the first reset
  std::vector<OpId> related_;
  bool trail_on_ = false;
  UndoTrail<Saved> trail_;
};

}  // namespace tilesched::cost_based
