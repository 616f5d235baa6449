// The scheduling phase of swing modulo scheduling (Llosa et al., PACT 1996,
// section 4; docs/BASELINES.md): one pass over the swing order at a fixed
// II, each op (or leader group, as one unit) seated in the modulo RRT
// inside the window its placed neighbours leave, never moved again.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_algo.h"
#include "bounds/rrt.h"
#include "order.h"
#include "paths.h"
#include "tilesched/graph.h"

namespace tilesched::sms {

// Why an II attempt failed. The order is the stats' order.
enum class Failure {
  kEmptyWindow,  // the placed ops leave Early > Late
  kMaxDepth,     // the window is empty once L6's stage bound is applied
  kNoSlot,       // the RRT has no free seat in the scanned cycles
  kGroupStage,   // no stage holds every member of a leader group (L5)
  kStorage,      // placement done, the SMEM pool (L4) overflows
};
inline constexpr int kFailureCount = 5;
std::string_view failure_name(Failure f);

// Leader groups (L5), as graph_algo.h finds them.
using Groups = LeaderGroups;

struct AttemptFailure {
  Failure failure = Failure::kNoSlot;
  OpId op = -1;     // the op that found no seat (a group's first member)
  int64_t scanned = 0;  // kNoSlot: how many cycles it scanned
  std::string why;  // names the op (or group) and the cycles it tried
};

class Placer {
 public:
  // Keeps references to its arguments, which must outlive it.
  Placer(const Graph& g, const Adjacency& adj, const PathGraph& paths,
         const std::vector<NodeRrt>& nodes, const Groups& groups);

  // Seats every op, in `order` (a group at its first member, all members
  // at once), at `ii`. True on success, with starts() normalized so the
  // earliest op is in stage 0; otherwise *failure says why.
  // REQUIRES: no cycle is positive at ii; order is a permutation of the ops.
  bool place_all(int64_t ii, const Timing& timing, const std::vector<OpId>& order,
                 AttemptFailure* failure);
  const std::vector<int64_t>& starts() const { return start_; }

 private:
  static constexpr int64_t kNoBound = std::numeric_limits<int64_t>::max() / 4;

  // What the placed ops allow for v. Starts are offset by base_ (a
  // multiple of II) so a bottom-up scan never goes below 0. The bounds are
  // the distance closure's (every placed op with a path to or from v),
  // kept by SeatBounds (paths.h) as ops are seated;
  // the scan direction from v's own edges, as in the paper: forward when a
  // direct predecessor is placed, backward when only direct successors are.
  struct Window {
    bool has_pred = false, has_succ = false;      // closure bounds exist
    bool direct_pred = false, direct_succ = false;  // an edge to/from a placed op
    int64_t early = 0;  // max over placed u reaching v: s_u + D[u][v]
    int64_t late = 0;   // min over placed w reached from v: s_w − D[v][w]
    int64_t stage_lo = 0, stage_hi = kNoBound;  // L6, in stages
  };
  Window window(OpId v) const;
  bool place_op(OpId v, AttemptFailure* failure);
  // The members' windows, with the unit's joint direction in `unit`; a
  // unit with no placed neighbour starts every member from its ASAP.
  std::vector<Window> group_windows(const std::vector<OpId>& members, Window& unit) const;
  bool place_group(int group, AttemptFailure* failure);
  // Seats every member in stage k; on failure unseats them again.
  bool try_group_stage(const std::vector<OpId>& members, int64_t k, bool bottom_up);
  // The first start from `from` down to `to` (backward) or up (forward)
  // where v fits the RRT, or -1.
  int64_t scan(OpId v, int64_t from, int64_t to, bool downward) const;
  void seat(OpId v, int64_t t);
  void unseat_last();  // the op seated last
  std::string cycles(int64_t from, int64_t to) const;  // "[a, b]" relative to base_

  // Scans forward from Early unless v's placed neighbours say backward.
  static bool backward(const Window& w) {
    if (w.direct_pred) return false;
    if (w.direct_succ) return true;
    return !w.has_pred && w.has_succ;
  }

  const Graph& g_;
  const Adjacency& adj_;
  const std::vector<NodeRrt>& nodes_;
  const Groups& groups_;
  ModuloRrt rrt_;
  SeatBounds bounds_;
  const Timing* timing_ = nullptr;
  int64_t ii_ = 1;
  int64_t base_ = 0;
  int64_t latency_sum_ = 0;  // Σ max(0, λ) over the edges
  std::vector<int64_t> start_;
  std::vector<char> placed_;
  std::vector<OpId> seated_;      // in seating order
  std::vector<int64_t> min_stage_;  // after each seat: the lowest stage seated
  std::vector<int64_t> md_floor_;   // after each seat: max (stage − max_depth), >= 0
};

}  // namespace tilesched::sms
