// Dependence windows kept along the edges, without an all-pairs closure
// (docs/COST_BASED.md, "Windows along the edges"). At one II every edge
// u -> v of latency λ and distance δ asks s_v - s_u >= λ - II·δ, its
// weight. For each op the unit keeps two labels: the latest bound the placed
// ops put on its start from above (the longest path from a placed op,
// max over placed u of s_u + D[u][v]) and the earliest from below
// (min over placed w of s_w - D[v][w]), D being the longest-path weight
// (Rau's MinDist) that the closure would hold. A seat raises and lowers
// labels by label-correcting relaxation along the edges, from the seated op
// outward, the way IMS and SMS keep their windows; an undo trail restores
// what a last-in first-out unseat takes back; any other unseat recomputes
// the labels the op's seat may have set from the rest. Memory O(ops +
// edges).
// Point queries (a longest path from or to one op, reachability) are
// single-source searches over the same edges.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::cost_based {

class EdgeWindows {
 public:
  // "No placed op bounds this op from above" (below any start).
  static constexpr int64_t kNone = INT64_MIN / 4;
  // "No placed op bounds this op from below" (above any start).
  static constexpr int64_t kOpen = -kNone;

  // REQUIRES: adj == Adjacency::build(g); both outlive the unit.
  EdgeWindows(const Graph& g, const Adjacency& adj);

  // The edge weights at `ii` and every op's ASAP (max(0, longest path into
  // it)); nothing placed. False when a cycle has positive weight (no
  // schedule at this II); the unit is then unusable until the next reset.
  bool reset(int64_t ii);
  // Unseats every op (same II).
  void clear();

  int64_t ii() const { return ii_; }
  int64_t asap(OpId v) const { return asap_[v]; }
  // max over placed u of s_u + D[u][v] (u = v included), or kNone.
  int64_t from_placed(OpId v) const { return up_[v]; }
  // min over placed w of s_w - D[v][w] (w = v included), or kOpen.
  int64_t to_placed(OpId v) const { return -neg_down_[v]; }
  bool placed(OpId v) const { return placed_[v] != 0; }
  int64_t start(OpId v) const { return start_[v]; }
  int64_t weight(int edge) const { return weight_[edge]; }

  // REQUIRES: v not placed, t >= 0.
  void seat(OpId v, int64_t t);
  // REQUIRES: v placed. The latest seat not yet undone restores the labels
  // from the trail in O(labels it changed); any other recomputes the labels
  // v's seat may have set (those a tight path from v reaches) from the
  // rest, in O(edges around them).
  void unseat(OpId v);
  // Drops the trail (a later unseat recomputes its labels) once it holds more entries
  // than `limit`, which keeps memory O(ops + edges). The caller calls it
  // where no unseat it relies on to be cheap is pending.
  void trim_trail(size_t limit);
  void drop_trail();
  // The ops whose labels the latest seat or unseat changed (or may have:
  // an out-of-order unseat names every op it recomputed), v included.
  std::span<const OpId> changed() const;

  // D[v][*]: the longest path weight from v to every op (kNone: no path;
  // D[v][v] = 0), into a scratch row valid until the next call.
  const std::vector<int64_t>& longest_from(OpId v) const;
  // D[*][v], likewise, in a second scratch row.
  const std::vector<int64_t>& longest_to(OpId v) const;
  // The placed ops whose dependence with v (unplaced) a seat at t breaks
  // (t + D[v][u] > s_u or s_u + D[u][v] > t), each once, in no set order.
  // Two searches that expand only the ops through which one can be
  // broken: none when t lies within v's labels.
  void broken_by(OpId v, int64_t t, std::vector<OpId>& out) const;
  // A path of one or more edges from a to b (whatever the II).
  bool has_path(OpId a, OpId b) const;
  // min over placed u != v with a path to v of s_u + D[u][v] (nullopt when
  // none), by a search back from v over every op with a path to it; nullopt
  // too when that search would visit more than `max_visits` edges (the
  // same ops at every placement, so for a given op and II the answer is
  // either always exact or never computed; the unit remembers which until
  // the next reset, so REQUIRES: the same max_visits at every call).
  std::optional<int64_t> least_bound_from_placed(OpId v, int64_t max_visits) const;

 private:
  struct TrailEntry {
    OpId op = 0;
    int64_t up = 0;
    int64_t down = 0;
  };
  struct TrailMark {
    OpId op = 0;
    size_t first = 0;
  };

  // Raises up_ along out-edges (`forward`) or neg_down_ along in-edges
  // from the ops queued, recording each op it changes on the trail.
  void raise(bool forward, bool record);
  void record(OpId x);
  template <bool kForward, class Expand>
  bool search(OpId v, std::vector<int64_t>& row, std::vector<OpId>& reached,
              int64_t max_visits, Expand&& expand) const;
  template <bool kForward>
  void take_back(OpId v, std::vector<int64_t>& label);
  void next_epoch();

  const Graph& g_;
  const Adjacency& adj_;
  const int n_;
  int64_t ii_ = 0;
  std::vector<int64_t> weight_;  // by edge id
  std::vector<int64_t> asap_;
  std::vector<int64_t> up_;
  std::vector<int64_t> neg_down_;  // -(min over placed w of s_w - D[v][w]): a max, like up_
  std::vector<int64_t> start_;
  std::vector<char> placed_;
  std::vector<OpId> placed_list_;  // in seat order (unseats swap out)
  std::vector<int> placed_pos_;
  std::vector<OpId> set_;       // scratch of take_back()
  std::vector<char> in_set_;
  std::vector<TrailEntry> trail_;
  std::vector<TrailMark> marks_;
  std::vector<OpId> changed_;
  std::vector<uint32_t> stamp_;  // per op: the seat or search that last saw it
  uint32_t epoch_ = 0;
  std::vector<OpId> queue_;       // scratch FIFO of relax()
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
