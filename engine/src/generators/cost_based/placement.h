// One placement attempt at a fixed II (docs/COST_BASED.md "Windows",
// "Spill model"): the seats and their windows (windows.h), the builder
// constraints in force (seed 003), the pressure evaluators' state (bank
// table, spill surcharges; seed 002), the live registers per modulo row,
// and the attempt's intermediate state (dead marks, Rau's forced starts).
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bounds/distance.h"
#include "bounds/rrt.h"
#include "context.h"
#include "windows.h"

namespace tilesched::cost_based {

// The builder constraints in force during a placement attempt (seed 003):
// soft restrictions the constraint builder adds, each with the rationale
// the refinement loop reports when it adds or lifts it. Constraints added
// together (one family at one II) form a batch, which the loop lifts as
// one. The placement reads them into its windows and conflicts.

struct BuilderConstraint {
  enum class Shape {
    kStageSpan,  // op's data consumers at most `limit` stages behind op
    kMaxStage,   // stage(op) <= limit (the seed's MaxDepthConstraint)
    kSameStage,  // stage(op) == stage(other) (the seed's SameDepthConstraint)
  };
  ConstraintFamily family = ConstraintFamily::kDepth;
  Shape shape = Shape::kStageSpan;
  OpId op = 0;
  OpId other = 0;
  int64_t limit = 0;
  int batch = 0;
  std::string rationale;
};

class BuilderConstraints {
 public:
  explicit BuilderConstraints(const Context& ctx);

  // In the order they were added.
  const std::vector<BuilderConstraint>& all() const { return list_; }
  bool empty() const { return list_.empty(); }
  auto begin() const { return list_.begin(); }
  auto end() const { return list_.end(); }
  const BuilderConstraint& operator[](int c) const { return list_[c]; }
  // The constraints (indices, ascending) that can bound v's window: its
  // own, and a stage span of a producer v consumes.
  const std::vector<int>& of(OpId v) const { return of_[v]; }

  void add(BuilderConstraint c);
  // Removes the latest batch and returns it. REQUIRES: !empty().
  std::vector<BuilderConstraint> lift_latest_batch();
  void clear();

  // True when seating v in `stage` breaks a constraint between v and the
  // op u placed in `u_stage`.
  bool breaks(OpId v, int64_t stage, OpId u, int64_t u_stage) const;
  // The tightest max-stage bound on v, if any.
  std::optional<int64_t> max_stage(OpId v) const;

 private:
  void index(int c);  // adds constraint c to the per-op index

  const Context& ctx_;
  std::vector<BuilderConstraint> list_;
  std::vector<std::vector<int>> of_;
};

// The pressure evaluators' state during a placement attempt (seed 002):
// the dual bank table of the bank-pressure evaluator (in-iteration and
// total occupancy per modulo row) and the spill surcharges accumulated per
// seat. The register pressure is read off the seats (register_pressure).

// seed 002: SPILL_SURCHARGE_CAP, the most surcharge one op accumulates
// (and the most one seat adds).
inline constexpr int64_t kSpillSurchargeCap = 4096;

class Pressure {
 public:
  explicit Pressure(const Context& ctx);

  // An empty bank table at `ii` (a new set of seats); surcharges stay.
  void reset_bank(int64_t ii);
  // Op v seated at t (sign +1) or unseated (-1): its bank cycles.
  void add_bank(OpId v, int64_t t, int64_t sign);
  // Bank occupancy at cycle c: ops in the same iteration window
  // (in-iteration, rrt0) and ops of every window (rrt1) in its row.
  int64_t bank_in_iteration(int64_t c) const;
  int64_t bank_total(int64_t row) const { return bank_total_[row]; }

  // Accumulated spill surcharge for seating v at t.
  int64_t surcharge(OpId v, int64_t t) const;
  void add_surcharge(OpId v, int64_t t, int64_t amount);  // capped per op
  void clear_surcharges();

