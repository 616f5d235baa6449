// Tests for the heuristics' frame with a toy generator in it: the range it
// asks the attempt for, the seats, options and statistics it publishes,
// the serial fallback and its statistic (only without a cap), rule L7
// (the serial schedule, no attempt) and the pre-check (no attempt).
#include "frame.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_algo.h"
#include "testing/test_graphs.h"
#include "tilesched/serial.h"

namespace tilesched {
namespace {

using Stats = std::vector<std::pair<std::string, int64_t>>;

// Places every op at its serial start from `threshold` on; records each II
// asked for.
class Toy : public GeneratorFrame {
 public:
  Toy(const Graph& g, const IiSearchOptions& search, int64_t threshold)
      : GeneratorFrame(g, search, {.name = "toy"}), threshold_(threshold),
        adj_(Adjacency::build(g)), screen_(g, adj_) {}

  Schedule run_now() { return run(std::chrono::steady_clock::now()); }
  const Schedule& serial() const { return serial_; }
  std::vector<int64_t> asked;
  bool forced = false;

 private:
  int64_t group_span() override { return 1; }
  IiScreen& screen() override { return screen_; }
  IiVerdict attempt(int64_t ii) override {
    asked.push_back(ii);
    if (ii < threshold_) return IiVerdict::kNotPlaced;
    starts_ = serial_.start;
    return IiVerdict::kPlaced;
  }
  const std::vector<int64_t>& starts() override { return starts_; }
  std::vector<std::pair<std::string, std::string>> options() const override {
    return {{"toy_option", "1"}};
  }
  void finish(Schedule& s, const IiRange& range, const IiSearchResult& r) override {
    s.diagnostics.push_back("toy: " + std::to_string(range.lower) + " to " +
                            std::to_string(range.cap));
    s.stats.emplace_back("ii_tried", r.tried);
  }
  void finish_forced(Schedule&) override { forced = true; }

  int64_t threshold_;
  Adjacency adj_;
  IiScreen screen_;
  std::vector<int64_t> starts_;
};

TEST(GeneratorFrame, PublishesTheSeatsOfTheFirstIiThatPlaces) {
  const Graph g = Example("gemm_mainloop.loop.json");
  const IiSearchOptions search;
  Toy toy(g, search, 0);
  const Schedule s = toy.run_now();
  ASSERT_TRUE(s.feasible);
  ASSERT_EQ(toy.asked.size(), 1u);
  EXPECT_EQ(s.ii, toy.asked[0]);
  EXPECT_EQ(s.start, toy.serial().start);
  EXPECT_EQ(s.generator, "toy");
  EXPECT_EQ(s.mii, toy.serial().mii);
  EXPECT_EQ(s.options, (std::vector<std::pair<std::string, std::string>>{{"toy_option", "1"}}));
  EXPECT_EQ(s.stats, (Stats{{"ii_tried", 1}, {"serial_fallback", 0}}));
  EXPECT_TRUE(s.flags.empty());
}

TEST(GeneratorFrame, NothingPlacedKeepsTheSerialScheduleOnlyWithoutACap) {
  const Graph g = Example("gemm_mainloop.loop.json");
  const IiSearchOptions search;
  Toy toy(g, search, 1 << 30);
  const Schedule s = toy.run_now();
  ASSERT_TRUE(toy.serial().feasible);
  ASSERT_FALSE(toy.asked.empty());
  EXPECT_EQ(toy.asked.back(), toy.serial().ii);  // the default cap: the serial II
  ASSERT_TRUE(s.feasible);
  EXPECT_EQ(s.ii, toy.serial().ii);
  EXPECT_EQ(s.flags, (std::vector<std::string>{"serial_fallback"}));
  EXPECT_EQ(s.stats.back(), (std::pair<std::string, int64_t>{"serial_fallback", 1}));

  IiSearchOptions capped;
  capped.ii_cap = toy.serial().ii;
  Toy cap(g, capped, 1 << 30);
  const Schedule c = cap.run_now();
  EXPECT_EQ(cap.asked, toy.asked);
  EXPECT_FALSE(c.feasible);
  EXPECT_EQ(c.failure, FailureReason::kIiCapReached);
  EXPECT_EQ(c.stats.back(), (std::pair<std::string, int64_t>{"serial_fallback", 0}));
  // The frame's lines, then the generator's.
  EXPECT_EQ(c.diagnostics.back(), "toy: " + std::to_string(cap.asked.front()) + " to " +
                                      std::to_string(capped.ii_cap));
}

TEST(GeneratorFrame, ForceSerialKeepsTheSerialScheduleUnderTheGeneratorsName) {
  const Graph g = Example("force_serial.loop.json");
  ASSERT_TRUE(g.attrs.force_serial_execution);
  const IiSearchOptions search;
  Toy toy(g, search, 0);
  const Schedule s = toy.run_now();
  EXPECT_TRUE(toy.asked.empty());
  EXPECT_TRUE(toy.forced);
  EXPECT_EQ(s.generator, "toy");
  EXPECT_EQ(s.start, generate_serial(g).start);
  EXPECT_EQ(s.flags, (std::vector<std::string>{"force_serial"}));
  EXPECT_EQ(s.diagnostics.back(),
            "force_serial_execution is set: the toy generator keeps the serial schedule");
}

TEST(GeneratorFrame, StoresOverThePoolEndTheRunBeforeAnyAttempt) {
  Graph g = Example("gemm_mainloop.loop.json");
  g.ops[0].store_bytes = int64_t{1} << 40;
  const IiSearchOptions search;
  Toy toy(g, search, 0);
  const Schedule s = toy.run_now();
  EXPECT_TRUE(toy.asked.empty());
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(s.failure, FailureReason::kStorageBudget);
  EXPECT_EQ(s.stats.back(), (std::pair<std::string, int64_t>{"serial_fallback", 0}));
}

}  // namespace
}  // namespace tilesched
