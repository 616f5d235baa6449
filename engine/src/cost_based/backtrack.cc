// The backtracking rung (see backtrack.h).
#include "backtrack.h"

#include <algorithm>

#include "../storage.h"
#include "tilesched/rng.h"

namespace tilesched::cost_based {

namespace {
// The Rau rung's priority order made static: repeatedly the ready op (every
// distance-0 predecessor outside its own cycle placed) with the greatest
// height, ties by topological rank.
std::vector<OpId> priority_order(const Context& ctx) {
  const int n = ctx.g.op_count();
  std::vector<char> done(n, 0);
  std::vector<int> waiting(n, 0);  // unplaced distance-0 predecessors outside the op's cycle
  for (const Edge& e : ctx.g.edges) {
    if (e.distance == 0 && ctx.zero_scc[e.from] != ctx.zero_scc[e.to]) ++waiting[e.to];
  }
  std::vector<OpId> order;
  order.reserve(n);
  while (static_cast<int>(order.size()) < n) {
    OpId best = -1;
    for (OpId v = 0; v < n; ++v) {
      if (done[v] || waiting[v] != 0) continue;
      if (best < 0 || ctx.height[v] > ctx.height[best] ||
          (ctx.height[v] == ctx.height[best] && ctx.topo_rank[v] < ctx.topo_rank[best])) {
        best = v;
      }
    }
    done[best] = 1;
    order.push_back(best);
    for (int q = ctx.adj.out_begin[best]; q < ctx.adj.out_begin[best + 1]; ++q) {
      const Edge& e = ctx.g.edges[ctx.adj.out_edges[q]];
      if (e.distance == 0 && ctx.zero_scc[e.from] != ctx.zero_scc[e.to]) --waiting[e.to];
    }
  }
  return order;
}
// The claims of one singleton slot: (op, cycles held).
using SlotClaims = std::vector<std::pair<OpId, int64_t>>;

// Per singleton slot (by slot id), the ops that claim it for less than II
// cycles (a longer claim collides with itself, which the probe reports).
std::vector<SlotClaims> singleton_claims(const Context& ctx, int64_t ii) {
  std::vector<SlotClaims> claims(ctx.g.target.slots.size() + 1);
  for (OpId v = 0; v < ctx.g.op_count(); ++v) {
    for (const Triple& t : ctx.g.ops[v].resources) {
      if (ctx.g.target.slot(t.slot).capacity == 1 && t.duration > 0 && t.duration <= ii) {
        claims[t.slot].push_back({v, t.duration});
      }
    }
  }
  return claims;
}

// True when the free rows of `slot` can still hold its unplaced claimants:
// their cycles fit in the free rows, and as many claims of the shortest
// length fit in the free runs (cyclic) as there are claimants.
bool slot_can_hold(const Placement& p, int slot, const SlotClaims& claims) {
  int64_t need = 0, cycles = 0, shortest = INT64_MAX;
  for (const auto& [v, d] : claims) {
    if (p.placed(v)) continue;
    ++need;
    cycles += d;
    shortest = std::min(shortest, d);
  }
  if (need == 0) return true;
  const int64_t ii = p.ii();
  const uint64_t bit = slot_bit(slot);
  int64_t first_busy = -1;
  for (int64_t r = 0; r < ii && first_busy < 0; ++r) {
    if (p.rrt().row(r) & bit) first_busy = r;
  }
  if (first_busy < 0) return ii / shortest >= need && ii >= cycles;
  int64_t free = 0, fits = 0, run = 0;
  for (int64_t k = 1; k <= ii; ++k) {  // one lap from the first busy row
    const int64_t r = (first_busy + k) % ii;
    if (p.rrt().row(r) & bit) {
      fits += run / shortest;
      free += run;
      run = 0;
    } else {
      ++run;
    }
  }
  return fits >= need && free >= cycles;
}
// Facts::share: the ops whose seats a seat of v can change (besides those
// it has a path to or from): a common slot, pool or leader group.
void find_sharing(const Context& ctx, Backtracking::Facts& f) {
  const int n = ctx.g.op_count();
  f.share_begin.assign(static_cast<size_t>(n) + 1, 0);
  f.share.clear();
  for (OpId v = 0; v < n; ++v) {
    const int gv = ctx.group_of[v];
    for (OpId u = 0; u < n; ++u) {
      if (u != v && ((f.slots[u] & f.slots[v]) || (f.pools[u] & f.pools[v]) ||
                     (gv != kNoGroup && ctx.group_of[u] == gv))) {
        f.share.push_back(u);
      }
    }
    f.share_begin[v + 1] = static_cast<int>(f.share.size());
  }
}

// The failure line of a run that spent its budget.
std::string spent_line(int64_t ii, int64_t budget) {
  return "II " + std::to_string(ii) + ": backtracking spent its budget of " +
         std::to_string(budget) + " seats";
}

// Rule L4 for a full placement.
bool storage_holds(const Context& ctx, const Placement& p) {
  if (ctx.max_storage <= 0) return true;
  return storage_bytes_needed(ctx.g, ctx.adj, p.starts(), p.ii(), ctx.max_storage) <=
         ctx.max_storage;
}

// One run of the search: a depth-first search with one frame per seated
// op. Its seats, failure line and searched-all verdict go into `out`.
class Backtracker {
 public:
  // `restart` > 0 breaks the fail-first ties by a seeded shuffle of the
  // priority order instead of the order itself.
  Backtracker(const Context& ctx, Placement& p, Gates& gates, const Backtracking::Facts& facts,
              int64_t budget, int restart, BacktrackResult& out);
  bool run();

