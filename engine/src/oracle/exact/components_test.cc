// The components-first proof (components.h): a component below its own
// recurrence has no schedule without a model; one whose rows cannot carry
// its holds is proven infeasible by its model; an II with a schedule is
// never ruled out; a budget with no time left asks nothing; the checks and
// releases go through the caller's ComponentChecks.
#include "components.h"

#include <gtest/gtest.h>

#include <memory>

#include "testing/test_graphs.h"
#include "tilesched/mii.h"
#include "util/test_seams.h"

namespace tilesched::exact_internal {
namespace {

// Counts what the proof asks of its caller.
class CountingChecks : public ComponentChecks {
 public:
  int checks = 0, releases = 0;
  Answer check(IiProblem& problem, int64_t stages, Clock::time_point until,
               int64_t units) override {
    ++checks;
    return ComponentChecks::check(problem, stages, until, units);
  }
  void release(std::unique_ptr<IiProblem>& problem) override {
    ++releases;
    ComponentChecks::release(problem);
  }
};

// The proof of RecurrenceWithTail's components (testing/test_graphs.h:
// the component {a, b} on a singleton slot has no schedule at II 4),
// counting its checks. Components of fewer than
// test_seams::min_component_ops ops are not proven: 2 here, restored after.
class ComponentProofTest : public ::testing::Test {
 protected:
  ComponentProofTest() { test_seams::min_component_ops = 2; }
  ~ComponentProofTest() override { test_seams::min_component_ops = saved_; }

  const int saved_ = test_seams::min_component_ops;
  const Graph g_ = RecurrenceWithTail(false);
  std::unique_ptr<Backend> backend_ = make_sat_backend(SatEncoding::kRowStage);
  ComponentProof proof_{g_};
  CountingChecks checks_;
};

TEST_F(ComponentProofTest, BelowItsRecurrenceAComponentHasNoScheduleWithoutAModel) {
  ASSERT_EQ(recurrence_mii(g_), 3);
  EXPECT_EQ(proof_.prove(2, *backend_, ComponentBudget{}, checks_), ComponentVerdict::kInfeasible);
  EXPECT_EQ(proof_.component_count(), 1);
  EXPECT_EQ(checks_.checks, 0);
  EXPECT_EQ(proof_.units_used(), 0);
}

TEST_F(ComponentProofTest, AComponentThatCannotCarryItsHoldsProvesTheIi) {
  EXPECT_EQ(proof_.prove(4, *backend_, ComponentBudget{}, checks_), ComponentVerdict::kInfeasible);
  EXPECT_EQ(checks_.checks, 1);
  EXPECT_EQ(checks_.releases, 1);
  const int64_t used = proof_.units_used();
  EXPECT_GT(used, 0);
  // At the optimum the component has a schedule: nothing proven, under a
  // work budget as under none.
  EXPECT_EQ(proof_.prove(5, *backend_, ComponentBudget{.units = 500}), ComponentVerdict::kOpen);
  EXPECT_GT(proof_.units_used(), used);
}

TEST_F(ComponentProofTest, NoTimeLeftAsksNothing) {
  EXPECT_EQ(proof_.prove(4, *backend_, ComponentBudget{.until = Clock::now()}, checks_),
            ComponentVerdict::kOpen);
  EXPECT_EQ(checks_.checks, 0);
  EXPECT_EQ(proof_.units_used(), 0);
}

// Without a component worth a proof (the default floor of 8 ops) nothing
// is asked, even below the recurrence.
TEST_F(ComponentProofTest, WithoutComponentsNothingIsProven) {
  test_seams::min_component_ops = 8;
  EXPECT_EQ(proof_.prove(2, *backend_, ComponentBudget{}), ComponentVerdict::kOpen);
  EXPECT_EQ(proof_.component_count(), 0);
}

}  // namespace
}  // namespace tilesched::exact_internal
