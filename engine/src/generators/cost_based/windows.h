// The dependence windows of one placement attempt (docs/COST_BASED.md,
// "Windows"): what the placed ops allow each op's start, from the
// dependences alone. One interface, two implementations, chosen once where
// the Placement is made: the all-pairs distance closure of seed 000 /
// Rau's MinDist (ClosureWindows, closure_windows.cc), or labels kept along
// the edges without a closure (EdgeWindows, edge_windows.cc). Both give
// the same windows; they differ in memory (O(ops²) against O(ops +
// edges)) and in the cost of a query. The seats themselves (Seats) are the placement's: the windows
// read them. Calls are per op (a seat, an unseat, one op's bounds), never
// per edge, so the virtual call stays off the inner loops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "bounds/distance.h"
#include "tilesched/graph.h"
#include "context.h"
#include "util/test_seams.h"

namespace tilesched::cost_based {

// The legal start cycles of an op given what is placed: [lo, hi].
struct Window {
  int64_t lo = 0;
  int64_t hi = kUnbounded;
  // Placed predecessors (with a path to the op): the pipe-slot evaluator's
  // basis. latest_pred_bound = max over them of s_p + D[p][v] (<= lo).
  bool has_pred = false;
  // min over them of s_p + D[p][v]: from the closure only; read it through
  // Placement::earliest_pred_bound, which computes it along the edges (on
  // demand: the gates, which ask for windows at every seat, never read it).
  int64_t earliest_pred_bound = 0;
  int64_t latest_pred_bound = 0;
  // Placed successors (the op has a path to one): `hi` is then theirs too,
  // not only the op's max_depth or a builder constraint.
  bool has_succ = false;
  bool empty() const { return lo > hi; }
};

// The dependence bounds the placed ops other than v put on v's start.
struct DepBounds {
  int64_t lo = 0;           // max s_u + D[u][v] (valid when preds > 0)
  int64_t earliest = 0;     // min s_u + D[u][v] (the closure's; else lo)
  int64_t hi = kUnbounded;  // min s_w - D[v][w]
  int preds = 0;            // placed ops with a path to v (along the edges: 0 or 1)
};

// The ops seated, in seat order (an unseat swaps the last one into its
// place), with their starts; `trial` the seats of the open trial
// (Placement::begin_trial), in order. A start is kept after its unseat.
struct Seats {
  explicit Seats(int n)
      : start(static_cast<size_t>(n), 0),
        placed(static_cast<size_t>(n), 0),
        pos(static_cast<size_t>(n), 0),
        in_trial(static_cast<size_t>(n), 0) {}
  void add(OpId v, int64_t t, bool in_a_trial) {
    start[v] = t;
    placed[v] = 1;
    pos[v] = static_cast<int>(list.size());
    list.push_back(v);
    if (in_a_trial) {
      in_trial[v] = 1;
      trial.push_back(v);
    }
  }
  // Leaves v in `trial` until end_trial_seat(v): the windows read it there
  // as they unseat it.
  void remove(OpId v) {
    placed[v] = 0;
    list[pos[v]] = list.back();
    pos[list[pos[v]]] = pos[v];
    list.pop_back();
  }
  void end_trial_seat(OpId v) {
    trial.pop_back();
    in_trial[v] = 0;
  }
  void clear() {
    std::fill(placed.begin(), placed.end(), 0);
    list.clear();
    for (OpId v : trial) in_trial[v] = 0;
    trial.clear();
  }

  std::vector<int64_t> start;
  std::vector<char> placed;
  std::vector<OpId> list;
  std::vector<int> pos;  // index into list
  std::vector<OpId> trial;
  std::vector<char> in_trial;
};

// The one undo trail: for each seat not yet undone, in seat order, the
// state (Saved) that the seat changed, op by op, as it was before. Undoing
// the latest seat puts it back exactly (every later seat was undone in
// turn); an unseat out of order must clear() it.
template <class Saved>
class UndoTrail {
 public:
  void open(OpId v) { marks_.push_back({v, entries_.size()}); }
  void save(OpId x, const Saved& before) { entries_.push_back({x, before}); }
  // When v's seat is the latest on the trail: restore(op, saved) for each
  // of its entries, in order, and true. Otherwise false.
  template <class Restore>
  bool undo(OpId v, Restore&& restore) {
    if (marks_.empty() || marks_.back().op != v) return false;
    for (size_t i = marks_.back().first; i < entries_.size(); ++i) {
      restore(entries_[i].op, entries_[i].saved);
    }
    entries_.resize(marks_.back().first);
    marks_.pop_back();
    return true;
  }
  size_t size() const { return entries_.size(); }
  void clear() {
    entries_.clear();
    marks_.clear();
  }

 private:
  struct Entry {
    OpId op = 0;
    Saved saved;
  };
  struct Mark {
    OpId op = 0;
    size_t first = 0;
  };
  std::vector<Entry> entries_;
  std::vector<Mark> marks_;
};

class Windows {
 public:
  virtual ~Windows() = default;