 private:
  // The op chosen at a depth, its earliest start (G2 is judged there) and
  // the seats still to try. An op with placed successors and no placed
  // predecessor is tried from its latest seat down (as close to its
  // consumers as it can go: short buffer and register lifetimes), every
  // other op from its earliest up.
  struct Frame {
    OpId op = 0;
    int64_t earliest = 0;
    int64_t next = 0;
    int64_t end = -1;
    bool down = false;
  };
  // Counted seats per op: fail first looks no further than this.
  static constexpr int kEnough = 3;
  // Seats between two looks at the options' deadline (a clock read).
  static constexpr int64_t kSeatsPerDeadlinePoll = 64;

  Frame range_of(OpId v) const;
  // Whether v's latest start is held below what its max_depth alone allows
  // (placed successors, a builder constraint): such an op with no placed
  // predecessor is tried from that latest start down. The bound a stage
  // cap puts on every op is not one (it would start every source op at
  // the top of its stages).
  bool bounded_above(OpId v, const Window& w) const;
  std::optional<int64_t> next_seat(Frame& f);  // through the gates
  // Fail first: the unplaced op with the fewest seats (up to kEnough),
  // ties by priority; ops held by G1 wait for their anchor. An op with no
  // seat at all comes back with an empty range (the branch is dead).
  std::optional<Frame> choose();
  // u was seated or unseated: the counts of the ops it can see are stale
  // (a shared slot or pool, its leader group, the ops whose dependence
  // bounds moved (Placement::moved); a window, the gates and the builder
  // constraints read nothing else).
  void touched(OpId u);
  // After seating v: each singleton slot it claims can still hold what is unplaced.
  bool room_left(OpId v) const;
  bool fail(std::string why);

