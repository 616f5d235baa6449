// The backtracking rung's runs (Backtracking, see backtracking.h); one
// run's search is depth_first.cc's.
#include "backtracking.h"

#include <algorithm>

#include "packing.h"
#include "tilesched/rng.h"

namespace tilesched::cost_based {

namespace {
// The runs of one backtracking rung (Backtracking::run), each a fresh
// search (search_once) in one order with a seat budget, into one result.
class Runs {
 public:
  Runs(const Context& ctx, Placement& p, Gates& gates, const SearchFacts& facts,
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
    // A spent effort budget starts no run (WorkMeter, context.h).
    if (out_.placed || out_.searched_all || cap <= 0 || ctx_.out_of_work()) return 0;
    BacktrackResult one;
    if (!recall(r, cap, one)) {
      if (!empty_) p_.clear_seats();
      empty_ = false;
      one.placed = search_once(ctx_, p_, gates_, facts_, order_of(r), cap, one);
      out_.seats += one.seats;
      if (one.placed) winner_ = Backtracking::Winner{r, one.seats};
      // A run the effort's budget stopped proves nothing about its cap.
      if (!one.placed && !ctx_.out_of_work()) remember(r, cap, one);
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
  // The fail-first tie-break order of run r: the priority order, or for
  // r > 0 a shuffle of it seeded by the options' seed and r.
  const std::vector<OpId>& order_of(int r) {
    order_ = facts_.order;
    if (r > 0) {
      SplitMix64 rng(ctx_.opts.seed ^ (static_cast<uint64_t>(r) * 0x9E3779B97F4A7C15ull));
      rng.shuffle(order_);
    }
    return order_;
  }
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
  const SearchFacts& facts_;
  std::vector<Backtracking::Known>& known_;
  std::optional<Backtracking::Winner>& winner_;
  BacktrackResult& out_;
  bool empty_ = true;  // no run has seated anything yet
  int next_ = 1;         // the next shuffled short run
  int64_t spent_ = 0;    // the shuffled short runs' seats (at least n a run)
  std::vector<OpId> order_;  // order_of's, reused
};

}  // namespace

const SearchFacts& Backtracking::facts() {
  if (!facts_) facts_ = search_facts(ctx_);
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
  // A packing (packing.h) is searched afresh by every run: one run in the
  // priority order with the whole budget, no short ones.
  if (p.constraints().empty() && packing_plan(ctx_, p.ii())) {
    runs.attempt(0, std::max(b.seats, b.probe), true);
    p.set_undo_trail(false);
    return out;
  }
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
