// The packing repair's infeasibility screen (screen.h) and the repair's use
// of it (packing_repair.h): a component with no schedule at an II rules that II
// out, an II where a legal schedule exists is never ruled out, and the
// repair reaches the same II with the screen as without it.
#include "repair/screen.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/exact/query.h"
#include "repair/packing_repair.h"
#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"
#include "tilesched/mii.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"
#include "testing/test_graphs.h"
#include "util/test_seams.h"

namespace tilesched {
namespace {

// At the II of every legal schedule the generators find (serial,
// cost-based, IMS, SMS, the oracle's optimum), the screen proves nothing.
void ExpectNothingRuledOutAtALegalIi(const Graph& g) {
  WorkChecks checks(g);
  ComponentScreen screen(g, checks);
  std::vector<Schedule> found = {generate_serial(g)};
  for (GeneratorKind k : {GeneratorKind::kCostBased, GeneratorKind::kIms, GeneratorKind::kSms,
                          GeneratorKind::kExact}) {
    GenerateOptions o;
    o.generator = k;
    o.packing_repair = PackingRepair::kOff;
    StatusOr<Schedule> s = generate_schedule(g, o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    found.push_back(*s);
  }
  EXPECT_EQ(found.back().ii, 5);  // the oracle's
  for (const Schedule& s : found) {
    ASSERT_TRUE(s.feasible && verify_schedule(g, s).legal()) << s.generator;
    WorkChecks::Spent spent;
    EXPECT_FALSE(screen.rules_out(s.ii, {.units = 500}, spent)) << s.generator << " II " << s.ii;
  }
}

// Components of fewer than test_seams::min_component_ops ops are not
// checked; the tests lower it to 2 (as exact_test.cc does) and restore it.
class ComponentScreenTest : public ::testing::Test {
 protected:
  void SetUp() override { test_seams::min_component_ops = 2; }
  void TearDown() override { test_seams::min_component_ops = saved_; }

 private:
  int saved_ = test_seams::min_component_ops;
};

TEST_F(ComponentScreenTest, RulesOutAnIiItsComponentCannotCarry) {
  const Graph g = RecurrenceWithTail(true);
  ASSERT_EQ(compute_mii(g).max(), 4);  // the bounds alone do not see it
  WorkChecks checks(g);
  ComponentScreen screen(g, checks);
  WorkChecks::Spent spent;
  EXPECT_TRUE(screen.rules_out(4, {.units = 500}, spent));
  EXPECT_EQ(screen.component_count(), 1);
  EXPECT_GT(spent.units, 0);
  // Its work: at least the component model's literals and one learned
  // clause (check_work), on top of the II screen's.
  EXPECT_GT(spent.work, exact_internal::kWorkPerConflict);
  EXPECT_FALSE(screen.rules_out(5, {.units = 500}, spent));
  EXPECT_TRUE(screen.rules_out(3, {.units = 500}, spent));  // below the pool's bound
}

// Soundness, on both graphs.
TEST_F(ComponentScreenTest, NeverRulesOutTheIiOfALegalSchedule) {
  for (bool on_pool : {true, false}) {
    SCOPED_TRACE(on_pool);
    ExpectNothingRuledOutAtALegalIi(RecurrenceWithTail(on_pool));
  }
}

// No component worth a proof (the default size floor of 8 ops): no model
// is built. On the rate pool nothing is proven; on slot x the II screen
// proves II 4 infeasible without a solver.
TEST(ComponentScreen, WithoutComponentsOnlyTheIiScreenProves) {
  for (bool on_pool : {true, false}) {
    SCOPED_TRACE(on_pool);
    const Graph g = RecurrenceWithTail(on_pool);
    WorkChecks checks(g);
    ComponentScreen screen(g, checks);
    WorkChecks::Spent spent;
    EXPECT_EQ(screen.rules_out(4, {.units = 500}, spent), !on_pool);
    EXPECT_FALSE(screen.rules_out(5, {.units = 500}, spent));
    EXPECT_EQ(screen.component_count(), 0);
    EXPECT_EQ(spent.units, 0);  // the II screen's work alone
  }
}

// The repair from the serial schedule: the screen rules out II 4 (the
// lower bound, tried first) without the whole graph's model, and the
// answer is the one without the screen: the optimum, 5.
TEST_F(ComponentScreenTest, TheRepairReachesTheSameIiWithTheScreen) {
  const Graph g = RecurrenceWithTail(true);
  ASSERT_TRUE(packs_rows(g));
  const Schedule serial = generate_serial(g);
  ASSERT_GT(serial.ii, 5);
  Schedule screened = serial, plain = serial;
  repair_packing(g, 0, PackingRepairOptions{}, screened);
  PackingRepairOptions no_screen;
  no_screen.units_screen = 0;
  repair_packing(g, 0, no_screen, plain);
  EXPECT_EQ(screened.ii, 5);
  EXPECT_EQ(plain.ii, 5);
  EXPECT_TRUE(verify_schedule(g, screened).legal());
  ASSERT_FALSE(screened.diagnostics.empty());
  EXPECT_NE(screened.diagnostics.back().find("1 ruled out by the screen"), std::string::npos)
      << screened.diagnostics.back();
  EXPECT_EQ(plain.diagnostics.back().find("ruled out"), std::string::npos);
}

}  // namespace
}  // namespace tilesched
