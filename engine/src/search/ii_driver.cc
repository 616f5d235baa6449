// The shared II search (see ii_driver.h).
#include "ii_driver.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "graph/graph_algo.h"
#include "ii_range.h"
#include "graph/storage.h"
#include "util/test_seams.h"

namespace tilesched {

IiRange heuristic_ii_range(const Graph& g, int64_t mii, int64_t group_span, int64_t ii_floor,
                           int64_t ii_cap, const Schedule& serial) {
  IiRange r;
  r.lower = std::max(heuristic_ii_lower(g, mii, group_span), ii_floor);
  r.cap = heuristic_ii_cap(g, r.lower, ii_cap, serial);
  return r;
}

IiRange oracle_ii_range(const Graph& g, int64_t mii, std::optional<int64_t> best_heuristic_ii) {
  IiRange r;
  r.lower = ii_lower_bound(g, mii);
  r.cap = best_heuristic_ii ? *best_heuristic_ii - 1 : sequential_ii_cap(g, mii);
  return r;
}

IiPrecheck precheck_ii(const Graph& g) {
  IiPrecheck p;
  if ((p.stores_over = stores_over_storage(g))) return p;
  p.never = forced_together_conflict(g, Adjacency::build(g));
  return p;
}

namespace {

// One attempt through the test seam.
IiVerdict attempt_at(const IiAttemptFn& attempt, int64_t ii) {
  if (test_seams::before_ii_attempt) test_seams::before_ii_attempt(ii);
  return attempt(ii);
}

// True when `screen` rejects ii (counted in r).
bool screened_out(IiScreen* screen, int64_t ii, IiSearchResult& r) {
  if (screen == nullptr || screen->check(ii) == IiScreen::Verdict::kAdmit) return false;
  ++r.screened;
  return true;
}

// One probe of the two galloping modes: an attempt at ii, counted in r;
// false without an attempt where the screen rejects ii (counted) and once
// the search stopped (an attempt said kStop, or the deadline passed before
// an attempt: deadline_at).
struct Probe {
  const IiAttemptFn& attempt;
  IiScreen* screen;
  const Deadline& deadline;
  IiSearchResult& r;
  bool stopped = false;