  const Context& ctx_;
  Placement& p_;
  Gates& gates_;
  BacktrackResult& out_;
  const int n_;
  const int64_t ii_;
  const int64_t budget_;
  const Backtracking::Facts& facts_;
  std::vector<int> rank_;  // position in the (shuffled) priority order
  std::vector<Frame> range_;
  std::vector<int> count_;
  std::vector<char> stale_;
  std::vector<SlotClaims> claims_;
};

Backtracker::Backtracker(const Context& ctx, Placement& p, Gates& gates,
                         const Backtracking::Facts& facts, int64_t budget, int restart,
                         BacktrackResult& out)
    : ctx_(ctx),
      p_(p),
      gates_(gates),
      out_(out),
      n_(ctx.g.op_count()),
      ii_(p.ii()),
      budget_(budget),
      facts_(facts),
      rank_(n_),
      range_(n_),
      count_(n_, 0),
      stale_(n_, 1),
      claims_(singleton_claims(ctx, p.ii())) {
  std::vector<OpId> order = facts_.order;
  if (restart > 0) {
    SplitMix64 rng(ctx_.opts.seed ^ (static_cast<uint64_t>(restart) * 0x9E3779B97F4A7C15ull));
    rng.shuffle(order);
  }
  for (int i = 0; i < n_; ++i) rank_[order[i]] = i;
}

bool Backtracker::bounded_above(OpId v, const Window& w) const {
  const std::optional<int64_t>& depth = ctx_.g.ops[v].max_depth;
  return w.has_succ || w.hi < (depth ? (*depth + 1) * ii_ - 1 : kUnbounded);
}

Backtracker::Frame Backtracker::range_of(OpId v) const {
  const Window w = p_.window(v);
  Frame f{v, w.lo, w.lo, std::min(w.hi, w.lo + ii_ - 1), false};
  if (std::optional<int64_t> stage = p_.group_stage(ctx_.group_of[v])) {
    f.next = std::max(w.lo, *stage * ii_);  // L5: only the group's stage
    f.end = std::min(w.hi, *stage * ii_ + ii_ - 1);
  } else if (!w.has_pred && bounded_above(v, w) && !w.empty()) {
    f.down = true;
    f.next = w.hi;
    f.end = std::max(w.lo, w.hi - ii_ + 1);
  }
  return f;
}

std::optional<int64_t> Backtracker::next_seat(Frame& f) {
  if (f.down) {
    for (; f.next >= f.end; --f.next) {
      const SeatSearch s = gates_.admit(f.op, f.earliest, f.next, f.next);
      if (s.outcome == SeatOutcome::kSeat) return f.next--;
      if (s.outcome == SeatOutcome::kPending || s.outcome == SeatOutcome::kDead) break;
    }
    f.next = f.end - 1;
    return std::nullopt;
  }
  while (f.next <= f.end) {
    const SeatSearch s = gates_.admit(f.op, f.earliest, f.next, f.end);
    f.next = s.t + 1;
    if (s.outcome == SeatOutcome::kSeat) return s.t;
    if (s.outcome != SeatOutcome::kGroupAhead && s.outcome != SeatOutcome::kGroupLater) break;
  }
  f.next = f.end + 1;
  return std::nullopt;
}

std::optional<Backtracker::Frame> Backtracker::choose() {
  std::optional<Frame> best;
  int best_count = kEnough + 1;
  for (OpId v = 0; v < n_; ++v) {
    if (p_.placed(v) || gates_.pending(v)) continue;
    if (stale_[v]) {
      range_[v] = range_of(v);
      Frame probe = range_[v];
      count_[v] = 0;
      while (count_[v] < kEnough && next_seat(probe)) ++count_[v];
      stale_[v] = 0;
    }
    if (count_[v] == 0) return Frame{v, 0, 0, -1};
    if (count_[v] < best_count || (count_[v] == best_count && rank_[v] < rank_[best->op])) {
      best = range_[v];
      best_count = count_[v];
    }
  }
  return best;
}

void Backtracker::touched(OpId u) {
  stale_[u] = 1;
  for (int i = facts_.share_begin[u]; i < facts_.share_begin[u + 1]; ++i) {
    stale_[facts_.share[i]] = 1;
  }
  for (OpId v : p_.moved(u)) stale_[v] = 1;
}

bool Backtracker::room_left(OpId v) const {
  for (const Triple& t : ctx_.g.ops[v].resources) {
    if (!claims_[t.slot].empty() && !slot_can_hold(p_, t.slot, claims_[t.slot])) return false;
  }
  return true;
}

bool Backtracker::fail(std::string why) {
  out_.failures.push_back("II " + std::to_string(ii_) + ": backtracking " + why);
  return false;
}

bool Backtracker::run() {
  // Without stage rules (leader groups, max depths, builder constraints)
  // a placement shifted by a constant is a placement, so the first op's
  // first seat stands for all of its seats.
  bool shift_invariant = ctx_.group_members.empty() && p_.constraints().empty();
  for (const Op& op : ctx_.g.ops) shift_invariant = shift_invariant && !op.max_depth;
  std::vector<Frame> frames;
  frames.reserve(n_);
  std::optional<Frame> first = choose();
  if (!first) return fail("found no op ready");  // anchors are never held: unreachable
  frames.push_back(*first);
  int64_t seats = 0;
  while (true) {
    Frame& f = frames.back();
    if (frames.size() == 1 && shift_invariant && f.next > f.earliest) f.next = f.end + 1;
    if (std::optional<int64_t> seat = next_seat(f)) {
      p_.place(f.op, *seat);
      ++out_.seats;
      if (++seats > budget_) {
        out_.failures.push_back(spent_line(ii_, budget_));
        return false;
      }
      if (seats % kSeatsPerDeadlinePoll == 0 && deadline_passed(ctx_.opts.deadline)) {
        return fail("stopped at the deadline");
      }
      if (p_.placed_count() == n_) {
        if (storage_holds(ctx_, p_)) return true;
        p_.unplace(f.op);  // L4 fails: this leaf is no schedule
        continue;
      }
      if (!room_left(f.op)) {
        p_.unplace(f.op);
        continue;
      }
      touched(f.op);
      std::optional<Frame> next = choose();
      if (!next) return fail("found no op ready");
      frames.push_back(*next);
      continue;
    }
    if (frames.size() == 1) {
      out_.stuck = f.op;
      out_.searched_all = true;
      return false;
    }
    frames.pop_back();
    p_.unplace(frames.back().op);
    touched(frames.back().op);
  }
}

// The runs of one backtracking rung (Backtracking::run), each a fresh
// Backtracker in one order with a seat budget, into one result.
class Runs {
 public:
  Runs(const Context& ctx, Placement& p, Gates& gates, const Backtracking::Facts& facts,
       std::vector<Backtracking::Known>& known, std::optional<Backtracking::Winner>& winner,
       BacktrackResult& out)
      : ctx_(ctx), p_(p), gates_(gates), facts_(facts), known_(known), winner_(winner), out_(out) {}