 private:
  const Context& ctx_;
  int64_t ii_ = 1;
  std::vector<int64_t> bank_windows_;  // [window * ii + row], grown on demand
  std::vector<int64_t> bank_total_;    // per row
  std::vector<std::vector<std::pair<int64_t, int64_t>>> surcharges_;  // per op: (t, amount)
  std::vector<int64_t> surcharge_total_;
};

// Live registers per modulo row, kept up to date as seats change, so that
// the spill model's register_pressure (below) reads a row in
// O(log II) instead of walking every placed op and its consumers.
//
// A value live over [from, from + len) at II holds its registers in every
// row len / II times, plus once more on the cyclic run of len % II rows
// from row from % II. The first part is one running total; the second is
// a Fenwick tree over the rows' differences (range add, point query).

class RegisterRows {
 public:
  // Every row empty at `ii` (no allocation when the II is unchanged).
  void reset(int64_t ii) {
    assert(ii >= 1);
    ii_ = ii;
    whole_ = 0;
    tree_.assign(static_cast<size_t>(ii) + 1, 0);
  }
  // Adds (sign +1) or removes (sign -1) `regs` live over [from, from + len).
  // REQUIRES: from >= 0, len >= 0.
  void add(int64_t regs, int64_t from, int64_t len, int sign) {
    const int64_t r = sign * regs;
    whole_ += r * (len / ii_);
    const int64_t a = from % ii_, k = len % ii_;
    if (k == 0) return;
    if (a + k <= ii_) {
      range_add(a, a + k, r);
    } else {
      range_add(a, ii_, r);
      range_add(0, a + k - ii_, r);
    }
  }
  // Registers live in `row` (0 <= row < II).
  int64_t at(int64_t row) const {
    int64_t sum = whole_;
    for (int64_t i = row + 1; i > 0; i -= i & -i) sum += tree_[i];
    return sum;
  }

 private:
  // Adds r to the rows [lo, hi).
  void range_add(int64_t lo, int64_t hi, int64_t r) {
    point_add(lo, r);
    if (hi < ii_) point_add(hi, -r);
  }
  void point_add(int64_t row, int64_t r) {
    for (int64_t i = row + 1; i <= ii_; i += i & -i) tree_[i] += r;
  }

  int64_t ii_ = 1;
  int64_t whole_ = 0;
  std::vector<int64_t> tree_;  // Fenwick tree, 1-based
};

// The state of one placement attempt at a fixed II, by concern: the seats
// and their windows (the modulo RRT, the seats taken, the dependence
// bounds of windows.h: either read from the structural distance closure of
// seed 000 / Rau's MinDist or kept along the edges; group stages for G4,
// the trial seats of the permute and fuse arms); the builder constraints in
// force (BuilderConstraints); the pressure evaluators' state (bank,
// surcharges; Pressure); and the attempt's intermediate state, the dead
// marks the retry arm reads and Rau's forced starts (seeds 004/001).

// Chooses the placement whose dependence bounds are kept along the edges.
struct AlongEdges {};

class Placement {
 public:
  // Bounds from the all-pairs distance closure (the seeds' placement;
  // ClosureWindows). With `closure`, the placement reads the closure
  // there (the generator's II screen builds it, ii_screen.h) instead of
  // keeping its own. REQUIRES: `closure` outlives the placement.
  explicit Placement(const Context& ctx, DistanceMatrix* closure = nullptr);
  // Bounds kept along the edges (EdgeWindows): no closure, O(ops +
  // edges) memory.
  Placement(const Context& ctx, AlongEdges);
  ~Placement();
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
  int64_t asap(OpId v) const { return windows_->asap(v); }
  // The longest path weight from a to b at the II (Rau's MinDist), or
  // DistanceMatrix::kNoPath. REQUIRES: a successful reset().
  int64_t longest_path(OpId a, OpId b) const { return windows_->longest_path(a, b); }
  const ModuloRrt& rrt() const { return rrt_; }
  bool placed(OpId v) const { return seats_.placed[v] != 0; }
  int64_t start(OpId v) const { return seats_.start[v]; }
  int placed_count() const { return static_cast<int>(seats_.list.size()); }
  const std::vector<OpId>& placed_ops() const { return seats_.list; }

