// Tests for the step after the stage cap's chain (stage_cap.h,
// StageCapFinishFn): it runs once where no tighter cap could beat the best
// run, works out the caps below first where one could, keeps the II from
// rising as the cap grows, and its work and time reach the answer. The runs
// and the step are stand-ins here: what they return is the test's table.
#include "stage_cap.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include "ii_driver.h"
#include "ii_range.h"
#include "testing/test_graphs.h"
#include "tilesched/mii.h"

namespace tilesched {
namespace {

// The cap a capped graph was made for: every op's max_depth is cap - 1.
int64_t cap_of(const Graph& capped) { return *capped.ops.front().max_depth + 1; }

int64_t bound_at(const Graph& g, int64_t cap) {
  const Graph h = with_stage_cap(g, cap);
  return ii_lower_bound(h, compute_mii(h).max());
}

Schedule stand_in(int64_t ii, int64_t stages, int64_t work) {
  Schedule s;
  s.feasible = true;
  s.ii = ii;
  s.stage_count = stages;
  s.time_ns = 1'000;
  s.stats.emplace_back("work.total", work);
  return s;
}

// Runs: the uncapped one at II 10 with 4 stages, capped ones at `run_ii`
// (per cap; a run is feasible only below the chain's best). The step
// lowers an II to `finish_ii` (per cap, where given) and records its calls:
// the cap and the II it started from.
struct Table {
  std::map<int64_t, int64_t> run_ii;
  std::map<int64_t, int64_t> finish_ii;
  std::vector<std::pair<int64_t, int64_t>> calls;

  StageCapRunFn run() {
    return [this](const Graph& h, const StageCapRun& r) -> StatusOr<Schedule> {
      if (!r.capped) return stand_in(10, 4, 100);
      EXPECT_EQ(r.ii_floor, 10);
      const int64_t ii = run_ii.at(cap_of(h));
      Schedule s = stand_in(ii, cap_of(h), 1'000);
      s.feasible = r.ii_cap == 0 || ii <= r.ii_cap;
      return s;
    };
  }
  StageCapFinishFn finish() {
    return [this](const Graph& capped, int64_t floor, Schedule& s) {
      EXPECT_EQ(floor, 10);
      const int64_t cap = cap_of(capped);
      calls.emplace_back(cap, s.ii);
      if (auto it = finish_ii.find(cap); it != finish_ii.end() && it->second < s.ii) {
        s.ii = it->second;
      }
      s.time_ns += 10;
      for (auto& [k, v] : s.stats) {
        if (k == "work.total") v += 7;
      }
    };
  }
};

Graph two_loads() { return std::move(TwoLoadsOneMma(std::nullopt).build()).value(); }

// The answer under a cap of `cap` with t's runs and step.
Schedule capped(const Graph& g, Table& t, int64_t cap) {
  StatusOr<Schedule> s = schedule_under_stage_cap(g, cap, StageCapMode::kChain, t.run(), t.finish());
  EXPECT_TRUE(s.ok());
  return s.ok() ? std::move(s).value() : Schedule{};
}

TEST(StageCap, TheStepRunsOnceWhereNoTighterCapCouldBeatTheBestRun) {
  const Graph g = two_loads();
  const int64_t b1 = bound_at(g, 1), b2 = bound_at(g, 2);
  ASSERT_GT(b1, b2);  // the loads' holds fit beside the MMA's in one stage only at b1
  Table t;
  t.run_ii = {{1, b1 + 5}, {2, b1}};
  const Schedule s = capped(g, t, 2);
  EXPECT_EQ(t.calls, (std::vector<std::pair<int64_t, int64_t>>{{2, b1}}));
  EXPECT_EQ(s.ii, b1);
  // The uncapped run's 100, the two runs' 1,000 each, the step's 7.
  EXPECT_EQ(s.stat("work.total"), 2'107);
  EXPECT_EQ(s.time_ns, 3'010);
}

TEST(StageCap, TheCapBelowIsWorkedOutFirstWhereItCouldBeLower) {
  const Graph g = two_loads();
  const int64_t b1 = bound_at(g, 1);
  Table t;
  t.run_ii = {{1, b1 + 5}, {2, b1 + 3}};
  t.finish_ii = {{1, b1 + 1}};  // the step lowers cap 1's answer below cap 2's run
  const Schedule s = capped(g, t, 2);
  EXPECT_EQ(t.calls, (std::vector<std::pair<int64_t, int64_t>>{{1, b1 + 5}, {2, b1 + 1}}));
  EXPECT_EQ(s.ii, b1 + 1);  // never above the answer at cap 1
  EXPECT_EQ(s.stat("work.total"), 2'114);
  EXPECT_EQ(s.time_ns, 3'020);
}

// The answers at every cap at once are each what the call for that cap
// gives, and the step at a cap is not run twice.
TEST(StageCap, EveryCapAtOnceGivesEachCapsAnswer) {
  const Graph g = two_loads();
  const int64_t b1 = bound_at(g, 1);
  Table all;
  all.run_ii = {{1, b1 + 5}, {2, b1 + 3}, {3, b1 + 2}};
  all.finish_ii = {{1, b1 + 1}};
  StatusOr<std::vector<Schedule>> every = schedules_under_stage_caps(g, 3, all.run(), all.finish());
  ASSERT_TRUE(every.ok());
  ASSERT_EQ(every->size(), 3u);
  EXPECT_EQ(all.calls.size(), 3u);
  for (int64_t cap = 1; cap <= 3; ++cap) {
    Table one;
    one.run_ii = all.run_ii;
    one.finish_ii = all.finish_ii;
    const Schedule s = capped(g, one, cap);
    const Schedule& e = (*every)[cap - 1];
    EXPECT_EQ(e.ii, s.ii) << "cap " << cap;
    EXPECT_EQ(e.stat("work.total"), s.stat("work.total")) << "cap " << cap;
    EXPECT_EQ(e.time_ns, s.time_ns) << "cap " << cap;
    if (cap > 1) {
      EXPECT_LE(e.ii, (*every)[cap - 2].ii);
    }
  }
}

// Without a step, or where the uncapped schedule is kept, nothing runs
// after the chain.
TEST(StageCap, NoStepForAKeptUncappedSchedule) {
  const Graph g = two_loads();
  Table t;
  const Schedule s = capped(g, t, 4);
  EXPECT_TRUE(t.calls.empty());
  EXPECT_EQ(s.ii, 10);
}

}  // namespace
}  // namespace tilesched
