// The scheduling phase of swing modulo scheduling (see placer.h).
#include "placer.h"

#include <algorithm>
#include <cassert>

#include "graph/graph_algo.h"

namespace tilesched::sms {

std::string_view failure_name(Failure f) {
  static constexpr std::string_view kNames[] = {"empty_window", "max_depth", "no_slot",
                                                "group_stage", "storage"};
  return kNames[static_cast<int>(f)];
}

Placer::Placer(const Graph& g, const Adjacency& adj, const PathGraph& paths,
               const std::vector<NodeRrt>& nodes, const Groups& groups)
    : g_(g), adj_(adj), nodes_(nodes), groups_(groups), rrt_(g.target), bounds_(paths) {
  for (const Edge& e : g.edges) latency_sum_ += std::max<int64_t>(0, e.latency);
  start_.assign(static_cast<size_t>(g.op_count()), 0);
  placed_.assign(static_cast<size_t>(g.op_count()), 0);
}

bool Placer::place_all(int64_t ii, const Timing& timing, const std::vector<OpId>& order,
                       AttemptFailure* failure) {
  const int n = g_.op_count();
  timing_ = &timing;
  ii_ = ii;
  rrt_.reset(ii_);
  bounds_.reset(ii_);
  std::fill(placed_.begin(), placed_.end(), 0);
  seated_.clear();
  min_stage_.clear();
  md_floor_.clear();
  // Each seat lies at most Σλ⁺ + II − 1 below an earlier one (a bottom-up
  // scan from Late), so n such steps stay above 0. <= 2^13 · (2^34 + 2^23):
  // no overflow.
  base_ = ii_ * (static_cast<int64_t>(n) * (latency_sum_ / ii_ + 2) + 1);
  for (OpId v : order) {
    if (placed_[v]) continue;  // a group member, seated with its group
    const int group = groups_.group_of[v];
    const bool ok = group == Groups::kNone ? place_op(v, failure) : place_group(group, failure);
    if (!ok) return false;
  }
  int64_t lowest = kNoBound;
  for (OpId v = 0; v < n; ++v) lowest = std::min(lowest, start_[v]);
  const int64_t shift = n == 0 ? 0 : lowest / ii_ * ii_;
  for (int64_t& s : start_) s -= shift;
  return true;
}

Placer::Window Placer::window(OpId v) const {
  Window w;
  const int64_t early = bounds_.early(v), late = bounds_.late(v);
  w.has_pred = early != SeatBounds::kNone;
  w.has_succ = late != SeatBounds::kNone;
  if (w.has_pred) w.early = early;
  if (w.has_succ) w.late = late;
  for (int p = adj_.in_begin[v]; p < adj_.in_begin[v + 1]; ++p) {
    const OpId u = g_.edges[adj_.in_edges[p]].from;
    if (u != v && placed_[u]) w.direct_pred = true;
  }
  for (int p = adj_.out_begin[v]; p < adj_.out_begin[v + 1]; ++p) {
    const OpId u = g_.edges[adj_.out_edges[p]].to;
    if (u != v && placed_[u]) w.direct_succ = true;
  }
  // L6 relative to the stage the schedule will start in: seating v in
  // stage k makes the lowest stage min(k, lowest so far), and every op u
  // with a bound needs stage_u − lowest ≤ max_depth_u.
  if (!seated_.empty()) {
    w.stage_lo = md_floor_.back();
    if (g_.ops[v].max_depth) w.stage_hi = min_stage_.back() + *g_.ops[v].max_depth;
  }
  return w;
}

int64_t Placer::scan(OpId v, int64_t from, int64_t to, bool downward) const {
  if (!downward) return rrt_.first_fit(nodes_[v], std::max<int64_t>(0, from), to);
  for (int64_t t = from; t >= to && t >= 0; --t) {
    if (rrt_.probe(nodes_[v], t)) return t;
  }
  return -1;
}

std::string Placer::cycles(int64_t from, int64_t to) const {
  return "[" + std::to_string(from - base_) + ", " + std::to_string(to - base_) + "]";
}

bool Placer::place_op(OpId v, AttemptFailure* failure) {
  Window w = window(v);
  const std::string& name = g_.ops[v].name;
  if (!w.has_pred && !w.has_succ) {  // nothing related placed yet: from its ASAP
    w.has_pred = true;
    w.early = base_ + timing_->asap[v];
  }
  if (w.has_pred && w.has_succ && w.late < w.early) {
    failure->failure = Failure::kEmptyWindow;
    failure->op = v;
    failure->why = "op '" + name + "': Early " + std::to_string(w.early - base_) + " > Late " +
                   std::to_string(w.late - base_);
    return false;
  }
  const int64_t lo_bound = w.stage_lo * ii_;
  const int64_t hi_bound = w.stage_hi == kNoBound ? kNoBound : w.stage_hi * ii_ + ii_ - 1;
  int64_t from = 0, to = 0;
  const bool back = backward(w);
  if (!back) {  // forward from Early, at most II cycles, not past Late
    from = std::max(w.early, lo_bound);
    to = from + ii_ - 1;
    if (w.has_succ) to = std::min(to, w.late);
    to = std::min(to, hi_bound);
  } else {  // backward from Late, at most II cycles, not before Early
    from = std::min(w.late, hi_bound);
    to = std::max(from - ii_ + 1, lo_bound);
    if (w.has_pred) to = std::max(to, w.early);
  }
  if ((!back && from > to) || (back && from < to)) {
    failure->failure = Failure::kMaxDepth;
    failure->op = v;
    failure->why = "op '" + name + "': max_depth bounds leave no cycle near " +
                   std::to_string((back ? w.late : w.early) - base_);
    return false;
  }
  const int64_t t = scan(v, from, to, back);
  if (t < 0) {
    failure->failure = Failure::kNoSlot;
    failure->op = v;
    failure->scanned = (back ? from - to : to - from) + 1;
    failure->why = "op '" + name + "': no free RRT seat in cycles " +
                   (back ? cycles(to, from) : cycles(from, to)) +
                   (back ? " (scanned backward from Late)" : " (scanned forward from Early)");
    return false;
  }
  seat(v, t);
  return true;
}

std::vector<Placer::Window> Placer::group_windows(const std::vector<OpId>& members,
                                                  Window& unit) const {
  std::vector<Window> windows;
  for (OpId m : members) {
    windows.push_back(window(m));
    unit.has_pred |= windows.back().has_pred;
    unit.has_succ |= windows.back().has_succ;
    unit.direct_pred |= windows.back().direct_pred;
    unit.direct_succ |= windows.back().direct_succ;
  }
  if (!unit.has_pred && !unit.has_succ) {  // a fresh unit: every member from its ASAP
    for (size_t i = 0; i < members.size(); ++i) {
      windows[i].has_pred = true;
      windows[i].early = base_ + timing_->asap[members[i]];
    }
    unit.has_pred = true;
  }
  return windows;
}

bool Placer::place_group(int group, AttemptFailure* failure) {
  // Members by asap, then id: a member comes after those with a path of
  // positive latency to it (the windows order the rest as they are seated).
  std::vector<OpId> members = groups_.members[group];
  std::sort(members.begin(), members.end(), [&](OpId a, OpId b) {
    return std::make_pair(timing_->asap[a], a) < std::make_pair(timing_->asap[b], b);
  });
  Window unit;  // the unit's direction, as backward() decides it for one op
  const std::vector<Window> windows = group_windows(members, unit);
  // Stages k with [k·II, k·II + II − 1] meeting every member's window.
  int64_t k_lo = 0, k_hi = kNoBound, k_full = 0, k_full_down = kNoBound;
  for (const Window& w : windows) {
    k_lo = std::max(k_lo, w.stage_lo);
    k_hi = std::min(k_hi, w.stage_hi);
    if (w.has_pred) {
      k_lo = std::max(k_lo, w.early / ii_);
      k_full = std::max(k_full, (w.early + ii_ - 1) / ii_);
    }
    if (w.has_succ) {
      k_hi = std::min(k_hi, w.late / ii_);
      k_full_down = std::min(k_full_down, (w.late + 1) / ii_ - 1);
    }
  }
  const bool bottom_up = backward(unit);
  const std::string who = "group of '" + g_.ops[members.front()].name + "' (leader_gid " +
                          std::to_string(*g_.ops[members.front()].leader_gid) + ", " +
                          std::to_string(members.size()) + " ops)";
  if (k_lo <= k_hi) {
    // Past k_full (k_full_down going down) every member's window covers
    // whole stages, and the stages only repeat the same rows.
    if (!bottom_up) {
      for (int64_t k = k_lo; k <= std::min(k_hi, std::max(k_lo, k_full)); ++k) {
        if (try_group_stage(members, k, false)) return true;
      }
    } else {
      for (int64_t k = k_hi; k >= std::max(k_lo, std::min(k_hi, k_full_down)); --k) {
        if (try_group_stage(members, k, true)) return true;
      }
    }
  }
  failure->failure = Failure::kGroupStage;
  failure->op = members.front();
  failure->why = who + ": no stage in " + std::to_string(k_lo - base_ / ii_) + ".." +
                 (k_hi == kNoBound ? std::string("") : std::to_string(k_hi - base_ / ii_)) +
                 " seats every member";
  return false;
}

bool Placer::try_group_stage(const std::vector<OpId>& members, int64_t k, bool bottom_up) {
  const size_t before = seated_.size();
  const int64_t stage_lo = k * ii_, stage_hi = stage_lo + ii_ - 1;
  bool ok = true;
  for (size_t i = 0; i < members.size() && ok; ++i) {
    const OpId m = bottom_up ? members[members.size() - 1 - i] : members[i];
    const Window w = window(m);
    int64_t lo = stage_lo, hi = stage_hi;
    if (w.has_pred) lo = std::max(lo, w.early);
    if (w.has_succ) hi = std::min(hi, w.late);
    if (k < w.stage_lo || k > w.stage_hi || lo > hi) {
      ok = false;
      break;
    }
    const int64_t t = bottom_up ? scan(m, hi, lo, true) : scan(m, lo, hi, false);
    if (t < 0) {
      ok = false;
      break;
    }
    seat(m, t);
  }
  if (!ok) {
    while (seated_.size() > before) unseat_last();
  }
  return ok;
}

void Placer::seat(OpId v, int64_t t) {
  rrt_.commit(nodes_[v], t);
  bounds_.seat(v, t);
  start_[v] = t;
  placed_[v] = 1;
  const int64_t stage = t / ii_;
  int64_t lowest = seated_.empty() ? stage : std::min(min_stage_.back(), stage);
  int64_t floor = seated_.empty() ? 0 : md_floor_.back();
  if (g_.ops[v].max_depth) floor = std::max(floor, stage - *g_.ops[v].max_depth);
  seated_.push_back(v);
  min_stage_.push_back(lowest);
  md_floor_.push_back(floor);
}

void Placer::unseat_last() {
  const OpId v = seated_.back();
  rrt_.release(nodes_[v], start_[v]);
  bounds_.unseat_last();
  placed_[v] = 0;
  seated_.pop_back();
  min_stage_.pop_back();
  md_floor_.pop_back();
}

}  // namespace tilesched::sms