  // v's window: the dependence bounds from every placed op (windows.h),
  // the static ASAP bound, max_depth (L6) and the builder constraints in
  // force. The group's stage (L5) is left to gate G4.
  Window window(OpId v) const;
  // The pipe-slot evaluator's earliest predecessor bound of v, given
  // w = window(v) (REQUIRES: w.has_pred, or the answer is unused): the
  // closure's min over the placed ops p with a path to v of s_p + D[p][v];
  // along the edges EdgeWindows::earliest_pred_bound.
  int64_t earliest_pred_bound(OpId v, const Window& w) const {
    return w.has_pred ? windows_->earliest_pred_bound(v, w) : w.earliest_pred_bound;
  }
  // The stage the group's placed members share, if any is placed. Inline:
  // the gates ask it for every seat they admit.
  std::optional<int64_t> group_stage(int group) const {
    if (group == kNoGroup || group_placed_[group] == 0) return std::nullopt;
    return group_stage_[group];
  }
  // The ops whose dependence bounds the latest place(v) or unplace(v) may
  // have moved, v and its direct neighbours included: the ops with a path
  // to or from v in the closure, the ops whose labels changed (and v's
  // neighbours) along the edges. Valid until the next place or unplace.
  std::span<const OpId> moved(OpId v) { return windows_->moved(v); }

  bool fits(OpId v, int64_t t, RrtConflict* why = nullptr) const {
    return rrt_.probe(ctx_.nodes[v], t, why);
  }
  // The first start in [lo, hi] where v fits the table, or -1.
  int64_t first_fit(OpId v, int64_t lo, int64_t hi) const {
    return rrt_.first_fit(ctx_.nodes[v], lo, hi);
  }
  // Seating and unseating update the dependence bounds (windows.h): with
  // the undo trail, unplacing the op placed last restores them from the
  // trail; any other unplace recomputes them and empties the trail.
  void place(OpId v, int64_t t);   // REQUIRES: fits(v, t) and not placed
  void unplace(OpId v);            // REQUIRES: placed
  // The undo trail (the backtracking rung's seats are LIFO). The closure's
  // is off by default: the ladder's rungs seat every op once, and their
  // trail would grow to O(ops * related). clear_seats() empties it.
  void set_undo_trail(bool on) { windows_->set_undo_trail(on); }
  // Unseats every op, then seats op v at starts[v]; false (and partly
  // seated) when one does not fit, which a legal placement never does.
  bool seat_all(const std::vector<int64_t>& starts);
  std::vector<int64_t> starts() const;  // every op's start, placed or not

  // Trial placements (the permute and fuse arms): between begin_trial()
  // and end_trial() a place leaves the register rows alone, and the
  // closure's bounds of the other ops (window() folds the few trial seats
  // in instead: O(1) a seat); unplacing them (in reverse order) restores
  // the state exactly.
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
  // Registers live in each modulo row (register_pressure reads it): every placed
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
  Placement(const Context& ctx, DistanceMatrix* closure, bool along_edges);
  // True when seating v at t breaks a builder constraint between v and the
  // placed op u.
  bool breaks_constraint(OpId v, int64_t t, OpId u) const;
  // v was seated (sign +1) or is being unseated (-1): its own live range
  // and those of its placed data producers, whose live ends it moves.
  void update_live_ranges(OpId v, int sign);
  void add_live_range(OpId u, int sign);

  const Context& ctx_;
  int64_t ii_ = 0;
  Seats seats_;
  std::unique_ptr<Windows> windows_;  // reads seats_
  mutable std::vector<OpId> broken_;  // scratch of conflicts()
  mutable std::vector<char> broken_mark_;
  ModuloRrt rrt_;
  std::vector<int> group_placed_;      // members placed, per group
  std::vector<int64_t> group_stage_;   // stage of the placed members
  BuilderConstraints constraints_;
  Pressure pressure_;
  std::vector<char> dead_;
  std::vector<int64_t> last_forced_;
  RegisterRows register_rows_;
  std::vector<int64_t> live_end_;      // by placed op with registers: the end added
  int trial_depth_ = 0;
};

// Register pressure as the spill model reads it off the seats (seed 002):
// each placed op's value is live from its start to its live end.

// End of u's value's live range: start + latency, or its latest placed
// data consumer's start (plus distance * II). REQUIRES: u is placed.
int64_t live_end(const Placement& p, OpId u);
// Registers live in modulo row `row`: every placed op's value from its
// start to its live_end. O(log II): the placement keeps the rows.
// REQUIRES: no trial open (Placement::begin_trial).
int64_t register_pressure(const Placement& p, int64_t row);
// The same by walking every placed op and its consumers, O(placed * degree):
// the definition register_pressure is tested against.
int64_t register_pressure_by_walk(const Placement& p, int64_t row);

}  // namespace tilesched::cost_based
