// Properties of a foreign scheduler's plug-in (tilesched/plugin.h), the
// one $TILESCHED_PROPS_PLUGIN names (a path to its library; unset: the
// example C plug-in this build made, docs/PLUGINS.md). On generated loop
// graphs: the plug-in answers with no failure kind; a schedule it gives is
// legal under the independent checkers of checkers.h (L1-L7, shape) and
// under our verifier; its stage and order are total and derived from the
// starts; it keeps a stage cap it is asked for; and its II is never below
// the exact oracle's proven optimum. A graph the plug-in declines (no
// schedule) passes; the classification shows how many it scheduled, and
// the last property fails if it schedules none.
#include <cstdlib>
#include <memory>

#include "prop_util.h"
#include "tilesched/exact.h"
#include "tilesched/foreign.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/verify.h"

namespace tilesched::props {
namespace {

const ForeignScheduler& plugin() {
  static const std::unique_ptr<const ForeignScheduler> loaded = [] {
    const char* path = std::getenv("TILESCHED_PROPS_PLUGIN");
    if (path == nullptr || *path == '\0') path = TILESCHED_DEFAULT_PROPS_PLUGIN;
    if (*path == '\0') {
      ADD_FAILURE() << "TILESCHED_PROPS_PLUGIN names no plug-in library";
      std::abort();
    }
    StatusOr<ForeignScheduler> s = resolve_foreign(std::string("plugin:") + path);
    if (!s.ok()) {
      ADD_FAILURE() << s.status().message();
      std::abort();
    }
    return std::make_unique<const ForeignScheduler>(std::move(*s));
  }();
  return *loaded;
}

// The plug-in's answer on g under `cap`; a failure kind fails the property.
Schedule plugin_schedule(const Graph& g, int64_t cap = 0) {
  ForeignRequest req;
  req.max_stages = cap;
  ForeignOutcome o = run_foreign(plugin(), g, req);
  if (!o.schedule) {
    RC_FAIL(plugin().name + ": " + std::string(foreign_failure_name(o.failure)) + ": " +
            o.message);
  }
  RC_CLASSIFY(o.schedule->feasible, "scheduled");
  return std::move(*o.schedule);
}

}  // namespace

RC_GTEST_PROP(Plugin, LegalUnderTheIndependentCheckers, (const CostSizedGraph& lg)) {
  const Schedule s = plugin_schedule(lg.graph);
  if (!s.feasible) return;
  require_none(check_legal(lg.graph, s), "legality", s);
  const VerifyReport report = verify_schedule(lg.graph, s);
  RC_ASSERT(report.legal());
  RC_ASSERT(s.ii >= own_mii(lg.graph).max());
}

RC_GTEST_PROP(Plugin, StageOrderTotalAndDerived, (const CostSizedGraph& lg)) {
  const Schedule s = plugin_schedule(lg.graph);
  if (!s.feasible) return;
  require_none(check_shape(lg.graph, s), "shape", s);
  require_none(check_stage_order(lg.graph, s), "stage/order", s);
}

RC_GTEST_PROP(Plugin, KeepsTheStageCap, (const CostSizedGraph& lg)) {
  const int64_t cap = *rc::gen::inRange<int64_t>(1, 4);
  const Schedule s = plugin_schedule(lg.graph, cap);
  if (!s.feasible) return;
  RC_ASSERT(s.stage_count <= cap);
  require_none(check_legal(lg.graph, s), "legality under a stage cap", s);
}

// Small graphs, so that the oracle proves most optima within its budget.
RC_GTEST_PROP(Plugin, NeverBelowTheProvenOptimum, ()) {
  const LoopGraph lg = *family_graph(24);
  const Schedule s = plugin_schedule(lg.graph);
  if (!s.feasible) return;
  ExactOptions opts;
  opts.time_limit_ms = 2000;
  opts.minimise_stages = false;
  const StatusOr<ExactResult> exact = generate_exact(lg.graph, opts);
  RC_PRE(exact.ok() && exact->schedule.proven_optimal);
  RC_CLASSIFY(s.ii == exact->schedule.ii, "at the optimum");
  if (s.ii < exact->schedule.ii) {
    RC_FAIL(plugin().name + " II " + std::to_string(s.ii) + " is below the proven optimum " +
            std::to_string(exact->schedule.ii));
  }
}

// Not vacuous: the plug-in schedules some of the graphs of a plain family.
TEST(Plugin, SchedulesSomeGraphs) {
  int scheduled = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    StatusOr<Graph> g = graphgen::generate("random_layered", 12, seed, {});
    ASSERT_TRUE(g.ok()) << g.status().message();
    ForeignOutcome o = run_foreign(plugin(), *g, {});
    ASSERT_TRUE(o.schedule.has_value()) << o.message;
    scheduled += o.schedule->feasible ? 1 : 0;
  }
  EXPECT_GT(scheduled, 0);
}

}  // namespace tilesched::props
