// One run of the backtracking rung's depth-first search (search_once, see
// backtracking.h).
#include "backtracking.h"

#include <algorithm>
#include <string>

#include "graph/storage.h"
#include "packing.h"
#include "util/test_seams.h"

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
// The assignments one room check's bin packing may try (slot_can_hold).
constexpr int64_t kPackSteps = 4096;
// The packer's assignments per modulo row at least (beyond the run's
// seats): every residue of the first holder gets a few.
constexpr int64_t kPackStepsPerRow = 64;
// Rows a room check scans (or packing steps it takes) per work unit.
constexpr int64_t kRoomRowsPerUnit = 16;

// The exclusive claims on one slot: holds of more than half its capacity
// (of a singleton slot, every hold), no two of which share a row.
struct Claim {
  OpId op = 0;
  int64_t cycles = 0;
  int64_t units = 0;
};
using SlotClaims = std::vector<Claim>;

// Per slot (by slot id), its exclusive claims of less than II cycles (a
// longer claim collides with itself, which the probe reports). A slot with
// fewer than two has none listed: there is nothing to keep apart.
std::vector<SlotClaims> exclusive_claims(const Context& ctx, int64_t ii) {
  std::vector<SlotClaims> claims(ctx.g.target.slots.size() + 1);
  for (OpId v = 0; v < ctx.g.op_count(); ++v) {
    for (const Triple& t : ctx.g.ops[v].resources) {
      const int64_t capacity = ctx.g.target.slot(t.slot).capacity;
      if (2 * t.occupancy > capacity && t.duration > 0 && t.duration <= ii) {
        claims[t.slot].push_back({v, t.duration, t.occupancy});
      }
    }
  }
  for (SlotClaims& c : claims) {
    if (c.size() < 2) c.clear();
  }
  return claims;
}

// Per op: it holds a slot whose holders together fill at least 7/8 of its
// units over the II. The search seats such ops first: their packing is
// what decides the II, and seated among the others a dead end found late
// undoes every seat taken since.
std::vector<char> packing_ops(const Context& ctx, int64_t ii) {
  const int slots = static_cast<int>(ctx.g.target.slots.size());
  std::vector<int64_t> demand(slots + 1, 0);
  for (const Op& op : ctx.g.ops) {
    for (const Triple& t : op.resources) demand[t.slot] += t.occupancy * t.duration;
  }
  std::vector<char> first(ctx.g.op_count(), 0);
  for (OpId v = 0; v < ctx.g.op_count(); ++v) {
    for (const Triple& t : ctx.g.ops[v].resources) {
      const int64_t capacity = ctx.g.target.slot(t.slot).capacity;
      if (capacity > 1 && 8 * demand[t.slot] >= 7 * capacity * ii) first[v] = 1;
    }
  }
  return first;
}

// Per packing op, the packing ops before it: a distance-0 path leads from
// them to it (outside its own distance-0 cycle). The search seats a
// packing op once those are seated, so its earliest seats are its
// earliest stage's, as a ready list gives them. Flat lists by op.
void packing_order(const Context& ctx, const std::vector<char>& packing,
                   std::vector<int>& begin, std::vector<OpId>& before) {
  const int n = ctx.g.op_count();
  begin.assign(static_cast<size_t>(n) + 1, 0);
  before.clear();
  std::vector<std::vector<OpId>> preds(n);
  std::vector<char> seen(n, 0);
  std::vector<OpId> queue;
  for (OpId u = 0; u < n; ++u) {
    if (!packing[u]) continue;
    queue.assign(1, u);
    seen.assign(n, 0);
    seen[u] = 1;
    for (size_t head = 0; head < queue.size(); ++head) {
      const OpId x = queue[head];
      for (int q = ctx.adj.out_begin[x]; q < ctx.adj.out_begin[x + 1]; ++q) {
        const Edge& e = ctx.g.edges[ctx.adj.out_edges[q]];
        if (e.distance != 0 || seen[e.to]) continue;
        seen[e.to] = 1;
        queue.push_back(e.to);
        if (packing[e.to] && ctx.zero_scc[e.to] != ctx.zero_scc[u]) preds[e.to].push_back(u);
      }
    }
    ctx.count(static_cast<int64_t>(queue.size()), "backtrack.paths");
    test_seams::count_trips("backtrack.paths", static_cast<int64_t>(queue.size()));
  }
  for (OpId v = 0; v < n; ++v) {
    before.insert(before.end(), preds[v].begin(), preds[v].end());
    begin[v + 1] = static_cast<int>(before.size());
  }
}

// Whether the holds `items` (cycles, longest first) fit side by side in
// the runs `room` (free rows each): a depth-first assignment, each item to
// a run with room for it, runs of equal room tried once; past `steps`
// assignments it answers true (no proof either way).
bool packs(const std::vector<int64_t>& items, size_t i, std::vector<int64_t>& room,
           int64_t& steps) {
  if (i == items.size()) return true;
  if (--steps < 0) return true;
  for (size_t b = 0; b < room.size(); ++b) {
    if (room[b] < items[i]) continue;
    bool tried = false;
    for (size_t a = 0; a < b && !tried; ++a) tried = room[a] == room[b];
    if (tried) continue;
    room[b] -= items[i];
    const bool ok = packs(items, i + 1, room, steps);
    room[b] += items[i];
    if (ok) return true;
  }
  return false;
}