  // A run in order `r` (0 the priority order, else restart r's shuffle)
  // with `cap` seats, unless a placement or a verdict "tried every seat"
  // ended the rung; its seats (those a run known before took, too), 0
  // when it did not run. A short run (not `full`) keeps no failure line,
  // and its verdict counts only in the priority order: a shuffle seats
  // first an op the priority order would not, and that op's one seat (the
  // shift rule) can rule out every placement the priority order finds.
  int64_t attempt(int r, int64_t cap, bool full) {
    if (out_.placed || out_.searched_all || cap <= 0) return 0;
    BacktrackResult one;
    if (!recall(r, cap, one)) {
      if (!empty_) p_.clear_seats();
      empty_ = false;
      one.placed = Backtracker(ctx_, p_, gates_, facts_, cap, r, one).run();
      out_.seats += one.seats;
      if (one.placed) winner_ = Backtracking::Winner{r, one.seats};
      if (!one.placed) remember(r, cap, one);
    }
    out_.placed = one.placed;
    if (full) {
      for (std::string& f : one.failures) out_.failures.push_back(std::move(f));
    }
    if (one.searched_all && (full || r == 0)) {
      out_.searched_all = true;
      out_.stuck = one.stuck;
    }
    return one.seats;
  }

  // The short runs before the long ones (docs/COST_BASED.md, "Beyond the
  // seeds"): the order that placed every op last time (at another II or in
  // an earlier ladder: the descent's IIs tend to be placed by one order)
  // and the priority order with kQuickSeatsPerOp seats per op (most
  // placements take fewer); then shuffles() runs shuffled orders.
  void short_runs(int64_t probe) {
    using B = Backtracking;
    const int64_t n = ctx_.g.op_count();
    if (winner_) {
      attempt(winner_->order, std::min(probe, std::max(B::kQuickSeatsPerOp * n, 2 * winner_->seats)),
              false);
    }
    attempt(0, std::min(probe, B::kQuickSeatsPerOp * n), false);
  }
  // Shuffled short runs, from the one after the last, seats per op by the
  // Luby sequence (at most `probe`), until they have spent `share` seats in
  // all, a run at least n seats' work (choosing the first op counts every
  // op's seats), or kProbeRuns ran: where one order runs into a long dead
  // subtree, another often places every op within a few n seats.
  void shuffles(int64_t probe, int64_t share) {
    using B = Backtracking;
    const int64_t n = ctx_.g.op_count();
    for (; next_ <= B::kProbeRuns && spent_ < share && !over(); ++next_) {
      spent_ += std::max(n, attempt(next_, std::min(probe, B::luby(next_) * n), false));
    }
  }
  bool over() const { return out_.placed || out_.searched_all; }

