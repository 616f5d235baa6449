// Tests for the shared II search: which IIs each search attempts and in
// what order, how it ends (found, storage, cap, stopped, never), the
// galloping search's replay of the found II, the pre-check and the
// oracle's range, the gallop above a squeeze (its steps, the cap last, the
// walk up from the last failure, the replay of the gallop point, the
// screen's skips, the deadline, the counts), the descent's rules (its
// misses, the searched-all stop, the screen's skips, the deadline), what
// publish_search writes for each end, and that every generator reports the
// same give-up line.
#include "ii_driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/json_io.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"
#include "graph/graph_algo.h"
#include "ii_range.h"

namespace tilesched {
namespace {

// A generic two-op graph on a one-slot target; `store_bytes` on op a.
Graph two_ops(int64_t store_bytes = 0, int64_t smem = 1024) {
  Graph g;
  g.name = "two";
  g.target = make_generic_target("t", {{"alu", 1, false}},
                                 {{"smem", PoolKind::kStorage, smem, 0, false}});
  for (const char* name : {"a", "b"}) {
    Op op;
    op.name = name;
    op.kind = "generic";
    op.latency = 2;
    op.resources = {{1, 1, 1}};
    g.ops.push_back(op);
  }
  g.ops[0].store_bytes = store_bytes;
  g.edges.push_back({0, 1, 2, 0, EdgeKind::kData});
  return g;
}

// attempt(ii) = kPlaced from `threshold` on, else `below`; records each ii.
struct Attempts {
  int64_t threshold;
  IiVerdict below = IiVerdict::kNotPlaced;
  std::vector<int64_t> asked;
  IiAttemptFn fn() {
    return [this](int64_t ii) {
      asked.push_back(ii);
      return ii >= threshold ? IiVerdict::kPlaced : below;
    };
  }
};

TEST(IiDriver, LinearSearchAttemptsEachIiUpwardAndStopsAtTheFirstPlaced) {
  Attempts a{7};
  const IiSearchResult r = search_ii({}, {4, 20}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(r.end, IiSearchEnd::kFound);
  EXPECT_EQ(r.ii, 7);
  EXPECT_EQ(r.tried, 4);
  EXPECT_EQ(a.asked, (std::vector<int64_t>{4, 5, 6, 7}));
}

TEST(IiDriver, GallopingSearchEndsByAttemptingTheFoundIiAgain) {
  Attempts a{37};
  const IiSearchResult r = search_ii({}, {1, 100}, IiSearch::kGalloping, a.fn());
  EXPECT_EQ(r.end, IiSearchEnd::kFound);
  EXPECT_EQ(r.ii, 37);
  ASSERT_FALSE(a.asked.empty());
  EXPECT_EQ(a.asked.back(), 37);  // the generator's placement is the found II's
  EXPECT_EQ(r.tried, static_cast<int64_t>(a.asked.size()));
  EXPECT_LT(r.tried, 37);
}

TEST(IiDriver, EveryIiFailingOnStorageEndsAsStorageBudget) {
  Attempts a{100, IiVerdict::kStorage};
  const IiSearchResult r = search_ii({}, {2, 5}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(r.end, IiSearchEnd::kStorageBudget);
  EXPECT_EQ(r.tried, 4);
  EXPECT_FALSE(r.precheck.stores_over);
}

TEST(IiDriver, AnIiFailingOtherwiseEndsAsCapReached) {
  int64_t calls = 0;
  const IiSearchResult r = search_ii({}, {2, 5}, IiSearch::kLinear, [&](int64_t ii) {
    ++calls;
    return ii == 3 ? IiVerdict::kNotPlaced : IiVerdict::kStorage;
  });
  EXPECT_EQ(r.end, IiSearchEnd::kCapReached);
  EXPECT_EQ(calls, 4);
}

TEST(IiDriver, AStopEndsTheSearchAtOnce) {
  Attempts a{100, IiVerdict::kStop};
  const IiSearchResult r = search_ii({}, {2, 9}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(r.end, IiSearchEnd::kStopped);
  EXPECT_EQ(a.asked, (std::vector<int64_t>{2}));
  Attempts b{100, IiVerdict::kStop};
  EXPECT_EQ(search_ii({}, {2, 9}, IiSearch::kGalloping, b.fn()).end,
            IiSearchEnd::kStopped);
  EXPECT_EQ(b.asked, (std::vector<int64_t>{2}));
}

// attempt(ii) = kPlaced where `places(ii)`, kSqueezed at `squeeze`, else
// kNotPlaced; records each ii.
struct SqueezeAttempts {
  int64_t squeeze;
  std::function<bool(int64_t)> places;
  std::vector<int64_t> asked;
  IiAttemptFn fn() {
    return [this](int64_t ii) {
      asked.push_back(ii);
      if (places(ii)) return IiVerdict::kPlaced;
      return ii == squeeze ? IiVerdict::kSqueezed : IiVerdict::kNotPlaced;
    };
  }
};

std::function<bool(int64_t)> from(int64_t threshold) {
  return [threshold](int64_t ii) { return ii >= threshold; };
}

std::vector<int64_t> span(int64_t first, int64_t last) {
  std::vector<int64_t> v;
  for (int64_t ii = first; ii <= last; ++ii) v.push_back(ii);
  return v;
}

std::vector<int64_t> join(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Squeezed at 5: the next II (5 + 1), then 2, 4, 8, ... above the last
// failure (6 + 2, 8 + 4, 12 + 8, 20 + 16), and the cap (40) last, as
// 36 + 32 passes it; nothing places.
TEST(IiDriver, TheGallopAboveASqueezeDoublesItsStepAndTriesTheCapLast) {
  SqueezeAttempts a{5, from(100)};
  const IiSearchResult r = search_ii({}, {3, 40}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(a.asked, (std::vector<int64_t>{3, 4, 5, 6, 8, 12, 20, 36, 40}));
  EXPECT_EQ(r.end, IiSearchEnd::kCapReached);
  EXPECT_EQ(r.tried, 9);
  EXPECT_EQ(r.screened, 0);
  EXPECT_FALSE(r.deadline_at);
}

// Gallop point 20 places after 12 failed: the walk goes up from 13 and the
// first II that places there (16) is the answer, its placement the last.
TEST(IiDriver, TheGallopWalksUpFromTheLastFailureToTheFirstIiThatPlaces) {
  SqueezeAttempts a{5, from(16)};
  const IiSearchResult r = search_ii({}, {3, 40}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(a.asked, (std::vector<int64_t>{3, 4, 5, 6, 8, 12, 20, 13, 14, 15, 16}));
  EXPECT_EQ(r.end, IiSearchEnd::kFound);
  EXPECT_EQ(r.ii, 16);
  EXPECT_EQ(r.tried, 11);
  // Not monotone: 7 places too, but the gallop stepped over it (6 and 8
  // failed), so the walk starts above 12.
  SqueezeAttempts gap{5, [](int64_t ii) { return ii == 7 || ii >= 16; }};
  EXPECT_EQ(search_ii({}, {3, 40}, IiSearch::kLinear, gap.fn()).ii, 16);
  EXPECT_EQ(gap.asked, a.asked);
}

// The gallop point is the answer when nothing below it places; it is
// attempted again only when the walk attempted something after it.
TEST(IiDriver, TheGallopPointIsAttemptedAgainOnlyWhenTheWalkWentBelowIt) {
  SqueezeAttempts walked{5, from(20)};
  IiSearchResult r = search_ii({}, {3, 40}, IiSearch::kLinear, walked.fn());
  EXPECT_EQ(walked.asked, join({3, 4, 5, 6, 8, 12, 20}, join(span(13, 19), {20})));
  EXPECT_EQ(r.end, IiSearchEnd::kFound);
  EXPECT_EQ(r.ii, 20);
  EXPECT_EQ(r.tried, 15);
  SqueezeAttempts next{5, from(6)};  // 6 is one above the last failure: no walk
  r = search_ii({}, {3, 40}, IiSearch::kLinear, next.fn());
  EXPECT_EQ(next.asked, (std::vector<int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(r.end, IiSearchEnd::kFound);
  EXPECT_EQ(r.ii, 6);
  EXPECT_EQ(r.tried, 4);
  SqueezeAttempts at_cap{5, from(40)};  // the cap places after 36 failed
  r = search_ii({}, {3, 40}, IiSearch::kLinear, at_cap.fn());
  EXPECT_EQ(at_cap.asked, (std::vector<int64_t>{3, 4, 5, 6, 8, 12, 20, 36, 40, 37, 38, 39, 40}));
  EXPECT_EQ(r.ii, 40);
}

// A squeeze at the cap has nothing to gallop over, and the galloping
// search treats a squeeze as a failure.
TEST(IiDriver, ASqueezeAtTheCapOrInTheGallopingSearchIsAFailure) {
  SqueezeAttempts at_cap{9, from(100)};
  IiSearchResult r = search_ii({}, {3, 9}, IiSearch::kLinear, at_cap.fn());
  EXPECT_EQ(at_cap.asked, span(3, 9));
  EXPECT_EQ(r.end, IiSearchEnd::kCapReached);
  SqueezeAttempts galloping{1, from(37)};
  Attempts plain{37};
  r = search_ii({}, {1, 100}, IiSearch::kGalloping, galloping.fn());
  search_ii({}, {1, 100}, IiSearch::kGalloping, plain.fn());
  EXPECT_EQ(r.ii, 37);
  EXPECT_EQ(galloping.asked, plain.asked);
}

// Op a holds the one-unit slot for 1 cycle, op b for 3; a -> b (latency 6)
// and b -> a two iterations on: at II 4, b starts 6 to 8 cycles after a,
// so its three rows always cover a's row, and the screen rejects 4 after
// it admitted 3. Squeezed at 3, the gallop skips 4 without an attempt and
// steps on from it as from a failure (4 + 2, then 6 + 4).
TEST(IiDriver, TheGallopSkipsWhatTheScreenRejectsAndStepsOnFromIt) {
  Graph g = two_ops();
  g.ops[0].resources = {{1, 1, 1}};
  g.ops[1].resources = {{1, 3, 1}};
  g.edges = {{0, 1, 6, 0, EdgeKind::kData}, {1, 0, 0, 2, EdgeKind::kData}};
  const Adjacency adj = Adjacency::build(g);
  for (int64_t ii : {3, 4, 5, 6, 7, 10}) {
    IiScreen fresh(g, adj);
    ASSERT_EQ(fresh.check(ii) == IiScreen::Verdict::kAdmit, ii != 4) << ii;
  }
  IiScreen screen(g, adj);
  SqueezeAttempts a{3, from(7)};
  const IiSearchResult r = search_ii({}, {3, 40}, IiSearch::kLinear, a.fn(), &screen);
  EXPECT_EQ(a.asked, (std::vector<int64_t>{3, 6, 10, 7}));
  EXPECT_EQ(r.end, IiSearchEnd::kFound);
  EXPECT_EQ(r.ii, 7);
  EXPECT_EQ(r.screened, 1);
  EXPECT_EQ(screen.rejected(), 1);
  EXPECT_EQ(r.tried, 4);
}

// The deadline passes during an attempt of the gallop, or during the gallop
// point's, before the walk: no later attempt, the search stopped before
// the next II; a kStop ends it the same way.
TEST(IiDriver, TheGallopStartsNoAttemptAfterTheDeadlineOrAStop) {
  const Deadline past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  for (int64_t expire_at : {8, 20}) {
    Deadline deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
    SqueezeAttempts a{5, from(16)};
    const IiAttemptFn inner = a.fn();
    const IiAttemptFn expiring = [&](int64_t ii) {
      if (ii == expire_at) deadline = past;
      return inner(ii);
    };
    const IiSearchResult r =
        search_ii({}, {3, 40}, IiSearch::kLinear, expiring, nullptr, deadline);
    EXPECT_EQ(r.end, IiSearchEnd::kStopped) << expire_at;
    EXPECT_EQ(a.asked.back(), expire_at);
    EXPECT_EQ(r.deadline_at, expire_at == 8 ? 12 : 13);
    EXPECT_EQ(r.tried, static_cast<int64_t>(a.asked.size()));
  }
  std::vector<int64_t> asked;
  const IiSearchResult r = search_ii({}, {3, 40}, IiSearch::kLinear, [&](int64_t ii) {
    asked.push_back(ii);
    return ii == 5 ? IiVerdict::kSqueezed : ii == 8 ? IiVerdict::kStop : IiVerdict::kNotPlaced;
  });
  EXPECT_EQ(asked, (std::vector<int64_t>{3, 4, 5, 6, 8}));
  EXPECT_EQ(r.end, IiSearchEnd::kStopped);
  EXPECT_FALSE(r.deadline_at);
}

TEST(IiDriver, StoresOverThePoolEndTheSearchBeforeAnyAttempt) {
  Attempts a{1};
  const Graph g = two_ops(4096, 1024);
  const IiSearchResult r = search_ii(precheck_ii(g), {1, 9}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(r.end, IiSearchEnd::kStorageBudget);
  ASSERT_TRUE(r.precheck.stores_over);
  EXPECT_TRUE(a.asked.empty());
  Schedule s;
  publish_search(two_ops(4096, 1024), {1, 9}, r, {}, nullptr, s);
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kStorageBudget);
  ASSERT_EQ(s.diagnostics.size(), 1u);
}

TEST(IiDriver, OpsForcedTogetherOverASlotEndTheSearchBeforeAnyAttempt) {
  Graph g = two_ops();
  g.edges = {{0, 1, 0, 0, EdgeKind::kData}, {1, 0, 0, 0, EdgeKind::kData}};  // start together
  const IiPrecheck pre = precheck_ii(g);
  EXPECT_FALSE(pre.stores_over);
  ASSERT_TRUE(pre.never);
  Attempts a{1};
  const IiSearchResult r = search_ii(pre, {1, 9}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(r.end, IiSearchEnd::kNever);
  EXPECT_EQ(r.precheck.never, pre.never);
  EXPECT_TRUE(a.asked.empty());
}

TEST(IiDriver, ThePrecheckNamesTheStoresFirstAndPassesAPlaceableGraph) {
  const IiPrecheck over = precheck_ii(two_ops(4096, 1024));
  EXPECT_TRUE(over.stores_over);
  EXPECT_FALSE(over.never);
  const IiPrecheck fine = precheck_ii(two_ops());
  EXPECT_FALSE(fine.stores_over);
  EXPECT_FALSE(fine.never);
}

// The oracle's range starts where a heuristic's does and ends one below the
// best heuristic II, or at the sequential cap without one.
TEST(IiDriver, TheOraclesRangeSharesTheHeuristicsLowerBound) {
  for (const char* name : {"gemm_mainloop", "attention_forward", "generic_dsp", "spec_example"}) {
    StatusOr<Graph> g =
        read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) + "/" + name + ".loop.json");
    ASSERT_TRUE(g.ok()) << g.status().message();
    const Schedule serial = generate_serial(*g);
    const int64_t mii = serial.mii.max();
    const int64_t span = group_span_bound(*g, Adjacency::build(*g), find_leader_groups(*g).members);
    const IiRange heuristic = heuristic_ii_range(*g, mii, span, 0, 0, serial);
    const IiRange with = oracle_ii_range(*g, mii, heuristic.cap);
    EXPECT_EQ(with.lower, heuristic.lower) << name;
    EXPECT_EQ(with.cap, heuristic.cap - 1) << name;
    const IiRange without = oracle_ii_range(*g, mii, std::nullopt);
    EXPECT_EQ(without.lower, heuristic.lower) << name;
    EXPECT_EQ(without.cap, sequential_ii_cap(*g, mii)) << name;
  }
}

// descend_ii's attempt: `verdicts[ii]` (kOutOfBudget when absent);
// records each ii asked.
struct DescentAttempts {
  std::vector<std::pair<int64_t, DescentVerdict>> verdicts;
  std::vector<int64_t> asked;
  DescentAttemptFn fn() {
    return [this](int64_t ii) {
      asked.push_back(ii);
      for (const auto& [at, v] : verdicts) {
        if (at == ii) return v;
      }
      return DescentVerdict::kOutOfBudget;
    };
  }
};

TEST(IiDriver, TheDescentPlacesDownToTheLowerBound) {
  DescentAttempts a;
  for (int64_t ii = 1; ii <= 9; ++ii) a.verdicts.emplace_back(ii, DescentVerdict::kPlaced);
  const IiDescentResult d = descend_ii(10, 6, a.fn());
  EXPECT_EQ(d.end, IiDescentEnd::kLowerBound);
  EXPECT_EQ(d.ii, 6);
  EXPECT_EQ(a.asked, (std::vector<int64_t>{9, 8, 7, 6}));
  EXPECT_EQ(d.tried, 4);
  EXPECT_EQ(d.placed, 4);
}

// kDescentMisses out-of-budget attempts end it, a placement between them
// or not; a found II with nothing below it asks nothing.
TEST(IiDriver, TheDescentStopsAfterItsMissesWhateverPlacedBetween) {
  ASSERT_EQ(kDescentMisses, 2);
  DescentAttempts none;
  IiDescentResult d = descend_ii(10, 1, none.fn());
  EXPECT_EQ(d.end, IiDescentEnd::kMisses);
  EXPECT_EQ(d.ii, 10);
  EXPECT_EQ(none.asked, (std::vector<int64_t>{9, 8}));
  EXPECT_EQ(d.placed, 0);
  DescentAttempts between{{{8, DescentVerdict::kPlaced}, {6, DescentVerdict::kPlaced}}};
  d = descend_ii(10, 1, between.fn());
  EXPECT_EQ(d.end, IiDescentEnd::kMisses);
  EXPECT_EQ(d.ii, 8);
  EXPECT_EQ(between.asked, (std::vector<int64_t>{9, 8, 7}));
  EXPECT_EQ(d.placed, 1);
  DescentAttempts at_bottom;
  d = descend_ii(5, 5, at_bottom.fn());
  EXPECT_EQ(d.end, IiDescentEnd::kLowerBound);
  EXPECT_EQ(d.ii, 5);
  EXPECT_TRUE(at_bottom.asked.empty());
}

TEST(IiDriver, TheDescentStopsWhereAnAttemptSearchedEverySeat) {
  DescentAttempts a{{{9, DescentVerdict::kPlaced}, {8, DescentVerdict::kSearchedAll},
                     {7, DescentVerdict::kPlaced}}};
  const IiDescentResult d = descend_ii(10, 1, a.fn());
  EXPECT_EQ(d.end, IiDescentEnd::kSearchedAll);
  EXPECT_EQ(d.ii, 9);
  EXPECT_EQ(a.asked, (std::vector<int64_t>{9, 8}));
  EXPECT_EQ(d.tried, 2);
}

// A recurrence needs II >= 4: the screen rejects 3, 2 and 1. The descent
// rearms a dormant screen, skips those IIs without an attempt, and a
// skip costs no miss (the end is the lower bound, not the misses).
TEST(IiDriver, TheDescentSkipsWhatTheScreenRejectsWithoutAMiss) {
  Graph g = two_ops();
  g.edges.push_back({1, 0, 2, 1, EdgeKind::kData});
  const Adjacency adj = Adjacency::build(g);
  IiScreen screen(g, adj);
  for (int64_t ii = 10; !screen.dormant(); ++ii) screen.check(ii);  // admits, then sleeps
  DescentAttempts a{{{5, DescentVerdict::kPlaced}, {4, DescentVerdict::kPlaced}}};
  const IiDescentResult d = descend_ii(7, 1, a.fn(), &screen);
  EXPECT_EQ(a.asked, (std::vector<int64_t>{6, 5, 4}));
  EXPECT_EQ(d.end, IiDescentEnd::kLowerBound);
  EXPECT_EQ(d.ii, 4);
  EXPECT_EQ(d.screened, 3);
  EXPECT_EQ(d.tried, 3);
  EXPECT_EQ(screen.rejected(), 3);
}

// Once the deadline has passed no attempt starts (nor a screen check):
// the last II placed stands.
TEST(IiDriver, TheDescentStartsNoAttemptAfterTheDeadline) {
  Graph g = two_ops();
  g.edges.push_back({1, 0, 2, 1, EdgeKind::kData});
  const Adjacency adj = Adjacency::build(g);
  IiScreen screen(g, adj);
  const Deadline past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  DescentAttempts a;
  IiDescentResult d = descend_ii(3, 1, a.fn(), &screen, past);
  EXPECT_EQ(d.end, IiDescentEnd::kDeadline);
  EXPECT_EQ(d.ii, 3);
  EXPECT_EQ(d.screened, 0);
  EXPECT_TRUE(a.asked.empty());
  Deadline later = std::chrono::steady_clock::now() + std::chrono::hours(1);
  DescentAttempts passing;
  const DescentAttemptFn place_then_expire = [&](int64_t ii) {
    passing.asked.push_back(ii);
    later = past;  // the deadline passes during this attempt
    return DescentVerdict::kPlaced;
  };
  d = descend_ii(10, 1, place_then_expire, nullptr, later);
  EXPECT_EQ(d.end, IiDescentEnd::kDeadline);
  EXPECT_EQ(d.ii, 9);
  EXPECT_EQ(passing.asked, (std::vector<int64_t>{9}));
}

TEST(IiDriver, AnEmptyRangeAttemptsNothing) {
  Attempts a{1};
  const IiSearchResult r = search_ii({}, {6, 5}, IiSearch::kLinear, a.fn());
  EXPECT_EQ(r.end, IiSearchEnd::kCapReached);
  EXPECT_EQ(r.tried, 0);
  EXPECT_TRUE(a.asked.empty());
}

TEST(IiDriver, PublishedFoundScheduleHasItsStagesDerived) {
  IiSearchResult r;
  r.end = IiSearchEnd::kFound;
  r.ii = 4;
  Schedule s;
  publish_search(two_ops(), {4, 8}, r, {0, 5}, nullptr, s);
  EXPECT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, 4);
  EXPECT_EQ(s.stage, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(s.stage_count, 2);
  EXPECT_TRUE(s.diagnostics.empty());
}

TEST(IiDriver, NothingPlacedPublishesTheSerialScheduleFlaggedWhenGiven) {
  const Graph g = two_ops();
  const Schedule serial = generate_serial(g);
  ASSERT_TRUE(serial.feasible);
  IiSearchResult r;  // kCapReached
  Schedule s;
  publish_search(g, {2, serial.ii}, r, {}, &serial, s);
  EXPECT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, serial.ii);
  EXPECT_EQ(s.start, serial.start);
  EXPECT_EQ(s.order, serial.order);
  EXPECT_EQ(s.flags, (std::vector<std::string>{"serial_fallback"}));
  ASSERT_EQ(s.diagnostics.size(), 1u);
  EXPECT_NE(s.diagnostics[0].find("the serial schedule"), std::string::npos);
}

TEST(IiDriver, NothingPlacedWithoutFallbackFailsWithTheOneGiveUpLine) {
  IiSearchResult r;
  Schedule s;
  publish_search(two_ops(), {3, 9}, r, {}, nullptr, s);
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kIiCapReached);
  EXPECT_EQ(s.diagnostics, (std::vector<std::string>{give_up_message({3, 9})}));
  r.end = IiSearchEnd::kStopped;
  Schedule stopped;
  publish_search(two_ops(), {3, 9}, r, {}, nullptr, stopped);
  EXPECT_EQ(stopped.failure, FailureReason::kBudgetExhausted);
}

// Every heuristic that gives up under --ii-cap writes the same line.
TEST(IiDriver, EveryHeuristicGivesUpWithTheSameLine) {
  Graph g = two_ops();
  g.edges.push_back({1, 0, 2, 1, EdgeKind::kData});  // a recurrence: II >= 4
  for (GeneratorKind k : {GeneratorKind::kCostBased, GeneratorKind::kCostBasedSeed,
                          GeneratorKind::kIms, GeneratorKind::kSms}) {
    GenerateOptions o;
    o.generator = k;
    o.search.ii_cap = 3;  // one cap for whichever heuristic runs
    StatusOr<Schedule> s = generate_schedule(g, o);
    ASSERT_TRUE(s.ok()) << generator_name(k);
    EXPECT_FALSE(s->feasible) << generator_name(k);
    EXPECT_EQ(s->failure, FailureReason::kIiCapReached) << generator_name(k);
    const std::string line = give_up_message({4, 3});  // the cap is below the bound
    EXPECT_EQ(std::count(s->diagnostics.begin(), s->diagnostics.end(), line), 1)
        << generator_name(k) << ": " << (s->diagnostics.empty() ? "" : s->diagnostics[0]);
  }
}

// The stage cap: every generator's schedule has at most S stages, is legal
// for the uncapped graph, and records the cap; the oracle's II does not
// rise as the cap grows, and without a cap the stages are not bounded.
TEST(IiDriver, TheStageCapBoundsEveryGeneratorsStages) {
  StatusOr<Graph> g = read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) +
                                      "/gemm_mainloop.loop.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  GenerateOptions plain;
  plain.generator = GeneratorKind::kCostBased;
  StatusOr<Schedule> free = generate_schedule(*g, plain);
  ASSERT_TRUE(free.ok() && free->feasible);
  ASSERT_GT(free->stage_count, 1);  // the cap below binds
  for (GeneratorKind k : all_generators()) {
    if (k == GeneratorKind::kAuto) continue;
    int64_t last_exact_ii = 0;
    for (int64_t cap : {int64_t{1}, int64_t{2}}) {
      GenerateOptions o;
      o.generator = k;
      o.max_stages = cap;
      o.exact.time_limit_ms = 5000;
      StatusOr<Schedule> s = generate_schedule(*g, o);
      ASSERT_TRUE(s.ok()) << generator_name(k);
      ASSERT_TRUE(s->feasible) << generator_name(k) << " cap " << cap;
      EXPECT_LE(s->stage_count, cap) << generator_name(k);
      EXPECT_TRUE(verify_schedule(*g, *s).legal()) << generator_name(k);
      EXPECT_EQ(s->options.back(),
                (std::pair<std::string, std::string>{"max_stages", std::to_string(cap)}));
      if (k == GeneratorKind::kExact && s->proven_optimal) {
        if (last_exact_ii > 0) {
          EXPECT_LE(s->ii, last_exact_ii);
        }
        last_exact_ii = s->ii;
      }
    }
  }
}

}  // namespace
}  // namespace tilesched