// True when the rows of `slot` can still hold its unplaced exclusive
// claims. A row is closed to all of them when what it holds leaves less
// than the fewest units any of them takes; the open rows form runs
// (cyclic), each claim needs rows of its own inside one run, so the
// claims' cycles must pack into the runs' lengths (a bin packing, packs()).
bool slot_can_hold(const Placement& p, int slot, const SlotClaims& claims, int64_t& work) {
  std::vector<int64_t> items;
  int64_t cycles = 0, fewest_units = INT64_MAX;
  for (const Claim& c : claims) {
    if (p.placed(c.op)) continue;
    items.push_back(c.cycles);
    cycles += c.cycles;
    fewest_units = std::min(fewest_units, c.units);
  }
  if (items.empty()) return true;
  const int64_t ii = p.ii();
  work += ii;
  const int64_t open_if = p.ctx().g.target.slot(slot).capacity - fewest_units;
  auto closed = [&](int64_t r) { return p.rrt().slot_usage(slot, r) > open_if; };
  int64_t first_closed = -1;
  for (int64_t r = 0; r < ii && first_closed < 0; ++r) {
    if (closed(r)) first_closed = r;
  }
  if (first_closed < 0) return ii >= cycles;  // one cyclic run
  std::vector<int64_t> runs;
  int64_t run = 0, usable = 0;
  const int64_t shortest = *std::min_element(items.begin(), items.end());
  for (int64_t k = 1; k <= ii; ++k) {  // one lap from the first closed row
    const int64_t r = (first_closed + k) % ii;
    if (closed(r)) {
      if (run >= shortest) {
        runs.push_back(run);
        usable += run;
      }
      run = 0;
    } else {
      ++run;
    }
  }
  if (usable < cycles) return false;
  std::sort(items.rbegin(), items.rend());
  int64_t steps = kPackSteps;
  const bool fits = packs(items, 0, runs, steps);
  work += kPackSteps - std::max<int64_t>(steps, 0);
  return fits;
}
// SearchFacts::share: the ops whose seats a seat of v can change (besides those
// it has a path to or from): a common slot, pool or leader group.
void find_sharing(const Context& ctx, SearchFacts& f) {
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
  // Fail-first ties go to the op first in `order`.
  Backtracker(const Context& ctx, Placement& p, Gates& gates, const SearchFacts& facts,
              int64_t budget, const std::vector<OpId>& order, BacktrackResult& out);
  bool run();

 private:
  // The depth-first search over the unplaced ops; `alone`: nothing was
  // placed before it (a packing's holders were, otherwise).
  bool search(bool alone);
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
  const SearchFacts& facts_;
  std::vector<int> rank_;  // position in the (shuffled) priority order
  std::vector<Frame> range_;
  std::vector<int> count_;
  std::vector<char> stale_;
  std::vector<SlotClaims> claims_;
  std::vector<char> packing_first_;  // packing_ops(): seated before the others
  int64_t seats_ = 0;                // seats taken, every packing's search together
  // packing_order(): a packing op waits for these.
  std::vector<int> packing_before_begin_;
  std::vector<OpId> packing_before_;
  bool packing_ready(OpId v) const {
    for (int i = packing_before_begin_[v]; i < packing_before_begin_[v + 1]; ++i) {
      if (!p_.placed(packing_before_[i])) return false;
    }
    return true;
  }
};

Backtracker::Backtracker(const Context& ctx, Placement& p, Gates& gates,
                         const SearchFacts& facts, int64_t budget,
                         const std::vector<OpId>& order, BacktrackResult& out)
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
      claims_(exclusive_claims(ctx, p.ii())),
      packing_first_(packing_ops(ctx, p.ii())) {
  packing_order(ctx, packing_first_, packing_before_begin_, packing_before_);
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
    if (packing_first_[v] && !packing_ready(v)) continue;
    if (stale_[v]) {
      range_[v] = range_of(v);
      Frame probe = range_[v];
      count_[v] = 0;
      while (count_[v] < kEnough && next_seat(probe)) ++count_[v];
      stale_[v] = 0;
    }
    if (count_[v] == 0) return Frame{v, 0, 0, -1};
    if (best && packing_first_[best->op] != packing_first_[v]) {
      if (packing_first_[v]) {
        best = range_[v];
        best_count = count_[v];
      }
      continue;
    }
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
    if (claims_[t.slot].empty()) continue;
    int64_t work = 0;
    const bool holds = slot_can_hold(p_, t.slot, claims_[t.slot], work);
    ctx_.count(ceil_div(work, kRoomRowsPerUnit), "backtrack.room_rows");
    test_seams::count_trips("backtrack.room_rows", work);
    if (!holds) return false;
  }
  return true;
}

