// The state of one placement attempt at a fixed II, by concern: the seats
// and their windows (the modulo RRT, the seats taken, the dependence
// bounds: either kept along the edges (edge_windows.h) or read from the
// structural distance closure of seed 000 / Rau's MinDist; group stages for G4, the
// trial seats of the permute and fuse arms); the builder constraints in
// force (builder_constraints.h); the pressure evaluators' state (bank,
// surcharges; pressure.h); and the attempt's intermediate state, the dead
// marks the retry arm reads and Rau's forced starts (seeds 004/001).
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bounds/distance.h"
#include "bounds/rrt.h"
#include "builder_constraints.h"
#include "context.h"
#include "edge_windows.h"
#include "pressure.h"
#include "register_rows.h"

namespace tilesched::cost_based {

// The legal start cycles of an op given what is placed: [lo, hi].
struct Window {
  int64_t lo = 0;
  int64_t hi = kUnbounded;
  // Placed predecessors (with a path to the op): the pipe-slot evaluator's
  // basis. latest_pred_bound = max over them of s_p + D[p][v] (<= lo).
  bool has_pred = false;
  // min over them of s_p + D[p][v]: from the closure's placement only;
  // read it through Placement::earliest_pred_bound, which computes it along
  // the edges (on demand: the gates, which ask for windows at every seat,
  // never read it).
  int64_t earliest_pred_bound = 0;
  int64_t latest_pred_bound = 0;
  // Placed successors (the op has a path to one): `hi` is then theirs too,
  // not only the op's max_depth or a builder constraint.
  bool has_succ = false;
  bool empty() const { return lo > hi; }
};

// Chooses the placement whose dependence bounds are kept along the edges.
struct AlongEdges {};

class Placement {
 public:
  // Bounds from the all-pairs distance closure (the seeds' placement). With
  // `closure`, the placement reads the closure there (the generator's II
  // screen builds it, ii_screen.h) instead of keeping its own. REQUIRES:
  // `closure` outlives the placement.
  explicit Placement(const Context& ctx, DistanceMatrix* closure = nullptr);
  // Bounds kept along the edges (edge_windows.h): no closure, O(ops +
  // edges) memory. dist() and related() are the closure's: not available.
  Placement(const Context& ctx, AlongEdges);
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;

  // Starts an attempt at `ii`: empty table, nothing placed, dead marks and
  // surcharges kept (they are the intermediate state the ladder clears).
  // The closure is built unless it already holds `ii`. Returns false when
  // it finds a positive cycle.
  bool reset(int64_t ii);
  // Unseats every op (same II, same closure); the ladder's next rung.
  void clear_seats();
  void clear_intermediate();  // dead marks, spill surcharges

  const Context& ctx() const { return ctx_; }
  int64_t ii() const { return ii_; }
  // Earliest start from the dependences alone (every start is >= 0).
  int64_t asap(OpId v) const { return edges_ ? edges_->asap(v) : asap_[v]; }
  // REQUIRES: the closure's placement.
  const DistanceMatrix& dist() const {
    assert(!edges_);
    return dist_;
  }
  bool along_edges() const { return edges_.has_value(); }
  // A path of dependence edges from a to b, a != b.
  bool has_path(OpId a, OpId b) const {
    return edges_ ? edges_->has_path(a, b) : dist_.has_path(a, b);
  }
  // The longest path weight from a to b at the II (Rau's MinDist), or
  // DistanceMatrix::kNoPath. REQUIRES: a successful reset().
  int64_t longest_path(OpId a, OpId b) const;
  const ModuloRrt& rrt() const { return rrt_; }
  bool placed(OpId v) const { return placed_[v] != 0; }
  int64_t start(OpId v) const { return start_[v]; }
  int placed_count() const { return placed_count_; }
  const std::vector<OpId>& placed_ops() const { return placed_list_; }

