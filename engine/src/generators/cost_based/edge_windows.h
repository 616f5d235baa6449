// Dependence windows kept along the edges, without an all-pairs closure
// (docs/COST_BASED.md, "Windows", "Along the edges"). For each op the unit
// keeps the latest and the earliest bound the placed ops put on its start
// (the longest-path weights the closure would hold); a seat relaxes them
// along the edges from the seated op outward, as IMS and SMS keep their
// windows; an undo trail restores a last-in first-out unseat, and any other
// unseat recomputes what the op's seat may have set. Memory O(ops + edges).
// Point queries (a longest path from or to one op, reachability) are
// single-source searches over the same edges. The seats are the
// placement's (windows.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tilesched/graph.h"
#include "windows.h"

namespace tilesched::cost_based {

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

}  // namespace tilesched::cost_based