  bool operator()(int64_t ii) {
    if (stopped || screened_out(screen, ii, r)) return false;
    if (deadline_passed(deadline)) {
      stopped = true;
      r.deadline_at = ii;
      return false;
    }
    ++r.tried;
    const IiVerdict v = attempt_at(attempt, ii);
    stopped = v == IiVerdict::kStop;
    return v == IiVerdict::kPlaced;
  }
};

// Above a squeeze (search_ii's third mode): `from`, then 2, 4, 8, ...
// above the last II that failed (a screened II counts as failed), the cap
// last, until an II places; then linearly up from the last failure to the
// first II that places. The gallop point is attempted again when the walk
// attempted below it, so that the generator's placement is the found II's.
// A passed deadline or a kStop ends every later probe as a failure.
void search_squeezed(const IiRange& range, int64_t from, const IiAttemptFn& attempt,
                     IiScreen* screen, const Deadline& deadline, IiSearchResult& r) {
  Probe places{attempt, screen, deadline, r};
  r.end = IiSearchEnd::kCapReached;
  int64_t failed = from - 1;  // the last II that failed
  for (int64_t step = 1;; step *= 2) {
    const int64_t ii = std::min(range.cap, failed + step);
    if (!places(ii)) {
      if (ii == range.cap || places.stopped) break;
      failed = ii;
      continue;
    }
    int64_t found = failed + 1;
    while (found < ii && !places(found)) ++found;
    if (found < ii || failed + 1 == ii || places(ii)) {
      r.end = IiSearchEnd::kFound;
      r.ii = found;
      return;
    }
    break;
  }
  if (places.stopped) r.end = IiSearchEnd::kStopped;
}

// The linear search: lower upward until an attempt places or stops, or
// says kSqueezed below the cap (then search_squeezed takes the rest).
void search_linear(const IiRange& range, const IiAttemptFn& attempt, IiScreen* screen,
                   const Deadline& deadline, IiSearchResult& r) {
  bool all_storage = true;
  for (int64_t ii = range.lower; ii <= range.cap; ++ii) {
    if (screened_out(screen, ii, r)) continue;
    if (deadline_passed(deadline)) {
      r.end = IiSearchEnd::kStopped;
      r.deadline_at = ii;
      return;
    }
    ++r.tried;
    const IiVerdict v = attempt_at(attempt, ii);
    if (v == IiVerdict::kPlaced) {
      r.end = IiSearchEnd::kFound;
      r.ii = ii;
      return;
    }
    if (v == IiVerdict::kStop) {
      r.end = IiSearchEnd::kStopped;
      return;
    }
    if (v == IiVerdict::kSqueezed && ii < range.cap) {
      search_squeezed(range, ii + 1, attempt, screen, deadline, r);
      return;
    }
    all_storage = all_storage && v == IiVerdict::kStorage;
  }
  r.end = r.tried > 0 && all_storage ? IiSearchEnd::kStorageBudget : IiSearchEnd::kCapReached;
}

// Galloping then bisecting (search_ii's second mode).
void search_galloping(const IiRange& range, const IiAttemptFn& attempt, IiScreen* screen,
                      const Deadline& deadline, IiSearchResult& r) {
  Probe probe{attempt, screen, deadline, r};
  std::optional<int64_t> found = gallop_then_bisect(std::ref(probe), range.lower, range.cap);
  if (found && !probe(*found)) found.reset();  // the found II's placement, again
  if (found) {
    r.end = IiSearchEnd::kFound;
    r.ii = *found;
  } else {
    r.end = probe.stopped ? IiSearchEnd::kStopped : IiSearchEnd::kCapReached;
  }
}

}  // namespace

IiSearchResult search_ii(IiPrecheck precheck, const IiRange& range, IiSearch how,
                         const IiAttemptFn& attempt, IiScreen* screen, const Deadline& deadline) {
  IiSearchResult r;
  r.precheck = std::move(precheck);
  if (r.precheck.stores_over) {
    r.end = IiSearchEnd::kStorageBudget;
    return r;
  }
  if (r.precheck.never) {
    r.end = IiSearchEnd::kNever;
    return r;
  }
  if (range.lower > range.cap) return r;
  if (how == IiSearch::kLinear) {
    search_linear(range, attempt, screen, deadline, r);
  } else {
    search_galloping(range, attempt, screen, deadline, r);
  }
  return r;
}

IiDescentResult descend_ii(int64_t found, int64_t lower, const DescentAttemptFn& attempt,
                           IiScreen* screen, const Deadline& deadline) {
  IiDescentResult r;
  r.ii = found;
  int misses = 0;  // attempts that ran out of budget
  if (screen != nullptr) screen->rearm();
  for (int64_t ii = found - 1; ii >= lower; --ii) {
    if (deadline_passed(deadline)) {
      r.end = IiDescentEnd::kDeadline;
      return r;
    }
    if (screen != nullptr && screen->check(ii) != IiScreen::Verdict::kAdmit) {
      ++r.screened;
      continue;
    }
    ++r.tried;
    switch (attempt(ii)) {
      case DescentVerdict::kPlaced:
        ++r.placed;
        r.ii = ii;
        break;
      case DescentVerdict::kSearchedAll:
        r.end = IiDescentEnd::kSearchedAll;
        return r;
      case DescentVerdict::kOutOfBudget:
        if (++misses >= kDescentMisses) {
          r.end = IiDescentEnd::kMisses;
          return r;
        }
        break;
    }
  }
  return r;
}

std::string give_up_message(const IiRange& range) {
  if (range.lower > range.cap) {
    return "no legal placement: the cap " + std::to_string(range.cap) +
           " is below the lower bound " + std::to_string(range.lower);
  }
  return "no legal placement for II " + std::to_string(range.lower) + " to " +
         std::to_string(range.cap) + " (the cap)";
}

void publish_search(const Graph& g, const IiRange& range, const IiSearchResult& result,
                    const std::vector<int64_t>& start, const Schedule* fallback, Schedule& s) {
  if (result.end == IiSearchEnd::kFound) {
    s.feasible = true;
    s.ii = result.ii;
    s.start = start;
    derive_stage_order(s);
    return;
  }
  if (const std::optional<int64_t>& over = result.precheck.stores_over) {
    s.failure = FailureReason::kStorageBudget;
    s.diagnostics.push_back(stores_over_storage_diagnostic(g, *over));
    return;
  }
  if (const std::optional<std::string>& never = result.precheck.never) {
    s.failure = FailureReason::kDependenceCycle;
    s.diagnostics.push_back(*never);
    return;
  }
  if (fallback != nullptr && fallback->feasible) {
    s.feasible = true;
    s.ii = fallback->ii;
    s.start = fallback->start;
    s.stage = fallback->stage;
    s.order = fallback->order;
    s.stage_count = fallback->stage_count;
    s.flags.push_back("serial_fallback");
    s.diagnostics.push_back("no legal placement for II " + std::to_string(range.lower) +
                            " to " + std::to_string(range.cap) + ": the serial schedule (II " +
                            std::to_string(fallback->ii) + ") is kept");
    return;
  }
  switch (result.end) {
    case IiSearchEnd::kStorageBudget: s.failure = FailureReason::kStorageBudget; break;
    case IiSearchEnd::kStopped: s.failure = FailureReason::kBudgetExhausted; break;
    default: s.failure = FailureReason::kIiCapReached; break;
  }
  if (result.deadline_at) {
    s.diagnostics.push_back("the deadline passed before II " + std::to_string(*result.deadline_at) +
                            " was tried");
    return;
  }
  s.diagnostics.push_back(give_up_message(range));
}

Graph with_stage_cap(const Graph& g, int64_t max_stages) {
  Graph capped = g;
  for (Op& op : capped.ops) {
    op.max_depth = op.max_depth ? std::min(*op.max_depth, max_stages - 1) : max_stages - 1;
  }
  return capped;
}

}  // namespace tilesched