  // Dependence window from the closure (or the labels along the edges)
  // against every placed op, the
  // static ASAP bound, max_depth (L6) and the builder constraints in force.
  // The group's stage (L5) is left to gate G4.
  Window window(OpId v) const;
  // The pipe-slot evaluator's earliest predecessor bound of v, given
  // w = window(v) (REQUIRES: w.has_pred, or the answer is unused): the
  // closure's min over the placed ops p with a path to v of s_p + D[p][v].
  // Along the edges the same from a search back from v when it visits at
  // most kExactEarliestVisits edges; past that, the least bound of v's
  // placed direct predecessors' edges (s_p + λ − II·δ), or the latest
  // bound when none is direct.
  int64_t earliest_pred_bound(OpId v, const Window& w) const;
  static constexpr int64_t kExactEarliestVisits = 256;
  // The stage the group's placed members share, if any is placed. Inline:
  // the gates ask it for every seat they admit.
  std::optional<int64_t> group_stage(int group) const {
    if (group == kNoGroup || group_placed_[group] == 0) return std::nullopt;
    return group_stage_[group];
  }
  // The ops with a path to or from v in the closure, v left out (the same
  // at every II). REQUIRES: a successful reset(), the closure's placement.
  std::span<const OpId> related(OpId v) const {
    assert(!edges_);
    return {related_.data() + related_begin_[v],
            static_cast<size_t>(related_begin_[v + 1] - related_begin_[v])};
  }
  // The ops whose dependence bounds the latest place(v) or unplace(v) may
  // have moved, v and its direct neighbours included: related(v) from the
  // closure, the ops whose labels changed (and v's neighbours) along the
  // edges. Valid until the next place or unplace.
  std::span<const OpId> moved(OpId v);

  bool fits(OpId v, int64_t t, RrtConflict* why = nullptr) const {
    return rrt_.probe(ctx_.nodes[v], t, why);
  }
  // The first start in [lo, hi] where v fits the table, or -1.
  int64_t first_fit(OpId v, int64_t lo, int64_t hi) const {
    return rrt_.first_fit(ctx_.nodes[v], lo, hi);
  }
  // Seating and unseating update the dependence bounds of the ops related
  // to v (a path either way in the closure), O(related). With the undo
  // trail on, unplacing the op placed last restores their bounds from the
  // trail; any other unplace marks them for recomputation from the placed
  // list (O(placed) each, when next read) and empties the trail.
  void place(OpId v, int64_t t);   // REQUIRES: fits(v, t) and not placed
  void unplace(OpId v);            // REQUIRES: placed
  // The undo trail (the backtracking rung's seats are LIFO). Off by default:
  // the ladder's rungs seat every op once, and their trail would grow to
  // O(ops * related). clear_seats() empties it.
  void set_undo_trail(bool on);
  // Unseats every op, then seats op v at starts[v]; false (and partly
  // seated) when one does not fit, which a legal placement never does.
  bool seat_all(const std::vector<int64_t>& starts);
  std::vector<int64_t> starts() const;  // every op's start, placed or not

  // Trial placements (the permute and fuse arms): between begin_trial()
  // and end_trial() a place costs O(1): the dependence bounds of the other
  // ops are not updated, window() folds the few trial seats in instead, and
  // unplacing them (in reverse order) restores the state exactly.
  void begin_trial() { ++trial_depth_; }
  void end_trial() { --trial_depth_; }

  // Placed ops that conflict with v at t: RRT claimants on v's rows,
  // placed ops whose distance to or from v would be violated, group
  // members in another stage, and partners of a builder constraint v would
  // break.
  std::vector<OpId> conflicts(OpId v, int64_t t) const;

  // The builder constraints in force: window() and conflicts() read them.
  BuilderConstraints& constraints() { return constraints_; }
  const BuilderConstraints& constraints() const { return constraints_; }
  // The pressure evaluators' state; seating keeps its bank table.
  Pressure& pressure() { return pressure_; }
  const Pressure& pressure() const { return pressure_; }

  // End of u's value's live range: start + latency, or its latest placed
  // data consumer's start (plus distance * II). REQUIRES: u is placed.
  int64_t live_end(OpId u) const;
  // Registers live in each modulo row (registers.h reads it): every placed
  // op with registers, from its start to its live end. Trial seats are left
  // out (the permute and fuse arms never read it), so REQUIRES: no trial open.
  const RegisterRows& register_rows() const {
    assert(trial_depth_ == 0);
    return register_rows_;
  }

