// The dependence windows of one placement attempt (docs/COST_BASED.md,
// "Windows"): what the placed ops allow each op's start, from the
// dependences alone. One interface, two implementations, chosen once where
// the Placement is made: the all-pairs distance closure of seed 000 /
// Rau's MinDist (closure_windows.h), or labels kept along the edges
// without a closure (edge_windows.h). Both give the same windows; they
// differ in memory (O(ops²) against O(ops + edges)) and in the cost of a
// query. The seats themselves (Seats) are the placement's: the windows
// read them. Calls are per op (a seat, an unseat, one op's bounds), never
// per edge, so the virtual call stays off the inner loops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "bounds/distance.h"
#include "context.h"
#include "tilesched/graph.h"

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

}  // namespace tilesched::cost_based
