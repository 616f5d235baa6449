// Longest paths at one II for swing modulo scheduling, without the
// all-pairs distance closure: every op's timing (ASAP and height), and the
// window bounds the seated ops leave every other op, tightened as ops are
// seated and undone as they are unseated. Edges weigh λ − II·δ; both are
// label-correcting passes over the graph's own edges in topological order
// of the loop body, and the bounds equal the closure's
// (Early/Late over the seated ops). Why a pass may stop at seated ops, and
// the cost: docs/BASELINES.md, "Swing modulo scheduling".
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::sms {

// The graph's edges by endpoint, each with its latency and distance.
class PathGraph {
 public:
  PathGraph(const Graph& g, const Adjacency& adj);

  struct Arc {
    OpId other = 0;  // the head (forward) or the tail (backward)
    int64_t latency = 0;
    int64_t distance = 0;
  };
  int size() const { return n_; }
  // The order a pass visits the ops in (paths.cc): forward, ascending
  // position of v in Kahn's walk over the distance-0 edges (ops on a
  // distance-0 cycle after the walk, by id); backward, descending.
  int key(OpId v, bool forward) const { return forward ? rank_[v] : n_ - 1 - rank_[v]; }
  OpId op_at(int key, bool forward) const { return walk_[forward ? key : n_ - 1 - key]; }
  const Arc* begin(OpId v, bool forward) const {
    return (forward ? out_ : in_).data() + (forward ? out_begin_ : in_begin_)[v];
  }
  const Arc* end(OpId v, bool forward) const {
    return (forward ? out_ : in_).data() + (forward ? out_begin_ : in_begin_)[v + 1];
  }

 private:
  int n_ = 0;
  std::vector<int> out_begin_, in_begin_;
  std::vector<Arc> out_, in_;
  std::vector<OpId> walk_;  // the ops by rank
  std::vector<int> rank_;
};

// The timing at `ii`: asap[v] = max(0, longest path into v), height[v] =
// max(0, longest path out of v) (the values order.h's Timing takes).
// False when a cycle is positive at ii (ii below RecMII, or a zero-distance
// cycle of positive latency); the outputs are then unspecified.
bool longest_path_timing(const PathGraph& pg, int64_t ii, std::vector<int64_t>& asap,
                         std::vector<int64_t>& height);

// A set of keys 0..n−1 taken out least first, where a key put in may be
// less than the last taken out (a pass through a loop-carried edge starts
// a new wave): a bitmap and the least word that may hold one.
class KeyQueue {
 public:
  void resize(int n) { words_.assign(static_cast<size_t>(n + 63) / 64, 0); }
  bool empty() const { return count_ == 0; }
  bool has(int k) const { return (words_[static_cast<size_t>(k) / 64] >> (k % 64)) & 1; }
  void put(int k) {  // REQUIRES: !has(k)
    words_[static_cast<size_t>(k) / 64] |= uint64_t{1} << (k % 64);
    ++count_;
    cursor_ = std::min(cursor_, static_cast<size_t>(k) / 64);
  }
  int take() {  // REQUIRES: !empty()
    while (words_[cursor_] == 0) ++cursor_;
    const int bit = std::countr_zero(words_[cursor_]);
    words_[cursor_] &= words_[cursor_] - 1;
    --count_;
    return static_cast<int>(cursor_ * 64) + bit;
  }

 private:
  std::vector<uint64_t> words_;
  size_t cursor_ = 0;
  int count_ = 0;
};

// Early and Late of every unseated op, given the seated ones, at one II.
// REQUIRES: no cycle is positive at that II; every op is seated inside
// its window (early(v) <= t <= late(v) where those exist).
class SeatBounds {
 public:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

  explicit SeatBounds(const PathGraph& pg);

  // Nothing seated, at `ii`.
  void reset(int64_t ii);
  // v seated at t: the ops it reaches (is reached from) through unseated
  // ops get their Early (Late) tightened.
  void seat(OpId v, int64_t t);
  // Undoes the last seat() (LIFO), bounds included.
  void unseat_last();

  // kNone when no seated op reaches v (v reaches no seated op).
  int64_t early(OpId v) const { return early_[v]; }
  int64_t late(OpId v) const { return neg_late_[v] == kNone ? kNone : -neg_late_[v]; }

 private:
  // From the ops in queue_, along arcs into unseated ops:
  // value[w] = max(value[w], value[v] + λ − ii·δ), each change on the trail.
  void relax(std::vector<int64_t>& value, bool forward);
  void set(std::vector<int64_t>& value, OpId v, int64_t x);

  struct Change {
    int64_t* cell = nullptr;
    int64_t old = 0;
  };

  const PathGraph& pg_;
  int64_t ii_ = 1;
  std::vector<int64_t> early_;
  std::vector<int64_t> neg_late_;  // −Late: the same max-plus pass, backward
  std::vector<char> seated_;
  KeyQueue queue_;  // PathGraph keys
  std::vector<Change> trail_;
  struct Mark {
    OpId op = 0;
    size_t trail = 0;  // trail_.size() before its seat
  };
  std::vector<Mark> marks_;  // one per seat, in seating order
};

}  // namespace tilesched::sms