  // Starts an attempt at `ii`, nothing seated. False when a cycle has
  // positive weight (no schedule at this II).
  virtual bool reset(int64_t ii) = 0;
  // Forgets every seat (same II); the trail too.
  virtual void clear() = 0;
  // The undo trail, for LIFO unseats (the backtracking rung). Along the
  // edges it is always kept, bounded; this only empties it.
  virtual void set_undo_trail(bool on) = 0;

  // Earliest start from the dependences alone (every start is >= 0).
  int64_t asap(OpId v) const { return asap_[v]; }
  // The longest path weight from a to b at the II (Rau's MinDist), or
  // DistanceMatrix::kNoPath.
  virtual int64_t longest_path(OpId a, OpId b) const = 0;

  // v's bounds from the other placed ops, trial seats included.
  virtual DepBounds bounds(OpId v) const = 0;
  // min over the placed ops p with a path to v of s_p + D[p][v], given
  // w (the window of v, w.has_pred); Placement::earliest_pred_bound.
  virtual int64_t earliest_pred_bound(OpId v, const Window& w) const = 0;
  // The placed ops whose dependence with v a seat of v at t breaks
  // (t + D[v][u] > s_u or s_u + D[u][v] > t), each once, in no set order.
  virtual void broken_by(OpId v, int64_t t, std::vector<OpId>& out) const = 0;

  // v was added to the seats (trial seats too); returns the work it counts
  // beyond the seat's own unit.
  virtual int64_t seat(OpId v, int64_t t) = 0;
  // v was removed from the seats (a trial seat: still in the trial list).
  virtual void unseat(OpId v) = 0;
  // The ops whose bounds the latest seat or unseat of v may have moved, v
  // and its direct neighbours included. Valid until the next seat or unseat.
  virtual std::span<const OpId> moved(OpId v) = 0;

  // The work the windows did since the last call, for the meter: one unit
  // per kVisitsPerUnit ops and edges their label updates, take-backs and
  // path searches visited (a visit costs about an eighth of what a gate's
  // unit does); the rest carries over.
  static constexpr int64_t kVisitsPerUnit = 8;
  int64_t take_work() {
    const int64_t w = work_ / kVisitsPerUnit;
    work_ -= w * kVisitsPerUnit;
    return w;
  }

 protected:
  std::vector<int64_t> asap_;
  mutable int64_t work_ = 0;  // take_work's; the seeds' closure counts none
};

// Dependence windows kept along the edges, without an all-pairs closure
// (docs/COST_BASED.md, "Windows", "Along the edges"). For each op the unit
// keeps the latest and the earliest bound the placed ops put on its start
// (the longest-path weights the closure would hold); a seat relaxes them
// along the edges from the seated op outward, as IMS and SMS keep their
// windows; an undo trail restores a last-in first-out unseat, and any other
// unseat recomputes what the op's seat may have set. Memory O(ops + edges).
// Point queries (a longest path from or to one op, reachability) are
// single-source searches over the same edges. The seats are the
// placement's (Seats, above).

class EdgeWindows final : public Windows {
 public:
  // "No placed op bounds this op from above" (below any start).
  static constexpr int64_t kNone = INT64_MIN / 4;
  // "No placed op bounds this op from below" (above any start).
  static constexpr int64_t kOpen = -kNone;

  // REQUIRES: adj == Adjacency::build(g); g, adj and seats outlive the unit.
  EdgeWindows(const Graph& g, const Adjacency& adj, const Seats& seats);

  // The edge weights at `ii` and every op's ASAP (max(0, longest path into
  // it)); nothing placed. False when a cycle has positive weight (no
  // schedule at this II); the unit is then unusable until the next reset.
  bool reset(int64_t ii) override;
  // Unseats every op (same II).
  void clear() override;
  // The trail is always kept (bounded: seat()), so that trials and the
  // backtracking rung undo their seats cheaply; this empties it.
  void set_undo_trail(bool) override { trail_.clear(); }

  // max over placed u of s_u + D[u][v] (u = v included), or kNone.
  int64_t from_placed(OpId v) const { return up_[v]; }
  // min over placed w of s_w - D[v][w] (w = v included), or kOpen.
  int64_t to_placed(OpId v) const { return -neg_down_[v]; }

  // REQUIRES: v just added to the seats, t >= 0. Returns the labels it
  // changed (the work it counts). Outside a trial it then drops the trail
  // past O(ops + edges) entries (a later unseat recomputes its labels).
  int64_t seat(OpId v, int64_t t) override;
  // REQUIRES: v just removed from the seats. The latest seat not yet undone
  // restores the labels from the trail in O(labels it changed); any other
  // recomputes the labels v's seat may have set (those a tight path from v
  // reaches) from the rest, in O(edges around them).
  void unseat(OpId v) override;
  // Drops the trail once it holds more entries than `limit`.
  void trim_trail(size_t limit);
  // The ops whose labels the latest seat or unseat changed (or may have:
  // an out-of-order unseat names every op it recomputed), v included.
  std::span<const OpId> changed() const { return changed_; }
  // changed() with v and its direct neighbours.
  std::span<const OpId> moved(OpId v) override;