 private:
  // A run of order r with `cap` seats whose end is known (Backtracking::
  // Known): its result into `one`, nothing seated.
  bool recall(int r, int64_t cap, BacktrackResult& one) const {
    if (static_cast<size_t>(r) >= known_.size()) return false;
    const Backtracking::Known& k = known_[static_cast<size_t>(r)];
    if (k.proved >= 0 && k.proved <= cap) {
      one.searched_all = true;
      one.stuck = k.stuck;
      one.seats = k.proved;
      return true;
    }
    if (k.ran_out < cap) return false;
    one.failures.push_back(spent_line(p_.ii(), cap));
    one.seats = cap + 1;
    return true;
  }
  void remember(int r, int64_t cap, const BacktrackResult& one) {
    if (static_cast<size_t>(r) >= known_.size()) known_.resize(static_cast<size_t>(r) + 1);
    Backtracking::Known& k = known_[static_cast<size_t>(r)];
    if (one.searched_all) {
      k.proved = one.seats;
      k.stuck = one.stuck.value_or(0);
    } else {
      k.ran_out = std::max(k.ran_out, cap);
    }
  }

  const Context& ctx_;
  Placement& p_;
  Gates& gates_;
  const Backtracking::Facts& facts_;
  std::vector<Backtracking::Known>& known_;
  std::optional<Backtracking::Winner>& winner_;
  BacktrackResult& out_;
  bool empty_ = true;  // no run has seated anything yet
  int next_ = 1;         // the next shuffled short run
  int64_t spent_ = 0;    // the shuffled short runs' seats (at least n a run)
};

}  // namespace

const Backtracking::Facts& Backtracking::facts() {
  if (!facts_) {
    const int n = ctx_.g.op_count();
    Facts f{priority_order(ctx_), std::vector<uint64_t>(n, 0), std::vector<uint64_t>(n, 0)};
    for (OpId v = 0; v < n; ++v) {
      const NodeRrt& node = ctx_.nodes[v];
      if (!node.rows.empty()) f.slots[v] = node.rows[0];  // rows nest: row 0 has every bit
      for (const Triple& t : node.pooled) f.slots[v] |= slot_bit(t.slot);
      for (const PoolUse& u : node.pools) f.pools[v] |= uint64_t{1} << (u.pool % 64);
    }
    find_sharing(ctx_, f);
    facts_ = std::move(f);
  }
  return *facts_;
}

// Luby, Sinclair and Zuckerman's sequence: restarts of these lengths are
// within a log factor of the best fixed length, whatever the run-length
// distribution.
int64_t Backtracking::luby(int64_t i) {
  for (int64_t k = 1;; ++k) {
    const int64_t full = (int64_t{1} << k) - 1;  // 2^k - 1
    if (i == full) return int64_t{1} << (k - 1);
    if (i < full) return luby(i - (full >> 1));
  }
}

int64_t Backtracking::budget(const Context& ctx, int ratio, int64_t work) {
  const int64_t n = std::max(1, ctx.g.op_count());
  return std::min(static_cast<int64_t>(ratio) * n, work / (n * n));
}

std::vector<Backtracking::Known>& Backtracking::known(const Placement& p,
                                                      std::vector<Known>& local) {
  if (!p.constraints().empty()) return local;
  for (IiKnown& k : known_) {
    if (k.ii == p.ii()) return k.orders;
  }
  known_.push_back(IiKnown{p.ii(), {}});
  return known_.back().orders;
}

BacktrackResult Backtracking::run(Placement& p, Gates& gates, const Budgets& b, int restarts) {
  BacktrackResult out;
  p.set_undo_trail(true);  // the search's seats are LIFO
  std::vector<Known> local;
  Runs runs(ctx_, p, gates, facts(), known(p, local), winner_, out);
  const bool probes = b.probe >= kProbeMinSeatsPerOp * ctx_.g.op_count();
  if (probes) {
    runs.short_runs(b.probe);
    runs.shuffles(b.probe, b.proof / kProbeShare);
  }
  // Where the proof's budget is the smaller (the descent's), the priority
  // order with it, then the rest of the shuffles: an II whose proof the
  // search made ends here, before the descent's share of shuffles.
  if (b.proof < b.seats) runs.attempt(0, b.proof, false);
  if (probes) runs.shuffles(b.probe, b.probe / kProbeShare);
  // Then the runs as they were: the priority order with the whole budget,
  // the restarts sharing another half of it.
  runs.attempt(0, b.seats, true);
  for (int r = 1; r <= restarts; ++r) {
    runs.attempt(r, std::max<int64_t>(1, b.seats / (2 * restarts)), true);
  }
  p.set_undo_trail(false);
  return out;
}

}  // namespace tilesched::cost_based