  // Snapshot overlay (retry arm).
  bool dead(OpId v) const { return dead_[v] != 0; }
  void mark_dead(OpId v) { dead_[v] = 1; }
  void mark_live(OpId v) { dead_[v] = 0; }
  // Rau: a forced op never goes back to a cycle it was forced into before.
  std::optional<int64_t> last_forced_start(OpId v) const;
  void set_last_forced_start(OpId v, int64_t t) { last_forced_[v] = t; }

 private:
  // True when seating v at t breaks a builder constraint between v and the
  // placed op u.
  bool breaks_constraint(OpId v, int64_t t, OpId u) const;

  // Dependence bounds of an op from the placed ops outside a trial, kept
  // incrementally: place() folds the new op in (O(n) over its distance row
  // and column); unplace() marks the related ops dirty and bounds()
  // recomputes them from the placed list.
  struct DepBounds {
    int64_t lo = 0;          // max s_u + D[u][v] (valid when preds > 0)
    int64_t earliest = 0;    // min s_u + D[u][v]
    int64_t hi = kUnbounded; // min s_w - D[v][w]
    int preds = 0;
  };
  // Folds a placed op at t into b, given D[placed][op] and D[op][placed].
  static void fold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t);
  // Takes the op at t back out of b where its bounds were not the binding
  // ones (then b is what folding the others gives); false where one was,
  // and b must be recomputed.
  static bool unfold(DepBounds& b, int64_t d_from, int64_t d_to, int64_t t);
  const DepBounds& bounds(OpId v) const;
  void find_related();
  // v was seated (sign +1) or is being unseated (-1): its own live range
  // and those of its placed data producers, whose live ends it moves.
  void update_live_ranges(OpId v, int sign);
  void add_live_range(OpId u, int sign);
  void clear_trail();
  // The bounds of an op along the edges (REQUIRES: not placed).
  DepBounds edge_bounds(OpId v) const;

  // One related op's bounds before a seat folded into them.
  struct TrailEntry {
    OpId op = 0;
    bool was_dirty = false;  // restored as dirty (its bounds are recomputed)
    DepBounds before;
  };
  // A seat on the trail: its op and where its entries start.
  struct TrailMark {
    OpId op = 0;
    size_t first = 0;
  };

  const Context& ctx_;
  int64_t ii_ = 0;
  DistanceMatrix own_dist_;
  DistanceMatrix& dist_;  // own_dist_ or the generator's
  std::optional<EdgeWindows> edges_;  // set: bounds along the edges, no closure
  std::vector<OpId> moved_;           // scratch of moved()
  std::vector<char> in_moved_;
  mutable std::vector<OpId> broken_;  // scratch of conflicts() along the edges
  mutable std::vector<char> broken_mark_;
  ModuloRrt rrt_;
  std::vector<int64_t> asap_;
  std::vector<int64_t> start_;
  std::vector<char> placed_;
  std::vector<int> placed_pos_;        // index into placed_list_
  std::vector<OpId> placed_list_;
  int placed_count_ = 0;
  std::vector<int> group_placed_;      // members placed, per group
  std::vector<int64_t> group_stage_;   // stage of the placed members
  BuilderConstraints constraints_;
  Pressure pressure_;
  std::vector<char> dead_;
  std::vector<int64_t> last_forced_;
  // The closure transposed: [v * n + u] = D[u][v]. Every cell is written
  // at each reset, so the storage is not zeroed first.
  std::unique_ptr<int64_t[]> dist_t_;
  size_t dist_t_cells_ = 0;
  mutable std::vector<DepBounds> dep_;
  mutable std::vector<char> dep_dirty_;
  RegisterRows register_rows_;
  std::vector<int64_t> live_end_;      // by placed op with registers: the end added
  std::vector<int> related_begin_;  // CSR over related_, built at the first reset
  std::vector<OpId> related_;
  bool trail_on_ = false;
  std::vector<TrailEntry> trail_;
  std::vector<TrailMark> marks_;
  std::vector<OpId> trial_ops_;  // seats of the open trial, in order
  std::vector<char> in_trial_;   // per op
  int trial_depth_ = 0;
};

}  // namespace tilesched::cost_based