  // The labels as bounds: from_placed and to_placed, or, for a placed op
  // (whose labels count its own seat), the other placed ops' by two
  // searches (the diagnostics ask this of a placed op). `earliest` is
  // `lo`: earliest_pred_bound() computes it.
  DepBounds bounds(OpId v) const override;
  // The exact bound from least_bound_from_placed() when its search visits
  // at most kExactEarliestVisits edges; past that, the least bound of v's
  // placed direct predecessors' edges (s_p + λ − II·δ), or the latest
  // bound when none is direct.
  int64_t earliest_pred_bound(OpId v, const Window& w) const override;
  static constexpr int64_t kExactEarliestVisits = 256;

  // D[v][*]: the longest path weight from v to every op (kNone: no path;
  // D[v][v] = 0), into a scratch row valid until the next call.
  const std::vector<int64_t>& longest_from(OpId v) const;
  // D[*][v], likewise, in a second scratch row.
  const std::vector<int64_t>& longest_to(OpId v) const;
  int64_t longest_path(OpId a, OpId b) const override;
  // Two searches that expand only the ops through which a dependence can
  // be broken: none when t lies within v's labels. REQUIRES: v not placed.
  void broken_by(OpId v, int64_t t, std::vector<OpId>& out) const override;
  // min over placed u != v with a path to v of s_u + D[u][v] (nullopt when
  // none), by a search back from v over every op with a path to it; nullopt
  // too when that search would visit more than `max_visits` edges (the
  // same ops at every placement, so for a given op and II the answer is
  // either always exact or never computed; the unit remembers which until
  // the next reset, so REQUIRES: the same max_visits at every call).
  std::optional<int64_t> least_bound_from_placed(OpId v, int64_t max_visits) const;

 private:
  // `n` ops a scan of loop `loop` read: visits for take_work, trips for
  // the trip-count test (util/test_seams.h).
  void visited(const char* loop, int64_t n) const {
    test_seams::count_trips(loop, n);
    work_ += n;
  }
  // A label pair before a seat raised it.
  struct Saved {
    int64_t up = 0;
    int64_t down = 0;
  };

  // Raises up_ along out-edges (`forward`) or neg_down_ along in-edges
  // from the ops queued, recording each op it changes on the trail.
  void raise(bool forward);
  void record(OpId x);
  template <bool kForward, class Expand>
  bool search(OpId v, std::vector<int64_t>& row, std::vector<OpId>& reached,
              int64_t max_visits, Expand&& expand) const;
  template <bool kForward>
  void take_back(OpId v, std::vector<int64_t>& label);
  void next_epoch();

  const Graph& g_;
  const Adjacency& adj_;
  const Seats& seats_;
  const int n_;
  std::vector<int64_t> weight_;  // by edge id
  std::vector<int64_t> up_;
  std::vector<int64_t> neg_down_;  // -(min over placed w of s_w - D[v][w]): a max, like up_
  std::vector<OpId> set_;       // scratch of take_back()
  std::vector<char> in_set_;
  UndoTrail<Saved> trail_;
  std::vector<OpId> changed_;
  std::vector<OpId> moved_;  // scratch of moved()
  std::vector<char> in_moved_;
  std::vector<uint32_t> stamp_;  // per op: the seat or search that last saw it
  uint32_t epoch_ = 0;
  std::vector<OpId> queue_;       // scratch FIFO of raise_labels()
  std::vector<char> queued_;
  std::vector<OpId> all_ops_;
  // Scratch of the point queries.
  mutable std::vector<int64_t> from_row_, to_row_;
  mutable std::vector<OpId> from_reached_, to_reached_;  // their entries not kNone
  // least_bound_from_placed's searches at this II: per op, where its
  // ancestors (u, D[u][v]) start in ancestors_ and end, kUnknown before its
  // first search, kPastBudget when the search visits too many edges.
  static constexpr int kUnknown = -1;
  static constexpr int kPastBudget = -2;
  mutable std::vector<int> ancestry_, ancestry_end_;
  mutable std::vector<std::pair<OpId, int64_t>> ancestors_;
  mutable std::vector<OpId> search_queue_;
  mutable std::vector<char> search_queued_;
};

// Dependence windows from the all-pairs distance closure (seed 000's
// structural distance, Rau's MinDist): every op's bounds kept
// incrementally. A seat folds itself into the bounds of the ops related to
// it (a path either way), O(related); an unseat takes itself back out
// where its bound was not the binding one and marks the others for
// recomputation from the placed ops (O(placed) each, when next read). With
// the undo trail on, unseating the latest seat restores the bounds it
// moved instead. Trial seats are not folded: bounds() folds them in.
// Memory O(ops²).

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