bool Backtracker::fail(std::string why) {
  out_.failures.push_back("II " + std::to_string(ii_) + ": backtracking " + why);
  return false;
}

bool Backtracker::run() {
  const std::optional<PackingPlan> plan =
      p_.constraints().empty() ? packing_plan(ctx_, ii_) : std::nullopt;
  if (!plan) return search(true);
  // The plan's holders seated as one packing, then the other ops around
  // them; a dead end (or a spent share of the seats) there asks for the
  // next packing. No verdict "tried every seat": the packings fix each
  // holder's stage at its least.
  Packer packer(ctx_, p_, *plan);
  bool placed = false;
  packer.each(
      [&](const Packer::Seats& seats) {
        // The packer's table holds the slots; the rate pools the holders
        // also draw on are the reservation table's to check.
        size_t seated = 0;
        for (; seated < seats.size() && p_.fits(seats[seated].first, seats[seated].second);
             ++seated) {
          p_.place(seats[seated].first, seats[seated].second);
        }
        if (seated < seats.size()) {
          while (seated > 0) p_.unplace(seats[--seated].first);
          return seats_ <= budget_ && !ctx_.out_of_work();
        }
        seats_ += static_cast<int64_t>(seats.size());
        out_.seats += static_cast<int64_t>(seats.size());
        stale_.assign(n_, 1);
        placed = p_.placed_count() == n_ ? storage_holds(ctx_, p_) : search(false);
        if (placed) return false;
        for (auto it = seats.rbegin(); it != seats.rend(); ++it) p_.unplace(it->first);
        stale_.assign(n_, 1);
        out_.searched_all = false;
        out_.stuck.reset();
        return seats_ <= budget_ && !ctx_.out_of_work();
      },
      std::max(budget_, kPackStepsPerRow * ii_));
  if (placed) return true;
  out_.searched_all = false;
  if (seats_ > budget_ && (out_.failures.empty() || out_.failures.back() != spent_line(ii_, budget_))) {
    out_.failures.push_back(spent_line(ii_, budget_));
  }
  return false;
}

bool Backtracker::search(bool alone) {
  // Without stage rules (leader groups, max depths, builder constraints)
  // a placement shifted by a constant is a placement, so the first op's
  // first seat stands for all of its seats (not among placed ops).
  bool shift_invariant = alone && ctx_.group_members.empty() && p_.constraints().empty();
  for (const Op& op : ctx_.g.ops) shift_invariant = shift_invariant && !op.max_depth;
  std::vector<Frame> frames;
  frames.reserve(n_);
  std::optional<Frame> first = choose();
  if (!first) return fail("found no op ready");  // anchors are never held: unreachable
  frames.push_back(*first);
  int64_t& seats = seats_;
  while (true) {
    Frame& f = frames.back();
    if (frames.size() == 1 && shift_invariant && f.next > f.earliest) f.next = f.end + 1;
    if (std::optional<int64_t> seat = next_seat(f)) {
      p_.place(f.op, *seat);
      // A seat whose slot has no room left for the claims still to come
      // is taken back before it counts (its check is counted as work).
      if (p_.placed_count() < n_ && !room_left(f.op)) {
        p_.unplace(f.op);
        if (ctx_.out_of_work()) return fail("the effort's work budget is spent");
        continue;
      }
      ++out_.seats;
      if (++seats > budget_) {
        out_.failures.push_back(spent_line(ii_, budget_));
        return false;
      }
      if (ctx_.out_of_work()) return fail("the effort's work budget is spent");
      if (seats % kSeatsPerDeadlinePoll == 0 && deadline_passed(ctx_.deadline)) {
        return fail("stopped at the deadline");
      }
      if (p_.placed_count() == n_) {
        if (storage_holds(ctx_, p_)) return true;
        p_.unplace(f.op);  // L4 fails: this leaf is no schedule
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

}  // namespace

SearchFacts search_facts(const Context& ctx) {
  const int n = ctx.g.op_count();
  SearchFacts f{priority_order(ctx), std::vector<uint64_t>(n, 0), std::vector<uint64_t>(n, 0)};
  for (OpId v = 0; v < n; ++v) {
    const NodeRrt& node = ctx.nodes[v];
    if (!node.rows.empty()) f.slots[v] = node.rows[0];  // rows nest: row 0 has every bit
    for (const Triple& t : node.pooled) f.slots[v] |= slot_bit(t.slot);
    for (const PoolUse& u : node.pools) f.pools[v] |= uint64_t{1} << (u.pool % 64);
  }
  find_sharing(ctx, f);
  return f;
}

bool search_once(const Context& ctx, Placement& p, Gates& gates, const SearchFacts& facts,
                 const std::vector<OpId>& order, int64_t budget, BacktrackResult& out) {
  return Backtracker(ctx, p, gates, facts, budget, order, out).run();
}

// The failure line of a run that spent its budget.
std::string spent_line(int64_t ii, int64_t budget) {
  return "II " + std::to_string(ii) + ": backtracking spent its budget of " +
         std::to_string(budget) + " seats";
}

}  // namespace tilesched::cost_based
